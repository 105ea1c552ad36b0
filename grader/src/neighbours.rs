//! Beyond the paper: the neighbourhood of a test case, the edits of it tried near it. The
//! search tries the neighbours of each new suite test (`Search::explore_neighbours` in
//! `search/explore.rs`): bugs that only a rare combination of features provokes often sit next to
//! one already found.

use crate::generate::{ChoiceSequence, Rng, TestCase};

/// A choice whose range has at most this many values more is tried with each of them
/// near a suite test; a wider one (a number, say) with one more, one less and zero.
const NEIGHBOUR_VALUES: u64 = 64;

/// The longest span of choices copied elsewhere near a test: a collection element of a
/// generator drawing a "continue?" flag and one to three choices per element.
const MAX_SPAN: usize = 4;

/// The most choices all the neighbours of one test may hold together (8 MB): the edits are
/// listed in a fixed order and the list ends there. A shrunk test is short and its
/// neighbourhood far below it (30 choices: some 200,000), but a bug that needs 101 elements
/// (a student's `int a[100]`) keeps its test long, and its span copies alone grow with the
/// square of its length (a 500-choice test: a million edits of 500 choices, 4 GB, which
/// took a class's analysis to 17 GB before this bound).
pub const MAX_NEIGHBOUR_CHOICES: usize = 1 << 20;

/// The edits listed so far, and the choices they hold.
struct Edits {
    list: Vec<Vec<u64>>,
    choices: usize,
}

impl Edits {
    /// Adds `edit`; `false` once the list is full (then `edit` is left out, and so is
    /// every later one).
    fn push(&mut self, edit: Vec<u64>) -> bool {
        if self.choices + edit.len() > MAX_NEIGHBOUR_CHOICES {
            return false;
        }
        self.choices += edit.len();
        self.list.push(edit);
        true
    }
}

/// The values a choice is set to near a test, given the largest it can take (`u64::MAX`
/// when unknown): every value of a small range, else one up, one down and zero.
fn other_values(value: u64, max: u64) -> Vec<u64> {
    let mut values: Vec<u64> = if max <= NEIGHBOUR_VALUES { (0..=max).collect() } else { vec![0, value.saturating_sub(1), value.saturating_add(1)] };
    values.retain(|&v| v != value);
    values.sort_unstable();
    values.dedup();
    values
}

/// The edits of a test case tried near it, in a fixed order: each choice set to another
/// value (see [`other_values`]; `ranges` gives each choice's largest value, when known),
/// or deleted; a span of up to [`MAX_SPAN`] choices copied to any place; and each value
/// that occurs more than once in choices of one range replaced by another everywhere, or
/// everywhere but at one place. The last finds inputs where one bug hides another unless
/// the same character recurs (an anonymizer segment that starts with `_`, the blank,
/// hides a bug in blanking first characters). At most [`MAX_NEIGHBOUR_CHOICES`] choices in
/// all: the list is cut there.
pub(crate) fn neighbours(test: &TestCase, ranges: &[u64]) -> Vec<TestCase> {
    let mut edits = Edits { list: Vec::new(), choices: 0 };
    list_neighbours(&test.choices.0, ranges, &mut edits);
    edits.list.into_iter().map(|c| TestCase { size: test.size, choices: ChoiceSequence(c) }).collect()
}

