//! Results in words a first-year reads: a failure's kind, failures counted by kind, and
//! how a program's points were found. The feedback of the gradebooks and the bug lists say
//! them the same way.

use grader::{FailureCounts, FailureKind, Points};

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

/// How a program's points were found, in words: "87.3 of 100 points: it failed 30 of the
/// 1000 generated inputs it was graded on (a wrong output on 30 inputs)."
pub fn points_in_words(points: &Points) -> String {
    let earned = format!("{} of {} points", points.points, points.max);
    if points.failed == 0 {
        return format!("{earned}: right on all {} generated inputs it was graded on.", points.judged);
    }
    if let Some(kind) = points.every_input {
        let how = kind_in_words(kind);
        return format!("{earned}: it failed every one of the {} generated inputs it was graded on the same way ({how}): one failure, on every input.", points.judged);
    }
    format!("{earned}: it failed {} of the {} generated inputs it was graded on ({}).", points.failed, points.judged, kinds_in_words(&points.counts).join(", "))
}
