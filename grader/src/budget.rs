//! The time budget of a run: how much fuel an answer gets on an input, and why that is fair.
//!
//! A judge derives a problem's time limit from its own solutions' slowest runs, never from
//! how fast one solution happens to be on one input. bugrank does the same, in fuel (a
//! deterministic count of instructions): before the search, the reference is run on
//! [`CALIBRATION_INPUTS`] generated inputs, grouped into size classes by input length, and
//! the cost of the *hardest inputs of each size* is kept (a [`Calibration`]). An answer's
//! budget on an input is then the largest of
//!
//! - the floor (a program's start-up and the parsing of a small input),
//! - `factor` times the reference's fuel on this very input (a large input that the
//!   reference itself finds hard), and
//! - the *allowance*: `hardest_factor` times the reference's fuel on the hardest inputs of
//!   this input's size, and
//! - a judge's time limit in fuel (`limit`), when the problem has one: an imported package's
//!   accepted submissions set it, as judges set theirs.
//!
//! So a correct program never fails for time on an input where it needs less than the
//! allowance, however differently from the reference it prunes; and a program that is
//! too slow by design (trying every assignment) still fails on the large inputs, where
//! it needs far more than any correct search.
//!
//! Loops stay cheap: a run first gets the *quick* budget (floor and per-input factor); only
//! a run that times out there and whose verdict can change the search is run again with
//! the allowance (see `search/evaluate.rs`), and every verdict that reaches a grade has had it.

use serde::{Deserialize, Serialize};

/// Generated inputs the reference is measured on. A thousand runs of the reference cost
/// a second or two even for a problem with expensive inputs, and give each of the
/// [`SIZE_CLASSES`] some 125 inputs, enough for a stable [`HARDEST_QUANTILE`].
pub const CALIBRATION_INPUTS: u64 = 1_000;

/// The calibration inputs are drawn with this seed whatever the analysis's seed: the
/// budget belongs to the problem, the same in every analysis of it (so it cannot make
/// ranks differ from seed to seed, and a frozen suite keeps its budget).
pub const CALIBRATION_SEED: u64 = 0x0B06_E7CA_11B8_A7E5;

/// Size classes, by input length: each holds an equal share of the calibration inputs
/// (inputs of one length stay together). Eight classes separate the small inputs, where
/// a search is cheap whatever it does, from the large ones, where pruning matters.
pub const SIZE_CLASSES: usize = 8;

/// "The hardest inputs" of a size class: the reference's fuel at this quantile of the
/// class. Not the maximum: one freak input would set the allowance of a whole class,
/// and every looping answer would then pay for it on every test.
pub const HARDEST_QUANTILE: f64 = 0.95;

/// What the reference costs on the problem's inputs, by size. The default is no
/// measurement at all: one class whose allowance adds nothing to the quick budget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calibration {
    /// Calibration inputs the reference handled (generator or reference failures are left
    /// out: the search reports them as problem errors).
    pub inputs: u64,
    /// By increasing length; never empty.
    pub classes: Vec<SizeClass>,
}

/// Inputs of one range of lengths.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeClass {
    /// Inputs of at most this many bytes (and more than the previous class's bound); the
    /// last class also takes every longer input.
    pub up_to_bytes: usize,
    /// Calibration inputs in the class.
    pub inputs: usize,
    /// The reference's fuel on the hardest inputs of this size ([`HARDEST_QUANTILE`]),
    /// never less than that of a smaller class: a longer input never gets less time.
    pub hardest: u64,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration::from_costs(Vec::new())
    }
}

impl Calibration {
    /// The calibration of the reference's fuel on inputs of the given lengths, as
    /// `(length, fuel)` pairs. With no measurement at all, one class with `hardest` 0
    /// (the allowance then adds nothing to the quick budget).
    pub fn from_costs(mut costs: Vec<(usize, u64)>) -> Calibration {
        costs.sort_unstable();
        let inputs = costs.len() as u64;
        let mut classes: Vec<SizeClass> = Vec::new();
        let share = costs.len().div_ceil(SIZE_CLASSES).max(1);
        let mut start = 0;
        while start < costs.len() {
            // Take `share` inputs, then every further input of the same length.
            let mut end = (start + share).min(costs.len());
            while end < costs.len() && costs[end].0 == costs[end - 1].0 {
                end += 1;
            }
            let mut fuel: Vec<u64> = costs[start..end].iter().map(|&(_, f)| f).collect();
            fuel.sort_unstable();
            let at = ((fuel.len() - 1) as f64 * HARDEST_QUANTILE).round() as usize;
            let floor = classes.last().map_or(0, |c| c.hardest);
            classes.push(SizeClass { up_to_bytes: costs[end - 1].0, inputs: end - start, hardest: fuel[at].max(floor) });
            start = end;
        }
        if classes.is_empty() {
            classes.push(SizeClass { up_to_bytes: 0, inputs: 0, hardest: 0 });
        }
        Calibration { inputs, classes }
    }

