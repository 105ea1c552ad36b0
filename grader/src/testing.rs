//! Grading the students' own test suites (Paper III, section 2.7.4): run each student's
//! tests against every submission; a suite scores one point for every submission in which
//! it finds a bug.

use serde::{Deserialize, Serialize};

use crate::budget::Calibration;
use crate::oracle::Execution;
use crate::problem::{Executor, Problem, WrittenTest};
use crate::run::{budget, run_answer, run_reference};

/// A test that does not count, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidTest {
    pub name: String,
    pub reason: String,
}

/// How one student's suite did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteScore {
    pub student: String,
    pub tests: usize,
    /// Tests whose expected output the reference contradicts, or that the reference
    /// cannot run: they find nothing.
    pub invalid: Vec<InvalidTest>,
    /// The submissions in which some valid test finds a bug (fails).
    pub found_bugs_in: Vec<String>,
    /// One point per such submission.
    pub score: usize,
}

/// Scores each student's suite against the submissions, named by `submissions` (program
/// `i + 1` of the executor is `submissions[i]`), each run with the fair budget that
/// `calibration` gives (see [`crate::calibrate`]).
pub fn grade_test_suites(
    problem: &Problem,
    calibration: &Calibration,
    executor: &dyn Executor,
    submissions: &[String],
    suites: &[(String, Vec<WrittenTest>)],
) -> Vec<SuiteScore> {
    suites
        .iter()
        .map(|(student, tests)| {
            let mut invalid = Vec::new();
            let mut valid: Vec<(&WrittenTest, Execution)> = Vec::new();
            for test in tests {
                match check_test(problem, executor, test) {
                    Ok(reference) => valid.push((test, reference)),
                    Err(reason) => invalid.push(InvalidTest { name: test.name.clone(), reason }),
                }
            }
            let found_bugs_in: Vec<String> = submissions
                .iter()
                .enumerate()
                .filter(|&(i, _)| {
                    valid.iter().any(|(test, reference)| {
                        let fuel = budget(problem, calibration, &test.input, reference).fair;
                        matches!(run_answer(problem, executor, &test.input, reference, i + 1, fuel).1, Ok(Some(_)))
                    })
                })
                .map(|(_, id)| id.clone())
                .collect();
            SuiteScore { student: student.clone(), tests: tests.len(), invalid, score: found_bugs_in.len(), found_bugs_in }
        })
        .collect()
}

/// The reference's run on a valid test, or why the test is invalid: the reference cannot
/// run it ([`not_valid`]), or its output is wrong given the test's expected output
/// ([`agrees`]). (`bugrank import` tries a judge's accepted submissions as the reference
/// with it.)
pub fn check_test(problem: &Problem, executor: &dyn Executor, test: &WrittenTest) -> Result<Execution, String> {
    let reference = run_reference(problem, executor, &test.input).map_err(not_valid)?;
    agrees(problem, executor, test, &reference)?;
    Ok(reference)
}

/// Why a test the reference cannot run (for `why`) is not valid, in words.
pub(crate) fn not_valid(why: impl std::fmt::Display) -> String {
    format!("{why} on this input, so it is not a valid test")
}

/// Whether the reference's run on `test` is right given the test's expected output, when
/// it has one (judged by the problem's oracle, the expected output playing the
/// reference's part); else why not.
pub(crate) fn agrees(problem: &Problem, executor: &dyn Executor, test: &WrittenTest, reference: &Execution) -> Result<(), String> {
    let Some(expected) = &test.expected else { return Ok(()) };
    match problem.oracle.judge(expected, reference, |actual| executor.check(&test.input, expected, actual)) {
        Ok(None) => Ok(()),
        Ok(Some(_)) => {
            Err(format!("expects {:?}, but the model answer gives {:?}", String::from_utf8_lossy(expected), String::from_utf8_lossy(&reference.stdout)))
        }
        Err(reason) => Err(format!("the checker failed on it: {reason}")),
    }
}
