//! The search's one evaluator: every input it meets is run once by the reference and every
//! answer, program by program ([`Search::evaluate_all`]); the verdicts are kept, within
//! [`MAX_CACHE_BYTES`], with the timeouts still pending their fair budget, and asked as
//! failing sets (`AnswersFailing`) and whether an input is irredundant.
//!
//! Inputs are evaluated together where they can be (a batch of random tests, a test's neighbours): the reference on
//! each, then every answer on all of them in a row, so that consecutive runs on a thread are of one module (the
//! sandbox keeps its instance slot warm); a class of 1,000 costs no more per execution than the fixture's 19. Each
//! such task (one answer on up to [`crate::RUNS_IN_A_ROW`] inputs) may go to any thread: left to split ranges of tasks
//! as it likes, rayon ran all of one slow answer's runs on one thread while the other waited.

use super::*;

/// What running every program on one input showed.
pub(super) struct Evaluation {
    /// The reference's output, or why the input cannot be used.
    pub(super) expected: Result<Vec<u8>, Unusable>,
    pub(super) reference_fuel: u64,
    pub(super) budget: Budget,
    /// Verdict per program, index 0 (the reference) included as a pass.
    pub(super) verdicts: Vec<Option<FailureKind>>,
    /// Programs that ran out of their quick budget and have not yet been given the fair
    /// one: their verdict is a timeout for now (see [`Search::irredundant`]).
    pub(super) pending: Vec<usize>,
}

impl Evaluation {
    /// About the bytes it and its `input` hold in [`Search::evaluations`].
    fn bytes(&self, input: &[u8]) -> usize {
        let expected = self.expected.as_ref().map_or(0, Vec::len);
        cached_bytes(input) + expected + cached_bytes(&self.verdicts) + cached_bytes(&self.pending)
    }

    /// The reference's run on a usable input, as the answers are judged against it.
    pub(super) fn reference(&self) -> Result<Execution, &Unusable> {
        let stdout = self.expected.as_ref()?.clone();
        Ok(Execution { outcome: RunOutcome::Success, stdout, fuel_used: self.reference_fuel })
    }
}

/// The most the search's caches may hold (see [`Search::forget`]): the inputs evaluated
/// and their verdicts, and what the generator made of each shrink candidate and
/// neighbour. A class's search meets mostly small inputs again and again, which cost
/// little (the cryptarithm's whole search holds some 10 MB); long ones rarely recur, and
/// the neighbourhoods of long suite tests (a bug needing 101 numbers, each test 8 MB of
/// edits) held 3.5 GB of a 120-program class's search before this bound. The bound is kept
/// between steps (each neighbourhood explored is one): the scores cohort's 120 versions peak
/// at 430 MB (seed 2; 1.86 GB when a chain of neighbourhoods was one step).
pub(super) const MAX_CACHE_BYTES: usize = 256 << 20;

/// The bytes a cache entry costs beyond its contents: the hash table's slot, the vector's
/// header, the allocator's rounding.
pub(super) const ENTRY_BYTES: usize = 64;

/// About the bytes a cached vector of `values` holds.
pub(super) fn cached_bytes<T>(values: &[T]) -> usize {
    ENTRY_BYTES + std::mem::size_of_val(values)
}

