//! Students handing in themselves: a batch's hand-in window (its deadline, how often a
//! student may hand in, what happens to a late hand-in) and the rule that decides each
//! hand-in, the same for every student.
//!
//! The window decides only when. What is graded is each student's last hand-in at or
//! before the deadline (the analysis queued at the deadline takes exactly those, whenever
//! it is queued, and so does one started by hand past it unless the instructor asks for
//! late ones too); a late hand-in, where the policy accepts it, is kept and marked late.
//!
//! ```
//! use course::hand_in_window::{HandInWindow, LatePolicy, Verdict};
//!
//! let window = HandInWindow { deadline: Some(10_000), ..HandInWindow::default() };
//! assert_eq!(window.decide(9_000, None), Verdict::OnTime);
//! // Ten minutes between hand-ins by default: the next may come at 9,600.
//! assert_eq!(window.decide(9_100, Some(9_000)), Verdict::Wait { until: 9_600 });
//! assert_eq!(window.decide(10_001, Some(9_000)), Verdict::Late);
//! let strict = HandInWindow { late: LatePolicy::Refuse, ..window };
//! assert_eq!(strict.decide(10_001, Some(9_000)), Verdict::Closed);
//! ```

use serde::{Deserialize, Serialize};

/// Minutes between two hand-ins of one student by default: each hand-in is built and run
/// on the public tests at once, so a student cannot use the pre-check as a compiler in a
/// loop (and 300 students cannot fill the check queue), while ten minutes leave time to
/// fix and try again before a deadline.
pub const DEFAULT_MINUTES_BETWEEN: u32 = 10;

/// The most minutes an instructor may set between hand-ins: a day (more would forbid a
/// second hand-in before most deadlines, which closing hand-ins says better).
pub const MAX_MINUTES_BETWEEN: u32 = 24 * 60;

/// What becomes of a hand-in after the deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatePolicy {
    /// Kept and marked late (the default: nothing a student sends is lost; the
    /// instructor decides what late counts for, and grades it with an analysis of late
    /// hand-ins too).
    #[default]
    Mark,
    /// Refused: after the deadline, hand-ins are closed.
    Refuse,
}

impl LatePolicy {
    /// The policy by its name in forms and the store (`mark`, `refuse`).
    pub fn named(name: &str) -> Option<LatePolicy> {
        match name {
            "mark" => Some(LatePolicy::Mark),
            "refuse" => Some(LatePolicy::Refuse),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LatePolicy::Mark => "mark",
            LatePolicy::Refuse => "refuse",
        }
    }

    /// The policy for people, after "a late hand-in is": "kept and marked late (...)".
    pub fn in_words(self) -> &'static str {
        match self {
            LatePolicy::Mark => "kept and marked late (graded only if the instructor grades late hand-ins)",
            LatePolicy::Refuse => "refused",
        }
    }
}

/// A batch's hand-in window, as its instructor set it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandInWindow {
    /// Seconds since 1970 (UTC); `None`: no deadline (hand-ins are open until the
    /// instructor closes them, and nothing is late).
    pub deadline: Option<i64>,
    /// The least minutes between two hand-ins of one student (1 to
    /// [`MAX_MINUTES_BETWEEN`]; default [`DEFAULT_MINUTES_BETWEEN`]).
    pub minutes_between: u32,
    pub late: LatePolicy,
    /// Whether the class's analysis is queued at the deadline by itself (default false:
    /// the instructor starts it).
    pub analyse_at_deadline: bool,
}

impl Default for HandInWindow {
    fn default() -> HandInWindow {
        HandInWindow { deadline: None, minutes_between: DEFAULT_MINUTES_BETWEEN, late: LatePolicy::Mark, analyse_at_deadline: false }
    }
}

/// What the window says of a hand-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted, before (or at) the deadline.
    OnTime,
    /// Accepted after the deadline, marked late.
    Late,
    /// Too soon after the student's last hand-in: the next may come at `until`.
    Wait { until: i64 },
    /// After the deadline, and late hand-ins are refused.
    Closed,
}

impl HandInWindow {
    /// The window with `minutes_between` checked: 1 to [`MAX_MINUTES_BETWEEN`].
    pub fn new(deadline: Option<i64>, minutes_between: u32, late: LatePolicy, analyse_at_deadline: bool) -> Result<HandInWindow, String> {
        if !(1..=MAX_MINUTES_BETWEEN).contains(&minutes_between) {
            return Err(format!("the minutes between two hand-ins of a student must be 1 to {MAX_MINUTES_BETWEEN} (a day), not {minutes_between}"));
        }
        if analyse_at_deadline && deadline.is_none() {
            return Err("an analysis at the deadline needs a deadline: set one, or start the analysis yourself".to_owned());
        }
        Ok(HandInWindow { deadline, minutes_between, late, analyse_at_deadline })
    }

    /// Whether a hand-in at `now` is past the deadline.
    pub fn is_late(&self, now: i64) -> bool {
        self.deadline.is_some_and(|deadline| now > deadline)
    }

