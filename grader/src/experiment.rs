//! The experiment: two cohorts compared per problem (Paper III, sections 4.1 and 4.2).
//! The numbers only; the `present` crate draws them.

use serde::{Deserialize, Serialize};

use crate::stats::{MannWhitney, Summary, Welch, average_ranks, hedges_g, kendall_tau_b, mann_whitney, mean_diff_ci95, spearman, summary, welch};

/// One answer's score in one problem.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    pub id: String,
    pub cohort: String,
    pub score: f64,
    /// A manual grade, where one was given.
    pub manual: Option<f64>,
}

/// A cohort's summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CohortSummary {
    pub name: String,
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
}

/// Automatic against manual grades, where every compared answer has both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManualRow {
    pub id: String,
    pub auto: f64,
    pub manual: f64,
    /// Average ranks, 1 = best.
    pub auto_rank: f64,
    pub manual_rank: f64,
}

/// The comparison for one problem: the contract of `report.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProblemReport {
    pub problem: String,
    pub all: Summary,
    pub cohorts: Vec<CohortSummary>,
    /// `None` where the test is undefined (fewer than two answers in a cohort, no variance).
    pub welch: Option<Welch>,
    pub mean_diff_ci95: Option<[f64; 2]>,
    pub hedges_g: Option<f64>,
    pub mann_whitney: Option<MannWhitney>,
    pub spearman: Option<f64>,
    pub kendall: Option<f64>,
    pub manual: Vec<ManualRow>,
    /// The scores compared: answers in one of the two cohorts.
    pub scores: Vec<ScoreRow>,
}

/// Compares cohorts `first` and `second` (differences are `first - second`). Answers in
/// other cohorts are left out; "all" means the answers of both cohorts.
pub fn compare(problem: &str, rows: &[ScoreRow], first: &str, second: &str) -> ProblemReport {
    let scores: Vec<ScoreRow> = rows.iter().filter(|r| r.cohort == first || r.cohort == second).cloned().collect();
    let of = |name: &str| scores.iter().filter(|r| r.cohort == name).map(|r| r.score).collect::<Vec<f64>>();
    let (a, b) = (of(first), of(second));
    let all: Vec<f64> = scores.iter().map(|r| r.score).collect();
    let cohort = |name: &str, values: &[f64]| {
        let s = summary(values);
        CohortSummary { name: name.to_owned(), n: s.n, mean: s.mean, sd: s.sd }
    };
    let graded: Vec<&ScoreRow> = scores.iter().filter(|r| r.manual.is_some()).collect();
    let (auto, manual): (Vec<f64>, Vec<f64>) = graded.iter().map(|r| (r.score, r.manual.unwrap_or_default())).unzip();
    // Ranks with 1 for the best: rank the negated scores.
    let negated = |v: &[f64]| average_ranks(&v.iter().map(|x| -x).collect::<Vec<f64>>());
    let (auto_ranks, manual_ranks) = (negated(&auto), negated(&manual));
    let manual_rows = graded
        .iter()
        .enumerate()
        .map(|(i, r)| ManualRow { id: r.id.clone(), auto: r.score, manual: manual[i], auto_rank: auto_ranks[i], manual_rank: manual_ranks[i] })
        .collect();
    ProblemReport {
        problem: problem.to_owned(),
        all: summary(&all),
        cohorts: vec![cohort(first, &a), cohort(second, &b)],
        welch: welch(&a, &b),
        mean_diff_ci95: mean_diff_ci95(&a, &b).map(|(lo, hi)| [lo, hi]),
        hedges_g: hedges_g(&a, &b),
        mann_whitney: mann_whitney(&a, &b),
        spearman: spearman(&auto, &manual),
        kendall: kendall_tau_b(&auto, &manual),
        manual: manual_rows,
        scores,
    }
}
