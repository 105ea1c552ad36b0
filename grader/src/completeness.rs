//! How complete a finished search is (beyond the paper): from the search's own record, the
//! number of random tests that fell in each failing set, an estimate of what it may have
//! missed.
//!
//! Each random test (not a mutant: those are drawn near known bugs and would bias the
//! counts) is a draw from the problem's input distribution, and its failing set (the
//! answers that fail it) a "species". Two classical estimators from the frequencies of the
//! species seen:
//!
//! - **Good–Turing**: the chance that the next draw is a species never seen is about the
//!   share of draws whose species was seen exactly once, `f1 / n`. With no singleton the
//!   estimate is 0; the honest statement is then "under 1 in n".
//! - **Chao1** (bias-corrected): the number of species never seen is at least about
//!   `f1 (f1 − 1) / (2 (f2 + 1)) · (n − 1) / n`, from the singletons `f1` and doubletons `f2`.
//!
//! Only non-empty failing sets are species (a test every answer passes finds no bug); the
//! draws are every usable random test. A failing set rarer than one test in `n` may be
//! missed whatever the estimate says: it bounds what random testing alone would find next,
//! not what shrinking and the neighbourhood search add.
//!
//! The estimates are recorded in `analysis.json` and said in words. [`SetTally`] keeps the counts as the search goes
//! and tells new kinds of failure from combinations (a set that is the union of the seen sets inside it), which the
//! optional stopping rule ([`crate::EstimateStop`], `[search] stop = "estimate"` of `problem.toml`) counts instead of
//! the paper's `stable_after`.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::partition::FailingSet;

/// The search's completeness, as `analysis.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completeness {
    /// Usable random tests (mutants left out).
    pub random_tests: u64,
    /// Distinct non-empty failing sets those tests fell in.
    pub failing_sets_seen: u64,
    /// Failing sets seen exactly once (`f1`) and exactly twice (`f2`).
    pub seen_once: u64,
    pub seen_twice: u64,
    /// Good–Turing: the chance that one more random test falls in a failing set not seen.
    pub chance_of_new_set: f64,
    /// Chao1: failing sets not seen, about.
    pub unseen_sets: f64,
    /// Of the sets seen once, those that are new kinds of failure: not the union of the
    /// other sets seen inside them (a test failing two known bugs at once is a combination,
    /// not a new bug). Absent in analyses made before it was.
    #[serde(default)]
    pub new_kinds_seen_once: u64,
}

impl Completeness {
    /// The estimate from how many random tests fell in each non-empty failing set, of
    /// `random_tests` in all.
    pub fn estimate<K: Eq + Hash>(counts: &HashMap<K, u64>, random_tests: u64) -> Completeness {
        let (f1, f2) = (counts.values().filter(|&&c| c == 1).count() as u64, counts.values().filter(|&&c| c == 2).count() as u64);
        let n = random_tests.max(1) as f64;
        let chao1 = (f1 * f1.saturating_sub(1)) as f64 / (2.0 * (f2 + 1) as f64) * (n - 1.0) / n;
        Completeness {
            random_tests,
            failing_sets_seen: counts.len() as u64,
            seen_once: f1,
            seen_twice: f2,
            chance_of_new_set: f1 as f64 / n,
            unseen_sets: (chao1 * 100.0).round() / 100.0,
            new_kinds_seen_once: f1,
        }
    }

    /// The estimate in words: "about a 1 in 5,000 chance that one more random test fails
    /// a set of programs no test failed before (2 sets were seen only once among 10,000
    /// random tests)". Pitfall: such a set may be a combination the suite already explains
    /// (the union of others); the chance bounds new bugs from above.
    pub fn in_words(&self) -> String {
        let tests = thousands(self.random_tests);
        if self.seen_once == 0 {
            return format!(
                "every set of failing programs random testing found was found at least twice: under a 1 in {tests} chance that one more random test fails a new set"
            );
        }
        let one_in = thousands((1.0 / self.chance_of_new_set).round() as u64);
        let once = if self.seen_once == 1 { "1 set was".to_owned() } else { format!("{} sets were", self.seen_once) };
        format!(
            "about a 1 in {one_in} chance that one more random test fails a set of programs no test failed before ({once} seen only once among {tests} random tests)"
        )
    }
}

impl Completeness {
    /// The chance, by this estimate, that `tests` more random tests find a set of failing
    /// programs no test failed before: `1 - (1 - p)^tests`, where `p` is the chance for one
    /// ([`Completeness::chance_of_new_set`]; when every set was seen twice, its bound, one
    /// in the random tests so far). Pitfall: as that chance, an upper bound on new bugs.
    pub fn chance_within(&self, tests: u64) -> f64 {
        let one = if self.seen_once == 0 { 1.0 / self.random_tests.max(1) as f64 } else { self.chance_of_new_set };
        1.0 - (1.0 - one.clamp(0.0, 1.0)).powf(tests as f64)
    }

