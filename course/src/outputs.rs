//! The files a graded batch is written as, the same under the command line and the
//! service: `analysis.json` (the grader's analysis with what the batch could not use) is
//! what an analysis is, and is stored; the class's files ([`ClassFile`]: `scores.csv`, the
//! gradebooks, `order.dot`, `order.svg`, `report.html`) are rendered from it by
//! [`ClassFile::render`], when the command line writes them and each time the service
//! serves one (with the roster as it is then, its adjustments applied). And the
//! experiment report's files (`bugrank report` and the service's experiment page):
//! `report.json`, `report.html`, `summary.csv` and `manual.csv`.

use grader::{Analysis, ProblemReport, ScoreRow, compare};
use present::{analysis_html, experiment_html, order_dot, order_svg};
use serde::Serialize;

use crate::batch::Rejected;
use crate::error::{CourseError, CourseResult};
use crate::exports::{NoHandIn, canvas_csv, gradebook_points, moodle_csv, points_possible, without_hand_in};
use crate::grade_batch::Graded;
use crate::roster::RosterRow;

/// `analysis.json`: the grader's analysis and what the batch could not use.
#[derive(Serialize)]
struct AnalysisFile<'a> {
    #[serde(flatten)]
    analysis: &'a Analysis,
    rejected: &'a [Rejected],
    warnings: &'a [String],
}

/// A file of the class made from an analysis and its roster: made on demand, never
/// stored, so that what is served always follows the roster (a cohort attached, points
/// adjusted after the analysis ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassFile {
    /// `scores.csv` ([`scores_csv`]).
    Scores,
    /// `canvas.csv`, Canvas's gradebook import ([`canvas_csv`]), into the column
    /// [`Class::column`].
    Canvas,
    /// `moodle.csv`, Moodle's grade import ([`moodle_csv`]), into [`Class::column`].
    Moodle,
    /// `order.dot`, the correctness order for Graphviz.
    OrderDot,
    /// `order.svg`, the correctness order drawn.
    OrderSvg,
    /// `report.html`, the analysis as one self-contained page, with the two largest
    /// cohorts compared when there are two.
    Report,
}

/// What a [`ClassFile`] is made from.
pub struct Class<'a> {
    pub analysis: &'a Analysis,
    /// The roster as the files show it: its cohorts, its own columns, its adjustments.
    pub roster: &'a [RosterRow],
    /// What the roster's students who handed in nothing get.
    pub no_hand_in: NoHandIn,
    /// The gradebook column the grades go into (Canvas, Moodle): the assignment's name.
    pub column: &'a str,
}

impl ClassFile {
    /// Every class file.
    pub const ALL: [ClassFile; 6] = [ClassFile::Scores, ClassFile::Canvas, ClassFile::Moodle, ClassFile::OrderDot, ClassFile::OrderSvg, ClassFile::Report];

    /// Those `bugrank grade` writes beside `analysis.json` (the gradebooks need a column
    /// the command line does not ask for: `bugrank` serves them).
    pub const WRITTEN: [ClassFile; 4] = [ClassFile::Scores, ClassFile::OrderDot, ClassFile::OrderSvg, ClassFile::Report];

