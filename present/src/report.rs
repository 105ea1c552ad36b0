//! Text renderings that need no I/O: the correctness order as DOT, bug lists as Markdown,
//! an analysis as a self-contained HTML page.

use std::fmt::Write;

use grader::{ANY, Analysis, BugList, FailureKind, ProblemReport};

use crate::diagram::{answers_text, order_svg, order_table_html};
use crate::experiment::experiment_section;
use crate::html::{escape_html, page_head};

/// The correctness order in Graphviz's DOT language: one box per class (its answers and
/// tests passed), better classes higher, each covering arrow labelled with its witness
/// test's input and "(+n)" for the other distinguishing tests.
pub fn order_dot(analysis: &Analysis) -> String {
    let mut dot = String::new();
    let total = analysis.scored_tests();
    writeln!(dot, "digraph correctness {{").unwrap();
    writeln!(dot, "  label=\"{}: correctness order over {total} tests\";", escape(&analysis.problem)).unwrap();
    writeln!(dot, "  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];").unwrap();
    for class in &analysis.order.classes {
        writeln!(dot, "  {} [label=\"{}\\n{}/{total} passed\"];", class.id, escape(&answers_text(&class.answers)), class.passed).unwrap();
    }
    for edge in &analysis.order.edges {
        let input = analysis.suite.iter().find(|t| t.id == edge.witness).map_or("", |t| t.input.as_str());
        let others = if edge.others > 0 { format!(" (+{})", edge.others) } else { String::new() };
        writeln!(dot, "  {} -> {} [label=\"{}{}\"];", edge.from, edge.to, escape(input), others).unwrap();
    }
    dot.push_str("}\n");
    dot
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// A student's bug list as Markdown. Inputs and outputs are shown quoted, with escapes,
/// so that white space and newlines are visible.
pub fn bug_list_markdown(list: &BugList) -> String {
    let mut md = String::new();
    writeln!(md, "# Bug list: {}\n", list.answer).unwrap();
    if let Some(error) = list.compile_error() {
        writeln!(md, "Your program {}. The compiler said:\n\n{}", list.headline(), fenced(error)).unwrap();
        return md;
    }
    writeln!(
        md,
        "Your program {}. Each test stands for one bug found among the class's programs; \
         several failed tests may have one cause in yours.\n",
        list.headline()
    )
    .unwrap();
    if let Some(build) = list.build.as_ref().filter(|b| !b.warnings.is_empty()) {
        writeln!(md, "The compiler warned:\n\n{}", fenced(&build.warnings)).unwrap();
    }
    let shown = if list.fails_all_alike() {
        writeln!(md, "It fails every test the same way; here is the first.\n").unwrap();
        &list.bugs[..1]
    } else {
        &list.bugs[..]
    };
    for bug in shown {
        writeln!(md, "## Test {}: {}\n", bug.test, bug.got.summary()).unwrap();
        writeln!(md, "Input:\n\n{}", text_block(&bug.input)).unwrap();
        writeln!(md, "Expected output:\n\n{}", text_block(&bug.expected)).unwrap();
        match bug.got.kind {
            FailureKind::Wrong => writeln!(md, "Your program's output:\n\n{}", text_block(&bug.got.detail)).unwrap(),
            FailureKind::Crash => writeln!(md, "Your program crashed:\n\n{}", text_block(&bug.got.detail)).unwrap(),
            _ => writeln!(md, "Your program {}.\n", bug.got.detail).unwrap(),
        }
        if let Some(reason) = &bug.got.reason {
            writeln!(md, "Why it is wrong: {reason}\n").unwrap();
        }
        if let Some(general) = &bug.generalized {
            writeln!(md, "It fails whatever stands at {ANY}:\n\n{}", text_block(general)).unwrap();
        }
        if let Some(contrast) = &bug.contrast {
            writeln!(md, "It gets this close input right:\n\n{}\nwith the output:\n\n{}", text_block(&contrast.input), text_block(&contrast.expected)).unwrap();
        }
    }
    md
}

/// A program's input or output as a Markdown code block. A code block cannot show an
/// empty text, spaces at either end, carriage returns or tabs for sure, so such a text is
/// also given exactly, as a quoted string.
fn text_block(text: &str) -> String {
    let shown = text.strip_suffix('\n').unwrap_or(text);
    let unclear = shown.is_empty()
        || shown.starts_with(char::is_whitespace)
        || shown.ends_with(char::is_whitespace)
        || shown.chars().any(|c| c.is_control() && c != '\n');
    let exactly = if unclear { format!("(exactly: `{text:?}`)\n") } else { String::new() };
    format!("{}{exactly}", fenced(shown))
}

/// `text` as a Markdown code block, fenced by more backticks than it holds in a row.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// How the ranking table is shown where it is.
#[derive(Default)]
pub struct Ranking<'a> {
    /// The table's `id`, and sortable by a click on a heading (the service's script).
    pub sortable_id: Option<&'a str>,
    /// Each answer's cohort where it differs from the analysis's (a roster attached later).
    pub cohorts: Option<&'a std::collections::HashMap<String, String>>,
    /// Each answer's id links to `#bugs-<id>` (a page that has the bug lists).
    pub bug_links: bool,
}

