//! The correctness diagram stays readable whatever the class: checked on classes of 2, 19,
//! 50 and 200 answers (set `BUGRANK_DIAGRAM_OUT` to a folder to look at them).

use grader::{Analysis, Answer, ChoiceSource, Execution, Executor, Problem, Rng, RunOutcome, analyse};

/// Inputs are one number below 40; answer `i` (program `i + 1`) prints a wrong answer for
/// the numbers in `bugs[i]`, one or two drawn from a pool of 14, as in a real course where
/// many students make the same few mistakes.
struct Course {
    bugs: Vec<Vec<u64>>,
}

impl Course {
    fn of(n: usize, seed: u64) -> Course {
        let mut rng = Rng::for_test(seed, 1);
        let bugs = (0..n).map(|_| (0..1 + rng.below_or_equal(1)).map(|_| 3 * rng.below_or_equal(13)).collect()).collect();
        Course { bugs }
    }

    fn analysis(&self) -> Analysis {
        let mut problem = Problem { name: "course".into(), ..Problem::default() };
        problem.search.stable_after = 300;
        let answers: Vec<Answer> = (0..self.bugs.len()).map(|i| Answer { id: format!("a{i}"), cohort: None, program: i + 1, version: String::new() }).collect();
        analyse(&problem, &answers, self, 1, &mut |_| std::ops::ControlFlow::Continue(())).unwrap()
    }
}

impl Executor for Course {
    fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        let n = choices.choice(39).unwrap_or(0);
        (Ok(n.to_string().into_bytes()), choices)
    }

    fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
        let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
        let wrong = program > 0 && self.bugs[program - 1].contains(&n);
        Execution { outcome: RunOutcome::Success, stdout: vec![u8::from(wrong)], fuel_used: 1 }
    }
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
    assert!(crosses((0, 0), (100, 100), (40, 40, 60, 60)) && !crosses((0, 0), (100, 0), (40, 40, 60, 60)), "the check itself");
    for n in [2, 19, 50, 200] {
        let analysis = Course::of(n, n as u64).analysis();
        let layout = present::layout(&analysis);
        if let Ok(dir) = std::env::var("BUGRANK_DIAGRAM_OUT") {
            std::fs::write(format!("{dir}/diagram-{n}.svg"), present::order_svg(&analysis)).unwrap(); // to look at it
        }
        assert!(n < 50 || analysis.order.classes.len() > 10, "{n} answers: a class with many results ({})", analysis.order.classes.len());
        assert!(layout.width <= 1700, "{n} answers: layers wrap, width {}", layout.width);
        let boxes: Vec<_> = layout.nodes.iter().map(|node| node.rect()).collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(boxes[i + 1..].iter().all(|b| !present::overlaps(*a, *b)), "{n} answers: boxes overlap");
        }
        let labels: Vec<_> = layout.arrows.iter().map(|arrow| arrow.label_box()).collect();
        for (i, arrow) in layout.arrows.iter().enumerate() {
            assert!(arrow.label_placed, "{n} answers: label {} found no free place", arrow.label);
            assert!(labels[i + 1..].iter().all(|other| !present::overlaps(labels[i], *other)), "{n} answers: label {} overlaps another", arrow.label);
            assert!(boxes.iter().all(|b| !present::overlaps(labels[i], *b)), "{n} answers: label {} covers a box", arrow.label);
            assert!(labels[i].0 >= 0 && labels[i].2 <= layout.width, "{n} answers: label {} is cut off", arrow.label);
            assert!(arrow.points.windows(2).all(|w| w[0].1 <= w[1].1), "arrows point down");
        }
        for (edge, arrow) in analysis.order.edges.iter().zip(&layout.arrows) {
            let connects = |node: &present::NodeBox| node.class == edge.from || node.class == edge.to;
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
