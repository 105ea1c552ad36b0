//! `cargo bench -p web --bench languages [-- INPUTS]`: the same cohort in Rust, C and
//! Python, measured in one run on the same inputs.
//!
//! The interval-sets cohort (`fixtures/problems/interval-sets`) exists as 17 Rust answers
//! and 2 C ones (`submissions/`), as 19 C answers (`submissions-c/`) and as 19 Python
//! answers (`submissions-python/`), the same bugs in each; its reference as
//! `reference.wasm` (Rust) and `reference.py`. On INPUTS generated inputs (default 1,000,
//! a fixed seed), every program runs on every input, one run at a time on one thread:
//!
//! - µs and fuel per execution, by language (answers and references);
//! - the fuel of each Python answer over its Rust twin's, input by input (minimum, median,
//!   maximum over the runs both finish), and of `reference.py` over `reference.wasm`:
//!   what `course::executor::PYTHON_FUEL_FACTOR` rests on;
//! - Python's start-up: without the snapshot (instantiating bugrank's CPython and
//!   initialising it, as every run would without one: wasmtime and wasmtime-wasi alone,
//!   the standard library preopened; `bugrank_init` also imports the modules it keeps
//!   ready and reads the library into memory) and with it (a run of an empty program, in a
//!   sandbox that has run nothing else).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sandbox::{Choices, Limits, Program, Role, Sandbox};
use toolchain::{Builder, Built, Language, Source};

fn problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets")
}

/// The files of `dir` ending in `.extension`, sorted.
fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == extension)).collect();
    found.sort();
    found
}

/// Random choices (splitmix64), the size growing with the test's number, as a search's.
struct Random {
    state: u64,
    size: u32,
}

impl Choices for Random {
    fn choice(&mut self, max: u64) -> Option<u64> {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Some(if max == u64::MAX { z } else { z % (max + 1) })
    }
    fn size(&self) -> u32 {
        self.size
    }
}

/// One program's runs on every input: the time and fuel of each run that finished with
/// status 0 (`None` for the others, a crash or a time-out: their cost is the limit's).
struct Runs {
    name: String,
    fuel: Vec<Option<u64>>,
    time: Vec<Option<Duration>>,
}

/// Fuel enough for every run of the cohort but the endless ones.
const RUN_FUEL: u64 = 2_000_000_000;

fn run_all(sandbox: &Sandbox, name: String, program: &Program, inputs: &[Vec<u8>]) -> Runs {
    let limits = Limits { fuel: RUN_FUEL, ..Limits::default() };
    let (fuel, time) = inputs
        .iter()
        .map(|input| {
            let start = Instant::now();
            let run = sandbox.run(program, input, &limits).unwrap();
            let time = start.elapsed();
            if run.outcome.is_success() { (Some(run.fuel_used), Some(time)) } else { (None, None) }
        })
        .unzip();
    Runs { name, fuel, time }
}

/// The answer's number in its file name (`a07.py` is 7).
fn number(name: &str) -> String {
    name.trim_start_matches('a').split('.').next().unwrap().to_owned()
}

