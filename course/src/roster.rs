//! A class's roster: its rows ([`RosterRow`], with an optional cohort, manual points and an
//! adjustment with its reason), read from bugrank's CSV, a Canvas gradebook export or a
//! Moodle participants export ([`RosterFormat`]), attached to a batch ([`Attached::roster`]),
//! and the rules an upload's student ids and roster must follow ([`roster_rule`]).

use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::batch::Rejected;
use crate::error::{CourseError, CourseResult};

/// A row of the roster: `id,cohort` and optionally `manual`; other columns are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RosterRow {
    pub id: String,
    pub cohort: String,
    /// The `manual` column as a number (it is also among `extra`, as written).
    pub manual: Option<f64>,
    /// Every column but `id` and `cohort`, as `(header, value)` in the roster's order
    /// (exports give them back in that order). Rows kept before the order was kept are read
    /// with their columns sorted by name.
    #[serde(deserialize_with = "columns_in_order")]
    pub extra: Vec<(String, String)>,
}

/// The roster's column of an instructor's change to a student's points: a number of
/// points, added (or, negative, taken away) after the points are computed.
pub const ADJUSTMENT_COLUMN: &str = "adjustment";

/// The roster's column of the reason for an adjustment, which the student reads.
pub const ADJUSTMENT_REASON_COLUMN: &str = "adjustment_reason";

/// An instructor's change to one student's points, with its reason. It belongs to the
/// batch's roster, so every analysis of the batch (a re-run included) keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adjustment {
    pub points: f64,
    pub reason: String,
}

/// The longest reason for an adjustment: a sentence or two the student reads.
pub const MAX_REASON_CHARS: usize = 500;

impl Adjustment {
    /// `points` to add (negative: to take away) for `reason` (trimmed): refused
    /// ([`CourseError::Batch`]) beyond [`MAX_POINTS`](crate::problem_dir::MAX_POINTS) either
    /// way, or without a reason, or with one over [`MAX_REASON_CHARS`].
    pub fn new(points: f64, reason: &str) -> CourseResult<Adjustment> {
        if !points.is_finite() || points.abs() > crate::problem_dir::MAX_POINTS {
            return Err(CourseError::Batch(format!("the points to add must be at most {} either way, not {points}", crate::problem_dir::MAX_POINTS)));
        }
        let reason = reason.trim();
        if reason.is_empty() || reason.chars().count() > MAX_REASON_CHARS {
            return Err(CourseError::Batch(format!("give the reason in at most {MAX_REASON_CHARS} characters: the student reads it beside their points")));
        }
        Ok(Adjustment { points, reason: reason.to_owned() })
    }

    /// Whether `student` may have their points adjusted in a batch: one who handed in
    /// (`handed_in`), or one of its `roster`'s who did not (whose 0 an adjustment raises: a
    /// grade by hand, an excuse); never the reference.
    pub fn may_adjust(student: &str, handed_in: bool, roster: &[RosterRow]) -> CourseResult<()> {
        if handed_in || (student != grader::REFERENCE_ID && roster.iter().any(|r| r.id == student)) {
            return Ok(());
        }
        Err(CourseError::Batch(format!("`{student}` is not a student of this batch (no submission, not on its roster): choose a student of the list")))
    }
}

impl RosterRow {
    /// The value of the roster's column `header`, if it has one.
    pub fn get(&self, header: &str) -> Option<&str> {
        self.extra.iter().find(|(h, _)| h == header).map(|(_, v)| v.as_str())
    }

    /// The student's name as the roster gives it: its `name`, or a platform export's
    /// (Canvas's `Student`, "Last, First"; Moodle's `First name` and `Last name`); `None`
    /// when it gives none.
    pub fn name(&self) -> Option<String> {
        let cell = |header: &str| self.get(header).map(str::trim).filter(|v| !v.is_empty());
        match (cell("name").or_else(|| cell("Student")), cell("First name"), cell("Last name")) {
            (Some(name), _, _) => Some(name.to_owned()),
            (None, Some(first), Some(last)) => Some(format!("{first} {last}")),
            (None, first, last) => first.or(last).map(str::to_owned),
        }
    }