    /// What the estimate means for the instructor, in a sentence to act on: the chance that
    /// `tests` more random tests find a new kind of failure, and whether to search longer
    /// (at [`SEARCH_LONGER_FROM`] or more).
    pub fn advice(&self, tests: u64) -> String {
        let chance = self.chance_within(tests);
        let percent = if chance < 0.01 { "under 1 %".to_owned() } else { format!("about {:.0} %", chance * 100.0) };
        let then = if chance >= SEARCH_LONGER_FROM {
            "Searching longer may find more bugs: analyse again with more tests in a row that find no new bug before the search stops."
        } else {
            "Searching longer would seldom find more."
        };
        format!("{} more random tests would find a new kind of failure with a chance of {percent}. {then}", thousands(tests))
    }
}

/// The chance of a new kind of failure in the next tests from which [`Completeness::advice`]
/// says to search longer: one in ten.
pub const SEARCH_LONGER_FROM: f64 = 0.1;

/// The random tests' failing sets as the search goes: how many fell in each, and which are
/// combinations (the union of the other seen sets inside them), so that the sets seen once
/// that are new kinds of failure are known at any time. A set once a combination stays one
/// (sets are only added), so each new set rechecks only itself and the sets seen once that
/// hold it: a new set costs one pass over the sets seen.
#[derive(Default)]
pub struct SetTally {
    counts: HashMap<FailingSet, u64>,
    combinations: HashSet<FailingSet>,
    /// Sets seen once, and those of them not combinations.
    seen_once: u64,
    new_kinds_once: u64,
}

impl SetTally {
    /// Counts one random test that fell in the non-empty failing set `set`.
    pub fn add(&mut self, set: FailingSet) {
        let count = self.counts.entry(set.clone()).or_default();
        *count += 1;
        match *count {
            1 => {
                self.seen_once += 1;
                if self.is_combination(&set) {
                    self.combinations.insert(set.clone());
                } else {
                    self.new_kinds_once += 1;
                }
                // Sets seen once that hold the new one may now be its combinations.
                let holders: Vec<FailingSet> = self
                    .counts
                    .iter()
                    .filter(|(other, n)| **n == 1 && *other != &set && set.is_subset(other) && !self.combinations.contains(*other))
                    .map(|(other, _)| other.clone())
                    .collect();
                for other in holders {
                    if self.is_combination(&other) {
                        self.combinations.insert(other);
                        self.new_kinds_once -= 1;
                    }
                }
            }
            2 => {
                self.seen_once -= 1;
                if !self.combinations.contains(&set) {
                    self.new_kinds_once -= 1;
                }
            }
            _ => {}
        }
    }

    /// Whether `set` is the union of the other seen sets inside it.
    fn is_combination(&self, set: &FailingSet) -> bool {
        let mut union: Option<FailingSet> = None;
        for other in self.counts.keys().filter(|other| *other != set && other.is_subset(set)) {
            match &mut union {
                Some(union) => union.union_with(other),
                None => union = Some(other.clone()),
            }
        }
        union.as_ref() == Some(set)
    }

    /// Sets seen exactly once, and of them the new kinds of failure.
    pub fn seen_once(&self) -> (u64, u64) {
        (self.seen_once, self.new_kinds_once)
    }

    /// The estimate after `random_tests` random tests.
    pub fn estimate(&self, random_tests: u64) -> Completeness {
        Completeness { new_kinds_seen_once: self.new_kinds_once, ..Completeness::estimate(&self.counts, random_tests) }
    }
}

