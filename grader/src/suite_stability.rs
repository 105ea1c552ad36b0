//! Stability with respect to the choice of test suite (Paper III, section 5.1): the
//! same answers analysed with several seeds should give the same correctness order, and
//! each answer's rank (its number of failed tests) should vary by at most about one.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::result::Analysis;

/// The paper's stability table for one problem, over several analyses of the same answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stability {
    /// Consecutive tests that added nothing before a search stopped (the paper's rule)...
    pub stable_after: u64,
    /// ...unless the searches stopped by their estimate ([`crate::EstimateStop`]).
    pub estimate_stop: Option<crate::EstimateStop>,
    /// The distinct suite sizes seen, in increasing order.
    pub suite_sizes: Vec<usize>,
    /// Per answer: its rank (number of failed tests) in each analysis, and their sample
    /// standard deviation.
    pub ranks: Vec<RankSpread>,
    pub average_deviation: f64,
    pub maximum_deviation: f64,
    /// True when every analysis has the same correctness order (same classes of answers,
    /// same covering edges between them; test ids may differ).
    pub order_unchanged: bool,
    /// The inferred bugs (failing sets) that some suites have and others lack, the reason
    /// ranks vary: least often found first.
    pub varying_bugs: Vec<VaryingBug>,
}

/// One answer's ranks over the analyses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankSpread {
    pub answer: String,
    /// Its number of failed tests in each analysis, in order.
    pub failed: Vec<usize>,
    pub deviation: f64,
    /// The lowest and highest percentage of the suite it passed over the analyses.
    pub percent_range: (f64, f64),
}

/// A failing set found by some analyses only. Usually a rare input that only some searches
/// met, or a combination of bugs that stays irredundant while the smaller failing set that
/// would explain it has not been met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VaryingBug {
    /// The answers its test makes fail.
    pub failing: Vec<String>,
    /// In how many of the analyses' suites it is.
    pub runs: usize,
    /// Its input in the first analysis that has it.
    pub example: String,
}

/// The classes as lists of answers, and the edges as pairs of such lists, sorted: what
/// must not change between seeds (the tests that witness an edge may).
pub type OrderShape = (Vec<Vec<String>>, Vec<(Vec<String>, Vec<String>)>);

pub fn order_shape(analysis: &Analysis) -> OrderShape {
    let order = &analysis.order;
    let members = |id: &str| order.classes.iter().find(|c| c.id == id).map(|c| c.answers.clone()).unwrap_or_default();
    let mut classes: Vec<Vec<String>> = order.classes.iter().map(|c| c.answers.clone()).collect();
    classes.sort();
    let mut edges: Vec<(Vec<String>, Vec<String>)> = order.edges.iter().map(|e| (members(&e.from), members(&e.to))).collect();
    edges.sort();
    (classes, edges)
}

/// Compares analyses of the same answers made with different seeds. Panics on an empty
/// slice: there is nothing to compare.
pub fn stability(analyses: &[Analysis]) -> Stability {
    let first = &analyses[0];
    let mut suite_sizes: Vec<usize> = analyses.iter().map(|a| a.suite.len()).collect();
    suite_sizes.sort_unstable();
    suite_sizes.dedup();
    let ranks: Vec<RankSpread> = first
        .answers
        .iter()
        .map(|answer| {
            let failed: Vec<usize> = analyses.iter().map(|a| a.answers.iter().find(|x| x.id == answer.id).map_or(0, |x| x.failed.len())).collect();
            let deviation = sample_sd(&failed.iter().map(|&n| n as f64).collect::<Vec<_>>());
            let percents = analyses.iter().filter_map(|a| a.answers.iter().find(|x| x.id == answer.id)).map(|x| x.percent);
            let percent_range = percents.fold((f64::MAX, f64::MIN), |(low, high), p| (low.min(p), high.max(p)));
            RankSpread { answer: answer.id.clone(), failed, deviation, percent_range }
        })
        .collect();
    let deviations = ranks.iter().map(|r| r.deviation);
    let maximum_deviation = deviations.clone().fold(0.0, f64::max);
    let average_deviation = deviations.sum::<f64>() / ranks.len().max(1) as f64;
    let shape = order_shape(first);
    Stability {
        stable_after: first.stable_after,
        estimate_stop: first.estimate_stop,
        suite_sizes,
        ranks,
        average_deviation,
        maximum_deviation,
        order_unchanged: analyses.iter().all(|a| order_shape(a) == shape),
        varying_bugs: varying_bugs(analyses),
    }
}

/// The failing sets that are not in every analysis's suite, least often found first (then
/// by their answers).
fn varying_bugs(analyses: &[Analysis]) -> Vec<VaryingBug> {
    let mut found: BTreeMap<&[String], VaryingBug> = BTreeMap::new();
    for analysis in analyses {
        for test in &analysis.suite {
            found.entry(&test.failing).or_insert_with(|| VaryingBug { failing: test.failing.clone(), runs: 0, example: test.input.clone() }).runs += 1;
        }
    }
    let mut varying: Vec<VaryingBug> = found.into_values().filter(|bug| bug.runs < analyses.len()).collect();
    varying.sort_by(|a, b| (a.runs, &a.failing).cmp(&(b.runs, &b.failing)));
    varying
}

/// Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values.
pub fn sample_sd(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let sum_sq: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    (sum_sq / (values.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_standard_deviation_divides_by_n_minus_one() {
        assert_eq!(sample_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), (32.0f64 / 7.0).sqrt());
        assert_eq!(sample_sd(&[3.0]), 0.0);
    }

    #[test]
    fn a_rank_that_differs_once_in_ten_runs_deviates_by_about_a_third() {
        let counts = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0];
        assert!((sample_sd(&counts) - 0.316).abs() < 0.001);
    }
}
