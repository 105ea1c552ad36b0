//! The analysis on random models of answers and bugs, run as plain Rust closures.
//!
//! A model input is a short list of digits. Each answer carries a few random "bugs", each
//! a predicate on inputs (contains digit d, starts with d, has at least n digits, contains
//! d twice); an answer fails an input when any of its bugs fires. Whatever the model, the
//! suite the analysis builds must satisfy Paper III's definitions.

use grader::{
    Analysis, Answer, ChoiceSource, Execution, Executor, FailingSet, FailureCounts, GRADING_SAMPLE_INPUTS, GRADING_SEED, GradingPolicy, Points, Problem, Rng,
    RunOutcome, analyse, is_redundant,
};

#[derive(Clone, Copy, Debug)]
enum Bug {
    Contains(u8),
    StartsWith(u8),
    LongerThan(usize),
    Twice(u8),
}

impl Bug {
    fn fires(self, digits: &[u8]) -> bool {
        match self {
            Bug::Contains(d) => digits.contains(&d),
            Bug::StartsWith(d) => digits.first() == Some(&d),
            Bug::LongerThan(n) => digits.len() > n,
            Bug::Twice(d) => digits.iter().filter(|&&x| x == d).count() >= 2,
        }
    }
}

struct Model {
    /// Bugs of each answer; answer `i` is program `i + 1`.
    answers: Vec<Vec<Bug>>,
}

impl Model {
    fn random(seed: u64) -> Model {
        let mut rng = Rng::for_test(seed, 0);
        let answers = (0..2 + rng.below_or_equal(6))
            .map(|_| {
                (0..rng.below_or_equal(3))
                    .map(|_| {
                        let d = rng.below_or_equal(9) as u8;
                        match rng.below_or_equal(3) {
                            0 => Bug::Contains(d),
                            1 => Bug::StartsWith(d),
                            2 => Bug::LongerThan(2 + d as usize / 2),
                            _ => Bug::Twice(d),
                        }
                    })
                    .collect()
            })
            .collect();
        Model { answers }
    }

    fn failing(&self, digits: &[u8]) -> FailingSet {
        let failing = self.answers.iter().enumerate().filter(|(_, bugs)| bugs.iter().any(|b| b.fires(digits)));
        FailingSet::of(self.answers.len(), failing.map(|(i, _)| i))
    }
}

fn digits(input: &[u8]) -> Vec<u8> {
    input.iter().map(|b| b - b'0').collect()
}

impl Executor for Model {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let mut input = Vec::new();
        while input.len() < 12 && choices.choice(3).unwrap() != 0 {
            input.push(b'0' + choices.choice(9).unwrap() as u8);
        }
        (Ok(input), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let wrong = program > 0 && self.answers[program - 1].iter().any(|b| b.fires(&digits(input)));
        Execution { outcome: RunOutcome::Success, stdout: vec![u8::from(wrong)], fuel_used: 1 }
    }
}

fn analyse_model(model: &Model, seed: u64) -> Analysis {
    analyse_model_until(model, seed, 300)
}

fn analyse_model_until(model: &Model, seed: u64, stable_after: u64) -> Analysis {
    analyse_by(model, model.answers.len(), seed, stable_after)
}

/// The analysis of `answers` answers (programs 1 and up) run by `executor`.
fn analyse_by(executor: &dyn Executor, answers: usize, seed: u64, stable_after: u64) -> Analysis {
    let mut problem = Problem { name: "model".into(), ..Problem::default() };
    problem.search.stable_after = stable_after;
    let answers: Vec<Answer> = (0..answers).map(|i| Answer { id: format!("a{i}"), cohort: None, program: i + 1, version: String::new() }).collect();
    analyse(&problem, &answers, executor, seed, &mut |_| std::ops::ControlFlow::Continue(())).unwrap()
}

fn suite_sets(model: &Model, analysis: &Analysis) -> Vec<FailingSet> {
    analysis.suite.iter().map(|t| model.failing(&digits(t.input.as_bytes()))).collect()
}

