//! `cargo bench -p sandbox --bench compile`: what the function cache (`compile.rs`) saves
//! when a class's modules are compiled, measured in one run on the fixture cohorts' 55
//! modules (Rust and C answers of three problems, each a distinct program):
//!
//! - alone: each module loaded by a sandbox of its own, so nothing compiled before helps
//!   (the cost without a function cache);
//! - together: all of them loaded by one sandbox in turn, each finding the functions that
//!   the modules before it share with it (a class of distinct programs);
//! - again: the same modules with other bytes (a custom section appended) loaded by that
//!   sandbox, every function found compiled (copies of one program, as in `web`'s `class`
//!   bench: an upper bound of the gain, not what a real class gets).
//!
//! - checked: the modules checked without compiling (`Sandbox::check`, as uploads are).
//!
//! Loads are one after another (each compile uses every core); sandboxes are created
//! outside the timed part.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sandbox::{Role, Sandbox};

fn fixture_modules() -> Vec<(String, Vec<u8>)> {
    let problems = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&problems)
        .unwrap()
        .flat_map(|problem| std::fs::read_dir(problem.unwrap().path().join("submissions")).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "wasm"))
        .collect();
    paths.sort();
    paths.iter().map(|p| (format!("{}.wasm", p.display()), std::fs::read(p).unwrap())).collect()
}

fn timed(load: impl FnOnce()) -> Duration {
    let start = Instant::now();
    load();
    start.elapsed()
}

fn main() {
    let modules = fixture_modules();
    let alone: Duration = modules
        .iter()
        .map(|(name, bytes)| {
            let sandbox = Sandbox::new().unwrap();
            timed(|| drop(sandbox.load(name, bytes, Role::Answer).unwrap()))
        })
        .sum();
    let sandbox = Sandbox::new().unwrap();
    let together = timed(|| {
        for (name, bytes) in &modules {
            sandbox.load(name, bytes, Role::Answer).unwrap();
        }
    });
    let again = timed(|| {
        for (name, bytes) in &modules {
            // A custom section (id 0) named "bench": other bytes, the same program.
            let mut other = bytes.clone();
            other.extend_from_slice(&[0, 6, 5, b'b', b'e', b'n', b'c', b'h']);
            sandbox.load(name, &other, Role::Answer).unwrap();
        }
    });
    let checked = timed(|| {
        for (name, bytes) in &modules {
            sandbox.check(name, bytes, Role::Answer).unwrap();
        }
    });
    let n = modules.len();
    println!("{n} distinct modules, {:.1} MB", modules.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6);
    println!("{:<10} {:>9} {:>12} {:>9}", "loads", "seconds", "ms / module", "vs alone");
    for (what, time) in [("alone", alone), ("together", together), ("again", again), ("checked", checked)] {
        let ms = time.as_secs_f64() * 1e3 / n as f64;
        println!("{what:<10} {:>9.2} {ms:>12.1} {:>8.2}x", time.as_secs_f64(), alone.as_secs_f64() / time.as_secs_f64());
    }
}
