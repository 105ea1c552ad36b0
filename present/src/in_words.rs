//! Results in words a first-year reads: a failure's kind, failures counted by kind, and
//! how a program's points were found. The feedback of the gradebooks and the bug lists say
//! them the same way.

use grader::{BugList, BugReport, FailureCounts, FailureKind, Points};

/// What the compiler's `warnings` say of variables read before they are given a value
/// (clang's `-Wuninitialized`, `-Wsometimes-uninitialized`, `-Wconditional-uninitialized`),
/// in words that say what bugrank does with such a read (`-ftrivial-auto-var-init=pattern`:
/// every byte 0xFF, on every run): `None` when there is none.
pub fn uninitialised_in_words(warnings: &str) -> Option<String> {
    let reads: Vec<String> = warnings
        .lines()
        .filter(|l| l.contains(": warning: variable '") && l.contains("uninitialized"))
        .map(|l| {
            // `a01.c:5:9: warning: variable 'm' is ... [-W...]` as `a01.c line 5: variable 'm' is ...`
            let (place, message) = l.split_once(": warning: ").unwrap_or(("", l));
            let mut parts = place.split(':');
            let (file, line) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let message = message.rsplit_once(" [-W").map_or(message, |(m, _)| m);
            format!("{file} line {line}: {message}")
        })
        .collect();
    if reads.is_empty() {
        return None;
    }
    Some(format!(
        "The compiler warned that a variable may be read before it is given a value ({}). On a real machine such a read gives whatever was in memory; \
         here it gives the same value on every run: every byte 0xFF, so an int reads as -1, an unsigned int as 4294967295 and a pointer as an address outside memory. If a test shows such a value where yours should be, that read is the likely cause.",
        reads.join("; ")
    ))
}

/// Where a wrong output of several lines first differs from the expected one, in words:
/// "line 3 is `7 8` where `7 9` is expected" (lines compared without their trailing white
/// space, as the default oracle does), or that it stops early or goes on. `None` for
/// outputs of one line (the whole output says it) or the same lines.
pub fn first_line_difference(expected: &str, got: &str) -> Option<String> {
    let (want, have): (Vec<&str>, Vec<&str>) = (expected.trim_end().lines().map(str::trim_end).collect(), got.trim_end().lines().map(str::trim_end).collect());
    if want.len() <= 1 && have.len() <= 1 {
        return None;
    }
    let lines = |n: usize| if n == 1 { "1 line".to_owned() } else { format!("{n} lines") };
    if want.is_empty() {
        return Some(format!("it prints {} where nothing is expected", lines(have.len())));
    }
    match want.iter().zip(&have).position(|(w, h)| w != h) {
        Some(i) => Some(format!("line {} is `{}` where `{}` is expected", i + 1, have[i], want[i])),
        None if have.len() < want.len() => {
            Some(format!("it stops after {}, where line {} should be `{}`", lines(have.len()), have.len() + 1, want[have.len()]))
        }
        None if have.len() > want.len() => Some(format!("it goes on after the {} expected, with `{}`", lines(want.len()), have[want.len()])),
        None => None,
    }
}

/// One line of [`calls_in_order`]: a call with what the model answer and the hand-in
/// gave, or a run of calls left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallLine {
    Call {
        /// The call's number, from 1.
        number: usize,
        call: String,
        expected: String,
        /// `None` where the hand-in's output had already ended.
        got: Option<String>,
        /// The first call whose result differs.
        first_difference: bool,
    },
    /// This many calls not shown.
    Folded(usize),
}

/// The calls kept before the first difference besides the first [`CALLS_AT_START`], and
/// after it: the context a student needs to see why it differs.
pub const CALLS_BEFORE_DIFFERENCE: usize = 3;
pub const CALLS_AFTER_DIFFERENCE: usize = 2;
/// The calls always shown at the start (the setup: `init 2`, say).
pub const CALLS_AT_START: usize = 2;

