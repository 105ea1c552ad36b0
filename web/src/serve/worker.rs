//! The analysis queue: worker threads (never the HTTP workers) take queued analyses from
//! the store, run them on a rayon pool, publish live progress, honour cancellation, and
//! record the outcome. The queue lives in the store, so it survives a restart.
//!
//! A claimed analysis is its process's while a heartbeat renews its lease (see
//! [`LEASE_SECONDS`](super::db::LEASE_SECONDS)); the heartbeat also brings a cancel asked
//! by another process. A worker whose process dies loses the lease, and another worker
//! (`bugrank worker` on any machine, over PostgreSQL) takes the analysis and runs it again
//! from the start: analyses are deterministic, so the result is the same. On SQLite one
//! process holds the data directory, and at start-up it queues again what was running.
//!
//! A worker grades through `course::grade_batch` (the hand-ins as queued, fetched from the store when compiled:
//! `App::hand_ins`; the batch's roster; bug lists but for a stability check) on its own rayon pool while a heartbeat
//! thread keeps the lease and brings cancels; it saves `analysis.json` (and publishes it as rows on PostgreSQL) and
//! records the end unless the lease was lost. [`ANALYSES_AT_ONCE`] analyses run at once, sharing the cores, beside an
//! express worker for batches of at most [`EXPRESS_ANSWERS`] hand-ins.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use course::problem_dir::ProblemDir;
use course::{Class, Previous, Settings, Stage, grade_batch};
use grader::{Analysis, GraderError, RerunMode};
use serde::{Deserialize, Serialize};

use super::App;
use super::db::{AnalysisRow, Status};
use super::rounds::SharedRounds;
use super::store::write_atomically;

/// How often a running analysis writes its progress to the store (live readers get it
/// from memory at once): often enough that a restart shows recent progress, rarely
/// enough to cost nothing.
const PROGRESS_WRITE_INTERVAL: Duration = Duration::from_secs(2);

/// How long an idle worker sleeps before looking at the queue again, in case a wake-up
/// was missed (another process cannot wake it).
const IDLE_POLL: Duration = Duration::from_secs(2);

/// How often a running analysis renews its lease and looks for a cancel asked through the
/// store: a cancel from another process's page is seen within this time, and a lease of
/// [`LEASE_SECONDS`](super::db::LEASE_SECONDS) survives many missed beats.
const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(1);

/// This process, as the holder of the analyses it runs: machine, process and worker
/// thread, as the analysis page shows them.
fn holder(worker: usize) -> String {
    format!("{} worker {worker})", super::rounds::this_process(&host()))
}

/// This machine's name, as holders name it.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned()).unwrap_or_else(|_| "unknown host".to_owned())
}

/// Where a running analysis is: what the progress bar shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveProgress {
    /// `loading`, `compiling`, `searching`, `shrinking`, `explaining` (bug lists) or `saving`.
    pub phase: String,
    /// Submissions compiled (or found compiled) so far, while compiling.
    #[serde(default)]
    pub compiled: usize,
    pub tests_generated: u64,
    pub suite_size: usize,
    pub stable_run: u64,
    pub stable_after: u64,
    pub executions: u64,
    /// Bug lists written so far, while explaining.
    pub explained: usize,
    pub answers: usize,
    /// 0 to 100 while the share done is known (compiling, writing bug lists); `None` while
    /// searching, whose length no one knows beforehand (a new bug restarts its count).
    pub percent: Option<f64>,
    /// While shrinking: the candidates tried on the test being shrunk.
    #[serde(default)]
    pub shrink_candidates: u64,
    /// Where the analysis is, in words: what the page shows.
    #[serde(default)]
    pub text: String,
    /// How long the rest may take, in words, once there is a rate to go by.
    #[serde(default)]
    pub remaining: Option<String>,
    /// Runs and bug lists made by the workers of other processes so far (PostgreSQL:
    /// `rounds.rs`).
    #[serde(default)]
    pub runs_elsewhere: u64,
}

