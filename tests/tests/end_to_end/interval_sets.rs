//! `bugrank grade` on the interval-sets fixture cohort: what the foundation issue promises.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use course::exports::NoHandIn;
use end_to_end::{FIXTURE, grade, graded_with_seed, verdicts};
use grader::{Analysis, FailingSet, is_redundant};

/// The analysis with seed 1, shared by the tests that only read it.
fn seed_1() -> &'static Analysis {
    static ANALYSIS: OnceLock<Analysis> = OnceLock::new();
    ANALYSIS.get_or_init(|| graded_with_seed(1))
}

fn failing_sets(analysis: &Analysis) -> Vec<FailingSet> {
    let ids: Vec<&str> = analysis.answers.iter().map(|a| a.id.as_str()).collect();
    analysis.suite.iter().map(|t| FailingSet::of(ids.len(), t.failing.iter().map(|f| ids.iter().position(|id| id == f).unwrap()))).collect()
}

#[test]
fn every_suite_test_fails_at_least_one_answer() {
    for test in &seed_1().suite {
        assert!(!test.failing.is_empty(), "{} fails no one", test.input);
    }
}

#[test]
fn no_suite_test_is_redundant() {
    let sets = failing_sets(seed_1());
    for (i, set) in sets.iter().enumerate() {
        let others = sets.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, s)| s);
        assert!(!is_redundant(set, others), "{} is redundant", seed_1().suite[i].input);
    }
}

#[test]
fn the_reference_and_the_correct_answer_share_the_top_class() {
    let top = &seed_1().order.classes[0];
    assert_eq!(top.answers, ["reference", "a18"]);
    assert_eq!(top.passed, seed_1().suite.len());
}

#[test]
fn the_answer_that_crashes_on_everything_is_alone_at_the_bottom() {
    let bottom = seed_1().order.classes.last().unwrap();
    assert_eq!(bottom.answers, ["a14"]);
    assert_eq!(bottom.passed, 0);
    let a14 = seed_1().answers.iter().find(|a| a.id == "a14").unwrap();
    assert!(a14.outcomes.values().all(|&k| k == grader::FailureKind::Crash));
}

#[test]
fn every_buggy_answer_fails_something_and_passes_something() {
    for answer in &seed_1().answers {
        match answer.id.as_str() {
            "a18" => assert!(answer.failed.is_empty()),
            "a14" => assert_eq!(answer.passed, 0),
            id => assert!(answer.passed > 0 && !answer.failed.is_empty(), "{id}: {answer:?}"),
        }
    }
}

/// The sets of an input line: `insert 0 [(-2,0)]` has one set of one interval.
fn interval_counts(input: &str) -> Vec<usize> {
    input.split(' ').filter(|w| w.starts_with('[')).map(|set| set.matches('(').count()).collect()
}

#[test]
fn shrunk_tests_are_as_small_as_the_papers() {
    let inputs: Vec<&str> = seed_1().suite.iter().map(|t| t.input.as_str()).collect();
    assert!(inputs.contains(&"member 0 []"), "{inputs:#?}");
    for input in &inputs {
        // Figure 3.1's largest is `merge [(-1,0),(2,3)] [(-1,0)]`: two intervals in a set.
        assert!(interval_counts(input).iter().all(|&n| n <= 2), "{input} is not shrunk: {inputs:#?}");
    }
}

#[test]
fn outcomes_name_how_each_bug_shows() {
    let kinds = |id: &str| seed_1().answers.iter().find(|a| a.id == id).unwrap().outcomes.values().copied().collect::<Vec<_>>();
    use grader::FailureKind::*;
    assert!(kinds("a16").contains(&Timeout), "a16 loops at i32::MAX: {:?}", kinds("a16"));
    assert!(kinds("a07").iter().all(|&k| k == Crash), "a07 panics on delete and merge");
    assert!(kinds("a01").iter().all(|&k| k == Wrong));
}

#[test]
fn cohorts_come_from_the_roster() {
    let cohorts: BTreeMap<&str, &str> = seed_1().answers.iter().map(|a| (a.id.as_str(), a.cohort.as_deref().unwrap())).collect();
    assert_eq!(cohorts["a01"], "quickcheck");
    assert_eq!(cohorts["a02"], "hunit");
}

