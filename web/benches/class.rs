//! `cargo bench -p web --bench class [-- [--python | --functions | --functions-c] N ...]`: grading a class
//! of N distinct submissions (default N = 19, 100, 300, 1,000), each `bugrank grade` in its
//! own process, with the problem's default settings, measured in one run: seconds,
//! executions, µs per execution, CPU use, peak memory, and the ratio of the largest class's
//! cost per execution to the smallest's. With `--python`, the class is the interval-sets
//! Python cohort's (whole programs, run by bugrank's CPython); with `--functions`, the
//! function-level Python class `fixtures/cohorts/search`'s (first-year hand-ins of
//! `search(x, seq)`, each run by the problem's harness); with `--functions-c`, the same
//! class in C (`fixtures/cohorts/search-c`: each hand-in translated, the same inputs).
//!
//! The class is built reproducibly from the fixture cohorts (`class_of.rs`).
//!
//! Memory at class scale: an analysis holds every module of its batch compiled (about 280 KiB of machine code for a
//! fixture module, mapped from the compiled-module cache), one warm instance slot per module (`POOL_SLOTS` = 2,048
//! in `sandbox/src/engine.rs`; each keeps the pages its program touched, at most `KEEP_RESIDENT_BYTES` = 2 MiB), and
//! one verdict per program for every distinct input evaluated. So memory grows linearly with the class, about 0.35 MB
//! a submission: this bench measured 28 MB for 19, 133 MB for 300 (an earlier run) and 386 MB for 1,000 (warm;
//! 431 MB cold, while compiling; 2026-11-26, 04f0785). A class whose bugs need long inputs fills the search's caches
//! up to their bound (`MAX_CACHE_BYTES` in `grader/src/search/evaluate.rs`).
//!
//! Each class is graded twice: cold, with an empty compiled-module cache (every module is
//! compiled, though the function cache shares the compiled functions of copies of one
//! program, which distinct programs share only in part: see `sandbox`'s `compile` bench),
//! then warm, as a second grading of the same class is (every module loaded compiled).
//! A function-level Python class is graded a third time, warm, with every hand-in run
//! whole (`--whole-runs`: none prepared once for all its runs), the baseline of what
//! preparing saves; its suite and every hand-in's failed tests and points must be the
//! same (its fuel counts, and so its bytes, differ by the few calls the split adds).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[path = "support/class_of.rs"]
mod class_of;
#[path = "../tests/adversarial/measure.rs"]
#[allow(dead_code)] // CPU times: for the adversarial corpus
mod measure;

/// The class a bench run grades.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Modules,
    Python,
    Functions,
    FunctionsC,
}

/// Writes a class of `n` submissions (modules, or Python sources) and its roster into `dir`.
fn write_class(n: usize, kind: Kind, dir: &Path) {
    let (modules, roster) = match kind {
        Kind::Modules => class_of::class(n),
        Kind::Python => class_of::python_class(n),
        Kind::Functions => class_of::function_class(n),
        Kind::FunctionsC => class_of::function_c_class(n),
    };
    std::fs::create_dir_all(dir.join("submissions")).unwrap();
    for (file, bytes) in modules {
        std::fs::write(dir.join("submissions").join(file), bytes).unwrap();
    }
    std::fs::write(dir.join("roster.csv"), roster).unwrap();
}

struct Row {
    n: usize,
    cache: &'static str,
    process: measure::Process,
    executions: u64,
    suite: usize,
}

