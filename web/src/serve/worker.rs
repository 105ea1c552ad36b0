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

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use grader::{Build, GraderError, Progress, RerunMode, analyse, bug_list, rerun};
use present::{order_dot, order_svg};
use rayon::prelude::*;
use sandbox::{Program, Role};
use serde::{Deserialize, Serialize};

use super::App;
use super::db::{AnalysisRow, AnswerRow, Status};
use super::store::write_atomically;
use crate::executor::SandboxExecutor;
use crate::grade::{add_builds, answers_of};
use crate::sources;
use crate::submissions::Loaded;
use crate::problem::ProblemDir;

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

/// The longest the compile phase of one analysis may take, wall clock: some 30 times what
/// the largest honest class measured needs (300 Rust sources, 56 s cold on 2 cores), so
/// that only compile bombs reach it (some 60 of them at the 60 s limit each, two at a
/// time), and short enough that a batch of them cannot hold a worker for hours. When it
/// runs out no grade is given: the analysis fails, naming the hand-ins that did not
/// compile and how many were not reached (a grade that depends on a classmate's compile
/// time would not be defensible). What compiled is kept (the build and compiled-module
/// caches), so the next analysis starts from there.
pub const BATCH_COMPILE_SECONDS: u64 = 30 * 60;

/// This process, as the holder of the analyses it runs: machine, process and worker
/// thread, as the analysis page shows them.
fn holder(worker: usize) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned()).unwrap_or_else(|_| "unknown host".to_owned());
    format!("{host} (pid {}, worker {worker})", std::process::id())
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
    /// 0 to 100: the search's share is its stable run; explaining fills the rest.
    pub percent: f64,
    /// While shrinking: the candidates tried on the test being shrunk.
    #[serde(default)]
    pub shrink_candidates: u64,
    /// Where the analysis is, in words: what the page shows.
    #[serde(default)]
    pub text: String,
    /// How long the rest may take, in words, once there is a rate to go by.
    #[serde(default)]
    pub remaining: Option<String>,
}

/// A duration for people, rounded: "about 40 s", "about 3 min".
fn about(seconds: f64) -> String {
    match seconds {
        s if s < 60.0 => format!("about {} s", (s.ceil() as u64).max(1)),
        s if s < 5400.0 => format!("about {} min", (s / 60.0).round() as u64),
        s => format!("about {:.1} h", s / 3600.0),
    }
}

/// What the rest of the search may take at the rate so far: the tests still to try before
/// `stable_after` in a row add nothing (more if a new bug turns up), at the time per test
/// measured since the search began.
fn search_remaining(p: &Progress, searching: Duration) -> Option<String> {
    if p.tests_generated == 0 {
        return None;
    }
    let left = p.stable_after.saturating_sub(p.stable_run) as f64 * searching.as_secs_f64() / p.tests_generated as f64;
    Some(format!("{} left if no new bug turns up", about(left)))
}