/// A wrong output of a command sequence shown as a test reads: each input line (a call)
/// beside the expected and the hand-in's output line, the first difference marked, long
/// sequences folded around it. `None` unless the input is several lines and the expected
/// output has one line per input line (as a harness writes: see `toolchain::harness`), or
/// when no line differs (then [`first_line_difference`] says how the outputs differ).
pub fn calls_in_order(input: &str, expected: &str, got: &str) -> Option<Vec<CallLine>> {
    let lines = |text: &str| -> Vec<String> { text.trim_end().lines().map(|l| l.trim_end().to_owned()).collect() };
    let (calls, want, have) = (lines(input), lines(expected), lines(got));
    if calls.len() < 2 || calls.len() != want.len() {
        return None;
    }
    let first = (0..calls.len()).find(|&i| have.get(i) != Some(&want[i]))?;
    let shown = |i: usize| i < CALLS_AT_START || (i + CALLS_BEFORE_DIFFERENCE >= first && i <= first + CALLS_AFTER_DIFFERENCE);
    let mut out = Vec::new();
    let mut i = 0;
    while i < calls.len() {
        // A gap of one call is shown: "1 call not shown" takes as much room.
        let gap = (i..calls.len()).take_while(|&j| !shown(j)).count();
        if gap >= 2 {
            out.push(CallLine::Folded(gap));
            i += gap;
            continue;
        }
        out.push(CallLine::Call { number: i + 1, call: calls[i].clone(), expected: want[i].clone(), got: have.get(i).cloned(), first_difference: i == first });
        i += 1;
    }
    Some(out)
}

/// A failed test of a bug list as [`calls_in_order`] shows it: a wrong output that no
/// checker explained, or a crash or a limit after some output, of a command sequence (the
/// call it stopped at is the first whose line is missing); `None` for any other, and in a
/// list of dialogues (whose lines are not one per call).
pub fn calls_of(list: &BugList, bug: &BugReport) -> Option<Vec<CallLine>> {
    if list.dialogue {
        return None;
    }
    match (bug.got.kind, &bug.got.output) {
        (FailureKind::Wrong, _) if bug.got.reason.is_none() => calls_in_order(&bug.input, &bug.expected, &bug.got.detail),
        (FailureKind::Wrong, _) => None,
        (_, Some(output)) => calls_in_order(&bug.input, &bug.expected, output),
        (_, None) => None,
    }
}

/// Whether `calls` ([`calls_of`]) shows every call, none folded: then it gives every
/// expected and actual result, and a bug list shows the outputs no second time.
pub fn shows_every_call(calls: Option<&[CallLine]>) -> bool {
    calls.is_some_and(|calls| !calls.iter().any(|line| matches!(line, CallLine::Folded(_))))
}

/// What a bug list calls the outputs it shows: plain outputs, or dialogues with the
/// problem's interactor ([`BugList::dialogue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputWords {
    /// Before the model answer's output on the failed input.
    pub expected: &'static str,
    /// The same as a table's heading (the service's bug-list card).
    pub expected_heading: &'static str,
    /// Before the program's wrong output.
    pub yours: &'static str,
    /// Before what the program wrote until it crashed or ran out of a limit, where a
    /// list of dialogues shows it (`None`: not shown).
    pub until_stopped: Option<&'static str>,
    /// After a similar passing input, before the model answer's output on it.
    pub contrast: &'static str,
    /// Said after a time-out, where there is more to say (`None`: nothing).
    pub timeout_hint: Option<&'static str>,
}

/// The [`OutputWords`] of `list`.
pub fn output_words(list: &BugList) -> OutputWords {
    match list.dialogue {
        false => OutputWords {
            expected: "Expected output",
            expected_heading: "Expected",
            yours: "Your program's output",
            until_stopped: None,
            contrast: "where the right output is",
            timeout_hint: None,
        },
        true => OutputWords {
            expected: "The model answer's dialogue with the interactor (`>` before what it wrote, `<` before what it was sent)",
            expected_heading: "The model answer's dialogue",
            yours: "Your program's dialogue",
            until_stopped: Some("Your program's dialogue, up to where it stopped"),
            contrast: "where the model answer's dialogue is",
            timeout_hint: Some(
                "In a dialogue, a program also runs out of time waiting for a reply that never comes: the interactor sees a line only once it is flushed (`fflush(stdout)`, `cout << endl`, `print(..., flush=True)`), and replies only once it has read all it expects.",
            ),
        },
    }
}

/// A failure's kind in words, as the feedback says it.
pub fn kind_in_words(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Wrong => "a wrong output",
        FailureKind::Crash => "a crash",
        FailureKind::Timeout => "too slow (far slower than the model answer)",
        FailureKind::Memory | FailureKind::Output => "over the memory or output limit",
    }
}

/// How many runs of a kind, in words: "a wrong output on 3 inputs".
pub fn kinds_in_words(counts: &FailureCounts) -> Vec<String> {
    let inputs = |n: usize| if n == 1 { "1 input".to_owned() } else { format!("{n} inputs") };
    [
        (counts.wrong, FailureKind::Wrong),
        (counts.crash, FailureKind::Crash),
        (counts.timeout, FailureKind::Timeout),
        (counts.memory + counts.output, FailureKind::Memory),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, kind)| format!("{} on {}", kind_in_words(kind), inputs(n)))
    .collect()
}

