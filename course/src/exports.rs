//! Gradebook exports of an analysis: Canvas and Moodle import files. (`scores.csv` is the
//! command line's and the service's, [`crate::outputs::scores_csv`].)
//!
//! The roster's own columns fill the gradebooks' identity columns when present:
//! `name`, `canvas_id`, `sis_user_id`, `sis_login_id`, `section` for Canvas and
//! `idnumber` for Moodle. Without them the column is left empty, never filled with the
//! bugrank id (a SIS id that is not one could match another student).
//!
//! Both files, and the students' links, are meant for spreadsheets: they start with a
//! UTF-8 byte-order mark ([`EXCEL_BOM`]): Excel on Windows reads a CSV without it in the
//! local code page and garbles accented names, and both Canvas's and Moodle's importers
//! accept it. And no cell of theirs is read as a formula ([`SpreadsheetCsv`]): a roster
//! name `=HYPERLINK(...)` is text. The machine-read files (`scores.csv`, `analysis.json`,
//! the experiment's `summary.csv` and `manual.csv`) have neither: they are the command
//! line's, byte for byte, and keep every value verbatim.
//!
//! Here too: the points a gradebook gets ([`gradebook_points`], with the roster's adjustment; [`points_possible`]) and
//! the feedback; a Canvas export's assignment columns ([`canvas_assignments`], where the grades go) and the students
//! Canvas cannot match ([`canvas_unmatched`]); the roster's students who handed in nothing ([`without_hand_in`]) and
//! what every export gives them ([`NoHandIn`]: 0 points or an empty cell, the batch's choice in the service,
//! `--no-hand-in` on the command line); and `links.csv` ([`links_csv`]), through [`SpreadsheetCsv`] as the Canvas and
//! Moodle files are.

use std::collections::HashMap;

use grader::{Analysis, AnswerResult};
use present::{input_in_words, kinds_in_words, points_in_words};

use crate::roster::RosterRow;

/// The UTF-8 byte-order mark that makes Excel read a CSV as UTF-8.
pub const EXCEL_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A CSV file people open in Excel or import into a gradebook: it starts with
/// [`EXCEL_BOM`], and every cell that a spreadsheet would read as a formula is written as
/// text ([`as_text`]).
pub struct SpreadsheetCsv(csv::Writer<Vec<u8>>);

impl Default for SpreadsheetCsv {
    fn default() -> SpreadsheetCsv {
        SpreadsheetCsv::new()
    }
}

impl SpreadsheetCsv {
    pub fn new() -> SpreadsheetCsv {
        SpreadsheetCsv(csv::Writer::from_writer(EXCEL_BOM.to_vec()))
    }

    /// Writes one row, each cell through [`as_text`].
    pub fn write_record<I: IntoIterator<Item = T>, T: AsRef<str>>(&mut self, cells: I) -> csv::Result<()> {
        self.0.write_record(cells.into_iter().map(|cell| as_text(cell.as_ref()).into_owned()))
    }

    /// The file's bytes.
    pub fn into_bytes(self) -> csv::Result<Vec<u8>> {
        self.0.into_inner().map_err(|e| e.into_error().into())
    }
}

/// The characters that make a spreadsheet read a cell as a formula when it starts with
/// one (OWASP's list for CSV injection): `=`, `+`, `-`, `@`, tab and carriage return.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `cell` as a spreadsheet shows it but never evaluates it: a cell that starts with one
/// of `FORMULA_STARTS` gets a leading `'` (which Excel, LibreOffice and Google Sheets
/// take as "text", and do not show). Pitfall: so a negative number becomes text too; no
/// gradebook column of ours is ever negative.
pub fn as_text(cell: &str) -> std::borrow::Cow<'_, str> {
    if cell.starts_with(FORMULA_STARTS) { format!("'{cell}").into() } else { cell.into() }
}

fn extra<'a>(row: Option<&'a RosterRow>, column: &str) -> Option<&'a str> {
    row.and_then(|r| r.get(column)).filter(|v| !v.is_empty())
}

/// The first of `columns` the student's roster row fills: a platform's own column name
/// (a roster that is its export) before bugrank's (`canvas_id`, `idnumber`, ...).
fn first_of<'a>(row: Option<&'a RosterRow>, columns: &[&str]) -> Option<&'a str> {
    columns.iter().find_map(|column| extra(row, column))
}

