//! The `bugrank` binary as a user runs it.

use std::path::Path;
use std::process::Command;

fn fixture(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets").join(path).display().to_string()
}

fn bugrank(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bugrank")).args(args).output().expect("bugrank runs")
}

#[test]
fn grade_prints_the_suite_and_ranking_and_writes_its_files() {
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().display().to_string();
    let output = bugrank(&[
        "grade", "--problem", &fixture(""), "--submissions", &fixture("submissions"),
        "--roster", &fixture("roster.csv"), "--seed", "1", "--out", &out_dir, "--stable-after", "300",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("interval-sets: "), "{stdout}");
    assert!(stdout.contains("  t01  member 0 []"), "{stdout}");
    assert!(stdout.lines().any(|l| l.trim_start().starts_with("1  a18 ")), "a18 ranks first: {stdout}");
    for file in ["analysis.json", "scores.csv", "order.dot"] {
        assert!(out.path().join(file).is_file(), "{file} written");
    }
}

#[test]
fn a_missing_problem_directory_is_a_clear_error() {
    let output = bugrank(&["grade", "--problem", "/nonexistent/problem", "--submissions", &fixture("submissions")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot read /nonexistent/problem/problem.toml"), "{stderr}");
}

#[test]
fn stability_prints_the_papers_table() {
    let output = bugrank(&[
        "stability", "--problem", &fixture(""), "--submissions", &fixture("submissions"), "--runs", "2",
        "--stable-after", "300",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let labels: Vec<&str> = stdout.lines().map(|l| l.get(..32).unwrap_or(l).trim_end()).collect();
    assert_eq!(
        labels[..5],
        ["Number of tests (stable after)", "Sizes of test suite", "Avg std dev of ranks", "Max std dev of ranks", "Correctness order"]
    );
    assert!(stdout.contains("over 2 seeds"), "{stdout}");
}