#[test]
fn the_final_suite_is_irredundant_and_every_test_in_it_fails_someone() {
    for seed in 0..40 {
        let model = Model::random(seed);
        let analysis = analyse_model(&model, seed);
        let sets = suite_sets(&model, &analysis);
        for (i, set) in sets.iter().enumerate() {
            assert!(!set.is_empty(), "model {seed}: suite test {i} fails no one");
            let others = sets.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, s)| s);
            assert!(!is_redundant(set, others), "model {seed}: suite test {i} is redundant");
        }
        for (test, set) in analysis.suite.iter().zip(&sets) {
            let listed: Vec<String> = set.iter().map(|a| format!("a{a}")).collect();
            assert_eq!(test.failing, listed, "model {seed}: failing list of {}", test.input);
        }
    }
}

/// Half of the search's tests are mutants of suite tests; the random test of the seed at
/// every index must be explained all the same, whether it was run or a mutant took its turn.
#[test]
fn every_random_test_of_the_seed_is_redundant_with_respect_to_the_final_suite_or_fails_no_one() {
    for seed in 0..40 {
        let model = Model::random(seed);
        let analysis = analyse_model(&model, seed);
        let sets = suite_sets(&model, &analysis);
        for index in 0..analysis.tests_generated {
            let (input, _) = model.generate(ChoiceSource::for_random_test(seed, index));
            let failing = model.failing(&digits(&input.unwrap()));
            assert!(failing.is_empty() || is_redundant(&failing, &sets), "model {seed}: random test {index} fails {failing:?}, not explained by {sets:?}");
        }
    }
}

#[test]
fn scores_count_the_suite_tests_passed_and_the_reference_tops_the_order() {
    for seed in 0..20 {
        let model = Model::random(seed);
        let analysis = analyse_model(&model, seed);
        for answer in &analysis.answers {
            let failed = analysis.suite.iter().filter(|t| t.failing.contains(&answer.id)).count();
            assert_eq!(answer.failed.len(), failed);
            assert_eq!(answer.passed + failed, analysis.suite.len());
        }
        let top = &analysis.order.classes[0];
        assert_eq!(top.answers[0], "reference");
        assert_eq!(top.passed, analysis.suite.len());
    }
}

#[test]
fn the_analysis_is_the_same_byte_for_byte_with_one_thread_or_many() {
    let model = Model::random(7);
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| serde_json::to_string(&analyse_model(&model, 3)).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(4));
    assert_eq!(one, run(2));
}

/// The model's runs made as another worker would make a round: elsewhere (a thread of
/// its own), in another order, and counted.
struct Elsewhere<'a> {
    model: &'a Model,
    rounds: std::sync::atomic::AtomicU64,
}

impl Executor for Elsewhere<'_> {
    fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        self.model.generate(choices)
    }

    fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
        self.model.run(program, input, fuel)
    }

    fn run_all(&self, runs: &[grader::RunRequest<'_>]) -> Vec<Execution> {
        self.rounds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let model = self.model;
        let mut done =
            std::thread::scope(|scope| scope.spawn(|| runs.iter().rev().map(|r| model.run(r.program, r.input, r.fuel)).collect::<Vec<_>>()).join().unwrap());
        done.reverse();
        done
    }
}

#[test]
fn the_analysis_is_the_same_byte_for_byte_wherever_and_in_whatever_order_a_round_of_runs_is_made() {
    let model = Model::random(11);
    let here = serde_json::to_string(&analyse_model(&model, 5)).unwrap();
    let elsewhere = Elsewhere { model: &model, rounds: Default::default() };
    let there = analyse_by(&elsewhere, model.answers.len(), 5, 300);
    assert_eq!(serde_json::to_string(&there).unwrap(), here);
    assert!(elsewhere.rounds.into_inner() > 10, "the search and the grading sample hand their runs over in rounds");
}

#[test]
fn another_seed_finds_the_same_bugs() {
    let model = Model::random(11);
    let orders: Vec<_> = (0..5).map(|seed| analyse_model(&model, seed).order).collect();
    assert!(orders.windows(2).all(|w| w[0].classes.len() == w[1].classes.len()), "{orders:#?}");
}

