//! The analysis of Paper III, section 3: generate, partition, shrink, rank, order.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::GraderError;
use crate::generate::{ChoiceSequence, ChoiceSource, Rng, TestCase};
use crate::oracle::{CheckerVerdict, Execution, FailureKind, Oracle, RunOutcome};
use crate::order::{CorrectnessOrder, correctness_order};
use crate::partition::{BitSet, FailingSet, Suite};
use crate::rank::{percent, ranks};
use crate::shrink::{SHRINK_BUDGET, shrink};

/// Random tests generated and evaluated together (in parallel) before the sequential
/// partition step looks at them in order. Fixed, so that the analysis, including its
/// execution count, does not depend on the number of threads.
const BATCH: u64 = 256;

/// Beyond the paper: every `MUTANT_EVERY`th test is a mutant of a suite test (see
/// [`ChoiceSource::mutant`]) rather than a fresh random one, once the suite has a test.
const MUTANT_EVERY: u64 = 2;

/// Keys the randomness of mutants apart from that of fresh random tests.
const MUTANT_KEY: u64 = 0x3C6E_F372_FE94_F82B;

/// If the generator fails this many times before it first succeeds, it is broken; and if
/// this many generated inputs in a row are unusable from the start, so is the reference
/// or the checker.
const FAILURES_TOLERATED: u64 = 100;

/// Problem errors kept as examples in the analysis (their total is counted).
pub const MAX_PROBLEM_ERRORS: usize = 10;

/// What the grader needs from the outside world: a way to run the generator and the
/// programs. The grader does no I/O of its own; the sandbox provides this in the
/// `bugrank` binary, plain closures provide it in tests.
pub trait Executor: Sync {
    /// Runs the generator with `choices` as its source of randomness. Returns the input it
    /// wrote, or the reason it failed, and the choices back (they record what was chosen).
    fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource);

    /// Runs program `program` on `input` with `fuel`. Program 0 is the reference; the
    /// answers' programs are numbered from 1 (see [`Answer::program`]).
    fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution;

    /// Runs the problem's checker on an answer's output `actual` for `input`, given the
    /// reference's output `expected`. `Err` means the checker itself failed. Only called
    /// for problems whose oracle is [`Oracle::Checker`].
    fn check(&self, _input: &[u8], _expected: &[u8], _actual: &[u8]) -> Result<CheckerVerdict, String> {
        Err("this problem has no checker".to_owned())
    }
}

/// The fuel an answer gets on an input: `factor` times what the reference used on the same
/// input, but at least `floor`. A slow but correct answer thus fails exactly when it is
/// many times slower than the model answer, on every machine alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuelPolicy {
    /// Default 20.
    pub factor: u64,
    /// Default 500,000. A Rust program's start-up and the parsing of a small input cost
    /// some 10,000-25,000 fuel (the interval-sets reference uses about 23,000 on a typical
    /// input), so the floor leaves a slower language or a clumsier parser 20 times that,
    /// while an answer stuck in a loop costs well under a millisecond per test.
    pub floor: u64,
    /// Fuel for the reference itself. Default 1,000,000,000 (a few seconds): a reference
    /// that needs more on a generated input is a problem error.
    pub reference: u64,
}

impl Default for FuelPolicy {
    fn default() -> Self {
        FuelPolicy { factor: 20, floor: 500_000, reference: 1_000_000_000 }
    }
}

impl FuelPolicy {
    pub fn budget(&self, reference_fuel: u64) -> u64 {
        reference_fuel.saturating_mul(self.factor).max(self.floor)
    }
}

/// When the search for new bugs stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchOptions {
    /// Stop after this many consecutive tests (random ones and mutants) add nothing.
    /// Default 10,000, as in the paper; lower it for quick runs, at the price of missing
    /// rare bugs.
    pub stable_after: u64,
    /// Stop after this many tests (random ones and mutants) in any case. Default 1,000,000.
    pub max_tests: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { stable_after: 10_000, max_tests: 1_000_000 }
    }
}

/// What is being graded, and how.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub name: String,
    pub oracle: Oracle,
    pub fuel: FuelPolicy,
    pub search: SearchOptions,
}