#[test]
fn ten_seeds_give_the_same_correctness_order() {
    let analyses: Vec<Analysis> = (1..=10).map(|seed| if seed == 1 { seed_1().clone() } else { graded_with_seed(seed) }).collect();
    let s = grader::stability(&analyses);
    // The paper's section 5.1 table, printed for the record (`cargo test -- --nocapture`).
    println!("suite sizes over 10 seeds: {:?}", s.suite_sizes);
    println!("std dev of ranks: average {:.3}, maximum {:.3}", s.average_deviation, s.maximum_deviation);
    assert!(s.order_unchanged, "{:#?}", analyses.iter().map(grader::order_shape).collect::<Vec<_>>());
    assert!(s.maximum_deviation <= 0.15, "ranks vary too much between seeds: {:?}", s.ranks);
    assert!(s.varying_bugs.is_empty(), "bugs found by some seeds only: {:#?}", s.varying_bugs);
}

#[test]
fn the_same_seed_gives_the_same_analysis_byte_for_byte_with_one_thread_or_two() {
    let one = grade(&[("--seed", "3"), ("--threads", "1"), ("--stable-after", "2000")]);
    let two = grade(&[("--seed", "3"), ("--threads", "2"), ("--stable-after", "2000")]);
    assert_eq!(one.files["analysis.json"], two.files["analysis.json"]);
    assert_eq!(one.files["scores.csv"], two.files["scores.csv"]);
    assert_eq!(one.files["order.dot"], two.files["order.dot"]);
}

#[test]
fn scores_csv_has_the_contract_columns_and_a_row_per_answer() {
    let run = grade(&[("--stable-after", "500")]);
    let csv = &run.files["scores.csv"];
    let mut lines = csv.lines();
    // The contract's columns, then the roster's own: its manual grade and its note.
    assert_eq!(lines.next(), Some("id,cohort,passed,failed,suite_size,percent,rank,points,max_points,wrong,crash,timeout,memory,output,manual,note"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), FIXTURE.answers);
    let a14 = rows.iter().find(|r| r[0] == "a14").unwrap();
    assert_eq!((a14[1], a14[2], a14[5]), ("hunit", "0", "0.0"));
    assert_eq!((a14[7], a14[8]), ("0", "100"), "a14 crashes on every input: no points of 100");
    assert_eq!(a14[10], a14[3], "a14 fails every test by a crash");
    assert_eq!(a14[14], "0", "a14's manual grade from the roster");
    assert!(a14[15].contains("crashes on every input"), "the roster's note is kept: {a14:?}");
    for row in &rows {
        let passed: usize = row[2].parse().unwrap();
        let failed: usize = row[3].parse().unwrap();
        assert_eq!(passed + failed, row[4].parse::<usize>().unwrap());
    }
}

#[test]
fn order_dot_draws_every_class_and_edge() {
    let run = grade(&[("--stable-after", "500")]);
    let dot = &run.files["order.dot"];
    let analysis: Analysis = serde_json::from_str(&run.files["analysis.json"]).unwrap();
    assert!(dot.starts_with("digraph correctness {"));
    for class in &analysis.order.classes {
        assert!(dot.contains(&format!("  {} [label=\"", class.id)), "{} missing", class.id);
    }
    for edge in &analysis.order.edges {
        assert!(dot.contains(&format!("  {} -> {} [label=", edge.from, edge.to)));
    }
}

#[test]
fn order_svg_draws_every_class_and_every_covering_edge() {
    let run = grade(&[("--stable-after", "500")]);
    let svg = &run.files["order.svg"];
    let analysis = &run.graded.analysis;
    let layout = present::layout(analysis);
    assert!(svg.starts_with("<svg "), "an SVG document");
    // For screen readers: a title and a description, and a title for each class and arrow.
    assert!(svg.contains("<title id=\"order-title\">Correctness order of interval-sets</title>") && svg.contains("<desc id=\"order-desc\">"));
    assert_eq!(svg.matches("<g><title>").count(), analysis.order.classes.len() + analysis.order.edges.len());
    assert_eq!(layout.nodes.len(), analysis.order.classes.len());
    for (class, node) in analysis.order.classes.iter().zip(&layout.nodes) {
        assert_eq!(node.class, class.id);
        let rect = format!("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"40\"", node.x, node.y, node.width);
        assert!(svg.contains(&rect), "box of {} missing", class.id);
        assert!(svg.contains(&format!(">{}</text>", node.label[0])), "answers of {} not written", class.id);
        assert!(class.answers.iter().take(present::ANSWERS_PER_NODE).all(|a| node.label[0].contains(a.as_str())));
        assert!(svg.contains(&format!("<g><title>{}: {} of", class.answers.join(", "), class.passed)), "{} has no title", class.id);
    }
    assert_eq!(layout.arrows.len(), analysis.order.edges.len());
    for (edge, arrow) in analysis.order.edges.iter().zip(&layout.arrows) {
        let points: String = arrow.points.iter().map(|(x, y)| format!("{x},{y} ")).collect();
        assert!(svg.contains(&format!("points=\"{points}\"")), "edge {} -> {} missing", edge.from, edge.to);
        assert!(arrow.label.starts_with(&edge.witness), "the arrow's key is its witness test: {}", arrow.label);
        let node = |id: &str| layout.nodes.iter().find(|n| n.class == id).unwrap();
        let ends = (arrow.points[0], *arrow.points.last().unwrap());
        assert_eq!(ends, (node(&edge.from).bottom(), node(&edge.to).top()));
        assert!(node(&edge.from).y < node(&edge.to).y, "better classes are drawn higher");
    }
}

