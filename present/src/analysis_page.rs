//! One analysis as a self-contained HTML page (`report.html`), and the tables the
//! service's analysis page shares with it: the ranking and the suite.

use std::fmt::Write;

use grader::{Analysis, ProblemReport};

use crate::diagram::{order_svg, order_table_html};
use crate::experiment_page::experiment_section;
use crate::html::{escape_html, page_head};

/// How the ranking table is shown where it is.
#[derive(Default)]
pub struct Ranking<'a> {
    /// The table's `id`, and sortable by a click on a heading (the service's script).
    pub sortable_id: Option<&'a str>,
    /// Each answer's cohort where it differs from the analysis's (a roster attached later).
    pub cohorts: Option<&'a std::collections::HashMap<String, String>>,
    /// Each answer's grade where the instructor adjusted its points: the points shown are
    /// then the grade every export gives, the program's own in the cell's title.
    pub grades: Option<&'a std::collections::HashMap<String, f64>>,
    /// Each student's name (the roster's `name`), shown beside the id.
    pub names: Option<&'a std::collections::HashMap<String, String>>,
    /// Each answer's id links to `#bugs-<id>` (a page that has the bug lists).
    pub bug_links: bool,
    /// With a path, a last column links each answer to its code at that path + its id.
    pub code_links: Option<&'a str>,
}

/// The ranking, best first: rank, answer, cohort, points (on the fixed scale: earned by
/// the program, or the grade where [`Ranking::grades`] has an adjustment), tests passed,
/// percent, failed tests by kind, and which tests (or that it did not compile).
pub fn ranking_table_html(analysis: &Analysis, how: &Ranking) -> String {
    let total = analysis.scored_tests();
    let mut html = match how.sortable_id {
        Some(id) => format!("<table class=\"results sortable\" id=\"{}\">", escape_html(id)),
        None => "<table class=\"results\"><caption>Ranking</caption>".to_owned(),
    };
    html.push_str(
        "<tr><th title=\"the paper's rank: the place among this class by suite tests passed, not the grade\">Rank</th><th>Student</th><th>Cohort</th><th title=\"the grade: earned by the program on the grading sample, with the instructor's adjustment where there is one (what every export gives)\">Points</th><th title=\"the paper's score: suite tests passed, each a bug found in this class; it moves with the class, the points do not\">Passed</th><th title=\"the paper's score as a share of the suite\">%</th><th title=\"failed by a wrong output\">Wrong</th>\
         <th title=\"failed by a crash\">Crash</th><th title=\"failed by taking too long\">Time</th>\
         <th title=\"failed by exceeding the memory or output limit\">Limit</th><th>Failed tests</th>",
    );
    html.push_str(if how.code_links.is_some() { "<th>Code</th></tr>\n" } else { "</tr>\n" });
    for a in analysis.ranked() {
        let id = escape_html(&a.id);
        let mut name = if how.bug_links { format!("<a href=\"#bugs-{id}\">{id}</a>") } else { id };
        if let Some(full) = how.names.and_then(|n| n.get(&a.id)).filter(|n| !n.is_empty()) {
            write!(name, " <span class=\"muted\">{}</span>", escape_html(full)).unwrap();
        }
        let cohort = how.cohorts.and_then(|c| c.get(&a.id)).map(String::as_str).or(a.cohort.as_deref()).unwrap_or("");
        let points = match (a.points.as_ref(), how.grades.and_then(|g| g.get(&a.id))) {
            (None, _) => "–".to_owned(),
            (Some(p), Some(grade)) if *grade != p.points => {
                format!("<span title=\"of {}; the program earned {}, adjusted by {:+}\">{grade}</span>", p.max, p.points, grade - p.points)
            }
            (Some(p), _) => format!("<span title=\"of {}\">{}</span>", p.max, p.points),
        };
        let mut failed = match a.build.as_ref().and_then(grader::Build::not_built_in_words) {
            Some(why) => format!("<span class=\"bad\">{}</span>", escape_html(&why)),
            None => escape_html(&a.failed.join(" ")),
        };
        // A broken rule of the assignment is a kind of its own: no test shows it.
        if let Some([rule, more @ ..]) = a.build.as_ref().map(|b| b.rules_broken.as_slice()).filter(|rules| !rules.is_empty()) {
            let more = if more.is_empty() { String::new() } else { format!(" and {} more", more.len()) };
            failed = format!("<span class=\"bad\">breaks a rule: {}{more}</span> {failed}", escape_html(&rule.in_words()));
        }
        if let Some(path) = how.code_links {
            // A student id has only letters, digits and `._-@+`: a path segment as it is.
            write!(failed, "</td><td><a href=\"{}{}\">code</a>", escape_html(path), escape_html(&a.id)).unwrap();
        }
        writeln!(
            html,
            "<tr><td class=\"num\">{}</td><td>{name}</td><td>{}</td><td class=\"num\">{points}</td><td class=\"num\">{}/{total}</td><td class=\"num\">{:.1}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{failed}</td></tr>",
            a.rank,
            escape_html(cohort),
            a.passed,
            a.percent,
            a.counts.wrong,
            a.counts.crash,
            a.counts.timeout,
            a.counts.memory + a.counts.output
        )
        .unwrap();
    }
    html.push_str("</table>\n");
    html
}

