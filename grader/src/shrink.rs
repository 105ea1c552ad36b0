//! Shrinking a test case by editing its choice sequence (minithesis style).
//!
//! The shrinker knows nothing of problems or answers: it is given a test case and a
//! predicate that replays a candidate choice sequence and says whether the result is still
//! interesting, handing back the test case the generator actually made (it may have
//! consumed fewer choices, or clamped some). It keeps the simplest interesting test case
//! found, "simplest" in the sense of [`ChoiceSequence`]'s shortlex order.

use crate::generate::{ChoiceSequence, TestCase};

/// Candidates the shrinker may try for one test case. Shrinking an input of a few dozen
/// choices to a local minimum takes a few hundred; the budget only bounds pathological
/// cases (huge inputs, predicates that flip on every edit), where a partly shrunk test is
/// still a correct suite member.
pub const SHRINK_BUDGET: usize = 2_000;

/// Chunk sizes for deleting, zeroing and sorting spans of choices, largest first. Every
/// size up to 8 is tried because a collection element is a "continue?" flag plus however
/// many choices the element takes: deleting exactly one element must be a candidate.
const CHUNK_SIZES: [usize; 8] = [8, 7, 6, 5, 4, 3, 2, 1];

/// Leading choices lowered first on a long test (see [`is_long`]). Generators draw a size
/// before what it sizes (a count, then that many elements), so on a long test the few
/// candidates of lowering its leading choices may remove most of it: a list of 600 scores
/// shrinks to the shortest that still fails once its count is lowered, where deleting span
/// by span would have spent the whole budget inside the list and left it 600 long.
const LEADING_CHOICES: usize = 8;

/// Candidates announced to [`Candidates::look_ahead`] at a time. The shrinker accepts about
/// one candidate in twelve (interval-sets fixture: 501 of 5,960), so most of a window is
/// tried; evaluated together, each answer runs on the window's inputs in a row.
pub const LOOK_AHEAD: usize = 8;

/// What a shrink asks of the caller.
pub trait Candidates {
    /// `Some(made)`, the test case the generator actually made from `candidate`, when it is
    /// still interesting.
    fn interesting(&mut self, candidate: &TestCase) -> Option<TestCase>;

    /// The candidates the shrinker will try next, in order, if it rejects them all (at most
    /// [`LOOK_AHEAD`]). A hint only: the caller may prepare them all at once (run them in
    /// parallel, say); what `interesting` answers must not depend on it. Default: nothing.
    fn look_ahead(&mut self, _candidates: &[TestCase]) {}
}

impl<F: FnMut(&TestCase) -> Option<TestCase>> Candidates for F {
    fn interesting(&mut self, candidate: &TestCase) -> Option<TestCase> {
        self(candidate)
    }
}

/// Shrinks `test` while `candidates` finds it interesting, trying at most `budget`
/// candidates. A closure `|candidate| -> Option<made>` is a `Candidates`.
pub fn shrink(test: TestCase, budget: usize, interesting: impl Candidates) -> TestCase {
    let mut shrinker = Shrinker { best: test, interesting, budget, announced: 0 };
    loop {
        let before = shrinker.best.clone();
        if is_long(shrinker.choices().len(), budget) {
            shrinker.lower_values(LEADING_CHOICES);
            shrinker.halve_spans();
        }
        shrinker.delete_chunks();
        shrinker.zero_chunks();
        shrinker.lower_values(usize::MAX);
        shrinker.sort_chunks();
        shrinker.redistribute();
        if shrinker.best == before || shrinker.budget == 0 {
            return shrinker.best;
        }
    }
}

/// Whether a test of `choices` choices is long for `budget`: deleting its spans of every
/// chunk size would take more than half of the budget (more than 125 choices for
/// [`SHRINK_BUDGET`]). Shorter tests are shrunk pass by pass in the usual order.
fn is_long(choices: usize, budget: usize) -> bool {
    choices * CHUNK_SIZES.len() > budget / 2
}

fn is_nonzero(span: &[u64]) -> bool {
    span.iter().any(|&v| v != 0)
}

struct Shrinker<F> {
    best: TestCase,
    interesting: F,
    budget: usize,
    /// Candidates announced by `look_ahead` and not tried yet (0 after an acceptance, which
    /// makes the rest stale).
    announced: usize,
}

