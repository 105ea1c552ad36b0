//! What a caller supplies to an analysis: the [`Problem`] (its oracle, fuel policy and
//! search options), the [`Answer`]s, and the [`Executor`] that runs the generator and the
//! programs; and the [`Progress`] it is told of while the analysis runs.
//!
//! The search hands its runs to the executor a *round* at a time ([`Executor::run_all`]: [`RunRequest`]s), which an
//! executor may make anywhere, in any order; [`run_here`] makes one on the current rayon pool, [`RUNS_IN_A_ROW`] runs
//! of a program a task. The caller judges every run, so where a run was made never shows in the analysis.

use crate::points::GradingPolicy;
use serde::{Deserialize, Serialize};

use crate::budget::FuelPolicy;
use crate::generate::ChoiceSource;
use crate::oracle::{CheckerVerdict, Execution, Oracle};

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

    /// Runs every one of `runs` and returns their executions in the order asked: a
    /// *round*, which the search hands over whole (every program on a batch of new inputs,
    /// a group of programs on the grading sample). Runs are deterministic, so an executor
    /// may make them anywhere, other processes or machines included, and in any order.
    /// Default: on the current rayon pool, a task for each [`RUNS_IN_A_ROW`] consecutive
    /// runs of one program (its instance stays warm), every task free for any thread.
    /// Pitfall: one call holds every run's stdout at once; the grader keeps rounds to
    /// some thousands of runs.
    fn run_all(&self, runs: &[RunRequest<'_>]) -> Vec<Execution> {
        run_here(self, runs)
    }

    /// Runs the problem's checker on an answer's output `actual` for `input`, given the
    /// reference's output `expected`. `Err` means the checker itself failed. Only called
    /// for problems whose oracle is [`Oracle::Checker`].
    fn check(&self, _input: &[u8], _expected: &[u8], _actual: &[u8]) -> Result<CheckerVerdict, String> {
        Err("this problem has no checker".to_owned())
    }

    /// [`Executor::check`] with the fuel the checker used on it and its limit, where the
    /// executor counts them (`None` where it does not): what `check-problem` reports of the
    /// checker's cost.
    fn check_counted(&self, input: &[u8], expected: &[u8], actual: &[u8]) -> Result<(CheckerVerdict, Option<(u64, u64)>), String> {
        self.check(input, expected, actual).map(|verdict| (verdict, None))
    }

    /// Whether `input` is valid by the problem's input validator (a judge's package's):
    /// `Err` names why not (or how the validator failed). `None` (the default) for a
    /// problem without one. Only `check-problem` asks.
    fn validate_input(&self, _input: &[u8]) -> Option<Result<(), String>> {
        None
    }
}

/// One run of a round ([`Executor::run_all`]): program `program` (0 the reference) on
/// `input` with `fuel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunRequest<'a> {
    pub program: usize,
    pub input: &'a [u8],
    pub fuel: u64,
}

/// Runs of one program made in a row by one thread when a round is run ([`in_a_row`]):
/// enough that its instance is reused while warm, few enough that the tasks spread
/// evenly. Each task may be taken by any thread: rayon otherwise hands out ranges of
/// tasks that it splits only when another thread steals from them, and a range it did
/// not split runs on one thread to its end; so such a range held all of a slow program's
/// runs: cryptarithm's a07, which times out on most inputs and is a third of the
/// analysis's work, ran 25 s on one thread and 3.5 s on the other, which sat idle a third
/// of the time (seed 1: 46 s instead of 55 s, the same analysis).
pub const RUNS_IN_A_ROW: usize = 8;

/// `runs` made by `executor` on the current rayon pool, in the order given: what
/// [`Executor::run_all`] does by default, and what an executor that sends some of a
/// round elsewhere does with the rest.
pub fn run_here<E: Executor + ?Sized>(executor: &E, runs: &[RunRequest<'_>]) -> Vec<Execution> {
    use rayon::prelude::*;
    let done: Vec<Vec<Execution>> =
        in_a_row(runs).into_par_iter().with_max_len(1).map(|range| runs[range].iter().map(|r| executor.run(r.program, r.input, r.fuel)).collect()).collect();
    done.into_iter().flatten().collect()
}

/// `runs` cut into tasks: ranges of consecutive runs of one program, each of at most
/// [`RUNS_IN_A_ROW`] runs.
pub fn in_a_row(runs: &[RunRequest<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut tasks = Vec::new();
    let mut start = 0;
    for end in 1..=runs.len() {
        if end == runs.len() || end - start == RUNS_IN_A_ROW || runs[end].program != runs[start].program {
            tasks.push(start..end);
            start = end;
        }
    }
    tasks
}

/// When the search for new bugs stops.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchOptions {
    /// Stop after this many consecutive tests (random ones and mutants) add nothing.
    /// Default 10,000, as in the paper; lower it for quick runs, at the price of missing
    /// rare bugs. Not used when `estimate` is set.
    pub stable_after: u64,
    /// Stop after this many tests (random ones and mutants) in any case. Default 1,000,000.
    pub max_tests: u64,
    /// Instead of the paper's rule: stop when the search is complete enough by its own
    /// estimate ([`EstimateStop`]). Default none (the paper's rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<EstimateStop>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { stable_after: 10_000, max_tests: 1_000_000, estimate: None }
    }
}

