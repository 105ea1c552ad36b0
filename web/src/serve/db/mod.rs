//! The service's store: the queries the pages and the workers need, each written once for
//! both engines ([`sql`]: SQLite by default, PostgreSQL with `--database`). The analyses'
//! queue (claims, leases, heartbeats, cancels, the end of an analysis) is `queue.rs`'s;
//! opening a store and migrating its schema is `schema.rs`'s.
//!
//! Every multi-row change is one transaction. SQLite runs in WAL mode, so a crash (even
//! SIGKILL) loses at most the transaction in flight; PostgreSQL is PostgreSQL.
//!
//! A query is written in the SQL both accept (placeholders `?1`, `TRUE`/`FALSE`, `ON CONFLICT`,
//! `RETURNING`); where they differ it asks [`sql::Engine`] for its engine's words (`position`,
//! `skip_locked`) and for the database's clock (`now`), which leases are judged by. States are
//! text in the store (an analysis's status and re-run mode, a bundle check's status, an
//! upload's), read back as enums or the upload constants: one this bugrank does not know is
//! an error naming it and its column, never taken for another. On PostgreSQL files are rows
//! too (`files`, by their path under `--data`).

use serde::Serialize;

use std::collections::HashMap;

mod hand_ins;
mod lti;
mod queue;
mod schema;
mod shards;
pub mod sql;

use course::roster::{Adjustment, RosterRow};
pub use hand_ins::{HandInRow, HandedIn, PreCheckStatus, WindowRow};
pub use lti::{DeepLinkRow, LinkRow, Person, PlatformRow, WaitingInstructor};
pub use queue::{AnalysisRow, AnalysisSettings, AnswerRow, LEASE_SECONDS, MAX_ATTEMPTS, QueueEntry, Status};
pub use shards::{Round, RoundKind, SHARD_LEASE_SECONDS, Shard};
use sql::{Backend, Conn, Row, args};
pub use sql::{DbError, DbResult, Engine};

/// Seconds since the epoch: timestamps in the store.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

const PROBLEM_CHECK_COLUMNS: &str = "id, file, name, dir, replaces, status, error, problem_id, created";

fn problem_check_row(r: &Row) -> DbResult<ProblemCheckRow> {
    Ok(ProblemCheckRow {
        id: r.int(0)?,
        file: r.text(1)?,
        name: r.text(2)?,
        dir: r.text(3)?,
        replaces: r.opt_int(4)?,
        status: CheckStatus::parse(&r.text(5)?)?,
        error: r.opt_text(6)?,
        problem_id: r.opt_int(7)?,
        created: r.int(8)?,
    })
}

/// The store: the same queries on either engine.
pub struct Db(Backend);

#[derive(Clone, Debug, Serialize)]
pub struct ProblemRow {
    pub id: i64,
    pub name: String,
    pub title: String,
    #[serde(skip)]
    pub dir: String,
    pub builtin: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct BatchRow {
    pub id: i64,
    pub problem_id: i64,
    pub problem: String,
    pub name: String,
    /// The course its students belong to (see [`StudentRow`]).
    pub course_id: i64,
    pub course: String,
    /// Students see their bug lists only once this is set.
    pub released: bool,
    pub created: i64,
    /// What the exports give the roster's students who handed in nothing.
    pub no_hand_in: course::exports::NoHandIn,
    /// The analysis its students see once it is released: the one released (releasing
    /// publishes the latest finished), or the first to finish after an early release.
    /// A later analysis (a re-run) waits for the instructor ([`Db::show_analysis`]) unless
    /// `release_reruns`.
    pub shown_analysis: Option<i64>,
    /// Whether each analysis that finishes is shown at once, without waiting for the
    /// instructor (off by default: releasing is a decision).
    pub release_reruns: bool,
}

impl BatchRow {
    /// The analysis its students see now: none until it is released.
    pub fn shown(&self) -> Option<i64> {
        self.shown_analysis.filter(|_| self.released)
    }
}

/// A released batch as one student of its course sees it, read in one query
/// ([`Db::released_to`]): which analysis it shows them, and their own rows of it.
#[derive(Clone, Debug)]
pub struct ReleasedTo {
    pub batch: BatchRow,
    pub released: Released,
    /// Their bug list in the analysis that graded them (JSON), if one did.
    pub bug_list: Option<String>,
    /// The module that analysis graded for them.
    pub graded_sha256: Option<String>,
    /// That analysis's problem directory.
    pub problem_dir: Option<String>,
    /// Their current hand-in, if any.
    pub submission: Option<SubmissionRow>,
    /// Their row of the batch's roster as graded: adjusted by the batch's adjustment of
    /// them, if any (see [`Db::graded_roster`]).
    pub roster: Option<RosterRow>,
}

/// Which analysis a released batch shows a student ([`ReleasedTo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Released {
    /// The latest finished analysis up to the one shown that graded them.
    Graded(i64),
    /// They are on its roster and no analysis up to the one shown graded them: the
    /// analysis shown, whose points say what a missing hand-in earns.
    NotHandedIn(i64),
}

/// A student: one id of one course. The same id in two courses is two students, with two
/// private links; in two batches of one course, one student with one link to both.
#[derive(Clone, Debug, Serialize)]
pub struct StudentRow {
    pub course_id: i64,
    pub course: String,
    pub student: String,
    /// The private link's token, while one is live.
    #[serde(skip)]
    pub token: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SubmissionRow {
    pub student: String,
    pub file: String,
    pub sha256: String,
    pub late: bool,
    pub uploaded: i64,
}

/// Where the check of an uploaded problem bundle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// Being built and checked (or waiting for the check before it).
    Checking,
    /// Checked: it made, or replaced, `problem_id`.
    Ready,
    /// Refused, with the reason in `error`; nothing of it was kept.
    Refused,
}

impl CheckStatus {
    fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Checking => "checking",
            CheckStatus::Ready => "ready",
            CheckStatus::Refused => "refused",
        }
    }
    /// The state `problem_checks.status` holds; an error for one this bugrank does not know.
    fn parse(text: &str) -> DbResult<CheckStatus> {
        match text {
            "checking" => Ok(CheckStatus::Checking),
            "ready" => Ok(CheckStatus::Ready),
            "refused" => Ok(CheckStatus::Refused),
            other => Err(unknown_state("problem_checks.status", other)),
        }
    }
}

