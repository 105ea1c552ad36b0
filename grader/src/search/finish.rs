//! The analysis made of a finished search: the suite named, each answer's failures on the
//! suite and the grading sample, the ranks, the order and the completeness.

use super::*;

/// Orders a finished suite and names its tests. Without a previous analysis: by choices,
/// lexicographically (which groups tests by the generator's first choice, for interval
/// sets the command), named `t01`, `t02`, ... With one, a test keeps its id: the pinned
/// tests (the previous suite, in its order) and every test whose input a previous test
/// had come first, in the previous order; new tests follow by choices, numbered on from
/// the previous suite's highest id in its width. So an id never names two inputs across
/// the analyses of a batch.
pub(super) fn name_tests(tests: &mut [(Made, FailingSet)], pinned: usize, previous: Option<&Analysis>) -> Vec<String> {
    tests[pinned..].sort_by(|((a, _), _), ((b, _), _)| a.choices.0.cmp(&b.choices.0));
    let Some(previous) = previous else {
        let width = tests.len().to_string().len();
        return (1..=tests.len()).map(|i| format!("t{i:0width$}")).collect();
    };
    let number = |id: &str| id.strip_prefix('t').and_then(|n| n.parse::<usize>().ok());
    let width = previous.suite.first().map_or(tests.len().to_string().len(), |t| t.id.len() - 1);
    let mut next = previous.suite.iter().filter_map(|t| number(&t.id)).max().unwrap_or(0);
    let kept = |t: usize, (_, input): &Made| {
        if t < pinned {
            return Some(t);
        }
        let text = String::from_utf8_lossy(input);
        previous.suite.iter().position(|old| old.input == text)
    };
    let mut place: Vec<(Option<usize>, usize)> = tests.iter().enumerate().map(|(t, (made, _))| (kept(t, made), t)).collect();
    place.sort_by_key(|&(kept, t)| (kept.is_none(), kept, t));
    let ids: Vec<String> = place
        .iter()
        .map(|&(kept, _)| match kept {
            Some(old) => previous.suite[old].id.clone(),
            None => {
                next += 1;
                format!("t{next:0width$}")
            }
        })
        .collect();
    let order: Vec<usize> = place.iter().map(|&(_, t)| t).collect();
    let reordered: Vec<(Made, FailingSet)> = order.iter().map(|&t| tests[t].clone()).collect();
    tests.clone_from_slice(&reordered);
    ids
}

