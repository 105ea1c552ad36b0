//! One run of the problem's programs, judged: the reference's run on an input (or why the
//! input cannot be used), an answer's budget there, an answer's run and its verdict by the
//! problem's oracle; [`calibrate`], the reference measured before a search; and the runs
//! of the grading sample that points come from. Shared by
//! every role that judges a run: the search, the re-run, a problem's check, bug lists and
//! the grading of students' test suites.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::budget::{Budget, CALIBRATION_INPUTS, CALIBRATION_SEED, Calibration};
use crate::generate::ChoiceSource;
use crate::oracle::{Execution, Failure, FailureCounts, RunOutcome};
use crate::points::{GRADING_SAMPLE_INPUTS, GRADING_SEED};
use crate::problem::{Executor, Problem};

/// Why a generated input cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unusable {
    Reference(String),
    Checker(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Reference(reason) => write!(f, "the reference {reason}"),
            Unusable::Checker(reason) => write!(f, "the checker failed: {reason}"),
        }
    }
}

/// Runs the reference on `input`: its execution, or why the input cannot be used.
pub(crate) fn run_reference(problem: &Problem, executor: &dyn Executor, input: &[u8]) -> Result<Execution, Unusable> {
    let reference = executor.run(0, input, problem.fuel.reference);
    let reason = match &reference.outcome {
        RunOutcome::Success => return Ok(reference),
        RunOutcome::Crash(message) => format!("crashed: {message}"),
        RunOutcome::Timeout => "ran out of fuel".to_owned(),
        RunOutcome::Memory => "ran out of memory".to_owned(),
        RunOutcome::Output => "exceeded the output limit".to_owned(),
    };
    Err(Unusable::Reference(reason))
}

/// The budget of every answer on `input`, on which the reference's run was `reference`.
pub(crate) fn budget(problem: &Problem, calibration: &Calibration, input: &[u8], reference: &Execution) -> Budget {
    problem.fuel.budget(reference.fuel_used, calibration.class(input.len()))
}

/// Runs answer program `program` on `input` with `fuel` and judges it: `Ok(None)` for a
/// pass, `Err` when the checker failed.
pub(crate) fn run_answer(
    problem: &Problem,
    executor: &dyn Executor,
    input: &[u8],
    reference: &Execution,
    program: usize,
    fuel: u64,
) -> (Execution, Result<Option<Failure>, String>) {
    let execution = executor.run(program, input, fuel);
    let verdict = judge_answer(problem, executor, input, reference, &execution);
    (execution, verdict)
}

/// Judges an answer's `execution` on `input` against the reference's run, by the
/// problem's oracle: `Ok(None)` for a pass, `Err` when the checker failed.
pub(crate) fn judge_answer(
    problem: &Problem,
    executor: &dyn Executor,
    input: &[u8],
    reference: &Execution,
    execution: &Execution,
) -> Result<Option<Failure>, String> {
    problem.oracle.judge(&reference.stdout, execution, |actual| executor.check(input, &reference.stdout, actual))
}

/// Measures the reference on [`CALIBRATION_INPUTS`] generated inputs, in parallel.
pub fn calibrate(problem: &Problem, executor: &dyn Executor) -> Calibration {
    use rayon::prelude::*;
    let costs: Vec<(usize, u64)> = (0..CALIBRATION_INPUTS)
        .into_par_iter()
        .filter_map(|index| {
            let (input, _) = executor.generate(ChoiceSource::for_random_test(CALIBRATION_SEED, index));
            let input = input.ok()?;
            let reference = run_reference(problem, executor, &input).ok()?;
            Some((input.len(), reference.fuel_used))
        })
        .collect();
    Calibration::from_costs(costs)
}

/// Runs `programs` (executor program numbers, each once) on the grading sample and counts
/// each one's failures: `(program, judged, counts)` in the order given, and the runs made.
/// Deterministic whatever the thread count. An input the sample holds several times (a
/// generator draws its small inputs again and again) is run once and counted as often as
/// it is held: runs are deterministic, so the counts are those of running every copy.
pub(crate) fn sample_failures(
    problem: &Problem,
    executor: &dyn Executor,
    calibration: &Calibration,
    programs: &[usize],
) -> (HashMap<usize, (u64, FailureCounts)>, u64) {
    // The sample's inputs: the generated ones, then the course's tests (as fixed as the
    // grading seed); each distinct one with how many times the sample holds it.
    let generated: Vec<Vec<u8>> = (0..GRADING_SAMPLE_INPUTS)
        .into_par_iter()
        .filter_map(|index| executor.generate(ChoiceSource::for_random_test(GRADING_SEED, index)).0.ok())
        .collect();
    let mut copies: HashMap<&[u8], u64> = HashMap::new();
    let mut distinct: Vec<&[u8]> = Vec::new();
    for input in generated.iter().chain(problem.fixed.iter().map(|test| &test.input)) {
        let held = copies.entry(input).or_default();
        if *held == 0 {
            distinct.push(input);
        }
        *held += 1;
    }
    // The usable ones, the reference's run and the fair budget on each.
    let sample: Vec<_> = distinct
        .into_par_iter()
        .filter_map(|input| {
            let reference = run_reference(problem, executor, input).ok()?;
            let fuel = budget(problem, calibration, input, &reference).fair;
            Some((input, reference, fuel, copies[input]))
        })
        .collect();
    // Each program runs on the whole sample in a row (its instance slot stays warm).
    let counted: HashMap<usize, (u64, FailureCounts)> = programs
        .par_iter()
        .map(|&program| {
            let mut kinds = Vec::new();
            let mut judged = 0;
            for (input, reference, fuel, copies) in &sample {
                match run_answer(problem, executor, input, reference, program, *fuel).1 {
                    // The checker failed on this output: the input says nothing of the program.
                    Err(_) => continue,
                    Ok(verdict) => {
                        judged += copies;
                        if let Some(failure) = verdict {
                            kinds.extend(std::iter::repeat_n(failure.kind, *copies as usize));
                        }
                    }
                }
            }
            (program, (judged, FailureCounts::of(&kinds)))
        })
        .collect();
    let runs = sample.len() as u64 * (1 + programs.len() as u64);
    (counted, runs)
}