    /// Its file name.
    pub fn name(self) -> &'static str {
        match self {
            ClassFile::Scores => "scores.csv",
            ClassFile::Canvas => "canvas.csv",
            ClassFile::Moodle => "moodle.csv",
            ClassFile::OrderDot => "order.dot",
            ClassFile::OrderSvg => "order.svg",
            ClassFile::Report => "report.html",
        }
    }

    /// The class file of that name.
    pub fn named(name: &str) -> Option<ClassFile> {
        ClassFile::ALL.into_iter().find(|file| file.name() == name)
    }

    /// Its media type (every one is UTF-8 text).
    pub fn content_type(self) -> &'static str {
        match self {
            ClassFile::Scores | ClassFile::Canvas | ClassFile::Moodle => "text/csv",
            ClassFile::OrderDot => "text/vnd.graphviz",
            ClassFile::OrderSvg => "image/svg+xml",
            ClassFile::Report => "text/html",
        }
    }

    /// The file made from `class`: the one function the command line and the service make
    /// every class file with.
    pub fn render(self, class: &Class<'_>) -> CourseResult<Vec<u8>> {
        let (analysis, roster) = (class.analysis, class.roster);
        let csv = |made: csv::Result<Vec<u8>>| made.map_err(|e| CourseError::Output { file: self.name(), reason: e.to_string() });
        Ok(match self {
            ClassFile::Scores => scores_csv(analysis, roster, class.no_hand_in)?,
            ClassFile::Canvas => csv(canvas_csv(analysis, roster, class.column, class.no_hand_in))?,
            ClassFile::Moodle => csv(moodle_csv(analysis, roster, class.column, class.no_hand_in))?,
            ClassFile::OrderDot => order_dot(analysis).into_bytes(),
            ClassFile::OrderSvg => order_svg(analysis).into_bytes(),
            ClassFile::Report => analysis_html(analysis, cohort_comparison(analysis, roster).as_ref()).into_bytes(),
        })
    }
}

impl Graded {
    /// `analysis.json`: what the analysis is, as it is stored.
    pub fn analysis_json(&self) -> CourseResult<Vec<u8>> {
        let file = AnalysisFile { analysis: &self.analysis, rejected: &self.rejected, warnings: &self.warnings };
        let mut json = serde_json::to_string_pretty(&file).map_err(|e| CourseError::Output { file: "analysis.json", reason: e.to_string() })?;
        json.push('\n');
        Ok(json.into_bytes())
    }

    /// Every file `bugrank grade` writes as `(name, contents)`: the [`ClassFile::WRITTEN`],
    /// then `analysis.json` (a writer that writes them in order can take its presence to
    /// mean the rest is there).
    pub fn files(&self) -> CourseResult<Vec<(&'static str, Vec<u8>)>> {
        let class = Class { analysis: &self.analysis, roster: &self.roster, no_hand_in: self.no_hand_in, column: &self.analysis.problem };
        let mut files = ClassFile::WRITTEN.into_iter().map(|file| Ok((file.name(), file.render(&class)?))).collect::<CourseResult<Vec<_>>>()?;
        files.push(("analysis.json", self.analysis_json()?));
        Ok(files)
    }
}

/// The two largest cohorts of `analysis` compared (the roster's cohorts, or the
/// analysis's), when there are two.
fn cohort_comparison(analysis: &Analysis, roster: &[RosterRow]) -> Option<ProblemReport> {
    let rows = score_rows(analysis, roster);
    let (first, second) = main_cohorts(&rows)?;
    Some(compare(&analysis.problem, &rows, &first, &second))
}

/// Each answer's score with its cohort and manual grade: the roster's, or else the cohort
/// recorded in the analysis. Answers without a cohort are left out.
pub fn score_rows(analysis: &Analysis, roster: &[RosterRow]) -> Vec<ScoreRow> {
    analysis
        .answers
        .iter()
        .filter_map(|a| {
            let listed = roster.iter().find(|r| r.id == a.id);
            let cohort = listed.map(|r| r.cohort.clone()).or_else(|| a.cohort.clone())?;
            Some(ScoreRow { id: a.id.clone(), cohort, score: a.passed as f64, manual: listed.and_then(|r| r.manual) })
        })
        .collect()
}

/// The two largest cohorts (ties by name), when answers come in two or more.
pub fn main_cohorts(rows: &[ScoreRow]) -> Option<(String, String)> {
    let mut sizes: Vec<(usize, &str)> = Vec::new();
    for row in rows {
        match sizes.iter_mut().find(|(_, name)| *name == row.cohort) {
            Some((n, _)) => *n += 1,
            None => sizes.push((1, &row.cohort)),
        }
    }
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    match &sizes[..] {
        [(_, first), (_, second), ..] => Some((first.to_string(), second.to_string())),
        _ => None,
    }
}

