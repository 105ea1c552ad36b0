//! The analysis of Paper III, section 3: generate, partition, shrink, rank, order. The
//! search for the suite, and the [`Analysis`] made of it at the end: what it is given is
//! in `problem.rs`, what it makes is the format of `analysis.json` in `result.rs`.

use crate::completeness::{Completeness, SetTally};
use crate::exhaust::Exhaustion;
use crate::points::Points;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::ControlFlow;
use std::sync::Arc;

use rayon::prelude::*;

use crate::GraderError;
use crate::budget::{Budget, Calibration};
use crate::generate::{ChoiceSequence, ChoiceSource, Rng, TestCase};
use crate::neighbours::{neighbours, random_edit};
use crate::oracle::{Execution, FailureCounts, FailureKind, RunOutcome};
use crate::order::correctness_order;
use crate::partition::{BitSet, FailingSet, Suite, union_within};
use crate::problem::{Answer, Executor, Problem, Progress, RunRequest};
use crate::rank::{percent, ranks};
use crate::result::{Analysis, AnswerResult, FailureDetail, MAX_PROBLEM_ERRORS, ProblemError, REFERENCE_ID, SuiteTest};
use crate::run::{Known, Unusable, budget, calibrate, failure_detail, judge_answer, run_answer, run_reference, sample_failures};
use crate::shrink::{Candidates, SHRINK_BUDGET, shrink};
use crate::testing::{agrees, not_valid};

/// Random tests generated and evaluated together (in parallel) before the sequential
/// partition step looks at them in order. Fixed, so that the analysis, including its
/// execution count, does not depend on the number of threads.
const BATCH: u64 = 256;

/// Beyond the paper: every `MUTANT_EVERY`th test is a mutant of a suite test (see
/// [`ChoiceSource::mutant`]) rather than a fresh random one, once the suite has a test.
const MUTANT_EVERY: u64 = 2;

/// Keys the randomness of mutants apart from that of fresh random tests.
const MUTANT_KEY: u64 = 0x3C6E_F372_FE94_F82B;

/// Beyond the paper: inputs the split search tries near each suspected combination
/// ([`Search::split_combinations`]), in rounds of [`BATCH`].
pub const SPLIT_TESTS: u64 = 1_024;

/// The split search tries at most one input for every `SPLIT_SHARE` tests the random
/// search generated (a suspect begun is walked to its end). A split candidate costs the
/// generator, the reference and the one or two answers it is meant for ([`Search::probe`]),
/// where a random test runs every answer: at this share the split search adds about a
/// tenth to a search of twenty answers, less to a larger class. Measured (paired runs of
/// seed 1 against the search without it): 4% on cryptarithm, 5% on interval sets, 6% on
/// the anonymizer; uncapped, and running every answer, it had cost 14%, 32% and 25%.
const SPLIT_SHARE: u64 = 2;

/// Keys the randomness of the split search apart from that of random tests and mutants.
const SPLIT_KEY: u64 = 0xA54F_F53A_5F1D_36F1;

/// The inputs a split walk keeps to edit further: the suspect, then those found that
/// still make an unexplained answer fail.
const MAX_WALK: usize = 256;

/// If the generator fails this many times before it first succeeds, it is broken; and if
/// this many generated inputs in a row are unusable from the start, so is the reference
/// or the checker.
const FAILURES_TOLERATED: u64 = 100;

/// A test case and the input its generator made of it.
pub(crate) type Made = (TestCase, Arc<[u8]>);

/// A random test case and its input, or why the generator failed on it; with the range of
/// each of its choices and whether the generator read the size (its path in the choice
/// tree, for [`Exhaustion`]).
type Generated = (TestCase, Result<Arc<[u8]>, String>, Vec<u64>, bool);

/// What running every program on one input showed.
struct Evaluation {
    /// The reference's output, or why the input cannot be used.
    expected: Result<Vec<u8>, Unusable>,
    reference_fuel: u64,
    budget: Budget,
    /// Verdict per program, index 0 (the reference) included as a pass.
    verdicts: Vec<Option<FailureKind>>,
    /// Programs that ran out of their quick budget and have not yet been given the fair
    /// one: their verdict is a timeout for now (see [`Search::irredundant`]).
    pending: Vec<usize>,
}

impl Evaluation {
    /// About the bytes it and its `input` hold in [`Search::evaluations`].
    fn bytes(&self, input: &[u8]) -> usize {
        let expected = self.expected.as_ref().map_or(0, Vec::len);
        cached_bytes(input) + expected + cached_bytes(&self.verdicts) + cached_bytes(&self.pending)
    }

    /// The reference's run on a usable input, as the answers are judged against it.
    fn reference(&self) -> Result<Execution, &Unusable> {
        let stdout = self.expected.as_ref()?.clone();
        Ok(Execution { outcome: RunOutcome::Success, stdout, fuel_used: self.reference_fuel })
    }
}

/// What an input a split walk tried is to it ([`Search::probe`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Probed {
    /// It makes none of the combination's unexplained answers fail: away from their bug.
    Away,
    /// It makes every answer of the combination fail: near the bug, a place to walk on,
    /// but no split.
    Near,
    /// It makes an unexplained answer fail and another answer of the combination pass: it
    /// may split the combination, and is run in full.
    Split,
}

impl Probed {
    fn of(near: bool, whole: bool) -> Probed {
        match (near, whole) {
            (false, _) => Probed::Away,
            (true, true) => Probed::Near,
            (true, false) => Probed::Split,
        }
    }
}

/// The most the search's caches may hold (see [`Search::forget`]): the inputs evaluated
/// and their verdicts, and what the generator made of each shrink candidate and
/// neighbour. A class's search meets mostly small inputs again and again, which cost
/// little (the cryptarithm's whole search holds some 10 MB); long ones rarely recur, and
/// the neighbourhoods of long suite tests (a bug needing 101 numbers, each test 8 MB of
/// edits) held 3.5 GB of a 120-program class's search before this bound.
const MAX_CACHE_BYTES: usize = 256 << 20;

/// The bytes a cache entry costs beyond its contents: the hash table's slot, the vector's
/// header, the allocator's rounding.
const ENTRY_BYTES: usize = 64;

/// About the bytes a cached vector of `values` holds.
fn cached_bytes<T>(values: &[T]) -> usize {
    ENTRY_BYTES + std::mem::size_of_val(values)
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
    let mut search = Search::new(problem, answers, executor, calibrate(problem, executor))?;
    let mut suite: Suite<Made> = Suite::default();
    let searched = search.run(&mut suite, seed, progress)?;
    Ok(search.finish(suite, seed, searched, None, answers, &HashMap::new()))
}