/// A student's name as Canvas writes it, "Last, First": the export's own `Student`, or
/// the roster's `name` turned around at its last space ("Ada King Lovelace" is "Lovelace,
/// Ada King"); the id when there is neither.
fn canvas_name(row: Option<&RosterRow>, id: &str) -> String {
    if let Some(student) = extra(row, "Student") {
        return student.to_owned();
    }
    match extra(row, "name") {
        Some(name) if !name.contains(',') => match name.trim().rsplit_once(' ') {
            Some((first, last)) => format!("{last}, {first}"),
            None => name.to_owned(),
        },
        Some(name) => name.to_owned(),
        None => id.to_owned(),
    }
}

/// The points a gradebook gets for `answer`, and the most possible: points on the fixed
/// scale ([`grader::Points`]), or, in an analysis made before points existed, the suite
/// tests passed of the suite's size; then the instructor's adjustment from the student's
/// roster row, if any, kept between 0 and the maximum.
pub fn gradebook_points(analysis: &Analysis, answer: &AnswerResult, row: Option<&RosterRow>) -> (f64, f64) {
    let (points, max) = match &answer.points {
        Some(points) => (points.points, points.max),
        None => (answer.passed as f64, analysis.scored_tests() as f64),
    };
    (adjusted_points(points, max, row), max)
}

/// Every graded answer's grade, by id: what every export gives it ([`gradebook_points`]
/// with its row of `roster`, the batch's roster with the instructor's adjustments).
pub fn grades(analysis: &Analysis, roster: &[RosterRow]) -> HashMap<String, f64> {
    analysis.answers.iter().map(|a| (a.id.clone(), gradebook_points(analysis, a, roster.iter().find(|r| r.id == a.id)).0)).collect()
}

/// The most points a gradebook can give in `analysis`: its answers' maximum (an analysis
/// made before points existed has the suite's size), else the policy's.
pub fn points_possible(analysis: &Analysis) -> f64 {
    analysis.answers.first().map_or(analysis.grading.max_points, |a| gradebook_points(analysis, a, None).1)
}

/// `points` of `max` with the instructor's adjustment from the student's roster row, if
/// any, kept between 0 and the maximum, to two decimals.
pub fn adjusted_points(points: f64, max: f64, row: Option<&RosterRow>) -> f64 {
    let adjusted = points + row.and_then(RosterRow::adjustment).map_or(0.0, |a| a.points);
    (adjusted.clamp(0.0, max) * 100.0).round() / 100.0
}

/// What a gradebook gets for a student on the roster who handed in nothing: 0 points (the
/// default: a missing hand-in earns nothing), or an empty cell (no grade yet: the
/// instructor grades it by hand, or the student has an extension). Every export of an
/// analysis applies the same choice; the instructor's adjustment still applies to 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoHandIn {
    #[default]
    Zero,
    Empty,
}

impl NoHandIn {
    /// Its name in forms, flags and the database: `zero` or `empty`.
    pub fn name(self) -> &'static str {
        match self {
            NoHandIn::Zero => "zero",
            NoHandIn::Empty => "empty",
        }
    }

    /// The choice named `name` ([`NoHandIn::name`]).
    pub fn named(name: &str) -> Option<NoHandIn> {
        [NoHandIn::Zero, NoHandIn::Empty].into_iter().find(|choice| choice.name() == name)
    }

    /// The grade of a student of `row` who handed in nothing, of `max` points: `None` for
    /// no grade.
    pub fn points(self, max: f64, row: &RosterRow) -> Option<f64> {
        match self {
            NoHandIn::Zero => Some(adjusted_points(0.0, max, Some(row))),
            NoHandIn::Empty => None,
        }
    }

    /// The gradebook cell of a student of `row` who handed in nothing, of `max` points.
    pub fn cell(self, max: f64, row: &RosterRow) -> String {
        self.points(max, row).map(|points| points.to_string()).unwrap_or_default()
    }

    /// In words, for pages: "0 points" or "no grade (an empty cell)".
    pub fn in_words(self) -> &'static str {
        match self {
            NoHandIn::Zero => "0 points",
            NoHandIn::Empty => "no grade (an empty cell)",
        }
    }
}

