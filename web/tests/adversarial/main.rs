//! The adversarial corpus: hostile modules, zips and requests, each run in its own process
//! (a `bugrank grade` or a `bugrank serve`), each with the outcome it must have and a bound
//! on the CPU time and on the peak memory of that process (`wait4` of a command started
//! through a small wrapper, see `measure.rs`; `VmHWM` of a service). A regression in what
//! happens, in how long it takes or in how much memory it takes fails the run. There is no
//! test harness: `main` runs each case and prints the table of every case at the end.
//!
//! Run alone with `cargo test -p web --test adversarial` (add a word to run only the cases
//! whose name contains it). Bounds are several times what a 2-core machine measures, so
//! that only a regression, not a busy machine, trips them.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

/// The corpus runs the service on its default store, SQLite.
fn on_postgres() -> bool {
    false
}
#[path = "../service/common.rs"]
#[allow(dead_code)]
mod common;
#[allow(dead_code)] // CPU times: for the class benchmark
mod measure;
mod modules;
mod packages;
#[path = "../service/postgres.rs"]
#[allow(dead_code)]
mod postgres;
mod python;
mod service;
mod uploads;

/// One hostile input and what must happen to it.
pub struct Case {
    pub name: &'static str,
    /// The bounds on the CPU time of the process that handles the case (its own and its
    /// finished children's, such as compilers in their jails: what the case costs it,
    /// however busy the machine is otherwise), and on its peak resident memory.
    pub max_seconds: f64,
    pub max_peak_mb: u64,
    /// Runs the case in a fresh process, checks its outcome (panicking with what went
    /// wrong) and says what happened.
    pub run: Box<dyn Fn() -> Measured>,
}

/// How many times its bound a case's process may run in wall time before it is killed:
/// far enough that a loaded machine does not kill a sound case, near enough that a hung
/// one ends the corpus.
pub const KILLED_PAST: f64 = 10.0;

/// What a case did, and what it cost the process that handled it.
pub struct Measured {
    /// What happened, in a few words (the table's "outcome").
    pub outcome: String,
    pub seconds: f64,
    pub peak_mb: u64,
}

fn main() {
    // (A measured command is started by this binary, as a small wrapper.)
    measure::wrap_if_asked();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let cases: Vec<Case> =
        modules::cases().into_iter().chain(python::cases()).chain(service::cases()).chain(uploads::cases()).chain(packages::cases()).collect();
    if args.iter().any(|a| a == "--list") {
        for case in &cases {
            println!("{}: test", case.name);
        }
        return;
    }
    let chosen: Vec<&Case> = cases.iter().filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str()))).collect();
    println!("\nadversarial corpus: {} of {} cases, one process each", chosen.len(), cases.len());
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for case in chosen {
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| (case.run)()));
        let row = match result {
            Ok(measured) => {
                let mut problems = Vec::new();
                if measured.seconds > case.max_seconds {
                    problems.push(format!("took {:.1} s of CPU, more than {} s", measured.seconds, case.max_seconds));
                }
                if measured.peak_mb > case.max_peak_mb {
                    problems.push(format!("peaked at {} MB, more than {} MB", measured.peak_mb, case.max_peak_mb));
                }
                let verdict = if problems.is_empty() { "ok".to_owned() } else { "FAILED".to_owned() };
                if !problems.is_empty() {
                    failures.push(format!("{}: {}", case.name, problems.join("; ")));
                }
                (verdict, measured.outcome, format!("{:.2}", measured.seconds), measured.peak_mb.to_string())
            }
            Err(panic) => {
                let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
                let message = message.unwrap_or_else(|| "panicked".to_owned());
                failures.push(format!("{}: {message}", case.name));
                ("FAILED".to_owned(), message.lines().next().unwrap_or_default().to_owned(), "-".to_owned(), "-".to_owned())
            }
        };
        println!("  {:<4} {} ({} s, {} MB)", row.0, case.name, row.2, row.3);
        rows.push((case, row));
    }

    println!("\n| case | outcome | CPU s | peak MB | bounds | |");
    println!("|---|---|---:|---:|---|---|");
    for (case, (verdict, outcome, seconds, peak)) in &rows {
        println!("| {} | {} | {seconds} | {peak} | {} s, {} MB | {verdict} |", case.name, outcome.replace('|', "/"), case.max_seconds, case.max_peak_mb);
    }
    println!("\n{} cases in {:.0} s, {} failed", rows.len(), started.elapsed().as_secs_f64(), failures.len());
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("FAILED {failure}");
        }
        std::process::exit(1);
    }
}
