//! `cargo bench -p web --bench class [-- N ...]`: grading a class of N distinct submissions
//! (default N = 19, 100, 300, 1,000), each `bugrank grade` in its own process, measured in
//! one run: seconds, executions, µs per execution, CPU use, peak memory, and the ratio of
//! the largest class's cost per execution to the smallest's.
//!
//! The class is built reproducibly from the interval-sets fixture cohort: submission `i` is
//! the cohort's module `i mod 19` with a custom section naming `i` appended, so no two
//! modules are byte-identical (nothing is shared through the compiled-module cache) while
//! every one behaves as its original. The roster puts them in two cohorts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[path = "../tests/adversarial/measure.rs"]
mod measure;

fn problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets")
}

/// Writes a class of `n` submissions and its roster into `dir`.
fn write_class(n: usize, dir: &Path) {
    let mut cohort: Vec<PathBuf> = std::fs::read_dir(problem().join("submissions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    cohort.sort();
    let modules: Vec<Vec<u8>> = cohort.iter().map(|p| std::fs::read(p).unwrap()).collect();
    std::fs::create_dir_all(dir.join("submissions")).unwrap();
    let mut roster = String::from("id,cohort\n");
    for i in 0..n {
        let id = format!("s{i:04}");
        let mut bytes = modules[i % modules.len()].clone();
        // A custom section (id 0): name "bugrank-class", payload the submission's number.
        let name = b"bugrank-class";
        let payload = i.to_string().into_bytes();
        bytes.push(0);
        bytes.push((1 + name.len() + payload.len()) as u8);
        bytes.push(name.len() as u8);
        bytes.extend_from_slice(name);
        bytes.extend_from_slice(&payload);
        std::fs::write(dir.join("submissions").join(format!("{id}.wasm")), bytes).unwrap();
        roster.push_str(&format!("{id},{}\n", if i % 2 == 0 { "quickcheck" } else { "hunit" }));
    }
    std::fs::write(dir.join("roster.csv"), roster).unwrap();
}

struct Row {
    n: usize,
    process: measure::Process,
    executions: u64,
    suite: usize,
}

fn main() {
    let mut sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![19, 100, 300, 1000];
    }
    let mut rows = Vec::new();
    for &n in &sizes {
        let dir = tempfile::tempdir().unwrap();
        write_class(n, dir.path());
        let mut command = Command::new(env!("CARGO_BIN_EXE_bugrank"));
        command
            .args(["grade", "--seed", "1", "--problem"])
            .arg(problem())
            .arg("--submissions")
            .arg(dir.path().join("submissions"))
            .arg("--roster")
            .arg(dir.path().join("roster.csv"))
            .arg("--out")
            .arg(dir.path().join("out"));
        let process = measure::measure(command, Duration::from_secs(3600));
        assert_eq!(process.exit_code, Some(0), "bugrank grade of {n} submissions fails");
        let analysis: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/analysis.json")).unwrap()).unwrap();
        let row = Row { n, process, executions: analysis["executions"].as_u64().unwrap(), suite: analysis["suite"].as_array().unwrap().len() };
        eprintln!("  N = {n}: {:.1} s", row.process.seconds);
        rows.push(row);
    }
    println!("\n| N | seconds | executions | suite | µs/execution | executions/test | CPU | user s | system s | peak MB |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let per_execution = |r: &Row| r.process.seconds / r.executions as f64 * 1e6;
    for r in &rows {
        let p = &r.process;
        println!(
            "| {} | {:.2} | {} | {} | {:.1} | {:.0} | {:.0} % | {:.1} | {:.1} | {} |",
            r.n,
            p.seconds,
            r.executions,
            r.suite,
            per_execution(r),
            r.executions as f64 / r.suite as f64,
            (p.user_seconds + p.system_seconds) / p.seconds * 100.0,
            p.user_seconds,
            p.system_seconds,
            p.peak_mb
        );
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        println!(
            "\nN = {} against N = {}: {:.2}x the time per execution, {:.1}x the wall time",
            last.n,
            first.n,
            per_execution(last) / per_execution(first),
            last.process.seconds / first.process.seconds
        );
    }
}