/// One submission. Several answers may share a program (identical modules run once).
#[derive(Clone, Debug)]
pub struct Answer {
    pub id: String,
    pub cohort: Option<String>,
    /// The [`Executor`] program that runs this answer; 1 or more.
    pub program: usize,
}

/// Where the analysis is, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub tests_generated: u64,
    pub suite_size: usize,
    /// Consecutive tests that added nothing; the search stops at `stable_after`.
    pub stable_run: u64,
    pub stable_after: u64,
    pub executions: u64,
    /// True while a new test is being shrunk.
    pub shrinking: bool,
}

/// One test of the final suite: one inferred bug.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteTest {
    pub id: String,
    pub input: String,
    pub expected: String,
    /// The answers that fail it.
    pub failing: Vec<String>,
    /// The generator's size hint and choices: replaying them gives `input` again.
    pub size: u32,
    pub choices: ChoiceSequence,
}

/// One answer's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerResult {
    pub id: String,
    pub cohort: Option<String>,
    /// Suite tests passed: the score.
    pub passed: usize,
    /// Suite tests failed: the answer's bugs.
    pub failed: Vec<String>,
    /// How each failed test was failed.
    pub outcomes: BTreeMap<String, FailureKind>,
    /// 1 for the best score; equal scores share a rank.
    pub rank: usize,
    pub percent: f64,
}

/// The whole result: the contract of `analysis.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub problem: String,
    pub seed: u64,
    pub tests_generated: u64,
    /// Runs of the reference and the answers (generator runs not included).
    pub executions: u64,
    pub generator_runs: u64,
    /// Edits of suite tests tried near them (not counted in `tests_generated`).
    pub neighbour_tests: u64,
    /// Generated tests thrown away because the generator failed.
    pub generator_failures: u64,
    /// Generated tests thrown away because the reference failed on them.
    pub reference_failures: u64,
    /// Generated tests thrown away because the checker failed on an answer's output.
    pub checker_failures: u64,
    /// Examples (at most [`MAX_PROBLEM_ERRORS`]) of the failures above, for the
    /// instructor: they are faults of the problem, never counted against an answer.
    pub problem_errors: Vec<ProblemError>,
    pub stable_after: u64,
    pub suite: Vec<SuiteTest>,
    pub answers: Vec<AnswerResult>,
    pub order: CorrectnessOrder,
}

/// A generated input the problem's own programs could not handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemError {
    pub input: String,
    pub reason: String,
}

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

impl Analysis {
    /// The answers best first; equal ranks keep the answers' own order.
    pub fn ranked(&self) -> Vec<&AnswerResult> {
        let mut ranked: Vec<&AnswerResult> = self.answers.iter().collect();
        ranked.sort_by_key(|a| a.rank);
        ranked
    }
}

/// A test case and the input its generator made of it.
type Made = (TestCase, Arc<[u8]>);

/// A random test case and its input, or why the generator failed on it.
type Generated = (TestCase, Result<Arc<[u8]>, String>);

/// The id under which the reference appears in the correctness order.
pub const REFERENCE_ID: &str = "reference";

/// What running every program on one input showed.
struct Evaluation {
    /// The reference's output, or why the input cannot be used.
    expected: Result<Vec<u8>, Unusable>,
    /// Verdict per program, index 0 (the reference) included as a pass.
    verdicts: Vec<Option<FailureKind>>,
}