/// Analyses `answers` afresh, like [`analyse`], but a test whose input `previous`'s suite
/// had keeps its id there (see [`crate::rerun()`]).
pub(crate) fn analyse_with_ids(
    problem: &Problem,
    answers: &[Answer],
    executor: &dyn Executor,
    seed: u64,
    previous: &Analysis,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Analysis, GraderError> {
    let mut search = Search::new(problem, answers, executor, calibrate(problem, executor))?;
    let mut suite: Suite<Made> = Suite::default();
    let searched = search.run(&mut suite, seed, progress)?;
    Ok(search.finish(suite, seed, searched, Some(previous), answers, &HashMap::new()))
}

/// What the random search did besides building the suite.
#[derive(Default)]
pub(crate) struct Searched {
    pub(crate) tests_generated: u64,
    pub(crate) generator_failures: u64,
    pub(crate) unusable: Tally,
    /// How complete the search is, from the random tests' failing sets.
    pub(crate) completeness: Option<Completeness>,
    /// The search ended because every input the generator can make was tried.
    pub(crate) exhausted: bool,
}

impl<'a> Search<'a> {
    pub(crate) fn new(problem: &'a Problem, answers: &'a [Answer], executor: &'a dyn Executor, calibration: Calibration) -> Result<Search<'a>, GraderError> {
        if let Some(bad) = answers.iter().find(|a| a.program == 0) {
            return Err(GraderError::AnswerIsReference(bad.id.clone()));
        }
        let mut run: Vec<usize> = answers.iter().map(|a| a.program).collect();
        run.sort_unstable();
        run.dedup();
        Ok(Search {
            problem,
            answers,
            executor,
            calibration,
            programs: answers.iter().map(|a| a.program).max().unwrap_or(0) + 1,
            run,
            evaluations: HashMap::new(),
            evaluated_order: VecDeque::new(),
            cache_bytes: 0,
            cache_limit: MAX_CACHE_BYTES,
            replays: HashMap::new(),
            ranges: HashMap::new(),
            executions: 0,
            generator_runs: 0,
            neighbour_tests: 0,
            split_tests: 0,
            tests_shrunk: 0,
        })
    }

    /// Paper III's search: random tests (and mutants of suite tests) until
    /// `stable_after` in a row add nothing, each irredundant one shrunk into `suite`.
    pub(crate) fn run(&mut self, suite: &mut Suite<Made>, seed: u64, progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>) -> Result<Searched, GraderError> {
        let search = self;
        let executor = search.executor;
        search.run_course_tests(suite)?;
        let (mut tests_generated, mut stable_run) = (0u64, 0u64);
        let mut generator_failures = 0u64;
        let mut unusable = Tally::default();
        let mut next = 0u64;
        // Usable random tests, and how many fell in each non-empty failing set.
        let (mut random_tests, mut sets) = (0u64, SetTally::default());
        let options = search.problem.search;
        // `shrinking`: the candidates tried on the test being shrunk.
        // Whether the search has looked enough: the paper's rule, or the estimate's.
        let done = |stable_run: u64, random_tests: u64, seen_once: u64| match options.estimate {
            None => stable_run >= options.stable_after,
            Some(rule) => rule.reached(random_tests, seen_once),
        };
        // Under the estimate rule: the chance now (counting at least one set seen once) and
        // the chance the search stops at.
        let estimate = |random_tests: u64, seen_once: u64| options.estimate.map(|rule| (seen_once.max(1) as f64 / random_tests.max(1) as f64, rule.chance));
        let report = |progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
                      search: &Search,
                      suite_size,
                      tests_generated,
                      stable_run,
                      estimate,
                      shrinking: Option<u64>| {
            progress(&Progress {
                tests_generated,
                suite_size,
                stable_run,
                stable_after: options.stable_after,
                estimate,
                executions: search.executions,
                shrinking: shrinking.is_some(),
                shrink_candidates: shrinking.unwrap_or(0),
                tests_shrunk: search.tests_shrunk,
            })
        };
        // Every input the generator can make tried (a small choice tree walked to its ends,
        // or a generator that draws no choice at all): the search ends instead of trying
        // them again for `stable_after` tests.
        let (mut tried, mut exhausted) = (Exhaustion::new(), false);
        'search: while !exhausted && !done(stable_run, random_tests, sets.seen_once().1) && next < options.max_tests {
            // Mutants are of the generated suite tests: the course's have no choices to redraw.
            let parents: Vec<&TestCase> =
                suite.tests().iter().filter(|((_, input), _)| search.course_test(input).is_none()).map(|((test, _), _)| test).collect();
            let (first, mutants) = (next, !parents.is_empty());
            let batch: Vec<Generated> = (next..(next + BATCH).min(options.max_tests))
                .into_par_iter()
                .map(|index| {
                    let source = if mutants && index % MUTANT_EVERY == MUTANT_EVERY - 1 {
                        let mut rng = Rng::for_test(seed ^ MUTANT_KEY, index);
                        let parent = parents[rng.below_or_equal(parents.len() as u64 - 1) as usize];
                        ChoiceSource::mutant(parent, rng)
                    } else {
                        ChoiceSource::for_random_test(seed, index)
                    };
                    let (input, source) = executor.generate(source);
                    let (maxima, read_size) = (source.maxima().to_vec(), source.read_size());
                    (source.into_test_case(), input.map(Arc::from), maxima, read_size)
                })
                .collect();
            next += batch.len() as u64;
            search.generator_runs += batch.len() as u64;
            search.evaluate_all(batch.iter().filter_map(|(_, input, _, _)| input.as_ref().ok()));

            for (index, (test, input, maxima, read_size)) in (first..).zip(batch) {
                if done(stable_run, random_tests, sets.seen_once().1) || exhausted {
                    break 'search;
                }
                tried.record(&test, &maxima, read_size);
                exhausted = tried.exhausted();
                let random = !(mutants && index % MUTANT_EVERY == MUTANT_EVERY - 1);
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
                let mut irredundant = match search.irredundant(&input, suite) {
                    Ok(irredundant) => irredundant,
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
                if random {
                    random_tests += 1;
                    let failing = search.known_failing(&input);
                    if !failing.is_empty() {
                        sets.add(failing);
                    }
                }
                // Beyond the paper: the shrunk test may fail fewer answers than `test`, which
                // can leave `test` itself irredundant. Shrink it again until it is explained
                // by the suite, so that every generated test ends up redundant.
                let mut added = Vec::new();
                while irredundant.is_some() {
                    let suite_size = suite.len();
                    let now = estimate(random_tests, sets.seen_once().1);
                    let mut tick = |search: &Search, tried| report(progress, search, suite_size, tests_generated, stable_run, now, Some(tried));
                    let (small, small_input, small_failing) = search.shrink(test.clone(), suite, &mut tick).ok_or(GraderError::Cancelled)?;
                    added.push(small.clone());
                    suite.add((small, small_input), small_failing);
                    stable_run = 0;
                    irredundant = search.irredundant(&input, suite).expect("the input was usable");
                }
                let now = estimate(random_tests, sets.seen_once().1);
                let mut tick = |search: &Search, suite_size, tried| report(progress, search, suite_size, tests_generated, stable_run, now, Some(tried));
                search.explore_neighbours(added, suite, &mut tick).ok_or(GraderError::Cancelled)?;
                search.forget(suite);
            }
            if report(progress, search, suite.len(), tests_generated, stable_run, estimate(random_tests, sets.seen_once().1), None).is_break() {
                return Err(GraderError::Cancelled);
            }
        }
        let now = estimate(random_tests, sets.seen_once().1);
        let mut tick = |search: &Search, suite_size, tried| report(progress, search, suite_size, tests_generated, stable_run, now, Some(tried));
        search.split_combinations(suite, seed, tests_generated / SPLIT_SHARE, &mut tick).ok_or(GraderError::Cancelled)?;
        Ok(Searched { tests_generated, generator_failures, unusable, completeness: Some(sets.estimate(random_tests)), exhausted })
    }
}

/// One test being shrunk: a candidate is interesting when it is irredundant with respect
/// to `suite`. The candidates the shrinker announces are replayed and evaluated together,
/// so that each answer runs on them in a row and the generator runs in parallel; only the
/// execution count sees it (`irredundant` finds them evaluated).
struct Shrinking<'s, 'a, 't> {
    search: &'s mut Search<'a>,
    suite: &'t Suite<Made>,
    /// `tick(search, candidates tried)`, before each candidate; breaks to stop.
    tick: &'t mut dyn FnMut(&Search, u64) -> ControlFlow<()>,
    tried: u64,
    stopped: bool,
}

impl Candidates for &mut Shrinking<'_, '_, '_> {
    fn interesting(&mut self, candidate: &TestCase) -> Option<TestCase> {
        self.stopped = self.stopped || (self.tick)(self.search, self.tried).is_break();
        if self.stopped {
            return None;
        }
        self.tried += 1;
        let (made, input) = self.search.replay(candidate)?;
        self.search.irredundant(&input, self.suite).ok()?.map(|_| made)
    }

    fn look_ahead(&mut self, candidates: &[TestCase]) {
        if self.stopped {
            return;
        }
        let made = self.search.replay_all(candidates);
        self.search.evaluate_all(made.iter().flatten().map(|(_, input)| input));
    }
}

