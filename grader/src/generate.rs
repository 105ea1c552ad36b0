//! Test cases as the choices a generator made, and what "simpler" means.
//!
//! A generator does not draw its own randomness: it asks the host for every choice
//! (a number in `0..=max`), and a test case is the sequence of answers it got. Replaying
//! the generator with the same sequence gives the same input; replaying it with an edited
//! sequence gives another input that is valid by construction. This is how one shrinker
//! serves every problem (the approach of Hypothesis and minithesis).
//!
//! The course's hand-written tests ([`crate::WrittenTest`], [`crate::Problem::fixed`]) are no choices: the search runs
//! them first and never replays or shrinks them.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

/// The most choices one generator run may make before it is stopped: a generator that
/// wants more is looping, and test inputs that large would never shrink to a readable size.
pub const MAX_CHOICES: usize = 10_000;

/// The largest size hint handed to a generator.
pub const MAX_SIZE: u32 = 100;

/// The sequence of choices a generator made. The order on sequences is *shortlex*: a
/// shorter sequence is simpler, and among sequences of one length the lexicographically
/// smaller is simpler. This is the one definition of "simpler" in bugrank; because
/// generators map smaller choices to simpler data, it carries over to inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChoiceSequence(pub Vec<u64>);

impl ChoiceSequence {
    /// True when `self` is strictly simpler than `other` (shortlex).
    pub fn is_simpler_than(&self, other: &ChoiceSequence) -> bool {
        self < other
    }
}