fn main() {
    // (A measured command is started by this binary, as a small wrapper.)
    measure::wrap_if_asked();
    let flag = |name: &str| std::env::args().any(|a| a == name);
    let kind = if flag("--functions-c") {
        Kind::FunctionsC
    } else if flag("--functions") {
        Kind::Functions
    } else if flag("--python") {
        Kind::Python
    } else {
        Kind::Modules
    };
    let problem = match kind {
        Kind::Functions => class_of::functions_problem(),
        Kind::FunctionsC => class_of::functions_c_problem(),
        Kind::Modules | Kind::Python => class_of::problem(),
    };
    let mut sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![19, 100, 300, 1000];
    }
    let mut rows = Vec::new();
    for &n in &sizes {
        let dir = tempfile::tempdir().unwrap();
        write_class(n, kind, dir.path());
        let modes: &[&'static str] = if kind == Kind::Functions { &["cold", "warm", "whole"] } else { &["cold", "warm"] };
        for &cache in modes {
            let mut command = Command::new(env!("CARGO_BIN_EXE_bugrank"));
            command.arg("grade");
            if cache == "whole" {
                command.arg("--whole-runs");
            }
            command
                .env("BUGRANK_CACHE", dir.path().join("cache"))
                .args(["--seed", "1", "--problem"])
                .arg(&problem)
                .arg("--submissions")
                .arg(dir.path().join("submissions"))
                .arg("--roster")
                .arg(dir.path().join("roster.csv"))
                .arg("--out")
                .arg(dir.path().join(cache));
            let process = measure::measure(command, Duration::from_secs(3600));
            assert_eq!(process.exit_code, Some(0), "bugrank grade of {n} submissions fails");
            let analysis: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join(cache).join("analysis.json")).unwrap()).unwrap();
            let row = Row { n, cache, process, executions: analysis["executions"].as_u64().unwrap(), suite: analysis["suite"].as_array().unwrap().len() };
            eprintln!("  N = {n}, {cache}: {:.1} s", row.process.seconds);
            rows.push(row);
        }
        let same = std::fs::read(dir.path().join("cold/analysis.json")).unwrap() == std::fs::read(dir.path().join("warm/analysis.json")).unwrap();
        assert!(same, "the warm analysis of {n} differs from the cold one");
        if modes.contains(&"whole") {
            let grades = |cache: &str| -> serde_json::Value {
                let analysis: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(dir.path().join(cache).join("analysis.json")).unwrap()).unwrap();
                let suite: Vec<&serde_json::Value> = analysis["suite"].as_array().unwrap().iter().map(|t| &t["input"]).collect();
                let answers: Vec<serde_json::Value> =
                    analysis["answers"].as_array().unwrap().iter().map(|a| serde_json::json!([a["id"], a["failed"], a["points"]["points"]])).collect();
                serde_json::json!([suite, answers])
            };
            assert_eq!(grades("warm"), grades("whole"), "prepared runs grade the class of {n} as whole runs do");
        }
    }
    println!("\n| N | modules | seconds | executions | suite | µs/execution | µs of CPU/execution | executions/test | CPU | user s | system s | peak MB |");
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let per_execution = |r: &Row| r.process.seconds / r.executions as f64 * 1e6;
    for r in &rows {
        let p = &r.process;
        println!(
            "| {} | {} | {:.2} | {} | {} | {:.1} | {:.1} | {:.0} | {:.0} % | {:.1} | {:.1} | {} |",
            r.n,
            r.cache,
            p.seconds,
            r.executions,
            r.suite,
            per_execution(r),
            (p.user_seconds + p.system_seconds) / r.executions as f64 * 1e6,
            r.executions as f64 / r.suite as f64,
            (p.user_seconds + p.system_seconds) / p.seconds * 100.0,
            p.user_seconds,
            p.system_seconds,
            p.peak_mb
        );
    }
    for cache in ["cold", "warm"] {
        let of_cache: Vec<&Row> = rows.iter().filter(|r| r.cache == cache).collect();
        if let (Some(first), Some(last)) = (of_cache.first(), of_cache.last()) {
            println!(
                "\n{cache}: N = {} against N = {}: {:.2}x the time per execution, {:.1}x the wall time",
                last.n,
                first.n,
                per_execution(last) / per_execution(first),
                last.process.seconds / first.process.seconds
            );
        }
    }
}
