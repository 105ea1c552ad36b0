//! Students handing in themselves, off the requests: each hand-in's pre-check
//! (`course::pre_check`: built, and run on the problem's public tests) on a thread of its
//! own, one at a time, and the deadlines whose class analysis is queued by itself.
//!
//! A hand-in's request keeps the submission and queues its pre-check here; the student's
//! page shows "checking" and reloads itself until the check is done. Each problem is loaded
//! once for its pre-checks (the last [`PROBLEMS_HELD`] kept). A pre-check is claimed in the
//! store before it runs (`Db::claim_pre_check`): one another process queued and has not
//! begun within [`UNCLAIMED_SECONDS`] (it is busy, or gone) is taken by any process's
//! upkeep, as is one whose process began it more than [`PRE_CHECK_LEASE_SECONDS`] ago and
//! never ended it; on SQLite a restart queues again every pre-check it interrupted.
//!
//! The upkeep looks at the store every [`DEADLINE_POLL_SECONDS`], in every serving
//! process: pre-checks to take, and deadlines whose analysis is due. The first process to
//! claim a deadline queues its analysis in the same transaction
//! (`Db::queue_deadline_analysis`); it grades each student's last hand-in by the deadline
//! (`AnalysisSettings::handed_in_by`), whenever it is queued.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use course::pre_check::PreChecker;
use grader::RerunMode;

use super::App;
use super::db::{AnalysisSettings, Engine, HandInRow, now};
use super::local_queue::{LocalQueue, unless_panicked};

/// Seconds between two looks at the deadlines and the pre-checks to take: an analysis
/// starts at most this long after its deadline (it grades what came by the deadline
/// whenever it starts), and each look is two indexed queries.
pub const DEADLINE_POLL_SECONDS: u64 = 15;

/// A pre-check queued this long ago and not begun is taken by whichever process looks
/// next: its own process is busy with a queue of others (at a deadline), or is gone.
pub const UNCLAIMED_SECONDS: i64 = 60;

/// A pre-check begun this long ago and not ended is taken again: the longest a sound one
/// takes is a compile at its limit (a minute), the problem's calibration (a thousand runs
/// of the model answer) and the public tests at their budgets, some minutes at worst.
pub const PRE_CHECK_LEASE_SECONDS: i64 = 15 * 60;

/// Problems kept loaded for pre-checks: those of the batches open now, in a term (each
/// holds its compiled programs, some megabytes).
pub const PROBLEMS_HELD: usize = 8;

/// This process's pre-checks of hand-ins, and the problems loaded for them.
#[derive(Default)]
pub struct HandIns {
    queue: LocalQueue,
    /// The hand-ins queued here and not begun yet (queued once only).
    waiting: Mutex<HashSet<i64>>,
    /// By the problem's stored folder (a replaced problem has a new one).
    checkers: Mutex<HashMap<String, Arc<PreChecker>>>,
}

impl HandIns {
    /// Queues hand-in `id`'s pre-check here, unless it waits here already.
    pub fn queue(&self, id: i64) -> anyhow::Result<()> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if waiting.insert(id)
            && let Err(error) = self.queue.queue(id)
        {
            waiting.remove(&id);
            return Err(error);
        }
        Ok(())
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

/// Starts the pre-check thread and the upkeep thread of a serving process.
pub fn start(app: Arc<App>) -> anyhow::Result<()> {
    let interrupted = match app.db.engine() {
        Engine::Sqlite => app.db.requeue_hand_ins()?,
        Engine::Postgres => Vec::new(),
    };
    let worker = app.clone();
    app.hand_ins.queue.start("pre-checks", move |id| pre_check(&worker, id))?;
    for id in interrupted {
        app.hand_ins.queue(id)?;
    }
    std::thread::Builder::new().name("hand-in-upkeep".into()).spawn(move || {
        loop {
            let now = now();
            let taken = app.db.pre_checks_to_take(now - UNCLAIMED_SECONDS, now - PRE_CHECK_LEASE_SECONDS);
            if let Err(error) = taken.map_err(anyhow::Error::from).and_then(|ids| ids.into_iter().try_for_each(|id| app.hand_ins.queue(id))) {
                eprintln!("bugrank: cannot take the pre-checks waiting: {error:#}");
            }
            queue_due_analyses(&app, now);
            std::thread::sleep(Duration::from_secs(DEADLINE_POLL_SECONDS));
        }
    })?;
    Ok(())
}

/// Pre-checks hand-in `id`, if no other process has, and records the report, or why
/// there is none.
fn pre_check(app: &App, id: i64) {
    app.hand_ins.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    let now = now();
    let row = match app
        .db
        .claim_pre_check(id, now, now - PRE_CHECK_LEASE_SECONDS)
        .and_then(|claimed| Ok(claimed.then(|| app.db.hand_in_row(id)).transpose()?.flatten()))
    {
        Ok(Some(row)) => row,
        Ok(None) => return,
        Err(error) => return eprintln!("bugrank: cannot claim the pre-check of hand-in {id}: {error}"),
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
/// dealt with (a batch with no hand-in by its deadline has nothing to analyse); a batch
/// that cannot be dealt with is said in the log and does not hold back the others.
pub fn queue_due_analyses(app: &App, now: i64) {
    let due = match app.db.due_deadlines(now) {
        Ok(due) => due,
        Err(error) => return eprintln!("bugrank: cannot read the deadlines due: {error}"),
    };
    for (batch, deadline) in due {
        if let Err(error) = queue_deadline(app, batch, deadline) {
            eprintln!("bugrank: cannot queue the analysis of batch {batch}'s deadline: {error:#}");
        }
    }
}

/// Queues the analysis of `batch`'s `deadline`, unless another process did.
fn queue_deadline(app: &App, batch: i64, deadline: i64) -> anyhow::Result<()> {
    let row = app.db.batch(batch)?.ok_or_else(|| anyhow::anyhow!("the batch was deleted"))?;
    let problem = app.db.problem(row.problem_id)?.ok_or_else(|| anyhow::anyhow!("its problem was deleted"))?;
    // As the batch page's button does: a released batch is graded against the suite its
    // students saw.
    let rerun = Some(if row.released { RerunMode::Frozen } else { RerunMode::Full });
    if app.db.queue_deadline_analysis(batch, deadline, &problem.dir, AnalysisSettings { seed: 1, rerun, ..AnalysisSettings::default() })?.is_some() {
        app.jobs.notify();
    }
    Ok(())
}
