//! The store's side of students handing in themselves (`serve::hand_ins`): each batch's
//! hand-in window, every hand-in a student made with its pre-check, and the deadlines
//! whose analysis is due.

use std::collections::HashMap;

use course::hand_in_window::{HandInWindow, LatePolicy, Verdict};
use serde::Serialize;

use super::sql::{Row, args};
use super::{BATCH_COLUMNS, BATCHES, BatchRow, Db, DbResult, SubmissionRow, batch_row, insert_submission, row, rows};

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

const HAND_IN_COLUMNS: &str = "id, batch_id, student, file, sha256, late, created, status, report";

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
            "done" => PreCheckStatus::Done,
            "failed" => PreCheckStatus::Failed,
            _ => PreCheckStatus::Queued,
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
        self.0.run(|c| row(c, &format!("SELECT {WINDOW_COLUMNS} FROM hand_in_windows w WHERE w.batch_id = ?1"), args![batch], window_row))
    }

    /// Sets the hand-in window of `batch`. A deadline moved makes the new one due again
    /// (an analysis already queued stays).
    pub fn set_hand_in_window(&self, batch: i64, accepting: bool, window: &HandInWindow) -> DbResult<()> {
        self.0.run(|c| {
            c.execute(
                "INSERT INTO hand_in_windows (batch_id, accepting, deadline, minutes_between, late_policy, analyse_at_deadline)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (batch_id) DO UPDATE SET accepting = excluded.accepting, deadline = excluded.deadline,
                     minutes_between = excluded.minutes_between, late_policy = excluded.late_policy,
                     analyse_at_deadline = excluded.analyse_at_deadline,
                     deadline_claimed = CASE WHEN hand_in_windows.deadline = excluded.deadline THEN hand_in_windows.deadline_claimed ELSE FALSE END",
                args![batch, accepting, window.deadline, i64::from(window.minutes_between), window.late.name(), window.analyse_at_deadline],
            )
        })?;
        Ok(())
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
            let window = row(c, &format!("SELECT {WINDOW_COLUMNS} FROM hand_in_windows w WHERE w.batch_id = ?1"), args![batch], window_row)?;
            let Some(window) = window.filter(|w| w.accepting) else { return Ok(HandedIn::NotAccepting) };
            let last =
                c.query_one("SELECT max(created) FROM hand_in_checks WHERE batch_id = ?1 AND student = ?2", args![batch, &submission.student])?.opt_int(0)?;
            let late = match window.window.decide(submission.uploaded, last) {
                Verdict::OnTime => false,
                Verdict::Late => true,
                refused => return Ok(HandedIn::Refused(refused)),
            };
            let submission = SubmissionRow { late, ..submission.clone() };
            c.execute(
                "UPDATE submissions SET superseded = TRUE WHERE batch_id = ?1 AND student = ?2 AND superseded = FALSE",
                args![batch, &submission.student],
            )?;
            insert_submission(c, batch, &submission)?;
            let id = c
                .query_one(
                    "INSERT INTO hand_in_checks (batch_id, student, file, sha256, late, created, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                    args![batch, &submission.student, &submission.file, &submission.sha256, late, submission.uploaded, PreCheckStatus::Queued.name()],
                )?
                .int(0)?;
            Ok(HandedIn::Kept(id))
        })
    }

    /// A student's own hand-ins to `batch`, the latest first.
    pub fn hand_ins_of(&self, batch: i64, student: &str) -> DbResult<Vec<HandInRow>> {
        self.0.run(|c| {
            rows(
                c,
                &format!("SELECT {HAND_IN_COLUMNS} FROM hand_in_checks WHERE batch_id = ?1 AND student = ?2 ORDER BY created DESC, id DESC"),
                args![batch, student],
                hand_in_row,
            )
        })
    }

    /// Each student's latest own hand-in to `batch`, and how many they made.
    pub fn latest_hand_ins(&self, batch: i64) -> DbResult<HashMap<String, (HandInRow, i64)>> {
        let all =
            self.0.run(|c| rows(c, &format!("SELECT {HAND_IN_COLUMNS} FROM hand_in_checks WHERE batch_id = ?1 ORDER BY id"), args![batch], hand_in_row))?;
        let mut latest: HashMap<String, (HandInRow, i64)> = HashMap::new();
        for hand_in in all {
            let count = latest.get(&hand_in.student).map_or(0, |(_, n)| *n);
            latest.insert(hand_in.student.clone(), (hand_in, count + 1));
        }
        Ok(latest)
    }

    pub fn hand_in_row(&self, id: i64) -> DbResult<Option<HandInRow>> {
        self.0.run(|c| row(c, &format!("SELECT {HAND_IN_COLUMNS} FROM hand_in_checks WHERE id = ?1"), args![id], hand_in_row))
    }

    /// The hand-ins whose pre-check has not ended, the oldest first.
    pub fn queued_hand_ins(&self) -> DbResult<Vec<i64>> {
        self.0.run(|c| rows(c, "SELECT id FROM hand_in_checks WHERE status = 'queued' ORDER BY id", &[], |r| r.int(0)))
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

    /// Claims the analysis of `batch`'s deadline `deadline` for this process: false when
    /// another process did, or the deadline moved meanwhile.
    pub fn claim_deadline(&self, batch: i64, deadline: i64) -> DbResult<bool> {
        let changed = self.0.run(|c| {
            c.execute(
                "UPDATE hand_in_windows SET deadline_claimed = TRUE WHERE batch_id = ?1 AND deadline = ?2 AND deadline_claimed = FALSE",
                args![batch, deadline],
            )
        })?;
        Ok(changed == 1)
    }

    /// Records the analysis queued at `batch`'s deadline.
    pub fn set_deadline_analysis(&self, batch: i64, analysis: i64) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE hand_in_windows SET deadline_analysis = ?2 WHERE batch_id = ?1", args![batch, analysis]))?;
        Ok(())
    }

    /// How many students have a submission in `batch` handed in by `deadline`.
    pub fn handed_in_by(&self, batch: i64, deadline: i64) -> DbResult<i64> {
        self.0.run(|c| c.query_one("SELECT count(DISTINCT student) FROM submissions WHERE batch_id = ?1 AND uploaded <= ?2", args![batch, deadline])?.int(0))
    }
}
