//! The analyses' queue: an analysis is queued with the answers it grades (fixed then),
//! claimed by one process at a time under a lease that its heartbeat renews, cancelled by
//! a flag the heartbeat brings, and ended once, by its holder. A lease that runs out (the
//! process died) lets another process take the analysis over; one interrupted
//! [`MAX_ATTEMPTS`] times is failed with the reason instead. On SQLite, what was running at
//! the last shutdown is queued again at start-up (`requeue_running`). These rules are tested
//! here, in process, on SQLite, and on PostgreSQL by the service's multi-process worker tests.

use std::collections::HashMap;

use grader::RerunMode;
use serde::Serialize;

use super::sql::{Conn, DbResult, Engine, Row, args};
use super::{Db, first_text, now, row, rows, text_pair, unknown_state};

/// Starts of one analysis interrupted by the service stopping before it is marked failed
/// instead of queued again: an analysis that brings the service down every time (or
/// never ends) must not keep the queue behind it waiting for ever.
pub const MAX_ATTEMPTS: i64 = 3;

/// How long a claimed analysis stays its process's without a heartbeat: a worker that
/// dies (SIGKILL, a lost machine) loses its analysis this long after its last heartbeat,
/// and another worker takes it. Heartbeats come every few seconds (`worker.rs`), so a
/// pause of a few seconds (a slow disk, a busy database) does not lose it.
pub const LEASE_SECONDS: i64 = 15;

/// The error of an analysis given up after [`MAX_ATTEMPTS`] starts.
const GIVEN_UP: &str = "'the process running this analysis stopped while it ran, ' || attempts || ' times: it is not started again (run it anew to retry)'";

/// An analysis's place in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl Status {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    /// The state `analyses.status` holds; an error for one this bugrank does not know.
    pub(super) fn parse(text: &str) -> DbResult<Status> {
        match text {
            "queued" => Ok(Status::Queued),
            "running" => Ok(Status::Running),
            "done" => Ok(Status::Done),
            "failed" => Ok(Status::Failed),
            "cancelled" => Ok(Status::Cancelled),
            other => Err(unknown_state("analyses.status", other)),
        }
    }
}

/// How `analyses.rerun` holds a [`RerunMode`].
pub(super) fn rerun_text(mode: RerunMode) -> &'static str {
    match mode {
        RerunMode::Frozen => "frozen",
        RerunMode::Full => "full",
    }
}

/// The [`RerunMode`] `analyses.rerun` holds (NULL: afresh); an error for one this bugrank
/// does not know.
pub(super) fn parse_rerun(text: Option<&str>) -> DbResult<Option<RerunMode>> {
    match text {
        None => Ok(None),
        Some("frozen") => Ok(Some(RerunMode::Frozen)),
        Some("full") => Ok(Some(RerunMode::Full)),
        Some(other) => Err(unknown_state("analyses.rerun", other)),
    }
}

/// How many hand-ins the analysis `analyses.id` grades (its rows of `analysis_answers`, made
/// when it was queued), as a subquery.
const ANSWERS_COUNTED: &str = "(SELECT COUNT(*) FROM analysis_answers x WHERE x.analysis_id = analyses.id)";