#[test]
fn stability_names_exactly_the_bugs_that_only_some_seeds_found() {
    let mut varying_seen = 0;
    for model_seed in 0..20 {
        let model = Model::random(model_seed);
        // A search that stops after 5 quiet tests misses rare bugs in some runs.
        let analyses: Vec<Analysis> = (0..6).map(|seed| analyse_model_until(&model, seed, 5)).collect();
        let s = grader::stability(&analyses);
        let suites_with = |failing: &[String]| analyses.iter().filter(|a| a.suite.iter().any(|t| t.failing == failing)).count();
        for bug in &s.varying_bugs {
            assert_eq!(bug.runs, suites_with(&bug.failing), "model {model_seed}: {bug:?}");
            assert!(bug.runs < analyses.len(), "model {model_seed}: {bug:?} is in every suite");
            let example = model.failing(&digits(bug.example.as_bytes()));
            assert_eq!(example.iter().map(|a| format!("a{a}")).collect::<Vec<_>>(), bug.failing, "model {model_seed}");
        }
        for test in analyses.iter().flat_map(|a| &a.suite) {
            let listed = s.varying_bugs.iter().any(|bug| bug.failing == test.failing);
            assert_eq!(listed, suites_with(&test.failing) < analyses.len(), "model {model_seed}: {:?}", test.failing);
        }
        varying_seen += s.varying_bugs.len();
        let same = grader::stability(&[analyses[0].clone(), analyses[0].clone()]);
        assert!(same.varying_bugs.is_empty() && same.order_unchanged && same.maximum_deviation == 0.0);
    }
    assert!(varying_seen > 0, "short searches disagree somewhere");
}

/// Points on the fixed scale depend on the program alone: the same for an answer graded
/// with its class, alone, or with the search's seed changed; and they are its failures on
/// the grading sample, counted by the formula of `grader::points` (an input the sample
/// holds several times counts as often: it is run once).
#[test]
fn an_answers_points_are_the_same_graded_alone_or_with_any_class_and_whatever_the_seed() {
    let mut repeated = 0;
    for seed in 0..12 {
        let model = Model::random(seed);
        let class = analyse_model(&model, seed);
        let sample: Vec<Vec<u8>> =
            (0..GRADING_SAMPLE_INPUTS).map(|index| model.generate(ChoiceSource::for_random_test(GRADING_SEED, index)).0.unwrap()).collect();
        repeated += sample.len() - sample.iter().collect::<std::collections::HashSet<_>>().len();
        for (i, bugs) in model.answers.iter().enumerate() {
            let in_class = class.answers[i].points.clone().expect("an answer that ran has points");
            let alone = analyse_model(&Model { answers: vec![bugs.clone()] }, seed + 100);
            assert_eq!(alone.answers[0].points.as_ref(), Some(&in_class), "model {seed}, answer {i}: alone, with another seed");

            let failed = sample.iter().filter(|input| bugs.iter().any(|b| b.fires(&digits(input)))).count();
            let expected = Points::of(&GradingPolicy::default(), GRADING_SAMPLE_INPUTS, FailureCounts { wrong: failed, ..Default::default() });
            assert_eq!(in_class, expected, "model {seed}, answer {i}: {bugs:?}");
            if bugs.is_empty() {
                assert_eq!(in_class.points, 100.0, "no bug, no failure: full points");
            }
        }
    }
    assert!(repeated > 0, "the models' samples repeat inputs, so that counting each copy is checked");
}

/// The search records what it may have missed: its random tests (mutants left out) and
/// the failing sets they fell in, each set a failing set of the model.
#[test]
fn the_search_records_its_random_tests_and_the_failing_sets_they_fell_in() {
    for seed in 0..8 {
        let model = Model::random(seed);
        let analysis = analyse_model(&model, seed);
        let completeness = analysis.completeness.clone().expect("a search estimates its completeness");
        assert!(completeness.random_tests > 0 && completeness.random_tests <= analysis.tests_generated, "model {seed}: {completeness:?}");
        let any_bug = model.answers.iter().any(|bugs| !bugs.is_empty());
        assert_eq!(completeness.failing_sets_seen > 0, any_bug, "model {seed}: {completeness:?}");
        assert!(completeness.seen_once + completeness.seen_twice <= completeness.failing_sets_seen);
        assert_eq!(completeness.chance_of_new_set, completeness.seen_once as f64 / completeness.random_tests as f64);
    }
}