/// A duration for people, rounded: "about 40 s", "about 3 min".
fn about(seconds: f64) -> String {
    match seconds {
        s if s < 60.0 => format!("about {} s", (s.ceil() as u64).max(1)),
        s if s < 5400.0 => format!("about {} min", (s / 60.0).round() as u64),
        s => format!("about {:.1} h", s / 3600.0),
    }
}

/// The analyses running in this process: their progress and cancel flags.
#[derive(Default)]
pub struct Jobs {
    running: Mutex<HashMap<i64, (LiveProgress, Arc<AtomicBool>)>>,
    wake: Condvar,
    queue_changed: Mutex<bool>,
    /// Whether a worker of this process is helping another process's analysis: one at a
    /// time, or the helpers' pools would share the cores for nothing.
    helping: AtomicBool,
}

impl Jobs {
    /// Wakes an idle worker: something was queued.
    pub fn notify(&self) {
        *self.queue_changed.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.wake.notify_all();
    }

    fn wait(&self) {
        let mut changed = self.queue_changed.lock().unwrap_or_else(|p| p.into_inner());
        if !*changed {
            changed = self.wake.wait_timeout(changed, IDLE_POLL).unwrap_or_else(|p| p.into_inner()).0;
        }
        *changed = false;
    }

    pub fn progress(&self, id: i64) -> Option<LiveProgress> {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).get(&id).map(|(p, _)| p.clone())
    }

    /// Asks a running analysis to stop; false if it is not running here.
    pub fn cancel(&self, id: i64) -> bool {
        match self.running.lock().unwrap_or_else(|p| p.into_inner()).get(&id) {
            Some((_, flag)) => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    fn publish(&self, id: i64, progress: LiveProgress) {
        if let Some(entry) = self.running.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&id) {
            entry.0 = progress;
        }
    }
}

/// The most hand-ins an analysis may grade to be taken by the express worker: a lab
/// section's batch, a late hand-in's re-run of a small class, a problem's examples. A class
/// of 1,000 Python hand-ins takes many minutes; a batch of 6 takes seconds, and must not wait
/// behind it (it did, 9 minutes for its own 4 seconds).
pub const EXPRESS_ANSWERS: usize = 60;

/// How many analyses a process runs at once by default (`--workers`), besides the express
/// worker: each has a pool of `--threads` threads, and the system schedules all their
/// threads alike, so analyses that run at once share the cores equally, whatever their
/// size. Measured here (2 cores, `--threads 2` each): the interval-sets Python cohort
/// (`--stable-after 2000`) took 13.1 s alone and 21.2 s beside the 167-answer search
/// cohort's analysis (20.6 s of CPU of the 42 there were: half the machine), instead of
/// waiting minutes for it; the same analysis, byte for byte. Not more: each running
/// analysis keeps its class's compiled modules and warm slots in memory (a class of 1,000
/// Python hand-ins peaks at 117 MB, one of 300 modules at 160 MB), and with more at once
/// each gets too thin a share to finish sooner than if it had waited.
pub const ANALYSES_AT_ONCE: usize = 4;

/// Starts `workers` threads that run queued analyses, each on a rayon pool of `threads`
/// (0: one per core, rayon's default), and, when there is at least one, an express worker
/// as well, which takes only analyses of at most [`EXPRESS_ANSWERS`] hand-ins: a small batch
/// runs at once beside a large analysis, the two sharing the cores (the system schedules
/// their threads alike), instead of waiting for it to end. Returns their handles (they run
/// for ever).
pub fn start(app: Arc<App>, workers: usize, threads: usize) -> anyhow::Result<Vec<std::thread::JoinHandle<()>>> {
    let requeued = app.db.requeue_running()?;
    if requeued > 0 {
        eprintln!("{requeued} analyses interrupted by the last shutdown are queued again");
    }
    let express = (workers > 0).then_some(workers);
    (0..workers)
        .chain(express)
        .map(|n| {
            let app = app.clone();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(move |i| format!("analysis-{n}-{i}"))
                // (The stack of the deepest run a problem may give: address space, until used.)
                .stack_size(sandbox::RUN_THREAD_STACK_BYTES)
                .build()?;
            let (at_most, holder) = if Some(n) == express { (Some(EXPRESS_ANSWERS), format!("{} (express)", holder(n))) } else { (None, holder(n)) };
            Ok(std::thread::Builder::new().name(format!("worker-{n}")).spawn(move || work(&app, &pool, &holder, at_most))?)
        })
        .collect()
}

