//! The analysis of Paper III, section 3: generate, partition, shrink, rank, order. The
//! search for the suite, and the [`Analysis`] made of it at the end: what it is given is
//! in `problem.rs`, what it makes is the format of `analysis.json` in `result.rs`.
//!
//! Here the random search ([`Search::run`]: the course's tests, then random tests and
//! mutants, each irredundant one shrunk into the suite) around one evaluator
//! (`evaluate.rs`: every input run once by every program, verdicts cached, timeouts
//! pending their fair budget); beyond the paper, the neighbourhood of each new suite test
//! (`explore.rs`) and the split search of suite tests that combine bugs (`split.rs`); and
//! the analysis made of the finished suite (`finish.rs`). The parts share this module's
//! imports (`use super::*`).

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

mod evaluate;
mod explore;
mod finish;
mod split;

use evaluate::{Evaluation, MAX_CACHE_BYTES};
use split::SPLIT_SHARE;
pub use split::SPLIT_TESTS;

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

/// A test case and the input its generator made of it.
pub(crate) type Made = (TestCase, Arc<[u8]>);

/// A random test case and its input, or why the generator failed on it; with the range of
/// each of its choices and whether the generator read the size (its path in the choice
/// tree, for [`Exhaustion`]).
type Generated = (TestCase, Result<Arc<[u8]>, String>, Vec<u64>, bool);

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