/// Unusable inputs met by the random search.
#[derive(Default)]
pub(crate) struct Tally {
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

pub(crate) struct Search<'a> {
    problem: &'a Problem,
    answers: &'a [Answer],
    executor: &'a dyn Executor,
    /// The reference's cost by input size: the basis of every budget.
    calibration: Calibration,
    programs: usize,
    /// The programs of `answers`, the only ones run (an answer outside the search, such
    /// as one whose result a re-run copies, costs nothing).
    run: Vec<usize>,
    /// Every input evaluated so far: random tests repeat, and shrinking revisits inputs.
    evaluations: HashMap<Arc<[u8]>, Evaluation>,
    /// The inputs of `evaluations` in the order they were evaluated: the oldest are
    /// forgotten first (see [`Search::forget`]).
    evaluated_order: VecDeque<Arc<[u8]>>,
    /// About how many bytes `evaluations`, `replays` and `ranges` hold, and the most they
    /// may ([`MAX_CACHE_BYTES`]).
    cache_bytes: usize,
    cache_limit: usize,
    /// Shrink candidates replayed so far: what the generator made of them. Keyed by the
    /// whole test case: the same choices at another size can make another input.
    replays: HashMap<TestCase, Option<Made>>,
    /// The range (largest value) of each choice of the test cases replayed so far (by
    /// test case too: the ranges a generator draws from may depend on the size).
    ranges: HashMap<TestCase, Vec<u64>>,
    executions: u64,
    generator_runs: u64,
    neighbour_tests: u64,
    split_tests: u64,
    /// Tests shrunk so far (see [`Progress::tests_shrunk`]).
    tests_shrunk: u64,
}