/// An analysis queued or running, as the queue shows it (see [`Db::queue`]).
#[derive(Clone, Debug, Serialize)]
pub struct QueueEntry {
    pub analysis: i64,
    pub running: bool,
    pub batch: String,
    pub answers: usize,
    /// Where it runs (machine, process, worker), while it runs.
    pub holder: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnalysisRow {
    pub id: i64,
    pub batch_id: i64,
    #[serde(skip)]
    pub problem_dir: String,
    pub seed: u64,
    pub stable_after: Option<u64>,
    pub fuel_factor: Option<u64>,
    /// The maximum of points it grades on (`None`: its problem's).
    pub max_points: Option<f64>,
    pub status: Status,
    pub error: Option<String>,
    pub previous_id: Option<i64>,
    pub created: i64,
    pub finished: Option<i64>,
    /// How it re-runs `previous_id` (`None`: afresh, or there was none).
    pub rerun: Option<RerunMode>,
    /// Set for a stability check's analysis: the analysis it checks. A stability check (Paper III section 5.1,
    /// `grader::stability`) queues the other seeds as such analyses: they make no bug lists and are never a batch's
    /// latest.
    pub stability_of: Option<i64>,
    /// While running: the machine and process that runs it ("host (pid 42)").
    pub holder: Option<String>,
}

/// One answer an analysis grades, fixed when it is queued.
#[derive(Clone, Debug)]
pub struct AnswerRow {
    pub student: String,
    pub sha256: String,
    pub cohort: Option<String>,
}

/// What a new analysis asks for beyond the problem's defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnalysisSettings {
    pub seed: u64,
    pub stable_after: Option<u64>,
    pub fuel_factor: Option<u64>,
    /// Instead of the problem's maximum of points.
    pub max_points: Option<f64>,
    /// Re-run the batch's latest finished analysis this way, if there is one.
    pub rerun: Option<RerunMode>,
    /// Grade each student's last submission handed in by then (seconds since 1970), not
    /// their current one: the analysis of a deadline, whenever it is queued, grades what
    /// came by the deadline. `None`: the current submissions.
    pub handed_in_by: Option<i64>,
}

const ANALYSIS_COLUMNS: &str =
    "id, batch_id, problem_dir, seed, stable_after, fuel_factor, status, error, previous_id, created, finished, rerun, stability_of, holder, max_points";

/// How many columns [`ANALYSIS_COLUMNS`] names: a query's next column has this index.
const AFTER_ANALYSIS_COLUMNS: usize = 15;

fn analysis_row(row: &Row) -> DbResult<AnalysisRow> {
    Ok(AnalysisRow {
        id: row.int(0)?,
        batch_id: row.int(1)?,
        problem_dir: row.text(2)?,
        seed: row.int(3)? as u64,
        stable_after: row.opt_int(4)?.map(|v| v as u64),
        fuel_factor: row.opt_int(5)?.map(|v| v as u64),
        status: Status::parse(&row.text(6)?)?,
        error: row.opt_text(7)?,
        previous_id: row.opt_int(8)?,
        created: row.int(9)?,
        finished: row.opt_int(10)?,
        rerun: parse_rerun(row.opt_text(11)?.as_deref())?,
        stability_of: row.opt_int(12)?,
        holder: row.opt_text(13)?,
        max_points: row.opt_real(14)?,
    })
}

impl Db {
    // --- analyses ---

    /// Queues an analysis of the batch's current submissions (or those handed in by
    /// [`AnalysisSettings::handed_in_by`]).
    pub fn queue_analysis(&self, batch: i64, problem_dir: &str, settings: AnalysisSettings) -> DbResult<i64> {
        self.0.transaction(|c| insert_analysis(c, batch, problem_dir, settings))
    }