    /// The student's email address as the roster gives it: its `email`, or Moodle's
    /// `Email address`; `None` when it gives none.
    pub fn email(&self) -> Option<&str> {
        ["email", "Email address"].iter().find_map(|header| self.get(header).map(str::trim).filter(|v| !v.is_empty()))
    }

    /// The instructor's adjustment of this student's points, if the roster gives one
    /// ([`ADJUSTMENT_COLUMN`], [`ADJUSTMENT_REASON_COLUMN`]; checked by [`parse_roster`]).
    pub fn adjustment(&self) -> Option<Adjustment> {
        let points = self.get(ADJUSTMENT_COLUMN).filter(|p| !p.is_empty())?.parse::<f64>().ok().filter(|p| p.is_finite())?;
        Some(Adjustment { points, reason: self.get(ADJUSTMENT_REASON_COLUMN).unwrap_or_default().to_owned() })
    }

    /// Student `id`'s row of a batch's graded roster, given the batch's `adjustment` of
    /// them: their roster `row` (`None` when the roster lacks them: a row of no cohort is
    /// made) with the adjustment in it ([`RosterRow::adjusted`]).
    pub fn graded(row: Option<RosterRow>, id: String, adjustment: &Adjustment) -> RosterRow {
        row.unwrap_or(RosterRow { id, cohort: String::new(), manual: None, extra: Vec::new() }).adjusted(adjustment)
    }

    /// This row with `adjustment` in its columns instead of any it had (the one the
    /// instructor made on the batch's page overrides the roster's).
    pub fn adjusted(mut self, adjustment: &Adjustment) -> RosterRow {
        for (column, value) in [(ADJUSTMENT_COLUMN, adjustment.points.to_string()), (ADJUSTMENT_REASON_COLUMN, adjustment.reason.clone())] {
            match self.extra.iter_mut().find(|(h, _)| h == column) {
                Some(cell) => cell.1 = value,
                None => self.extra.push((column.to_owned(), value)),
            }
        }
        self
    }

    /// The columns of `extra` as stored (JSON), read back in their order; the older form, a
    /// map by name without `manual`, is read too (with `manual` first).
    pub fn columns_from_json(json: &str, manual: Option<f64>) -> Vec<(String, String)> {
        match serde_json::from_str(json) {
            Ok(Columns::InOrder(columns)) => columns,
            Ok(Columns::ByName(columns)) => manual.map(|m| ("manual".to_owned(), m.to_string())).into_iter().chain(columns).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// The two forms a row's columns were kept in.
#[derive(Deserialize)]
#[serde(untagged)]
enum Columns {
    InOrder(Vec<(String, String)>),
    ByName(BTreeMap<String, String>),
}

fn columns_in_order<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, String)>, D::Error> {
    Ok(match Columns::deserialize(deserializer)? {
        Columns::InOrder(columns) => columns,
        Columns::ByName(columns) => columns.into_iter().collect(),
    })
}

/// What an upload adds, for the rules that depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UploadKind {
    /// A whole batch: every roster row should have a hand-in.
    Batch,
    /// Late hand-ins to a batch: only those handed in are checked against its roster.
    Late,
}

/// Why a student id cannot be used, if it cannot: ids go into links, file names and
/// spreadsheets, so they are at most 100 letters, digits and `._-@+`, starting with a
/// letter or a digit (a spreadsheet reads `=`, `+`, `-` or `@` first as a formula).
pub fn id_problem(id: &str) -> Option<String> {
    if id.len() > 100 || !id.chars().all(|c| c.is_ascii_alphanumeric() || "._-@+".contains(c)) {
        return Some(format!("a student id may only have letters, digits and . _ - @ + (found `{id}`)"));
    }
    if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some(format!("a student id must start with a letter or a digit (found `{id}`, which a spreadsheet would read as a formula)"));
    }
    None
}

