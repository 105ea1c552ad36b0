//! Points on a fixed scale (beyond the paper): what a program earns, out of a maximum the
//! instructor sets, from its runs on a *grading sample* that is the same whoever else is
//! graded (run by [`crate::run::sample_failures`]).
//!
//! The paper's score (suite tests passed) and rank say how a program compares with its
//! class: the suite is made of the class's bugs, so one more classmate can add a test and
//! move everyone's score. Points may not move so. They come from [`GRADING_SAMPLE_INPUTS`]
//! inputs the problem's generator draws with the fixed [`GRADING_SEED`] (not the
//! analysis's seed, nor anything of the class), and the course's own tests when the problem
//! has some ([`crate::Problem::fixed`]: a hand-in failing one of them always loses points),
//! each judged with the fair budget the search gives it:
//!
//! - no failure on the sample: the maximum;
//! - else `max × (1 − failure_deduction) × (share of the sample passed)`: any failure
//!   costs `failure_deduction` of the maximum (default 10%, so that a bug on one input in a
//!   thousand still costs something), and the rest goes by how often the program is wrong
//!   on inputs drawn as the problem draws them. A program that fails every input the same
//!   way (it does not start, or loops on everything) gets 0: one failure, on every input.
//!
//! The sample draws its sizes as the search's random tests do (0 to [`crate::MAX_SIZE`],
//! again and again: [`crate::ChoiceSource::for_random_test`]), and the generator library's
//! collections reach their declared maximum at the largest size, so the sample reaches the
//! generator's whole range (an LRU cache's 40 commands, not only short sequences).
//!
//! A bug the sample misses but the analysis found (the program fails a suite test, or a
//! course test, while it passes every sample input) costs the failure deduction too
//! ([`Points::failing_beyond_sample`]): a bug bugrank found is never worth full points.
//!
//! Pitfall: what can then depend on the class is whether such a rare bug (below about one
//! input in a thousand) was found at all: the search's tests near the bugs found (mutants,
//! neighbours, the split search) are drawn near the class's failing sets, so a classmate's
//! bug can lead the search to it. A bug the sample shows costs the same in any class.

use serde::{Deserialize, Serialize};

use crate::oracle::{FailureCounts, FailureKind};

/// The seed of the grading sample: fixed, so that points depend on the problem and the
/// program alone (not on the analysis's seed, which only steers the search).
pub const GRADING_SEED: u64 = 0x6752_4144_4553_0001;

/// Inputs in the grading sample: a failure on one input in a thousand is found, and the
/// sample costs at most 1,000 runs per distinct program (an input drawn several times runs
/// once and counts as often).
pub const GRADING_SAMPLE_INPUTS: u64 = 1_000;

/// How points are given: `[grading]` of `problem.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GradingPolicy {
    /// The points of a program with no failure on the sample. Default 100.
    pub max_points: f64,
    /// The share of `max_points` that any failure costs, from 0 to 1. Default 0.1.
    pub failure_deduction: f64,
    /// The points a broken rule of the assignment takes off (`[rules]` of `problem.toml`:
    /// a construct it forbids). Default: all of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_cost: Option<f64>,
}

impl Default for GradingPolicy {
    fn default() -> Self {
        GradingPolicy { max_points: 100.0, failure_deduction: 0.1, rule_cost: None }
    }
}

/// A program's points and how they were found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Points {
    /// Out of `max`, rounded to two decimals.
    pub points: f64,
    pub max: f64,
    /// Sample inputs the program was judged on (inputs the reference or the checker could
    /// not handle are left out, for everyone).
    pub judged: u64,
    /// Of those, the ones it failed, by kind.
    pub failed: u64,
    pub counts: FailureCounts,
    /// Set when it failed every input judged, all in this one way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_input: Option<FailureKind>,
    /// The share of `max` any failure costs ([`GradingPolicy::failure_deduction`]); absent
    /// in analyses made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deduction: Option<f64>,
    /// A test of the analysis the program fails although it passed every sample input: a
    /// bug the search found beyond the sample, which cost the deduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beyond_sample: Option<String>,
    /// The rule of the assignment its sources break, the first in words ("uses `sort`
    /// (line 6)"), which cost it [`GradingPolicy::rule_cost`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken_rule: Option<String>,
}