    /// Queues a stability check of `of`: `seeds` analyses of the same answers with the same
    /// settings and the seeds after its own.
    pub fn queue_stability(&self, of: &AnalysisRow, seeds: u64) -> DbResult<()> {
        self.0.transaction(|c| {
            for seed in of.seed + 1..=of.seed + seeds {
                let id = c
                    .query_one(
                        "INSERT INTO analyses (batch_id, problem_dir, seed, stable_after, fuel_factor, status, created, stability_of, max_points)
                         VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8) RETURNING id",
                        args![
                            of.batch_id,
                            &of.problem_dir,
                            seed as i64,
                            of.stable_after.map(|v| v as i64),
                            of.fuel_factor.map(|v| v as i64),
                            now(),
                            of.id,
                            of.max_points,
                        ],
                    )?
                    .int(0)?;
                c.execute(
                    "INSERT INTO analysis_answers (analysis_id, student, sha256, cohort)
                     SELECT CAST(?1 AS BIGINT), student, sha256, cohort FROM analysis_answers WHERE analysis_id = ?2",
                    args![id, of.id],
                )?;
            }
            Ok(())
        })
    }

    /// The analyses of the stability check of `of`, by seed.
    pub fn stability_runs(&self, of: i64) -> DbResult<Vec<AnalysisRow>> {
        self.0.run(|c| rows(c, &format!("SELECT {ANALYSIS_COLUMNS} FROM analyses WHERE stability_of = ?1 ORDER BY seed"), args![of], analysis_row))
    }

    pub fn analysis(&self, id: i64) -> DbResult<Option<AnalysisRow>> {
        self.0.run(|c| row(c, &format!("SELECT {ANALYSIS_COLUMNS} FROM analyses WHERE id = ?1"), args![id], analysis_row))
    }

    pub fn analyses_of(&self, batch: i64) -> DbResult<Vec<AnalysisRow>> {
        self.0.run(|c| {
            rows(
                c,
                &format!("SELECT {ANALYSIS_COLUMNS} FROM analyses WHERE batch_id = ?1 AND stability_of IS NULL ORDER BY id DESC"),
                args![batch],
                analysis_row,
            )
        })
    }

    /// Every batch's latest analysis (stability checks aside) with its latest finished
    /// one, by batch: one query for the batches page.
    pub fn latest_analyses(&self) -> DbResult<HashMap<i64, (AnalysisRow, Option<i64>)>> {
        let sql = format!(
            "SELECT {ANALYSIS_COLUMNS}, (SELECT max(d.id) FROM analyses d WHERE d.batch_id = analyses.batch_id AND d.status = 'done' AND d.stability_of IS NULL)
             FROM analyses WHERE id IN (SELECT max(id) FROM analyses WHERE stability_of IS NULL GROUP BY batch_id)"
        );
        let found = self.0.run(|c| rows(c, &sql, &[], |r| Ok((analysis_row(r)?, r.opt_int(AFTER_ANALYSIS_COLUMNS)?))))?;
        Ok(found.into_iter().map(|(latest, done)| (latest.batch_id, (latest, done))).collect())
    }

    /// The latest finished analysis of a batch.
    pub fn latest_done(&self, batch: i64) -> DbResult<Option<i64>> {
        self.0.run(|c| c.query_one(super::LATEST_DONE, args![batch])?.opt_int(0))
    }

    pub fn analysis_answers(&self, id: i64) -> DbResult<Vec<AnswerRow>> {
        let mut rows = self.0.run(|c| {
            rows(c, "SELECT student, sha256, cohort FROM analysis_answers WHERE analysis_id = ?1", args![id], |r| {
                Ok(AnswerRow { student: r.text(0)?, sha256: r.text(1)?, cohort: r.opt_text(2)? })
            })
        })?;
        rows.sort_by(|a, b| course::hand_ins::natural_cmp(&a.student, &b.student));
        Ok(rows)
    }

    /// Takes the oldest analysis that is queued, or running on a lost lease, for
    /// `holder` (this machine and process) and marks it running with a new lease. One
    /// whose lease was lost [`MAX_ATTEMPTS`] times is failed with the reason instead. On
    /// PostgreSQL, workers claiming at once skip each other's rows: each gets another.
    pub fn claim_next(&self, holder: &str, at_most_answers: Option<usize>) -> DbResult<Option<AnalysisRow>> {
        self.0.transaction(|c| {
            let clock = c.engine().now();
            let small = match at_most_answers {
                Some(most) => format!("AND {ANSWERS_COUNTED} <= {most}"),
                None => String::new(),
            };
            let sql = format!(
                "SELECT {ANALYSIS_COLUMNS}, attempts FROM analyses
                 WHERE (status = 'queued' OR (status = 'running' AND lease_until < {clock})) {small}
                 ORDER BY id LIMIT 1{}",
                c.engine().skip_locked()
            );
            loop {
                let Some(found) = c.query_opt(&sql, &[])? else { return Ok(None) };
                let (next, attempts) = (analysis_row(&found)?, found.int(AFTER_ANALYSIS_COLUMNS)?);
                if next.status == Status::Running && attempts >= MAX_ATTEMPTS {
                    c.execute(
                        &format!("UPDATE analyses SET status = 'failed', finished = ?2, holder = NULL, error = {GIVEN_UP} WHERE id = ?1"),
                        args![next.id, now()],
                    )?;
                    continue;
                }
                c.execute(
                    &format!(
                        "UPDATE analyses SET status = 'running', started = ?2, attempts = attempts + 1, holder = ?3,
                             lease_until = {clock} + ?4, cancel_requested = FALSE WHERE id = ?1"
                    ),
                    args![next.id, now(), holder, LEASE_SECONDS],
                )?;
                return Ok(Some(AnalysisRow { status: Status::Running, holder: Some(holder.to_owned()), ..next }));
            }
        })
    }

    /// The analyses queued or running, first queued first, each with its batch's name and
    /// how many hand-ins it grades: what runs and what waits.
    pub fn queue(&self) -> DbResult<Vec<QueueEntry>> {
        self.0.run(|c| {
            rows(
                c,
                &format!(
                    "SELECT analyses.id, analyses.status, b.name, {ANSWERS_COUNTED}, analyses.holder
                     FROM analyses JOIN batches b ON b.id = analyses.batch_id WHERE analyses.status IN ('queued', 'running') ORDER BY analyses.id"
                ),
                &[],
                |r| {
                    Ok(QueueEntry {
                        analysis: r.int(0)?,
                        running: r.text(1)? == "running",
                        batch: r.text(2)?,
                        answers: r.int(3)? as usize,
                        holder: r.opt_text(4)?,
                    })
                },
            )
        })
    }

    /// Renews `holder`'s lease on a running analysis. `None` when it is no longer
    /// `holder`'s (its lease was lost and another process took it, or it ended): stop
    /// working on it. `Some(true)` when a cancel was asked.
    pub fn heartbeat(&self, id: i64, holder: &str) -> DbResult<Option<bool>> {
        self.0.run(|c| {
            let sql = format!(
                "UPDATE analyses SET lease_until = {} + ?3 WHERE id = ?1 AND holder = ?2 AND status = 'running' RETURNING cancel_requested",
                c.engine().now()
            );
            c.query_opt(&sql, args![id, holder, LEASE_SECONDS])?.map(|r| r.bool(0)).transpose()
        })
    }

    /// Asks the process running an analysis to cancel it (it sees it at its next
    /// heartbeat); false if it is not running.
    pub fn request_cancel(&self, id: i64) -> DbResult<bool> {
        let changed = self.0.run(|c| c.execute("UPDATE analyses SET cancel_requested = TRUE WHERE id = ?1 AND status = 'running'", args![id]))?;
        Ok(changed == 1)
    }

    /// At start-up, on SQLite only (whose data directory one process holds): analyses
    /// left running by the last shutdown are queued again (the analysis is deterministic,
    /// so running it again gives what it would have given), unless they were started
    /// [`MAX_ATTEMPTS`] times already; those are failed with the reason. Returns how many
    /// were queued again. On PostgreSQL other processes may be running them: their
    /// leases say when they are lost instead.
    pub fn requeue_running(&self) -> DbResult<u64> {
        if self.engine() == Engine::Postgres {
            return Ok(0);
        }
        self.0.transaction(|c| {
            c.execute(
                &format!("UPDATE analyses SET status = 'failed', finished = ?2, holder = NULL, error = {GIVEN_UP} WHERE status = 'running' AND attempts >= ?1"),
                args![MAX_ATTEMPTS, now()],
            )?;
            c.execute("UPDATE analyses SET status = 'queued', holder = NULL WHERE status = 'running'", &[])
        })
    }

    pub fn set_progress(&self, id: i64, progress: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE analyses SET progress = ?2 WHERE id = ?1", args![id, progress]))?;
        Ok(())
    }

    pub fn progress(&self, id: i64) -> DbResult<Option<String>> {
        self.0.run(|c| Ok(c.query_opt("SELECT progress FROM analyses WHERE id = ?1", args![id])?.map(|r| r.opt_text(0)).transpose()?.flatten()))
    }

    /// Cancels a queued analysis at once; true if it was queued.
    pub fn cancel_queued(&self, id: i64) -> DbResult<bool> {
        let changed =
            self.0.run(|c| c.execute("UPDATE analyses SET status = 'cancelled', finished = ?2 WHERE id = ?1 AND status = 'queued'", args![id, now()]))?;
        Ok(changed == 1)
    }

    /// Records how an analysis `holder` ran ended, with its bug lists when it is done.
    /// False, recording nothing, when it is no longer `holder`'s (another process took it
    /// over on a lost lease, and records its own end): an analysis ends once. A finished
    /// analysis (not a stability check's) becomes what its batch's students see
    /// (`BatchRow::shown_analysis`) when the batch shows each as it finishes
    /// (`release_reruns`), or was released before any finished.
    pub fn finish_analysis(&self, id: i64, holder: &str, status: Status, error: Option<&str>, bug_lists: &[(String, String)]) -> DbResult<bool> {
        self.0.transaction(|c| {
            let ended = c.execute(
                "UPDATE analyses SET status = ?3, error = ?4, finished = ?5, holder = NULL, lease_until = NULL
                 WHERE id = ?1 AND holder = ?2 AND status = 'running'",
                args![id, holder, status.as_str(), error, now()],
            )?;
            if ended == 0 {
                return Ok(false);
            }
            for (student, list) in bug_lists {
                c.execute(
                    "INSERT INTO bug_lists (analysis_id, student, list) VALUES (?1, ?2, ?3)
                     ON CONFLICT (analysis_id, student) DO UPDATE SET list = excluded.list",
                    args![id, student, list],
                )?;
            }
            // Shown at once when the instructor chose so, or when the batch was released
            // before any analysis finished; otherwise it waits for "release this re-run".
            if status == Status::Done {
                c.execute(
                    "UPDATE batches SET shown_analysis = ?1
                     WHERE id = (SELECT batch_id FROM analyses WHERE id = ?1 AND stability_of IS NULL)
                     AND (release_reruns = TRUE OR (released = TRUE AND shown_analysis IS NULL))",
                    args![id],
                )?;
            }
            Ok(true)
        })
    }

    /// Every student's bug list (JSON) of an analysis.
    pub fn bug_lists(&self, analysis: i64) -> DbResult<Vec<(String, String)>> {
        self.0.run(|c| rows(c, "SELECT student, list FROM bug_lists WHERE analysis_id = ?1", args![analysis], text_pair))
    }

    pub fn bug_list(&self, analysis: i64, student: &str) -> DbResult<Option<String>> {
        self.0.run(|c| row(c, "SELECT list FROM bug_lists WHERE analysis_id = ?1 AND student = ?2", args![analysis, student], first_text))
    }
}