/// The check of an uploaded problem bundle.
#[derive(Clone, Debug, Serialize)]
pub struct ProblemCheckRow {
    pub id: i64,
    /// The bundle's file name.
    pub file: String,
    /// The problem's name (its folder).
    pub name: String,
    /// The unpacked folder, as the store names it.
    #[serde(skip)]
    pub dir: String,
    /// The problem a bundle replaces; `None`: a new problem.
    pub replaces: Option<i64>,
    pub status: CheckStatus,
    pub error: Option<String>,
    /// The problem it made or replaced, once ready.
    pub problem_id: Option<i64>,
    pub created: i64,
}

fn unknown_state(column: &'static str, value: &str) -> DbError {
    DbError::UnknownState { column, value: value.to_owned() }
}

/// An upload: for a problem, with the batch it made or adds to, its report (JSON) and
/// whether it is saved, pending or discarded.
#[derive(Clone, Debug)]
pub struct UploadRow {
    pub problem: i64,
    pub batch: Option<i64>,
    pub report: String,
    pub status: String,
}

/// What [`Db::delete_batch`] did.
#[derive(Debug, PartialEq)]
pub enum Deleted {
    /// Nothing: this analysis of the batch is queued or running.
    Busy(i64),
    /// The batch is gone, with these analyses; these modules are no longer referred to.
    Done { analyses: Vec<i64>, modules: Vec<String> },
}

/// Where an upload stands.
pub const UPLOAD_SAVED: &str = "saved";
pub const UPLOAD_PENDING: &str = "pending";
pub const UPLOAD_DISCARDED: &str = "discarded";

/// The state `uploads.status` holds, one of the three above; an error for one this
/// bugrank does not know.
fn upload_status(text: String) -> DbResult<String> {
    match text.as_str() {
        UPLOAD_SAVED | UPLOAD_PENDING | UPLOAD_DISCARDED => Ok(text),
        other => Err(unknown_state("uploads.status", other)),
    }
}

const BATCH_COLUMNS: &str = "b.id, b.problem_id, p.title, b.name, b.released, b.created, b.course_id, c.name, b.no_hand_in, b.shown_analysis, b.release_reruns";

/// How many columns [`BATCH_COLUMNS`] names: a query's next column has this index.
const AFTER_BATCH_COLUMNS: usize = 11;
/// The latest finished analysis of batch `?1` (not a stability check's), as a subquery.
const LATEST_DONE: &str = "SELECT max(a.id) FROM analyses a WHERE a.batch_id = ?1 AND a.status = 'done' AND a.stability_of IS NULL";
/// The tables [`BATCH_COLUMNS`] come from.
const BATCHES: &str = "batches b JOIN problems p ON p.id = b.problem_id JOIN courses c ON c.id = b.course_id";
fn batch_row(row: &Row) -> DbResult<BatchRow> {
    Ok(BatchRow {
        id: row.int(0)?,
        problem_id: row.int(1)?,
        problem: row.text(2)?,
        name: row.text(3)?,
        released: row.bool(4)?,
        created: row.int(5)?,
        course_id: row.int(6)?,
        course: row.text(7)?,
        // (The column's default, and the only values written, are the choices' names.)
        no_hand_in: course::exports::NoHandIn::named(&row.text(8)?).unwrap_or_default(),
        shown_analysis: row.opt_int(9)?,
        release_reruns: row.bool(10)?,
    })
}

const STUDENT_COLUMNS: &str = "s.course_id, c.name, s.student, s.token";
/// The tables [`STUDENT_COLUMNS`] come from.
const STUDENTS: &str = "course_students s JOIN courses c ON c.id = s.course_id";
/// Narrows `course_students s` to the students of batch `?1`: those with a current
/// submission in it, and its roster's students who handed in nothing.
const OF_BATCH: &str = "JOIN batches b ON b.course_id = s.course_id WHERE b.id = ?1
     AND (EXISTS (SELECT 1 FROM submissions x WHERE x.batch_id = b.id AND x.student = s.student AND x.superseded = FALSE)
          OR EXISTS (SELECT 1 FROM roster r WHERE r.batch_id = b.id AND r.student = s.student))";

fn student_row(row: &Row) -> DbResult<StudentRow> {
    Ok(StudentRow { course_id: row.int(0)?, course: row.text(1)?, student: row.text(2)?, token: row.opt_text(3)? })
}

fn problem_row(row: &Row) -> DbResult<ProblemRow> {
    Ok(ProblemRow { id: row.int(0)?, name: row.text(1)?, title: row.text(2)?, dir: row.text(3)?, builtin: row.bool(4)? })
}

/// Every row of a query, read with `read`.
fn rows<T>(conn: &mut dyn Conn, sql: &str, args: &[sql::Value], read: fn(&Row) -> DbResult<T>) -> DbResult<Vec<T>> {
    conn.query(sql, args)?.iter().map(read).collect()
}

/// The first row of a query, read with `read`.
fn row<T>(conn: &mut dyn Conn, sql: &str, args: &[sql::Value], read: fn(&Row) -> DbResult<T>) -> DbResult<Option<T>> {
    conn.query_opt(sql, args)?.as_ref().map(read).transpose()
}

/// A submission from the columns `student, file, sha256, late, uploaded`.
fn submission_row(r: &Row) -> DbResult<SubmissionRow> {
    Ok(SubmissionRow { student: r.text(0)?, file: r.text(1)?, sha256: r.text(2)?, late: r.bool(3)?, uploaded: r.int(4)? })
}

/// A roster row from its first four columns: `student, cohort, manual, extra`.
fn roster_row(r: &Row) -> DbResult<RosterRow> {
    let manual = r.opt_real(2)?;
    Ok(RosterRow { id: r.text(0)?, cohort: r.text(1)?, manual, extra: RosterRow::columns_from_json(&r.text(3)?, manual) })
}

fn first_int(row: &Row) -> DbResult<i64> {
    row.int(0)
}

fn first_text(row: &Row) -> DbResult<String> {
    row.text(0)
}

