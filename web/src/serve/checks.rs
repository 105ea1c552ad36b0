//! Uploaded problem bundles are checked outside the request that brought them: building
//! a bundle's sources and running its programs on a thousand inputs may take minutes (a
//! careless bundle's reference near its fuel limit on every input), and a request must
//! neither hold an HTTP worker that long nor keep a core busy after its client has left.
//!
//! The request unpacks the bundle (a zip that is not a problem bundle is refused there and
//! then), records its check (`problem_checks`, `checking`) and queues it on this process's
//! check thread, which checks one bundle at a time; it answers at once with the check's
//! page, which shows how far the check has come ([`BundleChecks::progress`]) and reloads
//! itself until the check ends, then leads to the problem's page, or shows the refusal
//! with the form again. A check ends `ready` (it made or replaced a
//! problem) or `refused` (the reason kept, nothing of the bundle kept); one that runs past
//! [`BUNDLE_CHECK_SECONDS`] is stopped and refused. On SQLite, checks a restart
//! interrupted are queued again at start-up. Pitfall: on PostgreSQL a check belongs to
//! the process that received the bundle; if that process dies, the check stays
//! `checking` and the bundle must be uploaded again.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use course::problem_check::CheckWatch;
use serde::Serialize;

use super::App;
use super::db::{CheckStatus, Engine, ProblemCheckRow};
use super::local_queue::{LocalQueue, unless_panicked};
use super::store::write_atomically;

/// The longest a bundle's check may run: every program of a sound problem runs on a
/// thousand inputs within this many times over, while a careless one (a reference near
/// its fuel limit of some seconds on every input) is stopped and refused instead of
/// holding the check thread for hours.
pub const BUNDLE_CHECK_SECONDS: u64 = 10 * 60;

/// The file in a stored problem's folder that keeps its check report (`ProblemCheck`).
pub const CHECK_REPORT: &str = "check.json";

/// This process's queue of bundle checks (see [`start`]), and the check it runs now.
#[derive(Default)]
pub struct BundleChecks {
    queue: LocalQueue,
    running: Mutex<Option<Running>>,
}

/// The check the check thread runs: which, since when, and what it has done.
struct Running {
    id: i64,
    started: Instant,
    watch: Arc<CheckWatch>,
}

/// How far a running check has come, as its page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckProgress {
    /// Seconds since the check started (it is stopped at [`BUNDLE_CHECK_SECONDS`]).
    pub seconds: u64,
    /// Runs made so far: the generator's, the reference's, the examples' and the checker's.
    pub runs: u64,
}

impl BundleChecks {
    /// Queues check `id` on the check thread.
    pub fn queue(&self, id: i64) -> anyhow::Result<()> {
        self.queue.queue(id)
    }

    /// How far check `id` has come, if this process runs it now; `None` while it waits
    /// for the check before it, or when another process of the service runs it.
    pub fn progress(&self, id: i64) -> Option<CheckProgress> {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running.as_ref().filter(|r| r.id == id).map(|r| CheckProgress { seconds: r.started.elapsed().as_secs(), runs: r.watch.runs.load(Ordering::Relaxed) })
    }

    /// Records that check `id` runs now, with `watch`, or that none does.
    fn set_running(&self, running: Option<(i64, Arc<CheckWatch>)>) {
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = running.map(|(id, watch)| Running { id, started: Instant::now(), watch });
    }
}

/// Starts the check thread of a serving process (and, on SQLite, queues again the checks
/// a restart interrupted).
pub fn start(app: Arc<App>) -> anyhow::Result<()> {
    let interrupted: Vec<i64> = match app.db.engine() {
        Engine::Sqlite => app.db.problem_checks_running()?.into_iter().map(|check| check.id).collect(),
        Engine::Postgres => Vec::new(),
    };
    let worker = app.clone();
    app.checks.queue.start("bundle-checks", move |id| run(&worker, id))?;
    interrupted.into_iter().try_for_each(|id| app.checks.queue(id))
}

/// Checks bundle `id` and records how it ended; a refused bundle's folder is removed.
fn run(app: &App, id: i64) {
    let row = match app.db.problem_check(id) {
        Ok(Some(row)) if row.status == CheckStatus::Checking => row,
        Ok(_) => return,
        Err(error) => return eprintln!("bugrank: cannot read problem check {id}: {error}"),
    };
    let outcome = unless_panicked("the check", || check(app, &row));
    // (Here, not in `check`: a check that panicked runs no more either.)
    app.checks.set_running(None);
    if outcome.is_err() {
        // Nothing of a refused bundle stays: not its files, not its numbered folder.
        let dir = app.store.resolve(&row.dir);
        let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
    }
    if let Err(error) = app.db.finish_problem_check(id, &outcome) {
        eprintln!("bugrank: cannot record the end of problem check {id}: {error}");
    }
}

/// Builds and checks the bundle (sandboxed, as students' sources are), keeps the modules
/// built from its sources beside them (every analysis of the problem runs the programs
/// that were checked) and the report for the problem page, and makes or replaces the
/// problem. The error is what the instructor is told.
fn check(app: &App, row: &ProblemCheckRow) -> Result<i64, String> {
    let dir = app.store.resolve(&row.dir);
    let watch = Arc::new(CheckWatch::default());
    app.checks.set_running(Some((row.id, watch.clone())));
    let checked = std::thread::scope(|scope| {
        // Dropped when the check ends, however it ends: the timer then ends too.
        let (done, ended) = channel::<()>();
        let stop = &watch.stop;
        scope.spawn(move || {
            if ended.recv_timeout(Duration::from_secs(BUNDLE_CHECK_SECONDS)) == Err(RecvTimeoutError::Timeout) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let checked = course::problem_check::run_check_problem(&app.tools.sandbox, &app.tools.builder, &dir, Some(&watch));
        drop(done);
        checked
    });
    if watch.stop.load(Ordering::Relaxed) {
        return Err(format!(
            "{}: the check took longer than {} minutes, the most a bundle's check may take: are the reference's and the generator's fuel limits far above what they need?",
            row.file,
            BUNDLE_CHECK_SECONDS / 60
        ));
    }
    let (problem, report) = checked.map_err(|error| format!("{}: {error:#}", row.file))?;
    let kept = || -> anyhow::Result<i64> {
        let json = serde_json::to_vec_pretty(&report)?;
        let outputs = problem.built.iter().map(|(file, wasm)| (file.as_str(), wasm.as_slice())).chain([(CHECK_REPORT, json.as_slice())]);
        for (file, bytes) in outputs {
            write_atomically(&dir.join(file), bytes)?;
        }
        app.publish(&dir)?;
        let stored = app.store.relative(&dir);
        Ok(match row.replaces {
            Some(id) => {
                app.db.replace_problem(id, &problem.toml.title, &stored)?;
                id
            }
            None => app.db.add_problem(&row.name, &problem.toml.title, &stored, false)?,
        })
    };
    kept().map_err(|error| format!("{}: the checked problem cannot be saved: {error:#}", row.file))
}
