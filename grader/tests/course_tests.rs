//! The course's own tests (a problem's `tests/NAME.in`, `NAME.out`): they run before the
//! search, join the suite under their names where irredundant, and every answer is told
//! which of them it fails.

use std::ops::ControlFlow;

use grader::{Analysis, Answer, ChoiceSource, Execution, Executor, GraderError, Problem, RerunMode, RunOutcome, WrittenTest, analyse, bug_list, rerun};

/// Inputs are numbers separated by spaces (the generator writes one, from 0 to 99); every
/// program prints each number back on a line, except where its bug is: program `p` prints
/// `n + 1` for each `n` that `bugs[p]` says is one of its bugs.
struct Numbers {
    bugs: Vec<fn(u64) -> bool>,
}

impl Executor for Numbers {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let n = choices.choice(99).unwrap();
        (Ok(n.to_string().into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let numbers = std::str::from_utf8(input).unwrap().split_whitespace().map(|n| n.parse::<u64>().unwrap());
        let printed: String = numbers.map(|n| format!("{}\n", if (self.bugs[program])(n) { n + 1 } else { n })).collect();
        Execution { outcome: RunOutcome::Success, stdout: printed.into_bytes(), fuel_used: 1 }
    }
}

fn none(_: u64) -> bool {
    false
}

fn seven(n: u64) -> bool {
    n == 7
}

fn fifty_one(n: u64) -> bool {
    n == 51
}

fn seven_or_fifty_one(n: u64) -> bool {
    n == 7 || n == 51
}

fn large(n: u64) -> bool {
    n >= 1000
}

fn written(name: &str, input: &str, expected: Option<&str>) -> WrittenTest {
    WrittenTest { name: name.into(), input: input.into(), expected: expected.map(Into::into) }
}

fn problem(fixed: Vec<WrittenTest>) -> Problem {
    let mut problem = Problem { name: "numbers".into(), fixed, ..Problem::default() };
    problem.search.stable_after = 2_000;
    problem
}

fn answers(n: usize) -> Vec<Answer> {
    (1..=n).map(|p| Answer { id: format!("a{p}"), cohort: None, program: p, version: "v1".into() }).collect()
}

fn go(_: &grader::Progress) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// The suite as `(course test name, input, failing answers)`.
fn suite(analysis: &Analysis) -> Vec<(Option<&str>, &str, Vec<&str>)> {
    analysis.suite.iter().map(|t| (t.course_test.as_deref(), t.input.as_str(), t.failing.iter().map(String::as_str).collect())).collect()
}

fn course_failed<'a>(analysis: &'a Analysis, id: &str) -> Vec<&'a str> {
    analysis.answers.iter().find(|a| a.id == id).unwrap().course_tests_failed.iter().map(String::as_str).collect()
}

#[test]
fn a_course_test_showing_a_bug_no_generated_input_can_joins_the_suite_under_its_name() {
    // a1 is wrong on 7, which random tests find too; a2 only on numbers the generator never
    // writes, which only the course's test `big` shows.
    let executor = Numbers { bugs: vec![none, seven, large] };
    let fixed = vec![written("big", "1000", Some("1000\n")), written("seven", "7", None), written("zero", "0", None)];
    let analysis = analyse(&problem(fixed), &answers(2), &executor, 1, &mut go).unwrap();
    assert_eq!(
        suite(&analysis),
        [(Some("big"), "1000", vec!["a2"]), (Some("seven"), "7", vec!["a1"])],
        "the course's tests come first, as written; `zero` fails no one and a generated 7 would only repeat `seven`"
    );
    assert!(analysis.suite.iter().all(|t| t.choices.0.is_empty() && t.size == 0), "no generator made them");
    assert_eq!(analysis.course_tests, ["big", "seven", "zero"]);
    assert_eq!(course_failed(&analysis, "a1"), ["seven"]);
    assert_eq!(course_failed(&analysis, "a2"), ["big"]);
}