impl Search<'_> {
    /// The course's tests ([`Problem::fixed`]), before any random test: each run on every
    /// answer with the fair budget, checked against the reference (which must run it, and
    /// agree with its expected output when it has one), and added to `suite`, in the
    /// course's order, when irredundant. Never shrunk: the course wrote them as they are.
    fn run_course_tests(&mut self, suite: &mut Suite<Made>) -> Result<(), GraderError> {
        let (problem, executor) = (self.problem, self.executor);
        let invalid = |name: &str, reason: String| GraderError::CourseTestInvalid { name: name.to_owned(), reason };
        let inputs: Vec<Arc<[u8]>> = problem.fixed.iter().map(|test| Arc::from(test.input.as_slice())).collect();
        self.evaluate_all(inputs.iter());
        for (test, input) in problem.fixed.iter().zip(&inputs) {
            let reference = self.evaluations[input].reference().map_err(|why| invalid(&test.name, not_valid(why)))?;
            agrees(problem, executor, test, &reference).map_err(|reason| invalid(&test.name, reason))?;
        }
        for (test, input) in problem.fixed.iter().zip(&inputs) {
            let failing = self.failing_set_fair(input).map_err(|why| invalid(&test.name, why.to_string()))?;
            if !suite.is_redundant(&failing) {
                suite.add((TestCase { size: 0, choices: ChoiceSequence(Vec::new()) }, input.clone()), failing);
            }
        }
        Ok(())
    }

    /// The name of the course's test whose input `input` is, if it is one.
    fn course_test(&self, input: &[u8]) -> Option<&str> {
        self.problem.fixed.iter().find(|test| *test.input == *input).map(|test| test.name.as_str())
    }

    /// The course's tests `program` fails, by name in the course's order (their verdicts
    /// are fair: [`Search::run_course_tests`] resolved them).
    fn course_tests_failed(&self, program: usize) -> Vec<String> {
        self.problem
            .fixed
            .iter()
            .filter(|test| self.evaluations.get(test.input.as_slice()).is_some_and(|e| e.verdicts.get(program).is_some_and(Option::is_some)))
            .map(|test| test.name.clone())
            .collect()
    }

    /// Evaluates the inputs not seen before, in parallel. Duplicates are removed first, in
    /// order, so the execution count does not depend on scheduling.
    ///
    /// The reference runs on every input first; then each answer program runs on all the
    /// usable inputs in a row, so that consecutive runs on a thread are of one module and
    /// its instance slot stays warm (a class of 1,000 run input by input would instantiate
    /// a different module every run).
    fn evaluate_all<'i>(&mut self, inputs: impl Iterator<Item = &'i Arc<[u8]>>) {
        let mut fresh: Vec<Arc<[u8]>> = Vec::new();
        for input in inputs {
            if !self.evaluations.contains_key(input) && !fresh.contains(input) {
                fresh.push(input.clone());
            }
        }
        if fresh.is_empty() {
            return;
        }
        let (problem, executor, calibration) = (self.problem, self.executor, &self.calibration);
        let references: Vec<Result<(Execution, Budget), Unusable>> = fresh
            .par_iter()
            .map(|input| {
                let reference = run_reference(problem, executor, input)?;
                let budget = budget(problem, calibration, input, &reference);
                Ok((reference, budget))
            })
            .collect();
        let usable: Vec<usize> = (0..fresh.len()).filter(|&i| references[i].is_ok()).collect();
        // One round: every program on every usable input, program by program.
        let (fresh_inputs, quick) = (&fresh, |i: usize| references[i].as_ref().expect("usable").1.quick);
        let requests: Vec<RunRequest<'_>> =
            self.run.iter().flat_map(|&program| usable.iter().map(move |&i| RunRequest { program, input: &fresh_inputs[i], fuel: quick(i) })).collect();
        let executions = executor.run_all(&requests);
        let verdicts: Vec<Result<Option<FailureKind>, String>> = requests
            .par_iter()
            .zip(executions)
            .enumerate()
            .map(|(n, (request, execution))| {
                let reference = &references[usable[n % usable.len()]].as_ref().expect("usable").0;
                judge_answer(problem, executor, request.input, reference, &execution).map(|failure| failure.map(|f| f.kind))
            })
            .collect();
        // Each usable input's verdicts in program order.
        let mut judged: Vec<Vec<Result<Option<FailureKind>, String>>> = vec![Vec::with_capacity(self.run.len()); usable.len()];
        for (n, verdict) in verdicts.into_iter().enumerate() {
            judged[n % usable.len()].push(verdict);
        }
        let mut judged = judged.into_iter();
        for (input, reference) in fresh.into_iter().zip(references) {
            let evaluation = match reference {
                Err(why) => {
                    self.executions += 1;
                    Evaluation { expected: Err(why), reference_fuel: 0, budget: Budget::default(), verdicts: Vec::new(), pending: Vec::new() }
                }
                Ok((reference, budget)) => {
                    self.executions += 1 + self.run.len() as u64;
                    // The checker failure reported is the first in program order.
                    match judged.next().expect("verdicts for every usable input").into_iter().collect::<Result<Vec<_>, String>>() {
                        Ok(judged) => {
                            let mut verdicts = vec![None; self.programs];
                            for (&program, verdict) in self.run.iter().zip(judged) {
                                verdicts[program] = verdict;
                            }
                            Evaluation {
                                pending: if budget.fair > budget.quick {
                                    (0..verdicts.len()).filter(|&p| verdicts[p] == Some(FailureKind::Timeout)).collect()
                                } else {
                                    Vec::new()
                                },
                                expected: Ok(reference.stdout),
                                reference_fuel: reference.fuel_used,
                                budget,
                                verdicts,
                            }
                        }
                        Err(reason) => Evaluation {
                            expected: Err(Unusable::Checker(reason)),
                            reference_fuel: reference.fuel_used,
                            budget,
                            verdicts: Vec::new(),
                            pending: Vec::new(),
                        },
                    }
                }
            };
            self.cache_bytes += evaluation.bytes(&input);
            self.evaluated_order.push_back(input.clone());
            self.evaluations.insert(input, evaluation);
        }
    }

    /// What the search's runs settle on `input` for the grading sample (see [`Known`]): a
    /// verdict with the quick budget is the fair one but for a timeout (it was either
    /// pending, or re-run with the fair budget, where a checker failure is kept as a
    /// timeout and the sample judges nothing); an input whose checker failed is run again
    /// (the search sets it aside whole, the sample the one program).
    fn known(&self, input: &[u8]) -> Option<Known> {
        let evaluation = self.evaluations.get(input)?;
        let reference = match &evaluation.expected {
            Err(Unusable::Reference(_)) => return Some(Known::Unusable),
            Err(Unusable::Checker(_)) => return None,
            Ok(_) => evaluation.reference().ok()?,
        };
        let fair = evaluation.budget.fair;
        let mut verdicts = vec![None; self.programs];
        for &program in &self.run {
            let verdict = evaluation.verdicts[program];
            if !evaluation.pending.contains(&program) && (verdict != Some(FailureKind::Timeout) || fair == evaluation.budget.quick) {
                verdicts[program] = Some(verdict);
            }
        }
        Some(Known::Usable { reference, fair, verdicts })
    }

    /// The answers a usable, evaluated `input` is known to fail: a timeout still pending
    /// (not yet given the fair budget) is not counted, so that a set is never a guess.
    fn known_failing(&self, input: &Arc<[u8]>) -> FailingSet {
        let evaluation = &self.evaluations[input];
        let failing = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some() && !evaluation.pending.contains(&a.program));
        FailingSet::of(self.answers.len(), failing.map(|(i, _)| i))
    }

    /// `AnswersFailing(input)`, or why the input is unusable; pending timeouts count as
    /// failures.
    fn failing_set(&mut self, input: &Arc<[u8]>) -> Result<FailingSet, Unusable> {
        self.evaluate_all(std::iter::once(input));
        let evaluation = &self.evaluations[input];
        evaluation.expected.as_ref().map_err(Clone::clone)?;
        let failing = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some());
        Ok(FailingSet::of(self.answers.len(), failing.map(|(i, _)| i)))
    }

    /// `AnswersFailing(input)` when `input` is irredundant with respect to `suite`, `None`
    /// when it is redundant. Pending timeouts are given the fair budget only when their
    /// verdicts can matter: when some way they could turn out (each a pass or a failure)
    /// leaves the input irredundant. So an answer stuck in a loop costs the quick budget on
    /// every input that is redundant anyway, while every failing set that is added to the
    /// suite, and so every grade, rests on fair verdicts only.
    fn irredundant(&mut self, input: &Arc<[u8]>, suite: &Suite<Made>) -> Result<Option<FailingSet>, Unusable> {
        let failing = self.failing_set(input)?;
        let evaluation = &self.evaluations[input];
        if evaluation.pending.is_empty() {
            return Ok((!suite.is_redundant(&failing)).then_some(failing));
        }
        let pending = &evaluation.pending;
        let settled = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some() && !pending.contains(&a.program));
        let settled = FailingSet::of(self.answers.len(), settled.map(|(i, _)| i));
        let groups: Vec<FailingSet> = pending
            .iter()
            .map(|&program| FailingSet::of(self.answers.len(), self.answers.iter().enumerate().filter(|(_, a)| a.program == program).map(|(i, _)| i)))
            .collect();
        if suite.is_redundant_whatever(&settled, &groups) {
            return Ok(None);
        }
        self.resolve_pending(input);
        let failing = self.failing_set(input)?;
        Ok((!suite.is_redundant(&failing)).then_some(failing))
    }

    /// `AnswersFailing(input)` with every verdict a fair one.
    pub(crate) fn failing_set_fair(&mut self, input: &Arc<[u8]>) -> Result<FailingSet, Unusable> {
        self.failing_set(input)?;
        self.resolve_pending(input);
        self.failing_set(input)
    }

    /// Gives every pending timeout on an evaluated, usable `input` the fair budget.
    fn resolve_pending(&mut self, input: &Arc<[u8]>) {
        let evaluation = self.evaluations.get_mut(input).expect("evaluated before");
        let pending = std::mem::take(&mut evaluation.pending);
        if pending.is_empty() {
            return;
        }
        let reference = evaluation.reference().expect("a usable input");
        let fair = evaluation.budget.fair;
        let (problem, executor) = (self.problem, self.executor);
        // A checker that failed here failed on an output it had not seen with the quick
        // budget: the verdict stays a timeout, which the answer cannot be blamed for
        // beyond what the quick budget showed.
        let resolved: Vec<(usize, Option<FailureKind>)> = pending
            .par_iter()
            .map(|&program| {
                let verdict = run_answer(problem, executor, input, &reference, program, fair).1;
                (program, verdict.map_or(Some(FailureKind::Timeout), |f| f.map(|f| f.kind)))
            })
            .collect();
        self.executions += resolved.len() as u64;
        let evaluation = self.evaluations.get_mut(input).expect("evaluated above");
        for (program, verdict) in resolved {
            evaluation.verdicts[program] = verdict;
        }
    }

    /// Beyond the paper: the [`neighbours`] of each new suite test are tried too, and any
    /// that is irredundant is shrunk and added in turn, its own neighbours then tried.
    /// Bugs that only a rare combination of features provokes often sit next to one
    /// already found: exploring there finds them in every run instead of in some, which
    /// keeps suites, and so ranks, stable from seed to seed.
    /// `tick(search, suite size, candidates tried)` is called as each test is shrunk;
    /// `None` when it asked to stop.
    fn explore_neighbours(
        &mut self,
        start: Vec<TestCase>,
        suite: &mut Suite<Made>,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let mut frontier: std::collections::VecDeque<TestCase> = start.into();
        while let Some(test) = frontier.pop_front() {
            // Each neighbourhood is a step of its own: the caches of the last one may go
            // (a chain of long tests' neighbourhoods held 1.1 GB of a 120-version class's
            // heap when the caches were only kept in bounds after the whole frontier).
            self.forget(suite);
            let ranges = self.ranges.get(&test).cloned().unwrap_or_default();
            let neighbours = self.replay_all(&neighbours(&test, &ranges));
            // All of them are evaluated below whatever happens in between: together, each
            // answer runs on all of them in a row (see `evaluate_all`).
            self.evaluate_all(neighbours.iter().flatten().map(|(_, input)| input));
            for neighbour in neighbours {
                self.neighbour_tests += 1;
                let Some((made, input)) = neighbour else { continue };
                if let Ok(Some(_)) = self.irredundant(&input, suite) {
                    let suite_size = suite.len();
                    let (small, small_input, small_failing) = self.shrink(made, suite, &mut |search, tried| tick(search, suite_size, tried))?;
                    frontier.push_back(small.clone());
                    suite.add((small, small_input), small_failing);
                }
            }
        }
        Some(())
    }

    /// Beyond the paper: the split search, once the random search is done. A suite test
    /// whose failing set is partly the union of smaller suite sets (its *unexplained*
    /// answers, those in no smaller set, being some but not all) is a suspected
    /// combination: the bugs of the explained answers and of the unexplained ones may be
    /// two bugs its input happens to provoke together, and an input that provokes only the
    /// unexplained ones would make it redundant. A seed whose search never met that input
    /// keeps the combination, and every answer in it fails one test more than under a seed
    /// that did: the instability of Paper III section 5.1. The shrinker cannot split it
    /// (every simpler input was tried when it was shrunk, and redundancy only grows), nor
    /// can one edit ([`Search::explore_neighbours`] tried them all); [`Search::split`]
    /// walks further. Each suspect is tried once until `budget` inputs were tried, those
    /// with the fewest unexplained answers first (one answer's bug is missing to explain
    /// them), then those with the most explained ones; a split changes the suite, and the
    /// suspects are looked for again.
    /// `tick` as for [`Search::explore_neighbours`].
    fn split_combinations(
        &mut self,
        suite: &mut Suite<Made>,
        seed: u64,
        budget: u64,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let mut tried: HashSet<Arc<[u8]>> = HashSet::new();
        while self.split_tests < budget {
            let suspects = suite.tests().iter().filter_map(|((test, input), failing)| {
                if tried.contains(input) || self.course_test(input).is_some() {
                    return None;
                }
                let explained = union_within(failing, suite.tests().iter().map(|(_, set)| set).filter(|set| *set != failing));
                let unexplained = failing.difference(&explained);
                (!explained.is_empty() && !unexplained.is_empty()).then(|| (test.clone(), input.clone(), explained, unexplained))
            });
            let suspect = suspects.min_by_key(|(_, _, explained, unexplained)| (unexplained.len(), std::cmp::Reverse(explained.len())));
            let Some((test, input, explained, unexplained)) = suspect else { return Some(()) };
            tried.insert(input);
            self.split(test, &explained, &unexplained, suite, seed, tick)?;
            self.forget(suite);
        }
        Some(())
    }

    /// Looks for an irredundant input near the suspected combination `test` (see
    /// [`Search::split_combinations`]): [`SPLIT_TESTS`] inputs two or three random edits
    /// ([`random_edit`]) away from it or from an input found on the way that still makes
    /// one of its `unexplained` answers fail (so that the walk stays where that answer's
    /// bug shows). Only an input that makes one of them fail and another of its answers
    /// (`explained` or `unexplained`) pass can split it: [`Search::probe`] tells them, and
    /// only they are run in full. The first irredundant one is shrunk and added, its
    /// neighbours explored, and the walk ends. `None` when `tick` asked to stop.
    fn split(
        &mut self,
        test: TestCase,
        explained: &FailingSet,
        unexplained: &FailingSet,
        suite: &mut Suite<Made>,
        seed: u64,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let programs = |set: &FailingSet| {
            let mut programs: Vec<usize> = set.iter().map(|a| self.answers[a].program).filter(|p| self.run.contains(p)).collect();
            programs.sort_unstable();
            programs.dedup();
            programs
        };
        let (unexplained, explained) = (programs(unexplained), programs(explained));
        if unexplained.is_empty() {
            return Some(());
        }
        let mut walk = vec![test];
        for _ in 0..SPLIT_TESTS.div_ceil(BATCH) {
            let first = self.split_tests;
            self.split_tests += BATCH;
            let edited: Vec<TestCase> = (first..first + BATCH)
                .map(|k| {
                    let mut rng = Rng::for_test(seed ^ SPLIT_KEY, k);
                    let parent = &walk[rng.below_or_equal(walk.len() as u64 - 1) as usize];
                    let ranges = self.ranges.get(parent).map_or(&[][..], Vec::as_slice);
                    let mut choices = parent.choices.0.clone();
                    for _ in 0..2 + rng.below_or_equal(1) {
                        choices = random_edit(&choices, ranges, &mut rng);
                    }
                    TestCase { size: parent.size, choices: ChoiceSequence(choices) }
                })
                .collect();
            let made: Vec<Made> = self.replay_all(&edited).into_iter().flatten().collect();
            let inputs: Vec<Arc<[u8]>> = made.iter().map(|(_, input)| input.clone()).collect();
            let probed = self.probe(&inputs, &unexplained, &explained);
            self.evaluate_all(inputs.iter().zip(&probed).filter(|(_, probed)| **probed == Probed::Split).map(|(input, _)| input));
            for ((made, input), probed) in made.into_iter().zip(probed) {
                if probed == Probed::Split
                    && let Ok(Some(_)) = self.irredundant(&input, suite)
                {
                    let suite_size = suite.len();
                    let (small, small_input, small_failing) = self.shrink(made, suite, &mut |search, tried| tick(search, suite_size, tried))?;
                    suite.add((small.clone(), small_input), small_failing);
                    return self.explore_neighbours(vec![small], suite, tick);
                }
                if probed != Probed::Away && walk.len() < MAX_WALK {
                    walk.push(made);
                }
            }
        }
        Some(())
    }

    /// What each of `inputs` is to a split walk ([`Probed`]), from runs of the reference, of
    /// the `unexplained` programs, and then, if they all fail, of the `explained` ones until
    /// one passes (a quick budget's timeout, or a checker that failed, counting as a
    /// failure). An input evaluated before is answered from its verdicts. Nothing is kept:
    /// a split walk's inputs mostly provoke the bugs of the combination it started from, and
    /// running every answer on each (the class may have hundreds) would cost a random
    /// test's runs for nothing.
    fn probe(&mut self, inputs: &[Arc<[u8]>], unexplained: &[usize], explained: &[usize]) -> Vec<Probed> {
        let (problem, executor, calibration, evaluations) = (self.problem, self.executor, &self.calibration, &self.evaluations);
        let probed: Vec<(Probed, u64)> = inputs
            .par_iter()
            .map(|input| {
                if let Some(evaluation) = evaluations.get(input) {
                    let fails = |p: &usize| evaluation.verdicts.get(*p).is_some_and(Option::is_some);
                    let near = unexplained.iter().any(fails);
                    return (Probed::of(near, near && unexplained.iter().chain(explained).all(fails)), 0);
                }
                let Ok(reference) = run_reference(problem, executor, input) else { return (Probed::Away, 1) };
                let quick = budget(problem, calibration, input, &reference).quick;
                let mut runs = 1;
                let mut fails = |program: &usize| {
                    runs += 1;
                    !matches!(run_answer(problem, executor, input, &reference, *program, quick).1, Ok(None))
                };
                let failed: Vec<bool> = unexplained.iter().map(&mut fails).collect();
                let near = failed.contains(&true);
                let probed = Probed::of(near, near && !failed.contains(&false) && explained.iter().all(&mut fails));
                (probed, runs)
            })
            .collect();
        self.executions += probed.iter().map(|(_, runs)| runs).sum::<u64>();
        probed.into_iter().map(|(probed, _)| probed).collect()
    }

    /// Keeps the search's caches (`evaluations`, `replays`, `ranges`) within
    /// [`MAX_CACHE_BYTES`] (`cache_limit`): once beyond it, every replay is forgotten, every range but a
    /// suite test's, and the evaluations of inputs that are neither suite tests nor the
    /// course's, oldest first, until the caches hold half of it. A forgotten input met
    /// again is run again, with the same verdicts: only the execution count sees it, and
    /// it is the same for the same seed. Called between the search's steps, never within
    /// one (a shrink finds its candidates evaluated).
    fn forget(&mut self, suite: &Suite<Made>) {
        if self.cache_bytes <= self.cache_limit {
            return;
        }
        let problem = self.problem;
        let kept_tests: HashSet<&TestCase> = suite.tests().iter().map(|((test, _), _)| test).collect();
        let kept_inputs: HashSet<&[u8]> =
            suite.tests().iter().map(|((_, input), _)| &input[..]).chain(problem.fixed.iter().map(|test| &test.input[..])).collect();
        self.replays.clear();
        self.ranges.retain(|test, _| kept_tests.contains(test));
        self.cache_bytes = self.ranges.iter().map(|(test, ranges)| cached_bytes(&test.choices.0) + cached_bytes(ranges)).sum::<usize>()
            + self.evaluations.iter().map(|(input, evaluation)| evaluation.bytes(input)).sum::<usize>();
        let mut kept = Vec::new();
        while self.cache_bytes > self.cache_limit / 2
            && let Some(input) = self.evaluated_order.pop_front()
        {
            if kept_inputs.contains(&input[..]) {
                kept.push(input);
            } else if let Some(evaluation) = self.evaluations.remove(&input) {
                self.cache_bytes -= evaluation.bytes(&input);
            }
        }
        for input in kept.into_iter().rev() {
            self.evaluated_order.push_front(input);
        }
    }

    /// What the generator makes of a shrink candidate (`None`: it failed).
    fn replay(&mut self, candidate: &TestCase) -> Option<Made> {
        self.replay_all(std::slice::from_ref(candidate)).pop().flatten()
    }

    /// What the generator makes of each candidate, the ones not replayed before run in
    /// parallel (each distinct one once, so `generator_runs` is as if run one by one).
    fn replay_all(&mut self, candidates: &[TestCase]) -> Vec<Option<Made>> {
        let mut seen = std::collections::HashSet::new();
        let fresh: Vec<&TestCase> = candidates.iter().filter(|candidate| !self.replays.contains_key(*candidate) && seen.insert(*candidate)).collect();
        let executor = self.executor;
        let made: Vec<(Result<Vec<u8>, String>, ChoiceSource)> = fresh.par_iter().map(|candidate| executor.generate(ChoiceSource::replay(candidate))).collect();
        self.generator_runs += fresh.len() as u64;
        for (candidate, (input, source)) in fresh.into_iter().zip(made) {
            let ranges = source.maxima().to_vec();
            let made: Option<Made> = input.ok().map(|input| (source.into_test_case(), Arc::from(input)));
            if let Some((test, input)) = &made {
                self.cache_bytes += cached_bytes(&test.choices.0) + input.len();
                if !self.ranges.contains_key(test) {
                    self.cache_bytes += cached_bytes(&test.choices.0) + cached_bytes(&ranges);
                    self.ranges.insert(test.clone(), ranges);
                }
            }
            self.cache_bytes += cached_bytes(&candidate.choices.0);
            self.replays.insert(candidate.clone(), made);
        }
        candidates.iter().map(|candidate| self.replays[candidate].clone()).collect()
    }

    /// Shrinks an irredundant test to a simplest test that is still irredundant with
    /// respect to `suite` (which may fail a different set of answers). `tick(search,
    /// candidates tried)` is called before each candidate; `None` when it asked to stop.
    fn shrink(
        &mut self,
        test: TestCase,
        suite: &Suite<Made>,
        tick: &mut dyn FnMut(&Search, u64) -> ControlFlow<()>,
    ) -> Option<(TestCase, Arc<[u8]>, FailingSet)> {
        let mut shrinking = Shrinking { search: self, suite, tick, tried: 0, stopped: false };
        let small = shrink(test, SHRINK_BUDGET, &mut shrinking);
        if shrinking.stopped {
            return None;
        }
        self.tests_shrunk += 1;
        let (made, input) = self.replay(&small).expect("the shrunk test replays");
        let failing = self.failing_set(&input).expect("the shrunk test was evaluated");
        Some((made, input, failing))
    }

    /// The [`Analysis`] of the finished search. With `previous`, tests keep their ids
    /// (see [`name_tests`]); with `copied`, the answers of `everyone` that are not searched
    /// keep the result given there, and the suite's pinned tests alone are scored.
    pub(crate) fn finish(
        self,
        suite: Suite<Made>,
        seed: u64,
        searched: Searched,
        previous: Option<&Analysis>,
        everyone: &[Answer],
        copied: &HashMap<String, AnswerResult>,
    ) -> Analysis {
        let pinned = suite.pinned_len();
        let frozen = !copied.is_empty() || pinned > 0;
        let mut tests = suite.into_tests();
        let test_ids = name_tests(&mut tests, pinned, previous);
        // Points are counted over the released suite when there is one: tests added for a
        // resubmission count against it, never for anyone else.
        let scored = match previous {
            Some(previous) if frozen => previous.scored_tests(),
            _ => tests.len(),
        };
        let only_for: Vec<String> = self.answers.iter().map(|a| a.id.clone()).collect();
        let searched_index: HashMap<&str, usize> = self.answers.iter().enumerate().map(|(a, answer)| (answer.id.as_str(), a)).collect();

        // Every failed run on a suite test once more, for what the verdict alone does not
        // keep: the checker's reason, the crash message, the fuel used. Runs are
        // deterministic, so each fails again the same way.
        let failed_runs: Vec<(usize, usize)> = {
            let mut runs: Vec<(usize, usize)> = (0..tests.len()).flat_map(|t| tests[t].1.iter().map(move |a| (t, self.answers[a].program))).collect();
            runs.sort_unstable();
            runs.dedup();
            runs
        };
        let details: HashMap<(usize, usize), FailureDetail> = failed_runs
            .par_iter()
            .map(|&(t, program)| {
                let input = &tests[t].0.1;
                let evaluation = &self.evaluations[input];
                let kind = evaluation.verdicts[program].expect("a failed test has a failure kind");
                let reference = evaluation.reference().expect("suite inputs are valid");
                ((t, program), failure_detail(self.problem, self.executor, input, &reference, program, evaluation.budget.fair, kind))
            })
            .collect();
        // Points, for the answers searched: each distinct program on the grading sample.
        let programs: Vec<usize> = {
            let mut programs: Vec<usize> = self.answers.iter().filter(|a| !copied.contains_key(&a.id)).map(|a| a.program).collect();
            programs.sort_unstable();
            programs.dedup();
            programs
        };
        let (sampled, sample_runs) = sample_failures(self.problem, self.executor, &self.calibration, &programs, &|input| self.known(input));
        let executions = self.executions + failed_runs.len() as u64 + sample_runs;

        let mut rows: Vec<AnswerResult> = everyone
            .iter()
            .map(|answer| {
                if let Some(row) = copied.get(&answer.id) {
                    return AnswerResult { version: answer.version.clone(), cohort: answer.cohort.clone(), ..row.clone() };
                }
                let a = searched_index[answer.id.as_str()];
                let failed: Vec<usize> = (0..tests.len()).filter(|&t| tests[t].1.contains(a)).collect();
                let failures: BTreeMap<String, FailureDetail> = failed.iter().map(|&t| (test_ids[t].clone(), details[&(t, answer.program)].clone())).collect();
                let outcomes: BTreeMap<String, FailureKind> = failures.iter().map(|(t, detail)| (t.clone(), detail.failure.kind)).collect();
                AnswerResult {
                    id: answer.id.clone(),
                    cohort: answer.cohort.clone(),
                    version: answer.version.clone(),
                    passed: scored.saturating_sub(failed.len()),
                    failed: failed.iter().map(|&t| test_ids[t].clone()).collect(),
                    counts: FailureCounts::of(outcomes.values()),
                    outcomes,
                    failures,
                    rank: 0,
                    percent: 0.0,
                    build: None,
                    points: sampled.get(&answer.program).map(|&(judged, counts)| {
                        let points = Points::of(&self.problem.grading, judged, counts);
                        // A test of the analysis it fails, the first: a bug found is never worth full points.
                        match failed.first() {
                            Some(&t) => points.failing_beyond_sample(&self.problem.grading, &test_ids[t]),
                            None => points,
                        }
                    }),
                    course_tests_failed: self.course_tests_failed(answer.program),
                }
            })
            .collect();
        let scores: Vec<usize> = rows.iter().map(|r| r.passed).collect();
        for (row, rank) in rows.iter_mut().zip(ranks(&scores)) {
            row.rank = rank;
            row.percent = percent(row.passed, scored);
        }

        let suite: Vec<SuiteTest> = tests
            .iter()
            .zip(&test_ids)
            .enumerate()
            .map(|(t, (((test, input), failing), id))| {
                let evaluation = &self.evaluations[input];
                let failing = rows
                    .iter()
                    .filter(|row| match searched_index.get(row.id.as_str()) {
                        Some(&a) => failing.contains(a),
                        None => row.failed.contains(id),
                    })
                    .map(|row| row.id.clone())
                    .collect();
                SuiteTest {
                    id: id.clone(),
                    input: String::from_utf8_lossy(input).into_owned(),
                    expected: String::from_utf8_lossy(evaluation.expected.as_ref().expect("suite inputs are valid")).into_owned(),
                    failing,
                    size: test.size,
                    choices: test.choices.clone(),
                    reference_fuel: evaluation.reference_fuel,
                    budget: evaluation.budget,
                    course_test: self.course_test(input).map(str::to_owned),
                    only_for: match previous {
                        Some(previous) if frozen && t < pinned => previous.suite[t].only_for.as_ref().map(|earlier| {
                            let mut ids = earlier.clone();
                            ids.extend(only_for.iter().filter(|id| !earlier.contains(id)).cloned());
                            ids
                        }),
                        _ => (frozen && t >= pinned).then(|| only_for.clone()),
                    },
                }
            })
            .collect();

        // A test an answer was not run on (one added for a resubmission) counts as passed
        // in the order: nothing is known against it.
        let mut in_order = vec![(REFERENCE_ID.to_owned(), BitSet::of(tests.len(), 0..tests.len()))];
        in_order.extend(rows.iter().map(|row| (row.id.clone(), BitSet::of(tests.len(), (0..tests.len()).filter(|&t| !row.failed.contains(&test_ids[t]))))));
        Analysis {
            problem: self.problem.name.clone(),
            seed,
            tests_generated: searched.tests_generated,
            executions,
            generator_runs: self.generator_runs,
            neighbour_tests: self.neighbour_tests,
            split_tests: self.split_tests,
            generator_failures: searched.generator_failures,
            reference_failures: searched.unusable.reference,
            checker_failures: searched.unusable.checker,
            problem_errors: searched.unusable.examples,
            stable_after: self.problem.search.stable_after,
            estimate_stop: self.problem.search.estimate,
            fuel: self.problem.fuel,
            calibration: self.calibration,
            grading: self.problem.grading,
            completeness: searched.completeness,
            course_tests: self.problem.fixed.iter().map(|test| test.name.clone()).collect(),
            generator_exhausted: searched.exhausted,
            suite,
            answers: rows,
            order: correctness_order(&in_order, &test_ids),
            rerun: None,
        }
    }
}

