//! Faults of the problem itself (its generator, reference or checker) are reported to the
//! instructor and never counted against an answer.

use grader::{Analysis, Answer, CheckerVerdict, ChoiceSource, Execution, Executor, GraderError, Oracle, Problem, RunOutcome, analyse};

/// Inputs are numbers 0..=30; the reference prints the number but crashes on 7. Answer 1
/// is wrong from 10 up; answer 2 prints `?` for 5, which makes the checker fail.
struct Numbers {
    generator_works: bool,
}

fn number(input: &[u8]) -> u64 {
    std::str::from_utf8(input).unwrap().parse().unwrap()
}

impl Executor for Numbers {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let n = choices.choice(30).unwrap();
        let result = if self.generator_works { Ok(n.to_string().into_bytes()) } else { Err("trap".to_owned()) };
        (result, choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let n = number(input);
        let (outcome, stdout) = match program {
            0 if n == 7 => (RunOutcome::Crash("unreachable".into()), String::new()),
            1 if n >= 10 => (RunOutcome::Success, "x".to_owned()),
            2 if n == 5 => (RunOutcome::Success, "?".to_owned()),
            _ => (RunOutcome::Success, n.to_string()),
        };
        Execution { outcome, stdout: stdout.into_bytes(), fuel_used: 1 }
    }

    fn check(&self, _input: &[u8], expected: &[u8], actual: &[u8]) -> Result<CheckerVerdict, String> {
        match actual {
            b"?" => Err("checker trapped".to_owned()),
            _ if actual == expected => Ok(CheckerVerdict::Accept),
            _ => Ok(CheckerVerdict::Reject("not the number".to_owned())),
        }
    }
}

fn analyse_numbers(executor: &Numbers) -> Result<Analysis, GraderError> {
    let mut problem = Problem { name: "numbers".into(), oracle: Oracle::Checker, ..Problem::default() };
    problem.search.stable_after = 300;
    let answers = [
        Answer { id: "a1".into(), cohort: None, program: 1, version: String::new() },
        Answer { id: "a2".into(), cohort: None, program: 2, version: String::new() },
    ];
    analyse(&problem, &answers, executor, 1, &mut |_| std::ops::ControlFlow::Continue(()))
}

#[test]
fn an_input_the_checker_fails_on_is_set_aside_and_not_counted_against_the_answer() {
    let analysis = analyse_numbers(&Numbers { generator_works: true }).unwrap();
    assert!(analysis.checker_failures > 0);
    let example = analysis.problem_errors.iter().find(|e| e.input == "5").expect("input 5 is reported");
    assert_eq!(example.reason, "the checker failed: checker trapped");
    let a2 = &analysis.answers[1];
    assert!(a2.failed.is_empty(), "a2 is only 'wrong' where the checker broke: {a2:?}");
}

#[test]
fn an_input_the_reference_fails_on_is_set_aside_and_reported() {
    let analysis = analyse_numbers(&Numbers { generator_works: true }).unwrap();
    assert!(analysis.reference_failures > 0);
    let example = analysis.problem_errors.iter().find(|e| e.input == "7").expect("input 7 is reported");
    assert_eq!(example.reason, "the reference crashed: unreachable");
    let inputs: Vec<&str> = analysis.suite.iter().map(|t| t.input.as_str()).collect();
    assert_eq!(inputs, ["10"], "a1's bug, shrunk, and nothing else");
}

#[test]
fn a_generator_that_always_fails_is_an_error_of_the_problem() {
    let error = analyse_numbers(&Numbers { generator_works: false }).unwrap_err();
    assert_eq!(error.to_string(), "the generator fails on every test case: trap");
}
