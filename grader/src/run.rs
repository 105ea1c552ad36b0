//! One run of the problem's programs, judged: the reference's run on an input (or why the
//! input cannot be used), an answer's budget there, an answer's run and its verdict by the
//! problem's oracle; [`calibrate`], the reference measured before a search; and the runs
//! of the grading sample that points come from. Shared by
//! every role that judges a run: the search, the re-run, a problem's check, bug lists and
//! the grading of students' test suites.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::budget::{Budget, CALIBRATION_INPUTS, CALIBRATION_SEED, Calibration};
use crate::generate::{ChoiceSource, TestCase};
use crate::oracle::{Execution, Failure, FailureCounts, FailureKind, RunOutcome};
use crate::points::{GRADING_SAMPLE_INPUTS, GRADING_SEED};
use crate::problem::{Executor, Problem, RunRequest};

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
        RunOutcome::Rejected(reason) => format!("was rejected by the interactor: {reason}"),
        RunOutcome::InteractorFailed(reason) => return Err(Unusable::Checker(reason.clone())),
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

/// The failures of `answer` in `analysis` told by its own `program`: each failed suite
/// test run once more with the test's budget, for the crash message or checker reason
/// and the fuel of that program. For a copy, which the search ran as another answer's
/// program having the same code (Python hand-ins that differ in comments, spacing and
/// file name): its verdicts are that program's, but its messages name its own file and
/// lines, never the other student's. A run that fails another way than the verdict (it
/// cannot, the code being the same) keeps the verdict's kind.
pub fn own_failures(problem: &Problem, suite: &[crate::SuiteTest], answer: &mut crate::AnswerResult, program: usize, executor: &dyn Executor) {
    for (test_id, detail) in answer.failures.iter_mut() {
        let Some(test) = suite.iter().find(|t| &t.id == test_id) else { continue };
        // The input as the generator makes it (the analysis keeps it as text), and the
        // reference's run on it, as the search had them.
        let input = match &test.course_test {
            Some(name) => problem.fixed.iter().find(|fixed| fixed.name == *name).map_or_else(|| test.input.clone().into_bytes(), |fixed| fixed.input.clone()),
            None => executor
                .generate(ChoiceSource::replay(&TestCase { size: test.size, choices: test.choices.clone() }))
                .0
                .unwrap_or_else(|_| test.input.clone().into_bytes()),
        };
        let Ok(reference) = run_reference(problem, executor, &input) else { continue };
        *detail = failure_detail(problem, executor, &input, &reference, program, test.budget.fair, detail.failure.kind);
    }
}

