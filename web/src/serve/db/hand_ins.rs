//! The store's side of students handing in themselves (`serve::hand_ins`): each batch's
//! hand-in window, every hand-in a student made with its pre-check, and the deadlines
//! whose analysis is due.

use std::collections::HashMap;

use course::hand_in_window::{HandInWindow, LatePolicy, Verdict};
use serde::Serialize;

use super::queue::insert_analysis;
use super::sql::{Conn, Row, args};
use super::{AnalysisSettings, BATCH_COLUMNS, BATCHES, BatchRow, Db, DbResult, SubmissionRow, batch_row, replace_submission, row, rows, unknown_state};

/// A batch's hand-in window as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowRow {
    pub batch_id: i64,
    /// Whether students may hand in now (the deadline aside: see [`HandInWindow::decide`]).
    pub accepting: bool,
    pub window: HandInWindow,
    /// The analysis queued at the deadline, once queued.
    pub deadline_analysis: Option<i64>,
    /// Whether the deadline was dealt with (its analysis queued, or nothing to analyse).
    pub deadline_claimed: bool,
}

const WINDOW_COLUMNS: &str =
    "w.batch_id, w.accepting, w.deadline, w.minutes_between, w.late_policy, w.analyse_at_deadline, w.deadline_analysis, w.deadline_claimed";

/// The hand-in window of `batch`, if it ever had one.
fn window_of(c: &mut dyn Conn, batch: i64) -> DbResult<Option<WindowRow>> {
    row(c, &format!("SELECT {WINDOW_COLUMNS} FROM hand_in_windows w WHERE w.batch_id = ?1"), args![batch], window_row)
}

fn window_row(r: &Row) -> DbResult<WindowRow> {
    Ok(WindowRow {
        batch_id: r.int(0)?,
        accepting: r.bool(1)?,
        window: HandInWindow {
            deadline: r.opt_int(2)?,
            minutes_between: u32::try_from(r.int(3)?).unwrap_or(course::hand_in_window::DEFAULT_MINUTES_BETWEEN),
            // (The only values written are the policies' names.)
            late: LatePolicy::named(&r.text(4)?).unwrap_or_default(),
            analyse_at_deadline: r.bool(5)?,
        },
        deadline_analysis: r.opt_int(6)?,
        deadline_claimed: r.bool(7)?,
    })
}

/// Where a hand-in's pre-check is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PreCheckStatus {
    /// Waiting for the check thread, or being checked.
    Queued,
    /// Checked: the report is a `course::pre_check::PreCheck`.
    Done,
    /// It could not be checked here (the report says why): not the student's fault.
    Failed,
}

impl PreCheckStatus {
    fn name(self) -> &'static str {
        match self {
            PreCheckStatus::Queued => "queued",
            PreCheckStatus::Done => "done",
            PreCheckStatus::Failed => "failed",
        }
    }
}

/// One hand-in a student made themselves.
#[derive(Clone, Debug, Serialize)]
pub struct HandInRow {
    pub id: i64,
    pub batch_id: i64,
    pub student: String,
    pub file: String,
    pub sha256: String,
    pub late: bool,
    pub created: i64,
    pub status: PreCheckStatus,
    /// The pre-check (JSON) when `Done`, why it failed when `Failed`.
    pub report: Option<String>,
}

impl HandInRow {
    /// Its pre-check, once done (`None` while queued, when it failed, or if the report
    /// cannot be read).
    pub fn pre_check(&self) -> Option<course::pre_check::PreCheck> {
        self.report.as_deref().filter(|_| self.status == PreCheckStatus::Done).and_then(|json| serde_json::from_str(json).ok())
    }
}

/// When student `?2` last handed in to batch `?1` themselves.
const LAST_HAND_IN: &str = "SELECT max(created) FROM hand_in_checks WHERE batch_id = ?1 AND student = ?2";

const HAND_IN_COLUMNS: &str = "id, batch_id, student, file, sha256, late, created, status, report";

