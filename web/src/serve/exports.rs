//! Gradebook exports of an analysis: Canvas and Moodle import files. (`scores.csv` is the
//! command line's, [`crate::grade::scores_csv`].)
//!
//! The roster's own columns fill the gradebooks' identity columns when present:
//! `name`, `canvas_id`, `sis_user_id`, `sis_login_id`, `section` for Canvas and
//! `idnumber` for Moodle; otherwise the submission id stands in.

use grader::Analysis;

use crate::submissions::RosterRow;

/// The grade a gradebook gets: the percentage of suite tests passed, one decimal.
fn grade(percent: f64) -> String {
    format!("{percent:.1}")
}

fn extra<'a>(row: Option<&'a RosterRow>, column: &str) -> Option<&'a str> {
    row.and_then(|r| r.extra.get(column)).map(String::as_str).filter(|v| !v.is_empty())
}

/// Canvas's gradebook import: `Student,ID,SIS User ID,SIS Login ID,Section,<assignment>`.
pub fn canvas_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str) -> csv::Result<Vec<u8>> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])?;
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        out.write_record([
            extra(row, "name").unwrap_or(&a.id),
            extra(row, "canvas_id").unwrap_or(""),
            extra(row, "sis_user_id").unwrap_or(&a.id),
            extra(row, "sis_login_id").unwrap_or(""),
            extra(row, "section").unwrap_or(""),
            &grade(a.percent),
        ])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// Moodle's grade import: an identity column (`ID number`) and the grade and feedback.
pub fn moodle_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str) -> csv::Result<Vec<u8>> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(["ID number", assignment, &format!("{assignment} (feedback)")])?;
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        let feedback = match a.failed.len() {
            0 => format!("Passed all {} tests: no bug found.", analysis.scored_tests()),
            n => {
                let c = &a.counts;
                let kinds: Vec<String> = [(c.wrong, "wrong output"), (c.crash, "crash"), (c.timeout, "too slow"), (c.memory + c.output, "over a limit")]
                    .into_iter()
                    .filter(|&(count, _)| count > 0)
                    .map(|(count, kind)| format!("{count} {kind}"))
                    .collect();
                format!(
                    "Passed {} of {} tests; failed {n} ({}): tests {}.",
                    a.passed,
                    analysis.scored_tests(),
                    kinds.join(", "),
                    a.failed.join(", ")
                )
            }
        };
        out.write_record([extra(row, "idnumber").unwrap_or(&a.id), &grade(a.percent), &feedback])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}