fn text_pair(row: &Row) -> DbResult<(String, String)> {
    Ok((row.text(0)?, row.text(1)?))
}

impl Db {
    /// The engine the store runs on.
    pub fn engine(&self) -> Engine {
        self.0.engine()
    }

    /// Runs `work` (a first start's set-up: the first account, the demo data) while no
    /// other process does: on PostgreSQL under an advisory lock (other processes starting
    /// at once wait, then find what it made); on SQLite the data directory's lock already
    /// makes this process the only one.
    pub fn exclusively<T, E: From<DbError>>(&self, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        match &self.0 {
            Backend::Sqlite(_) => work(),
            Backend::Postgres(pool) => {
                let _held = pool.lock(schema::MIGRATION_LOCK + 1)?;
                work()
            }
        }
    }

    // --- instructors and sessions ---

    pub fn instructor_count(&self) -> DbResult<i64> {
        self.0.run(|c| c.query_one("SELECT count(*) FROM instructors", &[])?.int(0))
    }

    pub fn add_instructor(&self, login: &str, password_hash: &str) -> DbResult<()> {
        self.0.run(|c| {
            c.execute(
                "INSERT INTO instructors (login, password_hash, created) VALUES (?1, ?2, ?3)
                 ON CONFLICT(login) DO UPDATE SET password_hash = excluded.password_hash",
                args![login, password_hash, now()],
            )
        })?;
        Ok(())
    }

    /// The instructor's id and password hash.
    pub fn instructor(&self, login: &str) -> DbResult<Option<(i64, String)>> {
        self.0.run(|c| row(c, "SELECT id, password_hash FROM instructors WHERE login = ?1", args![login], |r| Ok((r.int(0)?, r.text(1)?))))
    }

    pub fn add_session(&self, token_hash: &str, instructor_id: i64, csrf: &str, expires: i64) -> DbResult<()> {
        self.0.transaction(|c| {
            c.execute("DELETE FROM sessions WHERE expires < ?1", args![now()])?;
            c.execute(
                "INSERT INTO sessions (token_hash, instructor_id, csrf, expires) VALUES (?1, ?2, ?3, ?4)",
                args![token_hash, instructor_id, csrf, expires],
            )
        })?;
        Ok(())
    }

    /// The login and CSRF token of a live session.
    pub fn session(&self, token_hash: &str) -> DbResult<Option<(String, String)>> {
        self.0.run(|c| {
            row(
                c,
                "SELECT i.login, s.csrf FROM sessions s JOIN instructors i ON i.id = s.instructor_id
                 WHERE s.token_hash = ?1 AND s.expires >= ?2",
                args![token_hash, now()],
                text_pair,
            )
        })
    }

