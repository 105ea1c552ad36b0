//! Re-running a batch's analysis after it changed: a late submission, a fixed module.
//!
//! A grade must move only with the student's own program. Once results are released, a
//! re-run is [`RerunMode::Frozen`]: the released suite (its tests, ids, inputs and
//! budgets) is kept, an answer whose module did not change keeps its result as it was,
//! and only the changed answers are run: on every released test, then in a search for
//! bugs the released suite misses. A test found that way is added *for* the changed
//! answers ([`crate::SuiteTest::only_for`]) and counts against them alone; points stay
//! counted over the released suite, so no other student's score or test id moves.
//!
//! [`RerunMode::Full`] analyses the batch again from scratch, as a fresh analysis would,
//! but a test whose input the previous suite had keeps its id, and every grade that
//! changed is listed with why ([`GradeChange`]).
//!
//! ```
//! use grader::{GradeChange, RerunMode};
//! assert_ne!(RerunMode::Frozen, RerunMode::Full);
//! let change = GradeChange { id: "a01".into(), before: Some(50.0), after: Some(100.0), why: vec![] };
//! assert!(change.after > change.before);
//! ```

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::GraderError;
use crate::generate::{ChoiceSource, TestCase};
use crate::partition::Suite;
use crate::problem::{Answer, Executor, Problem, Progress};
use crate::result::{Analysis, AnswerResult, GradeChange, Rerun, RerunMode};
use crate::run::run_reference;
use crate::search::{Made, Search, analyse_with_ids};

/// Analyses `answers` again after `previous` (see the module docs); `seed` drives the
/// search for new tests. Errors as [`crate::analyse`] does, and in frozen mode with
/// [`GraderError::FrozenSuiteChanged`] when the problem no longer gives a released test's
/// input or expected output (a changed generator or reference: re-run in full instead).
pub fn rerun(
    problem: &Problem,
    answers: &[Answer],
    executor: &dyn Executor,
    seed: u64,
    previous: &Analysis,
    mode: RerunMode,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Analysis, GraderError> {
    let changed = changed_since(previous, answers.iter().map(|a| (a.id.as_str(), a.version.as_str())));
    let mut analysis = match mode {
        RerunMode::Full => analyse_with_ids(problem, answers, executor, seed, previous, progress)?,
        RerunMode::Frozen => frozen(problem, answers, &changed, executor, seed, previous, progress)?,
    };
    analysis.rerun = Some(Rerun { mode, previous_seed: previous.seed, grade_changes: grade_changes(previous, &analysis, &changed), changed });
    Ok(analysis)
}

/// The answers, given as `(id, version)`, that are new since `previous` or have another
/// version there; an unknown (empty) version counts as changed.
pub fn changed_since<'a>(previous: &Analysis, answers: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    answers
        .into_iter()
        .filter(|&(id, version)| version.is_empty() || !previous.answers.iter().any(|old| old.id == id && old.version == version))
        .map(|(id, _)| id.to_owned())
        .collect()
}

