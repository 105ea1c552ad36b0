//! The format of `analysis.json`: the result of an analysis (or a re-run) and every type
//! it is made of, serialised as they are declared here. Changing a field, its name, its
//! type, its order or its serde attributes, changes the file users download, and decides
//! whether the `analysis.json` files already stored can still be read (a new field needs
//! `#[serde(default)]`). The file also holds types defined elsewhere, whose fields are
//! part of it just the same: `Budget`, `Calibration`, `SizeClass` and `FuelPolicy`
//! (`budget.rs`), `Failure` and `FailureKind` (`oracle.rs`), `CorrectnessOrder`
//! with its `Class` and `Edge` (`order.rs`) and `ChoiceSequence` (`generate.rs`).
//!
//! Nothing here searches or runs a program: the search fills these in; `rank.rs` and
//! `rerun.rs` add to them.

use crate::completeness::Completeness;
use crate::points::{GradingPolicy, Points};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Calibration, FuelPolicy};
use crate::generate::ChoiceSequence;
use crate::oracle::{Failure, FailureCounts, FailureKind};
use crate::order::CorrectnessOrder;

/// Problem errors kept as examples in the analysis (their total is counted).
pub const MAX_PROBLEM_ERRORS: usize = 10;

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
    /// The reference's fuel on this input (0 in analyses older than the fair budget).
    #[serde(default)]
    pub reference_fuel: u64,
    /// The fuel every answer had on this input: a run that needs more than `budget.fair`
    /// failed for time.
    #[serde(default)]
    pub budget: Budget,
    /// `None`: every answer was run on this test. Otherwise the test was added by a
    /// re-run against a released suite, for the answers listed (the ones resubmitted
    /// since): only they were run on it, and it counts against them alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_for: Option<Vec<String>>,
    /// The name of the course's test this is (`tests/NAME.in`: see
    /// [`crate::Problem::fixed`]), kept as written: no generator made it, so `choices` is
    /// empty and nothing replays it. `None`: a generated test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub course_test: Option<String>,
}

/// One answer's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerResult {
    pub id: String,
    pub cohort: Option<String>,
    /// The [`Answer::version`](crate::Answer::version) graded.
    #[serde(default)]
    pub version: String,
    /// Suite tests passed: the score.
    pub passed: usize,
    /// Suite tests failed: the answer's bugs.
    pub failed: Vec<String>,
    /// How each failed test was failed.
    pub outcomes: BTreeMap<String, FailureKind>,
    /// Each failed test's failure in detail: its kind, the checker's reason or the crash
    /// message, and the fuel the run used (its budget is the suite test's).
    #[serde(default)]
    pub failures: BTreeMap<String, FailureDetail>,
    /// Failed tests by kind: who is slow and who is wrong, at a glance.
    #[serde(default)]
    pub counts: FailureCounts,
    /// 1 for the best score; equal scores share a rank.
    pub rank: usize,
    pub percent: f64,
    /// How the answer's program was built from sources, when it was: `None` for a module
    /// handed in as it is. An answer whose build failed ([`Build::error`]) never ran: see
    /// [`Analysis::add_not_built`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
    /// Points on the fixed scale, from the grading sample ([`crate::Points`]): the same
    /// whoever else is graded. Absent in analyses made before points existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Points>,
    /// The course's tests ([`crate::Problem::fixed`]) this answer fails, by name in the
    /// course's order: in the suite or not (one made redundant by the suite still fails
    /// the answer, and the course's name for it is what the student knows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub course_tests_failed: Vec<String>,
}

/// Where an answer's program came from when it was built from sources: enough to trace a
/// grade to the exact sources and compiler. The grader does not build anything; it keeps
/// this record with the answer's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The source language, as people name it ("C", "C++", "Rust").
    pub language: String,
    /// The compiler's version (and its libraries' versions, where known).
    pub toolchain: String,
    /// The SHA-256 of the sources (file names and bytes), in hex.
    pub sources: String,
    /// The compiler's warnings, as the student is shown them (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub warnings: String,
    /// Why no program was built, in the compiler's words (trimmed, without the build
    /// sandbox's paths). `None`: the build gave a program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the sources break a rule of the assignment (a construct it forbids), in the
    /// order of the sources: checked when the problem sets rules for the language.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_broken: Vec<RuleBroken>,
}

