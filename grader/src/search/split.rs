//! Beyond the paper: the split search. A suite test whose failing set is partly explained
//! by smaller ones may combine bugs; inputs near it are tried for one that fails some of
//! its unexplained answers and not the others.

use super::*;

/// Beyond the paper: inputs the split search tries near each suspected combination
/// ([`Search::split_combinations`]), in rounds of [`BATCH`].
pub const SPLIT_TESTS: u64 = 1_024;

/// The split search tries at most one input for every `SPLIT_SHARE` tests the random
/// search generated (a suspect begun is walked to its end). A split candidate costs the
/// generator, the reference and the one or two answers it is meant for ([`Search::probe`]),
/// where a random test runs every answer: at this share the split search adds about a
/// tenth to a search of twenty answers, less to a larger class. Measured (paired runs of
/// seed 1 against the search without it): 4% on cryptarithm, 5% on interval sets, 6% on
/// the anonymizer; uncapped, and running every answer, it had cost 14%, 32% and 25%.
pub(super) const SPLIT_SHARE: u64 = 2;

/// Keys the randomness of the split search apart from that of random tests and mutants.
pub(super) const SPLIT_KEY: u64 = 0xA54F_F53A_5F1D_36F1;

/// The inputs a split walk keeps to edit further: the suspect, then those found that
/// still make an unexplained answer fail.
pub(super) const MAX_WALK: usize = 256;

/// What an input a split walk tried is to it ([`Search::probe`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Probed {
    /// It makes none of the combination's unexplained answers fail: away from their bug.
    Away,
    /// It makes every answer of the combination fail: near the bug, a place to walk on,
    /// but no split.
    Near,
    /// It makes an unexplained answer fail and another answer of the combination pass: it
    /// may split the combination, and is run in full.
    Split,
}

impl Probed {
    fn of(near: bool, whole: bool) -> Probed {
        match (near, whole) {
            (false, _) => Probed::Away,
            (true, true) => Probed::Near,
            (true, false) => Probed::Split,
        }
    }
}