impl<F: Candidates> Shrinker<F> {
    fn choices(&self) -> &[u64] {
        &self.best.choices.0
    }

    /// Tries `choices`; keeps what the generator made of them if it is interesting and
    /// simpler than the best so far.
    fn consider(&mut self, choices: Vec<u64>) -> bool {
        let candidate = TestCase { size: self.best.size, choices: ChoiceSequence(choices) };
        if self.budget == 0 || !candidate.choices.is_simpler_than(&self.best.choices) {
            return false;
        }
        self.budget -= 1;
        self.announced = self.announced.saturating_sub(1);
        match self.interesting.interesting(&candidate) {
            Some(made) if made.choices.is_simpler_than(&self.best.choices) => {
                self.best = made;
                self.announced = 0;
                true
            }
            _ => false,
        }
    }

    /// Announces the next candidates of a pass (`upcoming`: its edits of the best test from
    /// the current position on, as if each were rejected), unless the last announcement
    /// still holds. Only candidates `consider` would try count.
    fn look_ahead(&mut self, upcoming: impl Fn(&Self) -> Vec<Vec<u64>>) {
        if self.announced > 0 {
            return;
        }
        let window: Vec<TestCase> = upcoming(self)
            .into_iter()
            .map(|choices| TestCase { size: self.best.size, choices: ChoiceSequence(choices) })
            .filter(|candidate| candidate.choices.is_simpler_than(&self.best.choices))
            .take(LOOK_AHEAD.min(self.budget))
            .collect();
        self.announced = window.len();
        if window.len() > 1 {
            self.interesting.look_ahead(&window);
        }
    }

    fn with_span(&self, start: usize, len: usize, edit: impl FnOnce(&mut Vec<u64>)) -> Vec<u64> {
        let mut choices = self.choices().to_vec();
        let mut span = choices.split_off(start);
        let rest = span.split_off(len);
        edit(&mut span);
        choices.extend(span);
        choices.extend(rest);
        choices
    }

    fn delete_chunks(&mut self) {
        for k in CHUNK_SIZES {
            self.announced = 0;
            let mut i = self.choices().len().checked_sub(k);
            while let Some(start) = i {
                self.look_ahead(|s| (0..=start).rev().take(LOOK_AHEAD).map(|at| s.with_span(at, k, Vec::clear)).collect());
                let deleted = self.with_span(start, k, Vec::clear);
                if !self.consider(deleted) {
                    i = start.checked_sub(1);
                } else if start + k > self.choices().len() {
                    i = self.choices().len().checked_sub(k);
                }
            }
        }
    }

    fn zero_chunks(&mut self) {
        self.edit_chunks(CHUNK_SIZES.into_iter(), false, is_nonzero, |span| span.fill(0));
    }

    /// On a long test, deletes and then zeroes the halves of the test, its quarters, and
    /// so on down to spans of twice the largest chunk size: a few hundred candidates where
    /// span by span would spend the budget, and what does not matter in a long list goes
    /// in large pieces.
    fn halve_spans(&mut self) {
        let halves = |choices: usize| std::iter::successors(Some(choices / 2), |k| Some(k / 2)).take_while(|&k| k > CHUNK_SIZES[0]);
        self.edit_chunks(halves(self.choices().len()), true, |_| true, Vec::clear);
        self.edit_chunks(halves(self.choices().len()), true, is_nonzero, |span| span.fill(0));
    }

    /// Tries `edit` on each span of every size in `sizes` that it would change (`changes`),
    /// left to right: the spans starting at every choice, or (`aligned`) the spans that cut
    /// the test into pieces of that size.
    fn edit_chunks(&mut self, sizes: impl Iterator<Item = usize>, aligned: bool, changes: fn(&[u64]) -> bool, edit: fn(&mut Vec<u64>)) {
        for k in sizes {
            self.announced = 0;
            let stride = if aligned { k } else { 1 };
            let mut start = 0;
            while start + k <= self.choices().len() {
                if changes(&self.choices()[start..start + k]) {
                    self.look_ahead(|s| {
                        (start..=s.choices().len() - k)
                            .step_by(stride)
                            .filter(|&at| changes(&s.choices()[at..at + k]))
                            .take(LOOK_AHEAD)
                            .map(|at| s.with_span(at, k, edit))
                            .collect()
                    });
                    let edited = self.with_span(start, k, edit);
                    self.consider(edited);
                }
                start += stride;
            }
        }
    }

