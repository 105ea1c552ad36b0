//! The three fixture problems against their specifications (shared/problems/*.md): the
//! references reproduce every example, and the cryptarithm checker accepts exactly the
//! valid solutions.

use course::problem_dir::ProblemDir;
use end_to_end::{root, sandbox, tools};
use grader::{CheckerVerdict, Executor, RunOutcome};

fn problem(name: &str) -> ProblemDir {
    ProblemDir::load(sandbox(), &end_to_end::tools().builder, &root().join("fixtures/problems").join(name)).unwrap()
}

/// Runs the reference on each example input and compares with the expected output.
fn check_examples(name: &str, examples: &[(&str, &str)], trim: bool) {
    let problem = problem(name);
    let executor = problem.executor(sandbox(), []);
    for (input, expected) in examples {
        let run = executor.run(0, input.as_bytes(), 1_000_000_000);
        assert_eq!(run.outcome, RunOutcome::Success, "{name}: {input:?}");
        let output = String::from_utf8(run.stdout).unwrap();
        let output = if trim { output.trim_end() } else { output.as_str() };
        assert_eq!(output, *expected, "{name}: {input:?}");
    }
}

#[test]
fn the_interval_sets_reference_gives_the_specifications_examples() {
    check_examples(
        "interval-sets",
        &[
            ("empty", "[]"),
            ("member 0 [(-2,2)]", "true"),
            ("member 2 [(1,1)]", "false"),
            ("insert 2 [(0,0)]", "[(0,0),(2,2)]"),
            ("insert 1 [(0,0),(2,2)]", "[(0,2)]"),
            ("insert -1 [(1,1)]", "[(-1,-1),(1,1)]"),
            ("delete 0 [(-1,1)]", "[(-1,-1),(1,1)]"),
            ("delete 0 []", "[]"),
            ("merge [(-1,0),(2,3)] [(1,1)]", "[(-1,3)]"),
            ("insert 2147483647 [(2147483646,2147483646)]", "[(2147483646,2147483647)]"),
        ],
        true,
    );
}

#[test]
fn the_anonymizer_reference_gives_the_specifications_examples_byte_for_byte() {
    check_examples(
        "anonymizer",
        &[
            ("pelle@foretag.se", "p____@f______.s_"),
            ("Hi johnny.cash@music.org!", "Hi j_____.c___@m____.o__!"),
            ("mail me: ann+1@x-y.org.", "mail me: a____@x__.o__."),
            ("a@b@c.de", "a@b@c.de"),
            ("@", "@"),
            ("ab@", "a_@"),
            ("", ""),
            ("two\nlines\n", "two\nlines\n"),
        ],
        false,
    );
}

#[test]
fn the_cryptarithm_reference_gives_the_specifications_unique_answers() {
    check_examples(
        "cryptarithm",
        &[("a+a=a", "a=0"), ("a+b=ab", "no solution"), ("aa+a=bac", "no solution"), ("send+more=money", "d=7 e=5 m=1 n=6 o=0 r=8 s=9 y=2")],
        true,
    );
}

fn check_verdicts(input: &str, reference: &str, answers: &[(&str, bool)]) {
    let problem = problem("cryptarithm");
    let executor = problem.executor(sandbox(), []);
    for (answer, valid) in answers {
        let verdict = executor.check(input.as_bytes(), reference.as_bytes(), answer.as_bytes());
        match (verdict, valid) {
            (Ok(CheckerVerdict::Accept), true) => {}
            (Ok(CheckerVerdict::Reject(reason)), false) => assert!(!reason.is_empty(), "{input}: {answer:?} needs a reason"),
            (verdict, _) => panic!("{input}: answer {answer:?} (valid: {valid}) got {verdict:?}"),
        }
    }
}

#[test]
fn the_checker_accepts_every_valid_solution_of_b_plus_b_equals_c() {
    // b + b = c with distinct digits: b = 1..4 (b = 0 would make c = 0 too).
    let all = (1..=4).map(|b| format!("b={b} c={}\n", 2 * b)).collect::<Vec<_>>();
    let answers: Vec<(&str, bool)> = all.iter().map(|a| (a.as_str(), true)).collect();
    check_verdicts("b+b=c", "b=1 c=2\n", &answers);
}

#[test]
fn the_checker_rejects_invalid_and_malformed_answers_with_a_reason() {
    check_verdicts(
        "b+b=c",
        "b=1 c=2\n",
        &[
            ("b=5 c=0\n", false),     // 5 + 5 = 10, not 0
            ("b=0 c=0\n", false),     // digits not distinct
            ("c=2 b=1\n", false),     // not in alphabetical order
            ("b=1\n", false),         // a letter without a digit
            ("b=1 c=2 d=3\n", false), // a letter that does not occur
            ("b = 1 c = 2\n", false), // wrong format
            ("no solution\n", false), // there is one
            ("\n", false),
            ("b=1 c=2", true), // a missing final newline is fine
        ],
    );
    // 05 + 5 = 10 holds, but `ab` may not start with 0.
    check_verdicts("ab+b=ca", "a=2 b=6 c=3\n", &[("a=0 b=5 c=1\n", false), ("a=2 b=6 c=3\n", true)]);
    check_verdicts("a+b=ab", "no solution\n", &[("no solution\n", true), ("a=1 b=0\n", false), ("\n", false)]);
}

#[test]
fn a_reference_output_that_is_no_solution_is_a_problem_error_not_a_verdict() {
    let problem = problem("cryptarithm");
    let executor = problem.executor(sandbox(), []);
    let verdict = executor.check(b"ab+b=ca", b"a=1 b=5 c=2\n", b"a=2 b=6 c=3\n");
    let error = verdict.unwrap_err();
    assert!(error.contains("the reference's output is not a solution"), "{error}");
}