    pub fn end_session(&self, token_hash: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("DELETE FROM sessions WHERE token_hash = ?1", args![token_hash]))?;
        Ok(())
    }

    // --- problems ---

    pub fn add_problem(&self, name: &str, title: &str, dir: &str, builtin: bool) -> DbResult<i64> {
        self.0.run(|c| {
            c.query_one(
                "INSERT INTO problems (name, title, dir, builtin, created) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                args![name, title, dir, builtin, now()],
            )?
            .int(0)
        })
    }

    /// Points a problem at a new directory (a new reference or new limits).
    pub fn replace_problem(&self, id: i64, title: &str, dir: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE problems SET title = ?2, dir = ?3 WHERE id = ?1", args![id, title, dir]))?;
        Ok(())
    }

    /// Records the check of a bundle unpacked in `dir`, `checking`.
    pub fn add_problem_check(&self, file: &str, name: &str, dir: &str, replaces: Option<i64>) -> DbResult<i64> {
        self.0.run(|c| {
            c.query_one(
                "INSERT INTO problem_checks (file, name, dir, replaces, status, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
                args![file, name, dir, replaces, CheckStatus::Checking.as_str(), now()],
            )?
            .int(0)
        })
    }

    pub fn problem_check(&self, id: i64) -> DbResult<Option<ProblemCheckRow>> {
        self.0.run(|c| row(c, &format!("SELECT {PROBLEM_CHECK_COLUMNS} FROM problem_checks WHERE id = ?1"), args![id], problem_check_row))
    }

    /// The checks not finished, oldest first.
    pub fn problem_checks_running(&self) -> DbResult<Vec<ProblemCheckRow>> {
        self.0.run(|c| {
            rows(
                c,
                &format!("SELECT {PROBLEM_CHECK_COLUMNS} FROM problem_checks WHERE status = ?1 ORDER BY id"),
                args![CheckStatus::Checking.as_str()],
                problem_check_row,
            )
        })
    }

    /// Ends a check: ready with the problem it made or replaced, or refused with why.
    pub fn finish_problem_check(&self, id: i64, outcome: &Result<i64, String>) -> DbResult<()> {
        let (status, problem, error) = match outcome {
            Ok(problem) => (CheckStatus::Ready, Some(*problem), None),
            Err(error) => (CheckStatus::Refused, None, Some(error.as_str())),
        };
        self.0.run(|c| {
            c.execute("UPDATE problem_checks SET status = ?2, problem_id = ?3, error = ?4 WHERE id = ?1", args![id, status.as_str(), problem, error])
        })?;
        Ok(())
    }

    pub fn problems(&self) -> DbResult<Vec<ProblemRow>> {
        self.0.run(|c| rows(c, "SELECT id, name, title, dir, builtin FROM problems ORDER BY id", &[], problem_row))
    }

    pub fn problem(&self, id: i64) -> DbResult<Option<ProblemRow>> {
        self.0.run(|c| row(c, "SELECT id, name, title, dir, builtin FROM problems WHERE id = ?1", args![id], problem_row))
    }

    // --- batches, submissions, roster ---

    /// Creates a batch of `course` (created if new) with its submissions and roster, in
    /// one transaction; its students become the course's.
    pub fn add_batch(&self, problem_id: i64, course: &str, name: &str, submissions: &[SubmissionRow], roster: &[RosterRow]) -> DbResult<i64> {
        self.0.transaction(|c| {
            c.execute("INSERT INTO courses (name, created) VALUES (?1, ?2) ON CONFLICT DO NOTHING", args![course, now()])?;
            let batch = c
                .query_one(
                    "INSERT INTO batches (problem_id, name, created, course_id)
                     SELECT CAST(?1 AS BIGINT), ?2, CAST(?3 AS BIGINT), id FROM courses WHERE name = ?4 RETURNING id",
                    args![problem_id, name, now(), course],
                )?
                .int(0)?;
            for s in submissions {
                insert_submission(c, batch, s)?;
            }
            insert_roster(c, batch, roster)?;
            Ok(batch)
        })
    }

    /// Replaces the batch's roster with `roster`, in one transaction.
    pub fn replace_roster(&self, batch: i64, roster: &[RosterRow]) -> DbResult<()> {
        self.0.transaction(|c| {
            c.execute("DELETE FROM roster WHERE batch_id = ?1", args![batch])?;
            insert_roster(c, batch, roster)
        })
    }

    pub fn rename_batch(&self, batch: i64, name: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE batches SET name = ?2 WHERE id = ?1", args![batch, name]))?;
        Ok(())
    }

    /// Deletes a batch and all that is its own, in one transaction: its submissions (with
    /// their history), roster, uploads, analyses with their answers and bug lists, and the
    /// students of its course who have no other batch there (their links with them), but
    /// those an LMS made students of the course (they hand in through their link).
    /// Nothing is deleted while one of its analyses is queued or running: `Busy` names it.
    pub fn delete_batch(&self, batch: i64) -> DbResult<Deleted> {
        self.0.transaction(|c| {
            let busy = row(c, "SELECT id FROM analyses WHERE batch_id = ?1 AND status IN ('queued', 'running')", args![batch], first_int)?;
            if let Some(analysis) = busy {
                return Ok(Deleted::Busy(analysis));
            }
            let hashes = rows(
                c,
                "SELECT sha256 FROM submissions WHERE batch_id = ?1
                 UNION SELECT x.sha256 FROM analysis_answers x JOIN analyses a ON a.id = x.analysis_id WHERE a.batch_id = ?1",
                args![batch],
                first_text,
            )?;
            let analyses = rows(c, "SELECT id FROM analyses WHERE batch_id = ?1 ORDER BY id", args![batch], first_int)?;
            let course = c.query_one("SELECT course_id FROM batches WHERE id = ?1", args![batch])?.int(0)?;
            for sql in [
                "DELETE FROM bug_lists WHERE analysis_id IN (SELECT id FROM analyses WHERE batch_id = ?1)",
                "DELETE FROM analysis_answers WHERE analysis_id IN (SELECT id FROM analyses WHERE batch_id = ?1)",
                // Stability runs and re-runs point at analyses of the same batch only.
                "UPDATE analyses SET previous_id = NULL, stability_of = NULL WHERE batch_id = ?1",
                "DELETE FROM analyses WHERE batch_id = ?1",
                "DELETE FROM uploads WHERE batch_id = ?1",
                "DELETE FROM roster WHERE batch_id = ?1",
                "DELETE FROM adjustments WHERE batch_id = ?1",
                "DELETE FROM submissions WHERE batch_id = ?1",
                "DELETE FROM hand_in_checks WHERE batch_id = ?1",
                "DELETE FROM hand_in_windows WHERE batch_id = ?1",
                "DELETE FROM batches WHERE id = ?1",
            ] {
                c.execute(sql, args![batch])?;
            }
            c.execute(
                "DELETE FROM course_students WHERE course_id = ?1
                     AND student NOT IN (SELECT s.student FROM submissions s JOIN batches b ON b.id = s.batch_id WHERE b.course_id = ?1)
                     AND student NOT IN (SELECT r.student FROM roster r JOIN batches b ON b.id = r.batch_id WHERE b.course_id = ?1)
                     AND student NOT IN (SELECT student FROM lti_students WHERE course_id = ?1)",
                args![course],
            )?;
            let in_pending_report = c.engine().position("report", "?1");
            let still_used = format!(
                "SELECT EXISTS (SELECT 1 FROM submissions WHERE sha256 = ?1)
                     OR EXISTS (SELECT 1 FROM analysis_answers WHERE sha256 = ?1)
                     OR EXISTS (SELECT 1 FROM uploads WHERE status = ?2 AND {in_pending_report} > 0)"
            );
            let mut unused = Vec::new();
            for hash in hashes {
                if !c.query_one(&still_used, args![&hash, UPLOAD_PENDING])?.bool(0)? {
                    unused.push(hash);
                }
            }
            Ok(Deleted::Done { analyses, modules: unused })
        })
    }

    /// Adds a late submission; it replaces the student's earlier one, which is kept as
    /// history.
    pub fn add_late_submission(&self, batch: i64, submission: &SubmissionRow) -> DbResult<()> {
        self.0.transaction(|c| replace_submission(c, batch, submission))
    }

    /// Course names, the most recently used first.
    pub fn courses(&self) -> DbResult<Vec<String>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT c.name FROM courses c LEFT JOIN batches b ON b.course_id = c.id
                 GROUP BY c.id, c.name ORDER BY max(b.id) IS NULL, max(b.id) DESC, c.id DESC",
                &[],
                first_text,
            )
        })
    }

    pub fn batches(&self) -> DbResult<Vec<BatchRow>> {
        self.0.run(|c| rows(c, &format!("SELECT {BATCH_COLUMNS} FROM {BATCHES} ORDER BY b.id"), &[], batch_row))
    }

    pub fn batch(&self, id: i64) -> DbResult<Option<BatchRow>> {
        self.0.run(|c| row(c, &format!("SELECT {BATCH_COLUMNS} FROM {BATCHES} WHERE b.id = ?1"), args![id], batch_row))
    }

    pub fn set_no_hand_in(&self, batch: i64, choice: course::exports::NoHandIn) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE batches SET no_hand_in = ?2 WHERE id = ?1", args![batch, choice.name()]))?;
        Ok(())
    }

    /// Releasing publishes the batch's latest finished analysis (none yet: the first to
    /// finish); hiding keeps which one was shown.
    pub fn set_released(&self, batch: i64, released: bool) -> DbResult<()> {
        self.0.run(|c| match released {
            true => c.execute(&format!("UPDATE batches SET released = TRUE, shown_analysis = ({LATEST_DONE}) WHERE id = ?1"), args![batch]),
            false => c.execute("UPDATE batches SET released = FALSE WHERE id = ?1", args![batch]),
        })?;
        Ok(())
    }

    /// Shows the batch's students analysis `analysis` (a finished one of the batch, not a
    /// stability check's): "release this re-run". Returns whether it was one.
    pub fn show_analysis(&self, batch: i64, analysis: i64) -> DbResult<bool> {
        let changed = self.0.run(|c| {
            c.execute(
                "UPDATE batches SET shown_analysis = ?2 WHERE id = ?1 AND EXISTS
                     (SELECT 1 FROM analyses a WHERE a.id = ?2 AND a.batch_id = ?1 AND a.status = 'done' AND a.stability_of IS NULL)",
                args![batch, analysis],
            )
        })?;
        Ok(changed == 1)
    }

    /// Whether the batch's analyses are shown as they finish, without waiting for the
    /// instructor. Turning it on shows the latest finished at once.
    pub fn set_release_reruns(&self, batch: i64, automatic: bool) -> DbResult<()> {
        self.0.run(|c| match automatic {
            true => c.execute(&format!("UPDATE batches SET release_reruns = TRUE, shown_analysis = ({LATEST_DONE}) WHERE id = ?1"), args![batch]),
            false => c.execute("UPDATE batches SET release_reruns = FALSE WHERE id = ?1", args![batch]),
        })?;
        Ok(())
    }

    /// The students of the batch (those with a current submission) and their private
    /// links' tokens, by student id: whom releasing reaches.
    pub fn batch_students(&self, batch: i64) -> DbResult<Vec<StudentRow>> {
        let mut rows = self.0.run(|c| rows(c, &format!("SELECT {STUDENT_COLUMNS} FROM {STUDENTS} {OF_BATCH}"), args![batch], student_row))?;
        rows.sort_by(|a, b| course::hand_ins::natural_cmp(&a.student, &b.student));
        Ok(rows)
    }

    /// Gives each student of the batch who has no private link a new one (`token()` makes
    /// each), in one transaction; returns how many were issued. Links already given stay.
    pub fn issue_missing_links(&self, batch: i64, token: &dyn Fn() -> String) -> DbResult<usize> {
        self.0.transaction(|c| {
            let missing = rows(c, &format!("SELECT s.course_id, s.student FROM course_students s {OF_BATCH} AND s.token IS NULL"), args![batch], |r| {
                Ok((r.int(0)?, r.text(1)?))
            })?;
            for (course, student) in &missing {
                c.execute("UPDATE course_students SET token = ?3, issued = ?4 WHERE course_id = ?1 AND student = ?2", args![*course, student, token(), now()])?;
            }
            Ok(missing.len())
        })
    }

    /// Every version a student handed in to the batch, the first first (the last is the
    /// current one).
    pub fn submission_history(&self, batch: i64, student: &str) -> DbResult<Vec<SubmissionRow>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT student, file, sha256, late, uploaded FROM submissions WHERE batch_id = ?1 AND student = ?2 ORDER BY superseded DESC, id",
                args![batch, student],
                submission_row,
            )
        })
    }

    /// The batch's current submissions, by student id.
    pub fn submissions(&self, batch: i64) -> DbResult<Vec<SubmissionRow>> {
        let mut rows = self.0.run(|c| {
            rows(c, "SELECT student, file, sha256, late, uploaded FROM submissions WHERE batch_id = ?1 AND superseded = FALSE", args![batch], submission_row)
        })?;
        rows.sort_by(|a, b| course::hand_ins::natural_cmp(&a.student, &b.student));
        Ok(rows)
    }

    pub fn roster(&self, batch: i64) -> DbResult<Vec<RosterRow>> {
        let mut rows = self.0.run(|c| rows(c, "SELECT student, cohort, manual, extra FROM roster WHERE batch_id = ?1", args![batch], roster_row))?;
        rows.sort_by(|a, b| course::hand_ins::natural_cmp(&a.id, &b.id));
        Ok(rows)
    }

    /// The batch's roster as grades use it: with each adjustment made on the batch's page
    /// ([`Db::set_adjustment`]) in its student's row, a row of no cohort made for a student
    /// the roster lacks. Grading itself reads [`Db::roster`], the roster as given.
    pub fn graded_roster(&self, batch: i64) -> DbResult<Vec<RosterRow>> {
        let mut roster = self.roster(batch)?;
        for (student, adjustment) in self.adjustments(batch)? {
            let row = roster.iter().position(|r| r.id == student).map(|i| roster.swap_remove(i));
            roster.push(RosterRow::graded(row, student, &adjustment));
        }
        roster.sort_by(|a, b| course::hand_ins::natural_cmp(&a.id, &b.id));
        Ok(roster)
    }

    /// The adjustments of points made on the batch's page, by student.
    pub fn adjustments(&self, batch: i64) -> DbResult<Vec<(String, Adjustment)>> {
        self.0.run(|c| {
            rows(c, "SELECT student, points, reason FROM adjustments WHERE batch_id = ?1 ORDER BY student", args![batch], |r| {
                Ok((r.text(0)?, Adjustment { points: r.opt_real(1)?.unwrap_or_default(), reason: r.text(2)? }))
            })
        })
    }

    /// Sets one student's adjustment of points in a batch (`None`: removes it). Kept by
    /// the batch: every analysis of it, and every re-run, applies it.
    pub fn set_adjustment(&self, batch: i64, student: &str, adjustment: Option<&Adjustment>) -> DbResult<()> {
        self.0.transaction(|c| {
            c.execute("DELETE FROM adjustments WHERE batch_id = ?1 AND student = ?2", args![batch, student])?;
            if let Some(a) = adjustment {
                c.execute(
                    "INSERT INTO adjustments (batch_id, student, points, reason, made) VALUES (?1, ?2, ?3, ?4, ?5)",
                    args![batch, student, a.points, a.reason.as_str(), now()],
                )?;
            }
            Ok(())
        })
    }

    /// How many hand-ins each batch holds (late ones replace earlier ones), by batch.
    pub fn submission_counts(&self) -> DbResult<HashMap<i64, usize>> {
        let counts = self.0.run(|c| {
            rows(c, "SELECT batch_id, count(*) FROM submissions WHERE superseded = FALSE GROUP BY batch_id", &[], |r| Ok((r.int(0)?, r.int(1)? as usize)))
        })?;
        Ok(counts.into_iter().collect())
    }

    /// Every roster row of every batch as `(course, batch, row)`, in the order the batches
    /// were made (a later batch's row last): one query for the links and the experiment
    /// report, whatever the number of batches.
    pub fn rosters(&self) -> DbResult<Vec<(i64, i64, RosterRow)>> {
        self.0.run(|c| {
            rows(
                c,
                "SELECT r.student, r.cohort, r.manual, r.extra, b.course_id, b.id FROM roster r JOIN batches b ON b.id = r.batch_id ORDER BY b.id",
                &[],
                |r| Ok((r.int(4)?, r.int(5)?, roster_row(r)?)),
            )
        })
    }

    // --- uploads ---

    pub fn add_upload(&self, problem: i64, batch: Option<i64>, report: &str, status: &str) -> DbResult<i64> {
        self.0.run(|c| {
            c.query_one(
                "INSERT INTO uploads (problem_id, batch_id, report, status, created) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                args![problem, batch, report, status, now()],
            )?
            .int(0)
        })
    }

    pub fn upload(&self, id: i64) -> DbResult<Option<UploadRow>> {
        self.0.run(|c| {
            row(c, "SELECT problem_id, batch_id, report, status FROM uploads WHERE id = ?1", args![id], |r| {
                Ok(UploadRow { problem: r.int(0)?, batch: r.opt_int(1)?, report: r.text(2)?, status: upload_status(r.text(3)?)? })
            })
        })
    }

    pub fn set_upload(&self, id: i64, batch: Option<i64>, status: &str) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE uploads SET batch_id = ?2, status = ?3 WHERE id = ?1", args![id, batch, status]))?;
        Ok(())
    }

    // --- students ---

    /// Every student of every course with their link token, if one is live: by course,
    /// then by id.
    pub fn students(&self) -> DbResult<Vec<StudentRow>> {
        let mut rows = self.0.run(|c| rows(c, &format!("SELECT {STUDENT_COLUMNS} FROM {STUDENTS}"), &[], student_row))?;
        rows.sort_by(|a, b| a.course.cmp(&b.course).then_with(|| course::hand_ins::natural_cmp(&a.student, &b.student)));
        Ok(rows)
    }

    /// Sets (or with `None`, revokes) a student's link token. False if the course has no
    /// such student.
    pub fn set_student_token(&self, course: i64, student: &str, token: Option<&str>) -> DbResult<bool> {
        let changed = self.0.run(|c| {
            c.execute("UPDATE course_students SET token = ?3, issued = ?4 WHERE course_id = ?1 AND student = ?2", args![course, student, token, now()])
        })?;
        Ok(changed == 1)
    }

    /// The student a live token belongs to.
    pub fn student_by_token(&self, token: &str) -> DbResult<Option<StudentRow>> {
        self.0.run(|c| row(c, &format!("SELECT {STUDENT_COLUMNS} FROM {STUDENTS} WHERE s.token = ?1"), args![token], student_row))
    }

    /// For a student of a course: each of the course's released batches that graded them or
    /// has them on its roster, in the order they were made. What they see of a batch is its
    /// shown analysis ([`BatchRow::shown_analysis`]), or, when that one did not grade them,
    /// the latest before it that did (a late hand-in graded by a re-run not shown yet). One
    /// query for all their rows. A student is one of a course's by a hand-in or a roster row,
    /// so one who handed in nothing reads what that earns.
    pub fn released_to(&self, course: i64, student: &str) -> DbResult<Vec<ReleasedTo>> {
        let found = self.0.run(|c| {
            rows(
                c,
                &format!(
                    "SELECT {BATCH_COLUMNS}, r.graded, b.shown_analysis, r.on_roster,
                         (SELECT l.list FROM bug_lists l WHERE l.analysis_id = r.graded AND l.student = ?2),
                         (SELECT x.sha256 FROM analysis_answers x WHERE x.analysis_id = r.graded AND x.student = ?2),
                         (SELECT an.problem_dir FROM analyses an WHERE an.id = r.graded),
                         s.student, s.file, s.sha256, s.late, s.uploaded,
                         ro.student, ro.cohort, ro.manual, ro.extra,
                         ad.student, ad.points, ad.reason
                     FROM {BATCHES}
                     JOIN (SELECT b2.id AS batch_id,
                               (SELECT max(a.id) FROM analyses a JOIN analysis_answers x ON x.analysis_id = a.id
                                   WHERE a.batch_id = b2.id AND a.status = 'done' AND a.stability_of IS NULL AND x.student = ?2
                                   AND a.id <= b2.shown_analysis) AS graded,
                               EXISTS (SELECT 1 FROM roster rr WHERE rr.batch_id = b2.id AND rr.student = ?2) AS on_roster
                           FROM batches b2 WHERE b2.released = TRUE AND b2.course_id = ?1) r ON r.batch_id = b.id
                     LEFT JOIN submissions s ON s.batch_id = b.id AND s.student = ?2 AND s.superseded = FALSE
                     LEFT JOIN roster ro ON ro.batch_id = b.id AND ro.student = ?2
                     LEFT JOIN adjustments ad ON ad.batch_id = b.id AND ad.student = ?2
                     WHERE b.released = TRUE AND b.course_id = ?1 ORDER BY b.id"
                ),
                args![course, student],
                |r| {
                    // (The columns after the batch's own.)
                    let at = BATCH_COLUMNS.split(',').count();
                    let released = match (r.opt_int(at)?, r.opt_int(at + 1)?, r.bool(at + 2)?) {
                        (Some(graded), _, _) => Some(Released::Graded(graded)),
                        (None, Some(latest), true) => Some(Released::NotHandedIn(latest)),
                        _ => None,
                    };
                    let Some(released) = released else { return Ok(None) };
                    let submission = r.opt_text(at + 6)?.map(|_| submission_row(&r.columns_from(at + 6))).transpose()?;
                    let roster = r.opt_text(at + 11)?.map(|_| roster_row(&r.columns_from(at + 11))).transpose()?;
                    // Their row as the batch's graded roster has it (`graded_roster`).
                    let roster = match r.opt_text(at + 15)? {
                        None => roster,
                        Some(id) => {
                            let adjustment = Adjustment { points: r.opt_real(at + 16)?.unwrap_or_default(), reason: r.text(at + 17)? };
                            Some(RosterRow::graded(roster, id, &adjustment))
                        }
                    };
                    Ok(Some(ReleasedTo {
                        batch: batch_row(r)?,
                        released,
                        bug_list: r.opt_text(at + 3)?,
                        graded_sha256: r.opt_text(at + 4)?,
                        problem_dir: r.opt_text(at + 5)?,
                        submission,
                        roster,
                    }))
                },
            )
        })?;
        Ok(found.into_iter().flatten().collect())
    }
}