/// How many columns [`HAND_IN_COLUMNS`] names.
const AFTER_HAND_IN_COLUMNS: usize = 9;

fn hand_in_row(r: &Row) -> DbResult<HandInRow> {
    Ok(HandInRow {
        id: r.int(0)?,
        batch_id: r.int(1)?,
        student: r.text(2)?,
        file: r.text(3)?,
        sha256: r.text(4)?,
        late: r.bool(5)?,
        created: r.int(6)?,
        status: match r.text(7)?.as_str() {
            "queued" => PreCheckStatus::Queued,
            "done" => PreCheckStatus::Done,
            "failed" => PreCheckStatus::Failed,
            other => return Err(unknown_state("hand_in_checks.status", other)),
        },
        report: r.opt_text(8)?,
    })
}

/// What became of a student's hand-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandedIn {
    /// Kept (late or not, as the submission says), its pre-check queued under this id.
    Kept(i64),
    /// Not kept: the window's verdict (`Wait`, `Closed`).
    Refused(Verdict),
    /// The batch takes no hand-ins from students (never opened, or closed by the
    /// instructor).
    NotAccepting,
}

impl Db {
    /// The hand-in window of `batch`, if it ever had one.
    pub fn hand_in_window(&self, batch: i64) -> DbResult<Option<WindowRow>> {
        self.0.run(|c| window_of(c, batch))
    }

