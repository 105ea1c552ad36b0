//! Scores and ranks. An answer's score is the number of suite tests it passes; its bugs
//! are the suite tests it fails (Paper III, section 4.1).

use crate::points::Points;
use std::collections::BTreeMap;

use crate::oracle::FailureCounts;
use crate::result::{Analysis, AnswerResult, Build};

/// Standard competition ranking ("1224"): an answer's rank is one more than the number
/// of answers with a strictly higher score, so equal scores share a rank.
pub fn ranks(scores: &[usize]) -> Vec<usize> {
    scores.iter().map(|s| 1 + scores.iter().filter(|&other| other > s).count()).collect()
}

/// The score as a percentage of the suite, one decimal; 100 for an empty suite (nothing
/// was found wrong with anyone).
pub fn percent(passed: usize, suite_size: usize) -> f64 {
    if suite_size == 0 {
        return 100.0;
    }
    (1000.0 * passed as f64 / suite_size as f64).round() / 10.0
}

impl AnswerResult {
    /// True for an answer whose sources did not compile ([`Build::error`]): it never ran.
    pub fn not_built(&self) -> bool {
        self.build.as_ref().is_some_and(|b| b.error.is_some())
    }
}

impl Analysis {
    /// Adds an answer that has no program (its sources did not build: `build.error`). It
    /// fails every scored test without running, scores 0 and ranks below every answer that
    /// ran, a compiled answer that fails every test included. It is in no test's `failing`
    /// and no class of the correctness order, which describe programs that ran; its
    /// version is its sources' hash, so that a re-run grades it again once they change.
    ///
    /// Pitfall: call it after the analysis, once per such answer; the answers keep the
    /// order they are added in.
    pub fn add_not_built(&mut self, id: String, cohort: Option<String>, build: Build) {
        debug_assert!(build.error.is_some(), "a built answer runs: it is analysed, not added");
        let ran = self.answers.iter().filter(|a| !a.not_built()).count();
        self.answers.push(AnswerResult {
            id,
            cohort,
            version: build.sources.clone(),
            passed: 0,
            failed: self.suite.iter().filter(|t| t.only_for.is_none()).map(|t| t.id.clone()).collect(),
            outcomes: BTreeMap::new(),
            failures: BTreeMap::new(),
            counts: FailureCounts::default(),
            rank: ran + 1,
            percent: 0.0,
            build: Some(build),
            points: Some(Points::not_built(&self.grading)),
            // Like every suite test: an answer that never ran passes nothing.
            course_tests_failed: self.course_tests.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_scores_share_a_rank_and_the_next_rank_is_skipped() {
        assert_eq!(ranks(&[16, 4, 11, 11, 0]), [1, 4, 2, 2, 5]);
    }

    #[test]
    fn percent_is_of_the_suite_with_one_decimal() {
        assert_eq!(percent(2, 3), 66.7);
        assert_eq!(percent(16, 16), 100.0);
        assert_eq!(percent(0, 0), 100.0);
    }
}