impl Search<'_> {
    /// Evaluates the inputs not seen before, in parallel. Duplicates are removed first, in
    /// order, so the execution count does not depend on scheduling.
    ///
    /// The reference runs on every input first; then each answer program runs on all the
    /// usable inputs in a row, so that consecutive runs on a thread are of one module and
    /// its instance slot stays warm (a class of 1,000 run input by input would instantiate
    /// a different module every run).
    pub(super) fn evaluate_all<'i>(&mut self, inputs: impl Iterator<Item = &'i Arc<[u8]>>) {
        let mut fresh: Vec<Arc<[u8]>> = Vec::new();
        for input in inputs {
            if !self.evaluations.contains_key(input) && !fresh.contains(input) {
                fresh.push(input.clone());
            }
        }
        if fresh.is_empty() {
            return;
        }
        let (problem, executor, calibration) = (self.problem, self.executor, &self.calibration);
        let references: Vec<Result<(Execution, Budget), Unusable>> = fresh
            .par_iter()
            .map(|input| {
                let reference = run_reference(problem, executor, input)?;
                let budget = budget(problem, calibration, input, &reference);
                Ok((reference, budget))
            })
            .collect();
        let usable: Vec<usize> = (0..fresh.len()).filter(|&i| references[i].is_ok()).collect();
        // One round: every program on every usable input, program by program.
        let (fresh_inputs, quick) = (&fresh, |i: usize| references[i].as_ref().expect("usable").1.quick);
        let requests: Vec<RunRequest<'_>> =
            self.run.iter().flat_map(|&program| usable.iter().map(move |&i| RunRequest { program, input: &fresh_inputs[i], fuel: quick(i) })).collect();
        let executions = executor.run_all(&requests);
        let verdicts: Vec<Result<Option<FailureKind>, String>> = requests
            .par_iter()
            .zip(executions)
            .enumerate()
            .map(|(n, (request, execution))| {
                let reference = &references[usable[n % usable.len()]].as_ref().expect("usable").0;
                judge_answer(problem, executor, request.input, reference, &execution).map(|failure| failure.map(|f| f.kind))
            })
            .collect();
        // Each usable input's verdicts in program order.
        let mut judged: Vec<Vec<Result<Option<FailureKind>, String>>> = vec![Vec::with_capacity(self.run.len()); usable.len()];
        for (n, verdict) in verdicts.into_iter().enumerate() {
            judged[n % usable.len()].push(verdict);
        }
        let mut judged = judged.into_iter();
        for (input, reference) in fresh.into_iter().zip(references) {
            let evaluation = match reference {
                Err(why) => {
                    self.executions += 1;
                    Evaluation { expected: Err(why), reference_fuel: 0, budget: Budget::default(), verdicts: Vec::new(), pending: Vec::new() }
                }
                Ok((reference, budget)) => {
                    self.executions += 1 + self.run.len() as u64;
                    // The checker failure reported is the first in program order.
                    match judged.next().expect("verdicts for every usable input").into_iter().collect::<Result<Vec<_>, String>>() {
                        Ok(judged) => {
                            let mut verdicts = vec![None; self.programs];
                            for (&program, verdict) in self.run.iter().zip(judged) {
                                verdicts[program] = verdict;
                            }
                            Evaluation {
                                pending: if budget.fair > budget.quick {
                                    (0..verdicts.len()).filter(|&p| verdicts[p] == Some(FailureKind::Timeout)).collect()
                                } else {
                                    Vec::new()
                                },
                                expected: Ok(reference.stdout),
                                reference_fuel: reference.fuel_used,
                                budget,
                                verdicts,
                            }
                        }
                        Err(reason) => Evaluation {
                            expected: Err(Unusable::Checker(reason)),
                            reference_fuel: reference.fuel_used,
                            budget,
                            verdicts: Vec::new(),
                            pending: Vec::new(),
                        },
                    }
                }
            };
            self.cache_bytes += evaluation.bytes(&input);
            self.evaluated_order.push_back(input.clone());
            self.evaluations.insert(input, evaluation);
        }
    }

    /// What the search's runs settle on `input` for the grading sample (see [`Known`]): a
    /// verdict with the quick budget is the fair one but for a timeout (it was either
    /// pending, or re-run with the fair budget, where a checker failure is kept as a
    /// timeout and the sample judges nothing); an input whose checker failed is run again
    /// (the search sets it aside whole, the sample the one program).
    pub(super) fn known(&self, input: &[u8]) -> Option<Known> {
        let evaluation = self.evaluations.get(input)?;
        let reference = match &evaluation.expected {
            Err(Unusable::Reference(_)) => return Some(Known::Unusable),
            Err(Unusable::Checker(_)) => return None,
            Ok(_) => evaluation.reference().ok()?,
        };
        let fair = evaluation.budget.fair;
        let mut verdicts = vec![None; self.programs];
        for &program in &self.run {
            let verdict = evaluation.verdicts[program];
            if !evaluation.pending.contains(&program) && (verdict != Some(FailureKind::Timeout) || fair == evaluation.budget.quick) {
                verdicts[program] = Some(verdict);
            }
        }
        Some(Known::Usable { reference, fair, verdicts })
    }

    /// The answers a usable, evaluated `input` is known to fail: a timeout still pending
    /// (not yet given the fair budget) is not counted, so that a set is never a guess.
    pub(super) fn known_failing(&self, input: &Arc<[u8]>) -> FailingSet {
        let evaluation = &self.evaluations[input];
        let failing = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some() && !evaluation.pending.contains(&a.program));
        FailingSet::of(self.answers.len(), failing.map(|(i, _)| i))
    }

    /// `AnswersFailing(input)`, or why the input is unusable; pending timeouts count as
    /// failures.
    pub(super) fn failing_set(&mut self, input: &Arc<[u8]>) -> Result<FailingSet, Unusable> {
        self.evaluate_all(std::iter::once(input));
        let evaluation = &self.evaluations[input];
        evaluation.expected.as_ref().map_err(Clone::clone)?;
        let failing = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some());
        Ok(FailingSet::of(self.answers.len(), failing.map(|(i, _)| i)))
    }

    /// `AnswersFailing(input)` when `input` is irredundant with respect to `suite`, `None`
    /// when it is redundant. Pending timeouts are given the fair budget only when their
    /// verdicts can matter: when some way they could turn out (each a pass or a failure)
    /// leaves the input irredundant. So an answer stuck in a loop costs the quick budget on
    /// every input that is redundant anyway, while every failing set that is added to the
    /// suite, and so every grade, rests on fair verdicts only.
    pub(super) fn irredundant(&mut self, input: &Arc<[u8]>, suite: &Suite<Made>) -> Result<Option<FailingSet>, Unusable> {
        let failing = self.failing_set(input)?;
        let evaluation = &self.evaluations[input];
        if evaluation.pending.is_empty() {
            return Ok((!suite.is_redundant(&failing)).then_some(failing));
        }
        let pending = &evaluation.pending;
        let settled = self.answers.iter().enumerate().filter(|(_, a)| evaluation.verdicts[a.program].is_some() && !pending.contains(&a.program));
        let settled = FailingSet::of(self.answers.len(), settled.map(|(i, _)| i));
        let groups: Vec<FailingSet> = pending
            .iter()
            .map(|&program| FailingSet::of(self.answers.len(), self.answers.iter().enumerate().filter(|(_, a)| a.program == program).map(|(i, _)| i)))
            .collect();
        if suite.is_redundant_whatever(&settled, &groups) {
            return Ok(None);
        }
        self.resolve_pending(input);
        let failing = self.failing_set(input)?;
        Ok((!suite.is_redundant(&failing)).then_some(failing))
    }

    /// `AnswersFailing(input)` with every verdict a fair one.
    pub(crate) fn failing_set_fair(&mut self, input: &Arc<[u8]>) -> Result<FailingSet, Unusable> {
        self.failing_set(input)?;
        self.resolve_pending(input);
        self.failing_set(input)
    }

    /// Gives every pending timeout on an evaluated, usable `input` the fair budget.
    pub(super) fn resolve_pending(&mut self, input: &Arc<[u8]>) {
        let evaluation = self.evaluations.get_mut(input).expect("evaluated before");
        let pending = std::mem::take(&mut evaluation.pending);
        if pending.is_empty() {
            return;
        }
        let reference = evaluation.reference().expect("a usable input");
        let fair = evaluation.budget.fair;
        let (problem, executor) = (self.problem, self.executor);
        // A checker that failed here failed on an output it had not seen with the quick
        // budget: the verdict stays a timeout, which the answer cannot be blamed for
        // beyond what the quick budget showed.
        let resolved: Vec<(usize, Option<FailureKind>)> = pending
            .par_iter()
            .map(|&program| {
                let verdict = run_answer(problem, executor, input, &reference, program, fair).1;
                (program, verdict.map_or(Some(FailureKind::Timeout), |f| f.map(|f| f.kind)))
            })
            .collect();
        self.executions += resolved.len() as u64;
        let evaluation = self.evaluations.get_mut(input).expect("evaluated above");
        for (program, verdict) in resolved {
            evaluation.verdicts[program] = verdict;
        }
    }

    /// Keeps the search's caches (`evaluations`, `replays`, `ranges`) within
    /// [`MAX_CACHE_BYTES`] (`cache_limit`): once beyond it, every replay is forgotten, every range but a
    /// suite test's, and the evaluations of inputs that are neither suite tests nor the
    /// course's, oldest first, until the caches hold half of it. A forgotten input met
    /// again is run again, with the same verdicts: only the execution count sees it, and
    /// it is the same for the same seed. Called between the search's steps, never within
    /// one (a shrink finds its candidates evaluated).
    pub(super) fn forget(&mut self, suite: &Suite<Made>) {
        if self.cache_bytes <= self.cache_limit {
            return;
        }
        let problem = self.problem;
        let kept_tests: HashSet<&TestCase> = suite.tests().iter().map(|((test, _), _)| test).collect();
        let kept_inputs: HashSet<&[u8]> =
            suite.tests().iter().map(|((_, input), _)| &input[..]).chain(problem.fixed.iter().map(|test| &test.input[..])).collect();
        self.replays.clear();
        self.ranges.retain(|test, _| kept_tests.contains(test));
        self.cache_bytes = self.ranges.iter().map(|(test, ranges)| cached_bytes(&test.choices.0) + cached_bytes(ranges)).sum::<usize>()
            + self.evaluations.iter().map(|(input, evaluation)| evaluation.bytes(input)).sum::<usize>();
        let mut kept = Vec::new();
        while self.cache_bytes > self.cache_limit / 2
            && let Some(input) = self.evaluated_order.pop_front()
        {
            if kept_inputs.contains(&input[..]) {
                kept.push(input);
            } else if let Some(evaluation) = self.evaluations.remove(&input) {
                self.cache_bytes -= evaluation.bytes(&input);
            }
        }
        for input in kept.into_iter().rev() {
            self.evaluated_order.push_front(input);
        }
    }

    /// What the generator makes of a shrink candidate (`None`: it failed).
    pub(super) fn replay(&mut self, candidate: &TestCase) -> Option<Made> {
        self.replay_all(std::slice::from_ref(candidate)).pop().flatten()
    }

    /// What the generator makes of each candidate, the ones not replayed before run in
    /// parallel (each distinct one once, so `generator_runs` is as if run one by one).
    pub(super) fn replay_all(&mut self, candidates: &[TestCase]) -> Vec<Option<Made>> {
        let mut seen = std::collections::HashSet::new();
        let fresh: Vec<&TestCase> = candidates.iter().filter(|candidate| !self.replays.contains_key(*candidate) && seen.insert(*candidate)).collect();
        let executor = self.executor;
        let made: Vec<(Result<Vec<u8>, String>, ChoiceSource)> = fresh.par_iter().map(|candidate| executor.generate(ChoiceSource::replay(candidate))).collect();
        self.generator_runs += fresh.len() as u64;
        for (candidate, (input, source)) in fresh.into_iter().zip(made) {
            let ranges = source.maxima().to_vec();
            let made: Option<Made> = input.ok().map(|input| (source.into_test_case(), Arc::from(input)));
            if let Some((test, input)) = &made {
                self.cache_bytes += cached_bytes(&test.choices.0) + input.len();
                if !self.ranges.contains_key(test) {
                    self.cache_bytes += cached_bytes(&test.choices.0) + cached_bytes(&ranges);
                    self.ranges.insert(test.clone(), ranges);
                }
            }
            self.cache_bytes += cached_bytes(&candidate.choices.0);
            self.replays.insert(candidate.clone(), made);
        }
        candidates.iter().map(|candidate| self.replays[candidate].clone()).collect()
    }
}