    /// Sets the hand-in window of `batch`. A deadline moved makes the new one due again
    /// (an analysis queued at the old one stays, no longer the window's), and says which of
    /// the students' own hand-ins are late against it.
    pub fn set_hand_in_window(&self, batch: i64, accepting: bool, window: &HandInWindow) -> DbResult<()> {
        self.0.transaction(|c| {
            c.execute(
                "INSERT INTO hand_in_windows (batch_id, accepting, deadline, minutes_between, late_policy, analyse_at_deadline)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (batch_id) DO UPDATE SET accepting = excluded.accepting, deadline = excluded.deadline,
                     minutes_between = excluded.minutes_between, late_policy = excluded.late_policy,
                     analyse_at_deadline = excluded.analyse_at_deadline,
                     deadline_claimed = CASE WHEN hand_in_windows.deadline = excluded.deadline THEN hand_in_windows.deadline_claimed ELSE FALSE END,
                     deadline_analysis = CASE WHEN hand_in_windows.deadline = excluded.deadline THEN hand_in_windows.deadline_analysis END",
                args![batch, accepting, window.deadline, i64::from(window.minutes_between), window.late.name(), window.analyse_at_deadline],
            )?;
            // Late is said against the deadline as it is now: a deadline moved makes
            // students' own hand-ins late, or no longer late.
            let late = "CASE WHEN CAST(?2 AS BIGINT) IS NOT NULL AND {uploaded} > CAST(?2 AS BIGINT) THEN TRUE ELSE FALSE END";
            c.execute(&format!("UPDATE hand_in_checks SET late = {} WHERE batch_id = ?1", late.replace("{uploaded}", "created")), args![batch, window.deadline])?;
            c.execute(
                &format!(
                    "UPDATE submissions SET late = {} WHERE batch_id = ?1 AND EXISTS (SELECT 1 FROM hand_in_checks h
                         WHERE h.batch_id = submissions.batch_id AND h.student = submissions.student AND h.sha256 = submissions.sha256 AND h.created = submissions.uploaded)",
                    late.replace("{uploaded}", "uploaded")
                ),
                args![batch, window.deadline],
            )?;
            Ok(())
        })
    }

    /// Whether `student` may hand in to `batch`: every student of its course when it has no
    /// roster, else those on it.
    pub fn may_hand_in(&self, batch: i64, student: &str) -> DbResult<bool> {
        self.0.run(|c| {
            c.query_one(
                "SELECT NOT EXISTS (SELECT 1 FROM roster WHERE batch_id = ?1) OR EXISTS (SELECT 1 FROM roster WHERE batch_id = ?1 AND student = ?2)",
                args![batch, student],
            )?
            .bool(0)
        })
    }

    /// When `student` last handed in to `batch` themselves.
    pub fn last_hand_in(&self, batch: i64, student: &str) -> DbResult<Option<i64>> {
        self.0.run(|c| c.query_one(LAST_HAND_IN, args![batch, student])?.opt_int(0))
    }

    /// The batches of course `course` students may hand in to now, with their windows, by
    /// deadline (none last).
    pub fn accepting_batches(&self, course: i64) -> DbResult<Vec<(BatchRow, WindowRow)>> {
        self.0.run(|c| {
            rows(
                c,
                &format!(
                    "SELECT {BATCH_COLUMNS}, {WINDOW_COLUMNS} FROM {BATCHES} JOIN hand_in_windows w ON w.batch_id = b.id
                     WHERE b.course_id = ?1 AND w.accepting = TRUE ORDER BY w.deadline IS NULL, w.deadline, b.id"
                ),
                args![course],
                |r| Ok((batch_row(r)?, window_row(&r.columns_from(super::AFTER_BATCH_COLUMNS))?)),
            )
        })
    }

    /// Records a hand-in of `submission.student` to `batch` at `submission.uploaded`, as
    /// the batch's window decides: kept (its `late` set by the window; the student's
    /// earlier submission superseded, kept as history) with its pre-check queued, or
    /// refused. One decision at a time per batch (PostgreSQL holds the window's row), so
    /// that two hand-ins sent at once cannot both pass the wait between hand-ins.
    pub fn hand_in(&self, batch: i64, submission: &SubmissionRow) -> DbResult<HandedIn> {
        self.0.transaction(|c| {
            c.execute("UPDATE hand_in_windows SET batch_id = batch_id WHERE batch_id = ?1", args![batch])?;
            let Some(window) = window_of(c, batch)?.filter(|w| w.accepting) else { return Ok(HandedIn::NotAccepting) };
            let last = c.query_one(LAST_HAND_IN, args![batch, &submission.student])?.opt_int(0)?;
            let late = match window.window.decide(submission.uploaded, last) {
                Verdict::OnTime => false,
                Verdict::Late => true,
                refused => return Ok(HandedIn::Refused(refused)),
            };
            let submission = SubmissionRow { late, ..submission.clone() };
            replace_submission(c, batch, &submission)?;
            let id = c
                .query_one(
                    "INSERT INTO hand_in_checks (batch_id, student, file, sha256, late, created, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                    args![batch, &submission.student, &submission.file, &submission.sha256, late, submission.uploaded, PreCheckStatus::Queued.name()],
                )?
                .int(0)?;
            Ok(HandedIn::Kept(id))
        })
    }

    /// A student's own hand-ins to `batch`, the latest first; only the latest keeps its
    /// report (the others' are not read).
    pub fn hand_ins_of(&self, batch: i64, student: &str) -> DbResult<Vec<HandInRow>> {
        let mut rows = self.0.run(|c| {
            rows(
                c,
                &format!(
                    "SELECT {} FROM hand_in_checks WHERE batch_id = ?1 AND student = ?2 ORDER BY created DESC, id DESC",
                    HAND_IN_COLUMNS.replace("report", "NULL")
                ),
                args![batch, student],
                hand_in_row,
            )
        })?;
        if let Some(latest) = rows.first_mut() {
            latest.report = self.hand_in_row(latest.id)?.and_then(|row| row.report);
        }
        Ok(rows)
    }

    /// Each student's latest own hand-in to `batch`, and how many they made.
    pub fn latest_hand_ins(&self, batch: i64) -> DbResult<HashMap<String, (HandInRow, i64)>> {
        let sql = format!(
            "SELECT {}, (SELECT count(*) FROM hand_in_checks n WHERE n.batch_id = h.batch_id AND n.student = h.student)
             FROM hand_in_checks h WHERE h.batch_id = ?1
                 AND NOT EXISTS (SELECT 1 FROM hand_in_checks l WHERE l.batch_id = h.batch_id AND l.student = h.student AND l.id > h.id)",
            HAND_IN_COLUMNS.split(", ").map(|column| format!("h.{column}")).collect::<Vec<_>>().join(", ")
        );
        let latest = self.0.run(|c| rows(c, &sql, args![batch], |r| Ok((hand_in_row(r)?, r.int(AFTER_HAND_IN_COLUMNS)?))))?;
        Ok(latest.into_iter().map(|(row, count)| (row.student.clone(), (row, count))).collect())
    }

    pub fn hand_in_row(&self, id: i64) -> DbResult<Option<HandInRow>> {
        self.0.run(|c| row(c, &format!("SELECT {HAND_IN_COLUMNS} FROM hand_in_checks WHERE id = ?1"), args![id], hand_in_row))
    }

    /// The hand-ins whose pre-check has not ended, the oldest first, their claims
    /// forgotten (a restart of the one process of a SQLite store: none runs).
    pub fn requeue_hand_ins(&self) -> DbResult<Vec<i64>> {
        self.0.transaction(|c| {
            c.execute("UPDATE hand_in_checks SET claimed = NULL WHERE status = 'queued'", &[])?;
            rows(c, "SELECT id FROM hand_in_checks WHERE status = 'queued' ORDER BY id", &[], |r| r.int(0))
        })
    }

    /// The hand-ins whose pre-check another process may take at `now`: waiting unclaimed
    /// since `unclaimed_since` or before (their process is busy, or gone), or claimed
    /// before `lease_since` and not ended (their process died), the oldest first.
    pub fn pre_checks_to_take(&self, unclaimed_since: i64, lease_since: i64) -> DbResult<Vec<i64>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT id FROM hand_in_checks WHERE status = 'queued'
                     AND ((claimed IS NULL AND created <= ?1) OR claimed < ?2) ORDER BY id",
                args![unclaimed_since, lease_since],
                |r| r.int(0),
            )
        })
    }

    /// Claims hand-in `id`'s pre-check for this process at `now`: false when it ended, or
    /// another process holds it (claimed after `lease_since`).
    pub fn claim_pre_check(&self, id: i64, now: i64, lease_since: i64) -> DbResult<bool> {
        let changed = self.0.run(|c| {
            c.execute(
                "UPDATE hand_in_checks SET claimed = ?2 WHERE id = ?1 AND status = 'queued' AND (claimed IS NULL OR claimed < ?3)",
                args![id, now, lease_since],
            )
        })?;
        Ok(changed == 1)
    }

    /// How many pre-checks wait before hand-in `id`'s.
    pub fn hand_ins_before(&self, id: i64) -> DbResult<i64> {
        self.0.run(|c| c.query_one("SELECT count(*) FROM hand_in_checks WHERE status = 'queued' AND id < ?1", args![id])?.int(0))
    }

    /// Ends hand-in `id`'s pre-check: `Ok` the report (JSON), `Err` why it could not be made.
    pub fn finish_pre_check(&self, id: i64, outcome: &Result<String, String>) -> DbResult<()> {
        let (status, report) = match outcome {
            Ok(report) => (PreCheckStatus::Done, report),
            Err(why) => (PreCheckStatus::Failed, why),
        };
        self.0.run(|c| c.execute("UPDATE hand_in_checks SET status = ?2, report = ?3 WHERE id = ?1", args![id, status.name(), report]))?;
        Ok(())
    }

    /// The batches whose deadline has come by `now`, whose analysis is to be queued then,
    /// and that no process has dealt with: `(batch, deadline)`.
    pub fn due_deadlines(&self, now: i64) -> DbResult<Vec<(i64, i64)>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT batch_id, deadline FROM hand_in_windows
                 WHERE analyse_at_deadline = TRUE AND deadline_claimed = FALSE AND deadline IS NOT NULL AND deadline <= ?1 ORDER BY deadline",
                args![now],
                |r| Ok((r.int(0)?, r.int(1)?)),
            )
        })
    }

    /// Queues the analysis of `batch`'s deadline `deadline` (in `problem_dir`, with
    /// `settings` and each student's last hand-in by then), in one transaction with its
    /// claim: `None` when another process claimed it first, the deadline moved meanwhile,
    /// or nobody handed in by then (the deadline is dealt with: nothing to analyse).
    pub fn queue_deadline_analysis(&self, batch: i64, deadline: i64, problem_dir: &str, settings: AnalysisSettings) -> DbResult<Option<i64>> {
        self.0.transaction(|c| {
            let claimed = c.execute(
                "UPDATE hand_in_windows SET deadline_claimed = TRUE WHERE batch_id = ?1 AND deadline = ?2 AND deadline_claimed = FALSE",
                args![batch, deadline],
            )?;
            let handed_in = c.query_one("SELECT count(*) FROM submissions WHERE batch_id = ?1 AND uploaded <= ?2", args![batch, deadline])?.int(0)?;
            if claimed != 1 || handed_in == 0 {
                return Ok(None);
            }
            let analysis = insert_analysis(c, batch, problem_dir, AnalysisSettings { handed_in_by: Some(deadline), ..settings })?;
            c.execute("UPDATE hand_in_windows SET deadline_analysis = ?2 WHERE batch_id = ?1", args![batch, analysis])?;
            Ok(Some(analysis))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use course::roster::RosterRow;

    const DEADLINE: i64 = 1_000_000;

    /// A store with a batch open to hand-ins until [`DEADLINE`], a minute between them,
    /// late ones marked.
    fn open_batch(roster: &[&str]) -> (tempfile::TempDir, Db, i64) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        let problem = db.add_problem("p", "P", "/p", false).unwrap();
        let rows: Vec<RosterRow> = roster.iter().map(|id| RosterRow { id: id.to_string(), cohort: String::new(), manual: None, extra: Vec::new() }).collect();
        let batch = db.add_batch(problem, "Course", "Lab", &[], &rows).unwrap();
        db.set_hand_in_window(batch, true, &HandInWindow::new(Some(DEADLINE), 1, LatePolicy::Mark, true).unwrap()).unwrap();
        (dir, db, batch)
    }

    fn at(student: &str, uploaded: i64) -> SubmissionRow {
        SubmissionRow { student: student.to_owned(), file: format!("{student}.py"), sha256: format!("{uploaded:064}"), late: false, uploaded }
    }

    #[test]
    fn a_pre_check_is_claimed_by_one_process_and_taken_again_only_when_its_lease_ran_out() {
        let (_dir, db, batch) = open_batch(&[]);
        let HandedIn::Kept(id) = db.hand_in(batch, &at("a01", DEADLINE - 100)).unwrap() else { panic!("kept") };
        let now = DEADLINE;
        assert_eq!(db.pre_checks_to_take(now - 200, now - 900).unwrap(), Vec::<i64>::new(), "queued 100 s ago: its process may still begin it");
        assert_eq!(db.pre_checks_to_take(now - 60, now - 900).unwrap(), [id], "queued and not begun for over a minute: anyone may take it");
        assert!(db.claim_pre_check(id, now, now - 900).unwrap());
        assert!(!db.claim_pre_check(id, now + 1, now + 1 - 900).unwrap(), "held by the first");
        assert_eq!(db.pre_checks_to_take(now + 1, now + 1 - 900).unwrap(), Vec::<i64>::new());
        assert_eq!(db.pre_checks_to_take(now + 901, now + 1).unwrap(), [id], "its lease ran out: its process died");
        assert!(db.claim_pre_check(id, now + 901, now + 1).unwrap());
        db.finish_pre_check(id, &Ok("{}".to_owned())).unwrap();
        assert!(!db.claim_pre_check(id, now + 2000, now + 2000).unwrap(), "an ended pre-check is never taken again");
        assert_eq!(db.requeue_hand_ins().unwrap(), Vec::<i64>::new());
    }

    #[test]
    fn the_deadlines_analysis_takes_each_students_last_hand_in_by_then_and_is_queued_once() {
        let (_dir, db, batch) = open_batch(&[]);
        for (student, uploaded) in [("a01", DEADLINE - 500), ("a01", DEADLINE - 10), ("a02", DEADLINE - 400), ("a02", DEADLINE + 70), ("a03", DEADLINE + 5)] {
            assert!(matches!(db.hand_in(batch, &at(student, uploaded)).unwrap(), HandedIn::Kept(_)), "{student} at {uploaded}");
        }
        let late: Vec<(String, bool)> = db.submissions(batch).unwrap().into_iter().map(|s| (s.student, s.late)).collect();
        assert_eq!(late, [("a01".to_owned(), false), ("a02".to_owned(), true), ("a03".to_owned(), true)]);
        assert_eq!(db.due_deadlines(DEADLINE - 1).unwrap(), []);
        assert_eq!(db.due_deadlines(DEADLINE).unwrap(), [(batch, DEADLINE)]);
        let analysis = db.queue_deadline_analysis(batch, DEADLINE, "/p", AnalysisSettings::default()).unwrap().expect("queued");
        assert_eq!(db.queue_deadline_analysis(batch, DEADLINE, "/p", AnalysisSettings::default()).unwrap(), None, "claimed once");
        let graded: Vec<(String, String)> = db.analysis_answers(analysis).unwrap().into_iter().map(|a| (a.student, a.sha256)).collect();
        assert_eq!(graded, [("a01".to_owned(), format!("{:064}", DEADLINE - 10)), ("a02".to_owned(), format!("{:064}", DEADLINE - 400))]);
        assert_eq!(db.hand_in_window(batch).unwrap().unwrap().deadline_analysis, Some(analysis));

        // The deadline moved past every hand-in: none is late any more, and the new
        // deadline is due again with no analysis of its own yet.
        db.set_hand_in_window(batch, true, &HandInWindow::new(Some(DEADLINE + 100), 1, LatePolicy::Mark, true).unwrap()).unwrap();
        assert!(db.submissions(batch).unwrap().iter().all(|s| !s.late));
        let window = db.hand_in_window(batch).unwrap().unwrap();
        assert_eq!((window.deadline_claimed, window.deadline_analysis), (false, None));
        assert_eq!(db.due_deadlines(DEADLINE + 100).unwrap(), [(batch, DEADLINE + 100)]);
    }

    #[test]
    fn a_batch_with_a_roster_takes_hand_ins_from_its_students_only_and_a_closed_one_from_none() {
        let (_dir, db, batch) = open_batch(&["a01"]);
        assert!(db.may_hand_in(batch, "a01").unwrap());
        assert!(!db.may_hand_in(batch, "a02").unwrap());
        let (_other, open, without_roster) = open_batch(&[]);
        assert!(open.may_hand_in(without_roster, "anyone").unwrap());
        db.set_hand_in_window(batch, false, &HandInWindow::default()).unwrap();
        assert_eq!(db.hand_in(batch, &at("a01", 5)).unwrap(), HandedIn::NotAccepting);
    }

    #[test]
    fn a_student_waits_between_hand_ins_and_the_instructors_table_counts_them() {
        let (_dir, db, batch) = open_batch(&[]);
        assert!(matches!(db.hand_in(batch, &at("a01", 100)).unwrap(), HandedIn::Kept(_)));
        assert_eq!(db.hand_in(batch, &at("a01", 130)).unwrap(), HandedIn::Refused(Verdict::Wait { until: 160 }));
        assert!(matches!(db.hand_in(batch, &at("a01", 160)).unwrap(), HandedIn::Kept(_)));
        assert_eq!(db.last_hand_in(batch, "a01").unwrap(), Some(160));
        let latest = db.latest_hand_ins(batch).unwrap();
        assert_eq!((latest["a01"].0.created, latest["a01"].1), (160, 2));
        let mine = db.hand_ins_of(batch, "a01").unwrap();
        assert_eq!(mine.iter().map(|h| h.created).collect::<Vec<_>>(), [160, 100], "the latest first");
    }
}
