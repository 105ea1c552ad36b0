//! The service's store: schema migrations and the queries the pages and the workers need,
//! each written once for both engines ([`sql`](super::sql): SQLite by default, PostgreSQL
//! with `--database`).
//!
//! Every multi-row change is one transaction. SQLite runs in WAL mode, so a crash (even
//! SIGKILL) loses at most the transaction in flight; PostgreSQL is PostgreSQL.

use std::path::Path;
use std::sync::Mutex;

use grader::RerunMode;
use serde::Serialize;

use super::sql::{Backend, Conn, Row, args};
pub use super::sql::{DbError, DbResult, Engine};
use course::submissions::RosterRow;

/// SQLite's schema, one migration per file of `migrations/sqlite/`, in the order of their
/// numbers; `PRAGMA user_version` counts those applied. Never edit a file once released:
/// add a new one.
const SQLITE_MIGRATIONS: &[&str] = &[
    include_str!("migrations/sqlite/0001_first_schema.sql"),
    include_str!("migrations/sqlite/0002_analysis_reruns.sql"),
    include_str!("migrations/sqlite/0003_stability_checks.sql"),
    include_str!("migrations/sqlite/0004_analysis_attempts.sql"),
    include_str!("migrations/sqlite/0005_courses.sql"),
    include_str!("migrations/sqlite/0006_analysis_leases.sql"),
    include_str!("migrations/sqlite/0007_problem_checks.sql"),
    include_str!("migrations/sqlite/0008_indexes_by_module_queue_and_batch.sql"),
];

/// PostgreSQL's schema, one migration per file of `migrations/postgres/`, in the order of
/// their numbers; the `bugrank_schema` table counts those applied. Never edit a file once
/// released: add a new one. The first is SQLite's schema after its fifth migration; from
/// there both grow together. Flags are booleans (SQLite keeps them as 0 and 1: the
/// queries write TRUE and FALSE, which both read).
const POSTGRES_MIGRATIONS: &[&str] = &[
    include_str!("migrations/postgres/0001_schema_of_sqlite_1_to_5.sql"),
    include_str!("migrations/postgres/0002_leases_and_files.sql"),
    include_str!("migrations/postgres/0003_problem_checks.sql"),
];

/// The key of the advisory lock under which PostgreSQL's migrations run: two processes
/// starting at once on a new database migrate it once. [`Db::exclusively`] takes the next.
const MIGRATION_LOCK: i64 = 0x0062_7567_7261_6e6b; // "bugrank" in ASCII

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
const GIVEN_UP: &str =
    "'the process running this analysis stopped while it ran, ' || attempts || ' times: it is not started again (run it anew to retry)'";

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
    fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    /// The state `analyses.status` holds; an error for one this bugrank does not know.
    fn parse(text: &str) -> DbResult<Status> {
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
fn rerun_text(mode: RerunMode) -> &'static str {
    match mode {
        RerunMode::Frozen => "frozen",
        RerunMode::Full => "full",
    }
}

/// The [`RerunMode`] `analyses.rerun` holds (NULL: afresh); an error for one this bugrank
/// does not know.
fn parse_rerun(text: Option<&str>) -> DbResult<Option<RerunMode>> {
    match text {
        None => Ok(None),
        Some("frozen") => Ok(Some(RerunMode::Frozen)),
        Some("full") => Ok(Some(RerunMode::Full)),
        Some(other) => Err(unknown_state("analyses.rerun", other)),
    }
}

