//! The method of "Ranking Programs using Black Box Testing" (Paper III of
//! `shared/seeds/000_*.txt`): generate test cases, partition them by the set of answers
//! they make fail, shrink one representative per irredundant partition, and rank answers
//! by the inferred bugs they contain.
//!
//! The grader does no I/O: it is handed an [`Executor`] that runs the generator and the
//! programs. In the `bugrank` binary that is the wasmtime sandbox; here it is a closure.
//!
//! The files, by role (everything public is re-exported here, at the crate root):
//!
//! - What a caller supplies to an analysis: `problem.rs` ([`Executor`], [`Problem`],
//!   [`Answer`], [`SearchOptions`], and the [`Progress`] it is told of).
//! - What an analysis gives: `result.rs`, the format of `analysis.json` ([`Analysis`] and
//!   the types it is made of, [`Rerun`] included).
//! - The method: `generate.rs` (test cases as choice sequences, and "simpler"),
//!   `shrink.rs` (the shrinker), `partition.rs` (failing sets, redundancy, the suite),
//!   `oracle.rs` (runs' outcomes and the judging of an output), `budget.rs` (the fuel a
//!   run gets: [`Budget`], [`FuelPolicy`], [`Calibration`]), `run.rs` (one run of the
//!   reference or of an answer, judged, shared by every role below; [`calibrate`]),
//!   `search/` ([`analyse`]: the search for the suite and the [`Analysis`] made of it),
//!   `neighbours.rs` (the edits of a suite test tried near it), `rank.rs` (scores and
//!   ranks), `order.rs` (the correctness order).
//! - Around an analysis: `rerun.rs` ([`rerun()`] after a batch changed, [`grade_changes`]),
//!   `explain.rs` (a student's [`BugList`]), `suite_stability.rs` (analyses with several
//!   seeds), `experiment.rs` and [`stats`] (cohorts compared), `check.rs`
//!   ([`check_problem`]: is a problem ready to grade a class?), `testing.rs`
//!   ([`grade_test_suites`]: the students' own test suites).
//!
//! ```
//! use grader::{analyse, Answer, ChoiceSource, Execution, Executor, Problem, RunOutcome};
//!
//! /// Inputs are one number; the reference doubles it; answer 1 is wrong for 7, answer 2
//! /// crashes on numbers over 50.
//! struct Doubling;
//! impl Executor for Doubling {
//!     fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
//!         let n = choices.choice(100).unwrap();
//!         (Ok(n.to_string().into_bytes()), choices)
//!     }
//!     fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
//!         let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
//!         let (outcome, answer) = match program {
//!             1 if n == 7 => (RunOutcome::Success, 15),
//!             2 if n > 50 => (RunOutcome::Crash("overflow".into()), 0),
//!             _ => (RunOutcome::Success, 2 * n),
//!         };
//!         Execution { outcome, stdout: format!("{answer}\n").into_bytes(), fuel_used: 1 }
//!     }
//! }
//!
//! let mut problem = Problem { name: "doubling".into(), ..Problem::default() };
//! problem.search.stable_after = 500;
//! let answers = [
//!     Answer { id: "a1".into(), cohort: None, program: 1, version: "v1".into() },
//!     Answer { id: "a2".into(), cohort: None, program: 2, version: "v1".into() },
//! ];
//! let analysis = analyse(&problem, &answers, &Doubling, 1, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
//! let inputs: Vec<&str> = analysis.suite.iter().map(|t| t.input.as_str()).collect();
//! assert_eq!(inputs, ["7", "51"]); // each bug, shrunk to its simplest input
//! assert_eq!(analysis.answers[0].passed, 1);
//! assert_eq!(analysis.order.classes[0].answers, ["reference"]);
//! ```

mod budget;
mod check;
mod completeness;
mod exhaust;
mod experiment;
mod explain;
mod generate;
mod neighbours;
mod oracle;
mod order;
mod partition;
mod points;
mod problem;
mod rank;
mod rerun;
mod result;
mod run;
mod search;
mod shrink;
pub mod stats;
mod suite_stability;
mod testing;

pub use budget::{Budget, CALIBRATION_INPUTS, CALIBRATION_SEED, Calibration, FuelPolicy, HARDEST_QUANTILE, SIZE_CLASSES, SizeClass};
pub use check::{Check, Cost, Example, Expect, MAX_FAILURES, ProblemCheck, SAMPLES, Sample, check_problem};
pub use completeness::Completeness;
pub use experiment::{CohortSummary, ManualRow, ProblemReport, ScoreRow, compare};
pub use explain::{ANY, Behaviour, BugList, BugReport, CONTRAST_CANDIDATES, Contrast, REDRAWS, SLOWNESS_PROBE, SLOWNESS_PROBE_FUEL, bug_list, on_tests};
pub use generate::{ChoiceSequence, ChoiceSource, MAX_CHOICES, MAX_SIZE, Rng, TestCase};
pub use oracle::{CheckerVerdict, Execution, Failure, FailureCounts, FailureKind, Oracle, RunOutcome, TokenRules};
pub use order::{Class, CorrectnessOrder, Edge, correctness_order};
pub use partition::{BitSet, FailingSet, Suite, is_redundant};
pub use points::{GRADING_SAMPLE_INPUTS, GRADING_SEED, GradingPolicy, Points};
pub use problem::{Answer, EstimateStop, Executor, Problem, Progress, RUNS_IN_A_ROW, RunRequest, SearchOptions, WrittenTest, in_a_row, run_here};
pub use rank::{percent, ranks};
pub use rerun::{changed_since, grade_changes, rerun};
pub use result::{
    Analysis, AnswerResult, Build, FailureDetail, GradeChange, MAX_PROBLEM_ERRORS, ProblemError, REFERENCE_ID, Rerun, RerunMode, RuleBroken, SuiteTest,
};
pub use run::{calibrate, own_failures};
pub use search::{SPLIT_TESTS, analyse};
pub use shrink::{SHRINK_BUDGET, shrink};
pub use suite_stability::{OrderShape, RankSpread, Stability, VaryingBug, order_shape, sample_sd, stability};
pub use testing::{InvalidTest, SuiteScore, check_test, grade_test_suites};

/// Why an analysis could not be done. Answers that crash are results, not errors; these
/// are faults of the problem (its generator or reference) or of the caller.
#[derive(Debug, thiserror::Error)]
pub enum GraderError {
    #[error("answer `{0}` is given program 0, which is the reference")]
    AnswerIsReference(String),
    #[error("the generator fails on every test case: {0}")]
    GeneratorFails(String),
    #[error("no generated test can be used, for example on input {input:?}: {reason}")]
    NoUsableTest { input: String, reason: String },
    #[error("the analysis was cancelled")]
    Cancelled,
    #[error("the course's test `{name}` cannot be used: {reason}")]
    CourseTestInvalid { name: String, reason: String },
    #[error("the released test {test} cannot be kept: {what}; re-run the analysis in full instead")]
    FrozenSuiteChanged { test: String, what: String },
}