/// Queues an analysis of batch `batch` in transaction `c` (see [`Db::queue_analysis`]).
pub(super) fn insert_analysis(c: &mut dyn Conn, batch: i64, problem_dir: &str, settings: AnalysisSettings) -> DbResult<i64> {
    let previous = c.query_one("SELECT max(id) FROM analyses WHERE batch_id = ?1 AND status = 'done' AND stability_of IS NULL", args![batch])?.opt_int(0)?;
    let rerun = previous.and(settings.rerun).map(rerun_text);
    let id = c
        .query_one(
            "INSERT INTO analyses (batch_id, problem_dir, seed, stable_after, fuel_factor, status, previous_id, created, rerun, max_points)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8, ?9) RETURNING id",
            args![
                batch,
                problem_dir,
                settings.seed as i64,
                settings.stable_after.map(|v| v as i64),
                settings.fuel_factor.map(|v| v as i64),
                previous,
                now(),
                rerun,
                settings.max_points,
            ],
        )?
        .int(0)?;
    let answers = "INSERT INTO analysis_answers (analysis_id, student, sha256, cohort)
             SELECT CAST(?1 AS BIGINT), s.student, s.sha256, r.cohort FROM submissions s
             LEFT JOIN roster r ON r.batch_id = s.batch_id AND r.student = s.student
             WHERE s.batch_id = ?2";
    match settings.handed_in_by {
        None => c.execute(&format!("{answers} AND s.superseded = FALSE"), args![id, batch])?,
        // Each student's latest by then: the submission with no later one by then.
        Some(by) => c.execute(
            &format!(
                "{answers} AND s.uploaded <= ?3 AND NOT EXISTS (SELECT 1 FROM submissions t
                         WHERE t.batch_id = s.batch_id AND t.student = s.student AND t.uploaded <= ?3 AND t.id > s.id)"
            ),
            args![id, batch, by],
        )?,
    };
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::db::SubmissionRow;

    /// A new SQLite store with one batch of `students`, kept while the directory lives.
    fn store(students: &[&str]) -> (tempfile::TempDir, Db, i64) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        let problem = db.add_problem("p", "P", "/p", false).unwrap();
        let submissions: Vec<SubmissionRow> = students.iter().map(|s| submission(s, "0")).collect();
        let batch = db.add_batch(problem, "Course", "One", &submissions, &[]).unwrap();
        (dir, db, batch)
    }

    fn submission(student: &str, hash_digit: &str) -> SubmissionRow {
        SubmissionRow { student: student.to_owned(), file: format!("{student}.wasm"), sha256: hash_digit.repeat(64), late: false, uploaded: 0 }
    }

    fn queue(db: &Db, batch: i64) -> i64 {
        db.queue_analysis(batch, "/p", AnalysisSettings::default()).unwrap()
    }

    /// Makes the lease of `id` run out now, as if its holder had died `LEASE_SECONDS` ago.
    fn lose_lease(db: &Db, id: i64) {
        db.0.run(|c| c.execute("UPDATE analyses SET lease_until = 0 WHERE id = ?1", args![id])).unwrap();
    }

    fn status(db: &Db, id: i64) -> Status {
        db.analysis(id).unwrap().unwrap().status
    }

    #[test]
    fn the_queue_hands_out_the_oldest_queued_analysis_once_to_one_holder() {
        let (_dir, db, batch) = store(&["a01"]);
        let (first, second) = (queue(&db, batch), queue(&db, batch));
        let claimed = db.claim_next("one", None).unwrap().unwrap();
        assert_eq!((claimed.id, claimed.status, claimed.holder.as_deref()), (first, Status::Running, Some("one")));
        assert_eq!(db.claim_next("two", None).unwrap().unwrap().id, second, "the running one is not handed out again");
        assert!(db.claim_next("three", None).unwrap().is_none(), "nothing else is queued");
        assert_eq!(db.analysis(first).unwrap().unwrap().holder.as_deref(), Some("one"));
    }

    #[test]
    fn the_express_worker_takes_only_analyses_of_few_hand_ins_and_the_queue_says_what_runs_and_waits() {
        let (_dir, db, big) = store(&["a01", "a02", "a03"]);
        let large = queue(&db, big);
        let problem = db.add_problem("q", "Q", "/q", false).unwrap();
        let small_batch = db.add_batch(problem, "Course", "Lab 2", &[submission("b01", "1")], &[]).unwrap();
        let small = queue(&db, small_batch);
        assert_eq!(db.claim_next("express", Some(2)).unwrap().map(|a| a.id), Some(small), "the large one is left to the others");
        assert_eq!(db.claim_next("express", Some(2)).unwrap().map(|a| a.id), None);
        let queue_now = db.queue().unwrap();
        let said: Vec<(i64, bool, usize)> = queue_now.iter().map(|e| (e.analysis, e.running, e.answers)).collect();
        assert_eq!(said, [(large, false, 3), (small, true, 1)]);
        assert_eq!(queue_now[1].holder.as_deref(), Some("express"));
        assert_eq!(db.claim_next("any", None).unwrap().map(|a| a.id), Some(large));
    }

    #[test]
    fn an_analysis_grades_the_submissions_of_its_batch_as_they_were_when_it_was_queued() {
        let (_dir, db, batch) = store(&["a01", "a02"]);
        let id = queue(&db, batch);
        db.add_late_submission(batch, &submission("a02", "1")).unwrap();
        let answers: Vec<(String, String)> = db.analysis_answers(id).unwrap().into_iter().map(|a| (a.student, a.sha256)).collect();
        assert_eq!(answers, [("a01".to_owned(), "0".repeat(64)), ("a02".to_owned(), "0".repeat(64))]);
        let later = queue(&db, batch);
        assert_eq!(db.analysis_answers(later).unwrap()[1].sha256, "1".repeat(64), "the next analysis grades the late one");
    }

    #[test]
    fn a_lost_lease_goes_to_the_next_claimant_and_only_the_holder_records_the_end() {
        let (_dir, db, batch) = store(&["a01"]);
        let id = queue(&db, batch);
        db.claim_next("dead", None).unwrap().unwrap();
        assert_eq!(db.heartbeat(id, "dead").unwrap(), Some(false), "its holder's heartbeat renews the lease");
        assert!(db.claim_next("other", None).unwrap().is_none(), "a live lease is not taken");
        lose_lease(&db, id);
        assert_eq!(db.claim_next("other", None).unwrap().unwrap().id, id, "a lost lease is taken over");
        assert_eq!(db.heartbeat(id, "dead").unwrap(), None, "the old holder learns it lost the analysis");
        assert!(!db.finish_analysis(id, "dead", Status::Failed, Some("killed"), &[]).unwrap(), "nor can it record an end");
        let lists = [("a01".to_owned(), "{}".to_owned())];
        assert!(db.finish_analysis(id, "other", Status::Done, None, &lists).unwrap());
        assert_eq!(status(&db, id), Status::Done);
        assert_eq!(db.bug_lists(id).unwrap(), lists);
        assert!(!db.finish_analysis(id, "other", Status::Failed, None, &[]).unwrap(), "an analysis ends once");
        assert_eq!(status(&db, id), Status::Done);
    }

    #[test]
    fn an_analysis_whose_lease_was_lost_three_times_is_failed_with_the_reason_instead_of_claimed() {
        let (_dir, db, batch) = store(&["a01"]);
        let id = queue(&db, batch);
        for attempt in 1..=MAX_ATTEMPTS {
            assert_eq!(db.claim_next(&format!("holder {attempt}"), None).unwrap().map(|a| a.id), Some(id));
            lose_lease(&db, id);
        }
        assert!(db.claim_next("next", None).unwrap().is_none());
        let failed = db.analysis(id).unwrap().unwrap();
        assert_eq!(failed.status, Status::Failed);
        assert!(failed.error.as_deref().unwrap().contains("3 times"), "{failed:?}");
    }

    #[test]
    fn a_cancel_reaches_a_running_analysis_at_its_heartbeat_and_ends_a_queued_one_at_once() {
        let (_dir, db, batch) = store(&["a01"]);
        let (running, queued) = (queue(&db, batch), queue(&db, batch));
        db.claim_next("one", None).unwrap();
        assert!(!db.cancel_queued(running).unwrap(), "a running analysis is not cancelled behind its holder's back");
        assert!(db.request_cancel(running).unwrap());
        assert_eq!(db.heartbeat(running, "one").unwrap(), Some(true));
        assert!(!db.request_cancel(queued).unwrap(), "a queued one has no holder to ask");
        assert!(db.cancel_queued(queued).unwrap());
        assert_eq!(status(&db, queued), Status::Cancelled);
        assert!(db.claim_next("two", None).unwrap().is_none(), "a cancelled analysis is not handed out");
    }

    #[test]
    fn at_start_up_on_sqlite_running_analyses_are_queued_again_unless_started_three_times() {
        let (_dir, db, batch) = store(&["a01"]);
        let (again, given_up) = (queue(&db, batch), queue(&db, batch));
        db.claim_next("before the restart", None).unwrap();
        for attempt in 1..=MAX_ATTEMPTS {
            db.claim_next(&format!("holder {attempt}"), None).unwrap();
            if attempt < MAX_ATTEMPTS {
                lose_lease(&db, given_up);
            }
        }
        assert_eq!(db.requeue_running().unwrap(), 1);
        assert_eq!(status(&db, again), Status::Queued);
        assert_eq!(db.analysis(again).unwrap().unwrap().holder, None);
        assert_eq!(status(&db, given_up), Status::Failed);
    }

    #[test]
    fn each_batchs_latest_analysis_and_latest_finished_one_come_in_one_query() {
        let (_dir, db, batch) = store(&["a01"]);
        let (done, running) = (queue(&db, batch), queue(&db, batch));
        db.claim_next("one", None).unwrap();
        assert!(db.finish_analysis(done, "one", Status::Done, None, &[]).unwrap());
        db.claim_next("two", None).unwrap();
        let of = db.analysis(done).unwrap().unwrap();
        db.queue_stability(&of, 1).unwrap();
        let latest = db.latest_analyses().unwrap();
        let (row, latest_done) = &latest[&batch];
        assert_eq!((row.id, row.status, *latest_done), (running, Status::Running, Some(done)), "a stability check's analysis is not a batch's latest");
        assert_eq!(db.submission_counts().unwrap()[&batch], 1);
    }
}