fn unknown_state(column: &'static str, value: &str) -> DbError {
    DbError::UnknownState { column, value: value.to_owned() }
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
    pub status: Status,
    pub error: Option<String>,
    pub previous_id: Option<i64>,
    pub created: i64,
    pub finished: Option<i64>,
    /// How it re-runs `previous_id` (`None`: afresh, or there was none).
    pub rerun: Option<RerunMode>,
    /// Set for a stability check's analysis: the analysis it checks.
    pub stability_of: Option<i64>,
    /// While running: the machine and process that runs it ("host (pid 42)").
    pub holder: Option<String>,
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
    /// Re-run the batch's latest finished analysis this way, if there is one.
    pub rerun: Option<RerunMode>,
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


const BATCH_COLUMNS: &str = "b.id, b.problem_id, p.title, b.name, b.released, b.created, b.course_id, c.name";
/// The tables [`BATCH_COLUMNS`] come from.
const BATCHES: &str = "batches b JOIN problems p ON p.id = b.problem_id JOIN courses c ON c.id = b.course_id";
const ANALYSIS_COLUMNS: &str =
    "id, batch_id, problem_dir, seed, stable_after, fuel_factor, status, error, previous_id, created, finished, rerun, stability_of, holder";

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
    })
}

const STUDENT_COLUMNS: &str = "s.course_id, c.name, s.student, s.token";
/// The tables [`STUDENT_COLUMNS`] come from.
const STUDENTS: &str = "course_students s JOIN courses c ON c.id = s.course_id";

fn student_row(row: &Row) -> DbResult<StudentRow> {
    Ok(StudentRow { course_id: row.int(0)?, course: row.text(1)?, student: row.text(2)?, token: row.opt_text(3)? })
}

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
    })
}

fn problem_row(row: &Row) -> DbResult<ProblemRow> {
    Ok(ProblemRow { id: row.int(0)?, name: row.text(1)?, title: row.text(2)?, dir: row.text(3)?, builtin: row.bool(4)? })
}

/// Every row of a query, read with `read`.
fn rows<T>(conn: &mut dyn Conn, sql: &str, args: &[super::sql::Value], read: fn(&Row) -> DbResult<T>) -> DbResult<Vec<T>> {
    conn.query(sql, args)?.iter().map(read).collect()
}