/// The ranking, best first: rank, answer, cohort, tests passed, percent, failed tests by
/// kind, and which tests (or that it did not compile).
pub fn ranking_table_html(analysis: &Analysis, how: &Ranking) -> String {
    let total = analysis.scored_tests();
    let mut html = match how.sortable_id {
        Some(id) => format!("<table class=\"results sortable\" id=\"{}\">", escape_html(id)),
        None => "<table class=\"results\"><caption>Ranking</caption>".to_owned(),
    };
    html.push_str(
        "<tr><th>Rank</th><th>Student</th><th>Cohort</th><th>Passed</th><th>%</th><th title=\"failed by a wrong output\">Wrong</th>\
         <th title=\"failed by a crash\">Crash</th><th title=\"failed by taking too long\">Time</th>\
         <th title=\"failed by exceeding the memory or output limit\">Limit</th><th>Failed tests</th></tr>\n",
    );
    for a in analysis.ranked() {
        let id = escape_html(&a.id);
        let name = if how.bug_links { format!("<a href=\"#bugs-{id}\">{id}</a>") } else { id };
        let cohort = how.cohorts.and_then(|c| c.get(&a.id)).map(String::as_str).or(a.cohort.as_deref()).unwrap_or("");
        let failed = if a.not_built() { "<span class=\"bad\">did not compile</span>".to_owned() } else { escape_html(&a.failed.join(" ")) };
        writeln!(
            html,
            "<tr><td class=\"num\">{}</td><td>{name}</td><td>{}</td><td class=\"num\">{}/{total}</td><td class=\"num\">{:.1}</td>\
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

/// The suite: each test's id (and whom it was added for, in a frozen re-run), input,
/// expected output and how many answers fail it.
pub fn suite_table_html(analysis: &Analysis) -> String {
    let mut html = String::from("<table class=\"results\"><caption>The test suite</caption><tr><th>Test</th><th>Input</th><th>Expected</th><th>Failed by</th></tr>\n");
    for t in &analysis.suite {
        let only = t.only_for.as_ref().map_or(String::new(), |ids| {
            format!(" <span class=\"muted\" title=\"added for a resubmission: counts against it alone\">(for {})</span>", escape_html(&ids.join(", ")))
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use grader::{Behaviour, BugReport, Contrast};

    fn list(input: &str, expected: &str, got: &str) -> BugList {
        let bug = BugReport {
            test: "t07".into(),
            input: input.into(),
            expected: expected.into(),
            got: Behaviour { kind: FailureKind::Wrong, detail: got.into(), reason: None },
            generalized: None,
            contrast: Some(Contrast { input: "delete 1 []".into(), expected: "[]\n".into() }),
        };
        BugList { answer: "a01".into(), passed: 18, suite_size: 19, bugs: vec![bug], build: None }
    }

    #[test]
    fn a_bug_list_in_markdown_shows_inputs_and_outputs_as_code_blocks() {
        let md = bug_list_markdown(&list("delete 1 [(0,2)]", "[]\n", "[(0,2)]\n"));
        assert!(md.contains("## Test t07: wrong output\n"), "{md}");
        assert!(md.contains("Input:\n\n```text\ndelete 1 [(0,2)]\n```\n"), "{md}");
        assert!(md.contains("Expected output:\n\n```text\n[]\n```\n"), "{md}");
        assert!(md.contains("Your program's output:\n\n```text\n[(0,2)]\n```\n"), "{md}");
        assert!(md.contains("close input right:\n\n```text\ndelete 1 []\n```\n"), "{md}");
        assert!(!md.contains("\\n") && !md.contains("exactly"), "no escaped strings where a block says it all: {md}");
    }

    #[test]
    fn a_text_a_code_block_cannot_show_for_sure_is_also_given_exactly() {
        let md = bug_list_markdown(&list(" ", "\r\n", "x\ty"));
        assert!(md.contains("(exactly: `\" \"`)"), "{md}");
        assert!(md.contains("(exactly: `\"\\r\\n\"`)"), "{md}");
        assert!(md.contains("(exactly: `\"x\\ty\"`)"), "{md}");
    }
}