    /// The decision on a hand-in at `now` by a student whose last hand-in came at `last`.
    /// Closed comes first: after the deadline a student who must wait is told hand-ins are
    /// closed, not to come back.
    pub fn decide(&self, now: i64, last: Option<i64>) -> Verdict {
        if self.is_late(now) && self.late == LatePolicy::Refuse {
            return Verdict::Closed;
        }
        if let Some(until) = last.map(|last| last + i64::from(self.minutes_between) * 60).filter(|&until| now < until) {
            return Verdict::Wait { until };
        }
        if self.is_late(now) { Verdict::Late } else { Verdict::OnTime }
    }
}

/// A span of time in words, to the minute, for a deadline or a wait: "2 days 3 hours",
/// "3 hours 5 minutes", "5 minutes", "less than a minute". The two largest units only:
/// a student reads "2 days 3 hours" at a glance.
pub fn span_in_words(seconds: i64) -> String {
    let minutes = seconds.max(0) / 60;
    if minutes == 0 {
        return "less than a minute".to_owned();
    }
    let units = [(minutes / 1440, "day"), (minutes / 60 % 24, "hour"), (minutes % 60, "minute")];
    let first = units.iter().position(|(n, _)| *n > 0).unwrap_or(2);
    units[first..(first + 2).min(3)]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n} {unit}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEADLINE: i64 = 1_000_000;

    fn window(late: LatePolicy) -> HandInWindow {
        HandInWindow::new(Some(DEADLINE), 10, late, false).unwrap()
    }

    #[test]
    fn a_hand_in_at_the_deadline_is_on_time_and_one_a_second_later_is_late() {
        let check = |now: i64, expected: Verdict| assert_eq!(window(LatePolicy::Mark).decide(now, None), expected, "at {now}");
        check(DEADLINE - 3600, Verdict::OnTime);
        check(DEADLINE, Verdict::OnTime);
        check(DEADLINE + 1, Verdict::Late);
    }

    #[test]
    fn a_student_waits_the_minutes_between_hand_ins_counted_from_their_last() {
        let check = |now: i64, last: i64, expected: Verdict| assert_eq!(window(LatePolicy::Mark).decide(now, Some(last)), expected, "at {now} after {last}");
        check(DEADLINE - 3000, DEADLINE - 3500, Verdict::Wait { until: DEADLINE - 2900 });
        check(DEADLINE - 2900, DEADLINE - 3500, Verdict::OnTime);
        // Late hand-ins wait too, where they are accepted.
        check(DEADLINE + 60, DEADLINE - 60, Verdict::Wait { until: DEADLINE + 540 });
    }

    #[test]
    fn after_the_deadline_refused_late_hand_ins_say_closed_even_to_a_student_who_must_wait() {
        let refuse = window(LatePolicy::Refuse);
        assert_eq!(refuse.decide(DEADLINE + 1, None), Verdict::Closed);
        assert_eq!(refuse.decide(DEADLINE + 1, Some(DEADLINE - 10)), Verdict::Closed);
        assert_eq!(refuse.decide(DEADLINE, None), Verdict::OnTime);
    }

    #[test]
    fn without_a_deadline_nothing_is_late() {
        let open = HandInWindow { late: LatePolicy::Refuse, ..HandInWindow::default() };
        assert_eq!(open.decide(i64::MAX / 2, None), Verdict::OnTime);
    }

    #[test]
    fn a_window_refuses_minutes_out_of_range_and_an_analysis_at_no_deadline() {
        let check = |deadline: Option<i64>, minutes: u32, analyse: bool, refusal: &str| {
            let error = HandInWindow::new(deadline, minutes, LatePolicy::Mark, analyse).unwrap_err();
            assert!(error.contains(refusal), "{error}");
        };
        check(Some(DEADLINE), 0, false, "must be 1 to 1440");
        check(Some(DEADLINE), MAX_MINUTES_BETWEEN + 1, false, "must be 1 to 1440");
        check(None, 10, true, "needs a deadline");
        assert!(HandInWindow::new(Some(DEADLINE), MAX_MINUTES_BETWEEN, LatePolicy::Refuse, true).is_ok());
    }

    #[test]
    fn spans_are_said_in_their_two_largest_units() {
        let check = |seconds: i64, words: &str| assert_eq!(span_in_words(seconds), words);
        check(0, "less than a minute");
        check(59, "less than a minute");
        check(60, "1 minute");
        check(3 * 3600 + 5 * 60 + 59, "3 hours 5 minutes");
        check(2 * 86_400 + 3 * 3600 + 7 * 60, "2 days 3 hours");
        check(86_400 + 7 * 60, "1 day");
        check(-5, "less than a minute");
    }

    #[test]
    fn late_policies_are_named_as_forms_and_the_store_name_them() {
        for policy in [LatePolicy::Mark, LatePolicy::Refuse] {
            assert_eq!(LatePolicy::named(policy.name()), Some(policy));
        }
        assert_eq!(LatePolicy::named("accept"), None);
    }
}