/// The roster rule, once for every upload: a hand-in must have a roster row when there
/// is a roster. Returns the reason each id of `handed` is refused (`None`: on the roster,
/// or no roster), and, for a whole batch, the ids of the roster's students without a
/// hand-in (none for late hand-ins): no problem, a student who handed in nothing is part
/// of the class, and the batch lists them as such.
pub fn roster_rule(handed: &[&str], roster: Option<&[RosterRow]>, kind: UploadKind) -> (Vec<Option<String>>, Vec<String>) {
    let Some(roster) = roster else { return (vec![None; handed.len()], Vec::new()) };
    let missing = |id: &str| match kind {
        UploadKind::Batch => format!("no roster row for `{id}`"),
        UploadKind::Late => format!("no roster row for `{id}` in this batch"),
    };
    let listed: HashSet<&str> = roster.iter().map(|r| r.id.as_str()).collect();
    let refused = handed.iter().map(|id| (!listed.contains(id)).then(|| missing(id))).collect();
    let handed: HashSet<&str> = handed.iter().copied().collect();
    let without = match kind {
        UploadKind::Batch => roster.iter().filter(|r| !handed.contains(r.id.as_str())).map(|r| r.id.clone()).collect(),
        UploadKind::Late => Vec::new(),
    };
    (refused, without)
}

/// The shape of a roster: bugrank's own (`id,cohort[,manual],...`), or a learning
/// platform's export read as it is, so that identities come from the platform and go back
/// to it (the gradebook files name students as it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RosterFormat {
    Own,
    /// Canvas's gradebook export: `Student,ID,SIS User ID,SIS Login ID,Section,...` and a
    /// `Points Possible` row. The id is Canvas's user id (`ID`), the one its "Download
    /// Submissions" zip names files by; the cohort is the `Section` (or a `cohort` column).
    Canvas,
    /// Moodle's participants export: `First name,Last name,ID number,Email address,...`.
    /// The id is the `ID number`, the one Moodle's grade import matches; the cohort is the
    /// `Groups` column when there is one.
    Moodle,
}

impl RosterFormat {
    fn of(headers: &[String]) -> RosterFormat {
        let has = |name: &str| headers.iter().any(|h| h == name);
        match () {
            _ if has("id") => RosterFormat::Own,
            _ if has("Student") && has("ID") && has("SIS User ID") => RosterFormat::Canvas,
            _ if has("First name") && has("Last name") && has("ID number") => RosterFormat::Moodle,
            _ => RosterFormat::Own,
        }
    }

    fn id_column(self) -> &'static str {
        match self {
            RosterFormat::Own => "id",
            RosterFormat::Canvas => "ID",
            RosterFormat::Moodle => "ID number",
        }
    }

    fn cohort_column(self) -> Option<&'static str> {
        match self {
            RosterFormat::Own => None,
            RosterFormat::Canvas => Some("Section"),
            RosterFormat::Moodle => Some("Groups"),
        }
    }
}

/// Reads a roster file. Lines that cannot be used are returned as rejections naming the line.
pub fn read_roster(path: &Path) -> CourseResult<(Vec<RosterRow>, Vec<Rejected>)> {
    let file = std::fs::File::open(path).map_err(CourseError::io(format!("cannot read roster {}", path.display())))?;
    parse_roster(&path.display().to_string(), file)
}

/// The most rows a roster may have: the largest courses have some thousands of students,
/// a whole university's list some tens of thousands; a roster is read, checked and stored
/// in one request, so a bigger one is refused at once, with its count.
pub const MAX_ROSTER_ROWS: usize = 100_000;

/// A roster attached to a batch that already has hand-ins: every row is kept (a student
/// who handed in nothing is part of the class: every export lists them); the ids of the
/// rows that name no student of the batch, and the batch's students without a row, in
/// their orders.
#[derive(Debug, PartialEq)]
pub struct Attached {
    pub kept: Vec<RosterRow>,
    pub without_hand_in: Vec<String>,
    pub without_row: Vec<String>,
}