/// One use of a construct the assignment forbids (`problem.toml`'s `[rules]`), found in
/// the sources by their syntax, or a construct it requires that they lack: no run can see
/// it, so it is a result of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleBroken {
    /// The rule as the problem states it: a name whose calls are forbidden (`sort`), or
    /// `import M`; when `required`, what is required: `recursion`, `def f`, `class C`,
    /// `import M` or a name that must be called.
    pub rule: String,
    /// The line of the sources, from 1; 0 for a requirement not met (it is nowhere).
    pub line: u32,
    /// That line's text, trimmed; empty for a requirement not met.
    pub code: String,
    /// Whether this is a requirement the sources do not meet (`require`), rather than a
    /// use of a forbidden construct. Absent (false) in analyses made before requirements.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl RuleBroken {
    /// In a few words: "uses `sort` (line 6)", "imports `bisect` (line 1)"; for a
    /// requirement not met, "uses no recursion (the assignment requires it)", "defines no
    /// class `Stack` (...)", "never calls `heappush` (...)".
    pub fn in_words(&self) -> String {
        if self.required {
            let lacks = match self.rule.split_once(' ') {
                _ if self.rule == "recursion" => "uses no recursion".to_owned(),
                Some(("def", name)) => format!("defines no function `{name}`"),
                Some(("class", name)) => format!("defines no class `{name}`"),
                Some(("import", module)) => format!("does not import `{module}`"),
                _ => format!("never calls `{}`", self.rule),
            };
            return format!("{lacks} (the assignment requires it)");
        }
        match self.rule.strip_prefix("import ") {
            Some(module) => format!("imports `{module}` (line {})", self.line),
            None => format!("uses `{}` (line {})", self.rule, self.line),
        }
    }

    /// [`RuleBroken::in_words`] and the line's code: "uses `sort` (line 6): `xs.sort()`".
    pub fn said(&self) -> String {
        match self.code.is_empty() {
            true => self.in_words(),
            false => format!("{}: `{}`", self.in_words(), self.code),
        }
    }
}

impl Build {
    /// What the compiler said: its error when no program was built, else its warnings.
    pub fn messages(&self) -> &str {
        self.error.as_deref().unwrap_or(&self.warnings)
    }

    /// Why no program was built, in a few words for its student (`None` when one was):
    /// "did not compile" for a compiled language; for Python, whose sources are refused
    /// by the interpreter, "did not run: SyntaxError at line 3" (the error's name, and its
    /// line when the message gives one), or "did not run" (a function-level hand-in that
    /// reads the input when loaded, or lacks a function). The whole message is
    /// [`Build::messages`].
    pub fn not_built_in_words(&self) -> Option<String> {
        let error = self.error.as_deref()?;
        if self.language != INTERPRETED {
            return Some("did not compile".to_owned());
        }
        let last = error.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("").trim();
        let name = last.split(':').next().filter(|name| name.ends_with("Error") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let line = error
            .lines()
            .find_map(|l| l.trim().strip_prefix("File \"")?.split_once("\", line ")?.1.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u64>().ok());
        Some(match (name, line) {
            (Some(name), Some(line)) => format!("did not run: {name} at line {line}"),
            (Some(name), None) => format!("did not run: {name}"),
            _ => "did not run".to_owned(),
        })
    }
}

/// The language whose hand-ins an interpreter refuses rather than a compiler (see
/// [`Build::not_built_in_words`]), as [`Build::language`] names it.
const INTERPRETED: &str = "Python";

/// One failed run of an answer on a suite test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureDetail {
    #[serde(flatten)]
    pub failure: Failure,
    pub fuel_used: u64,
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
    /// Edits of suspected combinations tried by the split search (see
    /// [`crate::SPLIT_TESTS`]; not counted in `tests_generated`). Absent in analyses made
    /// before it was.
    #[serde(default)]
    pub split_tests: u64,
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
    /// The stopping rule beyond the paper's, when it was the one used (then
    /// `stable_after` was not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_stop: Option<crate::EstimateStop>,
    /// The fuel policy, and the reference's cost by input size that its allowance uses.
    #[serde(default)]
    pub fuel: FuelPolicy,
    #[serde(default)]
    pub calibration: Calibration,
    /// How points were given (the maximum and the deduction for any failure).
    #[serde(default)]
    pub grading: GradingPolicy,
    /// What the search may have missed, estimated from its random tests
    /// ([`crate::Completeness`]). Absent in analyses made before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completeness: Option<Completeness>,
    /// The course's tests run before the search, by name in order ([`crate::Problem::fixed`]);
    /// those in the suite are marked there ([`SuiteTest::course_test`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub course_tests: Vec<String>,
    /// The search ended because every input the generator can make had been tried (a
    /// small choice tree walked to its ends): it is complete, whatever its stopping rule.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub generator_exhausted: bool,
    pub suite: Vec<SuiteTest>,
    pub answers: Vec<AnswerResult>,
    pub order: CorrectnessOrder,
    /// Set when this analysis re-ran a previous one: how, and what changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun: Option<Rerun>,
}