/// Paper III section 5.1 on the anonymizer cohort, whose bugs hide each other unless a
/// character recurs (`_@__0`: a segment starting with the blank `_` hides the
/// first-character bug): every seed must find the same suite.
#[test]
fn the_anonymizer_cohort_gets_the_same_suite_and_ranks_for_ten_seeds() {
    let dir = root().join("fixtures/problems/anonymizer");
    let args = web::cli::stability::StabilityArgs { problem: dir.clone(), submissions: dir.join("submissions"), runs: 10, first_seed: 1, stable_after: None };
    let s = web::cli::stability::run_stability(tools(), &args).unwrap();
    assert!(s.order_unchanged);
    assert_eq!(s.suite_sizes.len(), 1, "suite sizes {:?}", s.suite_sizes);
    assert!(s.maximum_deviation <= 0.15, "ranks vary between seeds: {:?}", s.ranks);
    assert!(s.varying_bugs.is_empty(), "bugs found by some seeds only: {:#?}", s.varying_bugs);
}

/// The cryptarithm problem with its checker written in Python (`tests/data/`), in a
/// temporary directory: the compiled reference and generator, `checker.py` in place of
/// `checker.wasm`.
fn cryptarithm_with_python_checker() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = root().join("fixtures/problems/cryptarithm");
    for file in ["problem.toml", "statement.md", "reference.wasm", "generator.wasm"] {
        std::fs::copy(from.join(file), dir.path().join(file)).unwrap();
    }
    std::fs::copy(root().join("tests/data/cryptarithm_checker.py"), dir.path().join("checker.py")).unwrap();
    dir
}

#[test]
fn a_checker_written_in_python_gives_the_compiled_checkers_verdicts_and_reasons() {
    let python = cryptarithm_with_python_checker();
    let python = ProblemDir::load(sandbox(), &tools().builder, python.path()).unwrap();
    assert!(python.checker.as_ref().is_some_and(|c| c.interpreter().is_some()), "checker.py is run by CPython");
    let compiled = problem("cryptarithm");
    let (python, compiled) = (python.executor(sandbox(), []), compiled.executor(sandbox(), []));
    let long = format!("a={}", "9".repeat(60));
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "b+b=c",
            "b=1 c=2\n",
            &[
                "b=3 c=6\n",
                "b=5 c=0\n",
                "b=0 c=0\n",
                "c=2 b=1\n",
                "b=1\n",
                "b=1 c=2 d=3\n",
                "b = 1 c = 2\n",
                "no solution\n",
                "\n",
                "",
                "b=1 c=2",
                "b=1 b=2\n",
                "b=1\nc=2\n",
            ],
        ),
        ("ab+b=ca", "a=2 b=6 c=3\n", &["a=0 b=5 c=1\n", "a=2 b=6 c=3\n", "a=1 b=5 c=2\n"]),
        ("a+b=ab", "no solution\n", &["no solution\n", "a=1 b=0\n", "a=1 b=2\n", "\n"]),
        ("send+more=money", "d=7 e=5 m=1 n=6 o=0 r=8 s=9 y=2\n", &["d=7 e=5 m=1 n=6 o=0 r=8 s=9 y=2", "d=1 e=5 m=7 n=6 o=0 r=8 s=9 y=2\n"]),
        // Reasons quote malformed outputs as Rust's `{:?}` does: escapes, quotes, cut at 40.
        ("b+b=c", "b=1 c=2\n", &["b=1\tc=2\x01\n", "say \"b=1\" \\ c=2 'ok'\n", "b=1 c=2 é\n", &long]),
    ];
    let mut compared = 0;
    for (input, reference, answers) in cases {
        for answer in *answers {
            let (input, reference, answer) = (input.as_bytes(), reference.as_bytes(), answer.as_bytes());
            assert_eq!(python.check(input, reference, answer), compiled.check(input, reference, answer), "{answer:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, 26);
    // The problem's own faults stay problem errors.
    let error = python.check(b"ab+b=ca", b"a=1 b=5 c=2\n", b"a=2 b=6 c=3\n").unwrap_err();
    assert!(error.contains("the reference's output is not a solution"), "{error}");
}

#[test]
fn the_cryptarithm_cohort_judged_by_a_python_checker_gets_the_compiled_checkers_suite_and_ranking() {
    let python = cryptarithm_with_python_checker();
    // The cohort's answers whose outputs are wrong (what the checker judges), not those
    // that crash or run out of time (runs no checker sees, and most of the analysis's).
    let submissions = python.path().join("submissions");
    std::fs::create_dir(&submissions).unwrap();
    for answer in ["a01", "a02", "a04", "a06", "a08", "a10", "a13", "a16", "a17", "a18"] {
        let module = format!("{answer}.wasm");
        std::fs::copy(root().join("fixtures/problems/cryptarithm/submissions").join(&module), submissions.join(&module)).unwrap();
    }
    let graded = |problem: &std::path::Path| {
        let (problem, submissions) = (problem.display().to_string(), submissions.display().to_string());
        end_to_end::grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "300")])
            .graded
            .analysis
    };
    let (compiled, python) = (graded(&root().join("fixtures/problems/cryptarithm")), graded(python.path()));
    assert!(compiled.suite.len() >= 8, "a suite worth comparing: {}", compiled.suite.len());
    assert_eq!(end_to_end::verdicts(&python), end_to_end::verdicts(&compiled));
    assert_eq!(python.order.classes, compiled.order.classes, "the same partial order");
}