impl Attached {
    /// The roster file `file_name` (read from `input`) attached to a batch whose students
    /// are `students`. Refused whole ([`CourseError::Batch`], naming the file: nothing
    /// changes) when a line of it is refused, or when the batch has students and no row
    /// names one of them (another class's roster, or another file). A batch with no hand-in
    /// yet (open to students' own) takes any roster: it says who may hand in.
    pub fn roster(file_name: &str, input: impl Read, students: &[String]) -> CourseResult<Attached> {
        let (rows, rejected) = parse_roster(file_name, input)?;
        if !rejected.is_empty() {
            let reasons: Vec<String> = rejected.into_iter().map(|r| r.reason).collect();
            return Err(CourseError::Batch(format!("{file_name}: nothing was changed, because: {}", reasons.join("; "))));
        }
        let attached = attach_roster(rows, students);
        if !students.is_empty() && attached.kept.len() == attached.without_hand_in.len() {
            return Err(CourseError::Batch(format!("{file_name}: no row names a student of this batch: nothing was changed")));
        }
        Ok(attached)
    }
}

/// Attaches `rows` to a batch whose students are `students` (see [`Attached`]); linear in
/// both.
fn attach_roster(rows: Vec<RosterRow>, students: &[String]) -> Attached {
    let in_batch: HashSet<&str> = students.iter().map(String::as_str).collect();
    let listed: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let without_hand_in = rows.iter().filter(|r| !in_batch.contains(r.id.as_str())).map(|r| r.id.clone()).collect();
    let without_row = students.iter().filter(|s| !listed.contains(s.as_str())).cloned().collect();
    Attached { kept: rows, without_hand_in, without_row }
}