fn frozen(
    problem: &Problem,
    answers: &[Answer],
    changed: &[String],
    executor: &dyn Executor,
    seed: u64,
    previous: &Analysis,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Analysis, GraderError> {
    // The released budgets: the same fuel policy and calibration as the released grades.
    let problem = Problem { fuel: previous.fuel, ..problem.clone() };
    let searched: Vec<Answer> = answers.iter().filter(|a| changed.contains(&a.id)).cloned().collect();
    let copied: HashMap<String, AnswerResult> = previous
        .answers
        .iter()
        .filter(|old| !searched.iter().any(|a| a.id == old.id))
        .map(|old| {
            // Kept as it was, but under this re-run's grading policy (a new maximum, say).
            let points = old.points.as_ref().map(|p| if previous.grading == problem.grading { p.clone() } else { p.under(&problem.grading) });
            (old.id.clone(), AnswerResult { points, ..old.clone() })
        })
        .collect();
    let mut search = Search::new(&problem, &searched, executor, previous.calibration.clone())?;

    // The released tests, replayed: the generator must still make each input, and the
    // reference still give each expected output, or the released grades would not hold.
    let mut pinned: Vec<Made> = Vec::new();
    for test in &previous.suite {
        let changed = |what: &str| GraderError::FrozenSuiteChanged { test: test.id.clone(), what: what.to_owned() };
        let case = TestCase { size: test.size, choices: test.choices.clone() };
        let (input, case) = match &test.course_test {
            // The course's test is the problem's still, as it was: no generator made it.
            Some(name) => match problem.fixed.iter().find(|fixed| &fixed.name == name) {
                Some(fixed) if String::from_utf8_lossy(&fixed.input) == test.input => (fixed.input.clone(), case),
                Some(_) => return Err(changed(&format!("the course's test `{name}` has another input now"))),
                None => return Err(changed(&format!("the problem no longer has the course's test `{name}`"))),
            },
            None => {
                let (input, source) = executor.generate(ChoiceSource::replay(&case));
                let input = input.map_err(|_| changed("the generator fails on its choices"))?;
                if String::from_utf8_lossy(&input) != test.input {
                    return Err(changed("the generator makes another input of its choices"));
                }
                (input, source.into_test_case())
            }
        };
        match run_reference(&problem, executor, &input) {
            Ok(run) if String::from_utf8_lossy(&run.stdout) == test.expected => {}
            Ok(_) => return Err(changed("the reference's output on it is not the released expected output")),
            Err(why) => return Err(changed(&why.to_string())),
        }
        pinned.push((case, Arc::from(input)));
    }
    let mut tests = Vec::with_capacity(pinned.len());
    for made in pinned {
        let failing = search
            .failing_set_fair(&made.1)
            .map_err(|why| GraderError::FrozenSuiteChanged { test: previous.suite[tests.len()].id.clone(), what: why.to_string() })?;
        tests.push((made, failing));
    }
    let mut suite: Suite<Made> = Suite::pinned(tests);
    let searched_run = if searched.is_empty() {
        // No one to look for new bugs in.
        crate::search::Searched::default()
    } else {
        search.run(&mut suite, seed, progress)?
    };
    Ok(search.finish(suite, seed, searched_run, Some(previous), answers, &copied))
}

/// Every answer whose percentage differs between `before` and `after`, with the reasons
/// that can be read off the two analyses.
pub fn grade_changes(before: &Analysis, after: &Analysis, changed: &[String]) -> Vec<GradeChange> {
    let ids: Vec<&String> = {
        let mut ids: Vec<&String> = after.answers.iter().map(|a| &a.id).collect();
        ids.extend(before.answers.iter().map(|a| &a.id).filter(|id| !after.answers.iter().any(|a| &a.id == *id)));
        ids
    };
    let find = |analysis: &'_ Analysis, id: &str| analysis.answers.iter().find(|a| a.id == id).cloned();
    let in_suite = |analysis: &Analysis, test: &str| analysis.suite.iter().any(|t| t.id == test);
    ids.into_iter()
        .filter_map(|id| {
            let (old, new) = (find(before, id), find(after, id));
            let (b, a) = (old.as_ref().map(|r| r.percent), new.as_ref().map(|r| r.percent));
            if b == a {
                return None;
            }
            let mut why = Vec::new();
            match (&old, &new) {
                (None, _) => why.push("new in this analysis".to_owned()),
                (_, None) => why.push("not in this analysis".to_owned()),
                (Some(old), Some(new)) => {
                    if changed.contains(id) {
                        why.push("their own submission changed".to_owned());
                    }
                    for test in new.failed.iter().filter(|t| !old.failed.contains(t)) {
                        why.push(if in_suite(before, test) { format!("now fails {test}") } else { format!("fails {test}, a test new in this analysis") });
                    }
                    for test in old.failed.iter().filter(|t| !new.failed.contains(t)) {
                        why.push(if in_suite(after, test) { format!("now passes {test}") } else { format!("failed {test}, which is no longer in the suite") });
                    }
                }
            }
            if before.scored_tests() != after.scored_tests() {
                why.push(format!("the suite has {} tests instead of {}", after.scored_tests(), before.scored_tests()));
            }
            Some(GradeChange { id: id.clone(), before: b, after: a, why })
        })
        .collect()
}