impl Ord for ChoiceSequence {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for ChoiceSequence {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One test case: the generator's size hint and its choices.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TestCase {
    pub size: u32,
    pub choices: ChoiceSequence,
}

/// SplitMix64: a small, fast generator whose stream is fixed forever, so the same seed
/// gives the same analysis on every machine and with every version of every dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The generator for test number `index` of a run with `seed`: tests can be drawn in
    /// any order, on any thread, and still be the same tests.
    pub fn for_test(seed: u64, index: u64) -> Rng {
        let mut mixer = Rng(seed ^ 0x6A09_E667_F3BC_C909);
        let base = mixer.next_u64();
        Rng(base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=max`.
    pub fn below_or_equal(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            None => self.next_u64(),
            Some(bound) => ((self.next_u64() as u128 * bound as u128) >> 64) as u64,
        }
    }
}

/// Answers a generator's choices: first from a fixed prefix, then at random (when
/// generating) or with 0, the simplest value (when replaying a shrink candidate).
/// Records what it answered.
#[derive(Clone, Debug)]
pub struct ChoiceSource {
    prefix: Vec<u64>,
    /// Choices of the prefix drawn at random instead (a mutant's).
    redraw: Vec<usize>,
    random: Option<Rng>,
    size: u32,
    made: Vec<u64>,
    /// The `max` of each choice made.
    maxima: Vec<u64>,
    /// Whether the generator asked for the size hint (see [`ChoiceSource::read_size`]).
    read_size: std::cell::Cell<bool>,
}

impl ChoiceSource {
    /// Fresh random choices.
    pub fn random(rng: Rng, size: u32) -> ChoiceSource {
        ChoiceSource { prefix: Vec::new(), redraw: Vec::new(), random: Some(rng), size, made: Vec::new(), maxima: Vec::new(), read_size: Default::default() }
    }

    /// A random *mutant* of `test`: its choices with one or two of them drawn afresh at
    /// random, or only a prefix of them kept and the rest drawn at random; choices past
    /// the kept ones are random too. Mutants of suite tests look for bugs near those
    /// already found, where rare ones often sit.
    pub fn mutant(test: &TestCase, mut rng: Rng) -> ChoiceSource {
        let choices = &test.choices.0;
        let len = choices.len() as u64;
        let (prefix, redraw) = if len == 0 {
            (Vec::new(), Vec::new())
        } else if rng.below_or_equal(1) == 0 {
            let redraw = (0..=rng.below_or_equal(1)).map(|_| rng.below_or_equal(len - 1) as usize).collect();
            (choices.clone(), redraw)
        } else {
            (choices[..rng.below_or_equal(len - 1) as usize].to_vec(), Vec::new())
        };
        ChoiceSource { prefix, redraw, random: Some(rng), size: test.size, made: Vec::new(), maxima: Vec::new(), read_size: Default::default() }
    }

    /// The source of random test number `index` of an analysis with `seed`. Sizes grow
    /// from 0 to [`MAX_SIZE`] and start again, as QuickCheck's do: small inputs come first
    /// and keep coming.
    pub fn for_random_test(seed: u64, index: u64) -> ChoiceSource {
        let size = (index % (MAX_SIZE as u64 + 1)) as u32;
        ChoiceSource::random(Rng::for_test(seed, index), size)
    }

    /// Replays `test`; choices past its end are 0.
    pub fn replay(test: &TestCase) -> ChoiceSource {
        ChoiceSource {
            prefix: test.choices.0.clone(),
            redraw: Vec::new(),
            random: None,
            size: test.size,
            made: Vec::new(),
            maxima: Vec::new(),
            read_size: Default::default(),
        }
    }

    /// The next choice in `0..=max`, or `None` once [`MAX_CHOICES`] have been made.
    pub fn choice(&mut self, max: u64) -> Option<u64> {
        if self.made.len() >= MAX_CHOICES {
            return None;
        }
        let at = self.made.len();
        let prefix = self.prefix.get(at).filter(|_| !self.redraw.contains(&at));
        let value = match (prefix, self.random.as_mut()) {
            (Some(&value), _) => value.min(max),
            (None, Some(rng)) => rng.below_or_equal(max),
            (None, None) => 0,
        };
        self.made.push(value);
        self.maxima.push(max);
        Some(value)
    }

    pub fn size(&self) -> u32 {
        self.read_size.set(true);
        self.size
    }

    /// Whether the generator asked for the size hint: then its choices may depend on it,
    /// and the same choices at another size can make another input.
    pub fn read_size(&self) -> bool {
        self.read_size.get()
    }

    /// The largest value each choice made so far could have taken.
    pub fn maxima(&self) -> &[u64] {
        &self.maxima
    }

    /// The test case actually made: the choices consumed, which may be fewer than a
    /// replayed prefix, and values clamped to what the generator allowed.
    pub fn into_test_case(self) -> TestCase {
        TestCase { size: self.size, choices: ChoiceSequence(self.made) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(values: &[u64]) -> ChoiceSequence {
        ChoiceSequence(values.to_vec())
    }

    #[test]
    fn shorter_sequences_are_simpler_whatever_their_values() {
        assert!(seq(&[9, 9]).is_simpler_than(&seq(&[0, 0, 0])));
        assert!(!seq(&[0, 0, 0]).is_simpler_than(&seq(&[9, 9])));
    }

    #[test]
    fn among_equal_lengths_the_lexicographically_smaller_is_simpler() {
        assert!(seq(&[1, 9]).is_simpler_than(&seq(&[2, 0])));
        assert!(!seq(&[1, 2]).is_simpler_than(&seq(&[1, 2])));
    }

    #[test]
    fn a_replay_answers_from_the_prefix_clamped_then_with_zeros() {
        let test = TestCase { size: 5, choices: seq(&[3, 100]) };
        let mut source = ChoiceSource::replay(&test);
        assert_eq!(source.choice(10), Some(3));
        assert_eq!(source.choice(7), Some(7));
        assert_eq!(source.choice(7), Some(0));
        assert_eq!(source.into_test_case().choices, seq(&[3, 7, 0]));
    }

    /// The first `n` choices a mutant of `parent` makes when every choice has range `0..=9`.
    fn mutant_of(parent: &[u64], index: u64, n: usize) -> Vec<u64> {
        let test = TestCase { size: 3, choices: seq(parent) };
        let mut source = ChoiceSource::mutant(&test, Rng::for_test(5, index));
        (0..n).map(|_| source.choice(9).unwrap()).collect()
    }

    #[test]
    fn a_mutant_redraws_one_or_two_choices_or_keeps_a_prefix_and_draws_the_rest() {
        let parent = [1, 2, 3, 4, 5, 6, 7, 8];
        // Mutants that differ from the parent in at most two choices, and in more.
        let mut kinds = [0; 2];
        for index in 0..200 {
            let mutant = mutant_of(&parent, index, parent.len());
            assert_eq!(mutant, mutant_of(&parent, index, parent.len()), "the same rng makes the same mutant");
            let changed = parent.iter().zip(&mutant).filter(|(a, b)| a != b).count();
            kinds[usize::from(changed > 2)] += 1;
        }
        assert!(kinds.iter().all(|&k| k > 20), "both kinds of mutant are made: {kinds:?}");
        let past_the_end: Vec<u64> = (0..20).flat_map(|index| mutant_of(&parent, index, 12).split_off(8)).collect();
        assert!(past_the_end.iter().any(|&v| v != 0), "choices past the parent's are random, not 0");
    }

    #[test]
    fn random_choices_stay_in_range_and_depend_only_on_seed_and_index() {
        let draw = |seed, index| {
            let mut source = ChoiceSource::random(Rng::for_test(seed, index), 0);
            (0..100).map(|max| source.choice(max).unwrap()).collect::<Vec<_>>()
        };
        let first = draw(1, 7);
        assert!(first.iter().enumerate().all(|(max, &v)| v <= max as u64));
        assert_eq!(first, draw(1, 7));
        assert_ne!(first, draw(1, 8));
        assert_ne!(first, draw(2, 7));
    }

    #[test]
    fn a_generator_that_never_stops_is_cut_off() {
        let mut source = ChoiceSource::random(Rng::for_test(0, 0), 0);
        assert!((0..MAX_CHOICES).all(|_| source.choice(1).is_some()));
        assert_eq!(source.choice(1), None);
    }
}