impl Db {
    // --- files, as rows (PostgreSQL only: SQLite's store keeps them under `--data`) ---

    /// Keeps `bytes` as the file at `path` (under the data folder); the same path again
    /// replaces it.
    pub fn put_file(&self, path: &str, bytes: &[u8]) -> DbResult<()> {
        self.0.run(|c| {
            c.execute("INSERT INTO files (path, bytes) VALUES (?1, ?2) ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes", args![path, bytes])
        })?;
        Ok(())
    }

    /// The file kept at `path`, if any.
    pub fn file(&self, path: &str) -> DbResult<Option<Vec<u8>>> {
        self.0.run(|c| c.query_opt("SELECT bytes FROM files WHERE path = ?1", args![path])?.map(|r| r.bytes(0)).transpose())
    }

    /// The files whose path starts with `folder` (which ends with `/`), with their paths.
    pub fn files_under(&self, folder: &str) -> DbResult<Vec<(String, Vec<u8>)>> {
        self.0.run(|c| {
            rows(c, "SELECT path, bytes FROM files WHERE substr(path, 1, length(?1)) = ?1 ORDER BY path", args![folder], |r| Ok((r.text(0)?, r.bytes(1)?)))
        })
    }

    /// Deletes the file at `path` and every file under it (as a folder).
    pub fn delete_files(&self, path: &str) -> DbResult<()> {
        let folder = format!("{path}/");
        self.0.run(|c| c.execute("DELETE FROM files WHERE path = ?1 OR substr(path, 1, length(?2)) = ?2", args![path, folder]))?;
        Ok(())
    }
}