/// The analyses running in this process: their progress and cancel flags.
#[derive(Default)]
pub struct Jobs {
    running: Mutex<HashMap<i64, (LiveProgress, Arc<AtomicBool>)>>,
    wake: Condvar,
    queue_changed: Mutex<bool>,
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

/// Starts `workers` threads that run queued analyses, each on a rayon pool of `threads`
/// (0: one per core, rayon's default). Returns their handles (they run for ever).
pub fn start(app: Arc<App>, workers: usize, threads: usize) -> anyhow::Result<Vec<std::thread::JoinHandle<()>>> {
    let requeued = app.db.requeue_running()?;
    if requeued > 0 {
        eprintln!("{requeued} analyses interrupted by the last shutdown are queued again");
    }
    (0..workers)
        .map(|n| {
            let app = app.clone();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(move |i| format!("analysis-{n}-{i}"))
                .build()?;
            Ok(std::thread::Builder::new().name(format!("worker-{n}")).spawn(move || work(&app, &pool, &holder(n)))?)
        })
        .collect()
}

fn work(app: &App, pool: &rayon::ThreadPool, holder: &str) {
    loop {
        match app.db.claim_next(holder) {
            Ok(Some(row)) => run_job(app, pool, row, holder),
            Ok(None) => app.jobs.wait(),
            Err(error) => {
                eprintln!("worker: cannot read the queue: {error}");
                std::thread::sleep(IDLE_POLL);
            }
        }
    }
}

/// Runs one analysis and records its end, whatever happens (a panic included), while a
/// heartbeat keeps its lease and brings cancels. Nothing is recorded if the lease was
/// lost: the process that took the analysis over records its end.
fn run_job(app: &App, pool: &rayon::ThreadPool, row: AnalysisRow, holder: &str) {
    let id = row.id;
    let cancel = Arc::new(AtomicBool::new(false));
    app.jobs.running.lock().unwrap_or_else(|p| p.into_inner()).insert(id, (LiveProgress { phase: "loading".into(), text: "loading the problem".into(), ..Default::default() }, cancel.clone()));
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
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyse_job(app, pool, &row, cancel)))
            .unwrap_or_else(|panic| {
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
    if let Err(error) = recorded {
        eprintln!("analysis {id}: cannot record its end ({error}); recording it as failed, retrying until that works");
        let reason = format!("its result could not be saved: {error}");
        retry(|| app.db.finish_analysis(id, holder, Status::Failed, Some(&reason), &[]).map(drop), std::thread::sleep);
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

/// Every hand-in's program, or, when the batch's compile time ran out before some were
/// reached, the error that fails the analysis: how many were not reached, and who did
/// not compile (the compile bombs are among them).
fn all_compiled<P>(rows: &[AnswerRow], loaded: Vec<Option<Loaded<P>>>) -> anyhow::Result<Vec<Loaded<P>>> {
    let not_reached = loaded.iter().filter(|l| l.is_none()).count();
    if not_reached == 0 {
        return Ok(loaded.into_iter().flatten().collect());
    }
    let failed: Vec<&str> = rows.iter().zip(&loaded).filter(|(_, l)| matches!(l, Some(Loaded::NotBuilt(_)))).map(|(a, _)| a.student.as_str()).collect();
    anyhow::bail!(
        "compiling this batch took longer than its limit of {} minutes, so nothing was graded: {} of {} hand-ins were compiled, {not_reached} were not reached; {} did not compile ({}). What compiled is kept: analyse the batch again to go on, or replace the hand-ins that do not compile",
        BATCH_COMPILE_SECONDS / 60,
        rows.len() - not_reached,
        rows.len(),
        failed.len(),
        if failed.is_empty() { "none".to_owned() } else { failed.join(", ") }
    )
}

/// The analysis itself: load, search, explain, save. Returns each student's bug list as JSON.
fn analyse_job(app: &App, pool: &rayon::ThreadPool, row: &AnalysisRow, cancel: &AtomicBool) -> anyhow::Result<Vec<(String, String)>> {
    let problem_dir = ProblemDir::load(&app.sandbox, &app.builder, &app.local(&row.problem_dir)?)?;
    let mut problem = problem_dir.problem();
    if let Some(stable_after) = row.stable_after {
        problem.search.stable_after = stable_after;
    }
    if let Some(factor) = row.fuel_factor {
        problem.fuel.factor = factor;
    }
    let rows = app.db.analysis_answers(row.id)?;
    anyhow::ensure!(!rows.is_empty(), "the batch has no submissions");
    // Uploads are checked without compiling: a class of 1,000 compiles here (sources are
    // built first), in minutes of CPU the first time, and the page says how far it got.
    let compiled = AtomicUsize::new(0);
    let compiling = Instant::now();
    // `None`: not reached within `BATCH_COMPILE_SECONDS`.
    let loaded: Vec<Option<Loaded<Program>>> = pool.install(|| {
        rows.par_iter()
            .map(|a| {
                anyhow::ensure!(!cancel.load(Ordering::Relaxed), "cancelled while compiling");
                if compiling.elapsed() > Duration::from_secs(BATCH_COMPILE_SECONDS) {
                    return Ok(None);
                }
                let bytes = app.module(&a.sha256)?;
                let loaded = match toolchain::Source::from_bytes(&bytes) {
                    Some(source) => sources::build(&app.sandbox, &app.builder, &a.student, &source, Some(cancel)).map_err(anyhow::Error::msg)?,
                    None => Loaded::Program(app.sandbox.load(&a.student, &bytes, Role::Answer)?, None),
                };
                let compiled = compiled.fetch_add(1, Ordering::Relaxed) + 1;
                app.jobs.publish(row.id, LiveProgress { phase: "compiling".into(), compiled, answers: rows.len(), text: format!("compiling {compiled}/{}", rows.len()), ..Default::default() });
                Ok(Some(loaded))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    let loaded = all_compiled(&rows, loaded)?;
    let ran: Vec<(&AnswerRow, &Program, Option<&Build>)> = rows
        .iter()
        .zip(&loaded)
        .filter_map(|(a, loaded)| match loaded {
            Loaded::Program(program, build) => Some((a, program, build.as_ref())),
            Loaded::NotBuilt(_) => None,
        })
        .collect();
    anyhow::ensure!(!ran.is_empty(), "no submission of the batch compiled");
    let programs: Vec<&Program> = ran.iter().map(|(_, program, _)| *program).collect();
    let (distinct, answers) = answers_of(ran.iter().map(|(a, p, _)| (a.student.as_str(), *p, a.cohort.clone())));
    let executor = SandboxExecutor { cancel: Some(cancel), ..problem_dir.executor(&app.sandbox, distinct) };

    let mut last_write = Instant::now();
    let searching = Instant::now();
    let mut show = |p: &Progress| {
        let live = LiveProgress {
            shrink_candidates: p.shrink_candidates,
            text: p.describe(),
            remaining: search_remaining(p, searching.elapsed()),
            phase: if p.shrinking { "shrinking" } else { "searching" }.to_owned(),
            tests_generated: p.tests_generated,
            suite_size: p.suite_size,
            stable_run: p.stable_run,
            stable_after: p.stable_after,
            executions: p.executions,
            explained: 0,
            compiled: rows.len(),
            answers: answers.len(),
            percent: 90.0 * p.stable_run as f64 / p.stable_after.max(1) as f64,
        };
        if last_write.elapsed() >= PROGRESS_WRITE_INTERVAL {
            last_write = Instant::now();
            let _ = app.db.set_progress(row.id, &serde_json::to_string(&live).expect("progress serialises"));
        }
        app.jobs.publish(row.id, live);
        if cancel.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let previous = match (row.rerun, row.previous_id) {
        (Some(mode), Some(previous)) => Some((mode, previous, app.analysis(previous)?)),
        _ => None,
    };
    let mut analysis = pool.install(|| match &previous {
        None => analyse(&problem, &answers, &executor, row.seed, &mut show),
        Some((mode, _, before)) => rerun(&problem, &answers, &executor, row.seed, before, *mode, &mut show),
    })?;
    add_builds(
        &mut analysis,
        ran.iter().filter_map(|(a, _, build)| Some((a.student.as_str(), (*build)?))),
        rows.iter().zip(&loaded).filter_map(|(a, loaded)| match loaded {
            Loaded::NotBuilt(build) => Some((a.student.clone(), a.cohort.clone(), build.clone())),
            Loaded::Program(..) => None,
        }),
    );
    // A frozen re-run keeps an unchanged answer's result, and so its bug list.
    let kept: HashMap<String, String> = match (&previous, &analysis.rerun) {
        (Some((RerunMode::Frozen, before, _)), Some(rerun)) => {
            let mut kept = HashMap::new();
            for answer in answers.iter().filter(|a| !rerun.changed.contains(&a.id)) {
                if let Some(list) = app.db.bug_list(*before, &answer.id)? {
                    kept.insert(answer.id.clone(), list);
                }
            }
            kept
        }
        _ => HashMap::new(),
    };

    let dir = app.store.analysis_dir(row.id);
    // Last: its presence means the outputs are complete. Then the folder is published
    // (as rows on PostgreSQL), before the end is recorded.
    let write_analysis = || {
        write_atomically(&dir.join("analysis.json"), (serde_json::to_string_pretty(&analysis)? + "\n").as_bytes())?;
        app.publish(&dir)
    };
    if row.stability_of.is_some() {
        // Compared with the analysis it checks, never shown to a student: no bug lists.
        write_analysis()?;
        return Ok(Vec::new());
    }

    // Each answer's bug list, computed now so that a student's page costs nothing.
    let explained = std::sync::atomic::AtomicUsize::new(0);
    let base = app.jobs.progress(row.id).unwrap_or_default();
    let explaining = Instant::now();
    let publish_explained = |n: usize| {
        let percent = 90.0 + 10.0 * n as f64 / answers.len() as f64;
        let text = format!("writing each student's bug list: {n}/{}", answers.len());
        let per_list = explaining.elapsed().as_secs_f64() / n.max(1) as f64;
        let remaining = (n > 0).then(|| format!("{} left", about(per_list * (answers.len() - n) as f64)));
        app.jobs.publish(row.id, LiveProgress { phase: "explaining".into(), explained: n, percent, text, remaining, ..base.clone() });
    };
    publish_explained(0);
    let mut lists: Vec<(String, String)> = pool.install(|| {
        answers
            .par_iter()
            .zip(&programs)
            .map(|(answer, program)| {
                if cancel.load(Ordering::Relaxed) {
                    return Err(GraderError::Cancelled.into());
                }
                if let Some(list) = kept.get(&answer.id) {
                    publish_explained(explained.fetch_add(1, Ordering::Relaxed) + 1);
                    return Ok((answer.id.clone(), list.clone()));
                }
                let executor = problem_dir.executor(&app.sandbox, [*program]);
                let list = bug_list(&problem, &analysis, &answer.id, 1, &executor).context("every answer is in the analysis")?;
                publish_explained(explained.fetch_add(1, Ordering::Relaxed) + 1);
                Ok((answer.id.clone(), serde_json::to_string(&list)?))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    // Those whose sources did not compile: their list is the compiler's message.
    let nothing = problem_dir.executor(&app.sandbox, []);
    for a in analysis.answers.iter().filter(|a| a.not_built()) {
        let list = bug_list(&problem, &analysis, &a.id, 1, &nothing).context("every answer is in the analysis")?;
        lists.push((a.id.clone(), serde_json::to_string(&list)?));
    }
    app.jobs.publish(row.id, LiveProgress { phase: "saving".into(), percent: 100.0, text: "saving the results".into(), remaining: None, ..base });
    write_atomically(&dir.join("order.svg"), order_svg(&analysis).as_bytes())?;
    write_atomically(&dir.join("order.dot"), order_dot(&analysis).as_bytes())?;
    write_analysis()?;
    Ok(lists)
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

    #[test]
    fn a_batch_whose_compile_time_ran_out_is_not_graded_and_the_page_says_who_did_not_compile() {
        let rows: Vec<AnswerRow> = ["a1", "a2", "a3", "a4"].iter().map(|s| AnswerRow { student: s.to_string(), sha256: String::new(), cohort: None }).collect();
        let not_built = || Loaded::NotBuilt(Build { language: "C".into(), toolchain: "clang".into(), sources: String::new(), warnings: String::new(), error: Some("took more than 60 s".into()) });
        let error = all_compiled(&rows, vec![Some(Loaded::Program((), None)), Some(not_built()), None, None]).err().unwrap().to_string();
        assert!(error.contains("took longer than its limit of 30 minutes, so nothing was graded: 2 of 4 hand-ins were compiled, 2 were not reached; 1 did not compile (a2)"), "{error}");
        let all = all_compiled(&rows[..2], vec![Some(Loaded::Program((), None)), Some(not_built())]).unwrap();
        assert_eq!(all.len(), 2, "every hand-in reached: graded, those that did not compile among them");
    }
}