/// Runs the analysis of Paper III on `answers` (sorted as they should appear) with `seed`.
///
/// Deterministic: the same problem, answers, executor behaviour and seed give the same
/// [`Analysis`], however many threads rayon uses. `progress` is called after every batch
/// of random tests and before each shrink; when it returns `ControlFlow::Break` the
/// analysis stops there with [`GraderError::Cancelled`].
pub fn analyse(
    problem: &Problem,
    answers: &[Answer],
    executor: &dyn Executor,
    seed: u64,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Analysis, GraderError> {
    let programs = answers.iter().map(|a| a.program).max().unwrap_or(0) + 1;
    if let Some(bad) = answers.iter().find(|a| a.program == 0) {
        return Err(GraderError::AnswerIsReference(bad.id.clone()));
    }
    let mut search = Search {
        problem,
        answers,
        executor,
        programs,
        evaluations: HashMap::new(),
        replays: HashMap::new(),
        ranges: HashMap::new(),
        executions: 0,
        generator_runs: 0,
        neighbour_tests: 0,
    };
    let mut suite: Suite<Made> = Suite::default();
    let (mut tests_generated, mut stable_run) = (0u64, 0u64);
    let mut generator_failures = 0u64;
    let mut unusable = Tally::default();
    let mut next = 0u64;
    let options = problem.search;
    let mut report = |search: &Search, suite_size, tests_generated, stable_run, shrinking| {
        progress(&Progress {
            tests_generated,
            suite_size,
            stable_run,
            stable_after: options.stable_after,
            executions: search.executions,
            shrinking,
        })
    };

    'search: while stable_run < options.stable_after && next < options.max_tests {
        let batch: Vec<Generated> = (next..(next + BATCH).min(options.max_tests))
            .into_par_iter()
            .map(|index| {
                let source = match suite.tests() {
                    tests if index % MUTANT_EVERY == MUTANT_EVERY - 1 && !tests.is_empty() => {
                        let mut rng = Rng::for_test(seed ^ MUTANT_KEY, index);
                        let ((parent, _), _) = &tests[rng.below_or_equal(tests.len() as u64 - 1) as usize];
                        ChoiceSource::mutant(parent, rng)
                    }
                    _ => ChoiceSource::for_random_test(seed, index),
                };
                let (input, source) = executor.generate(source);
                (source.into_test_case(), input.map(Arc::from))
            })
            .collect();
        next += batch.len() as u64;
        search.generator_runs += batch.len() as u64;
        search.evaluate_all(batch.iter().filter_map(|(_, input)| input.as_ref().ok()));

        for (test, input) in batch {
            if stable_run >= options.stable_after {
                break 'search;
            }
            tests_generated += 1;
            stable_run += 1;
            let input = match input {
                Ok(input) => input,
                Err(reason) => {
                    generator_failures += 1;
                    if generator_failures == tests_generated && generator_failures >= FAILURES_TOLERATED {
                        return Err(GraderError::GeneratorFails(reason));
                    }
                    continue;
                }
            };
            let failing = match search.failing_set(&input) {
                Ok(failing) => failing,
                Err(why) => {
                    unusable.count(&input, &why);
                    let total = unusable.reference + unusable.checker;
                    if total + generator_failures == tests_generated && total >= FAILURES_TOLERATED {
                        let example = unusable.examples.swap_remove(0);
                        return Err(GraderError::NoUsableTest { input: example.input, reason: example.reason });
                    }
                    continue;
                }
            };
            // Beyond the paper: the shrunk test may fail fewer answers than `test`, which
            // can leave `test` itself irredundant. Shrink it again until it is explained
            // by the suite, so that every generated test ends up redundant.
            let mut added = Vec::new();
            while !suite.is_redundant(&failing) {
                if report(&search, suite.len(), tests_generated, stable_run, true).is_break() {
                    return Err(GraderError::Cancelled);
                }
                let (small, small_input, small_failing) = search.shrink(test.clone(), &suite);
                added.push(small.clone());
                suite.add((small, small_input), small_failing);
                stable_run = 0;
            }
            search.explore_neighbours(added, &mut suite);
        }
        if report(&search, suite.len(), tests_generated, stable_run, false).is_break() {
            return Err(GraderError::Cancelled);
        }
    }

    Ok(search.finish(suite, seed, tests_generated, generator_failures, unusable))
}

/// Unusable inputs met by the random search.
#[derive(Default)]
struct Tally {
    reference: u64,
    checker: u64,
    examples: Vec<ProblemError>,
}