/// `id,cohort,passed,failed,suite_size,percent,rank` (the paper's measures, against the
/// class's suite), `points,max_points` (on the fixed scale, the same whoever else is
/// graded: [`grader::Points`], with the roster's `adjustment`; empty for an analysis made
/// before points), then the failed
/// tests by kind
/// (`wrong,crash,timeout,memory,output`), one row per answer; when any answer was built
/// from sources, `language` (`module` for one handed in as a module) and `compiled`
/// (`yes`/`no`: a `no` failed every test without running); then the roster's own
/// columns (`manual` and any others), so that an instructor's extra columns
/// (names, sections) come back with the scores. When some of the roster's students handed
/// in nothing ([`without_hand_in`]), a `handed_in` column (`yes`/`no`) follows the
/// counts, and each of them has a row after the answers': the cohort, the suite's size,
/// `no_hand_in`'s points of the maximum, and nothing else of an answer's.
pub fn scores_csv(analysis: &Analysis, roster: &[RosterRow], no_hand_in: NoHandIn) -> CourseResult<Vec<u8>> {
    let failed = |e: csv::Error| CourseError::Output { file: "scores.csv", reason: e.to_string() };
    // The roster's columns in its own order (one header for every row of one roster).
    let mut columns: Vec<&str> = Vec::new();
    for (header, _) in roster.iter().flat_map(|r| &r.extra) {
        if !columns.contains(&header.as_str()) {
            columns.push(header);
        }
    }
    let has_sources = analysis.answers.iter().any(|a| a.build.is_some());
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header =
        vec!["id", "cohort", "passed", "failed", "suite_size", "percent", "rank", "points", "max_points", "wrong", "crash", "timeout", "memory", "output"];
    let missing = without_hand_in(analysis, roster);
    if !missing.is_empty() {
        header.push("handed_in");
    }
    if has_sources {
        header.extend(["language", "compiled"]);
    }
    header.extend(&columns);
    csv.write_record(&header).map_err(failed)?;
    let roster_columns =
        |row: Option<&RosterRow>| -> Vec<String> { columns.iter().map(|column| row.and_then(|r| r.get(column)).unwrap_or_default().to_owned()).collect() };
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        let mut record = vec![
            a.id.clone(),
            // The roster's cohort wins: it may have been attached after the analysis ran.
            row.map(|r| r.cohort.clone()).or_else(|| a.cohort.clone()).unwrap_or_default(),
            a.passed.to_string(),
            a.failed.len().to_string(),
            analysis.scored_tests().to_string(),
            format!("{:.1}", a.percent),
            a.rank.to_string(),
            a.points.as_ref().map(|_| gradebook_points(analysis, a, row).0.to_string()).unwrap_or_default(),
            a.points.as_ref().map(|p| p.max.to_string()).unwrap_or_default(),
            a.counts.wrong.to_string(),
            a.counts.crash.to_string(),
            a.counts.timeout.to_string(),
            a.counts.memory.to_string(),
            a.counts.output.to_string(),
        ];
        if !missing.is_empty() {
            record.push("yes".to_owned());
        }
        if has_sources {
            record.push(a.build.as_ref().map_or("module", |b| b.language.as_str()).to_owned());
            record.push(if a.not_built() { "no" } else { "yes" }.to_owned());
        }
        record.extend(roster_columns(row));
        csv.write_record(&record).map_err(failed)?;
    }
    let max = points_possible(analysis);
    for row in missing {
        let mut record = vec![row.id.clone(), row.cohort.clone(), String::new(), String::new(), analysis.scored_tests().to_string()];
        record.extend([String::new(), String::new(), no_hand_in.cell(max, row), max.to_string()]);
        record.extend(std::iter::repeat_n(String::new(), 5));
        record.push("no".to_owned());
        if has_sources {
            record.extend([String::new(), String::new()]);
        }
        record.extend(roster_columns(Some(row)));
        csv.write_record(&record).map_err(failed)?;
    }
    csv.into_inner().map_err(|e| CourseError::Output { file: "scores.csv", reason: e.to_string() })
}