#[test]
fn report_html_holds_the_ranking_the_suite_the_diagram_and_the_cohorts() {
    let run = grade(&[("--stable-after", "500")]);
    let html = &run.files["report.html"];
    assert!(html.starts_with("<!DOCTYPE html>"));
    for answer in &run.graded.analysis.answers {
        assert!(html.contains(&format!("</td><td>{}</td><td>", answer.id)), "{} missing from the ranking", answer.id);
    }
    assert!(html.contains("<h2>Correctness order</h2>\n<svg"));
    assert!(html.contains("<caption>The correctness order as a table</caption>"), "the order as a table too");
    for class in &run.graded.analysis.order.classes {
        assert!(html.contains(&format!("<tr><td>{}</td><td>{}</td>", class.id, class.answers.join(", "))), "{} missing from the table", class.id);
    }
    assert!(html.contains("<h2>Cohorts</h2>") && html.contains("Hedges"), "the roster has two cohorts");
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "self-contained");
}

#[test]
fn grading_against_a_previous_suite_moves_only_the_resubmitted_answers_grade() {
    let first = grade(&[("--stable-after", "500")]);
    let dir = tempfile::tempdir().unwrap();
    let previous = dir.path().join("analysis.json");
    std::fs::write(&previous, &first.files["analysis.json"]).unwrap();
    // a01 hands in a18's correct module late.
    let submissions = dir.path().join("submissions");
    std::fs::create_dir(&submissions).unwrap();
    for entry in std::fs::read_dir(end_to_end::problem_dir().join("submissions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wasm") {
            std::fs::copy(&path, submissions.join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(submissions.join("a18.wasm"), submissions.join("a01.wasm")).unwrap();
    let (submissions, previous) = (submissions.display().to_string(), previous.display().to_string());
    let second = grade(&[("--submissions", &submissions), ("--suite-from", &previous), ("--seed", "2")]).graded.analysis;

    let before = &first.graded.analysis;
    let ids = |a: &Analysis| a.suite.iter().map(|t| (t.id.clone(), t.input.clone())).collect::<Vec<_>>();
    assert_eq!(ids(&second), ids(before), "the same tests under the same ids");
    for (old, new) in before.answers.iter().zip(&second.answers) {
        if old.id != "a01" {
            assert_eq!((old.passed, old.percent, &old.failed), (new.passed, new.percent, &new.failed), "{}", old.id);
        }
    }
    let a01 = second.answers.iter().find(|a| a.id == "a01").unwrap();
    assert_eq!(a01.percent, 100.0);
    assert_eq!(second.rerun.as_ref().unwrap().changed, ["a01"]);
}

/// Points on the fixed scale are the program's alone: each of these hand-ins, graded with
/// just one classmate (and another seed, and a short search), keeps the points it has in
/// the class of 19. The suite's score moves (the class makes the suite); the points may not.
#[test]
fn a_hand_in_graded_with_one_classmate_keeps_the_points_it_has_in_the_whole_class() {
    let class = seed_1();
    let points = |analysis: &Analysis, id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap().points.clone().unwrap();
    // The correct one, one that crashes on everything, and three with one bug each.
    for (id, classmate) in [("a18", "a14"), ("a01", "a18"), ("a05", "a06"), ("a16", "a02")] {
        let pair = tempfile::tempdir().unwrap();
        for file in [id, classmate] {
            let name = format!("{file}.wasm");
            std::fs::copy(end_to_end::problem_dir().join("submissions").join(&name), pair.path().join(&name)).unwrap();
        }
        let run = end_to_end::grade_without_roster(&[("--submissions", &pair.path().display().to_string()), ("--seed", "7"), ("--stable-after", "300")]);
        let alone = points(&run.graded.analysis, id);
        assert_eq!(alone, points(class, id), "{id} with {classmate} alone");
    }
    let (correct, crashes) = (points(class, "a18"), points(class, "a14"));
    assert_eq!((correct.points, correct.failed), (100.0, 0), "no failure: full points");
    assert_eq!((crashes.points, crashes.every_input), (0.0, Some(grader::FailureKind::Crash)), "fails every input one way");
    let one_bug = points(class, "a01");
    assert!(one_bug.points > 0.0 && one_bug.points <= 90.0, "a bug costs at least a tenth: {one_bug:?}");
}

/// An instructor's adjustment (the roster's `adjustment` and `adjustment_reason`) moves
/// the student's points in scores.csv and the gradebooks, kept between 0 and the maximum,
/// and the student reads the reason in the feedback; the analysis itself keeps the points
/// the program earned.
#[test]
fn an_adjustment_in_the_roster_moves_the_points_within_the_scale_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    std::fs::write(
        &roster,
        "id,cohort,adjustment,adjustment_reason\na01,quickcheck,5,the statement did not say intervals may touch\na14,hunit,-3,copied\na18,quickcheck,10,bonus\n",
    )
    .unwrap();
    let run = grade(&[("--roster", &roster.display().to_string()), ("--stable-after", "300")]);
    let earned = |id: &str| run.graded.analysis.answers.iter().find(|a| a.id == id).unwrap().points.clone().unwrap().points;
    let scores: BTreeMap<String, String> = run.files["scores.csv"]
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[0].to_owned(), cells[7].to_owned())
        })
        .collect();
    let expected_a01 = ((earned("a01") + 5.0) * 100.0).round() / 100.0;
    assert_eq!(scores["a01"], expected_a01.to_string());
    assert_eq!((scores["a14"].as_str(), scores["a18"].as_str()), ("0", "100"), "kept within 0 and 100");
    assert_eq!(scores["a02"], earned("a02").to_string(), "no adjustment, the points earned");
    let moodle = String::from_utf8(course::exports::moodle_csv(&run.graded.analysis, &run.graded.roster, "A1", NoHandIn::Zero).unwrap()).unwrap();
    let a01 = moodle.lines().find(|l| l.starts_with("a01,")).unwrap();
    assert!(a01.starts_with(&format!("a01,,{expected_a01},")), "{a01}");
    assert!(a01.contains("The instructor adjusted your points by +5: the statement did not say intervals may touch. That makes"), "{a01}");
}