impl Tally {
    fn count(&mut self, input: &[u8], why: &Unusable) {
        match why {
            Unusable::Reference(_) => self.reference += 1,
            Unusable::Checker(_) => self.checker += 1,
        }
        if self.examples.len() < MAX_PROBLEM_ERRORS {
            let input = String::from_utf8_lossy(input).into_owned();
            self.examples.push(ProblemError { input, reason: why.to_string() });
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

/// Runs answer program `program` on `input` with the fuel the reference's run earns it,
/// and judges it: `Ok(None)` for a pass, `Err` when the checker failed.
pub(crate) fn run_answer(
    problem: &Problem,
    executor: &dyn Executor,
    input: &[u8],
    reference: &Execution,
    program: usize,
) -> (Execution, Result<Option<FailureKind>, String>) {
    let execution = executor.run(program, input, problem.fuel.budget(reference.fuel_used));
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
) -> Result<Option<FailureKind>, String> {
    problem.oracle.judge(&reference.stdout, execution, |actual| executor.check(input, &reference.stdout, actual))
}

/// A choice whose range has at most this many values more is tried with each of them
/// near a suite test; a wider one (a number, say) with one more, one less and zero.
const NEIGHBOUR_VALUES: u64 = 64;

/// The longest span of choices copied elsewhere near a test: a collection element of a
/// generator drawing a "continue?" flag and one to three choices per element.
const MAX_SPAN: usize = 4;

/// The values a choice is set to near a test, given the largest it can take (`u64::MAX`
/// when unknown): every value of a small range, else one up, one down and zero.
fn other_values(value: u64, max: u64) -> Vec<u64> {
    let mut values: Vec<u64> = if max <= NEIGHBOUR_VALUES {
        (0..=max).collect()
    } else {
        vec![0, value.saturating_sub(1), value.saturating_add(1)]
    };
    values.retain(|&v| v != value);
    values.sort_unstable();
    values.dedup();
    values
}

/// The edits of a test case tried near it, in a fixed order: each choice set to another
/// value (see [`other_values`]; `ranges` gives each choice's largest value, when known),
/// or deleted; a span of up to [`MAX_SPAN`] choices copied to any place; and each value
/// that occurs more than once in choices of one range replaced by another everywhere, or
/// everywhere but at one place. The last finds inputs where one bug hides another unless
/// the same character recurs (an anonymizer segment that starts with `_`, the blank,
/// hides a bug in blanking first characters).
fn neighbours(test: &TestCase, ranges: &[u64]) -> Vec<TestCase> {
    let choices = &test.choices.0;
    let range = |i: usize| ranges.get(i).copied().unwrap_or(u64::MAX);
    let mut edits = Vec::new();
    for i in 0..choices.len() {
        for value in other_values(choices[i], range(i)) {
            let mut edited = choices.clone();
            edited[i] = value;
            edits.push(edited);
        }
        let mut deleted = choices.clone();
        deleted.remove(i);
        edits.push(deleted);
        // A span copied to any place: a collection element doubled or moved to the front,
        // whatever its encoding.
        for k in 1..=MAX_SPAN.min(choices.len() - i) {
            for at in 0..=choices.len() {
                let mut copied = choices.clone();
                copied.splice(at..at, choices[i..i + k].iter().copied());
                edits.push(copied);
            }
        }
    }
    // One value replaced everywhere: the same character (say) changed at every place. A
    // value counts as the same only among choices of the same range (the same kind of
    // choice: a character, not a "continue?" flag that happens to hold the same number).
    let mut present: Vec<(u64, u64)> = (0..choices.len()).map(|i| (choices[i], range(i))).collect();
    present.sort_unstable();
    present.dedup();
    for &(from, max) in &present {
        let places: Vec<usize> = (0..choices.len()).filter(|&i| (choices[i], range(i)) == (from, max)).collect();
        if places.len() < 2 {
            continue;
        }
        for to in other_values(from, max) {
            // Everywhere, and everywhere but at one place.
            for kept in std::iter::once(None).chain(places.iter().copied().map(Some)) {
                let mut edited = choices.clone();
                for &i in places.iter().filter(|&&i| Some(i) != kept) {
                    edited[i] = to;
                }
                edits.push(edited);
            }
        }
    }
    edits.into_iter().map(|c| TestCase { size: test.size, choices: ChoiceSequence(c) }).collect()
}

struct Search<'a> {
    problem: &'a Problem,
    answers: &'a [Answer],
    executor: &'a dyn Executor,
    programs: usize,
    /// Every input evaluated so far: random tests repeat, and shrinking revisits inputs.
    evaluations: HashMap<Arc<[u8]>, Evaluation>,
    /// Shrink candidates replayed so far: what the generator made of them.
    replays: HashMap<ChoiceSequence, Option<Made>>,
    /// The range (largest value) of each choice of the test cases replayed so far.
    ranges: HashMap<ChoiceSequence, Vec<u64>>,
    executions: u64,
    generator_runs: u64,
    neighbour_tests: u64,
}

impl Search<'_> {
    /// Evaluates the inputs not seen before, in parallel. Duplicates are removed first, in
    /// order, so the execution count does not depend on scheduling.
    fn evaluate_all<'i>(&mut self, inputs: impl Iterator<Item = &'i Arc<[u8]>>) {
        let mut fresh: Vec<Arc<[u8]>> = Vec::new();
        for input in inputs {
            if !self.evaluations.contains_key(input) && !fresh.contains(input) {
                fresh.push(input.clone());
            }
        }
        let done: Vec<(Evaluation, u64)> = fresh.par_iter().map(|input| self.evaluate(input)).collect();
        for (input, (evaluation, runs)) in fresh.into_iter().zip(done) {
            self.executions += runs;
            self.evaluations.insert(input, evaluation);
        }
    }

