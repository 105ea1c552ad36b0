//! A student's bug list: what they failed, generalized, with a close input they pass.

use end_to_end::{grade, parse_args, problem_dir, tools};
use grader::ANY;
use web::cli::bugs::{BugsArgs, run_bugs};

fn bug_lists(analysis_json: &str, answer: Option<&str>) -> Vec<grader::BugList> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("analysis.json");
    std::fs::write(&path, analysis_json).unwrap();
    let mut argv = vec![
        "bugs".to_owned(),
        "--problem".into(),
        problem_dir().display().to_string(),
        "--submissions".into(),
        problem_dir().join("submissions").display().to_string(),
        "--analysis".into(),
        path.display().to_string(),
    ];
    if let Some(answer) = answer {
        argv.extend(["--answer".to_owned(), answer.to_owned()]);
    }
    run_bugs(tools(), &parse_args::<BugsArgs, _>(&argv)).unwrap()
}

#[test]
fn a_bug_list_shows_the_failed_tests_with_a_generalization_and_a_contrasting_example() {
    let run = grade(&[("--seed", "1")]);
    let lists = bug_lists(&run.files["analysis.json"], Some("a01"));
    let list = &lists[0];
    let a01 = run.graded.analysis.answers.iter().find(|a| a.id == "a01").unwrap();
    assert_eq!(list.bugs.len(), a01.failed.len());
    assert_eq!(list.passed, a01.passed);
    let bug = &list.bugs[0];
    assert_eq!(bug.got.kind, grader::FailureKind::Wrong);
    assert_ne!(bug.got.detail, bug.expected, "it shows what the program printed");
    let general = bug.generalized.as_deref().expect("a01's touching-intervals bug does not depend on every number");
    assert!(general.contains(ANY), "{general}");
    let contrast = bug.contrast.as_ref().expect("a close input that a01 gets right");
    assert_ne!(contrast.input, bug.input);
}

#[test]
fn no_bug_list_names_another_answer() {
    let run = grade(&[("--stable-after", "1000")]);
    let ids: Vec<String> = run.graded.analysis.answers.iter().map(|a| a.id.clone()).collect();
    for list in bug_lists(&run.files["analysis.json"], None) {
        let text = serde_json::to_string(&list).unwrap() + &present::bug_list_markdown(&list);
        for other in ids.iter().filter(|id| **id != list.answer) {
            assert!(!text.contains(other.as_str()), "{}'s bug list mentions {other}", list.answer);
        }
    }
}

#[test]
fn a_timeout_in_a_bug_list_says_in_plain_words_whether_more_time_would_have_helped() {
    let run = grade(&[("--seed", "1")]);
    let lists = bug_lists(&run.files["analysis.json"], Some("a16"));
    let timeout = lists[0].bugs.iter().find(|b| b.got.kind == grader::FailureKind::Timeout).expect("a16 loops at i32::MAX");
    let detail = &timeout.got.detail;
    assert!(detail.starts_with("ran out of time; the limit here is "), "{detail}");
    assert!(detail.contains("it still does not finish"), "{detail}");
    assert!(detail.contains("an endless loop"), "{detail}");
    assert!(!detail.contains("fuel"), "no fuel jargon for a student: {detail}");
}