impl Search<'_> {
    /// The course's tests `program` fails, by name in the course's order (their verdicts
    /// are fair: [`Search::run_course_tests`] resolved them).
    pub(super) fn course_tests_failed(&self, program: usize) -> Vec<String> {
        self.problem
            .fixed
            .iter()
            .filter(|test| self.evaluations.get(test.input.as_slice()).is_some_and(|e| e.verdicts.get(program).is_some_and(Option::is_some)))
            .map(|test| test.name.clone())
            .collect()
    }

    /// The [`Analysis`] of the finished search. With `previous`, tests keep their ids
    /// (see [`name_tests`]); with `copied`, the answers of `everyone` that are not searched
    /// keep the result given there, and the suite's pinned tests alone are scored.
    pub(crate) fn finish(
        self,
        suite: Suite<Made>,
        seed: u64,
        searched: Searched,
        previous: Option<&Analysis>,
        everyone: &[Answer],
        copied: &HashMap<String, AnswerResult>,
    ) -> Analysis {
        let pinned = suite.pinned_len();
        let frozen = !copied.is_empty() || pinned > 0;
        let mut tests = suite.into_tests();
        let test_ids = name_tests(&mut tests, pinned, previous);
        // Points are counted over the released suite when there is one: tests added for a
        // resubmission count against it, never for anyone else.
        let scored = match previous {
            Some(previous) if frozen => previous.scored_tests(),
            _ => tests.len(),
        };
        let only_for: Vec<String> = self.answers.iter().map(|a| a.id.clone()).collect();
        let searched_index: HashMap<&str, usize> = self.answers.iter().enumerate().map(|(a, answer)| (answer.id.as_str(), a)).collect();

        // Every failed run on a suite test once more, for what the verdict alone does not
        // keep: the checker's reason, the crash message, the fuel used. Runs are
        // deterministic, so each fails again the same way.
        let failed_runs: Vec<(usize, usize)> = {
            let mut runs: Vec<(usize, usize)> = (0..tests.len()).flat_map(|t| tests[t].1.iter().map(move |a| (t, self.answers[a].program))).collect();
            runs.sort_unstable();
            runs.dedup();
            runs
        };
        let details: HashMap<(usize, usize), FailureDetail> = failed_runs
            .par_iter()
            .map(|&(t, program)| {
                let input = &tests[t].0.1;
                let evaluation = &self.evaluations[input];
                let kind = evaluation.verdicts[program].expect("a failed test has a failure kind");
                let reference = evaluation.reference().expect("suite inputs are valid");
                ((t, program), failure_detail(self.problem, self.executor, input, &reference, program, evaluation.budget.fair, kind))
            })
            .collect();
        // Points, for the answers searched: each distinct program on the grading sample.
        let programs: Vec<usize> = {
            let mut programs: Vec<usize> = self.answers.iter().filter(|a| !copied.contains_key(&a.id)).map(|a| a.program).collect();
            programs.sort_unstable();
            programs.dedup();
            programs
        };
        let (sampled, sample_runs) = sample_failures(self.problem, self.executor, &self.calibration, &programs, &|input| self.known(input));
        let executions = self.executions + failed_runs.len() as u64 + sample_runs;

        let mut rows: Vec<AnswerResult> = everyone
            .iter()
            .map(|answer| {
                if let Some(row) = copied.get(&answer.id) {
                    return AnswerResult { version: answer.version.clone(), cohort: answer.cohort.clone(), ..row.clone() };
                }
                let a = searched_index[answer.id.as_str()];
                let failed: Vec<usize> = (0..tests.len()).filter(|&t| tests[t].1.contains(a)).collect();
                let failures: BTreeMap<String, FailureDetail> = failed.iter().map(|&t| (test_ids[t].clone(), details[&(t, answer.program)].clone())).collect();
                let outcomes: BTreeMap<String, FailureKind> = failures.iter().map(|(t, detail)| (t.clone(), detail.failure.kind)).collect();
                AnswerResult {
                    id: answer.id.clone(),
                    cohort: answer.cohort.clone(),
                    version: answer.version.clone(),
                    passed: scored.saturating_sub(failed.len()),
                    failed: failed.iter().map(|&t| test_ids[t].clone()).collect(),
                    counts: FailureCounts::of(outcomes.values()),
                    outcomes,
                    failures,
                    rank: 0,
                    percent: 0.0,
                    build: None,
                    points: sampled.get(&answer.program).map(|&(judged, counts)| {
                        let points = Points::of(&self.problem.grading, judged, counts);
                        // A test of the analysis it fails, the first: a bug found is never worth full points.
                        match failed.first() {
                            Some(&t) => points.failing_beyond_sample(&self.problem.grading, &test_ids[t]),
                            None => points,
                        }
                    }),
                    course_tests_failed: self.course_tests_failed(answer.program),
                }
            })
            .collect();
        let scores: Vec<usize> = rows.iter().map(|r| r.passed).collect();
        for (row, rank) in rows.iter_mut().zip(ranks(&scores)) {
            row.rank = rank;
            row.percent = percent(row.passed, scored);
        }

        let suite: Vec<SuiteTest> = tests
            .iter()
            .zip(&test_ids)
            .enumerate()
            .map(|(t, (((test, input), failing), id))| {
                let evaluation = &self.evaluations[input];
                let failing = rows
                    .iter()
                    .filter(|row| match searched_index.get(row.id.as_str()) {
                        Some(&a) => failing.contains(a),
                        None => row.failed.contains(id),
                    })
                    .map(|row| row.id.clone())
                    .collect();
                SuiteTest {
                    id: id.clone(),
                    input: String::from_utf8_lossy(input).into_owned(),
                    expected: String::from_utf8_lossy(evaluation.expected.as_ref().expect("suite inputs are valid")).into_owned(),
                    failing,
                    size: test.size,
                    choices: test.choices.clone(),
                    reference_fuel: evaluation.reference_fuel,
                    budget: evaluation.budget,
                    course_test: self.course_test(input).map(str::to_owned),
                    only_for: match previous {
                        Some(previous) if frozen && t < pinned => previous.suite[t].only_for.as_ref().map(|earlier| {
                            let mut ids = earlier.clone();
                            ids.extend(only_for.iter().filter(|id| !earlier.contains(id)).cloned());
                            ids
                        }),
                        _ => (frozen && t >= pinned).then(|| only_for.clone()),
                    },
                }
            })
            .collect();

        // A test an answer was not run on (one added for a resubmission) counts as passed
        // in the order: nothing is known against it.
        let mut in_order = vec![(REFERENCE_ID.to_owned(), BitSet::of(tests.len(), 0..tests.len()))];
        in_order.extend(rows.iter().map(|row| (row.id.clone(), BitSet::of(tests.len(), (0..tests.len()).filter(|&t| !row.failed.contains(&test_ids[t]))))));
        Analysis {
            problem: self.problem.name.clone(),
            seed,
            tests_generated: searched.tests_generated,
            executions,
            generator_runs: self.generator_runs,
            neighbour_tests: self.neighbour_tests,
            split_tests: self.split_tests,
            generator_failures: searched.generator_failures,
            reference_failures: searched.unusable.reference,
            checker_failures: searched.unusable.checker,
            problem_errors: searched.unusable.examples,
            stable_after: self.problem.search.stable_after,
            estimate_stop: self.problem.search.estimate,
            fuel: self.problem.fuel,
            calibration: self.calibration,
            grading: self.problem.grading,
            completeness: searched.completeness,
            course_tests: self.problem.fixed.iter().map(|test| test.name.clone()).collect(),
            generator_exhausted: searched.exhausted,
            suite,
            answers: rows,
            order: correctness_order(&in_order, &test_ids),
            rerun: None,
        }
    }
}
