//! Beyond the paper: the neighbourhood of each new suite test ([`crate::neighbours`]) is
//! tried too, and any irredundant neighbour is shrunk into the suite in turn.

use super::*;

impl Search<'_> {
    /// Beyond the paper: the [`neighbours`] of each new suite test are tried too, and any
    /// that is irredundant is shrunk and added in turn, its own neighbours then tried.
    /// Bugs that only a rare combination of features provokes often sit next to one
    /// already found: exploring there finds them in every run instead of in some, which
    /// keeps suites, and so ranks, stable from seed to seed.
    /// `tick(search, suite size, candidates tried)` is called as each test is shrunk;
    /// `None` when it asked to stop.
    pub(super) fn explore_neighbours(
        &mut self,
        start: Vec<TestCase>,
        suite: &mut Suite<Made>,
        tick: &mut dyn FnMut(&Search, usize, u64) -> ControlFlow<()>,
    ) -> Option<()> {
        let mut frontier: std::collections::VecDeque<TestCase> = start.into();
        while let Some(test) = frontier.pop_front() {
            // Each neighbourhood is a step of its own: the caches of the last one may go
            // (a chain of long tests' neighbourhoods held 1.1 GB of a 120-version class's
            // heap when the caches were only kept in bounds after the whole frontier).
            self.forget(suite);
            let ranges = self.ranges.get(&test).cloned().unwrap_or_default();
            let neighbours = self.replay_all(&neighbours(&test, &ranges));
            // All of them are evaluated below whatever happens in between: together, each
            // answer runs on all of them in a row (see `evaluate_all`).
            self.evaluate_all(neighbours.iter().flatten().map(|(_, input)| input));
            for neighbour in neighbours {
                self.neighbour_tests += 1;
                let Some((made, input)) = neighbour else { continue };
                if let Ok(Some(_)) = self.irredundant(&input, suite) {
                    let suite_size = suite.len();
                    let (small, small_input, small_failing) = self.shrink(made, suite, &mut |search, tried| tick(search, suite_size, tried))?;
                    frontier.push_back(small.clone());
                    suite.add((small, small_input), small_failing);
                }
            }
        }
        Some(())
    }
}