#[test]
fn a_course_test_that_later_tests_make_redundant_leaves_the_suite_but_still_names_who_fails_it() {
    // a1 is wrong on 7, a2 on 51, a3 on both: the course's test `both` fails all three, the
    // union of what 7 and 51 fail, so once the search finds those it is redundant.
    let executor = Numbers { bugs: vec![none, seven, fifty_one, seven_or_fifty_one] };
    let analysis = analyse(&problem(vec![written("both", "7 51", None)]), &answers(3), &executor, 1, &mut go).unwrap();
    assert_eq!(suite(&analysis), [(None, "7", vec!["a1", "a3"]), (None, "51", vec!["a2", "a3"])]);
    for id in ["a1", "a2", "a3"] {
        assert_eq!(course_failed(&analysis, id), ["both"], "{id} fails the course's test, in the suite or not");
    }
}

#[test]
fn a_course_test_whose_expected_output_the_reference_contradicts_stops_the_analysis_naming_it() {
    let executor = Numbers { bugs: vec![none, seven] };
    let fixed = vec![written("fine", "3", Some("3\n")), written("off-by-one", "5", Some("6\n"))];
    match analyse(&problem(fixed), &answers(1), &executor, 1, &mut go) {
        Err(GraderError::CourseTestInvalid { name, reason }) => {
            assert_eq!(name, "off-by-one");
            assert_eq!(reason, "expects \"6\\n\", but the model answer gives \"5\\n\"");
        }
        other => panic!("expected the course's test to be refused, got {other:?}"),
    }
}

#[test]
fn the_same_course_tests_and_seed_give_the_same_analysis() {
    let executor = Numbers { bugs: vec![none, seven, large, seven_or_fifty_one] };
    let fixed = || vec![written("big", "1000 7", None), written("two", "2", Some("2\n"))];
    let first = analyse(&problem(fixed()), &answers(3), &executor, 4, &mut go).unwrap();
    let again = analyse(&problem(fixed()), &answers(3), &executor, 4, &mut go).unwrap();
    assert_eq!(serde_json::to_string(&first).unwrap(), serde_json::to_string(&again).unwrap());
}

#[test]
fn a_bug_list_shows_a_course_test_as_written_and_neither_generalises_nor_contrasts_it() {
    let executor = Numbers { bugs: vec![none, large] };
    let problem = problem(vec![written("big", "1000", None)]);
    let analysis = analyse(&problem, &answers(1), &executor, 1, &mut go).unwrap();
    let list = bug_list(&problem, &analysis, "a1", 1, &executor).unwrap();
    assert_eq!(list.course_tests_failed, ["big"]);
    let [bug] = &list.bugs[..] else { panic!("one bug: {:?}", list.bugs) };
    assert_eq!((bug.course_test.as_deref(), bug.input.as_str(), bug.got.detail.as_str()), (Some("big"), "1000", "1001\n"));
    assert_eq!((&bug.generalized, &bug.contrast), (&None, &None));
}

#[test]
fn a_frozen_rerun_keeps_a_released_course_test_and_refuses_when_the_course_dropped_it() {
    let mut executor = Numbers { bugs: vec![none, large, seven] };
    let problem_with = problem(vec![written("big", "1000", None)]);
    let ids = answers(2);
    let released = analyse(&problem_with, &ids, &executor, 1, &mut go).unwrap();
    // a2 fixes its bug and hands in again.
    executor.bugs[2] = none;
    let ids = vec![ids[0].clone(), Answer { version: "v2".into(), ..ids[1].clone() }];
    let after = rerun(&problem_with, &ids, &executor, 2, &released, RerunMode::Frozen, &mut go).unwrap();
    let tests = |analysis: &Analysis| analysis.suite.iter().map(|t| (t.id.clone(), t.course_test.clone(), t.input.clone())).collect::<Vec<_>>();
    assert_eq!(tests(&after), tests(&released), "the released suite, the course's test in it, stands");
    assert_eq!(suite(&after)[1], (None, "7", vec![]), "a2's new version passes 7");
    assert_eq!(course_failed(&after, "a1"), ["big"]);
    match rerun(&problem(Vec::new()), &ids, &executor, 2, &released, RerunMode::Frozen, &mut go) {
        Err(GraderError::FrozenSuiteChanged { what, .. }) => assert_eq!(what, "the problem no longer has the course's test `big`"),
        other => panic!("expected the frozen re-run to be refused, got {other:?}"),
    }
}
