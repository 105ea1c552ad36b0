//! The oracle: does an answer's behaviour on a test case count as correct?

use serde::{Deserialize, Serialize};

/// How one run of a program ended, as the grader sees it. Whoever runs programs (the
/// sandbox, or a plain closure in tests) reports this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Exited with code 0: its stdout is its answer.
    Success,
    /// Trapped, panicked, aborted, overflowed its stack or exited non-zero; the message
    /// says which.
    Crash(String),
    /// Ran out of fuel: our deterministic timeout.
    Timeout,
    /// Exceeded the memory limit.
    Memory,
    /// Exceeded the output limit.
    Output,
}

/// One run of a program on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub outcome: RunOutcome,
    pub stdout: Vec<u8>,
    pub fuel_used: u64,
}

/// Why an answer failed a test, as `analysis.json` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// Ran normally but its output is not correct.
    Wrong,
    Crash,
    Timeout,
    Memory,
    Output,
}

/// How outputs are compared with the reference's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// Byte for byte.
    Exact,
    /// Equal after removing trailing white space (spaces, tabs, newlines) from both: a
    /// missing final newline is not a bug.
    #[default]
    TrimTrailingWhitespace,
}

impl Oracle {
    /// `None` when `actual` is correct given the reference's output `expected`.
    pub fn judge(&self, expected: &[u8], actual: &Execution) -> Option<FailureKind> {
        let kind = match &actual.outcome {
            RunOutcome::Success => {
                let same = match self {
                    Oracle::Exact => expected == actual.stdout.as_slice(),
                    Oracle::TrimTrailingWhitespace => {
                        trim_end(expected) == trim_end(&actual.stdout)
                    }
                };
                return (!same).then_some(FailureKind::Wrong);
            }
            RunOutcome::Crash(_) => FailureKind::Crash,
            RunOutcome::Timeout => FailureKind::Timeout,
            RunOutcome::Memory => FailureKind::Memory,
            RunOutcome::Output => FailureKind::Output,
        };
        Some(kind)
    }
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |p| p + 1);
    &bytes[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str) -> Execution {
        Execution { outcome: RunOutcome::Success, stdout: stdout.as_bytes().to_vec(), fuel_used: 0 }
    }

    fn check(oracle: Oracle, expected: &str, actual: Execution, verdict: Option<FailureKind>) {
        assert_eq!(oracle.judge(expected.as_bytes(), &actual), verdict, "{expected:?} vs {actual:?}");
    }

    #[test]
    fn trailing_white_space_does_not_matter_by_default() {
        check(Oracle::default(), "[]\n", output("[]"), None);
        check(Oracle::default(), "[]\n", output("[] \n\n"), None);
    }

    #[test]
    fn leading_and_inner_white_space_do() {
        check(Oracle::default(), "[]\n", output(" []"), Some(FailureKind::Wrong));
        check(Oracle::default(), "[(1,2)]\n", output("[(1, 2)]\n"), Some(FailureKind::Wrong));
    }

    #[test]
    fn the_exact_oracle_compares_every_byte() {
        check(Oracle::Exact, "a@a\n", output("a@a\n"), None);
        check(Oracle::Exact, "a@a\n", output("a@a"), Some(FailureKind::Wrong));
    }

    #[test]
    fn a_crash_is_never_correct_even_with_the_right_output() {
        let crashed = Execution { outcome: RunOutcome::Crash("exit code 1".into()), ..output("[]\n") };
        check(Oracle::default(), "[]\n", crashed, Some(FailureKind::Crash));
        let slow = Execution { outcome: RunOutcome::Timeout, ..output("[]\n") };
        check(Oracle::default(), "[]\n", slow, Some(FailureKind::Timeout));
    }
}
