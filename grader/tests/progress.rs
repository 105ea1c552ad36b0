//! An analysis says where it is while it runs, shrinking included, and stops when asked.

use std::ops::ControlFlow;

use grader::{Answer, ChoiceSource, Execution, Executor, GraderError, Problem, Progress, RunOutcome, analyse};

/// Inputs are lists of numbers; program 1 is wrong on any list holding a number of 50 or
/// more: shrinking a random failing list down to `[50]` takes many candidates.
struct BigNumbers;

impl Executor for BigNumbers {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let mut numbers = Vec::new();
        while choices.choice(1) == Some(1) {
            numbers.push(choices.choice(1_000).unwrap_or(0).to_string());
        }
        (Ok(numbers.join(" ").into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let text = std::str::from_utf8(input).unwrap();
        let big = text.split_whitespace().any(|n| n.parse::<u64>().unwrap() >= 50);
        let printed = if program == 1 && big { "wrong" } else { "right" };
        Execution { outcome: RunOutcome::Success, stdout: printed.as_bytes().to_vec(), fuel_used: 1 }
    }
}

fn problem() -> Problem {
    let mut problem = Problem { name: "big numbers".into(), ..Problem::default() };
    problem.search.stable_after = 300;
    problem
}

fn answers() -> Vec<Answer> {
    vec![Answer { id: "a1".into(), cohort: None, program: 1, version: String::new() }]
}

#[test]
fn shrinking_reports_each_candidate_tried_and_the_tests_shrunk() {
    let mut seen: Vec<Progress> = Vec::new();
    let analysis = analyse(&problem(), &answers(), &BigNumbers, 1, &mut |p| {
        seen.push(*p);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(analysis.suite.len(), 1);
    assert_eq!(analysis.suite[0].input, "50");
    let shrinking: Vec<&Progress> = seen.iter().filter(|p| p.shrinking).collect();
    let candidates: Vec<u64> = shrinking.iter().map(|p| p.shrink_candidates).collect();
    assert!(candidates.len() > 5 && candidates.windows(2).all(|w| w[1] == w[0] + 1), "one report per candidate, counting up: {candidates:?}");
    assert!(shrinking[0].describe().starts_with("shrinking test 1: 0 candidates tried (at most 2000)"), "{}", shrinking[0].describe());
    assert_eq!(seen.last().unwrap().tests_shrunk, 1);
    assert!(!seen.last().unwrap().shrinking);
}

#[test]
fn a_cancel_during_shrinking_stops_the_analysis_there() {
    let mut after_cancel = 0;
    let result = analyse(&problem(), &answers(), &BigNumbers, 1, &mut |p| {
        if p.shrinking && p.shrink_candidates >= 3 {
            after_cancel += 1;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    assert!(matches!(result, Err(GraderError::Cancelled)), "{result:?}");
    assert_eq!(after_cancel, 1, "no candidate is tried once cancelled");
}

/// A generator that draws no choice at all: one input, always the same.
struct OneInput;

impl Executor for OneInput {
    fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        (Ok(b"42\n".to_vec()), choices)
    }

    fn run(&self, program: usize, _input: &[u8], _fuel: u64) -> Execution {
        let printed: &[u8] = if program == 1 { b"41\n" } else { b"42\n" };
        Execution { outcome: RunOutcome::Success, stdout: printed.to_vec(), fuel_used: 1 }
    }
}

#[test]
fn a_generator_that_never_draws_a_choice_ends_the_search_after_its_one_input_not_stable_after_copies() {
    let problem = Problem { name: "one input".into(), ..Problem::default() };
    assert_eq!(problem.search.stable_after, 10_000);
    let answers = [Answer { id: "wrong".into(), cohort: None, program: 1, version: String::new() }];
    let analysis = analyse(&problem, &answers, &OneInput, 1, &mut |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(analysis.tests_generated, 1, "its one input, tried once");
    assert!(analysis.generator_exhausted);
    assert_eq!(analysis.suite.len(), 1);
    assert_eq!(analysis.answers[0].failed.len(), 1, "the one input still finds the bug");
}

/// A generator of a few inputs: one of three words, and after `b` a digit 0 or 1; with
/// `by_size`, a fourth word only from size 50 on (it reads the size).
struct FewInputs {
    by_size: bool,
}

impl Executor for FewInputs {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let words = if self.by_size && choices.size() >= 50 { 3 } else { 2 };
        let word = ["a", "b", "c", "d"][choices.choice(words).unwrap_or(0) as usize];
        let digit = if word == "b" { choices.choice(1).unwrap_or(0).to_string() } else { String::new() };
        (Ok(format!("{word}{digit}\n").into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let printed: &[u8] = if program == 1 && input == b"b1\n" { b"?\n" } else { input };
        Execution { outcome: RunOutcome::Success, stdout: printed.to_vec(), fuel_used: 1 }
    }
}

#[test]
fn a_search_ends_once_every_input_the_generator_can_make_was_tried() {
    let problem = Problem { name: "few inputs".into(), ..Problem::default() };
    let answers = [Answer { id: "b1".into(), cohort: None, program: 1, version: String::new() }];
    let mut tests = Vec::new();
    for by_size in [false, true] {
        let analysis = analyse(&problem, &answers, &FewInputs { by_size }, 1, &mut |_| ControlFlow::Continue(())).unwrap();
        assert!(analysis.generator_exhausted, "by size: {by_size}");
        let said = analysis.completeness_in_words().unwrap();
        assert!(said.starts_with("complete: every input the generator can make was tried ("), "{said}");
        assert_eq!(analysis.suite.len(), 1, "the bug is found");
        assert_eq!(analysis.suite[0].input, "b1\n");
        tests.push(analysis.tests_generated);
    }
    assert!(tests[0] < 100, "four inputs, tried in {} tests", tests[0]);
    // Read the size, and each size is a tree of its own: every size's inputs tried, each
    // size drawn one test in 101, still before 10,000 in a row add nothing.
    assert!(tests[1] > grader::MAX_SIZE as u64 && tests[1] < problem.search.stable_after, "every size's inputs tried: {} tests", tests[1]);
}

/// Inputs are numbers 0 to 999, drawn evenly: program 1 is wrong below 500 (half the
/// inputs), program 2 on 7 alone (one input in a thousand). Drawn from a million, so that
/// the search never tries every input the generator can make.
struct OneRareBug;

impl Executor for OneRareBug {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let n = choices.choice(999_999).unwrap_or(0) % 1000;
        (Ok(n.to_string().into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
        let wrong = (program == 1 && n < 500) || (program == 2 && n == 7);
        Execution { outcome: RunOutcome::Success, stdout: if wrong { b"?".to_vec() } else { input.to_vec() }, fuel_used: 1 }
    }
}

#[test]
fn the_estimate_rule_stops_once_a_new_failing_set_is_unlikely_enough_and_never_before_its_floor() {
    let answers = [
        Answer { id: "common".into(), cohort: None, program: 1, version: String::new() },
        Answer { id: "rare".into(), cohort: None, program: 2, version: String::new() },
    ];
    let run = |estimate: Option<grader::EstimateStop>| {
        let mut problem = Problem { name: "one rare bug".into(), ..Problem::default() };
        problem.search.estimate = estimate;
        analyse(&problem, &answers, &OneRareBug, 1, &mut |_| ControlFlow::Continue(())).unwrap()
    };
    let paper = run(None);
    assert!(paper.tests_generated >= 10_000, "the paper's rule: 10,000 in a row add nothing");
    for (chance, min_tests) in [(1.0 / 500.0, 300), (1.0 / 5_000.0, 300), (1.0 / 500.0, 3_000)] {
        let rule = grader::EstimateStop { chance, min_tests };
        let analysis = run(Some(rule));
        let estimate = analysis.completeness.clone().unwrap();
        assert!(estimate.random_tests >= min_tests, "never before the floor: {estimate:?}");
        assert!(estimate.seen_once.max(1) as f64 / estimate.random_tests as f64 <= chance, "{estimate:?}");
        assert!(estimate.random_tests as f64 >= 1.0 / chance, "counting one set seen once at least: {estimate:?}");
        assert_eq!(analysis.estimate_stop, Some(rule), "analysis.json says which rule stopped it");
        assert!(analysis.tests_generated < paper.tests_generated, "{chance} {min_tests}: {} against {}", analysis.tests_generated, paper.tests_generated);
    }
}