/// A worker's life: claims the next analysis it may take (of at most `at_most` hand-ins,
/// when given), runs it, and again. With nothing to claim, a worker that is not the express
/// one helps another process's analysis with its rounds of runs (`rounds.rs`), one worker
/// of the process at a time.
fn work(app: &Arc<App>, pool: &rayon::ThreadPool, holder: &str, at_most: Option<usize>) {
    let mut helper = at_most.is_none().then(|| super::rounds::Helper::new(holder, super::rounds::this_process(&host())));
    loop {
        match app.db.claim_next(holder, at_most) {
            Ok(Some(row)) => run_job(app, pool, row, holder),
            Ok(None) => match &mut helper {
                Some(helper) if app.jobs.helping.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok() => {
                    // Shard after shard while there are any, back to the queue now and then.
                    let started = Instant::now();
                    while started.elapsed() < IDLE_POLL {
                        if !helper.help(app, pool) {
                            if !helper.lingering() {
                                break;
                            }
                            std::thread::sleep(super::rounds::HELP_POLL);
                        }
                    }
                    app.jobs.helping.store(false, Ordering::Release);
                    if !helper.lingering() {
                        app.jobs.wait();
                    }
                }
                _ => app.jobs.wait(),
            },
            Err(error) => {
                eprintln!("worker: cannot read the queue: {error}");
                std::thread::sleep(IDLE_POLL);
            }
        }
    }
}

