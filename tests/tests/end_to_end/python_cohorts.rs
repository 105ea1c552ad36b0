//! Slices of the function-level Python classes `fixtures/cohorts/search` and
//! `fixtures/cohorts/dedup` (first-year hand-ins, each one's bugs written down in
//! `bugs.csv`), and of the search class translated to C (`fixtures/cohorts/search-c`),
//! graded as bugrank grades them: what it infers must agree with the bugs the hand-ins
//! were written with, and copies of one another fail the same tests.

use std::collections::BTreeMap;
use std::path::PathBuf;

use end_to_end::{grade_without_roster, root};
use grader::AnswerResult;

/// A hand-in's row of `bugs.csv`.
struct Written {
    bugs: String,
    /// Whether a bug changes the judged output (a wrong answer, a crash, a timeout, a build
    /// refusal); a style rule broken (`uses_sorted`) does not.
    output_bug: bool,
    copy_of: Option<String>,
}

fn cohort(name: &str) -> PathBuf {
    root().join("fixtures/cohorts").join(name)
}

fn written(name: &str) -> BTreeMap<String, Written> {
    let mut reader = csv::Reader::from_path(cohort(name).join("bugs.csv")).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            let written = Written { bugs: record[1].to_owned(), output_bug: &record[2] == "1", copy_of: Some(record[3].to_owned()).filter(|c| !c.is_empty()) };
            (record[0].to_owned(), written)
        })
        .collect()
}

/// Grades `ids` of the cohort `name` (seed 1): each answer's result by id.
fn graded(name: &str, ids: &[&str]) -> BTreeMap<String, AnswerResult> {
    let dir = tempfile::tempdir().unwrap();
    let extension = if name.ends_with("-c") { "c" } else { "py" };
    for id in ids {
        std::fs::copy(cohort(name).join("submissions").join(format!("{id}.{extension}")), dir.path().join(format!("{id}.{extension}"))).unwrap();
    }
    let (problem, submissions) = (cohort(name).display().to_string(), dir.path().display().to_string());
    let options = [("--problem", problem.as_str()), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "500")];
    grade_without_roster(&options).graded.analysis.answers.into_iter().map(|a| (a.id.clone(), a)).collect()
}

/// Every 12th hand-in, and every copy among them with its original: correct ones written
/// differently, style rules broken, most kinds of bug, build refusals.
fn check(name: &str) {
    let written = written(name);
    let mut ids: Vec<&str> = written.keys().map(String::as_str).step_by(12).collect();
    let copies: Vec<(&str, &str)> = written.iter().filter_map(|(id, w)| Some((id.as_str(), w.copy_of.as_deref()?))).take(3).collect();
    for (copy, original) in &copies {
        ids.extend([*copy, *original]);
    }
    ids.sort();
    ids.dedup();
    let graded = graded(name, &ids);
    for id in &ids {
        let (w, result) = (&written[*id], &graded[*id]);
        let not_built = result.build.as_ref().is_some_and(|b| b.error.is_some());
        if w.output_bug {
            assert!(!result.failed.is_empty() || not_built, "{name}/{id} has {}, yet fails no test", w.bugs);
            let points = result.points.as_ref().expect("points");
            assert!(points.points < points.max, "{name}/{id} has {}, yet has full points", w.bugs);
        } else {
            assert!(!not_built && result.failed.is_empty(), "{name}/{id} is right by its output ({}), yet fails {:?} {:?}", w.bugs, result.failed, result.build);
            let points = result.points.as_ref().expect("points");
            assert_eq!(points.points, points.max, "{name}/{id} is right by its output: full points");
        }
    }
    for (copy, original) in copies {
        assert_eq!(graded[copy].failed, graded[original].failed, "{name}: {copy} is a copy of {original}");
    }
}

#[test]
fn a_slice_of_a_python_class_searching_a_sorted_sequence_is_graded_as_its_bugs_say() {
    check("search");
}

#[test]
fn a_slice_of_a_python_class_removing_duplicates_is_graded_as_its_bugs_say() {
    check("dedup");
}

#[test]
fn a_slice_of_the_search_class_translated_to_c_is_graded_as_its_bugs_say() {
    if !end_to_end::can_build(&[toolchain::Language::C]) {
        return;
    }
    check("search-c");
}

#[test]
fn a_resubmission_that_differs_only_in_comments_runs_as_the_first_and_keeps_its_own_messages() {
    // s010 is s006 with its comments taken out (bugs.csv): the same code, other lines.
    let grade = |ids: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        for id in ids {
            std::fs::copy(cohort("search").join("submissions").join(format!("{id}.py")), dir.path().join(format!("{id}.py"))).unwrap();
        }
        let (problem, submissions) = (cohort("search").display().to_string(), dir.path().display().to_string());
        grade_without_roster(&[("--problem", problem.as_str()), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "200")]).graded
    };
    let (alone, both) = (grade(&["s006"]), grade(&["s006", "s010"]));
    assert_eq!(both.copies, 1);
    assert_eq!(both.analysis.executions, alone.analysis.executions, "the copy adds no run to the search");
    assert_eq!(both.analysis.suite.len(), alone.analysis.suite.len());
    let row = |id: &str| both.analysis.answers.iter().find(|a| a.id == id).unwrap().clone();
    let (original, copy) = (row("s006"), row("s010"));
    assert!(!original.failed.is_empty());
    assert_eq!((&copy.failed, &copy.outcomes, &copy.points), (&original.failed, &original.outcomes, &original.points));
    // Its crashes are told by its own program: its file, its lines, never the other's.
    let messages = |row: &AnswerResult| row.failures.values().filter_map(|f| f.failure.reason.clone()).collect::<Vec<_>>().join("\n");
    let (said_original, said_copy) = (messages(&original), messages(&copy));
    assert!(said_copy.contains("s010.py") && !said_copy.contains("s006.py"), "{said_copy}");
    assert!(said_original.contains("s006.py") && !said_original.contains("s010.py"), "{said_original}");
    assert_ne!(said_copy, said_original.replace("s006.py", "s010.py"), "the copy's lines are its own (one comment line less)");
}
