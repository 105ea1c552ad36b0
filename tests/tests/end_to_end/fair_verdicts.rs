//! Fair verdicts on the cryptarithm problem: correct programs written independently of the
//! reference (fixtures/experiments/cryptarithm-solvers: four programs, three correct
//! searches that prune differently and one exhaustive and too slow, graded beside the
//! cohort) never fail for time, the brute force the statement calls too slow still fails
//! on large puzzles, and a checker's reason for rejecting an output reaches the student's
//! bug list.

use std::path::PathBuf;

use end_to_end::{Written, grade_without_roster, parse_args, root, sandbox, tools};
use grader::FailureKind;
use web::cli::bugs::{BugsArgs, run_bugs};

fn problem() -> PathBuf {
    root().join("fixtures/problems/cryptarithm")
}

/// The cryptarithm cohort and, beside it, the four independent solvers.
fn cohort_with_solvers() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for source in [problem().join("submissions"), root().join("fixtures/experiments/cryptarithm-solvers")] {
        for entry in std::fs::read_dir(source).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wasm") {
                std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    dir
}

/// One analysis for every test of this file: the cryptarithm search costs seconds.
fn graded() -> &'static (tempfile::TempDir, Written) {
    static GRADED: std::sync::OnceLock<(tempfile::TempDir, Written)> = std::sync::OnceLock::new();
    GRADED.get_or_init(|| {
        let submissions = cohort_with_solvers();
        let dir = submissions.path().display().to_string();
        let problem = problem().display().to_string();
        let written = grade_without_roster(&[("--problem", &problem), ("--submissions", &dir), ("--stable-after", "3000")]);
        (submissions, written)
    })
}

fn distinct_letters(puzzle: &str) -> usize {
    let mut letters: Vec<char> = puzzle.chars().filter(char::is_ascii_lowercase).collect();
    letters.sort_unstable();
    letters.dedup();
    letters.len()
}

#[test]
fn correct_solvers_that_prune_unlike_the_reference_pass_every_test() {
    let analysis = &graded().1.graded.analysis;
    for id in ["weights", "columns", "column_weights"] {
        let answer = analysis.answers.iter().find(|a| a.id == id).unwrap();
        assert!(answer.failed.is_empty(), "{id} is correct, yet fails {:?}", answer.failures);
        assert_eq!(answer.percent, 100.0);
    }
}

#[test]
fn the_brute_force_over_every_assignment_fails_only_for_time() {
    let analysis = &graded().1.graded.analysis;
    let brute = analysis.answers.iter().find(|a| a.id == "permutations").unwrap();
    assert!(!brute.failed.is_empty(), "the statement calls it too slow");
    for test in &brute.failed {
        assert_eq!(brute.outcomes[test], FailureKind::Timeout, "{test}: it is right, only slow");
        let budget = analysis.suite.iter().find(|t| &t.id == test).unwrap().budget;
        assert!(brute.failures[test].fuel_used >= budget.fair, "{test}: it ran out of its fair budget {budget:?}");
    }
}

/// How `module` of the solvers does on `puzzle` with the fair budget there.
fn fair_run(module: &str, puzzle: &str) -> grader::RunOutcome {
    let sandbox = sandbox();
    let dir = course::problem_dir::ProblemDir::load(sandbox, &end_to_end::tools().builder, &problem()).unwrap();
    let path = root().join("fixtures/experiments/cryptarithm-solvers").join(module);
    let program = sandbox.load(module, &std::fs::read(path).unwrap(), sandbox::Role::Answer).unwrap();
    let problem = dir.problem();
    let executor = dir.executor(sandbox, [&program]);
    let calibration = grader::calibrate(&problem, &executor);
    use grader::Executor;
    let reference = executor.run(0, puzzle.as_bytes(), problem.fuel.reference);
    let budget = problem.fuel.budget(reference.fuel_used, calibration.class(puzzle.len()));
    executor.run(1, puzzle.as_bytes(), budget.fair).outcome
}

#[test]
fn on_a_large_puzzle_the_brute_force_runs_out_of_time_where_a_pruning_search_does_not() {
    // Ten letters and no solution (two five-digit numbers never add up to two digits),
    // which a search that adds up columns sees early and the brute force only after all
    // 10! assignments.
    let puzzle = "abcde+fghij=ja";
    assert_eq!(distinct_letters(puzzle), 10);
    assert_eq!(fair_run("permutations.wasm", puzzle), grader::RunOutcome::Timeout);
    for solver in ["weights.wasm", "columns.wasm", "column_weights.wasm"] {
        assert_eq!(fair_run(solver, puzzle), grader::RunOutcome::Success, "{solver}");
    }
}

#[test]
fn every_failed_run_records_its_budget_and_fuel_in_the_analysis() {
    let json: serde_json::Value = serde_json::from_str(&graded().1.files["analysis.json"]).unwrap();
    assert!(json["calibration"]["classes"].as_array().unwrap().len() > 1, "inputs of several sizes");
    for test in json["suite"].as_array().unwrap() {
        let budget = &test["budget"];
        assert!(budget["fair"].as_u64().unwrap() >= budget["quick"].as_u64().unwrap(), "{test}");
    }
    let a07 = json["answers"].as_array().unwrap().iter().find(|a| a["id"] == "a07").unwrap();
    assert!(a07["counts"]["timeout"].as_u64().unwrap() > 0, "a07 tries every assignment: {a07}");
    let failure = a07["failures"].as_object().unwrap().values().next().unwrap();
    assert!(failure["fuel_used"].as_u64().is_some(), "{failure}");
}

#[test]
fn a_checkers_reason_for_rejecting_an_output_reaches_the_bug_list() {
    let (submissions, written) = graded();
    let dir = tempfile::tempdir().unwrap();
    let analysis = dir.path().join("analysis.json");
    std::fs::write(&analysis, &written.files["analysis.json"]).unwrap();
    let argv = [
        "bugs",
        "--problem",
        &problem().display().to_string(),
        "--submissions",
        &submissions.path().display().to_string(),
        "--analysis",
        &analysis.display().to_string(),
        "--answer",
        "a09",
    ];
    let lists = run_bugs(tools(), &parse_args::<BugsArgs, _>(&argv)).unwrap();
    let markdown = present::bug_list_markdown(&lists[0]);
    assert!(markdown.contains("Why it is wrong: malformed output line"), "{markdown}");
    let a09 = written.graded.analysis.answers.iter().find(|a| a.id == "a09").unwrap();
    let reason = a09.failures.values().find_map(|f| f.failure.reason.clone()).expect("a reason is recorded");
    assert!(reason.starts_with("malformed output line"), "{reason}");
}