impl Points {
    /// The points of a program that failed `counts` of `judged` sample inputs.
    pub fn of(policy: &GradingPolicy, judged: u64, counts: FailureCounts) -> Points {
        let failed = (counts.wrong + counts.crash + counts.timeout + counts.memory + counts.output) as u64;
        let passed_share = if judged == 0 { 1.0 } else { (judged - failed) as f64 / judged as f64 };
        let earned = if failed == 0 { policy.max_points } else { policy.max_points * (1.0 - policy.failure_deduction) * passed_share };
        let kinds = [
            (counts.wrong, FailureKind::Wrong),
            (counts.crash, FailureKind::Crash),
            (counts.timeout, FailureKind::Timeout),
            (counts.memory, FailureKind::Memory),
            (counts.output, FailureKind::Output),
        ];
        let every_input = kinds.iter().find(|(n, _)| judged > 0 && *n as u64 == judged).map(|(_, kind)| *kind);
        Points {
            points: (earned * 100.0).round() / 100.0,
            max: policy.max_points,
            judged,
            failed,
            counts,
            every_input,
            deduction: Some(policy.failure_deduction),
            beyond_sample: None,
            broken_rule: None,
        }
    }

    /// These points of a program that fails `test`, a test of the analysis (of the suite,
    /// or the course's): when the sample found no failure, the failure deduction is taken
    /// all the same, and `test` is named; otherwise they are as they were (the sample's
    /// failures already cost it).
    pub fn failing_beyond_sample(self, policy: &GradingPolicy, test: &str) -> Points {
        if self.failed > 0 || self.judged == 0 {
            return self;
        }
        let earned = policy.max_points * (1.0 - policy.failure_deduction);
        Points { points: (earned * 100.0).round() / 100.0, beyond_sample: Some(test.to_owned()), ..self }
    }

    /// These points of a program whose sources break a rule of the assignment (`rule`, in
    /// words): [`GradingPolicy::rule_cost`] taken off, all of them by default, never below
    /// 0. Points that already took it are as they were (a frozen re-run keeps a result).
    pub fn breaking_rule(self, policy: &GradingPolicy, rule: &str) -> Points {
        if self.broken_rule.is_some() {
            return self;
        }
        let left = self.points - policy.rule_cost.unwrap_or(self.max);
        Points { points: (left.max(0.0) * 100.0).round() / 100.0, broken_rule: Some(rule.to_owned()), ..self }
    }

    /// The same program's points under another `policy` (a re-run's new maximum, say):
    /// from its sample counts again, so exactly what a fresh grading would give. A program
    /// judged on no input keeps its share: none if it never ran, all if nothing could judge it.
    pub fn under(&self, policy: &GradingPolicy) -> Points {
        if self.judged > 0 {
            let points = Points::of(policy, self.judged, self.counts);
            let points = match &self.beyond_sample {
                Some(test) => points.failing_beyond_sample(policy, test),
                None => points,
            };
            return match &self.broken_rule {
                Some(rule) => points.breaking_rule(policy, rule),
                None => points,
            };
        }
        let share = if self.max > 0.0 { self.points / self.max } else { 0.0 };
        Points { points: (share * policy.max_points * 100.0).round() / 100.0, max: policy.max_points, ..self.clone() }
    }

