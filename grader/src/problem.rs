//! What a caller supplies to an analysis: the [`Problem`] (its oracle, fuel policy and
//! search options), the [`Answer`]s, and the [`Executor`] that runs the generator and the
//! programs; and the [`Progress`] it is told of while the analysis runs.

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

    /// Runs the problem's checker on an answer's output `actual` for `input`, given the
    /// reference's output `expected`. `Err` means the checker itself failed. Only called
    /// for problems whose oracle is [`Oracle::Checker`].
    fn check(&self, _input: &[u8], _expected: &[u8], _actual: &[u8]) -> Result<CheckerVerdict, String> {
        Err("this problem has no checker".to_owned())
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
    /// How points are given on the fixed scale ([`crate::Points`]).
    pub grading: GradingPolicy,
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
    /// While shrinking: the candidates tried on the test being shrunk (at most
    /// [`crate::SHRINK_BUDGET`]).
    pub shrink_candidates: u64,
    /// Tests shrunk so far, those of the neighbourhood search included.
    pub tests_shrunk: u64,
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
            format!(
                "searching for bugs: {} inputs tried, {} tests kept, {} runs; it stops once {} inputs in a row find no new bug ({} so far)",
                self.tests_generated, self.suite_size, self.executions, self.stable_after, self.stable_run
            )
        }
    }
}
