//! Statistics for comparing cohorts (Paper III, sections 4.1 and 4.2).
//!
//! Every function takes plain scores; none assumes the cohorts have equal size or
//! variance. Distributions come from `statrs`.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// n, mean and sample standard deviation (n - 1 in the denominator; 0 when n < 2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
}

pub fn summary(scores: &[f64]) -> Summary {
    let n = scores.len();
    let mean = if n == 0 { f64::NAN } else { scores.iter().sum::<f64>() / n as f64 };
    Summary { n, mean, sd: crate::sample_sd(scores) }
}

/// Welch's unequal-variances t-test of the difference in means `a - b`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welch {
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom (fractional).
    pub df: f64,
    /// Two-sided p-value with the fractional df, as R and SciPy compute it.
    pub p: f64,
    /// Two-sided p-value with the df truncated to a whole number, as the paper's tool
    /// evidently did (its printed p-values match this, not `p`).
    pub p_df_truncated: f64,
}

/// `None` when either cohort has fewer than two scores or both have no variance: the test
/// is undefined, and a report should say so rather than print a number.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (sa, sb) = (summary(a), summary(b));
    if sa.n < 2 || sb.n < 2 {
        return None;
    }
    let (va, vb) = (sa.sd.powi(2) / sa.n as f64, sb.sd.powi(2) / sb.n as f64);
    if va + vb == 0.0 {
        return None;
    }
    let t = (sa.mean - sb.mean) / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va.powi(2) / (sa.n - 1) as f64 + vb.powi(2) / (sb.n - 1) as f64);
    Some(Welch { t, df, p: two_sided_t(t, df), p_df_truncated: two_sided_t(t, df.trunc().max(1.0)) })
}

fn two_sided_t(t: f64, df: f64) -> f64 {
    let dist = StudentsT::new(0.0, 1.0, df).expect("df is positive");
    2.0 * dist.cdf(-t.abs())
}

/// The 95% confidence interval of the difference in means `a - b`, with Welch's standard
/// error and degrees of freedom. `None` where [`welch`] is.
pub fn mean_diff_ci95(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let w = welch(a, b)?;
    let (sa, sb) = (summary(a), summary(b));
    let diff = sa.mean - sb.mean;
    let se = (sa.sd.powi(2) / sa.n as f64 + sb.sd.powi(2) / sb.n as f64).sqrt();
    let q = StudentsT::new(0.0, 1.0, w.df).expect("df is positive").inverse_cdf(0.975);
    Some((diff - q * se, diff + q * se))
}

/// Hedges' g: the difference in means `a - b` over the pooled standard deviation, with
/// the small-sample correction `1 - 3 / (4 (n_a + n_b) - 9)`. `None` when undefined.
pub fn hedges_g(a: &[f64], b: &[f64]) -> Option<f64> {
    let (sa, sb) = (summary(a), summary(b));
    if sa.n < 2 || sb.n < 2 {
        return None;
    }
    let pooled = (((sa.n - 1) as f64 * sa.sd.powi(2) + (sb.n - 1) as f64 * sb.sd.powi(2)) / (sa.n + sb.n - 2) as f64).sqrt();
    if pooled == 0.0 {
        return None;
    }
    let correction = 1.0 - 3.0 / (4.0 * (sa.n + sb.n) as f64 - 9.0);
    Some(correction * (sa.mean - sb.mean) / pooled)
}

/// The Mann–Whitney U test, a check that does not assume normal scores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first cohort: the number of pairs (x from a, y from b) with x > y, ties
    /// counting one half.
    pub u: f64,
    /// Two-sided p-value from the normal approximation with tie correction and continuity
    /// correction (SciPy's "asymptotic" method). Rough for very small cohorts.
    pub p: f64,
}

pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let ranks = average_ranks(&all);
    let r1: f64 = ranks[..a.len()].iter().sum();
    let u = r1 - n1 * (n1 + 1.0) / 2.0;
    let n = n1 + n2;
    let ties: f64 = tie_groups(&all).iter().map(|&t| t.powi(3) - t).sum();
    let variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if variance <= 0.0 {
        return Some(MannWhitney { u, p: 1.0 });
    }
    let z = ((u - n1 * n2 / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    Some(MannWhitney { u, p: (2.0 * normal.cdf(-z)).min(1.0) })
}

/// Spearman's rank correlation: Pearson's correlation of average ranks. `None` when either
/// side is constant or the lengths differ.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let (mx, my) = (summary(x).mean, summary(y).mean);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Kendall's tau-b, which accounts for ties on either side. `None` when undefined.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (mut concordant, mut discordant, mut ties_x, mut ties_y) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
            match (dx == 0.0, dy == 0.0) {
                (true, true) => {}
                (true, false) => ties_x += 1.0,
                (false, true) => ties_y += 1.0,
                (false, false) if dx.signum() == dy.signum() => concordant += 1.0,
                (false, false) => discordant += 1.0,
            }
        }
    }
    let denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) / denominator)
}

/// Ranks from 1, ties given the average of the ranks they span.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end) as f64 / 2.0 + 1.0;
        order[start..=end].iter().for_each(|&i| ranks[i] = rank);
        start = end + 1;
    }
    ranks
}

/// Sizes of the groups of equal values (singletons included).
fn tie_groups(values: &[f64]) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.chunk_by(|a, b| a == b).map(|group| group.len() as f64).collect()
}
