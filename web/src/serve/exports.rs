//! Gradebook exports of an analysis: Canvas and Moodle import files. (`scores.csv` is the
//! command line's, [`crate::grade::scores_csv`].)
//!
//! The roster's own columns fill the gradebooks' identity columns when present:
//! `name`, `canvas_id`, `sis_user_id`, `sis_login_id`, `section` for Canvas and
//! `idnumber` for Moodle. Without them the column is left empty, never filled with the
//! bugrank id (a SIS id that is not one could match another student).
//!
//! Both files, and the students' links, start with a UTF-8 byte-order mark
//! ([`EXCEL_BOM`]): Excel on Windows reads a CSV without it in the local code page and
//! garbles accented names, and both Canvas's and Moodle's importers accept it. The
//! machine-read files (`scores.csv`, `analysis.json`) have none: they are the command
//! line's, byte for byte.

use grader::Analysis;

use crate::submissions::RosterRow;

/// The UTF-8 byte-order mark that makes Excel read a CSV as UTF-8.
pub const EXCEL_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A CSV writer for a file people open in Excel or import into a gradebook: it starts
/// with [`EXCEL_BOM`].
pub fn excel_csv() -> csv::Writer<Vec<u8>> {
    csv::Writer::from_writer(EXCEL_BOM.to_vec())
}

fn extra<'a>(row: Option<&'a RosterRow>, column: &str) -> Option<&'a str> {
    row.and_then(|r| r.get(column)).filter(|v| !v.is_empty())
}

/// Canvas's gradebook import, as Canvas exports it: `Student,ID,SIS User ID,SIS Login
/// ID,Section,<assignment>`, then a `Points Possible` row giving the suite's size, then
/// each student's points: the suite tests passed.
pub fn canvas_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str) -> csv::Result<Vec<u8>> {
    let mut out = excel_csv();
    out.write_record(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])?;
    out.write_record(["Points Possible", "", "", "", "", &analysis.scored_tests().to_string()])?;
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        out.write_record([
            extra(row, "name").unwrap_or(&a.id),
            extra(row, "canvas_id").unwrap_or(""),
            extra(row, "sis_user_id").unwrap_or(""),
            extra(row, "sis_login_id").unwrap_or(""),
            extra(row, "section").unwrap_or(""),
            &a.passed.to_string(),
        ])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// How many runs of a kind, in words: "a wrong output on 3 inputs".
fn kinds_in_words(counts: &grader::FailureCounts) -> Vec<String> {
    let inputs = |n: usize| if n == 1 { "1 input".to_owned() } else { format!("{n} inputs") };
    [
        (counts.wrong, "a wrong output"),
        (counts.crash, "a crash"),
        (counts.timeout, "too slow (far slower than the model answer)"),
        (counts.memory + counts.output, "over the memory or output limit"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, what)| format!("{what} on {}", inputs(n)))
    .collect()
}

/// The feedback a student reads in Moodle: what failed, in words, with the shortest input
/// that shows a bug, and where the rest is.
pub fn feedback(analysis: &Analysis, answer: &grader::AnswerResult) -> String {
    let tests = analysis.scored_tests();
    if answer.not_built() {
        return format!("Your program did not compile, so it failed all {tests} tests. Your bugrank page shows the compiler's message.");
    }
    if answer.failed.is_empty() {
        return format!("Your program passed all {tests} tests: no bug was found.");
    }
    let shortest = answer.failed.iter().filter_map(|id| analysis.suite.iter().find(|t| &t.id == id)).min_by_key(|t| (t.input.chars().count(), &t.id));
    let example = shortest.map(|t| format!(" The shortest input it fails on: {}.", present::one_line(&t.input, 80))).unwrap_or_default();
    format!(
        "Your program passed {} of {tests} tests; each failed test is a different bug found in this class. It gave {}.{example} Your bugrank page shows every failing input with the output expected.",
        answer.passed,
        kinds_in_words(&answer.counts).join(", ")
    )
}

/// Moodle's grade import: an identity column (`ID number`), the grade (percent of the
/// suite passed, one decimal) and the feedback.
pub fn moodle_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str) -> csv::Result<Vec<u8>> {
    let mut out = excel_csv();
    out.write_record(["ID number", assignment, &format!("{assignment} (feedback)")])?;
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        out.write_record([extra(row, "idnumber").unwrap_or(&a.id), &format!("{:.1}", a.percent), &feedback(analysis, a)])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}