    /// For each of the first `choices` choices, the smallest value that stays interesting
    /// (binary search, assuming that if a value works, larger values tend to work too).
    fn lower_values(&mut self, choices: usize) {
        let mut i = 0;
        while i < self.choices().len().min(choices) {
            let value = self.choices()[i];
            if value > 0 && !self.try_value(i, 0) {
                let (mut works, mut fails) = (value, 0);
                while fails + 1 < works && i < self.choices().len() {
                    let mid = fails + (works - fails) / 2;
                    if self.try_value(i, mid) {
                        works = mid;
                    } else {
                        fails = mid;
                    }
                }
            }
            i += 1;
        }
    }

    fn try_value(&mut self, i: usize, value: u64) -> bool {
        let changed = self.with_span(i, 1, |span| span[0] = value);
        self.consider(changed)
    }

    /// (A span already sorted is left alone: sorting it changes nothing.)
    fn sort_chunks(&mut self) {
        self.edit_chunks(CHUNK_SIZES.into_iter().filter(|&k| k > 1), false, |span| !span.is_sorted(), |span| span.sort_unstable());
    }

    /// Moves value from an earlier choice to a later one (one or two places on): the
    /// earlier choice weighs more in the order, so `[3, 0]` → `[0, 3]` is simpler.
    fn redistribute(&mut self) {
        for gap in [1, 2] {
            let mut i = 0;
            while i + gap < self.choices().len() {
                let (a, b) = (self.choices()[i], self.choices()[i + gap]);
                if a > 0 && !self.try_pair(i, gap, 0, b.saturating_add(a)) {
                    let (mut moved, mut too_far) = (0, a);
                    while moved + 1 < too_far && i + gap < self.choices().len() {
                        let mid = moved + (too_far - moved) / 2;
                        if self.try_pair(i, gap, a - mid, b.saturating_add(mid)) {
                            moved = mid;
                        } else {
                            too_far = mid;
                        }
                    }
                }
                i += 1;
            }
        }
    }