    /// The size class of an input of `len` bytes.
    pub fn class(&self, len: usize) -> &SizeClass {
        self.classes.iter().find(|c| len <= c.up_to_bytes).unwrap_or_else(|| self.classes.last().expect("never empty"))
    }
}

/// The fuel an answer gets on one input (see the module's documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// The floor, or `factor` times the reference's fuel on this input: what a run gets
    /// first.
    pub quick: u64,
    /// The quick budget or the allowance of the input's size class, whichever is larger:
    /// what a run gets before it counts as too slow.
    pub fair: u64,
    /// The reference's fuel on the hardest inputs of this size (the allowance's basis).
    pub hardest: u64,
}

/// How much fuel an answer gets on an input (see the module's documentation for why this is fair):
/// the largest of `floor`, `factor` times the reference's fuel on the same input,
/// `hardest_factor` times the reference's fuel on the hardest inputs of the same size, and
/// a judge's `limit` when the problem has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuelPolicy {
    /// Default 20: a large input that the reference itself finds hard leaves a program
    /// that is slower by a constant factor (another language, a clumsier data structure)
    /// room to finish.
    pub factor: u64,
    /// Default 500,000. A Rust program's start-up and the parsing of a small input cost
    /// some 10,000-25,000 fuel (the interval-sets reference uses about 23,000 on a typical
    /// input), so the floor leaves a slower language or a clumsier parser 20 times that,
    /// while an answer stuck in a loop costs well under a millisecond per test.
    pub floor: u64,
    /// Default 10: the allowance of an input is this many times the reference's fuel on
    /// the hardest inputs of its size ([`crate::budget::HARDEST_QUANTILE`] of its size
    /// class). A correct search that prunes differently from the reference may be slower
    /// on some inputs and faster on others; judged against the hardest inputs of a size
    /// rather than against this one input, it passes unless it is ten times slower than
    /// the reference is where the reference is slowest.
    pub hardest_factor: u64,
    /// Fuel for the reference itself. Default 1,000,000,000 (a few seconds): a reference
    /// that needs more on a generated input is a problem error.
    pub reference: u64,
    /// A judge's time limit, in fuel: every run may use this much before it fails for
    /// time, whatever the reference needs on the input (in the fair budget: a loop still
    /// costs the quick one first). Default 0, none. `bugrank import` sets it from the
    /// package's accepted submissions, as judges set their time limit: a multiplier times
    /// the slowest one's run on the package's tests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub limit: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Default for FuelPolicy {
    fn default() -> Self {
        FuelPolicy { factor: 20, floor: 500_000, hardest_factor: 10, reference: 1_000_000_000, limit: 0 }
    }
}

impl FuelPolicy {
    /// The budget on an input on which the reference used `reference_fuel`, in `class`.
    pub fn budget(&self, reference_fuel: u64, class: &SizeClass) -> Budget {
        let quick = reference_fuel.saturating_mul(self.factor).max(self.floor);
        let fair = class.hardest.saturating_mul(self.hardest_factor).max(quick).max(self.limit);
        Budget { quick, fair, hardest: class.hardest }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judges_limit_raises_the_fair_budget_and_never_the_quick_one() {
        let class = SizeClass { up_to_bytes: 100, inputs: 10, hardest: 1_000 };
        let check = |limit: u64, reference_fuel: u64, expected: (u64, u64)| {
            let budget = FuelPolicy { limit, ..FuelPolicy::default() }.budget(reference_fuel, &class);
            assert_eq!((budget.quick, budget.fair), expected, "limit {limit}, reference {reference_fuel}");
        };
        check(0, 100_000, (2_000_000, 2_000_000));
        check(50_000_000, 100_000, (2_000_000, 50_000_000));
        check(50_000_000, 10_000_000, (200_000_000, 200_000_000));
    }
}
