//! The oracle: does an answer's behaviour on a test case count as correct?

use serde::{Deserialize, Serialize};

/// How one run of a program ended, as the grader sees it. Whoever runs programs (the
/// sandbox, or a plain closure in tests) reports this.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Judged wrong as it ran: an interactive problem's interactor rejected the dialogue,
    /// for this reason (empty when it gave none).
    Rejected(String),
    /// The interactor itself failed on this run, as a checker can ([`Oracle::judge`]'s
    /// `Err`): the problem is to blame, not the program.
    InteractorFailed(String),
}

/// One run of a program on one input (made elsewhere, it travels as itself: serde).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl FailureKind {
    /// How a program fails this way, after "by": "giving a wrong output", "crashing",
    /// "running out of time", ...
    pub fn by(self) -> &'static str {
        match self {
            FailureKind::Wrong => "giving a wrong output",
            FailureKind::Crash => "crashing",
            FailureKind::Timeout => "running out of time",
            FailureKind::Memory => "running out of memory",
            FailureKind::Output => "writing too much output",
        }
    }
}

/// Why an answer failed one test: how, and in its own words where there are some.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// The checker's reason for rejecting the output (`reject: reason`), or the crash
    /// message; absent for a wrong output judged by comparison and for exhausted limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Failure {
    pub fn of(kind: FailureKind) -> Failure {
        Failure { kind, reason: None }
    }
}

/// How outputs are compared with the reference's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// Byte for byte.
    Exact,
    /// Equal after removing trailing white space (spaces, tabs, newlines) from both: a
    /// missing final newline is not a bug.
    #[default]
    TrimTrailingWhitespace,
    /// Equal line by line once every line's trailing spaces and tabs (and a `\r`) are
    /// removed, and empty lines at the end: what a statement means by "trailing spaces at
    /// the end of a line are ignored" (a course's own test script's `sed 's/ *$//'`).
    /// Spaces elsewhere, and the lines' order and number, still count.
    TrimLineEnds,
    /// The problem's checker decides, for problems where several outputs are right. An
    /// output equal to the reference's (up to trailing white space) is accepted without
    /// asking it.
    Checker,
    /// Token by token, white space of any kind and amount between tokens (the judges'
    /// default output validator, Kattis's semantics): see [`TokenRules`].
    Tokens(TokenRules),
    /// An interactive problem: the program talks with the problem's interactor, which
    /// judges the dialogue as it goes (the executor's run says how it ended:
    /// [`RunOutcome::Rejected`], or `Success` once accepted). Outputs are dialogues, never
    /// compared with the reference's.
    Interactive,
}

/// How [`Oracle::Tokens`] compares two tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TokenRules {
    /// Whether `Yes` and `yes` differ. Default true.
    pub case_sensitive: bool,
    /// A token and the expected one that both read as numbers are equal when they differ
    /// by at most this much (default 0: only the same text is equal)...
    pub float_absolute: f64,
    /// ...or by at most this share of the expected number (default 0).
    pub float_relative: f64,
}

impl Default for TokenRules {
    fn default() -> Self {
        TokenRules { case_sensitive: true, float_absolute: 0.0, float_relative: 0.0 }
    }
}

impl TokenRules {
    /// Whether `got` stands for `expected`.
    fn same(&self, expected: &str, got: &str) -> bool {
        let same_text = if self.case_sensitive { expected == got } else { expected.eq_ignore_ascii_case(got) };
        if same_text || (self.float_absolute == 0.0 && self.float_relative == 0.0) {
            return same_text;
        }
        match (expected.parse::<f64>(), got.parse::<f64>()) {
            (Ok(e), Ok(g)) if e.is_finite() && g.is_finite() => {
                let error = (g - e).abs();
                error <= self.float_absolute || error <= self.float_relative * e.abs()
            }
            _ => false,
        }
    }

    /// `None` when `actual`'s tokens stand for `expected`'s, else where they first differ,
    /// in words.
    pub fn first_difference(&self, expected: &[u8], actual: &[u8]) -> Option<String> {
        let (expected, actual) = (String::from_utf8_lossy(expected), String::from_utf8_lossy(actual));
        let tokens = |text: &str| text.split_ascii_whitespace().map(str::to_owned).collect::<Vec<_>>();
        let (want, got) = (tokens(&expected), tokens(&actual));
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            if !self.same(w, g) {
                return Some(format!("word {} of the output is `{g}` where `{w}` is expected", i + 1));
            }
        }
        let words = |n: usize| if n == 1 { "1 word".to_owned() } else { format!("{n} words") };
        match want.len().cmp(&got.len()) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Less => Some(format!("the output goes on after the {} expected, with `{}`", words(want.len()), got[want.len()])),
            std::cmp::Ordering::Greater => Some(format!("the output stops after {}, where `{}` comes next", words(got.len()), want[got.len()])),
        }
    }
}