/// The roster's students who handed in nothing graded in `analysis`, in the roster's
/// order: part of the class, so every export lists them ([`NoHandIn`]). The id
/// `reference`, the model answer's, is nobody's.
pub fn without_hand_in<'r>(analysis: &Analysis, roster: &'r [RosterRow]) -> Vec<&'r RosterRow> {
    let graded: std::collections::HashSet<&str> = analysis.answers.iter().map(|a| a.id.as_str()).collect();
    roster.iter().filter(|r| r.id != "reference" && !graded.contains(r.id.as_str())).collect()
}

/// One student's line of a gradebook: what every export (and the grades an LMS is sent)
/// gives them.
pub struct GradebookLine<'a> {
    pub id: &'a str,
    /// Their roster row, when the roster has one.
    pub row: Option<&'a RosterRow>,
    /// Their graded hand-in; `None` for a roster's student who handed in nothing.
    pub answer: Option<&'a AnswerResult>,
    /// Their grade: the points ([`gradebook_points`]), or for a student who handed in
    /// nothing `no_hand_in`'s ([`NoHandIn::points`]: `None` for no grade).
    pub points: Option<f64>,
}

impl GradebookLine<'_> {
    /// The grade as a gradebook's cell (empty for no grade).
    pub fn cell(&self) -> String {
        self.points.map(|points| points.to_string()).unwrap_or_default()
    }
}

/// The gradebook of `analysis`: each graded answer, then the roster's students who handed
/// in nothing ([`without_hand_in`]), as every export lists them.
pub fn gradebook<'a>(analysis: &'a Analysis, roster: &'a [RosterRow], no_hand_in: NoHandIn) -> Vec<GradebookLine<'a>> {
    let max = points_possible(analysis);
    let graded = analysis.answers.iter().map(|a| {
        let row = roster.iter().find(|r| r.id == a.id);
        GradebookLine { id: &a.id, row, answer: Some(a), points: Some(gradebook_points(analysis, a, row).0) }
    });
    let missing =
        without_hand_in(analysis, roster).into_iter().map(|r| GradebookLine { id: &r.id, row: Some(r), answer: None, points: no_hand_in.points(max, r) });
    graded.chain(missing).collect()
}

/// One student's private link, with what the rosters say of them, for `links.csv`.
pub struct StudentLink {
    pub course: String,
    pub id: String,
    pub name: String,
    pub email: String,
    pub link: String,
}

/// Students' names and emails by (course, student id): what [`roster_contacts`] finds.
pub type Contacts = HashMap<(i64, String), (String, String)>;

/// Each student's name and email ([`RosterRow::name`], [`RosterRow::email`]), by course and
/// id, from `rosters` (course, row) in the order the batches were made: a later batch's
/// value wins, an empty cell never does.
pub fn roster_contacts(rosters: &[(i64, RosterRow)]) -> Contacts {
    let mut contact = Contacts::new();
    for (course, row) in rosters {
        let entry = contact.entry((*course, row.id.clone())).or_default();
        if let Some(name) = row.name() {
            entry.0 = name;
        }
        if let Some(email) = row.email() {
            entry.1 = email.to_owned();
        }
    }
    contact
}

/// `links.csv`, for a mail merge: `course,id`, then `name` and `email` when any student
/// has one, then `link`.
pub fn links_csv(links: &[StudentLink]) -> csv::Result<Vec<u8>> {
    let (names, emails) = (links.iter().any(|l| !l.name.is_empty()), links.iter().any(|l| !l.email.is_empty()));
    let mut out = SpreadsheetCsv::new();
    let mut header = vec!["course", "id"];
    header.extend(names.then_some("name"));
    header.extend(emails.then_some("email"));
    header.push("link");
    out.write_record(&header)?;
    for l in links {
        let mut record = vec![l.course.as_str(), l.id.as_str()];
        record.extend(names.then_some(l.name.as_str()));
        record.extend(emails.then_some(l.email.as_str()));
        record.push(&l.link);
        out.write_record(&record)?;
    }
    out.into_bytes()
}

