//! Beyond the paper: the neighbourhood of a test case, the edits of it tried near it. The
//! search tries the neighbours of each new suite test (`Search::explore_neighbours` in
//! `search.rs`): bugs that only a rare combination of features provokes often sit next to
//! one already found.

use crate::generate::{ChoiceSequence, TestCase};

/// A choice whose range has at most this many values more is tried with each of them
/// near a suite test; a wider one (a number, say) with one more, one less and zero.
const NEIGHBOUR_VALUES: u64 = 64;

/// The longest span of choices copied elsewhere near a test: a collection element of a
/// generator drawing a "continue?" flag and one to three choices per element.
const MAX_SPAN: usize = 4;

/// The values a choice is set to near a test, given the largest it can take (`u64::MAX`
/// when unknown): every value of a small range, else one up, one down and zero.
fn other_values(value: u64, max: u64) -> Vec<u64> {
    let mut values: Vec<u64> = if max <= NEIGHBOUR_VALUES {
        (0..=max).collect()
    } else {
        vec![0, value.saturating_sub(1), value.saturating_add(1)]
    };
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
/// hides a bug in blanking first characters).
pub(crate) fn neighbours(test: &TestCase, ranges: &[u64]) -> Vec<TestCase> {
    let choices = &test.choices.0;
    let range = |i: usize| ranges.get(i).copied().unwrap_or(u64::MAX);
    let mut edits = Vec::new();
    for i in 0..choices.len() {
        for value in other_values(choices[i], range(i)) {
            let mut edited = choices.clone();
            edited[i] = value;
            edits.push(edited);
        }
        let mut deleted = choices.clone();
        deleted.remove(i);
        edits.push(deleted);
        // A span copied to any place: a collection element doubled or moved to the front,
        // whatever its encoding.
        for k in 1..=MAX_SPAN.min(choices.len() - i) {
            for at in 0..=choices.len() {
                let mut copied = choices.clone();
                copied.splice(at..at, choices[i..i + k].iter().copied());
                edits.push(copied);
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
                let mut edited = choices.clone();
                for &i in places.iter().filter(|&&i| Some(i) != kept) {
                    edited[i] = to;
                }
                edits.push(edited);
            }
        }
    }
    edits.into_iter().map(|c| TestCase { size: test.size, choices: ChoiceSequence(c) }).collect()
}