/// A student on the roster who handed in nothing is part of the class: every export lists
/// them, with 0 points (adjusted, as any grade) by default or an empty cell when the
/// instructor chooses, and no answer of theirs enters the analysis.
#[test]
fn a_student_on_the_roster_with_no_hand_in_gets_the_instructors_choice_in_every_export() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    let mut rows = std::fs::read_to_string(end_to_end::problem_dir().join("roster.csv")).unwrap();
    let header = rows.lines().next().unwrap().to_owned();
    assert!(header.starts_with("id,cohort"), "{header}");
    rows.push_str("z90,hunit,,\nz91,quickcheck,,\n");
    std::fs::write(&roster, &rows).unwrap();
    let check = |choice: &str, cell: &str| {
        let run = grade(&[("--roster", &roster.display().to_string()), ("--stable-after", "300"), ("--no-hand-in", choice)]);
        assert!(run.graded.analysis.answers.iter().all(|a| !a.id.starts_with('z')), "nobody's answer is graded for them");
        assert!(
            run.graded.warnings.iter().any(|w| w == "roster row `z90` has no submission"),
            "{:?} {:?}",
            run.graded.warnings,
            run.graded.roster.iter().map(|r| &r.id).collect::<Vec<_>>()
        );
        let scores = &run.files["scores.csv"];
        let header: Vec<&str> = scores.lines().next().unwrap().split(',').collect();
        let column = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name} in {header:?}"));
        let row = |id: &str| -> Vec<String> { scores.lines().find(|l| l.starts_with(&format!("{id},"))).unwrap().split(',').map(str::to_owned).collect() };
        for (id, cohort) in [("z90", "hunit"), ("z91", "quickcheck")] {
            let z = row(id);
            assert_eq!((z[column("cohort")].as_str(), z[column("points")].as_str(), z[column("handed_in")].as_str()), (cohort, cell, "no"), "{z:?}");
            assert_eq!((z[column("passed")].as_str(), z[column("rank")].as_str(), z[column("max_points")].as_str()), ("", "", "100"), "{z:?}");
        }
        assert_eq!(row("a01")[column("handed_in")], "yes");
        let canvas = String::from_utf8(course::exports::canvas_csv(&run.graded.analysis, &run.graded.roster, "A1", run.graded.no_hand_in).unwrap()).unwrap();
        assert!(canvas.lines().any(|l| l == format!("z90,,,,,{cell}")), "{canvas}");
        let moodle = String::from_utf8(course::exports::moodle_csv(&run.graded.analysis, &run.graded.roster, "A1", run.graded.no_hand_in).unwrap()).unwrap();
        let z91 = moodle.lines().find(|l| l.starts_with("z91,")).unwrap();
        assert!(z91.starts_with(&format!("z91,,{cell},No hand-in of yours was graded for A1")), "{z91}");
        assert!(course::exports::canvas_unmatched(&run.graded.analysis, &run.graded.roster).contains(&"z90".to_owned()), "Canvas cannot match them either");
    };
    check("zero", "0");
    check("empty", "");
}

