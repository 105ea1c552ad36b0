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
fn a_generator_that_never_draws_a_choice_ends_the_search_after_one_cycle_of_sizes_not_stable_after_copies() {
    let problem = Problem { name: "one input".into(), ..Problem::default() };
    assert_eq!(problem.search.stable_after, 10_000);
    let answers = [Answer { id: "wrong".into(), cohort: None, program: 1, version: String::new() }];
    let analysis = analyse(&problem, &answers, &OneInput, 1, &mut |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(analysis.tests_generated, grader::MAX_SIZE as u64 + 1, "one whole cycle of sizes, each drawing nothing");
    assert_eq!(analysis.suite.len(), 1);
    assert_eq!(analysis.answers[0].failed.len(), 1, "the one input still finds the bug");
}