/// A checker's decision on one answer's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckerVerdict {
    Accept,
    /// Rejected, with a short reason for the student.
    Reject(String),
}

impl Oracle {
    /// `Ok(None)` when `actual` is correct given the reference's output `expected`, the
    /// failure when not, and `Err` when the checker itself failed (a problem error: the
    /// answer is not to blame). `check` runs the checker on an answer's output.
    pub fn judge(&self, expected: &[u8], actual: &Execution, check: impl FnOnce(&[u8]) -> Result<CheckerVerdict, String>) -> Result<Option<Failure>, String> {
        let (kind, reason) = match &actual.outcome {
            RunOutcome::Success => {
                let reason = match self {
                    Oracle::Exact => (expected != actual.stdout.as_slice()).then_some(None),
                    Oracle::TrimTrailingWhitespace => (trim_end(expected) != trim_end(&actual.stdout)).then_some(None),
                    Oracle::TrimLineEnds => (lines_trimmed(expected) != lines_trimmed(&actual.stdout)).then_some(None),
                    Oracle::Checker if trim_end(expected) == trim_end(&actual.stdout) => None,
                    Oracle::Checker => match check(&actual.stdout)? {
                        CheckerVerdict::Accept => None,
                        CheckerVerdict::Reject(reason) => Some((!reason.is_empty()).then_some(reason)),
                    },
                    Oracle::Tokens(rules) => rules.first_difference(expected, &actual.stdout).map(Some),
                    Oracle::Interactive => None,
                };
                return Ok(reason.map(|reason| Failure { kind: FailureKind::Wrong, reason }));
            }
            RunOutcome::Crash(message) => (FailureKind::Crash, Some(message.clone())),
            RunOutcome::Timeout => (FailureKind::Timeout, None),
            RunOutcome::Memory => (FailureKind::Memory, None),
            RunOutcome::Output => (FailureKind::Output, None),
            RunOutcome::Rejected(reason) => (FailureKind::Wrong, Some(reason.clone()).filter(|reason| !reason.is_empty())),
            RunOutcome::InteractorFailed(reason) => return Err(reason.clone()),
        };
        Ok(Some(Failure { kind, reason }))
    }
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |p| p + 1);
    &bytes[..end]
}