fn insert_roster(c: &mut dyn Conn, batch: i64, roster: &[RosterRow]) -> DbResult<()> {
    for r in roster {
        let extra = serde_json::to_string(&r.extra).expect("pairs of strings serialise");
        c.execute(
            "INSERT INTO roster (batch_id, student, cohort, manual, extra) VALUES (?1, ?2, ?3, ?4, ?5)",
            args![batch, &r.id, &r.cohort, r.manual, extra],
        )?;
        // A roster's student is one of the course's, handed in or not (`reference` is the
        // model answer's id, nobody's).
        if r.id != grader::REFERENCE_ID {
            add_course_student(c, batch, &r.id)?;
        }
    }
    Ok(())
}

fn insert_submission(c: &mut dyn Conn, batch: i64, s: &SubmissionRow) -> DbResult<()> {
    c.execute(
        "INSERT INTO submissions (batch_id, student, file, sha256, late, uploaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![batch, &s.student, &s.file, &s.sha256, s.late, s.uploaded],
    )?;
    add_course_student(c, batch, &s.student)
}

/// Adds `submission` to `batch` as its student's current one; their earlier one is
/// superseded (kept as history).
fn replace_submission(c: &mut dyn Conn, batch: i64, submission: &SubmissionRow) -> DbResult<()> {
    c.execute("UPDATE submissions SET superseded = TRUE WHERE batch_id = ?1 AND student = ?2 AND superseded = FALSE", args![batch, &submission.student])?;
    insert_submission(c, batch, submission)
}