/// The assignment columns of a roster that is Canvas's gradebook export, in its order: the
/// headers Canvas writes for an assignment, its title then its Canvas id in parentheses
/// (`Interval sets (5501)`). Grades imported under that exact header land in that
/// assignment; under any other name Canvas makes a new assignment. Empty for any other
/// roster.
pub fn canvas_assignments(roster: &[RosterRow]) -> Vec<String> {
    let Some(first) = roster.first().filter(|r| r.get("SIS User ID").is_some()) else { return Vec::new() };
    let is_assignment = |header: &str| {
        header
            .strip_suffix(')')
            .and_then(|h| h.rsplit_once(" ("))
            .is_some_and(|(title, id)| !title.trim().is_empty() && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
    };
    first.extra.iter().map(|(header, _)| header).filter(|h| is_assignment(h)).cloned().collect()
}

/// The students of `analysis` whom Canvas's import cannot match to a student of its own:
/// their roster row (if any) gives none of Canvas's `ID`, `SIS User ID`, `SIS Login ID`
/// (nor bugrank's `canvas_id`, `sis_user_id`, `sis_login_id`), in the analysis's order,
/// then those of the roster without a hand-in ([`without_hand_in`]).
pub fn canvas_unmatched(analysis: &Analysis, roster: &[RosterRow]) -> Vec<String> {
    let matched = |row: Option<&RosterRow>| first_of(row, &["ID", "canvas_id", "SIS User ID", "sis_user_id", "SIS Login ID", "sis_login_id"]).is_some();
    let graded = analysis.answers.iter().filter(|a| !matched(roster.iter().find(|r| r.id == a.id))).map(|a| a.id.clone());
    graded.chain(without_hand_in(analysis, roster).into_iter().filter(|r| !matched(Some(r))).map(|r| r.id.clone())).collect()
}

/// Canvas's gradebook import, as Canvas exports it: `Student,ID,SIS User ID,SIS Login
/// ID,Section,<assignment>`, then a `Points Possible` row giving the maximum
/// (`grading.max_points`), then each student's points ([`gradebook_points`]). Pitfall:
/// `assignment` is the grade column's header, which Canvas matches exactly to an
/// assignment of its own ([`canvas_assignments`]); Canvas keeps that assignment's points
/// possible, and takes the points as they are. The roster's students who handed in
/// nothing follow, with `no_hand_in`'s cell.
pub fn canvas_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str, no_hand_in: NoHandIn) -> csv::Result<Vec<u8>> {
    let mut out = SpreadsheetCsv::new();
    let max = points_possible(analysis);
    out.write_record(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])?;
    out.write_record(["Points Possible", "", "", "", "", &max.to_string()])?;
    for line in gradebook(analysis, roster, no_hand_in) {
        let (id, row, points) = (line.id, line.row, line.cell());
        out.write_record([
            &canvas_name(row, id),
            first_of(row, &["ID", "canvas_id"]).unwrap_or(""),
            first_of(row, &["SIS User ID", "sis_user_id"]).unwrap_or(""),
            first_of(row, &["SIS Login ID", "sis_login_id"]).unwrap_or(""),
            first_of(row, &["Section", "section"]).unwrap_or(""),
            &points,
        ])?;
    }
    out.into_bytes()
}

/// `text` ending as a sentence does ("too strict." stays, "too strict" gains its full stop).
fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

/// The feedback a student reads in Moodle: the points and why (and the instructor's
/// adjustment, from the student's roster row), what the class's tests found, in words,
/// with the shortest input that shows a bug, and where the rest is.
pub fn feedback(analysis: &Analysis, answer: &AnswerResult, row: Option<&RosterRow>) -> String {
    let tests = analysis.scored_tests();
    let mut earned = answer.points.as_ref().map(|p| format!("{} ", points_in_words(p))).unwrap_or_default();
    if let Some(adjustment) = row.and_then(RosterRow::adjustment) {
        let (points, max) = gradebook_points(analysis, answer, row);
        earned.push_str(&format!(
            "The instructor adjusted your points by {:+}: {} That makes {points} of {max}. ",
            adjustment.points,
            sentence(&adjustment.reason)
        ));
    }
    if let Some(why) = answer.build.as_ref().and_then(grader::Build::not_built_in_words) {
        return format!("{earned}Your program {why}, so it failed all {tests} tests. Your bugrank page shows why.");
    }
    if answer.failed.is_empty() {
        return format!("{earned}Your program passed all {tests} tests: no bug was found.");
    }
    let shortest = answer.failed.iter().filter_map(|id| analysis.suite.iter().find(|t| &t.id == id)).min_by_key(|t| (t.input.chars().count(), &t.id));
    let example = shortest.map(|t| format!(" The shortest input it fails on: {}.", input_in_words(&t.input, 80))).unwrap_or_default();
    format!(
        "{earned}Your program passed {} of {tests} tests; each failed test is a different bug found in this class. How it failed: {}.{example} Your bugrank page shows every failing input with the output expected.",
        answer.passed,
        kinds_in_words(&answer.counts).join(", ")
    )
}