/// A stopping rule beyond the paper's: stop once the Good–Turing chance that one more
/// random test finds a new kind of failure, counting at least one seen once
/// (`max(f1, 1) / n`, where `f1` counts the failing sets seen once that are not the union
/// of other sets seen inside them: a combination of known bugs is no new bug; with none,
/// the honest bound is "under 1 in n"), is at most `chance`, and at least `min_tests`
/// random tests were drawn. The first makes
/// the search last as long as rare failing sets keep turning up (each one seen once keeps
/// it going for `1 / chance` more tests), the second keeps a class whose bugs are all
/// common from stopping before a rare one could show. `max_tests` still bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateStop {
    pub chance: f64,
    pub min_tests: u64,
}

impl EstimateStop {
    /// Whether `random_tests` tests, `seen_once` of whose failing sets were seen once,
    /// make the search complete enough.
    pub fn reached(&self, random_tests: u64, seen_once: u64) -> bool {
        random_tests >= self.min_tests && random_tests > 0 && seen_once.max(1) as f64 / random_tests as f64 <= self.chance
    }
}

/// What is being graded, and how.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub name: String,
    pub oracle: Oracle,
    pub fuel: FuelPolicy,
    pub search: SearchOptions,
    /// How points are given on the fixed scale ([`crate::Points`]).
    pub grading: GradingPolicy,
    /// The course's own tests (a problem's `tests/NAME.in`, with `NAME.out` optional), run
    /// on every answer before the random search, in this order. Each one that is
    /// irredundant joins the suite as it is (never shrunk), marked as the course's
    /// ([`crate::SuiteTest::course_test`]); a later test can still make it redundant, as any
    /// suite test. Every answer's result names the course's tests it fails, in the suite or
    /// not ([`crate::AnswerResult::course_tests_failed`]). Pitfall: a test whose expected
    /// output the reference contradicts (by the oracle) ends the analysis with
    /// [`crate::GraderError::CourseTestInvalid`]: the course and its reference disagree, and
    /// no grade could be defended. Default none.
    pub fixed: Vec<WrittenTest>,
}

/// One test written by hand: an input, and optionally the output its author expects. A
/// student's own test (graded by [`crate::grade_test_suites`]) or one of the course's fixed tests
/// ([`crate::Problem::fixed`], a problem's `tests/NAME.in` and `NAME.out`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenTest {
    pub name: String,
    pub input: Vec<u8>,
    pub expected: Option<Vec<u8>>,
}

/// One submission. Several answers may share a program (identical modules run once).
#[derive(Clone, Debug)]
pub struct Answer {
    pub id: String,
    pub cohort: Option<String>,
    /// The [`Executor`] program that runs this answer; 1 or more.
    pub program: usize,
    /// What was submitted, as a fingerprint (the module's SHA-256, say): a re-run against
    /// a released suite copies the result of an answer whose version has not changed.
    /// Empty when unknown, which counts as changed.
    pub version: String,
}

/// Where the analysis is, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub tests_generated: u64,
    pub suite_size: usize,
    /// Consecutive tests that added nothing; the search stops at `stable_after`.
    pub stable_run: u64,
    pub stable_after: u64,
    pub executions: u64,
    /// True while a new test is being shrunk.
    pub shrinking: bool,
    /// While shrinking: the candidates tried on the test being shrunk (at most
    /// [`crate::SHRINK_BUDGET`]).
    pub shrink_candidates: u64,
    /// Tests shrunk so far, those of the neighbourhood search included.
    pub tests_shrunk: u64,
    /// Under the estimate rule ([`EstimateStop`]): the chance now that one more random test
    /// finds a new failing set (counting at least one set seen once), and the chance the
    /// search stops at.
    pub estimate: Option<(f64, f64)>,
}

impl Progress {
    /// Where the search is, in words (for a progress bar's label).
    pub fn describe(&self) -> String {
        if self.shrinking {
            format!(
                "shrinking test {}: {} candidates tried (at most {}); {} tests tried, {} runs",
                self.suite_size + 1,
                self.shrink_candidates,
                crate::SHRINK_BUDGET,
                self.tests_generated,
                self.executions
            )
        } else {
            match self.estimate {
                None => format!(
                    "searching for bugs: {} inputs tried, {} tests kept, {} runs; it stops once {} inputs in a row find no new bug ({} so far)",
                    self.tests_generated, self.suite_size, self.executions, self.stable_after, self.stable_run
                ),
                Some((now, target)) => format!(
                    "searching for bugs: {} inputs tried, {} tests kept, {} runs; it stops once the chance that one more input finds a new kind of failure is 1 in {} (now 1 in {})",
                    self.tests_generated,
                    self.suite_size,
                    self.executions,
                    (1.0 / target).round(),
                    (1.0 / now.max(f64::MIN_POSITIVE)).round()
                ),
            }
        }
    }
}