/// The lines of `bytes`, each without its trailing spaces, tabs and `\r`, and without the
/// empty lines at the end ([`Oracle::TrimLineEnds`]).
fn lines_trimmed(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> =
        bytes.split(|&b| b == b'\n').map(|line| &line[..line.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\r')).map_or(0, |p| p + 1)]).collect();
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

/// An answer's failed tests counted by [`FailureKind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCounts {
    /// Ran normally, but the output is not correct.
    pub wrong: usize,
    pub crash: usize,
    /// Needed more than the fair budget.
    pub timeout: usize,
    pub memory: usize,
    pub output: usize,
}

impl FailureCounts {
    pub fn of<'a>(kinds: impl IntoIterator<Item = &'a FailureKind>) -> FailureCounts {
        let mut counts = FailureCounts::default();
        for kind in kinds {
            *match kind {
                FailureKind::Wrong => &mut counts.wrong,
                FailureKind::Crash => &mut counts.crash,
                FailureKind::Timeout => &mut counts.timeout,
                FailureKind::Memory => &mut counts.memory,
                FailureKind::Output => &mut counts.output,
            } += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::TokenRules;

    fn tokens(rules: TokenRules, expected: &str, actual: &str, difference: Option<&str>) {
        assert_eq!(rules.first_difference(expected.as_bytes(), actual.as_bytes()).as_deref(), difference, "{expected:?} against {actual:?}");
    }

    #[test]
    fn tokens_are_compared_whatever_the_white_space_with_the_case_and_the_tolerance_the_problem_sets() {
        let exact = TokenRules::default();
        tokens(exact, "3 4\n5\n", "3   4 5", None);
        tokens(exact, "Yes\n", "yes\n", Some("word 1 of the output is `yes` where `Yes` is expected"));
        tokens(TokenRules { case_sensitive: false, ..exact }, "Yes\n", "yes\n", None);
        tokens(exact, "1 2", "1 2 3", Some("the output goes on after the 2 words expected, with `3`"));
        tokens(exact, "1 2", "1", Some("the output stops after 1 word, where `2` comes next"));
        tokens(exact, "0.333333", "0.333", Some("word 1 of the output is `0.333` where `0.333333` is expected"));
        let absolute = TokenRules { float_absolute: 1e-3, ..exact };
        tokens(absolute, "0.333333", "0.333", None);
        tokens(absolute, "0.333333", "0.33", Some("word 1 of the output is `0.33` where `0.333333` is expected"));
        let relative = TokenRules { float_relative: 1e-6, ..exact };
        tokens(relative, "1000000", "1000000.9", None);
        tokens(relative, "1000000", "1000002", Some("word 1 of the output is `1000002` where `1000000` is expected"));
        tokens(absolute, "empty", "0.0", Some("word 1 of the output is `0.0` where `empty` is expected"));
        tokens(absolute, "1.0", "nan", Some("word 1 of the output is `nan` where `1.0` is expected"));
    }

    use super::*;

    fn output(stdout: &str) -> Execution {
        Execution { outcome: RunOutcome::Success, stdout: stdout.as_bytes().to_vec(), fuel_used: 0 }
    }

    fn check(oracle: Oracle, expected: &str, actual: Execution, verdict: Option<FailureKind>) {
        let no_checker = |_: &[u8]| -> Result<CheckerVerdict, String> { panic!("no checker here") };
        let kind = oracle.judge(expected.as_bytes(), &actual, no_checker).map(|f| f.map(|f| f.kind));
        assert_eq!(kind, Ok(verdict), "{expected:?} vs {actual:?}");
    }

    /// A checker that accepts outputs of the form "b=<even digit>".
    fn even(output: &[u8]) -> Result<CheckerVerdict, String> {
        match output {
            [b'b', b'=', d, ..] if d.is_ascii_digit() && (d - b'0').is_multiple_of(2) => Ok(CheckerVerdict::Accept),
            [b'b', b'=', ..] => Ok(CheckerVerdict::Reject("odd".into())),
            _ => Err("checker confused".into()),
        }
    }

    #[test]
    fn the_checker_decides_when_outputs_differ_from_the_reference() {
        let judge = |actual: &str| Oracle::Checker.judge(b"b=2\n", &output(actual), even);
        assert_eq!(judge("b=4\n"), Ok(None));
        assert_eq!(judge("b=3\n"), Ok(Some(Failure { kind: FailureKind::Wrong, reason: Some("odd".into()) })));
        assert_eq!(judge("b=2"), Ok(None), "the reference's own output needs no checker");
    }

    #[test]
    fn a_checker_failure_is_an_error_not_a_verdict_on_the_answer() {
        assert_eq!(Oracle::Checker.judge(b"b=2\n", &output("??"), even), Err("checker confused".into()));
    }

    #[test]
    fn a_crash_keeps_its_message_as_the_reason() {
        let crashed = Execution { outcome: RunOutcome::Crash("panicked at main.rs:3".into()), ..output("") };
        let failure = Oracle::default().judge(b"[]\n", &crashed, |_| unreachable!());
        assert_eq!(failure, Ok(Some(Failure { kind: FailureKind::Crash, reason: Some("panicked at main.rs:3".into()) })));
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
    fn trimming_line_ends_ignores_spaces_at_the_end_of_every_line_and_nothing_else() {
        let expected = "count 2\nmax 50\n";
        check(Oracle::TrimLineEnds, expected, output("count 2 \nmax 50\t\r\n\n"), None);
        check(Oracle::TrimLineEnds, expected, output("count 2\nmax 50"), None);
        check(Oracle::TrimLineEnds, expected, output("count  2\nmax 50\n"), Some(FailureKind::Wrong));
        check(Oracle::TrimLineEnds, expected, output(" count 2\nmax 50\n"), Some(FailureKind::Wrong));
        check(Oracle::TrimLineEnds, expected, output("count 2\n\nmax 50\n"), Some(FailureKind::Wrong));
        check(Oracle::TrimLineEnds, expected, output("count 2 max 50\n"), Some(FailureKind::Wrong));
        // The default trims the end of the whole output only.
        check(Oracle::default(), expected, output("count 2 \nmax 50\n"), Some(FailureKind::Wrong));
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