/// The suite: each test's id (the course's name for it, and whom it was added for in a
/// frozen re-run), input,
/// expected output and how many answers fail it.
pub fn suite_table_html(analysis: &Analysis) -> String {
    let mut html =
        String::from("<table class=\"results\"><caption>The test suite</caption><tr><th>Test</th><th>Input</th><th>Expected</th><th>Failed by</th></tr>\n");
    for t in &analysis.suite {
        let mut only = t.only_for.as_ref().map_or(String::new(), |ids| {
            format!(" <span class=\"muted\" title=\"added for a resubmission: counts against it alone\">(for {})</span>", escape_html(&ids.join(", ")))
        });
        if let Some(name) = &t.course_test {
            write!(only, " <span class=\"muted\" title=\"one of the course's own tests, as written\">(the course's <code>{}</code>)</span>", escape_html(name))
                .unwrap();
        }
        writeln!(
            html,
            "<tr><td>{}{only}</td><td><code>{}</code></td><td><code>{}</code></td><td class=\"num\">{}</td></tr>",
            escape_html(&t.id),
            escape_html(&t.input),
            escape_html(&t.expected),
            t.failing.len()
        )
        .unwrap();
    }
    html.push_str("</table>\n");
    html
}

/// One analysis as a self-contained page: the ranking, the suite, the correctness
/// diagram, and a comparison of two cohorts when there is one.
pub fn analysis_html(analysis: &Analysis, comparison: Option<&ProblemReport>) -> String {
    let mut html = page_head(&format!("bugrank: {}", analysis.problem));
    let total = analysis.scored_tests();
    writeln!(html, "<h1>{}</h1>", escape_html(&analysis.problem)).unwrap();
    writeln!(
        html,
        "<p class=\"note\">Seed {}: {} random tests generated, {} runs; the suite has {total} tests, one per inferred bug. \
         An answer's score is the number of suite tests it passes.</p>",
        analysis.seed, analysis.tests_generated, analysis.executions
    )
    .unwrap();
    if !analysis.course_tests.is_empty() {
        writeln!(html, "<p class=\"note\">{}</p>", escape_html(&course_tests_in_words(analysis))).unwrap();
    }
    html.push_str(&ranking_table_html(analysis, &Ranking::default()));
    html.push_str(&suite_table_html(analysis));
    html.push_str("<h2>Correctness order</h2>\n");
    html.push_str(&order_svg(analysis));
    html.push_str(&order_table_html(analysis));
    if let Some(report) = comparison {
        html.push_str("\n<h2>Cohorts</h2>\n");
        html.push_str(&experiment_section(std::slice::from_ref(report)));
    }
    html.push_str("</body></html>\n");
    html
}

/// What became of the course's own tests, in a sentence: "The course's 12 tests ran first;
/// 3 of them are in the suite, under their names; the others add nothing: …"
pub fn course_tests_in_words(analysis: &Analysis) -> String {
    let ran = analysis.course_tests.len();
    let kept = analysis.suite.iter().filter(|t| t.course_test.is_some()).count();
    let tests = if ran == 1 { "test" } else { "tests" };
    match kept {
        0 => format!("The course's {ran} {tests} ran first; none is in the suite: each answer failing one of them fails a suite test too."),
        _ if kept == ran => format!("The course's {ran} {tests} ran first; each one is in the suite, under its name."),
        _ => format!(
            "The course's {ran} {tests} ran first; {kept} of them are in the suite, under their names; the others add nothing: each answer failing one of them fails a suite test too."
        ),
    }
}

/// The ids a re-run changed (or any list of ids) as text: "a01, a07", or "none".
pub fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() { "none".to_owned() } else { ids.join(", ") }
}
