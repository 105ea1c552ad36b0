//! Failing sets, redundancy and the suite (Paper III, section 3).
//!
//! `AnswersFailing(t)` is the set of answers a test case `t` makes fail. Tests with equal
//! failing sets are equivalent; a test is *redundant* with respect to a suite when its
//! failing set is the union of the failing sets of the suite tests whose failing sets are
//! subsets of it. The suite keeps one irredundant test per inferred bug.

use std::fmt;

/// Paper III's `AnswersFailing(t)`: the answers a test case makes fail, by index.
pub type FailingSet = BitSet;

/// A set of small indices `0..n` (answers in a failing set, suite tests in a pass set).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set over `n` answers.
    pub fn empty(n: usize) -> BitSet {
        BitSet { words: vec![0; n.div_ceil(64)] }
    }

    /// The set of the given answer indices, over `n` answers.
    pub fn of(n: usize, members: impl IntoIterator<Item = usize>) -> BitSet {
        let mut set = BitSet::empty(n);
        members.into_iter().for_each(|i| set.insert(i));
        set
    }

    pub fn insert(&mut self, answer: usize) {
        self.words[answer / 64] |= 1 << (answer % 64);
    }

    pub fn contains(&self, answer: usize) -> bool {
        self.words.get(answer / 64).is_some_and(|w| w & (1 << (answer % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &BitSet) -> bool {
        self.words.iter().zip(&other.words).all(|(a, b)| a & !b == 0)
    }

    pub fn union_with(&mut self, other: &BitSet) {
        self.words.iter_mut().zip(&other.words).for_each(|(a, b)| *a |= b);
    }

    /// `self \ other`.
    pub fn difference(&self, other: &BitSet) -> BitSet {
        BitSet { words: self.words.iter().zip(&other.words).map(|(a, b)| a & !b).collect() }
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| (0..64).filter(move |bit| word & (1 << bit) != 0).map(move |bit| i * 64 + bit))
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Paper III's `Redundant(t, Suite)`: `failing` equals the union of the failing sets in
/// `suite` that are subsets of it. The empty set is always redundant (an empty union), so
/// an irredundant test always makes some answer fail.
pub fn is_redundant<'a>(failing: &FailingSet, suite: impl IntoIterator<Item = &'a FailingSet>) -> bool {
    union_within(failing, suite) == *failing
}

/// The union of the sets of `suite` that are subsets of `failing`: the answers of
/// `failing` that smaller failing sets explain (the split search's suspects are the sets
/// for which it is neither empty nor all of `failing`).
pub fn union_within<'a>(failing: &FailingSet, suite: impl IntoIterator<Item = &'a FailingSet>) -> FailingSet {
    let mut union = BitSet { words: vec![0; failing.words.len()] };
    for set in suite {
        if set.is_subset(failing) {
            union.union_with(set);
        }
    }
    union
}

/// The suite under construction: tests of type `T` with their failing sets, pairwise
/// irredundant, after any pinned tests (which come first and stay whatever is added).
#[derive(Clone, Debug)]
pub struct Suite<T> {
    tests: Vec<(T, FailingSet)>,
    /// The first `pinned` tests are a released suite's: never dropped, and exempt from
    /// irredundancy among themselves.
    pinned: usize,
}

impl<T> Default for Suite<T> {
    fn default() -> Self {
        Suite { tests: Vec::new(), pinned: 0 }
    }
}

impl<T> Suite<T> {
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    pub fn tests(&self) -> &[(T, FailingSet)] {
        &self.tests
    }

    pub fn into_tests(self) -> Vec<(T, FailingSet)> {
        self.tests
    }

    /// The suite of tests that must stay, whatever their failing sets (a released suite
    /// regraded for new answers): new tests are irredundant with respect to them.
    pub fn pinned(tests: Vec<(T, FailingSet)>) -> Suite<T> {
        Suite { pinned: tests.len(), tests }
    }

    /// How many of the first tests are pinned.
    pub fn pinned_len(&self) -> usize {
        self.pinned
    }

    /// `Redundant(t, Suite)` for a test whose failing set is `failing`.
    pub fn is_redundant(&self, failing: &FailingSet) -> bool {
        is_redundant(failing, self.tests.iter().map(|(_, set)| set))
    }

    /// Whether a test is redundant however its undecided answers turn out: `settled` are
    /// the answers it is known to make fail, and each of `undecided` a group of answers
    /// (a program's) that fail or pass together. Exact, in one check per group and not
    /// one per outcome: an answer is explained by a suite set inside the failing set, and
    /// a larger failing set only holds more of them, so the test is redundant in every
    /// outcome exactly when it is with every group passing and with each group alone
    /// failing.
    pub fn is_redundant_whatever<'a>(&self, settled: &FailingSet, undecided: impl IntoIterator<Item = &'a FailingSet>) -> bool {
        self.is_redundant(settled)
            && undecided.into_iter().all(|group| {
                let mut possible = settled.clone();
                possible.union_with(group);
                self.is_redundant(&possible)
            })
    }

    /// Adds an irredundant test, then drops every suite test that has become redundant
    /// with respect to the others and the new one (Paper III: remove any `t'` with
    /// `Redundant(t', (Suite - t') ∪ {t_min})`). Returns how many were dropped.
    ///
    /// Only tests whose failing sets strictly contain the new one's can become redundant
    /// (the new set adds to no other union), so only those are examined. Dropping them all
    /// at once is sound: failing sets in the suite are distinct, so a redundant set is a
    /// union of strictly smaller ones, and by induction on size those can always be taken
    /// from the tests that stay.
    pub fn add(&mut self, test: T, failing: FailingSet) -> usize {
        debug_assert!(!self.is_redundant(&failing), "only irredundant tests join the suite");
        let redundant: Vec<bool> = self
            .tests
            .iter()
            .enumerate()
            .map(|(i, (_, set))| {
                if i < self.pinned {
                    return false;
                }
                let wider = failing.is_subset(set);
                let others = self.tests.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, (_, s))| s);
                wider && is_redundant(set, others.chain(std::iter::once(&failing)))
            })
            .collect();
        let before = self.tests.len();
        let mut keep = redundant.iter().map(|r| !r);
        self.tests.retain(|_| keep.next().unwrap_or(true));
        self.tests.push((test, failing));
        before + 1 - self.tests.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A1: usize = 0;
    const A2: usize = 1;
    const A3: usize = 2;

    fn set(members: &[usize]) -> FailingSet {
        FailingSet::of(3, members.iter().copied())
    }

    fn check_redundant(failing: &[usize], suite: &[&[usize]], expected: bool) {
        let suite: Vec<FailingSet> = suite.iter().map(|s| set(s)).collect();
        assert_eq!(is_redundant(&set(failing), &suite), expected, "{failing:?} against {suite:?}");
    }

    #[test]
    fn a_test_is_redundant_whatever_its_undecided_answers_do_exactly_when_every_outcome_is_redundant() {
        // Every suite of up to 4 sets over 5 answers drawn at random, every split of a
        // failing set into settled answers and undecided groups: the one-check-per-group
        // answer agrees with trying every outcome.
        let mut rng = crate::generate::Rng::for_test(7, 0);
        let mut draw = |n: u64| rng.below_or_equal(n - 1) as usize;
        let of = |mask: usize| FailingSet::of(5, (0..5).filter(|i| mask & (1 << i) != 0));
        for _ in 0..2_000 {
            let mut suite = Suite::default();
            for _ in 0..1 + draw(4) {
                let set = of(1 + draw(31));
                if !suite.is_redundant(&set) {
                    suite.add((), set);
                }
            }
            let (settled, groups) = (of(draw(32)), (0..draw(4)).map(|_| of(1 + draw(31))).collect::<Vec<_>>());
            let every_outcome = (0..1usize << groups.len()).all(|outcome| {
                let mut possible = settled.clone();
                groups.iter().enumerate().filter(|(bit, _)| outcome & (1 << bit) != 0).for_each(|(_, group)| possible.union_with(group));
                suite.is_redundant(&possible)
            });
            assert_eq!(suite.is_redundant_whatever(&settled, &groups), every_outcome, "settled {settled:?}, groups {groups:?}, suite {:?}", suite.tests());
        }
    }

    #[test]
    fn a_pinned_test_stays_when_a_new_test_makes_it_redundant() {
        let mut suite = Suite::pinned(vec![("released", set(&[A1, A2]))]);
        suite.add("new A1", set(&[A1]));
        suite.add("new A2", set(&[A2]));
        let kept: Vec<&str> = suite.tests().iter().map(|(name, _)| *name).collect();
        assert_eq!(kept, ["released", "new A1", "new A2"]);
        assert_eq!(suite.pinned_len(), 1);
    }

    #[test]
    fn a_test_that_fails_no_one_is_redundant() {
        check_redundant(&[], &[], true);
        check_redundant(&[], &[&[A1]], true);
    }

    #[test]
    fn a_test_that_fails_a_new_set_of_answers_is_irredundant() {
        check_redundant(&[A1], &[], false);
        check_redundant(&[A1], &[&[A2]], false);
    }

    #[test]
    fn a_test_equivalent_to_a_suite_test_is_redundant() {
        check_redundant(&[A1, A2], &[&[A1, A2]], true);
    }

    #[test]
    fn the_papers_b_is_redundant_given_b1_and_b2() {
        // Section 3: B fails {A1, A2}, B1 fails {A1}, B2 fails {A2}.
        check_redundant(&[A1, A2], &[&[A1], &[A2]], true);
        check_redundant(&[A1, A2], &[&[A1]], false);
    }

    #[test]
    fn with_a_third_answer_failing_only_b_then_b_is_a_bug_of_its_own() {
        // "if a third answer A3 only fails for inputs in B, then we consider this evidence
        // that B does indeed represent an independent bug".
        check_redundant(&[A1, A2, A3], &[&[A1], &[A2]], false);
    }

    #[test]
    fn adding_b1_and_b2_after_b_drops_b() {
        let mut suite = Suite::default();
        assert_eq!(suite.add("B", set(&[A1, A2])), 0);
        assert_eq!(suite.add("B1", set(&[A1])), 0);
        assert_eq!(suite.add("B2", set(&[A2])), 1);
        let names: Vec<&str> = suite.tests().iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["B1", "B2"]);
    }

    #[test]
    fn b_stays_when_a_third_answer_fails_only_b() {
        let mut suite = Suite::default();
        suite.add("B", set(&[A1, A2, A3]));
        suite.add("B1", set(&[A1]));
        suite.add("B2", set(&[A2]));
        assert_eq!(suite.len(), 3);
        assert!(suite.is_redundant(&set(&[A1, A2])));
        assert!(!suite.is_redundant(&set(&[A3])));
    }

    #[test]
    fn sets_over_many_answers_work_across_words() {
        let wide = FailingSet::of(300, [0, 63, 64, 299]);
        assert_eq!(wide.iter().collect::<Vec<_>>(), [0, 63, 64, 299]);
        assert_eq!(wide.len(), 4);
        assert!(FailingSet::of(300, [64, 299]).is_subset(&wide));
        assert!(!wide.is_subset(&FailingSet::of(300, [64, 299])));
        assert!(wide.contains(299) && !wide.contains(298));
    }
}