/// A failed run once more, for what its verdict `kind` alone does not keep: the checker's
/// reason or the crash message, and the fuel used. Runs are deterministic: one that fails
/// another way keeps `kind`.
pub(crate) fn failure_detail(
    problem: &Problem,
    executor: &dyn Executor,
    input: &[u8],
    reference: &Execution,
    program: usize,
    fuel: u64,
    kind: FailureKind,
) -> crate::FailureDetail {
    let (run, verdict) = run_answer(problem, executor, input, reference, program, fuel);
    crate::FailureDetail { failure: verdict.ok().flatten().filter(|f| f.kind == kind).unwrap_or(Failure::of(kind)), fuel_used: run.fuel_used }
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

/// What earlier runs on an input already settle, so that the grading sample does not run
/// them again (the search has usually run its small inputs, which a sample draws most).
pub(crate) enum Known {
    /// The reference cannot run it: it is not in the sample.
    Unusable,
    /// The reference's run there, the fair budget, and each program's verdict with that
    /// budget (indexed by program number) where the runs so far settle it.
    Usable { reference: Execution, fair: u64, verdicts: Vec<Option<Option<FailureKind>>> },
}

/// About the runs of one round of the grading sample ([`Executor::run_all`]): whole
/// programs, as many as make this many runs (at least one). A class of 1,000 would
/// otherwise make a million runs in one round, each run's output held until judged.
const SAMPLE_ROUND_RUNS: usize = 8_192;

/// Runs `programs` (executor program numbers, each once) on the grading sample and counts
/// each one's failures: `(program, judged, counts)` in the order given, and the runs made.
/// Deterministic whatever the thread count. An input the sample holds several times (a
/// generator draws its small inputs again and again) is run once and counted as often as
/// it is held, and a run `known` settles is not made at all: runs are deterministic, so
/// the counts are those of running every copy.
pub(crate) fn sample_failures(
    problem: &Problem,
    executor: &dyn Executor,
    calibration: &Calibration,
    programs: &[usize],
    known: &(dyn Fn(&[u8]) -> Option<Known> + Sync),
) -> (HashMap<usize, (u64, FailureCounts)>, u64) {
    // The sample's inputs: the generated ones, then the course's tests (as fixed as the
    // grading seed); each distinct one with how many times the sample holds it.
    let generated: Vec<Vec<u8>> =
        (0..GRADING_SAMPLE_INPUTS).into_par_iter().filter_map(|index| executor.generate(ChoiceSource::for_random_test(GRADING_SEED, index)).0.ok()).collect();
    let mut copies: HashMap<&[u8], u64> = HashMap::new();
    let mut distinct: Vec<&[u8]> = Vec::new();
    for input in generated.iter().chain(problem.fixed.iter().map(|test| &test.input)) {
        let held = copies.entry(input).or_default();
        if *held == 0 {
            distinct.push(input);
        }
        *held += 1;
    }
    // The usable ones, the reference's run and the fair budget on each, and what is known
    // of the programs there (`None`: nothing, and the reference ran for it).
    let sample: Vec<_> = distinct
        .into_par_iter()
        .filter_map(|input| {
            let (reference, fuel, settled) = match known(input) {
                Some(Known::Unusable) => return None,
                Some(Known::Usable { reference, fair, verdicts }) => (reference, fair, Some(verdicts)),
                None => {
                    let reference = run_reference(problem, executor, input).ok()?;
                    let fuel = budget(problem, calibration, input, &reference).fair;
                    (reference, fuel, None)
                }
            };
            Some((input, reference, fuel, copies[input], settled))
        })
        .collect();
    // Rounds of whole programs (each on the whole sample in a row, its instance warm), of
    // about SAMPLE_ROUND_RUNS runs, which only those a search did not settle make.
    let settled = |program: usize, known: &Option<Vec<Option<Option<FailureKind>>>>| known.as_ref().and_then(|k| k.get(program)).copied().flatten();
    let mut counted: Vec<(usize, u64, FailureCounts, u64)> = Vec::with_capacity(programs.len());
    for group in programs.chunks(SAMPLE_ROUND_RUNS.div_ceil(sample.len().max(1))) {
        // Each run asked, and where its input is in the sample.
        let (at, runs): (Vec<usize>, Vec<RunRequest<'_>>) = group
            .iter()
            .flat_map(|&program| sample.iter().enumerate().map(move |(at, s)| (at, program, s)))
            .filter(|(_, program, (.., known))| settled(*program, known).is_none())
            .map(|(at, program, (input, _, fuel, ..))| (at, RunRequest { program, input, fuel: *fuel }))
            .unzip();
        let executions = executor.run_all(&runs);
        let judged: Vec<Result<Option<FailureKind>, String>> = at
            .par_iter()
            .zip(executions)
            .map(|(at, execution)| {
                let (input, reference, ..) = &sample[*at];
                judge_answer(problem, executor, input, reference, &execution).map(|v| v.map(|f| f.kind))
            })
            .collect();
        let mut judged = judged.into_iter();
        for &program in group {
            let (mut kinds, mut judged_copies, mut runs) = (Vec::new(), 0, 0);
            for (_, _, _, copies, known) in &sample {
                let verdict = match settled(program, known) {
                    Some(kind) => Ok(kind),
                    None => {
                        runs += 1;
                        judged.next().expect("a verdict for every run asked")
                    }
                };
                match verdict {
                    // The checker failed on this output: the input says nothing of the program.
                    Err(_) => continue,
                    Ok(kind) => {
                        judged_copies += copies;
                        kinds.extend(kind.into_iter().flat_map(|kind| std::iter::repeat_n(kind, *copies as usize)));
                    }
                }
            }
            counted.push((program, judged_copies, FailureCounts::of(&kinds), runs));
        }
    }
    let reference_runs = sample.iter().filter(|(.., settled)| settled.is_none()).count() as u64;
    let runs = reference_runs + counted.iter().map(|(.., runs)| runs).sum::<u64>();
    (counted.into_iter().map(|(program, judged, counts, _)| (program, (judged, counts))).collect(), runs)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    /// Inputs of up to four digits; answer `p` gives a wrong output on every input holding
    /// the digit `p`. Counts the runs it makes.
    #[derive(Default)]
    struct Digits {
        runs: AtomicU64,
    }

    impl Executor for Digits {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            let mut input = Vec::new();
            while input.len() < 4 && choices.choice(3).unwrap() != 0 {
                input.push(b'0' + choices.choice(9).unwrap() as u8);
            }
            (Ok(input), choices)
        }

        fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
            self.runs.fetch_add(1, Ordering::Relaxed);
            let wrong = program > 0 && input.contains(&(b'0' + program as u8));
            Execution { outcome: RunOutcome::Success, stdout: vec![u8::from(wrong)], fuel_used: 1 }
        }
    }

    #[test]
    fn the_grading_sample_runs_only_what_is_not_known_and_counts_the_same() {
        let problem = Problem::default();
        let calibration = Calibration::default();
        let programs = [1, 2, 3];
        let sample = |known: &(dyn Fn(&[u8]) -> Option<Known> + Sync)| {
            let executor = Digits::default();
            let (counted, runs) = sample_failures(&problem, &executor, &calibration, &programs, known);
            assert_eq!(runs, executor.runs.load(Ordering::Relaxed), "the runs it reports are the runs it made");
            (counted, runs)
        };
        // What a search would know of the inputs of even length: the reference's run and
        // answer 2's verdict.
        let search = Digits::default();
        let known = |input: &[u8]| {
            if input.len() % 2 == 1 {
                return None;
            }
            let reference = run_reference(&problem, &search, input).ok()?;
            let fair = budget(&problem, &calibration, input, &reference).fair;
            let verdict = run_answer(&problem, &search, input, &reference, 2, fair).1.unwrap().map(|f| f.kind);
            Some(Known::Usable { reference, fair, verdicts: vec![None, None, Some(verdict), None] })
        };
        let (counted, runs) = sample(&|_| None);
        let (counted_knowing, runs_knowing) = sample(&known);
        assert_eq!(counted_knowing, counted);
        assert!(counted[&2].1.wrong > 0, "answer 2's failures, counted from what is known, are in the sample");

        let distinct: std::collections::HashSet<Vec<u8>> =
            (0..GRADING_SAMPLE_INPUTS).map(|index| Digits::default().generate(ChoiceSource::for_random_test(GRADING_SEED, index)).0.unwrap()).collect();
        let even = distinct.iter().filter(|input| input.len() % 2 == 0).count() as u64;
        assert_eq!(runs, distinct.len() as u64 * 4);
        assert_eq!(runs - runs_knowing, even * 2, "neither the reference nor answer 2 runs again where it is known");

        // An input the reference cannot run is left out whoever knows it.
        let (counted_unusable, runs_unusable) = sample(&|input: &[u8]| input.is_empty().then_some(Known::Unusable));
        assert!(runs_unusable < runs);
        assert!(counted_unusable[&1].0 < counted[&1].0, "the empty input is no longer judged");
    }
}