/// The most characters of an input or output a bug list shows: a course's test can be
/// megabytes (a judge's secret data), a flood of output as much, and a student reads the
/// start of it; the whole stays in the bug list's JSON.
pub const MAX_SHOWN_CHARS: usize = 2_000;

/// `text` as a bug list shows it: whole, or its start (at most [`MAX_SHOWN_CHARS`], ending
/// at a line break when one is in the second half) and the count of characters left out.
pub fn shown_start(text: &str) -> (&str, usize) {
    let Some((cut, _)) = text.char_indices().nth(MAX_SHOWN_CHARS) else { return (text, 0) };
    let cut = match text[..cut].rfind('\n') {
        Some(line_end) if line_end >= cut / 2 => line_end + 1,
        _ => cut,
    };
    (&text[..cut], text[cut..].chars().count())
}

/// A program's input as plain text for a sentence a student reads: its lines joined by
/// " / " (an empty input is "an empty input", white space at either end is named), cut to
/// `max_chars` characters with "…"; no escape codes or quotes.
pub fn input_in_words(input: &str, max_chars: usize) -> String {
    let text = input.strip_suffix('\n').unwrap_or(input);
    if text.trim().is_empty() {
        return if text.is_empty() { "an empty input".to_owned() } else { "an input of only spaces".to_owned() };
    }
    let lines: Vec<&str> = text.lines().collect();
    let joined = lines.join(" / ");
    let shown =
        if joined.chars().count() <= max_chars { joined } else { format!("{}…", joined.chars().take(max_chars.saturating_sub(1)).collect::<String>()) };
    match lines.len() {
        1 => shown,
        n => format!("{shown} ({n} lines)"),
    }
}

/// How a program's points were found, in words: "87.3 of 100 points: it failed 30 of the
/// 1000 inputs it was graded on (a wrong output on 30 inputs)."
pub fn points_in_words(points: &Points) -> String {
    let how = points_by_output_in_words(points);
    match &points.broken_rule {
        Some(rule) => format!("{how} Its sources break a rule of the assignment, whatever they print: it {rule}, which costs points."),
        None => how,
    }
}

