//! Students handing in themselves, off the requests: each hand-in's pre-check
//! (`course::pre_check`: built, and run on the problem's public tests) on a thread of its
//! own, one at a time, and the deadlines whose class analysis is queued by itself.
//!
//! A hand-in's request keeps the submission and queues its pre-check here; the student's
//! page shows "checking" and reloads itself until the check is done. Each problem is loaded
//! once for its pre-checks (the last [`PROBLEMS_HELD`] kept). On SQLite, pre-checks a
//! restart interrupted are queued again at start-up; on PostgreSQL a pre-check belongs to
//! the process that received the hand-in (the hand-in itself is kept whatever happens).
//!
//! Deadlines are looked at every [`DEADLINE_POLL_SECONDS`] by every serving process; the
//! first to claim one (`Db::claim_deadline`) queues its analysis, which grades each
//! student's last hand-in by the deadline (`AnalysisSettings::handed_in_by`), whenever it
//! is queued.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use course::pre_check::PreChecker;
use grader::RerunMode;

use super::App;
use super::db::{AnalysisSettings, Engine, HandInRow, PreCheckStatus, now};
use super::local_queue::{LocalQueue, unless_panicked};

/// Seconds between two looks at the deadlines: an analysis starts at most this long after
/// its deadline (it grades what came by the deadline whenever it starts), and the look is
/// one indexed query.
pub const DEADLINE_POLL_SECONDS: u64 = 15;

/// Problems kept loaded for pre-checks: those of the batches open now, in a term (each
/// holds its compiled programs, some megabytes).
pub const PROBLEMS_HELD: usize = 8;

/// This process's pre-checks of hand-ins, and the problems loaded for them.
#[derive(Default)]
pub struct HandIns {
    queue: LocalQueue,
    /// By the problem's stored folder (a replaced problem has a new one).
    checkers: Mutex<HashMap<String, Arc<PreChecker>>>,
}

impl HandIns {
    /// Queues hand-in `id`'s pre-check.
    pub fn queue(&self, id: i64) -> anyhow::Result<()> {
        self.queue.queue(id)
    }

    /// The pre-checker of the problem stored at `dir`, loaded on first use.
    fn checker(&self, app: &App, dir: &str) -> anyhow::Result<Arc<PreChecker>> {
        if let Some(found) = self.checkers.lock().unwrap_or_else(|p| p.into_inner()).get(dir) {
            return Ok(found.clone());
        }
        let problem = course::problem_dir::ProblemDir::load(&app.tools.sandbox, &app.tools.builder, &app.local(dir)?)?;
        let checker = Arc::new(PreChecker::new(problem));
        let mut held = self.checkers.lock().unwrap_or_else(|p| p.into_inner());
        if held.len() >= PROBLEMS_HELD {
            held.clear();
        }
        held.insert(dir.to_owned(), checker.clone());
        Ok(checker)
    }
}

/// Starts the pre-check thread and the deadline thread of a serving process.
pub fn start(app: Arc<App>) -> anyhow::Result<()> {
    let interrupted = match app.db.engine() {
        Engine::Sqlite => app.db.queued_hand_ins()?,
        Engine::Postgres => Vec::new(),
    };
    let worker = app.clone();
    app.hand_ins.queue.start("pre-checks", interrupted, move |id| pre_check(&worker, id))?;
    std::thread::Builder::new().name("deadlines".into()).spawn(move || {
        loop {
            if let Err(error) = queue_due_analyses(&app, now()) {
                eprintln!("bugrank: cannot queue the analyses of deadlines: {error:#}");
            }
            std::thread::sleep(Duration::from_secs(DEADLINE_POLL_SECONDS));
        }
    })?;
    Ok(())
}

/// Pre-checks hand-in `id` and records the report, or why there is none.
fn pre_check(app: &App, id: i64) {
    let row = match app.db.hand_in_row(id) {
        Ok(Some(row)) if row.status == PreCheckStatus::Queued => row,
        Ok(_) => return,
        Err(error) => return eprintln!("bugrank: cannot read hand-in {id}: {error}"),
    };
    let outcome = unless_panicked("the pre-check", || check(app, &row));
    if let Err(error) = app.db.finish_pre_check(id, &outcome) {
        eprintln!("bugrank: cannot record the pre-check of hand-in {id}: {error}");
    }
}

/// The pre-check of a hand-in as JSON, or why it could not be made here.
fn check(app: &App, row: &HandInRow) -> Result<String, String> {
    let checked = || -> anyhow::Result<Result<String, String>> {
        let batch = app.db.batch(row.batch_id)?.ok_or_else(|| anyhow::anyhow!("its batch was deleted"))?;
        let problem = app.db.problem(batch.problem_id)?.ok_or_else(|| anyhow::anyhow!("its problem was deleted"))?;
        let checker = app.hand_ins.checker(app, &problem.dir)?;
        let bytes = app.module(&row.sha256)?;
        Ok(checker.check(&app.tools, &row.file, bytes).and_then(|report| serde_json::to_string(&report).map_err(|e| e.to_string())))
    };
    checked().map_err(|error| format!("{error:#}")).and_then(|checked| checked)
}

/// Queues the analysis of every deadline that has come by `now` and that no process has
/// dealt with; a batch with no hand-in by its deadline has nothing to analyse.
pub fn queue_due_analyses(app: &App, now: i64) -> anyhow::Result<()> {
    for (batch, deadline) in app.db.due_deadlines(now)? {
        if !app.db.claim_deadline(batch, deadline)? || app.db.handed_in_by(batch, deadline)? == 0 {
            continue;
        }
        let Some(row) = app.db.batch(batch)? else { continue };
        let Some(problem) = app.db.problem(row.problem_id)? else { continue };
        // As the batch page's button does: a released batch is graded against the suite
        // its students saw.
        let rerun = Some(if row.released { RerunMode::Frozen } else { RerunMode::Full });
        let settings = AnalysisSettings { seed: 1, rerun, handed_in_by: Some(deadline), ..AnalysisSettings::default() };
        let analysis = app.db.queue_analysis(batch, &problem.dir, settings)?;
        app.db.set_deadline_analysis(batch, analysis)?;
        app.jobs.notify();
    }
    Ok(())
}