    /// The points of a program that never ran (its sources did not compile): none.
    pub fn not_built(policy: &GradingPolicy) -> Points {
        Points {
            points: 0.0,
            max: policy.max_points,
            judged: 0,
            failed: 0,
            counts: FailureCounts::default(),
            every_input: None,
            deduction: Some(policy.failure_deduction),
            beyond_sample: None,
            broken_rule: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(judged: u64, counts: FailureCounts, expected: f64) {
        assert_eq!(Points::of(&GradingPolicy::default(), judged, counts).points, expected, "{counts:?} of {judged}");
    }

    #[test]
    fn no_failure_gets_the_maximum_any_failure_costs_a_tenth_and_the_rest_goes_by_how_often() {
        check(1000, FailureCounts::default(), 100.0);
        check(1000, FailureCounts { wrong: 1, ..Default::default() }, 89.91);
        check(1000, FailureCounts { wrong: 250, crash: 250, ..Default::default() }, 45.0);
        check(1000, FailureCounts { timeout: 1000, ..Default::default() }, 0.0);
    }

    #[test]
    fn a_program_failing_every_input_one_way_is_said_to_and_one_failing_in_two_ways_is_not() {
        let policy = GradingPolicy { max_points: 20.0, failure_deduction: 0.25, rule_cost: None };
        let loops = Points::of(&policy, 800, FailureCounts { timeout: 800, ..Default::default() });
        assert_eq!((loops.points, loops.every_input), (0.0, Some(FailureKind::Timeout)));
        let mixed = Points::of(&policy, 800, FailureCounts { timeout: 400, crash: 400, ..Default::default() });
        assert_eq!((mixed.points, mixed.every_input), (0.0, None));
        let one = Points::of(&policy, 800, FailureCounts { crash: 8, ..Default::default() });
        assert_eq!((one.points, one.max, one.failed), (14.85, 20.0, 8));
    }

    #[test]
    fn a_failure_the_search_found_beyond_the_sample_costs_the_deduction_and_is_named() {
        let policy = GradingPolicy::default();
        let clean = Points::of(&policy, 1000, FailureCounts::default());
        let found = clean.clone().failing_beyond_sample(&policy, "t07");
        assert_eq!((found.points, found.beyond_sample.as_deref(), found.failed), (90.0, Some("t07"), 0));
        let sampled = Points::of(&policy, 1000, FailureCounts { wrong: 3, ..Default::default() });
        assert_eq!(sampled.clone().failing_beyond_sample(&policy, "t07"), sampled, "the sample's failures already cost it");
        let ten = GradingPolicy { max_points: 10.0, ..policy };
        assert_eq!(found.under(&ten), clean.under(&ten).failing_beyond_sample(&ten, "t07"), "kept under another maximum");
    }

    #[test]
    fn a_broken_rule_costs_all_the_points_by_default_or_the_policys_cost_once() {
        let policy = GradingPolicy::default();
        let clean = Points::of(&policy, 1000, FailureCounts::default());
        let all = clean.clone().breaking_rule(&policy, "uses `sort` (line 6)");
        assert_eq!((all.points, all.broken_rule.as_deref()), (0.0, Some("uses `sort` (line 6)")));
        let five = GradingPolicy { rule_cost: Some(5.0), ..policy };
        let some = clean.breaking_rule(&five, "uses `sort` (line 6)");
        assert_eq!(some.points, 95.0);
        assert_eq!(some.clone().breaking_rule(&five, "uses `sorted` (line 7)"), some, "taken once");
        let ten = GradingPolicy { max_points: 10.0, ..five };
        assert_eq!(some.under(&ten).points, 5.0, "kept under another maximum");
        let failing = Points::of(&five, 1000, FailureCounts { wrong: 990, ..Default::default() });
        assert_eq!(failing.breaking_rule(&five, "x").points, 0.0, "never below 0");
    }

    #[test]
    fn points_under_another_maximum_are_those_a_fresh_grading_would_give() {
        let (hundred, ten) = (GradingPolicy::default(), GradingPolicy { max_points: 10.0, ..GradingPolicy::default() });
        let counts = FailureCounts { wrong: 3, ..Default::default() };
        assert_eq!(Points::of(&hundred, 1000, counts).under(&ten), Points::of(&ten, 1000, counts));
        assert_eq!(Points::not_built(&hundred).under(&ten), Points::not_built(&ten));
        let unjudged = Points::of(&hundred, 0, FailureCounts::default());
        assert_eq!(unjudged.under(&ten).points, 10.0, "nothing could judge it: the maximum");
    }
}