/// The first row of a query, read with `read`.
fn row<T>(conn: &mut dyn Conn, sql: &str, args: &[super::sql::Value], read: fn(&Row) -> DbResult<T>) -> DbResult<Option<T>> {
    conn.query_opt(sql, args)?.as_ref().map(read).transpose()
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
    /// Opens (creating if needed) the SQLite store at `path` and applies pending
    /// migrations.
    pub fn open(path: &Path) -> DbResult<Db> {
        let mut conn = rusqlite::Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let applied: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        for (i, migration) in SQLITE_MIGRATIONS.iter().enumerate().skip(applied) {
            let tx = conn.transaction()?;
            tx.execute_batch(migration)?;
            tx.pragma_update(None, "user_version", i + 1)?;
            tx.commit()?;
        }
        Ok(Db(Backend::Sqlite(Mutex::new(conn))))
    }

    /// Connects to the PostgreSQL database at `url` and applies pending migrations (one
    /// process at a time: others starting at once wait for it).
    pub fn connect(url: &str) -> DbResult<Db> {
        let db = Db(Backend::Postgres(Box::new(super::sql::Postgres::connect(url)?)));
        db.0.transaction(|conn| {
            conn.execute("SELECT pg_advisory_xact_lock(?1)", args![MIGRATION_LOCK])?;
            conn.batch("CREATE TABLE IF NOT EXISTS bugrank_schema (version BIGINT NOT NULL)")?;
            let applied = conn.query_opt("SELECT version FROM bugrank_schema", &[])?.map(|r| r.int(0)).transpose()?;
            if applied.is_none() {
                conn.execute("INSERT INTO bugrank_schema (version) VALUES (0)", &[])?;
            }
            let applied = applied.unwrap_or(0);
            let known = POSTGRES_MIGRATIONS.len() as i64;
            if applied > known {
                return Err(DbError::Newer { found: applied, known });
            }
            for migration in &POSTGRES_MIGRATIONS[applied as usize..] {
                conn.batch(migration)?;
            }
            conn.execute("UPDATE bugrank_schema SET version = ?1", args![known])?;
            Ok(())
        })?;
        Ok(db)
    }

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
                let _held = pool.lock(MIGRATION_LOCK + 1)?;
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
        self.0.run(|c| {
            row(c, "SELECT id, password_hash FROM instructors WHERE login = ?1", args![login], |r| Ok((r.int(0)?, r.text(1)?)))
        })
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
            rows(c, &format!("SELECT {PROBLEM_CHECK_COLUMNS} FROM problem_checks WHERE status = ?1 ORDER BY id"), args![CheckStatus::Checking.as_str()], problem_check_row)
        })
    }

    /// Ends a check: ready with the problem it made or replaced, or refused with why.
    pub fn finish_problem_check(&self, id: i64, outcome: &Result<i64, String>) -> DbResult<()> {
        let (status, problem, error) = match outcome {
            Ok(problem) => (CheckStatus::Ready, Some(*problem), None),
            Err(error) => (CheckStatus::Refused, None, Some(error.as_str())),
        };
        self.0.run(|c| c.execute("UPDATE problem_checks SET status = ?2, problem_id = ?3, error = ?4 WHERE id = ?1", args![id, status.as_str(), problem, error]))?;
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
    /// students of its course who have no other batch there (their links with them).
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
                "DELETE FROM submissions WHERE batch_id = ?1",
                "DELETE FROM batches WHERE id = ?1",
            ] {
                c.execute(sql, args![batch])?;
            }
            c.execute(
                "DELETE FROM course_students WHERE course_id = ?1 AND student NOT IN
                     (SELECT s.student FROM submissions s JOIN batches b ON b.id = s.batch_id WHERE b.course_id = ?1)",
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
        self.0.transaction(|c| {
            c.execute(
                "UPDATE submissions SET superseded = TRUE WHERE batch_id = ?1 AND student = ?2 AND superseded = FALSE",
                args![batch, &submission.student],
            )?;
            insert_submission(c, batch, submission)
        })
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

    pub fn set_released(&self, batch: i64, released: bool) -> DbResult<()> {
        self.0.run(|c| c.execute("UPDATE batches SET released = ?2 WHERE id = ?1", args![batch, released]))?;
        Ok(())
    }

    /// The batch's current submissions, by student id.
    pub fn submissions(&self, batch: i64) -> DbResult<Vec<SubmissionRow>> {
        let mut rows = self.0.run(|c| {
            rows(
                c,
                "SELECT student, file, sha256, late, uploaded FROM submissions WHERE batch_id = ?1 AND superseded = FALSE",
                args![batch],
                |r| Ok(SubmissionRow { student: r.text(0)?, file: r.text(1)?, sha256: r.text(2)?, late: r.bool(3)?, uploaded: r.int(4)? }),
            )
        })?;
        rows.sort_by(|a, b| course::submissions::natural_cmp(&a.student, &b.student));
        Ok(rows)
    }

    pub fn roster(&self, batch: i64) -> DbResult<Vec<RosterRow>> {
        let mut rows = self.0.run(|c| {
            rows(c, "SELECT student, cohort, manual, extra FROM roster WHERE batch_id = ?1", args![batch], |r| {
                let manual = r.opt_real(2)?;
                Ok(RosterRow { id: r.text(0)?, cohort: r.text(1)?, manual, extra: RosterRow::columns_from_json(&r.text(3)?, manual) })
            })
        })?;
        rows.sort_by(|a, b| course::submissions::natural_cmp(&a.id, &b.id));
        Ok(rows)
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
        rows.sort_by(|a, b| a.course.cmp(&b.course).then_with(|| course::submissions::natural_cmp(&a.student, &b.student)));
        Ok(rows)
    }

    /// Sets (or with `None`, revokes) a student's link token. False if the course has no
    /// such student.
    pub fn set_student_token(&self, course: i64, student: &str, token: Option<&str>) -> DbResult<bool> {
        let changed = self.0.run(|c| {
            c.execute(
                "UPDATE course_students SET token = ?3, issued = ?4 WHERE course_id = ?1 AND student = ?2",
                args![course, student, token, now()],
            )
        })?;
        Ok(changed == 1)
    }

    /// The student a live token belongs to.
    pub fn student_by_token(&self, token: &str) -> DbResult<Option<StudentRow>> {
        self.0.run(|c| row(c, &format!("SELECT {STUDENT_COLUMNS} FROM {STUDENTS} WHERE s.token = ?1"), args![token], student_row))
    }

    /// For a student of a course: each of the course's released batches' latest finished
    /// analysis that graded them.
    pub fn released_analyses_of(&self, course: i64, student: &str) -> DbResult<Vec<(BatchRow, i64)>> {
        let found = self.0.run(|c| {
            rows(
                c,
                &format!(
                    "SELECT {BATCH_COLUMNS}, (SELECT max(a.id) FROM analyses a JOIN analysis_answers x ON x.analysis_id = a.id
                         WHERE a.batch_id = b.id AND a.status = 'done' AND a.stability_of IS NULL AND x.student = ?2)
                     FROM {BATCHES} WHERE b.released = TRUE AND b.course_id = ?1 ORDER BY b.id"
                ),
                args![course, student],
                |r| Ok((batch_row(r)?, r.opt_int(8)?)),
            )
        })?;
        Ok(found.into_iter().filter_map(|(batch, analysis)| analysis.map(|a| (batch, a))).collect())
    }

    // --- analyses ---

    /// Queues an analysis of the batch's current submissions.
    pub fn queue_analysis(&self, batch: i64, problem_dir: &str, settings: AnalysisSettings) -> DbResult<i64> {
        self.0.transaction(|c| {
            let previous = c
                .query_one("SELECT max(id) FROM analyses WHERE batch_id = ?1 AND status = 'done' AND stability_of IS NULL", args![batch])?
                .opt_int(0)?;
            let rerun = previous.and(settings.rerun).map(rerun_text);
            let id = c
                .query_one(
                    "INSERT INTO analyses (batch_id, problem_dir, seed, stable_after, fuel_factor, status, previous_id, created, rerun)
                     VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8) RETURNING id",
                    args![
                        batch,
                        problem_dir,
                        settings.seed as i64,
                        settings.stable_after.map(|v| v as i64),
                        settings.fuel_factor.map(|v| v as i64),
                        previous,
                        now(),
                        rerun,
                    ],
                )?
                .int(0)?;
            c.execute(
                "INSERT INTO analysis_answers (analysis_id, student, sha256, cohort)
                 SELECT CAST(?1 AS BIGINT), s.student, s.sha256, r.cohort FROM submissions s
                 LEFT JOIN roster r ON r.batch_id = s.batch_id AND r.student = s.student
                 WHERE s.batch_id = ?2 AND s.superseded = FALSE",
                args![id, batch],
            )?;
            Ok(id)
        })
    }

    /// Queues a stability check of `of`: `seeds` analyses of the same answers with the same
    /// settings and the seeds after its own.
    pub fn queue_stability(&self, of: &AnalysisRow, seeds: u64) -> DbResult<()> {
        self.0.transaction(|c| {
            for seed in of.seed + 1..=of.seed + seeds {
                let id = c
                    .query_one(
                        "INSERT INTO analyses (batch_id, problem_dir, seed, stable_after, fuel_factor, status, created, stability_of)
                         VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7) RETURNING id",
                        args![
                            of.batch_id,
                            &of.problem_dir,
                            seed as i64,
                            of.stable_after.map(|v| v as i64),
                            of.fuel_factor.map(|v| v as i64),
                            now(),
                            of.id
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

    /// The latest finished analysis of a batch.
    pub fn latest_done(&self, batch: i64) -> DbResult<Option<i64>> {
        self.0.run(|c| {
            c.query_one("SELECT max(id) FROM analyses WHERE batch_id = ?1 AND status = 'done' AND stability_of IS NULL", args![batch])?
                .opt_int(0)
        })
    }

    pub fn analysis_answers(&self, id: i64) -> DbResult<Vec<AnswerRow>> {
        let mut rows = self.0.run(|c| {
            rows(c, "SELECT student, sha256, cohort FROM analysis_answers WHERE analysis_id = ?1", args![id], |r| {
                Ok(AnswerRow { student: r.text(0)?, sha256: r.text(1)?, cohort: r.opt_text(2)? })
            })
        })?;
        rows.sort_by(|a, b| course::submissions::natural_cmp(&a.student, &b.student));
        Ok(rows)
    }

    /// Takes the oldest analysis that is queued, or running on a lost lease, for
    /// `holder` (this machine and process) and marks it running with a new lease. One
    /// whose lease was lost [`MAX_ATTEMPTS`] times is failed with the reason instead. On
    /// PostgreSQL, workers claiming at once skip each other's rows: each gets another.
    pub fn claim_next(&self, holder: &str) -> DbResult<Option<AnalysisRow>> {
        self.0.transaction(|c| {
            let clock = c.engine().now();
            let sql = format!(
                "SELECT {ANALYSIS_COLUMNS}, attempts FROM analyses
                 WHERE status = 'queued' OR (status = 'running' AND lease_until < {clock})
                 ORDER BY id LIMIT 1{}",
                c.engine().skip_locked()
            );
            loop {
                let Some(found) = c.query_opt(&sql, &[])? else { return Ok(None) };
                let (next, attempts) = (analysis_row(&found)?, found.int(14)?);
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
        let changed = self.0.run(|c| {
            c.execute("UPDATE analyses SET status = 'cancelled', finished = ?2 WHERE id = ?1 AND status = 'queued'", args![id, now()])
        })?;
        Ok(changed == 1)
    }

    /// Records how an analysis `holder` ran ended, with its bug lists when it is done.
    /// False, recording nothing, when it is no longer `holder`'s (another process took it
    /// over on a lost lease, and records its own end): an analysis ends once.
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
            rows(c, "SELECT path, bytes FROM files WHERE substr(path, 1, length(?1)) = ?1 ORDER BY path", args![folder], |r| {
                Ok((r.text(0)?, r.bytes(1)?))
            })
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
    }
    Ok(())
}

fn insert_submission(c: &mut dyn Conn, batch: i64, s: &SubmissionRow) -> DbResult<()> {
    c.execute(
        "INSERT INTO submissions (batch_id, student, file, sha256, late, uploaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![batch, &s.student, &s.file, &s.sha256, s.late, s.uploaded],
    )?;
    // A submitting student is one of the batch's course (without a link until one is issued).
    c.execute(
        "INSERT INTO course_students (course_id, student) SELECT course_id, ?2 FROM batches WHERE id = ?1 ON CONFLICT DO NOTHING",
        args![batch, &s.student],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
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
    fn the_migrations_are_the_files_of_each_engines_folder_in_the_order_of_their_numbers() {
        for (engine, embedded) in [("sqlite", SQLITE_MIGRATIONS), ("postgres", POSTGRES_MIGRATIONS)] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/serve/migrations").join(engine);
            let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            files.sort();
            for (i, file) in files.iter().enumerate() {
                assert!(file.starts_with(&format!("{:04}_", i + 1)) && file.ends_with(".sql"), "{engine}: {file} is not numbered {:04}", i + 1);
            }
            let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(dir.join(f)).unwrap()).collect();
            assert_eq!(texts, embedded, "{engine}: every file of {} is embedded, in order", dir.display());
        }
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
        let submission = |student: &str| SubmissionRow {
            student: student.to_owned(),
            file: format!("{student}.wasm"),
            sha256: "0".repeat(64),
            late: false,
            uploaded: 0,
        };
        db.add_batch(problem, "Spring", "One", &[submission("a01")], &[]).unwrap();
        db.add_batch(problem, "Autumn", "Two", &[submission("a01"), submission("a02")], &[]).unwrap();
        db.add_batch(problem, "Spring", "Three", &[submission("a01")], &[]).unwrap();
        assert_eq!(db.courses().unwrap(), ["Spring", "Autumn"], "the most recently used first");
        let students: Vec<(String, String)> = db.students().unwrap().into_iter().map(|s| (s.course, s.student)).collect();
        let expected = [("Autumn", "a01"), ("Autumn", "a02"), ("Spring", "a01")];
        assert_eq!(students, expected.map(|(c, s)| (c.to_owned(), s.to_owned())), "a01 of each course is its own student");
    }
}