/// [`points_in_words`] without the rules of the assignment: how its output earned them.
fn points_by_output_in_words(points: &Points) -> String {
    let earned = format!("{} of {} points", points.points, points.max);
    if points.judged == 0 && points.points < points.max {
        return format!("{earned}: it never ran, so no input could be graded.");
    }
    if points.judged == 0 {
        return format!("{earned}: no input could be judged, so nothing counts against it.");
    }
    // What any failure costs, in points (analyses made before it was kept do not say).
    let costs = points.deduction.filter(|d| *d > 0.0).map(|d| format!("any failure costs {} points", (d * points.max * 100.0).round() / 100.0));
    match (&points.beyond_sample, &costs) {
        (Some(test), Some(costs)) if points.failed == 0 => {
            return format!("{earned}: right on all {} inputs it was graded on, but it fails test {test}, which the search found: {costs}.", points.judged);
        }
        _ if points.failed == 0 => return format!("{earned}: right on all {} inputs it was graded on.", points.judged),
        _ => {}
    }
    if let Some(kind) = points.every_input {
        let how = kind_in_words(kind);
        return format!("{earned}: it failed every one of the {} inputs it was graded on the same way ({how}): one failure, on every input.", points.judged);
    }
    let failed =
        format!("{earned}: it failed {} of the {} inputs it was graded on ({})", points.failed, points.judged, kinds_in_words(&points.counts).join(", "));
    match costs {
        Some(costs) => format!("{failed}: {costs}, and the rest goes by the share passed."),
        None => format!("{failed}."),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_program_that_never_ran_earned_nothing_because_no_input_was_graded() {
        let points = grader::Points::not_built(&grader::GradingPolicy::default());
        assert_eq!(super::points_in_words(&points), "0 of 100 points: it never ran, so no input could be graded.");
    }

    #[test]
    fn points_say_what_a_failure_costs_and_name_a_test_failed_beyond_the_sample() {
        let policy = grader::GradingPolicy::default();
        let three = grader::Points::of(&policy, 1000, grader::FailureCounts { wrong: 3, ..Default::default() });
        assert_eq!(
            super::points_in_words(&three),
            "89.73 of 100 points: it failed 3 of the 1000 inputs it was graded on (a wrong output on 3 inputs): any failure costs 10 points, and the rest goes by the share passed."
        );
        let found = grader::Points::of(&policy, 1000, grader::FailureCounts::default()).failing_beyond_sample(&policy, "t04");
        assert_eq!(
            super::points_in_words(&found),
            "90 of 100 points: right on all 1000 inputs it was graded on, but it fails test t04, which the search found: any failure costs 10 points."
        );
        let clean = grader::Points::of(&policy, 1000, grader::FailureCounts::default());
        assert_eq!(super::points_in_words(&clean), "100 of 100 points: right on all 1000 inputs it was graded on.");
    }

    #[test]
    fn the_first_line_that_differs_is_named_with_both_versions_of_it() {
        let check =
            |expected: &str, got: &str, said: Option<&str>| assert_eq!(super::first_line_difference(expected, got).as_deref(), said, "{expected:?} / {got:?}");
        check("1\n2\n3\n", "1\n2\n4\n", Some("line 3 is `4` where `3` is expected"));
        check("1\n2\n3\n", "1\n2  \n3", None);
        check("1\n2\n3\n", "1\n2\n", Some("it stops after 2 lines, where line 3 should be `3`"));
        check("1\n2\n", "1\n2\n3\n", Some("it goes on after the 2 lines expected, with `3`"));
        check("7\n", "8\n", None);
        check("", "a\nb\n", Some("it prints 2 lines where nothing is expected"));
    }

    #[test]
    fn a_read_before_a_value_is_given_is_named_with_its_line_and_what_it_reads_here() {
        let warnings = "u.c:5:9: warning: variable 'm' is used uninitialized whenever 'if' condition is false [-Wsometimes-uninitialized]\n    if (n > 0) m = n * 2;\nu.c:3:13: note: initialize the variable 'm' to silence this warning\n";
        let said = super::uninitialised_in_words(warnings).unwrap();
        assert!(said.contains("(u.c line 5: variable 'm' is used uninitialized whenever 'if' condition is false)"), "{said}");
        assert!(said.contains("an int reads as -1"), "{said}");
        assert_eq!(super::uninitialised_in_words("a.c:2:5: warning: unused variable 'x' [-Wunused-variable]\n"), None);
    }

    use super::*;

    /// The calls view in short: `n:call=expected/got` for a call (`*` marking the first
    /// difference, `-` for no line), `…n` for calls left out.
    fn calls(input: &str, expected: &str, got: &str) -> Option<Vec<String>> {
        let shown = calls_in_order(input, expected, got)?;
        Some(
            shown
                .into_iter()
                .map(|line| match line {
                    CallLine::Call { number, call, expected, got, first_difference } => {
                        format!("{}{number}:{call}={expected}/{}", if first_difference { "*" } else { "" }, got.as_deref().unwrap_or("-"))
                    }
                    CallLine::Folded(n) => format!("…{n}"),
                })
                .collect(),
        )
    }

    #[test]
    fn a_short_sequence_is_shown_whole_with_its_first_difference_marked() {
        let shown = calls("init 2\nput 1 10\nget 1\n", "ok\nok\n10\n", "ok\nok\n-1\n").unwrap();
        assert_eq!(shown, ["1:init 2=ok/ok", "2:put 1 10=ok/ok", "*3:get 1=10/-1"]);
    }

    #[test]
    fn a_long_sequence_is_folded_around_the_first_difference() {
        let input: String = (1..=20).map(|i| format!("c{i}\n")).collect();
        let expected: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let got = expected.replace("12\n", "0\n");
        let shown = calls(&input, &expected, &got).unwrap();
        assert_eq!(shown, ["1:c1=1/1", "2:c2=2/2", "…6", "9:c9=9/9", "10:c10=10/10", "11:c11=11/11", "*12:c12=12/0", "13:c13=13/13", "14:c14=14/14", "…6"]);
    }

    #[test]
    fn a_run_that_stopped_early_shows_where_its_output_ended() {
        assert_eq!(calls("a\nb\nc\n", "1\n2\n3\n", "1\n").unwrap(), ["1:a=1/1", "*2:b=2/-", "3:c=3/-"]);
    }

    #[test]
    fn outputs_not_one_line_per_input_line_or_not_differing_are_not_calls() {
        assert_eq!(calls("3\n1 2 3\n", "6\n", "7\n"), None);
        assert_eq!(calls("a\n", "1\n", "2\n"), None);
        assert_eq!(calls("a\nb\n", "1\n2\n", "1\n2\n3\n"), None);
    }

    fn check(input: &str, expected: &str) {
        assert_eq!(input_in_words(input, 30), expected, "{input:?}");
    }

    #[test]
    fn an_input_in_words_has_no_escape_codes_and_says_what_cannot_be_seen() {
        check("member 1 [(0,2)]\n", "member 1 [(0,2)]");
        check("3\n1 2 3\n", "3 / 1 2 3 (2 lines)");
        check("", "an empty input");
        check("\n", "an empty input");
        check("  \n", "an input of only spaces");
        check(&"x".repeat(40), &format!("{}…", "x".repeat(29)));
    }
}
