//! The `bugrank` binary as a user runs it.

use std::path::Path;
use std::process::Command;

fn fixture(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets").join(path).display().to_string()
}

fn bugrank(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bugrank")).args(args).output().expect("bugrank runs")
}

fn grade_with_cache(cache: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bugrank"))
        .env("BUGRANK_CACHE", cache)
        .args(["grade", "--problem", &fixture(""), "--submissions", &fixture("submissions"), "--seed", "1", "--stable-after", "100", "--out"])
        .arg(out)
        .output()
        .expect("bugrank runs")
}

#[test]
fn grading_again_loads_the_compiled_modules_kept_by_the_first_run_with_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let first = grade_with_cache(&cache, &dir.path().join("first"));
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let compiled = cache.join("compiled");
    let kept = |dir: &Path| std::fs::read_dir(dir).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "cwasm")).count();
    assert_eq!(kept(&compiled), 21, "19 answers, the reference and the generator");
    use std::os::unix::fs::PermissionsExt;
    for dir in [&cache, &compiled, &cache.join("builds")] {
        assert_eq!(std::fs::metadata(dir).unwrap().permissions().mode() & 0o777, 0o700, "{} is this user's alone", dir.display());
    }
    let modified = |dir: &Path| std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().metadata().unwrap().modified().unwrap()).max();
    let before = modified(&compiled);
    let second = grade_with_cache(&cache, &dir.path().join("second"));
    assert!(second.status.success());
    assert_eq!(modified(&compiled), before, "nothing compiled again");
    let analysis = |run: &str| std::fs::read(dir.path().join(run).join("analysis.json")).unwrap();
    assert_eq!(analysis("first"), analysis("second"));
}

#[test]
fn a_cache_directory_others_may_write_to_is_not_used_and_the_run_says_why() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("shared");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = grade_with_cache(&cache, &dir.path().join("out"));
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not keeping compiled modules in") && stderr.contains("others may write to it (mode 777)"), "{stderr}");
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0, "nothing written there");
}

#[test]
fn grade_prints_the_suite_and_ranking_and_writes_its_files() {
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().display().to_string();
    let output = bugrank(&[
        "grade",
        "--problem",
        &fixture(""),
        "--submissions",
        &fixture("submissions"),
        "--roster",
        &fixture("roster.csv"),
        "--seed",
        "1",
        "--out",
        &out_dir,
        "--stable-after",
        "300",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("interval-sets: "), "{stdout}");
    // One line per test, its input on one line (the newline escaped), the columns kept.
    let analysis: serde_json::Value = serde_json::from_slice(&std::fs::read(out.path().join("analysis.json")).unwrap()).unwrap();
    let suite: Vec<&str> = stdout.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(suite.len(), analysis["suite"].as_array().unwrap().len(), "{stdout}");
    assert!(suite[0].starts_with("  t01  \"member 0 []\" "), "{stdout}");
    let fails_at: Vec<usize> = suite.iter().map(|l| l[..l.find(" fails ").expect("each line ends with the failing count")].chars().count()).collect();
    assert!(fails_at.iter().all(|&at| at == fails_at[0]), "the `fails` column lines up: {stdout}");
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
    let output = bugrank(&["stability", "--problem", &fixture(""), "--submissions", &fixture("submissions"), "--runs", "2", "--stable-after", "300"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let labels: Vec<&str> = stdout.lines().map(|l| l.get(..32).unwrap_or(l).trim_end()).collect();
    assert_eq!(labels[..5], ["Number of tests (stable after)", "Sizes of test suite", "Avg std dev of ranks", "Max std dev of ranks", "Correctness order"]);
    assert!(stdout.contains("over 2 seeds"), "{stdout}");
}

#[test]
fn without_compilers_each_source_is_rejected_with_what_installs_it_and_the_modules_are_graded() {
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("batch");
    std::fs::create_dir(&batch).unwrap();
    for module in ["a01.wasm", "a18.wasm"] {
        std::fs::copy(fixture("submissions").to_owned() + "/" + module, batch.join(module)).unwrap();
    }
    std::fs::write(batch.join("c01.c"), "int main(void) { return 0; }\n").unwrap();
    std::fs::write(batch.join("r01.rs"), "fn main() {}\n").unwrap();
    // An empty PATH: no compiler is found (nor bubblewrap).
    let output = Command::new(env!("CARGO_BIN_EXE_bugrank"))
        .env("PATH", dir.path())
        .env("BUGRANK_CACHE", "off")
        .args(["grade", "--problem", &fixture(""), "--submissions"])
        .arg(&batch)
        .args(["--seed", "1", "--stable-after", "100", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("rejected: c01.c: cannot compile C here: `clang` is not installed (apt-get install clang lld"), "{stdout}");
    assert!(
        stdout.contains("rejected: r01.rs: cannot compile Rust here: `rustc` is not installed (install rustup, then: rustup target add wasm32-wasip1)"),
        "{stdout}"
    );
    let ranks = stdout.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|w| w.len() > 1 && w[0].parse::<usize>().is_ok());
    let mut ranked: Vec<&str> = ranks.map(|w| w[1]).collect();
    ranked.sort();
    assert_eq!(ranked, ["a01", "a18"], "the modules are graded: {stdout}");
}

#[test]
fn a_users_error_is_one_line_of_words_without_a_backtrace_whatever_rust_backtrace_says() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-problem");
    let output = Command::new(env!("CARGO_BIN_EXE_bugrank"))
        .env("RUST_BACKTRACE", "1")
        .args(["grade", "--problem"])
        .arg(&missing)
        .args(["--submissions", &fixture("submissions"), "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("no-such-problem"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("backtrace") && stderr.trim().lines().count() == 1, "{stderr}");
}

#[test]
fn a_problem_named_in_its_toml_is_so_named_in_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("folder-name");
    std::fs::create_dir(&problem).unwrap();
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, problem.join(path.file_name().unwrap())).unwrap();
        }
    }
    let toml = std::fs::read_to_string(problem.join("problem.toml")).unwrap();
    std::fs::write(problem.join("problem.toml"), format!("name = \"interval sets (API)\"\n{toml}")).unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_bugrank"))
        .env("BUGRANK_CACHE", "off")
        .args(["grade", "--problem"])
        .arg(&problem)
        .args(["--submissions", &fixture("submissions"), "--stable-after", "100", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let analysis: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("analysis.json")).unwrap()).unwrap();
    assert_eq!(analysis["problem"], "interval sets (API)");
}
