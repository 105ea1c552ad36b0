//! A grade moves only with the student's own program: re-running a batch against its
//! released suite, and re-running it in full with stable test ids.

use std::ops::ControlFlow;

use grader::{Analysis, Answer, ChoiceSource, Execution, Executor, GraderError, Problem, RerunMode, RunOutcome, analyse, rerun};

/// Inputs are numbers 0..=99 and every program prints the number back, except where its
/// bug is: program `p` prints a wrong number for each `n` in `BUGS[p]`.
struct Numbers {
    bugs: Vec<Vec<u64>>,
}

impl Executor for Numbers {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let n = choices.choice(99).unwrap();
        (Ok(n.to_string().into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
        let printed = if self.bugs[program].contains(&n) { n + 1 } else { n };
        Execution { outcome: RunOutcome::Success, stdout: format!("{printed}\n").into_bytes(), fuel_used: 1 }
    }
}

fn problem() -> Problem {
    let mut problem = Problem { name: "numbers".into(), ..Problem::default() };
    problem.search.stable_after = 2_000;
    problem
}

fn answer(id: &str, program: usize, version: &str) -> Answer {
    Answer { id: id.into(), cohort: None, program, version: version.into() }
}

fn go(_: &grader::Progress) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// Three students: a1 is wrong on 7, a2 on 51, a3 on 7 and 51.
fn released() -> (Numbers, Vec<Answer>, Analysis) {
    let executor = Numbers { bugs: vec![vec![], vec![7], vec![51], vec![7, 51]] };
    let answers = vec![answer("a1", 1, "v1"), answer("a2", 2, "v1"), answer("a3", 3, "v1")];
    let analysis = analyse(&problem(), &answers, &executor, 1, &mut go).unwrap();
    (executor, answers, analysis)
}

fn row<'a>(analysis: &'a Analysis, id: &str) -> &'a grader::AnswerResult {
    analysis.answers.iter().find(|a| a.id == id).unwrap()
}

fn ids_and_inputs(analysis: &Analysis) -> Vec<(String, String)> {
    analysis.suite.iter().map(|t| (t.id.clone(), t.input.clone())).collect()
}

#[test]
fn a_resubmission_graded_against_the_released_suite_moves_no_other_grade_or_test_id() {
    let (mut executor, mut answers, before) = released();
    assert_eq!(ids_and_inputs(&before), [("t1".into(), "7".into()), ("t2".into(), "51".into())]);

    // a2 fixes 51 but now gets 33 wrong: a bug the released suite does not test.
    executor.bugs.push(vec![33]);
    answers[1] = answer("a2", 4, "v2");
    let after = rerun(&problem(), &answers, &executor, 9, &before, RerunMode::Frozen, &mut go).unwrap();

    assert_eq!(ids_and_inputs(&after)[..2], ids_and_inputs(&before)[..], "the released tests stay");
    assert_eq!(after.suite[1].failing, ["a3"], "a2 no longer fails t2");
    let added = &after.suite[2];
    assert_eq!((added.id.as_str(), added.input.as_str()), ("t3", "33"));
    assert_eq!(added.only_for.as_deref(), Some(&["a2".to_owned()][..]), "it counts against a2 alone");
    for id in ["a1", "a3"] {
        let (old, new) = (row(&before, id), row(&after, id));
        assert_eq!((new.passed, new.percent, &new.failed), (old.passed, old.percent, &old.failed), "{id} is untouched");
    }
    let a2 = row(&after, "a2");
    assert_eq!((a2.passed, a2.percent, a2.failed.as_slice()), (1, 50.0, &["t3".to_owned()][..]));
    let rerun = after.rerun.as_ref().unwrap();
    assert_eq!(rerun.changed, ["a2"]);
    assert_eq!(rerun.grade_changes.len(), 0, "a2's score is 50% before and after");
    assert_eq!(after.scored_tests(), 2);
}