/// Orders a finished suite and names its tests. Without a previous analysis: by choices,
/// lexicographically (which groups tests by the generator's first choice, for interval
/// sets the command), named `t01`, `t02`, ... With one, a test keeps its id: the pinned
/// tests (the previous suite, in its order) and every test whose input a previous test
/// had come first, in the previous order; new tests follow by choices, numbered on from
/// the previous suite's highest id in its width. So an id never names two inputs across
/// the analyses of a batch.
fn name_tests(tests: &mut [(Made, FailingSet)], pinned: usize, previous: Option<&Analysis>) -> Vec<String> {
    tests[pinned..].sort_by(|((a, _), _), ((b, _), _)| a.choices.0.cmp(&b.choices.0));
    let Some(previous) = previous else {
        let width = tests.len().to_string().len();
        return (1..=tests.len()).map(|i| format!("t{i:0width$}")).collect();
    };
    let number = |id: &str| id.strip_prefix('t').and_then(|n| n.parse::<usize>().ok());
    let width = previous.suite.first().map_or(tests.len().to_string().len(), |t| t.id.len() - 1);
    let mut next = previous.suite.iter().filter_map(|t| number(&t.id)).max().unwrap_or(0);
    let kept = |t: usize, (_, input): &Made| {
        if t < pinned {
            return Some(t);
        }
        let text = String::from_utf8_lossy(input);
        previous.suite.iter().position(|old| old.input == text)
    };
    let mut place: Vec<(Option<usize>, usize)> = tests.iter().enumerate().map(|(t, (made, _))| (kept(t, made), t)).collect();
    place.sort_by_key(|&(kept, t)| (kept.is_none(), kept, t));
    let ids: Vec<String> = place
        .iter()
        .map(|&(kept, _)| match kept {
            Some(old) => previous.suite[old].id.clone(),
            None => {
                next += 1;
                format!("t{next:0width$}")
            }
        })
        .collect();
    let order: Vec<usize> = place.iter().map(|&(_, t)| t).collect();
    let reordered: Vec<(Made, FailingSet)> = order.iter().map(|&t| tests[t].clone()).collect();
    tests.clone_from_slice(&reordered);
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::ChoiceSequence;
    use crate::problem::SearchOptions;
    use crate::run::calibrate;

    /// The input names the size it was made at: the same choices at two sizes are two inputs.
    struct SizeInInput;

    impl Executor for SizeInInput {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            let n = choices.choice(9).unwrap_or(0);
            (Ok(format!("{} {n}", choices.size()).into_bytes()), choices)
        }

        fn run(&self, _program: usize, input: &[u8], _fuel: u64) -> Execution {
            Execution { outcome: RunOutcome::Success, stdout: input.to_vec(), fuel_used: 1 }
        }
    }

    /// Answer 1 fails an input holding the same non-zero value twice in a row, answer 2 one
    /// holding a 7: `7 7` fails both, `7` answer 2 alone, `1 1` answer 1 alone. The choices
    /// are a "continue?" flag before each value.
    struct TwoBugs;

    impl Executor for TwoBugs {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            let mut values = Vec::new();
            while choices.choice(1) == Some(1) {
                values.push(choices.choice(9).unwrap_or(0).to_string());
            }
            (Ok(values.join(" ").into_bytes()), choices)
        }

        fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
            let values: Vec<u64> = String::from_utf8_lossy(input).split_whitespace().map(|v| v.parse().unwrap()).collect();
            let fails = match program {
                1 => values.windows(2).any(|pair| pair[0] == pair[1] && pair[0] != 0),
                2 => values.contains(&7),
                _ => false,
            };
            Execution { outcome: RunOutcome::Success, stdout: if fails { b"wrong".to_vec() } else { b"right".to_vec() }, fuel_used: 1 }
        }
    }

    /// The failing sets (by program) of a suite made of `tests` (choices) once the split
    /// search has run on it, and the inputs it tried.
    fn split(tests: &[&[u64]]) -> (Vec<Vec<usize>>, u64) {
        let problem = Problem::default();
        let answers: Vec<Answer> = (1..=2).map(|program| Answer { id: format!("a{program}"), cohort: None, program, version: String::new() }).collect();
        let mut search = Search::new(&problem, &answers, &TwoBugs, calibrate(&problem, &TwoBugs)).unwrap();
        let mut suite = Suite::default();
        for choices in tests {
            let (made, input) = search.replay(&TestCase { size: 0, choices: ChoiceSequence(choices.to_vec()) }).unwrap();
            let failing = search.failing_set(&input).unwrap();
            suite.add((made, input), failing);
        }
        search.split_combinations(&mut suite, 1, u64::MAX, &mut |_, _, _| ControlFlow::Continue(())).unwrap();
        let mut sets: Vec<Vec<usize>> = suite.tests().iter().map(|(_, failing)| failing.iter().map(|a| answers[a].program).collect()).collect();
        sets.sort();
        (sets, search.split_tests)
    }

    #[test]
    fn a_suite_test_whose_failing_set_is_partly_explained_is_split_into_the_bugs_it_combines() {
        let (sets, tried) = split(&[&[1, 7, 0], &[1, 7, 1, 7, 0]]);
        assert_eq!(sets, [vec![1], vec![2]], "`7 7` is `1 1` and `7` together ({tried} inputs tried)");
        assert_eq!(split(&[&[1, 7, 0], &[1, 7, 1, 7, 0]]), (sets, tried), "the same suite and seed, the same split");
    }

    #[test]
    fn a_suite_test_with_no_smaller_failing_set_beside_it_is_not_suspected() {
        assert_eq!(split(&[&[1, 7, 1, 7, 0]]), (vec![vec![1, 2]], 0), "nothing in the suite says `7 7` combines two bugs");
        assert_eq!(split(&[&[1, 7, 0], &[1, 1, 1, 1, 0]]), (vec![vec![1], vec![2]], 0), "no set holds a smaller one");
    }

    #[test]
    fn forgetting_what_the_search_evaluated_changes_its_execution_count_and_nothing_else() {
        let problem = Problem { search: SearchOptions { stable_after: 300, ..SearchOptions::default() }, ..Problem::default() };
        let answers: Vec<Answer> = (1..=2).map(|program| Answer { id: format!("a{program}"), cohort: None, program, version: String::new() }).collect();
        let analyse = |cache_limit| {
            let mut search = Search::new(&problem, &answers, &TwoBugs, calibrate(&problem, &TwoBugs)).unwrap();
            search.cache_limit = cache_limit;
            let mut suite = Suite::default();
            let searched = search.run(&mut suite, 7, &mut |_| ControlFlow::Continue(())).unwrap();
            search.finish(suite, 7, searched, None, &answers, &HashMap::new())
        };
        let (kept, forgotten) = (analyse(MAX_CACHE_BYTES), analyse(0));
        assert!(forgotten.executions > kept.executions, "{} runs forgetting, {} keeping", forgotten.executions, kept.executions);
        let same = |a: &Analysis| (a.suite.clone(), a.answers.clone(), a.tests_generated, a.completeness.clone());
        assert_eq!(same(&forgotten), same(&kept));
    }

    #[test]
    fn a_replay_is_of_the_whole_test_case_the_same_choices_at_another_size_being_another_input() {
        let problem = Problem::default();
        let mut search = Search::new(&problem, &[], &SizeInInput, calibrate(&problem, &SizeInInput)).unwrap();
        let at = |size| TestCase { size, choices: ChoiceSequence(vec![3]) };
        let made = search.replay_all(&[at(0), at(7)]);
        let inputs: Vec<String> = made.iter().map(|m| String::from_utf8_lossy(&m.as_ref().unwrap().1).into_owned()).collect();
        assert_eq!(inputs, ["0 3", "7 3"], "cryptarithm's seed 9 once shrank a size-4 test into a size-0 one this way");
        assert_eq!(search.replay(&at(7)).unwrap().0.size, 7, "found again at its own size");
    }
}