/// The feedback of a gradebook line: [`feedback`] of its hand-in, or for a student who
/// handed in nothing, that none was graded for `assignment` and what that earns.
pub fn line_feedback(analysis: &Analysis, line: &GradebookLine, assignment: &str, no_hand_in: NoHandIn) -> String {
    match line.answer {
        Some(answer) => feedback(analysis, answer, line.row),
        None => format!("No hand-in of yours was graded for {assignment}: {}.", no_hand_in.in_words()),
    }
}

/// Moodle's grade import: two identity columns Moodle can map to its users (`ID number`,
/// from the roster's `ID number` or `idnumber`, else the id; and `Email address`), the
/// grade (the points, [`gradebook_points`]) and the feedback; then the roster's students
/// who handed in nothing, with `no_hand_in`'s cell and a feedback that says so.
pub fn moodle_csv(analysis: &Analysis, roster: &[RosterRow], assignment: &str, no_hand_in: NoHandIn) -> csv::Result<Vec<u8>> {
    let mut out = SpreadsheetCsv::new();
    out.write_record(["ID number", "Email address", assignment, &format!("{assignment} (feedback)")])?;
    for line in gradebook(analysis, roster, no_hand_in) {
        let feedback = line_feedback(analysis, &line, assignment, no_hand_in);
        out.write_record([
            first_of(line.row, &["ID number", "idnumber"]).unwrap_or(line.id),
            first_of(line.row, &["Email address", "email"]).unwrap_or(""),
            &line.cell(),
            &feedback,
        ])?;
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cell: &str, written: &str) {
        let mut out = SpreadsheetCsv::new();
        out.write_record([cell]).unwrap();
        let bytes = out.into_bytes().unwrap();
        assert_eq!(std::str::from_utf8(&bytes[EXCEL_BOM.len()..]).unwrap(), format!("{written}\n"), "the cell {cell:?}");
    }

    #[test]
    fn cells_a_spreadsheet_would_evaluate_are_written_as_text() {
        check(r#"=HYPERLINK("http://x/?"&A1,"click")"#, r#""'=HYPERLINK(""http://x/?""&A1,""click"")""#);
        check("+1+1", "'+1+1");
        check("@SUM(1+1)", "'@SUM(1+1)");
        check("-2+3", "'-2+3");
        check("\tx", "'\tx");
        check("\r=1", "\"'\r=1\"");
    }

    /// A Canvas gradebook export with two assignments (and the columns Canvas adds that
    /// are not assignments), read as a roster.
    fn canvas_roster() -> Vec<RosterRow> {
        let export = "Student,ID,SIS User ID,SIS Login ID,Section,Interval sets (5501),Lab 2 (5502),Current Score,Final Grade\n\
                      \"    Points Possible\",,,,,100,10,,\n\
                      \"Lovelace, Ada\",1001,s1001,ada,Section A,,7,,\n\
                      \"Turing, Alan\",1002,,,Section B,87,9,,\n";
        crate::roster::parse_roster("gradebook.csv", export.as_bytes()).unwrap().0
    }

    #[test]
    fn a_canvas_export_names_its_assignments_by_their_exact_headers_and_another_roster_none() {
        assert_eq!(canvas_assignments(&canvas_roster()), ["Interval sets (5501)", "Lab 2 (5502)"]);
        let own = crate::roster::parse_roster("r.csv", "id,name,Lab (draft)\na01,Ada,1\n".as_bytes()).unwrap().0;
        assert!(canvas_assignments(&own).is_empty(), "a column like Canvas's in a roster of bugrank's own is not an assignment");
    }

    #[test]
    fn other_cells_are_written_as_they_are() {
        check("Ada Lovelace", "Ada Lovelace");
        check("a01", "a01");
        check("87.5", "87.5");
        check("", "\"\"");
        check("x=1", "x=1");
    }
}
