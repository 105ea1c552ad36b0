//! The analysis on random models of answers and bugs, run as plain Rust closures.
//!
//! A model input is a short list of digits. Each answer carries a few random "bugs", each
//! a predicate on inputs (contains digit d, starts with d, has at least n digits, contains
//! d twice); an answer fails an input when any of its bugs fires. Whatever the model, the
//! suite the analysis builds must satisfy Paper III's definitions.

use grader::{
    Analysis, Answer, ChoiceSource, Execution, Executor, FailingSet, Problem, Rng, RunOutcome,
    analyse, is_redundant,
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
    let mut problem = Problem { name: "model".into(), ..Problem::default() };
    problem.search.stable_after = stable_after;
    let answers: Vec<Answer> = (0..model.answers.len())
        .map(|i| Answer { id: format!("a{i}"), cohort: None, program: i + 1, version: String::new() })
        .collect();
    analyse(&problem, &answers, model, seed, &mut |_| std::ops::ControlFlow::Continue(())).unwrap()
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
            assert!(
                failing.is_empty() || is_redundant(&failing, &sets),
                "model {seed}: random test {index} fails {failing:?}, not explained by {sets:?}"
            );
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

/// A class of `n` answers whose bugs come from a small pool, as in a real course: each
/// answer has one or two of ten "contains digit d" bugs or four "longer than n" ones.
fn course(n: usize, seed: u64) -> Model {
    let mut rng = Rng::for_test(seed, 1);
    let answers = (0..n)
        .map(|_| {
            (0..1 + rng.below_or_equal(1))
                .map(|_| match rng.below_or_equal(13) {
                    d @ 0..=9 => Bug::Contains(d as u8),
                    n => Bug::LongerThan(n as usize - 6),
                })
                .collect()
        })
        .collect();
    Model { answers }
}

/// Whether the segment from `a` to `b` passes through the inside of `rect`.
fn crosses(a: (i32, i32), b: (i32, i32), rect: (i32, i32, i32, i32)) -> bool {
    // Sampled every half pixel along the segment: exact enough for boxes tens of pixels wide.
    let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) * 2).max(1);
    (0..=steps).any(|i| {
        let t = i as f64 / steps as f64;
        let (x, y) = (a.0 as f64 + (b.0 - a.0) as f64 * t, a.1 as f64 + (b.1 - a.1) as f64 * t);
        x > rect.0 as f64 && x < rect.2 as f64 && y > rect.1 as f64 && y < rect.3 as f64
    })
}

#[test]
fn the_diagram_of_2_19_50_and_200_answers_has_no_overlapping_labels_and_no_arrow_through_a_box() {
    for n in [2, 19, 50, 200] {
        let analysis = analyse_model(&course(n, n as u64), 1);
        let layout = grader::layout(&analysis);
        if let Ok(dir) = std::env::var("BUGRANK_DIAGRAM_OUT") {
            std::fs::write(format!("{dir}/diagram-{n}.svg"), grader::order_svg(&analysis)).unwrap(); // to look at it
        }
        assert!(layout.width <= 1700, "{n} answers: layers wrap, width {}", layout.width);
        let boxes: Vec<_> = layout.nodes.iter().map(|node| node.rect()).collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(boxes[i + 1..].iter().all(|b| !grader::overlaps(*a, *b)), "{n} answers: boxes overlap");
        }
        let labels: Vec<_> = layout.arrows.iter().map(|arrow| arrow.label_box()).collect();
        for (i, arrow) in layout.arrows.iter().enumerate() {
            assert!(arrow.label_placed, "{n} answers: label {} found no free place", arrow.label);
            assert!(labels[i + 1..].iter().all(|other| !grader::overlaps(labels[i], *other)), "{n} answers: label {} overlaps another", arrow.label);
            assert!(boxes.iter().all(|b| !grader::overlaps(labels[i], *b)), "{n} answers: label {} covers a box", arrow.label);
            assert!(labels[i].0 >= 0 && labels[i].2 <= layout.width, "{n} answers: label {} is cut off", arrow.label);
            assert!(arrow.points.windows(2).all(|w| w[0].1 <= w[1].1), "arrows point down");
        }
        for (edge, arrow) in analysis.order.edges.iter().zip(&layout.arrows) {
            let connects = |node: &grader::NodeBox| node.class == edge.from || node.class == edge.to;
            for node in layout.nodes.iter().filter(|node| !connects(node)) {
                for w in arrow.points.windows(2) {
                    assert!(!crosses(w[0], w[1], node.rect()), "{n} answers: the arrow {} -> {} crosses {}'s box", edge.from, edge.to, node.class);
                }
            }
        }
        let answers_shown: usize = analysis.order.classes.iter().map(|c| c.answers.len()).sum();
        assert_eq!(answers_shown, n + 1, "every answer and the reference are in some class");
    }
}