/// Reads a roster named `file_name` (for messages) from `input`. Linear in its lines; one
/// of more than [`MAX_ROSTER_ROWS`] rows is refused whole.
pub fn parse_roster(file_name: &str, input: impl Read) -> CourseResult<(Vec<RosterRow>, Vec<Rejected>)> {
    let not_csv = |e: csv::Error| CourseError::Batch(format!("{file_name} cannot be read as CSV: {e}"));
    // Each line is read alone (a roster's cells are ids, names and addresses: one line
    // each), so that a quote left open on one line is reported there, and never swallows
    // the lines after it into one cell.
    let mut text = String::new();
    let mut input = input;
    input.read_to_string(&mut text).map_err(|e| CourseError::Batch(format!("{file_name} is not text (UTF-8): {e}")))?;
    let count = text.lines().filter(|line| !line.trim().is_empty()).count().saturating_sub(1);
    if count > MAX_ROSTER_ROWS {
        return Err(CourseError::Batch(format!("{file_name} has {count} rows, more than the {MAX_ROSTER_ROWS} a roster may have: split it by course")));
    }
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let first = lines.next().map_or("", |(_, line)| line);
    let one_line = |line: &str| {
        csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(std::io::Cursor::new(line.as_bytes().to_vec()))
    };
    let mut reader = one_line(first);
    // A byte-order mark (Excel's, and bugrank's gradebook files') is not part of the first name.
    let headers: Vec<String> = reader.headers().map_err(not_csv)?.iter().map(|h| h.trim_start_matches('\u{feff}').to_owned()).collect();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let format = RosterFormat::of(&headers);
    let (Some(id_col), cohort_col) = (column(format.id_column()), column("cohort").or_else(|| format.cohort_column().and_then(column))) else {
        return Err(CourseError::Batch(format!(
            "{file_name}: the header must name the column `id` (and optionally `cohort`, `name`, `email`, ...), or be Canvas's gradebook export (`Student,ID,SIS User ID,...`) or Moodle's participants (`First name,Last name,ID number,...`) (found: {})",
            headers.join(",")
        )));
    };
    // A roster without cohorts (`id,name,email`, as instructors have them) is a roster:
    // every row's cohort is empty, and the batch simply has no two-cohort report.
    let cohort_col = cohort_col.unwrap_or(usize::MAX);
    let manual_col = column("manual");
    let mut rows: Vec<RosterRow> = Vec::new();
    let mut ids: HashSet<String> = HashSet::new();
    let mut rejected = Vec::new();
    for (line, text) in lines.filter(|(_, text)| !text.trim().is_empty()) {
        if text.matches('"').count() % 2 == 1 {
            rejected.push(Rejected {
                file: format!("{file_name}:{line}"),
                reason: format!("{file_name} line {line}: a quote (\") opens a cell and is not closed on that line: close it, or remove it"),
                id: None,
            });
            continue;
        }
        let Some(record) = one_line(text).records().next() else { continue };
        let record = record.map_err(not_csv)?;
        // Canvas's export has a row of each assignment's points possible.
        if format == RosterFormat::Canvas && record.get(0).is_some_and(|student| student.trim() == "Points Possible") {
            continue;
        }
        let reject = |reason: String| Rejected { file: format!("{file_name}:{line}"), reason, id: None };
        if record.len() != headers.len() {
            rejected.push(reject(format!("{file_name} line {line}: expected {} fields ({}), found {}", headers.len(), headers.join(","), record.len())));
            continue;
        }
        let id = record[id_col].to_owned();
        let manual = match manual_col.map(|c| &record[c]).filter(|m| !m.is_empty()) {
            None => None,
            Some(text) => match text.parse::<f64>() {
                Ok(grade) if grade.is_finite() => Some(grade),
                _ => {
                    rejected.push(reject(format!("{file_name} line {line}: manual grade `{text}` is not a number")));
                    continue;
                }
            },
        };
        let adjustment = column(ADJUSTMENT_COLUMN).map(|c| &record[c]).filter(|a| !a.is_empty());
        let reason = column(ADJUSTMENT_REASON_COLUMN).map(|c| &record[c]).filter(|r| !r.is_empty());
        if let Some(text) = adjustment {
            if !text.parse::<f64>().is_ok_and(f64::is_finite) {
                rejected.push(reject(format!("{file_name} line {line}: the adjustment `{text}` is not a number of points (such as 5 or -2.5)")));
                continue;
            }
            if reason.is_none() {
                rejected.push(reject(format!(
                    "{file_name} line {line}: the adjustment {text} has no reason: the student reads it, in the column `{ADJUSTMENT_REASON_COLUMN}`"
                )));
                continue;
            }
        }
        if id.is_empty() {
            rejected.push(reject(format!("{file_name} line {line}: the id is empty")));
        } else if !ids.insert(id.clone()) {
            rejected.push(reject(format!("{file_name} line {line}: `{id}` is listed twice")));
        } else {
            // A platform's own columns are all kept, so that its files name students as it does.
            let own = |c: usize| format == RosterFormat::Own && (c == id_col || c == cohort_col);
            let extra = headers.iter().enumerate().filter(|&(c, _)| !own(c)).map(|(c, h)| (h.clone(), record[c].to_owned())).collect();
            let cohort = record.get(cohort_col).unwrap_or_default().to_owned();
            rows.push(RosterRow { id, cohort, manual, extra });
        }
    }
    Ok((rows, rejected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rosters_own_columns_keep_their_order_and_older_stored_rows_are_still_read() {
        let (rows, rejected) = parse_roster("r.csv", "id,zeta,cohort,manual,alpha\na01,z,A,7,a\n".as_bytes()).unwrap();
        assert!(rejected.is_empty());
        let columns: Vec<(&str, &str)> = rows[0].extra.iter().map(|(h, v)| (h.as_str(), v.as_str())).collect();
        assert_eq!(columns, [("zeta", "z"), ("manual", "7"), ("alpha", "a")]);
        assert_eq!((rows[0].manual, rows[0].get("alpha"), rows[0].get("cohort")), (Some(7.0), Some("a"), None));
        let stored = serde_json::to_string(&rows[0].extra).unwrap();
        assert_eq!(RosterRow::columns_from_json(&stored, Some(7.0)), rows[0].extra);
        // Kept before the order was: a map by name, without `manual`.
        let older = RosterRow::columns_from_json(r#"{"zeta":"z","alpha":"a"}"#, Some(7.0));
        assert_eq!(older, [("manual", "7"), ("alpha", "a"), ("zeta", "z")].map(|(h, v)| (h.to_owned(), v.to_owned())));
    }

    #[test]
    fn an_adjustment_is_a_number_of_points_with_a_reason_and_a_row_without_one_is_refused_alone() {
        let roster = "id,cohort,adjustment,adjustment_reason\n\
                      a01,A,5,the output format was ambiguous\n\
                      a02,A,-2.5,late\n\
                      a03,A,five,typo\n\
                      a04,A,3,\n\
                      a05,A,,\n";
        let (rows, rejected) = parse_roster("r.csv", roster.as_bytes()).unwrap();
        let adjustments: Vec<(&str, Option<Adjustment>)> = rows.iter().map(|r| (r.id.as_str(), r.adjustment())).collect();
        let adjusted = |points: f64, reason: &str| Some(Adjustment { points, reason: reason.to_owned() });
        assert_eq!(adjustments, [("a01", adjusted(5.0, "the output format was ambiguous")), ("a02", adjusted(-2.5, "late")), ("a05", None)]);
        let reasons: Vec<&str> = rejected.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "r.csv line 4: the adjustment `five` is not a number of points (such as 5 or -2.5)",
                "r.csv line 5: the adjustment 3 has no reason: the student reads it, in the column `adjustment_reason`",
            ]
        );
    }

    #[test]
    fn a_canvas_gradebook_export_is_a_roster_by_canvas_user_id_with_its_sections_as_cohorts() {
        let export = "Student,ID,SIS User ID,SIS Login ID,Section,Assignment 1 (5501)\n\
                      \"    Points Possible\",,,,,100\n\
                      \"Lovelace, Ada\",1001,s1001,ada,Section A,\n\
                      \"Turing, Alan\",1002,s1002,alan,Section B,87\n";
        let (rows, rejected) = parse_roster("gradebook.csv", export.as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        let read: Vec<(&str, &str, Option<&str>, Option<&str>)> =
            rows.iter().map(|r| (r.id.as_str(), r.cohort.as_str(), r.get("Student"), r.get("SIS User ID"))).collect();
        assert_eq!(read, [("1001", "Section A", Some("Lovelace, Ada"), Some("s1001")), ("1002", "Section B", Some("Turing, Alan"), Some("s1002"))]);
        assert_eq!((rows[0].name().as_deref(), rows[0].email()), (Some("Lovelace, Ada"), None), "Canvas's name, as it writes it; no address");
    }

    #[test]
    fn a_quote_left_open_is_reported_on_its_line_and_the_lines_after_it_are_read() {
        let roster = "id,cohort,name\na01,A,\"Lovelace, Ada\na02,A,Alan Turing\n\na03,B,\"Hopper, Grace\"\n";
        let (rows, rejected) = parse_roster("r.csv", roster.as_bytes()).unwrap();
        assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a02", "a03"]);
        assert_eq!(rows[1].get("name"), Some("Hopper, Grace"), "a quoted comma is part of the cell");
        assert_eq!(rejected.len(), 1);
        assert_eq!(rejected[0].file, "r.csv:2");
        assert!(rejected[0].reason.contains("line 2: a quote (\") opens a cell and is not closed on that line"), "{}", rejected[0].reason);
    }

    #[test]
    fn a_roster_is_read_and_attached_in_linear_time_and_one_too_long_is_refused_by_its_count() {
        let roster = |rows: usize| format!("id,cohort\n{}", (0..rows).map(|i| format!("s{i},A\n")).collect::<String>());
        let (rows, rejected) = parse_roster("r.csv", roster(MAX_ROSTER_ROWS).as_bytes()).unwrap();
        assert_eq!((rows.len(), rejected.len()), (MAX_ROSTER_ROWS, 0));
        let students: Vec<String> = (0..MAX_ROSTER_ROWS).map(|i| format!("s{}", i + 1)).collect();
        let attached = attach_roster(rows, &students);
        assert_eq!(attached.kept.len(), MAX_ROSTER_ROWS, "a student who handed in nothing keeps their row");
        assert_eq!((attached.without_hand_in, attached.without_row), (vec!["s0".to_owned()], vec![format!("s{MAX_ROSTER_ROWS}")]));
        let too_long = parse_roster("r.csv", roster(MAX_ROSTER_ROWS + 1).as_bytes()).err().unwrap().to_string();
        assert_eq!(too_long, "r.csv has 100001 rows, more than the 100000 a roster may have: split it by course");
        let (_, twice) = parse_roster("r.csv", "id,cohort\na,A\nb,B\na,C\n".as_bytes()).unwrap();
        assert_eq!(twice[0].reason, "r.csv line 4: `a` is listed twice");
    }

    #[test]
    fn a_roster_without_cohorts_is_read_with_every_cohort_empty() {
        let (rows, rejected) = parse_roster("r.csv", "id,name,email\na01,Ada Lovelace,ada@example.edu\n".as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!((rows[0].id.as_str(), rows[0].cohort.as_str()), ("a01", ""));
        assert_eq!(rows[0].extra, [("name".to_owned(), "Ada Lovelace".to_owned()), ("email".to_owned(), "ada@example.edu".to_owned())]);
        let no_id = parse_roster("r.csv", "name,email\nAda,ada@example.edu\n".as_bytes()).err().unwrap().to_string();
        assert!(no_id.contains("the header must name the column `id`"), "{no_id}");
    }

    #[test]
    fn a_moodle_participants_export_is_a_roster_by_id_number() {
        let export = "First name,Last name,ID number,Email address,Groups\nAda,Lovelace,s1001,ada@uni.example,Lab 1\nAlan,Turing,s1002,alan@uni.example,\n";
        let (rows, rejected) = parse_roster("participants.csv", export.as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        let read: Vec<(&str, &str, Option<&str>)> = rows.iter().map(|r| (r.id.as_str(), r.cohort.as_str(), r.get("Email address"))).collect();
        assert_eq!(read, [("s1001", "Lab 1", Some("ada@uni.example")), ("s1002", "", Some("alan@uni.example"))]);
        assert_eq!((rows[0].name().as_deref(), rows[0].email()), (Some("Ada Lovelace"), Some("ada@uni.example")), "names and addresses as Moodle gives them");
        let refused = parse_roster("r.csv", "name,email\nAda,a@x\n".as_bytes()).unwrap_err().to_string();
        assert!(refused.contains("or be Canvas's gradebook export"), "{refused}");
    }

    #[test]
    fn the_roster_rule_refuses_hand_ins_off_the_roster_and_names_students_without_one_for_a_whole_batch_only() {
        let (roster, _) = parse_roster("r.csv", "id,cohort\na01,A\na02,A\na03,B\n".as_bytes()).unwrap();
        let (refused, without) = roster_rule(&["a01", "x9"], Some(&roster), UploadKind::Batch);
        assert_eq!(refused, [None, Some("no roster row for `x9`".to_owned())]);
        assert_eq!(without, ["a02", "a03"]);
        let (refused, without) = roster_rule(&["a02", "x9"], Some(&roster), UploadKind::Late);
        assert_eq!((refused, without.len()), (vec![None, Some("no roster row for `x9` in this batch".to_owned())], 0));
        assert_eq!(roster_rule(&["x9"], None, UploadKind::Batch), (vec![None], Vec::new()), "no roster, no rule");
        assert_eq!(id_problem("a01"), None);
        assert!(id_problem("=cmd").unwrap().contains("letters, digits"), "`=` is not allowed at all");
        assert!(id_problem("-a01").unwrap().contains("must start with a letter or a digit"));
    }
}