/// `n` with thousands separated by commas.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Rng;

    /// Draws `n` tests from species of the given probabilities (the rest: no failure) and
    /// returns the estimate and the true chance of a species not drawn.
    fn draw(probabilities: &[f64], n: u64, seed: u64) -> (Completeness, f64) {
        let mut counts: HashMap<usize, u64> = HashMap::new();
        let mut rng = Rng::for_test(seed, 0);
        for _ in 0..n {
            let mut u = rng.below_or_equal(1_000_000_000) as f64 / 1e9;
            for (species, &p) in probabilities.iter().enumerate() {
                if u < p {
                    *counts.entry(species).or_default() += 1;
                    break;
                }
                u -= p;
            }
        }
        let missed: f64 = probabilities.iter().enumerate().filter(|(s, _)| !counts.contains_key(s)).map(|(_, p)| p).sum();
        (Completeness::estimate(&counts, n), missed)
    }

    #[test]
    fn good_turing_tracks_the_chance_of_a_set_not_yet_seen_on_known_distributions() {
        // Many rare failing sets: the missing mass is large, and the estimate close to it.
        let rare: Vec<f64> = vec![0.0005; 400];
        let mut errors = Vec::new();
        for seed in 0..20 {
            let (estimate, missed) = draw(&rare, 2_000, seed);
            errors.push(estimate.chance_of_new_set - missed);
        }
        let bias = errors.iter().sum::<f64>() / errors.len() as f64;
        assert!(bias.abs() < 0.02, "Good–Turing is nearly unbiased: mean error {bias}");
        // A few common sets, all seen many times: nothing is missing, and nothing is said missing.
        let (common, missed) = draw(&[0.2, 0.1, 0.05], 10_000, 1);
        assert_eq!((common.seen_once, common.chance_of_new_set, missed), (0, 0.0, 0.0));
        assert_eq!(common.failing_sets_seen, 3);
    }

    #[test]
    fn a_set_that_is_the_union_of_sets_seen_inside_it_is_a_combination_not_a_new_kind_whatever_the_order_seen() {
        let set = |members: &[usize]| FailingSet::of(4, members.iter().copied());
        let mut tally = SetTally::default();
        tally.add(set(&[0, 1]));
        assert_eq!(tally.seen_once(), (1, 1), "alone, {{0, 1}} is a new kind");
        tally.add(set(&[0]));
        assert_eq!(tally.seen_once(), (2, 2), "{{0}} does not explain {{0, 1}}");
        tally.add(set(&[1]));
        assert_eq!(tally.seen_once(), (3, 2), "now {{0, 1}} = {{0}} ∪ {{1}}: a combination");
        tally.add(set(&[0, 1, 2]));
        assert_eq!(tally.seen_once(), (4, 3), "2 is in no other set: a new kind");
        tally.add(set(&[0]));
        assert_eq!(tally.seen_once(), (3, 2), "{{0}} seen twice");
        tally.add(set(&[0, 1]));
        assert_eq!(tally.seen_once(), (2, 2), "the combination seen twice changes no new kind");
        assert_eq!(tally.estimate(100).new_kinds_seen_once, 2);
    }

    #[test]
    fn chao1_estimates_the_sets_never_seen_from_the_singletons_and_doubletons() {
        let counts: HashMap<&str, u64> = [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 40)].into_iter().collect();
        let estimate = Completeness::estimate(&counts, 1000);
        assert_eq!((estimate.seen_once, estimate.seen_twice, estimate.failing_sets_seen), (3, 1, 5));
        // 3·2 / (2·2) · 999/1000 = 1.4985
        assert_eq!(estimate.unseen_sets, 1.5);
        assert_eq!(estimate.chance_of_new_set, 0.003);
        // On 400 equally rare sets drawn 2,000 times, seen plus unseen comes near 400.
        let (rare, _) = draw(&vec![0.0005; 400], 2_000, 3);
        let total = rare.failing_sets_seen as f64 + rare.unseen_sets;
        assert!((300.0..500.0).contains(&total), "{rare:?}");
    }

    #[test]
    fn the_estimate_in_words_gives_odds_a_first_year_reads() {
        let counts: HashMap<u8, u64> = [(1, 1), (2, 1), (3, 7)].into_iter().collect();
        assert_eq!(
            Completeness::estimate(&counts, 10_000).in_words(),
            "about a 1 in 5,000 chance that one more random test fails a set of programs no test failed before (2 sets were seen only once among 10,000 random tests)"
        );
        let counts: HashMap<u8, u64> = [(3, 7)].into_iter().collect();
        assert_eq!(
            Completeness::estimate(&counts, 20_000).in_words(),
            "every set of failing programs random testing found was found at least twice: under a 1 in 20,000 chance that one more random test fails a new set"
        );
    }

    #[test]
    fn the_advice_says_how_likely_more_tests_find_a_new_failure_and_whether_to_search_longer() {
        let check = |counts: &[(u8, u64)], tests: u64, expected: &str| {
            let counts: HashMap<u8, u64> = counts.iter().copied().collect();
            assert_eq!(Completeness::estimate(&counts, tests).advice(1_000), expected);
        };
        // 2 seen once in 10,000: 1 in 5,000 a test, 1 - (1 - 1/5000)^1000 = 18 %.
        check(
            &[(1, 1), (2, 1), (3, 7)],
            10_000,
            "1,000 more random tests would find a new kind of failure with a chance of about 18 %. Searching longer may find more bugs: analyse again with more tests in a row that find no new bug before the search stops.",
        );
        // 1 seen once in 50,000: 1 - (1 - 1/50000)^1000 = 2 %.
        check(
            &[(1, 1), (3, 7)],
            50_000,
            "1,000 more random tests would find a new kind of failure with a chance of about 2 %. Searching longer would seldom find more.",
        );
        // None seen once in 200,000: under 1 in 200,000 a test, under 1 % in 1,000.
        check(
            &[(3, 7)],
            200_000,
            "1,000 more random tests would find a new kind of failure with a chance of under 1 %. Searching longer would seldom find more.",
        );
    }
}