/// An `analysis.json` as written by [`Graded::analysis_json`] (its extra fields are ignored).
pub fn read_analysis(path: &std::path::Path) -> CourseResult<Analysis> {
    let text = std::fs::read_to_string(path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| CourseError::Problem(format!("{} is not an analysis.json: {e}", path.display())))
}

/// The experiment report's files as `(name, contents)`: `report.json`, `report.html`
/// (the page with its plots), `summary.csv` (the statistics) and `manual.csv` (automatic
/// against manual grades).
pub fn experiment_files(reports: &[ProblemReport]) -> CourseResult<Vec<(&'static str, Vec<u8>)>> {
    let output = |file: &'static str| move |e: csv::Error| CourseError::Output { file, reason: e.to_string() };
    let json = serde_json::to_string_pretty(&serde_json::json!({ "problems": reports }))
        .map_err(|e| CourseError::Output { file: "report.json", reason: e.to_string() })?
        + "\n";
    Ok(vec![
        ("report.json", json.into_bytes()),
        ("report.html", experiment_html(reports).into_bytes()),
        ("summary.csv", summary_csv(reports).map_err(output("summary.csv"))?),
        ("manual.csv", manual_csv(reports).map_err(output("manual.csv"))?),
    ])
}

/// The report's statistics, one row per problem and group (`all`, then each cohort); the
/// tests' columns are filled on the `all` row.
fn summary_csv(reports: &[ProblemReport]) -> Result<Vec<u8>, csv::Error> {
    let mut summary = csv::Writer::from_writer(Vec::new());
    summary.write_record([
        "problem",
        "group",
        "n",
        "mean",
        "sd",
        "t",
        "df",
        "p",
        "p_df_truncated",
        "ci95_low",
        "ci95_high",
        "hedges_g",
        "mann_whitney_u",
        "mann_whitney_p",
        "spearman",
        "kendall",
    ])?;
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for r in reports {
        let groups = std::iter::once(("all".to_owned(), r.all.n, r.all.mean, r.all.sd)).chain(r.cohorts.iter().map(|c| (c.name.clone(), c.n, c.mean, c.sd)));
        for (i, (group, n, mean, sd)) in groups.enumerate() {
            let tests = |v: Option<f64>| if i == 0 { opt(v) } else { String::new() };
            summary.write_record([
                r.problem.clone(),
                group,
                n.to_string(),
                mean.to_string(),
                sd.to_string(),
                tests(r.welch.map(|w| w.t)),
                tests(r.welch.map(|w| w.df)),
                tests(r.welch.map(|w| w.p)),
                tests(r.welch.map(|w| w.p_df_truncated)),
                tests(r.mean_diff_ci95.map(|c| c[0])),
                tests(r.mean_diff_ci95.map(|c| c[1])),
                tests(r.hedges_g),
                tests(r.mann_whitney.map(|m| m.u)),
                tests(r.mann_whitney.map(|m| m.p)),
                tests(r.spearman),
                tests(r.kendall),
            ])?;
        }
    }
    summary.into_inner().map_err(|e| e.into_error().into())
}

/// Each answer's automatic and manual grade and ranks, per problem.
fn manual_csv(reports: &[ProblemReport]) -> Result<Vec<u8>, csv::Error> {
    let mut manual = csv::Writer::from_writer(Vec::new());
    manual.write_record(["problem", "id", "auto", "manual", "auto_rank", "manual_rank"])?;
    for r in reports {
        for m in &r.manual {
            manual.write_record([&r.problem, &m.id, &m.auto.to_string(), &m.manual.to_string(), &m.auto_rank.to_string(), &m.manual_rank.to_string()])?;
        }
    }
    manual.into_inner().map_err(|e| e.into_error().into())
}
