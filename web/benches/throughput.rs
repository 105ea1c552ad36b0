//! `cargo bench -p web --bench throughput`: how fast programs run, measured in one run
//! against baselines on the same machine.
//!
//! 1. Sandboxed executions per second of the interval-sets reference on generated inputs,
//!    on one thread and on every core.
//! 2. The same program compiled natively and spawned as one process per input: the
//!    baseline a grading script would use.
//! 3. The whole interval-sets fixture analysis (seed 1), wall time.
//!
//! Figures are printed as absolute numbers and as ratios to the baseline of this run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use course::problem_dir::ProblemDir;
use grader::{ChoiceSource, Executor};
use sandbox::{Limits, Sandbox};
use web::cli::grade::{GradeArgs, run_grade};

/// Each throughput figure is measured over at least this long.
const MEASURE_FOR: Duration = Duration::from_secs(3);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets")
}

fn main() {
    let sandbox = Sandbox::new().unwrap();
    let problem = ProblemDir::load(&sandbox, &toolchain::Builder::new(None), &fixtures()).unwrap();
    let executor = problem.executor(&sandbox, []);
    let inputs: Vec<Vec<u8>> = (0..1000).map(|i| executor.generate(ChoiceSource::for_random_test(1, i)).0.unwrap()).collect();
    let limits = Limits { fuel: 100_000_000, ..problem.run_limits() };

    let per_run = |threads: usize| {
        let started = Instant::now();
        let mut runs = 0u64;
        while started.elapsed() < MEASURE_FOR {
            std::thread::scope(|scope| {
                for t in 0..threads {
                    let (sandbox, problem, inputs) = (&sandbox, &problem, &inputs);
                    scope.spawn(move || {
                        for input in inputs.iter().skip(t).step_by(threads) {
                            let run = sandbox.run(&problem.reference, input, &limits).unwrap();
                            assert!(run.outcome.is_success());
                        }
                    });
                }
            });
            runs += inputs.len() as u64;
        }
        started.elapsed().as_secs_f64() / runs as f64
    };
    let empty = {
        let wat = br#"(module (memory (export "memory") 1) (func (export "_start")))"#;
        let program = sandbox.load("empty.wat", wat, sandbox::Role::Answer).unwrap();
        let started = Instant::now();
        let mut runs = 0u64;
        while started.elapsed() < MEASURE_FOR {
            sandbox.run(&program, b"", &limits).unwrap();
            runs += 1;
        }
        started.elapsed().as_secs_f64() / runs as f64
    };
    let fuel = sandbox.run(&problem.reference, &inputs[500], &limits).unwrap().fuel_used;
    let one = per_run(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let all = per_run(cores);

    let native = native_per_input(&inputs);

    let analyse = |tools: &course::Tools| {
        let args = GradeArgs { roster: Some(fixtures().join("roster.csv")), ..GradeArgs::new(fixtures(), fixtures().join("submissions")) };
        let started = Instant::now();
        let graded = run_grade(tools, &args).unwrap();
        let elapsed = started.elapsed().as_secs_f64();
        eprintln!(
            "  analysis: {} tests generated, {} executions, suite of {}",
            graded.analysis.tests_generated,
            graded.analysis.executions,
            graded.analysis.suite.len()
        );
        elapsed
    };
    // Cold: a new sandbox compiles all 21 modules first, as `bugrank grade` does.
    let tools = |sandbox: Sandbox| course::Tools { sandbox, builder: toolchain::Builder::new(None) };
    let cold = analyse(&tools(Sandbox::new().unwrap()));
    let warm = tools(sandbox);
    let mut times: Vec<f64> = (0..3).map(|_| analyse(&warm)).collect();
    times.sort_by(f64::total_cmp);

    println!("empty command (sandbox overhead alone): {:.1} µs/run", empty * 1e6);
    println!("interval-sets reference, {} generated inputs (fuel on one: {fuel}):", inputs.len());
    println!("  sandbox, 1 thread:       {:8.1} µs/run  {:9.0} runs/s", one * 1e6, 1.0 / one);
    println!("  sandbox, {cores} threads:      {:8.1} µs/run  {:9.0} runs/s  ({:.2}x one thread)", all * 1e6, 1.0 / all, one / all);
    println!("  native process per input: {:6.1} µs/run  {:9.0} runs/s", native * 1e6, 1.0 / native);
    println!("  sandbox (1 thread) vs process per input: {:.0}x faster", native / one);
    println!("whole fixture analysis (seed 1), modules compiled: {:.2} s (median of 3)", times[1]);
    println!("whole fixture analysis (seed 1), compiling 21 modules first: {cold:.2} s");
}

/// Compiles the reference natively with rustc and spawns it once per input.
fn native_per_input(inputs: &[Vec<u8>]) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("reference");
    let status = Command::new("rustc")
        .args(["--edition", "2021", "-C", "opt-level=3", "-o"])
        .arg(&binary)
        .arg(fixtures().join("reference.rs"))
        .status()
        .expect("rustc runs");
    assert!(status.success(), "the reference compiles natively");
    let started = Instant::now();
    let mut runs = 0u64;
    while started.elapsed() < MEASURE_FOR {
        for input in inputs.iter().take(200) {
            let mut child = Command::new(&binary).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
            child.stdin.take().unwrap().write_all(input).unwrap();
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success());
            runs += 1;
        }
    }
    started.elapsed().as_secs_f64() / runs as f64
}
