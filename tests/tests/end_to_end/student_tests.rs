//! `bugrank grade-tests`: students' own test suites, one point per submission they catch.

use end_to_end::{parse_args, problem_dir, tools};
use web::cli::grade_tests::{GradeTestsArgs, run_grade_tests};

#[test]
fn each_suite_scores_a_point_per_submission_it_finds_a_bug_in() {
    let dir = |d: &str| problem_dir().join(d).display().to_string();
    let argv = ["grade-tests", "--problem", &dir(""), "--submissions", &dir("submissions"), "--tests", &dir("student-tests")];
    let scores = run_grade_tests(tools(), &parse_args::<GradeTestsArgs, _>(&argv)).unwrap();
    let students: Vec<&str> = scores.iter().map(|s| s.student.as_str()).collect();
    assert_eq!(students, ["a01", "a02", "a03", "a04"]);
    for s in &scores {
        assert_eq!(s.score, s.found_bugs_in.len());
        assert!(!s.found_bugs_in.contains(&"a18".to_string()), "a18 is correct: no valid test fails it");
        assert!(s.found_bugs_in.contains(&"a14".to_string()) || s.tests == 0, "{}: everything fails a14", s.student);
    }
    assert_eq!((scores[1].tests, scores[1].score), (0, 0), "no tests, no points");
    // The paper's Figure 3.1 suite catches delete's absence and the crashing answer.
    assert!(scores[2].found_bugs_in.contains(&"a07".to_string()));
    assert!(scores[2].invalid.is_empty());
    let invalid = &scores[3].invalid;
    assert_eq!(invalid.len(), 1);
    assert_eq!(invalid[0].name, "member");
    assert_eq!(invalid[0].reason, "expects \"true\\n\", but the model answer gives \"false\\n\"");
}
