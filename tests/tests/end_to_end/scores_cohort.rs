//! A slice of the real-class-like cohort `fixtures/cohorts/scores` (first-year C, each
//! version's bugs written down in `bugs.csv`), graded from its sources: what bugrank infers
//! must agree with the bugs the versions were written with.

use std::collections::BTreeMap;
use std::path::PathBuf;

use end_to_end::{can_build, grade_without_roster, root};
use grader::AnswerResult;
use toolchain::Language;

/// The versions graded: four correct ones written differently (v018 ends its lines with a
/// space, which the statement allows), one or two of each common bug, and versions with
/// two or three bugs at once.
const SLICE: [&str; 16] = ["v001", "v002", "v003", "v004", "v005", "v006", "v008", "v009", "v011", "v015", "v016", "v018", "v024", "v027", "v028", "v029"];

/// Bugs that are undefined behaviour: a version with only these may pass every input (the
/// cohort's `check.sh` says the same of its native runs).
const UNDEFINED: [&str; 3] = ["arr100", "sum_uninit", "max_uninit"];

fn cohort() -> PathBuf {
    root().join("fixtures/cohorts/scores")
}

/// `bugs.csv`: each version's bugs (none for a correct version).
fn bugs() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(cohort().join("bugs.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let (version, bugs) = line.split_once(',').unwrap();
            (version.to_owned(), bugs.split(';').filter(|b| !b.is_empty()).map(str::to_owned).collect())
        })
        .collect()
}

/// The slice's analysis with seed 1, every answer's result by version.
fn graded() -> BTreeMap<String, AnswerResult> {
    let dir = tempfile::tempdir().unwrap();
    for version in SLICE {
        let name = format!("{version}.c");
        std::fs::copy(cohort().join("submissions").join(&name), dir.path().join(&name)).unwrap();
    }
    let (problem, submissions) = (cohort().display().to_string(), dir.path().display().to_string());
    let options = [("--problem", problem.as_str()), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "2000")];
    let analysis = grade_without_roster(&options).graded.analysis;
    analysis.answers.into_iter().map(|a| (a.id.clone(), a)).collect()
}

#[test]
fn a_slice_of_a_first_year_class_is_graded_as_its_bugs_say() {
    if !can_build(&[Language::C]) {
        return;
    }
    let (bugs, graded) = (bugs(), graded());
    for version in SLICE {
        let (bugs, result) = (&bugs[version], &graded[version]);
        assert!(result.build.as_ref().is_some_and(|b| b.error.is_none()), "{version} compiles: {:?}", result.build);
        if bugs.is_empty() {
            assert!(result.failed.is_empty(), "{version} is correct, yet fails {:?}", result.failed);
            let points = result.points.as_ref().expect("points");
            assert_eq!(points.points, points.max, "{version} is correct: full points");
        } else if bugs.iter().any(|b| !UNDEFINED.contains(&b.as_str())) {
            assert!(!result.failed.is_empty(), "{version} has {bugs:?}, yet fails no test");
            let points = result.points.as_ref().expect("points");
            assert!(points.points < points.max, "{version} has {bugs:?}, yet has full points");
        }
    }
    // Versions written with the same one bug differ from the reference on the same inputs
    // (`> 50` where `>= 50` is meant: inputs holding a 50; N = 0 unhandled: the empty list).
    for (one, other) in [("v016", "v027"), ("v006", "v029")] {
        assert_eq!(bugs[one], bugs[other]);
        assert_eq!(graded[one].failed, graded[other].failed, "{one} and {other} have the same bug {:?}", bugs[one]);
    }
    // A version with a bug and two more fails every test the bug alone fails, and more.
    let (alone, more) = (&graded["v006"].failed, &graded["v028"].failed);
    assert!(alone.iter().all(|t| more.contains(t)) && more.len() > alone.len(), "v006 {alone:?}, v028 {more:?}");
}
