//! The paper's own numbers (`shared/data/`), reproduced: Figure 3.5's scores give the
//! section 4.1 Welch table, and the section 4.2 grades give Spearman's rho.

use grader::stats::{hedges_g, kendall_tau_b, mann_whitney, mean_diff_ci95, spearman, summary, welch};

/// Figure 3.5 (answers A1..A13; A0, the model answer, is in neither group):
/// (anon, intset, crypto) scores and (anon, intset, crypto) groups, true = QuickCheck.
const FIGURE_3_5: [([f64; 3], [bool; 3]); 13] = [
    ([0.0, 4.0, 0.0], [true, true, true]),
    ([9.0, 11.0, 0.0], [true, true, false]),
    ([6.0, 7.0, 0.0], [false, true, true]),
    ([9.0, 12.0, 0.0], [true, true, true]),
    ([10.0, 7.0, 4.0], [false, false, true]),
    ([0.0, 9.0, 2.0], [false, false, true]),
    ([12.0, 4.0, 0.0], [true, false, true]),
    ([16.0, 5.0, 0.0], [true, true, false]),
    ([7.0, 16.0, 2.0], [false, false, false]),
    ([0.0, 15.0, 3.0], [false, true, false]),
    ([14.0, 9.0, 0.0], [false, false, true]),
    ([10.0, 13.0, 0.0], [true, false, false]),
    ([13.0, 14.0, 4.0], [true, true, false]),
];

fn cohorts(problem: usize) -> (Vec<f64>, Vec<f64>) {
    let quickcheck = FIGURE_3_5.iter().filter(|(_, g)| g[problem]).map(|(s, _)| s[problem]).collect();
    let hunit = FIGURE_3_5.iter().filter(|(_, g)| !g[problem]).map(|(s, _)| s[problem]).collect();
    (quickcheck, hunit)
}

fn close(actual: f64, expected: f64, places: i32) -> bool {
    (actual - expected).abs() <= 0.5 * 10f64.powi(-places)
}

/// Checks one column of the Welch table: t, df, p (fractional df), p (df truncated).
fn check(problem: usize, t: f64, df: f64, p: f64, p_truncated: f64) {
    let (qc, hu) = cohorts(problem);
    let w = welch(&qc, &hu).unwrap();
    assert!(close(w.t, t, 4), "problem {problem}: t = {}", w.t);
    assert!(close(w.df, df, 3), "problem {problem}: df = {}", w.df);
    assert!(close(w.p, p, 4), "problem {problem}: p = {}", w.p);
    assert!(close(w.p_df_truncated, p_truncated, 4), "problem {problem}: truncated p = {}", w.p_df_truncated);
}

#[test]
fn welchs_test_reproduces_the_papers_p_values_with_df_truncated() {
    check(0, 1.2522, 10.278, 0.2382, 0.2390);
    check(1, 0.0198, 10.781, 0.9846, 0.9846);
    check(2, -0.6891, 10.204, 0.5062, 0.5065);
}

#[test]
fn cohort_means_and_deviations_match_the_papers_table() {
    // (all, QC, HU) as "mean (sd)", two decimals, per problem.
    let expected = [[(8.15, 5.38), (9.86, 5.01), (6.17, 5.53)], [(9.69, 4.15), (9.71, 4.39), (9.67, 4.27)], [(1.15, 1.63), (0.86, 1.57), (1.50, 1.76)]];
    for (problem, rows) in expected.iter().enumerate() {
        let (qc, hu) = cohorts(problem);
        let all: Vec<f64> = FIGURE_3_5.iter().map(|(s, _)| s[problem]).collect();
        for (scores, &(mean, sd)) in [all, qc, hu].iter().zip(rows) {
            let s = summary(scores);
            assert!(close(s.mean, mean, 2) && close(s.sd, sd, 2), "problem {problem}: {s:?} vs {mean} ({sd})");
        }
    }
}

#[test]
fn spearman_and_kendall_reproduce_section_4_2() {
    let auto = [0.0, 9.0, 6.0, 9.0, 10.0, 0.0, 12.0, 16.0, 7.0, 0.0, 14.0, 10.0, 13.0];
    let manual = [3.0, 3.0, 2.0, 5.0, 4.0, 0.0, 2.0, 9.0, 4.0, 1.0, 8.0, 4.0, 8.0];
    assert!(close(spearman(&auto, &manual).unwrap(), 0.779, 3));
    assert!(close(kendall_tau_b(&auto, &manual).unwrap(), 0.662, 3));
    let m = summary(&manual);
    assert!(close(m.mean, 4.077, 3) && close(m.sd, 2.783, 3));
}

// The confidence interval, Hedges' g and Mann-Whitney for the anonymizer cohorts, checked
// against SciPy (ttest_ind(equal_var=False).confidence_interval(0.95), mannwhitneyu with
// method="asymptotic", and g computed by hand from numpy's ddof=1 variances).

#[test]
fn the_confidence_interval_of_the_difference_matches_scipy() {
    let (qc, hu) = cohorts(0);
    let (lo, hi) = mean_diff_ci95(&qc, &hu).unwrap();
    assert!(close(lo, -2.8524, 4) && close(hi, 10.2333, 4), "({lo}, {hi})");
}

#[test]
fn hedges_g_matches_a_hand_computation() {
    let (qc, hu) = cohorts(0);
    assert!(close(hedges_g(&qc, &hu).unwrap(), 0.6534, 4));
}

#[test]
fn mann_whitney_matches_scipys_asymptotic_test() {
    let (qc, hu) = cohorts(0);
    let mw = mann_whitney(&qc, &hu).unwrap();
    assert_eq!(mw.u, 29.5);
    assert!(close(mw.p, 0.2492, 4), "p = {}", mw.p);
}

#[test]
fn tests_that_cannot_be_computed_say_so() {
    assert_eq!(welch(&[1.0], &[2.0, 3.0]), None);
    assert_eq!(welch(&[2.0, 2.0], &[2.0, 2.0]), None);
    assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
}