    /// Runs the reference, then every answer program with the fuel the reference earns them.
    fn evaluate(&self, input: &[u8]) -> (Evaluation, u64) {
        let reference = match run_reference(self.problem, self.executor, input) {
            Ok(reference) => reference,
            Err(why) => return (Evaluation { expected: Err(why), verdicts: Vec::new() }, 1),
        };
        // Collected in full before looking for a checker failure, so that the one reported
        // is the first in program order, whatever the scheduling.
        let judged: Vec<Result<Option<FailureKind>, String>> = (0..self.programs)
            .into_par_iter()
            .map(|program| match program {
                0 => Ok(None),
                _ => run_answer(self.problem, self.executor, input, &reference, program).1,
            })
            .collect();
        let evaluation = match judged.into_iter().collect::<Result<Vec<_>, String>>() {
            Ok(verdicts) => Evaluation { expected: Ok(reference.stdout), verdicts },
            Err(reason) => Evaluation { expected: Err(Unusable::Checker(reason)), verdicts: Vec::new() },
        };
        (evaluation, self.programs as u64)
    }

    /// `AnswersFailing(input)`, or why the input is unusable.
    fn failing_set(&mut self, input: &Arc<[u8]>) -> Result<FailingSet, Unusable> {
        self.evaluate_all(std::iter::once(input));
        let evaluation = &self.evaluations[input];
        evaluation.expected.as_ref().map_err(Clone::clone)?;
        let failing = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some());
        Ok(FailingSet::of(self.answers.len(), failing.map(|(i, _)| i)))
    }

    /// Beyond the paper: the [`neighbours`] of each new suite test are tried too, and any
    /// that is irredundant is shrunk and added in turn, its own neighbours then tried.
    /// Bugs that only a rare combination of features provokes often sit next to one
    /// already found: exploring there finds them in every run instead of in some, which
    /// keeps suites, and so ranks, stable from seed to seed.
    fn explore_neighbours(&mut self, start: Vec<TestCase>, suite: &mut Suite<Made>) {
        let mut frontier: std::collections::VecDeque<TestCase> = start.into();
        while let Some(test) = frontier.pop_front() {
            let ranges = self.ranges.get(&test.choices).cloned().unwrap_or_default();
            for neighbour in neighbours(&test, &ranges) {
                self.neighbour_tests += 1;
                let Some((made, input)) = self.replay(&neighbour) else { continue };
                let Ok(failing) = self.failing_set(&input) else { continue };
                if !suite.is_redundant(&failing) {
                    let (small, small_input, small_failing) = self.shrink(made, suite);
                    frontier.push_back(small.clone());
                    suite.add((small, small_input), small_failing);
                }
            }
        }
    }

    /// What the generator makes of a shrink candidate (`None`: it failed).
    fn replay(&mut self, candidate: &TestCase) -> Option<Made> {
        if let Some(known) = self.replays.get(&candidate.choices) {
            return known.clone();
        }
        self.generator_runs += 1;
        let (input, source) = self.executor.generate(ChoiceSource::replay(candidate));
        let ranges = source.maxima().to_vec();
        let made = input.ok().map(|input| (source.into_test_case(), Arc::from(input)));
        if let Some((test, _)) = &made {
            self.ranges.entry(test.choices.clone()).or_insert(ranges);
        }
        self.replays.insert(candidate.choices.clone(), made.clone());
        made
    }

    /// Shrinks an irredundant test to a simplest test that is still irredundant with
    /// respect to `suite` (which may fail a different set of answers).
    fn shrink(
        &mut self,
        test: TestCase,
        suite: &Suite<Made>,
    ) -> (TestCase, Arc<[u8]>, FailingSet) {
        let small = shrink(test, SHRINK_BUDGET, |candidate| {
            let (made, input) = self.replay(candidate)?;
            let failing = self.failing_set(&input).ok()?;
            (!suite.is_redundant(&failing)).then_some(made)
        });
        let (made, input) = self.replay(&small).expect("the shrunk test replays");
        let failing = self.failing_set(&input).expect("the shrunk test was evaluated");
        (made, input, failing)
    }

    fn finish(
        self,
        suite: Suite<Made>,
        seed: u64,
        tests_generated: u64,
        generator_failures: u64,
        unusable: Tally,
    ) -> Analysis {
        // Suite order: by choices, lexicographically, which groups tests by the
        // generator's first choice (for interval sets: the command).
        let mut tests = suite.into_tests();
        tests.sort_by(|((a, _), _), ((b, _), _)| a.choices.0.cmp(&b.choices.0));
        let width = tests.len().to_string().len();
        let test_ids: Vec<String> = (1..=tests.len()).map(|i| format!("t{i:0width$}")).collect();

        let suite: Vec<SuiteTest> = tests
            .iter()
            .zip(&test_ids)
            .map(|(((test, input), failing), id)| SuiteTest {
                id: id.clone(),
                input: String::from_utf8_lossy(input).into_owned(),
                expected: String::from_utf8_lossy(
                    self.evaluations[input].expected.as_ref().expect("suite inputs are valid"),
                )
                .into_owned(),
                failing: failing.iter().map(|a| self.answers[a].id.clone()).collect(),
                size: test.size,
                choices: test.choices.clone(),
            })
            .collect();

        let passes: Vec<BitSet> = (0..self.answers.len())
            .map(|a| BitSet::of(tests.len(), (0..tests.len()).filter(|&t| !tests[t].1.contains(a))))
            .collect();
        let scores: Vec<usize> = passes.iter().map(BitSet::len).collect();
        let answer_ranks = ranks(&scores);
        let answers: Vec<AnswerResult> = self
            .answers
            .iter()
            .enumerate()
            .map(|(a, answer)| {
                let failed: Vec<usize> = (0..tests.len()).filter(|&t| tests[t].1.contains(a)).collect();
                let outcomes = failed
                    .iter()
                    .map(|&t| {
                        let verdict = self.evaluations[&tests[t].0.1].verdicts[answer.program];
                        (test_ids[t].clone(), verdict.expect("a failed test has a failure kind"))
                    })
                    .collect();
                AnswerResult {
                    id: answer.id.clone(),
                    cohort: answer.cohort.clone(),
                    passed: scores[a],
                    failed: failed.iter().map(|&t| test_ids[t].clone()).collect(),
                    outcomes,
                    rank: answer_ranks[a],
                    percent: percent(scores[a], tests.len()),
                }
            })
            .collect();

        let mut in_order = vec![(REFERENCE_ID.to_owned(), BitSet::of(tests.len(), 0..tests.len()))];
        in_order.extend(self.answers.iter().zip(passes).map(|(a, p)| (a.id.clone(), p)));
        Analysis {
            problem: self.problem.name.clone(),
            seed,
            tests_generated,
            executions: self.executions,
            generator_runs: self.generator_runs,
            neighbour_tests: self.neighbour_tests,
            generator_failures,
            reference_failures: unusable.reference,
            checker_failures: unusable.checker,
            problem_errors: unusable.examples,
            stable_after: self.problem.search.stable_after,
            suite,
            answers,
            order: correctness_order(&in_order, &test_ids),
        }
    }
}