/// A generated input the problem's own programs could not handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemError {
    pub input: String,
    pub reason: String,
}

impl Analysis {
    /// The answers best first; equal ranks keep the answers' own order.
    pub fn ranked(&self) -> Vec<&AnswerResult> {
        let mut ranked: Vec<&AnswerResult> = self.answers.iter().collect();
        ranked.sort_by_key(|a| a.rank);
        ranked
    }

    /// How complete the search is, in words: every input the generator can make tried, or
    /// the estimate of what it missed ([`Completeness::in_words`]); `None` for an analysis
    /// older than both.
    pub fn completeness_in_words(&self) -> Option<String> {
        if self.generator_exhausted {
            return Some(format!("complete: every input the generator can make was tried ({} tests)", self.tests_generated));
        }
        self.completeness.as_ref().map(Completeness::in_words)
    }

    /// The tests every answer is scored over: the suite but for tests added for
    /// resubmissions ([`crate::SuiteTest::only_for`]).
    pub fn scored_tests(&self) -> usize {
        self.suite.iter().filter(|t| t.only_for.is_none()).count()
    }
}

/// The id under which the reference appears in the correctness order.
pub const REFERENCE_ID: &str = "reference";

/// How a batch is analysed again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RerunMode {
    /// Keep the previous suite; run only the answers that changed (see `rerun.rs`).
    Frozen,
    /// Analyse again from scratch; tests keep their ids where their input is kept.
    Full,
}

/// What a re-run was, for the pages that show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rerun {
    pub mode: RerunMode,
    /// The seed of the analysis re-run.
    pub previous_seed: u64,
    /// Answers new or with another version since (in the order of the answers).
    pub changed: Vec<String>,
    /// Every answer whose percentage changed, with why.
    pub grade_changes: Vec<GradeChange>,
}

/// One answer's grade before and after a re-run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeChange {
    pub id: String,
    /// `None`: not in that analysis.
    pub before: Option<f64>,
    pub after: Option<f64>,
    /// Plain sentences: the answer's own module changed, a test it fails was added or
    /// dropped, the suite grew or shrank.
    pub why: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::Build;

    fn check(language: &str, error: Option<&str>, expected: Option<&str>) {
        let build = Build {
            language: language.into(),
            toolchain: String::new(),
            sources: String::new(),
            warnings: String::new(),
            error: error.map(Into::into),
            rules_broken: Vec::new(),
        };
        assert_eq!(build.not_built_in_words().as_deref(), expected, "{error:?}");
    }

    #[test]
    fn a_python_hand_in_that_was_refused_did_not_run_and_says_with_what_error_where() {
        check(
            "Python",
            Some("  File \"s003.py\", line 3\n    def search(x, seq)\n                      ^\nSyntaxError: expected ':'"),
            Some("did not run: SyntaxError at line 3"),
        );
        check(
            "Python",
            Some("  File \"s9.py\", line 12\n    import numpy\nModuleNotFoundError: No module named 'numpy'"),
            Some("did not run: ModuleNotFoundError at line 12"),
        );
        check("Python", Some("Your file does not define `search`, which the harness calls."), Some("did not run"));
    }

    #[test]
    fn a_compiled_language_s_refusal_is_that_it_did_not_compile() {
        check("C", Some("a.c:1:1: error: unknown type name 'nt'\nSyntaxError: no"), Some("did not compile"));
        check("Rust", None, None);
        check("Python", None, None);
    }
}