/// The edits of [`neighbours`], in their order, until `edits` is full.
fn list_neighbours(choices: &[u64], ranges: &[u64], edits: &mut Edits) {
    let range = |i: usize| ranges.get(i).copied().unwrap_or(u64::MAX);
    for i in 0..choices.len() {
        for value in other_values(choices[i], range(i)) {
            let mut edited = choices.to_vec();
            edited[i] = value;
            if !edits.push(edited) {
                return;
            }
        }
        let mut deleted = choices.to_vec();
        deleted.remove(i);
        if !edits.push(deleted) {
            return;
        }
        // A span copied to any place: a collection element doubled or moved to the front,
        // whatever its encoding.
        for k in 1..=MAX_SPAN.min(choices.len() - i) {
            for at in 0..=choices.len() {
                let mut copied = choices.to_vec();
                copied.splice(at..at, choices[i..i + k].iter().copied());
                if !edits.push(copied) {
                    return;
                }
            }
        }
    }
    // One value replaced everywhere: the same character (say) changed at every place. A
    // value counts as the same only among choices of the same range (the same kind of
    // choice: a character, not a "continue?" flag that happens to hold the same number).
    let mut present: Vec<(u64, u64)> = (0..choices.len()).map(|i| (choices[i], range(i))).collect();
    present.sort_unstable();
    present.dedup();
    for &(from, max) in &present {
        let places: Vec<usize> = (0..choices.len()).filter(|&i| (choices[i], range(i)) == (from, max)).collect();
        if places.len() < 2 {
            continue;
        }
        for to in other_values(from, max) {
            // Everywhere, and everywhere but at one place.
            for kept in std::iter::once(None).chain(places.iter().copied().map(Some)) {
                let mut edited = choices.to_vec();
                for &i in places.iter().filter(|&&i| Some(i) != kept) {
                    edited[i] = to;
                }
                if !edits.push(edited) {
                    return;
                }
            }
        }
    }
}

/// One edit of `choices` of the kinds [`neighbours`] lists, drawn at random: a choice set to
/// another value, a choice deleted, a span copied to another place, or one value replaced
/// at every place of its range. The split search (`Search::split` in `search/split.rs`) composes
/// two or three of them to reach inputs a single edit does not; listing every pair of
/// edits of a 13-choice test would be some 600,000 of them. `ranges` may be those of
/// another test the edits came from: a generator clamps a value out of range.
pub(crate) fn random_edit(choices: &[u64], ranges: &[u64], rng: &mut Rng) -> Vec<u64> {
    let mut edited = choices.to_vec();
    let Some(last) = choices.len().checked_sub(1) else { return edited };
    let range = |i: usize| ranges.get(i).copied().unwrap_or(u64::MAX);
    let pick = |values: &[u64], rng: &mut Rng| values.get(rng.below_or_equal(values.len().saturating_sub(1) as u64) as usize).copied();
    let i = rng.below_or_equal(last as u64) as usize;
    match rng.below_or_equal(3) {
        0 => {
            if let Some(value) = pick(&other_values(choices[i], range(i)), rng) {
                edited[i] = value;
            }
        }
        1 => {
            edited.remove(i);
        }
        2 => {
            let span = 1 + rng.below_or_equal((MAX_SPAN.min(choices.len() - i) - 1) as u64) as usize;
            let at = rng.below_or_equal(choices.len() as u64) as usize;
            edited.splice(at..at, choices[i..i + span].iter().copied());
        }
        _ => {
            let (from, max) = (choices[i], range(i));
            if let Some(to) = pick(&other_values(from, max), rng) {
                for j in (0..choices.len()).filter(|&j| (choices[j], range(j)) == (from, max)) {
                    edited[j] = to;
                }
            }
        }
    }
    edited
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_of(length: usize) -> TestCase {
        TestCase { size: 0, choices: ChoiceSequence((0..length as u64).map(|i| i % 7).collect()) }
    }

    #[test]
    fn a_short_test_has_its_whole_neighbourhood_and_a_long_one_a_bounded_one() {
        // 20 choices of range 6: 6 other values and a deletion each, spans of 1 to 4 copied
        // to 21 places (fewer near the end), and the values repeated replaced.
        let short = neighbours(&test_of(20), &[6; 20]);
        let spans: usize = (0..20).map(|i| 4.min(20 - i) * 21).sum();
        assert!(short.len() > 20 * 7 + spans, "{} edits", short.len());
        let long = neighbours(&test_of(600), &[6; 600]);
        let held: usize = long.iter().map(|t| t.choices.0.len()).sum();
        assert!(held <= MAX_NEIGHBOUR_CHOICES && held > MAX_NEIGHBOUR_CHOICES - 610, "{held} choices in {} edits", long.len());
        assert_eq!(long[..50], neighbours(&test_of(600), &[6; 600])[..50], "the same edits first, in the same order");
    }
}