    fn try_pair(&mut self, i: usize, gap: usize, first: u64, second: u64) -> bool {
        let changed = self.with_span(i, gap + 1, |span| {
            span[0] = first;
            span[gap] = second;
        });
        self.consider(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_case(choices: &[u64]) -> TestCase {
        TestCase { size: 0, choices: ChoiceSequence(choices.to_vec()) }
    }

    /// Shrinks `start` under a predicate on the raw choices (the "generator" here makes
    /// exactly the choices it is given) and checks the result.
    fn check(start: &[u64], predicate: impl Fn(&[u64]) -> bool, expected: &[u64]) {
        let shrunk = shrink(test_case(start), SHRINK_BUDGET, |candidate: &TestCase| predicate(&candidate.choices.0).then(|| candidate.clone()));
        assert_eq!(shrunk.choices.0, expected, "shrinking {start:?}");
    }

    #[test]
    fn irrelevant_choices_are_deleted() {
        check(&[5, 9, 7, 3, 8], |c| c.contains(&7), &[7]);
    }

    #[test]
    fn values_are_lowered_to_the_smallest_that_still_fails() {
        check(&[1000], |c| c.first().is_some_and(|&v| v >= 37), &[37]);
    }

    #[test]
    fn needed_length_is_kept_and_values_zeroed() {
        check(&[4, 4, 4, 4], |c| c.len() >= 3, &[0, 0, 0]);
    }

    #[test]
    fn order_between_choices_is_kept_at_its_simplest() {
        check(&[9, 3, 8], |c| c.len() == 3 && c[0] > c[1], &[1, 0, 0]);
    }

    #[test]
    fn a_sum_is_moved_to_the_later_choice() {
        check(&[6, 6], |c| c.len() == 2 && c[0] + c[1] >= 10, &[0, 10]);
    }

    #[test]
    fn what_the_generator_actually_made_replaces_the_candidate() {
        // A "generator" that stops after a 0: trailing choices are not consumed.
        let shrunk = shrink(test_case(&[3, 2, 1, 0]), SHRINK_BUDGET, |candidate: &TestCase| {
            let c = &candidate.choices.0;
            let made = c.iter().position(|&v| v == 0).map_or(c.len(), |p| p + 1);
            (made >= 2).then(|| test_case(&c[..made]))
        });
        assert_eq!(shrunk.choices.0, [1, 0]);
    }

    /// Records what is announced and what is tried.
    struct Recorder<P> {
        predicate: P,
        /// Each window, with the number of candidates tried before it was announced.
        announced: Vec<(usize, Vec<TestCase>)>,
        tried: Vec<TestCase>,
    }

    impl<P: Fn(&[u64]) -> bool> Candidates for &mut Recorder<P> {
        fn interesting(&mut self, candidate: &TestCase) -> Option<TestCase> {
            self.tried.push(candidate.clone());
            (self.predicate)(&candidate.choices.0).then(|| candidate.clone())
        }
        fn look_ahead(&mut self, candidates: &[TestCase]) {
            assert!(candidates.len() <= LOOK_AHEAD);
            self.announced.push((self.tried.len(), candidates.to_vec()));
        }
    }

    #[test]
    fn announced_candidates_are_the_next_tried_until_one_is_accepted() {
        let predicate = |c: &[u64]| c.iter().filter(|&&v| v >= 3).count() >= 2;
        let mut recorder = Recorder { predicate, announced: Vec::new(), tried: Vec::new() };
        let start = test_case(&[9, 1, 4, 0, 7, 2, 8, 5, 6, 1, 3, 2]);
        let shrunk = shrink(start.clone(), SHRINK_BUDGET, &mut recorder);
        // The same result as without looking ahead.
        assert_eq!(shrunk, shrink(start, SHRINK_BUDGET, |c: &TestCase| predicate(&c.choices.0).then(|| c.clone())));
        assert_eq!(shrunk.choices.0, [3, 3]);
        let mut announced_and_tried = 0;
        for (at, window) in &recorder.announced {
            // Tried next, in the announced order, up to the first accepted.
            for (announced, tried) in window.iter().zip(&recorder.tried[*at..]) {
                assert_eq!(announced, tried);
                announced_and_tried += 1;
                if predicate(&tried.choices.0) {
                    break;
                }
            }
        }
        // Deleting, zeroing and sorting spans announce; binary searches do not.
        assert!(announced_and_tried > recorder.announced.len(), "{announced_and_tried} of {} announced", recorder.tried.len());
    }

    #[test]
    fn a_long_list_is_cut_to_the_shortest_that_fails_by_lowering_its_count() {
        // A "generator" drawing a count, then that many values (zeros once the choices run
        // out); the failure needs more than 100 values.
        let list = |c: &[u64]| {
            let n = c[0] as usize;
            test_case(&(0..=n).map(|i| c.get(i).copied().unwrap_or(0)).collect::<Vec<_>>())
        };
        let start: Vec<u64> = std::iter::once(600).chain((0..600).map(|i| i * 7 % 101)).collect();
        let shrunk = shrink(test_case(&start), SHRINK_BUDGET, |candidate: &TestCase| {
            let made = list(&candidate.choices.0);
            (made.choices.0[0] > 100).then_some(made)
        });
        let mut expected = vec![0; 102];
        expected[0] = 101;
        assert_eq!(shrunk.choices.0, expected);
    }

    #[test]
    fn a_long_list_whose_values_do_not_matter_is_mostly_zeroed() {
        // 400 values are needed, the last one not 0: the count cannot be lowered, and no
        // span can be deleted (the list is filled up with zeros).
        let start: Vec<u64> = std::iter::once(400).chain((0..400).map(|i| 1 + i * 7 % 101)).collect();
        let shrunk = shrink(test_case(&start), SHRINK_BUDGET, |candidate: &TestCase| {
            let c = &candidate.choices.0;
            let made = test_case(&(0..=400).map(|i| c.get(i).copied().unwrap_or(0)).collect::<Vec<_>>());
            (made.choices.0[0] == 400 && made.choices.0[400] != 0).then_some(made)
        });
        let values = &shrunk.choices.0[1..];
        let left = values.iter().filter(|&&v| v != 0).count();
        assert!(left <= 2 * CHUNK_SIZES[0], "{left} of 400 values not zeroed: {values:?}");
    }

    #[test]
    fn the_budget_bounds_the_candidates_tried() {
        let mut calls = 0;
        shrink(test_case(&[100; 50]), 10, |candidate: &TestCase| {
            calls += 1;
            let c = &candidate.choices.0;
            (c.len() == 50 && c.iter().all(|&v| v > 0)).then(|| candidate.clone())
        });
        assert_eq!(calls, 10);
    }
}