fn stem(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn main() {
    let count: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1000);
    // First, in a sandbox of its own: its warm slot has run nothing else.
    start_up(&Sandbox::new().unwrap());
    let sandbox = Sandbox::new().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let builder = Builder::new(Some(cache.path().to_owned()));
    let dir = problem();

    let generator = sandbox.load("generator.wasm", &std::fs::read(dir.join("generator.wasm")).unwrap(), Role::Generator).unwrap();
    let inputs: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let choices = Random { state: 1 + i, size: (i * 100 / count) as u32 };
            sandbox.generate(&generator, choices, &Limits::default()).unwrap().0.stdout
        })
        .collect();

    let python = course::load::python(&sandbox).unwrap();
    let load_python = |path: &Path| sandbox.load_interpreted(&python, &stem(path), &std::fs::read(path).unwrap()).unwrap().unwrap();
    let load_module = |path: &Path| sandbox.load(&stem(path), &std::fs::read(path).unwrap(), Role::Answer).unwrap();
    let build_c = |path: &Path| {
        let source = Source { language: Language::C, files: vec![(stem(path), std::fs::read(path).unwrap())] };
        match builder.build(&source).unwrap() {
            Built::Module { wasm, .. } => sandbox.load(&stem(path), &wasm, Role::Answer).unwrap(),
            Built::Failed { message, .. } => panic!("{}: {message}", path.display()),
        }
    };

    let rust: Vec<Runs> =
        files(&dir.join("submissions"), "rs").iter().map(|rs| run_all(&sandbox, stem(rs), &load_module(&rs.with_extension("wasm")), &inputs)).collect();
    let c: Vec<Runs> = files(&dir.join("submissions-c"), "c").iter().map(|path| run_all(&sandbox, stem(path), &build_c(path), &inputs)).collect();
    let py: Vec<Runs> = files(&dir.join("submissions-python"), "py").iter().map(|path| run_all(&sandbox, stem(path), &load_python(path), &inputs)).collect();
    let reference_rs = run_all(&sandbox, "reference.wasm".into(), &load_module(&dir.join("reference.wasm")), &inputs);
    let reference_py = run_all(&sandbox, "reference.py".into(), &load_python(&dir.join("reference.py")), &inputs);

    println!("{count} inputs of interval sets, every program on every input, one thread; the runs that finish");
    println!("(a crash or a time-out costs its limit, not the program: left out)\n");
    println!("{:<22} {:>9} {:>11} {:>14} {:>10}", "programs", "runs", "µs / run", "fuel / run", "vs Rust");
    let summary = |label: &str, runs: &[&Runs]| -> f64 {
        let finished: Vec<u64> = runs.iter().flat_map(|r| r.fuel.iter().flatten().copied()).collect();
        let time: Duration = runs.iter().flat_map(|r| r.time.iter().flatten()).sum();
        let executions = finished.len().max(1);
        let per_run = time.as_secs_f64() * 1e6 / executions as f64;
        let fuel = finished.iter().sum::<u64>() as f64 / executions as f64;
        print!("{label:<22} {executions:>9} {per_run:>11.1} {fuel:>14.0}");
        per_run
    };
    let rust_per_run = summary("Rust answers", &rust.iter().collect::<Vec<_>>());
    println!();
    for (label, runs) in [("C answers", c.iter().collect::<Vec<_>>()), ("Python answers", py.iter().collect())] {
        let per_run = summary(label, &runs);
        println!(" {:>9.2}×", per_run / rust_per_run);
    }
    summary("reference.wasm (Rust)", &[&reference_rs]);
    println!();
    let per_run = summary("reference.py", &[&reference_py]);
    println!(" {:>9.2}×", per_run / rust_per_run);

    // Fuel ratios, input by input, of each Python answer over its Rust (or C) twin.
    println!("\nPython's fuel over its twin's, on the inputs both finish:");
    let ratio_line = |label: &str, python: &Runs, twin: &Runs| {
        let mut ratios: Vec<f64> = python.fuel.iter().zip(&twin.fuel).filter_map(|(p, t)| Some((*p)? as f64 / (*t)? as f64)).collect();
        ratios.sort_by(f64::total_cmp);
        if ratios.is_empty() {
            println!("  {label:<28} no input finished by both");
            return None;
        }
        let (min, median, max) = (ratios[0], ratios[ratios.len() / 2], ratios[ratios.len() - 1]);
        println!("  {label:<28} {:>6} inputs  min {min:>6.1}  median {median:>6.1}  max {max:>6.1}", ratios.len());
        Some(max)
    };
    let twins = rust.iter().chain(c.iter().filter(|r| ["09", "18"].contains(&number(&r.name).as_str())));
    let mut worst: f64 = 0.0;
    for twin in twins {
        if let Some(python) = py.iter().find(|p| number(&p.name) == number(&twin.name))
            && let Some(max) = ratio_line(&format!("{} / {}", python.name, twin.name), python, twin)
        {
            worst = worst.max(max);
        }
    }
    if let Some(max) = ratio_line("reference.py / reference.wasm", &reference_py, &reference_rs) {
        worst = worst.max(max);
    }
    println!("  worst ratio {worst:.1}; PYTHON_FUEL_FACTOR is {}", course::executor::PYTHON_FUEL_FACTOR);
}

/// Python's start-up without the snapshot (wasmtime alone: instantiate, `_initialize`,
/// `bugrank_init`, the library preopened) and with it (the sandbox's run of `pass`).
fn start_up(sandbox: &Sandbox) {
    use wasmtime::{Config, Engine, Linker, Module, Store};
    use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

    const COLD: u32 = 20;
    const WARM: u32 = 2000;
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, toolchain::python::MODULE).unwrap();
    let library = tempfile::tempdir().unwrap();
    std::fs::write(library.path().join(toolchain::python::LIBRARY_FILE), toolchain::python::LIBRARY).unwrap();
    let mut linker: Linker<wasmtime_wasi::p1::WasiP1Ctx> = Linker::new(&engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |ctx| ctx).unwrap();
    linker.func_wrap("bugrank", "choice", |_: i64| -> i64 { 0 }).unwrap();
    linker.func_wrap("bugrank", "size", || -> i32 { 0 }).unwrap();
    let mut cold_fuel = 0;
    let start = Instant::now();
    for _ in 0..COLD {
        let mut wasi = WasiCtxBuilder::new();
        wasi.allow_blocking_current_thread(true);
        wasi.preopened_dir(library.path(), toolchain::python::LIBRARY_DIR, FsPerms::ReadOnly).unwrap();
        let mut store = Store::new(&engine, wasi.build_p1());
        store.set_fuel(u64::MAX).unwrap();
        let instance = linker.instantiate(&mut store, &module).unwrap();
        instance.get_typed_func::<(), ()>(&mut store, "_initialize").unwrap().call(&mut store, ()).unwrap();
        let status = instance.get_typed_func::<(), i32>(&mut store, "bugrank_init").unwrap().call(&mut store, ()).unwrap();
        assert_eq!(status, 0);
        cold_fuel = u64::MAX - store.get_fuel().unwrap();
    }
    let cold = start.elapsed() / COLD;

    let python = course::load::python(sandbox).unwrap();
    let empty = sandbox.load_interpreted(&python, "empty.py", b"pass\n").unwrap().unwrap();
    let mut warm_fuel = 0;
    let start = Instant::now();
    for _ in 0..WARM {
        let run = sandbox.run(&empty, b"", &Limits::default()).unwrap();
        assert!(run.outcome.is_success());
        warm_fuel = run.fuel_used;
    }
    let warm = start.elapsed() / WARM;
    println!("Python's start-up (an empty program):");
    println!("  without the snapshot  {:>10.1} µs  {cold_fuel:>12} fuel  ({COLD} starts of bugrank_init)", cold.as_secs_f64() * 1e6);
    println!("  with the snapshot     {:>10.1} µs  {warm_fuel:>12} fuel  ({WARM} runs)", warm.as_secs_f64() * 1e6);
    println!("  ratio                 {:>10.0}×\n", cold.as_secs_f64() / warm.as_secs_f64());
}