/// A class whose roster is Canvas's own gradebook export goes back to Canvas: the Canvas
/// file bugrank writes, read again as a roster, names the same students with the same
/// Canvas ids, names, SIS ids and sections, and carries each one's points.
#[test]
fn a_canvas_gradebook_export_as_the_roster_round_trips_through_the_canvas_file() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("gradebook.csv");
    let mut export = String::from("Student,ID,SIS User ID,SIS Login ID,Section,Assignment 1 (5501)\n\"    Points Possible\",,,,,100\n");
    for n in 1..=19 {
        let section = if n % 2 == 0 { "Tuesday" } else { "Thursday" };
        export.push_str(&format!("\"Student{n:02}, Ada\",a{n:02},S{n:04},ada{n},{section},\n"));
    }
    std::fs::write(&roster, &export).unwrap();
    let run = grade(&[("--roster", &roster.display().to_string()), ("--stable-after", "300")]);
    assert!(run.graded.warnings.is_empty(), "every hand-in is on the roster by its Canvas id: {:?}", run.graded.warnings);
    let canvas = course::exports::canvas_csv(&run.graded.analysis, &run.graded.roster, "Assignment 1", NoHandIn::Zero).unwrap();
    // Read back as Canvas would give it, byte-order mark and all.
    let (back, rejected) = course::roster::parse_roster("canvas.csv", canvas.as_slice()).unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    let identities = |rows: &[course::roster::RosterRow]| -> Vec<(String, String, String, String)> {
        let mut ids: Vec<_> =
            rows.iter().map(|r| (r.id.clone(), r.get("Student").unwrap().to_owned(), r.get("SIS User ID").unwrap().to_owned(), r.cohort.clone())).collect();
        ids.sort();
        ids
    };
    assert_eq!(identities(&back), identities(&run.graded.roster));
    for row in &back {
        let answer = run.graded.analysis.answers.iter().find(|a| a.id == row.id).unwrap();
        assert_eq!(row.get("Assignment 1").unwrap(), answer.points.as_ref().unwrap().points.to_string(), "{}", row.id);
    }
}

#[test]
fn the_python_cohort_is_graded_to_the_same_suite_ranking_and_points_as_the_module_cohort() {
    // The cohort written in Python (`submissions-python/`, the same bugs as the modules'),
    // run by bugrank's CPython with budgets from `reference.py`.
    let graded = |folder: &str| {
        let submissions = end_to_end::problem_dir().join(folder).display().to_string();
        grade(&[("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "500")]).graded.analysis
    };
    let (modules, python) = (graded("submissions"), graded("submissions-python"));
    assert!(python.answers.iter().all(|a| a.build.as_ref().is_some_and(|b| b.language == "Python" && b.error.is_none())), "every answer is a Python program");
    assert!(modules.suite.len() >= 10, "a suite worth comparing: {}", modules.suite.len());
    assert_eq!(verdicts(&python), verdicts(&modules));
    assert_eq!(python.order.classes, modules.order.classes, "the same partial order");
}