/// Makes `student` one of batch `batch`'s course (without a link until one is issued).
fn add_course_student(c: &mut dyn Conn, batch: i64, student: &str) -> DbResult<()> {
    c.execute(
        "INSERT INTO course_students (course_id, student) SELECT course_id, ?2 FROM batches WHERE id = ?1 ON CONFLICT DO NOTHING",
        args![batch, student],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use grader::RerunMode;

    use super::queue::{parse_rerun, rerun_text};
    use super::schema::SQLITE_MIGRATIONS;
    use super::*;

    #[test]
    fn a_state_this_bugrank_does_not_know_is_refused_naming_the_value_and_its_column() {
        for status in [Status::Queued, Status::Running, Status::Done, Status::Failed, Status::Cancelled] {
            assert_eq!(Status::parse(status.as_str()).unwrap(), status);
        }
        for status in [CheckStatus::Checking, CheckStatus::Ready, CheckStatus::Refused] {
            assert_eq!(CheckStatus::parse(status.as_str()).unwrap(), status);
        }
        for mode in [RerunMode::Frozen, RerunMode::Full] {
            assert_eq!(parse_rerun(Some(rerun_text(mode))).unwrap(), Some(mode));
        }
        let message = |e: DbError| e.to_string();
        assert_eq!(message(Status::parse("paused").unwrap_err()), "the store's analyses.status holds `paused`, which this bugrank does not know");
        assert_eq!(message(CheckStatus::parse("waiting").unwrap_err()), "the store's problem_checks.status holds `waiting`, which this bugrank does not know");

        // Rows a newer bugrank might write: reading them fails, saying what and where.
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        let problem = db.add_problem("p", "P", "/p", false).unwrap();
        let batch = db.add_batch(problem, "Course", "One", &[], &[]).unwrap();
        let analysis = db.queue_analysis(batch, "/p", AnalysisSettings::default()).unwrap();
        let check = db.add_problem_check("p.zip", "p", "/checks/1", None).unwrap();
        let upload = db.add_upload(problem, Some(batch), "{}", UPLOAD_PENDING).unwrap();
        let write = |sql: &str, id: i64| db.0.run(|c| c.execute(sql, args![id])).unwrap();
        write("UPDATE analyses SET status = 'paused' WHERE id = ?1", analysis);
        let refused = message(db.analysis(analysis).unwrap_err());
        assert!(refused.contains("analyses.status holds `paused`"), "{refused}");
        assert!(db.analyses_of(batch).is_err(), "no list shows it as another state either");
        write("UPDATE analyses SET status = 'queued', rerun = 'partial' WHERE id = ?1", analysis);
        let refused = message(db.analysis(analysis).unwrap_err());
        assert!(refused.contains("analyses.rerun holds `partial`"), "{refused}");
        write("UPDATE problem_checks SET status = 'waiting' WHERE id = ?1", check);
        let refused = message(db.problem_check(check).unwrap_err());
        assert!(refused.contains("problem_checks.status holds `waiting`"), "{refused}");
        write("UPDATE uploads SET status = 'archived' WHERE id = ?1", upload);
        let refused = message(db.upload(upload).unwrap_err());
        assert!(refused.contains("uploads.status holds `archived`"), "{refused}");
    }

    #[test]
    fn batches_and_links_from_before_courses_are_kept_together_in_one_course() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bugrank.sqlite");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            for migration in &SQLITE_MIGRATIONS[..4] {
                conn.execute_batch(migration).unwrap();
            }
            conn.pragma_update(None, "user_version", 4).unwrap();
            conn.execute_batch(
                "INSERT INTO problems VALUES (1, 'p', 'P', '/p', 0, 0);
                 INSERT INTO batches (id, problem_id, name, released, created) VALUES (1, 1, 'One', 1, 0), (2, 1, 'Two', 1, 0);
                 INSERT INTO students (id, token, issued) VALUES ('a01', 'token-of-a01', 0), ('a02', NULL, NULL);",
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        let a01 = db.student_by_token("token-of-a01").unwrap().expect("the issued link still works");
        assert_eq!((a01.course.as_str(), a01.student.as_str()), ("Course", "a01"));
        let batches: Vec<(i64, String)> = db.batches().unwrap().into_iter().map(|b| (b.course_id, b.course)).collect();
        assert_eq!(batches, [(a01.course_id, "Course".to_owned()), (a01.course_id, "Course".to_owned())]);
        let students: Vec<(String, Option<String>)> = db.students().unwrap().into_iter().map(|s| (s.student, s.token)).collect();
        assert_eq!(students, [("a01".to_owned(), Some("token-of-a01".to_owned())), ("a02".to_owned(), None)]);
    }

    #[test]
    fn a_new_store_has_no_course_until_a_batch_names_one() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        assert!(db.courses().unwrap().is_empty());
        let problem = db.add_problem("p", "P", "/p", false).unwrap();
        let submission =
            |student: &str| SubmissionRow { student: student.to_owned(), file: format!("{student}.wasm"), sha256: "0".repeat(64), late: false, uploaded: 0 };
        db.add_batch(problem, "Spring", "One", &[submission("a01")], &[]).unwrap();
        db.add_batch(problem, "Autumn", "Two", &[submission("a01"), submission("a02")], &[]).unwrap();
        db.add_batch(problem, "Spring", "Three", &[submission("a01")], &[]).unwrap();
        assert_eq!(db.courses().unwrap(), ["Spring", "Autumn"], "the most recently used first");
        let students: Vec<(String, String)> = db.students().unwrap().into_iter().map(|s| (s.course, s.student)).collect();
        let expected = [("Autumn", "a01"), ("Autumn", "a02"), ("Spring", "a01")];
        assert_eq!(students, expected.map(|(c, s)| (c.to_owned(), s.to_owned())), "a01 of each course is its own student");
    }

    /// An LMS registered in `db`: its id.
    fn a_platform(db: &Db) -> i64 {
        let platform = PlatformRow {
            id: 0,
            name: "LMS".into(),
            issuer: "https://lms.example.edu".into(),
            client_id: "c".into(),
            auth_url: "https://lms.example.edu/auth".into(),
            token_url: "https://lms.example.edu/token".into(),
            jwks_url: "https://lms.example.edu/jwks".into(),
            deployment_ids: vec!["d".into()],
        };
        db.add_lti_platform(&platform).unwrap()
    }

    #[test]
    fn deleting_a_batch_keeps_the_courses_students_from_the_lms_and_their_links() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        let problem = db.add_problem("p", "P", "/p", false).unwrap();
        let submission = SubmissionRow { student: "a01".to_owned(), file: "a01.py".to_owned(), sha256: "0".repeat(64), late: false, uploaded: 0 };
        let batch = db.add_batch(problem, "Course A", "Lab 1", &[submission], &[]).unwrap();
        let platform = a_platform(&db);
        let (course, _) = db.lti_course(platform, "ctx", "Course A").unwrap();
        let person = Person { platform, sub: "lms-ann", name: "Ann", email: "ann@example.edu" };
        let (_, token) = db.lti_student(&person, course, &["s77".to_owned()], &|| "f".repeat(64)).unwrap();
        assert!(matches!(db.delete_batch(batch).unwrap(), Deleted::Done { .. }));
        let left: Vec<String> = db.students().unwrap().into_iter().map(|s| s.student).collect();
        assert_eq!(left, ["s77"], "a01 handed in to the batch only; s77 came from the LMS");
        assert_eq!(db.student_by_token(&token).unwrap().map(|s| s.student).as_deref(), Some("s77"), "their link still works");
    }

    #[test]
    fn logins_in_flight_are_kept_up_to_their_most_and_an_expired_one_makes_room() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("bugrank.sqlite")).unwrap();
        let platform = a_platform(&db);
        let keep = |state: &str, expires: i64| db.add_lti_state(state, platform, "nonce", expires, 2).unwrap();
        assert!(keep("s1", now() - 1), "kept (already expired: the next login forgets it)");
        assert!(keep("s2", now() + 600));
        assert!(keep("s3", now() + 600), "s1 expired and made room");
        assert!(!keep("s4", now() + 600), "two in flight: the most");
        assert_eq!(db.take_lti_state("s4").unwrap(), None, "nothing of a refused login is kept");
        assert!(db.take_lti_state("s2").unwrap().is_some());
        assert!(keep("s4", now() + 600), "a launch ended one: room again");
    }
}