/// Runs one analysis and records its end, whatever happens (a panic included, recorded as
/// `failed` with its reason), while a heartbeat keeps its lease and brings cancels. An end
/// that cannot be recorded (a full disk) is recorded as failed, retried until the store
/// takes it. Nothing is recorded if the lease was lost: the process that took the analysis
/// over records its end.
fn run_job(app: &Arc<App>, pool: &rayon::ThreadPool, row: AnalysisRow, holder: &str) {
    let id = row.id;
    // A holder before this one may have left shards of its rounds (`rounds.rs`).
    if let Err(error) = app.db.drop_rounds(id) {
        eprintln!("analysis {id}: the shards of its last holder cannot be deleted: {error}");
    }
    let cancel = Arc::new(AtomicBool::new(false));
    app.jobs
        .running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id, (LiveProgress { phase: "loading".into(), text: "loading the problem".into(), ..Default::default() }, cancel.clone()));
    let lost = AtomicBool::new(false);
    let (finished, beating) = std::sync::mpsc::channel::<()>();
    let result = std::thread::scope(|scope| {
        let (lost, cancel) = (&lost, &cancel);
        scope.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = beating.recv_timeout(HEARTBEAT_INTERVAL) {
                match app.db.heartbeat(id, holder) {
                    Ok(Some(false)) => {}
                    Ok(Some(true)) => cancel.store(true, Ordering::Relaxed),
                    Ok(None) => {
                        lost.store(true, Ordering::Relaxed);
                        cancel.store(true, Ordering::Relaxed);
                    }
                    // The store is unreachable for now: the lease lasts many beats.
                    Err(error) => eprintln!("analysis {id}: heartbeat failed: {error}"),
                }
            }
        });
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyse_job(app, pool, &row, holder, cancel))).unwrap_or_else(|panic| {
            let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(anyhow::anyhow!("the analysis stopped on an internal error: {}", message.unwrap_or_default()))
        });
        drop(finished);
        result
    });
    if lost.load(Ordering::Relaxed) {
        eprintln!("analysis {id}: its lease was lost and another process took it over; the work done here is dropped");
        app.jobs.running.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        return;
    }
    let recorded = match result {
        // A cancel that came after the last progress report still voids the result: runs
        // after it did not really run.
        _ if cancel.load(Ordering::Relaxed) => app.db.finish_analysis(id, holder, Status::Cancelled, None, &[]),
        Ok(lists) => app.db.finish_analysis(id, holder, Status::Done, None, &lists),
        Err(error) if error.downcast_ref::<GraderError>().is_some_and(|e| matches!(e, GraderError::Cancelled)) => {
            app.db.finish_analysis(id, holder, Status::Cancelled, None, &[])
        }
        Err(error) => app.db.finish_analysis(id, holder, Status::Failed, Some(&format!("{error:#}")), &[]),
    };
    // The end must be recorded, or the analysis shows "running" for good: if it cannot be
    // (a full disk), record it as failed with the reason, retrying until the store takes
    // it. The worker waits meanwhile: nothing else could be recorded either.
    if let Err(error) = &recorded {
        eprintln!("analysis {id}: cannot record its end ({error}); recording it as failed, retrying until that works");
        let reason = format!("its result could not be saved: {error}");
        retry(|| app.db.finish_analysis(id, holder, Status::Failed, Some(&reason), &[]).map(drop), std::thread::sleep);
    }
    if let Err(error) = app.db.drop_rounds(id) {
        eprintln!("analysis {id}: its shards cannot be deleted: {error}");
    }
    // An analysis that its batch's students now see (released re-runs) changes the
    // grades the LMS has.
    if matches!(recorded, Ok(true)) {
        super::lti::grades::send_in_background(app, row.batch_id);
    }
    app.jobs.running.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
}

/// The first wait before `record` is tried again, doubled each time up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(60);

/// Calls `record` until it succeeds, sleeping (with `sleep`) longer after each failure.
fn retry<E: std::fmt::Display>(mut record: impl FnMut() -> Result<(), E>, sleep: impl Fn(Duration)) {
    let mut wait = RETRY_FIRST;
    while let Err(error) = record() {
        eprintln!("still cannot record: {error}; next try in {} s", wait.as_secs());
        sleep(wait);
        wait = (wait * 2).min(RETRY_MAX);
    }
}