#[test]
fn only_the_changed_answer_is_run_in_a_frozen_rerun() {
    let (mut executor, mut answers, before) = released();
    executor.bugs.push(vec![]);
    answers[0] = answer("a1", 4, "v2");
    let after = rerun(&problem(), &answers, &executor, 1, &before, RerunMode::Frozen, &mut go).unwrap();
    assert_eq!(row(&after, "a1").percent, 100.0);
    let change = &after.rerun.as_ref().unwrap().grade_changes;
    assert_eq!(change.len(), 1);
    assert_eq!((change[0].id.as_str(), change[0].before, change[0].after), ("a1", Some(50.0), Some(100.0)));
    assert_eq!(change[0].why, ["their own submission changed", "now passes t1"]);
    // Each of the 100 possible inputs run at most once by the reference and by a1, and
    // the grading sample by both for a1's points: a2 and a3 are not run at all.
    assert!(after.executions <= 2 * 100 + 2 * grader::GRADING_SAMPLE_INPUTS, "{} executions", after.executions);
    assert_eq!(row(&after, "a2").points, row(&before, "a2").points, "an unchanged answer keeps its points");
}

#[test]
fn a_frozen_rerun_refuses_a_suite_the_reference_no_longer_gives() {
    let (mut executor, answers, before) = released();
    executor.bugs[0] = vec![51];
    let result = rerun(&problem(), &answers, &executor, 1, &before, RerunMode::Frozen, &mut go);
    match result {
        Err(GraderError::FrozenSuiteChanged { test, .. }) => assert_eq!(test, "t2"),
        other => panic!("expected FrozenSuiteChanged, got {other:?}"),
    }
}

#[test]
fn a_full_rerun_keeps_the_id_of_every_test_whose_input_stays_and_lists_each_grade_change() {
    let (mut executor, mut answers, before) = released();
    // a1 now also fails 90: the suite gains a test, and no other grade has a reason to
    // move but the suite's size.
    executor.bugs.push(vec![7, 90]);
    answers[0] = answer("a1", 4, "v2");
    let after = rerun(&problem(), &answers, &executor, 5, &before, RerunMode::Full, &mut go).unwrap();
    let ids = ids_and_inputs(&after);
    assert_eq!(ids[..2], ids_and_inputs(&before)[..], "kept tests keep their ids, first");
    assert_eq!(ids[2], ("t3".to_owned(), "90".to_owned()));
    let changes = &after.rerun.as_ref().unwrap().grade_changes;
    let a1 = changes.iter().find(|c| c.id == "a1").unwrap();
    assert!(a1.why.contains(&"their own submission changed".to_owned()), "{a1:?}");
    assert!(a1.why.contains(&"fails t3, a test new in this analysis".to_owned()), "{a1:?}");
    let a2 = changes.iter().find(|c| c.id == "a2").unwrap();
    assert_eq!(a2.why, ["the suite has 3 tests instead of 2"]);
}

fn not_built(error: &str) -> grader::Build {
    grader::Build {
        language: "C".into(),
        toolchain: "clang 14".into(),
        sources: "5ca1ab1e".into(),
        warnings: String::new(),
        error: Some(error.into()),
        rules_broken: Vec::new(),
    }
}

#[test]
fn an_answer_that_did_not_compile_fails_every_test_and_ranks_below_every_answer_that_ran() {
    let (_, _, mut analysis) = released();
    let before = analysis.clone();
    analysis.add_not_built("a0".into(), Some("lab".into()), not_built("a0.c:1: error: expected ';'"));

    let a0 = row(&analysis, "a0");
    assert_eq!((a0.passed, a0.percent, a0.failed.as_slice()), (0, 0.0, &["t1".to_owned(), "t2".to_owned()][..]));
    let a3 = row(&analysis, "a3");
    assert_eq!((a3.passed, a3.rank), (0, 3), "a3 ran and fails both tests");
    assert_eq!(a0.rank, 4, "below a3, which ran");
    assert_eq!((a0.version.as_str(), a0.cohort.as_deref()), ("5ca1ab1e", Some("lab")));
    assert!(a0.outcomes.is_empty() && a0.failures.is_empty(), "nothing ran");
    assert_eq!((&analysis.suite, &analysis.order), (&before.suite, &before.order), "the suite and the order describe programs that ran");
    for id in ["a1", "a2", "a3"] {
        assert_eq!(row(&analysis, id), row(&before, id), "{id} keeps its result");
    }
}