impl Search<'_> {
    /// Beyond the paper: the split search, once the random search is done. A suite test
    /// whose failing set is partly the union of smaller suite sets (its *unexplained*
    /// answers, those in no smaller set, being some but not all) is a suspected
    /// combination: the bugs of the explained answers and of the unexplained ones may be
    /// two bugs its input happens to provoke together, and an input that provokes only the
    /// unexplained ones would make it redundant. A seed whose search never met that input
    /// keeps the combination, and every answer in it fails one test more than under a seed
    /// that did: the instability of Paper III section 5.1. The shrinker cannot split it
    /// (every simpler input was tried when it was shrunk, and redundancy only grows), nor
    /// can one edit ([`Search::explore_neighbours`] tried them all); [`Search::split`]
    /// walks further. Each suspect is tried once until `budget` inputs were tried, those
    /// with the fewest unexplained answers first (one answer's bug is missing to explain
    /// them), then those with the most explained ones; a split changes the suite, and the
    /// suspects are looked for again.
    /// `tick` as for [`Search::explore_neighbours`].
    pub(super) fn split_combinations(
        &mut self,
        suite: &mut Suite<Made>,
        seed: u64,
        budget: u64,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let mut tried: HashSet<Arc<[u8]>> = HashSet::new();
        while self.split_tests < budget {
            let suspects = suite.tests().iter().filter_map(|((test, input), failing)| {
                if tried.contains(input) || self.course_test(input).is_some() {
                    return None;
                }
                let explained = union_within(failing, suite.tests().iter().map(|(_, set)| set).filter(|set| *set != failing));
                let unexplained = failing.difference(&explained);
                (!explained.is_empty() && !unexplained.is_empty()).then(|| (test.clone(), input.clone(), explained, unexplained))
            });
            let suspect = suspects.min_by_key(|(_, _, explained, unexplained)| (unexplained.len(), std::cmp::Reverse(explained.len())));
            let Some((test, input, explained, unexplained)) = suspect else { return Some(()) };
            tried.insert(input);
            self.split(test, &explained, &unexplained, suite, seed, tick)?;
            self.forget(suite);
        }
        Some(())
    }

    /// Looks for an irredundant input near the suspected combination `test` (see
    /// [`Search::split_combinations`]): [`SPLIT_TESTS`] inputs two or three random edits
    /// ([`random_edit`]) away from it or from an input found on the way that still makes
    /// one of its `unexplained` answers fail (so that the walk stays where that answer's
    /// bug shows). Only an input that makes one of them fail and another of its answers
    /// (`explained` or `unexplained`) pass can split it: [`Search::probe`] tells them, and
    /// only they are run in full. The first irredundant one is shrunk and added, its
    /// neighbours explored, and the walk ends. `None` when `tick` asked to stop.
    pub(super) fn split(
        &mut self,
        test: TestCase,
        explained: &FailingSet,
        unexplained: &FailingSet,
        suite: &mut Suite<Made>,
        seed: u64,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let programs = |set: &FailingSet| {
            let mut programs: Vec<usize> = set.iter().map(|a| self.answers[a].program).filter(|p| self.run.contains(p)).collect();
            programs.sort_unstable();
            programs.dedup();
            programs
        };
        let (unexplained, explained) = (programs(unexplained), programs(explained));
        if unexplained.is_empty() {
            return Some(());
        }
        let mut walk = vec![test];
        for _ in 0..SPLIT_TESTS.div_ceil(BATCH) {
            let first = self.split_tests;
            self.split_tests += BATCH;
            let edited: Vec<TestCase> = (first..first + BATCH)
                .map(|k| {
                    let mut rng = Rng::for_test(seed ^ SPLIT_KEY, k);
                    let parent = &walk[rng.below_or_equal(walk.len() as u64 - 1) as usize];
                    let ranges = self.ranges.get(parent).map_or(&[][..], Vec::as_slice);
                    let mut choices = parent.choices.0.clone();
                    for _ in 0..2 + rng.below_or_equal(1) {
                        choices = random_edit(&choices, ranges, &mut rng);
                    }
                    TestCase { size: parent.size, choices: ChoiceSequence(choices) }
                })
                .collect();
            let made: Vec<Made> = self.replay_all(&edited).into_iter().flatten().collect();
            let inputs: Vec<Arc<[u8]>> = made.iter().map(|(_, input)| input.clone()).collect();
            let probed = self.probe(&inputs, &unexplained, &explained);
            self.evaluate_all(inputs.iter().zip(&probed).filter(|(_, probed)| **probed == Probed::Split).map(|(input, _)| input));
            for ((made, input), probed) in made.into_iter().zip(probed) {
                if probed == Probed::Split
                    && let Ok(Some(_)) = self.irredundant(&input, suite)
                {
                    let suite_size = suite.len();
                    let (small, small_input, small_failing) = self.shrink(made, suite, &mut |search, tried| tick(search, suite_size, tried))?;
                    suite.add((small.clone(), small_input), small_failing);
                    return self.explore_neighbours(vec![small], suite, tick);
                }
                if probed != Probed::Away && walk.len() < MAX_WALK {
                    walk.push(made);
                }
            }
        }
        Some(())
    }

    /// What each of `inputs` is to a split walk ([`Probed`]), from runs of the reference, of
    /// the `unexplained` programs, and then, if they all fail, of the `explained` ones until
    /// one passes (a quick budget's timeout, or a checker that failed, counting as a
    /// failure). An input evaluated before is answered from its verdicts. Nothing is kept:
    /// a split walk's inputs mostly provoke the bugs of the combination it started from, and
    /// running every answer on each (the class may have hundreds) would cost a random
    /// test's runs for nothing.
    pub(super) fn probe(&mut self, inputs: &[Arc<[u8]>], unexplained: &[usize], explained: &[usize]) -> Vec<Probed> {
        let (problem, executor, calibration, evaluations) = (self.problem, self.executor, &self.calibration, &self.evaluations);
        let probed: Vec<(Probed, u64)> = inputs
            .par_iter()
            .map(|input| {
                if let Some(evaluation) = evaluations.get(input) {
                    let fails = |p: &usize| evaluation.verdicts.get(*p).is_some_and(Option::is_some);
                    let near = unexplained.iter().any(fails);
                    return (Probed::of(near, near && unexplained.iter().chain(explained).all(fails)), 0);
                }
                let Ok(reference) = run_reference(problem, executor, input) else { return (Probed::Away, 1) };
                let quick = budget(problem, calibration, input, &reference).quick;
                let mut runs = 1;
                let mut fails = |program: &usize| {
                    runs += 1;
                    !matches!(run_answer(problem, executor, input, &reference, *program, quick).1, Ok(None))
                };
                let failed: Vec<bool> = unexplained.iter().map(&mut fails).collect();
                let near = failed.contains(&true);
                let probed = Probed::of(near, near && !failed.contains(&false) && explained.iter().all(&mut fails));
                (probed, runs)
            })
            .collect();
        self.executions += probed.iter().map(|(_, runs)| runs).sum::<u64>();
        probed.into_iter().map(|(probed, _)| probed).collect()
    }
}