/// The analysis itself, through [`course::grade_batch`]: the batch's hand-ins as they
/// were queued, its roster, and the analysis's settings; then its files are written and
/// published. Returns each student's bug list as JSON (none for a stability check's
/// analysis, which no student sees).
fn analyse_job(app: &Arc<App>, pool: &rayon::ThreadPool, row: &AnalysisRow, holder: &str, cancel: &Arc<AtomicBool>) -> anyhow::Result<Vec<(String, String)>> {
    let problem_dir = ProblemDir::load(&app.tools.sandbox, &app.tools.builder, &app.local(&row.problem_dir)?)?;
    let rows = app.db.analysis_answers(row.id)?;
    anyhow::ensure!(!rows.is_empty(), "the batch has no submissions");
    let roster = app.db.roster(row.batch_id)?;
    let class = Class { hand_ins: App::hand_ins(app, &rows), rejected: Vec::new(), roster: (!roster.is_empty()).then_some(roster) };
    // On PostgreSQL, other processes' idle workers may make some of its runs.
    let shared = app.db.shares_rounds().then(|| Arc::new(SharedRounds::new(app.clone(), row.id, holder, cancel.clone())));
    let previous = match (row.rerun, row.previous_id) {
        (Some(mode), Some(previous)) => {
            let bug_lists = match mode {
                RerunMode::Frozen => app.db.bug_lists(previous)?.into_iter().collect(),
                RerunMode::Full => Default::default(),
            };
            Some(Previous { analysis: Analysis::clone(&*app.analysis(previous)?), mode, bug_lists })
        }
        _ => None,
    };
    let settings = Settings {
        previous,
        bug_lists: row.stability_of.is_none(),
        elsewhere: shared.clone().map(|shared| shared as Arc<dyn course::rounds::RunsElsewhere>),
        ..super::settings(row)
    };
    let (total, explaining) = (rows.len(), Mutex::new(None::<Instant>));
    let last_write = Mutex::new(Instant::now());
    let report = |stage: Stage<'_>| {
        let live = match stage {
            Stage::Compiling { compiled, total } => LiveProgress {
                phase: "compiling".into(),
                compiled,
                answers: total,
                percent: Some(100.0 * compiled as f64 / total.max(1) as f64),
                text: format!("compiling the hand-ins: {compiled} of {total}"),
                ..Default::default()
            },
            Stage::Searching(p) => LiveProgress {
                shrink_candidates: p.shrink_candidates,
                text: p.describe(),
                remaining: None,
                phase: if p.shrinking { "shrinking" } else { "searching" }.to_owned(),
                tests_generated: p.tests_generated,
                suite_size: p.suite_size,
                stable_run: p.stable_run,
                stable_after: p.stable_after,
                executions: p.executions,
                explained: 0,
                compiled: total,
                answers: total,
                percent: None,
                runs_elsewhere: shared.as_ref().map_or(0, |shared| shared.elsewhere()),
            },
            Stage::Explaining { explained, total } => {
                let started = *lock(&explaining).get_or_insert_with(Instant::now);
                let per_list = started.elapsed().as_secs_f64() / explained.max(1) as f64;
                LiveProgress {
                    phase: "explaining".into(),
                    explained,
                    percent: Some(100.0 * explained as f64 / total.max(1) as f64),
                    text: format!("writing each student's bug list: {explained}/{total}"),
                    remaining: (explained > 0).then(|| format!("{} left", about(per_list * (total - explained) as f64))),
                    ..app.jobs.progress(row.id).unwrap_or_default()
                }
            }
        };
        // Every stage's, so that the pages of another process (PostgreSQL) show the
        // compiling and the bug lists too.
        let mut last_write = lock(&last_write);
        if last_write.elapsed() >= PROGRESS_WRITE_INTERVAL {
            *last_write = Instant::now();
            let _ = app.db.set_progress(row.id, &serde_json::to_string(&live).expect("progress serialises"));
        }
        drop(last_write);
        app.jobs.publish(row.id, live);
    };
    let graded = grade_batch(&app.tools, &problem_dir, class, &settings, pool, cancel, &report)?;
    let base = app.jobs.progress(row.id).unwrap_or_default();
    app.jobs.publish(row.id, LiveProgress { phase: "saving".into(), percent: Some(100.0), text: "saving the results".into(), remaining: None, ..base });
    // What the analysis is, `analysis.json` (the class's files are made from it when they
    // are asked for: `course::outputs::ClassFile`); then the folder is published (as rows
    // on PostgreSQL), before the end is recorded.
    let dir = app.store.analysis_dir(row.id);
    write_atomically(&dir.join("analysis.json"), &graded.analysis_json()?)?;
    app.publish(&dir)?;
    Ok(graded.bug_lists)
}

/// The value behind `mutex`, even if a thread panicked holding it (progress only).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_is_retried_with_growing_waits_until_it_works() {
        let mut failures = 8;
        let waits = std::cell::RefCell::new(Vec::new());
        retry(
            || {
                failures -= 1;
                if failures > 0 { Err("database or disk is full") } else { Ok(()) }
            },
            |wait| waits.borrow_mut().push(wait.as_secs()),
        );
        assert_eq!(*waits.borrow(), [1, 2, 4, 8, 16, 32, 60]);
    }
}
