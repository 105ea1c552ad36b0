//! `bugrank import`: a judge's problem package (the Kattis / ICPC format) becomes a problem
//! that checks at once, whose tests are the course's and whose submissions are examples
//! checked for the judge's verdicts. The package, `fixtures/packages/average`, was written
//! by hand in the package format: the average of N integers, within 10^-6, with C, C++,
//! Python and Java submissions as judges get them (`<bits/stdc++.h>`, `scanf`, `input()`).

use std::path::{Path, PathBuf};

use course::import::{LEAST_TIME_LIMIT_FUEL, TimeLimit, TimeRule, choose_reference, import_package, set_time_limit};
use course::problem_check::run_check_problem;
use end_to_end::{can_build, grade_without_roster, parse_args, root, tools};
use grader::FailureKind;
use toolchain::Language;
use web::cli::bugs::{BugsArgs, run_bugs};
use web::cli::check_problem::check_text;

fn package() -> PathBuf {
    root().join("fixtures/packages/average")
}

fn file(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `check-problem` of the problem in `dir`: whether it passed, and what it says.
fn checked(dir: &Path) -> (bool, String) {
    let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, dir, None).unwrap();
    (report.passed(), check_text(&problem, &report))
}

/// `check-problem` passes the problem in `dir`, saying each of `says`.
fn passes_check(dir: &Path, says: &[&str]) {
    let (passed, text) = checked(dir);
    assert!(passed, "{text}");
    for said in says {
        assert!(text.contains(said), "{said}\nin:\n{text}");
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn an_imported_package_maps_its_validator_data_and_submissions_and_lists_what_is_left_to_write() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("average");
    let imported = import_package(&package(), &dir).unwrap();
    let toml = file(&dir, "problem.toml");
    for line in [
        "title = \"Average\"",
        "name = \"average\"",
        "oracle = \"tokens\"",
        "case_sensitive = false",
        "float_absolute = 1e-6",
        "float_relative = 1e-6",
        "memory_mib = 256",
    ] {
        assert!(toml.contains(line), "{line} in:\n{toml}");
    }
    assert!(file(&dir, "statement.md").starts_with("# Average\n"));
    assert_eq!(
        names(&dir.join("tests")),
        [
            "sample-1.in",
            "sample-1.out",
            "sample-2.in",
            "sample-2.out",
            "secret-01-small.in",
            "secret-01-small.out",
            "secret-02-negative.in",
            "secret-02-negative.out",
            "secret-03-big-values.in",
            "secret-03-big-values.out",
            "secret-04-large-n.in",
            "secret-04-large-n.out"
        ]
    );
    assert_eq!(file(&dir, "tests/sample-1.out"), file(&package(), "data/sample/1.ans"));
    assert_eq!(
        names(&dir.join("submissions")),
        ["correct-average.c", "crash-small_array.c", "slow-bubble_sort.c", "wrong-floor_division.py", "wrong-int_division.c", "wrong-int_overflow.cpp"]
    );
    assert_eq!(file(&dir, "reference.cpp"), file(&package(), "submissions/accepted/average.cpp"), "the first accepted in C++");
    assert_eq!(file(&dir, "reference.py"), file(&package(), "submissions/accepted/average.py"), "Python hand-ins' budgets come from it");
    assert_eq!(imported.tests, 6);
    assert!(imported.todo[0].starts_with("Write the generator (generator.rs): it only draws one of the package's 2 sample inputs now"), "{:?}", imported.todo);
    let notes = imported.notes.join("\n");
    assert!(notes.contains("submissions/accepted/Average.java (accepted) left out"), "{notes}");
    assert!(notes.contains("compared case-insensitively"), "{notes}");
    let steps = file(&dir, "IMPORT.md");
    assert!(steps.contains("## Still to do\n\n1. Write the generator") && steps.contains("## What did not map exactly"), "{steps}");
    assert!(import_package(&package(), &dir).unwrap_err().to_string().contains("already exists"), "never written over");
}

#[test]
fn an_imported_package_checks_its_submissions_verdicts_and_grades_them_against_the_course_tests_by_name() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("average");
    import_package(&package(), &dir).unwrap();
    passes_check(
        &dir,
        &[
            "checked on 1000 generated inputs and the course's 6 tests",
            "ok    the reference agrees with the course's 6 tests: it runs all 6, and gives the expected output of the 6 that have one",
            "ok    the example `crash-small_array` fails some input by crashing",
            "ok    the example `slow-bubble_sort` fails some input by running out of time",
            "ok    the example `wrong-int_overflow` fails some input by giving a wrong output: fails 1 of 1006 inputs, 1 of them by giving a wrong output; first on the course's test `secret-03-big-values`",
            "ok    the correct example `correct-average` passes every input",
            "ok    the correct example `reference.py` passes every input",
        ],
    );

    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "500")]);
    let analysis = &run.graded.analysis;
    let suite: Vec<(Option<&str>, Vec<&str>)> =
        analysis.suite.iter().map(|t| (t.course_test.as_deref(), t.failing.iter().map(String::as_str).collect())).collect();
    assert_eq!(
        suite,
        [
            (Some("sample-1"), vec!["wrong-floor_division", "wrong-int_division"]),
            (Some("secret-03-big-values"), vec!["wrong-int_division", "wrong-int_overflow"]),
            (Some("secret-04-large-n"), vec!["crash-small_array", "slow-bubble_sort", "wrong-floor_division", "wrong-int_division"]),
        ],
        "the generator only replays the samples: every bug is shown by a course's test, under its name"
    );
    let row = |id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap();
    assert_eq!(row("wrong-floor_division").course_tests_failed, ["sample-1", "secret-02-negative", "secret-04-large-n"]);
    assert_eq!(row("correct-average").points.as_ref().unwrap().points, 100.0);
    let crash = row("crash-small_array").points.clone().unwrap();
    assert!(crash.points < 100.0 && crash.judged == 1006, "a hand-in failing a course's test loses points: {crash:?}");
    assert!(run.files["report.html"].contains("(the course's <code>sample-1</code>)"), "the suite table names it");
}

/// `fixtures/packages/height` with its two large tests made here (too big to commit: a
/// path of 200,000 nodes, and a star of 8,001), imported into `out` as `bugrank import`
/// does: the problem, and the judges' time limit set from its accepted submissions.
fn imported_height(out: &Path) -> (PathBuf, TimeLimit) {
    let package = out.join("package");
    for file in [
        "problem.yaml",
        "problem_statement/problem.en.md",
        "data/sample/1.in",
        "data/sample/1.ans",
        "data/sample/2.in",
        "data/sample/2.ans",
        "data/secret/01-reversed-edges.in",
        "data/secret/01-reversed-edges.ans",
        "data/secret/02-star.in",
        "data/secret/02-star.ans",
        "submissions/accepted/height.cpp",
        "submissions/accepted/height.c",
        "submissions/accepted/height_dedupe.c",
        "submissions/wrong_answer/nodes.cpp",
    ] {
        std::fs::create_dir_all(package.join(file).parent().unwrap()).unwrap();
        std::fs::copy(root().join("fixtures/packages/height").join(file), package.join(file)).unwrap();
    }
    let path: String = (1..200_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let star: String = (2..=8_001).map(|i| format!("1 {i}\n")).collect();
    write_files(
        &package,
        &[
            ("data/secret/03-path.in", &format!("200000\n{path}")),
            ("data/secret/03-path.ans", "199999\n"),
            ("data/secret/04-big-star.in", &format!("8001\n{star}")),
            ("data/secret/04-big-star.ans", "1\n"),
        ],
    );
    let dir = out.join("height");
    let imported = import_package(&package, &dir).unwrap();
    let limit = set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().unwrap();
    (dir, limit)
}

/// The problem in `dir` with `line` of its problem.toml taken out.
fn without(dir: &Path, line: &str) {
    let toml = file(dir, "problem.toml");
    assert!(toml.contains(line), "{line} in:\n{toml}");
    std::fs::write(dir.join("problem.toml"), toml.replacen(line, "", 1)).unwrap();
}

#[test]
fn a_judges_solution_that_recurses_once_per_node_runs_with_the_stack_judges_give() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let (dir, _) = imported_height(out.path());
    let toml = file(&dir, "problem.toml");
    assert!(toml.contains("memory_mib = 256\nstack_mib = 256\n"), "the stack is the memory limit, as judges set it:\n{toml}");
    passes_check(
        &dir,
        &[
            "ok    the reference agrees with the course's 6 tests: it runs all 6, and gives the expected output of the 6 that have one",
            "ok    the correct example `correct-height` passes every input",
            "ok    the example `wrong-nodes` fails some input by giving a wrong output",
        ],
    );

    // With the default stack, the same reference overflows it 200,000 calls deep, and
    // check-problem says so before any class is graded with it.
    without(&dir, "stack_mib = 256\n");
    let (passed, text) = checked(&dir);
    assert!(!passed, "{text}");
    assert!(text.contains("overflowed its stack") && text.contains("secret-03-path"), "{text}");
}

#[test]
fn an_accepted_solution_slower_than_the_reference_passes_within_the_judges_time_limit() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let (dir, limit) = imported_height(out.path());
    // The C solution that looks each edge up before adding it is the slowest accepted one,
    // on the star of 8,001 nodes; the limit is the legacy format's 5 times its run.
    let (who, test, fuel) = &limit.slowest;
    assert_eq!((who.as_str(), test.as_str()), ("`correct-height_dedupe`", "secret-04-big-star"), "{limit:?}");
    assert_eq!(limit.fuel, (fuel * 5).max(LEAST_TIME_LIMIT_FUEL));
    assert!(file(&dir, "problem.toml").contains(&format!("fuel_limit = {}\n", limit.fuel)));
    assert!(file(&dir, "IMPORT.md").contains("time limit: 5 times the slowest accepted run, as the judges set theirs: `correct-height_dedupe` used"));
    // It is many times slower than the reference there, and passes within the judges'
    // limit...
    passes_check(
        &dir,
        &["ok    the correct example `correct-height_dedupe` passes every input", "ok    the correct example `correct-height` passes every input"],
    );

    // ...where the budget relative to the reference alone fails it for time, though the
    // judges accept it.
    without(&dir, &format!("fuel_limit = {}\n", limit.fuel));
    let (passed, text) = checked(&dir);
    assert!(!passed, "{text}");
    assert!(text.contains("FAIL  the correct example `correct-height_dedupe` passes every input") && text.contains("secret-04-big-star"), "{text}");
}

#[test]
fn the_reference_is_the_first_accepted_submission_that_builds_and_passes_the_packages_tests() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("sum");
    // Accepted by the judges: one that only GCC builds (a `constexpr` square root), one that
    // sums into an uninitialised variable (0 by luck natively; every byte 0xFF here), and a
    // plain C one.
    let gcc_only = "#include <bits/stdc++.h>\nusing namespace std;\nconstexpr double ROOT = sqrt(2.0);\nint main() {\n    long long n, s = 0, x;\n    cin >> n;\n    for (int i = 0; i < n; i++) { cin >> x; s += x; }\n    cout << s + (long long)(ROOT - ROOT) << endl;\n}\n";
    let unset = "#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n    long long n, s, x;\n    cin >> n;\n    for (int i = 0; i < n; i++) { cin >> x; if (i == 0) s = x; else s += x; }\n    cout << s << endl;\n}\n";
    let plain = "#include <stdio.h>\nint main(void) {\n    long long n, s = 0, x;\n    scanf(\"%lld\", &n);\n    for (long long i = 0; i < n; i++) { scanf(\"%lld\", &x); s += x; }\n    printf(\"%lld\\n\", s);\n    return 0;\n}\n";
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Sum\n"),
            ("data/sample/1.in", "2\n1 2\n"),
            ("data/sample/1.ans", "3\n"),
            ("data/secret/empty.in", "0\n"),
            ("data/secret/empty.ans", "0\n"),
            ("submissions/accepted/a_gcc_only.cpp", gcc_only),
            ("submissions/accepted/b_unset.cpp", unset),
            ("submissions/accepted/plain.c", plain),
        ],
    );
    let dir = out.path().join("imported");
    import_package(&package, &dir).unwrap();
    assert_eq!(file(&dir, "reference.cpp"), gcc_only, "the import's choice: the first accepted in C++");
    let said = choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap();
    assert_eq!(said.len(), 3, "{said:#?}");
    assert!(said[0].starts_with("reference.cpp, an accepted submission, does not build here:") && said[0].contains("GCC accepts this"), "{}", said[0]);
    assert!(said[1].starts_with("submissions/correct-b_unset.cpp, an accepted submission, fails the package's test `secret-empty`"), "{}", said[1]);
    assert_eq!(said[2], "the reference is now submissions/correct-plain.c, which builds and passes the package's tests");
    assert_eq!((file(&dir, "reference.c"), dir.join("reference.cpp").exists()), (plain.to_owned(), false));
    assert_eq!(names(&dir.join("submissions")), Vec::<String>::new(), "the two left out are no examples either");
    assert!(file(&dir, "IMPORT.md").contains("- the reference is now submissions/correct-plain.c"));
    passes_check(&dir, &["ok    the reference agrees with the course's 2 tests"]);
}

#[test]
fn an_input_validator_that_does_not_build_here_is_left_out_and_the_reference_is_still_chosen() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // One that GCC builds and clang refuses: a `constexpr` square root.
    let validator = "#include <cmath>\n#include <iostream>\nconstexpr double LIMIT = std::sqrt(1e18);\nint main() {\n    long long n;\n    if (!(std::cin >> n)) return 43;\n    return n >= 0 && n <= LIMIT ? 42 : 43;\n}\n";
    let reference = "#include <iostream>\nint main() { long long n; std::cin >> n; std::cout << 2 * n << '\\n'; }\n";
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("twice");
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Twice\n"),
            ("data/sample/1.in", "4\n"),
            ("data/sample/1.ans", "8\n"),
            ("input_validators/gcc/validate.cpp", validator),
            ("submissions/accepted/twice.cpp", reference),
        ],
    );
    let dir = out.path().join("imported");
    import_package(&package, &dir).unwrap();
    assert_eq!(names(&dir.join("input_validator")), ["validate.cpp"]);
    let said = choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap();
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].starts_with("the input validator does not build here, so it is not run (it stays in package/):") && said[0].contains("GCC accepts this"),
        "{}",
        said[0]
    );
    assert!(!dir.join("input_validator").exists() && dir.join("package/input_validators/gcc/validate.cpp").is_file());
    assert_eq!(file(&dir, "reference.cpp"), reference, "the reference is not blamed");
    passes_check(&dir, &["ok    the reference agrees with the course's 1 test"]);
}

#[test]
fn an_input_validator_gets_each_test_groups_flags_and_an_input_is_valid_with_one_of_them() {
    if !can_build(&[Language::C]) {
        return;
    }
    // As oddecho's subtasks are: one group has exactly five words, the other up to ten.
    let validator = "#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv) {\n    int five = 0, n;\n    for (int i = 1; i < argc; i++) if (strcmp(argv[i], \"nFive=1\") == 0) five = 1;\n    if (scanf(\"%d\", &n) != 1 || n < 1 || n > 10) { fprintf(stderr, \"n is not 1 to 10\\n\"); return 43; }\n    if (five && n != 5) { fprintf(stderr, \"n is not 5\\n\"); return 43; }\n    return 42;\n}\n";
    let reference = "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); printf(\"%d\\n\", 2 * n); return 0; }\n";
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("echo");
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Echo\n"),
            ("data/testdata.yaml", "range: 0 100\noutput_validator_flags: float_tolerance 1e-6\n"),
            ("data/sample/1.in", "5\n"),
            ("data/sample/1.ans", "10\n"),
            ("data/sample/testdata.yaml", "input_validator_flags: nFive=0\n"),
            ("data/secret/five/1.in", "5\n"),
            ("data/secret/five/1.ans", "10\n"),
            ("data/secret/five/testdata.yaml", "input_validator_flags: nFive=1\naccept_score: 50\n"),
            ("data/secret/any/1.in", "9\n"),
            ("data/secret/any/1.ans", "18\n"),
            ("data/secret/any/testdata.yaml", "input_validator_flags: nFive=0\n"),
            ("input_validators/words/words.c", validator),
            ("submissions/accepted/twice.c", reference),
        ],
    );
    let dir = out.path().join("imported");
    let imported = import_package(&package, &dir).unwrap();
    let toml = file(&dir, "problem.toml");
    assert!(toml.contains("[input_validator]\ngroups = [[\"nFive=0\"], [\"nFive=1\"]]\n"), "{toml}");
    // Every group inherits the root's output validator flags.
    assert!(toml.contains("float_absolute = 1e-6\nfloat_relative = 1e-6\n"), "{toml}");
    let notes = imported.notes.join("\n");
    assert!(
        notes
            .contains("the test groups give the input validator different flags (`nFive=0`, `nFive=1`): an input is valid when it accepts it with one of them"),
        "{notes}"
    );
    choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap();
    // The generator draws the sample inputs (5): valid with both.
    passes_check(&dir, &["ok    the input validator accepts the 1000 generated inputs and the course's 3 tests: 1003 of 1003 inputs valid"]);
    // A test valid for no group is refused, with the first group's reason.
    std::fs::write(dir.join("tests/eleven.in"), "11\n").unwrap();
    let (passed, text) = checked(&dir);
    assert!(!passed && text.contains("the course's test `eleven`: refused with each test group's flags; with `nFive=0`: n is not 1 to 10"), "{text}");
}

#[test]
fn an_output_validator_that_does_not_build_here_gives_way_to_a_checker_to_port_it_into() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // One that GCC builds and clang refuses: a `constexpr` square root.
    let validator = "#include <cmath>\n#include <cstdio>\nconstexpr double EPS = std::sqrt(1e-12);\nint main(int argc, char **argv) {\n    double x;\n    return scanf(\"%lf\", &x) == 1 && x > EPS ? 42 : 43;\n}\n";
    let reference = "#include <iostream>\nint main() { long long n; std::cin >> n; std::cout << 2 * n << '\\n'; }\n";
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("twice");
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Twice\nvalidation: custom\n"),
            ("data/sample/1.in", "4\n"),
            ("data/sample/1.ans", "8\n"),
            ("output_validators/positive/validate.cpp", validator),
            ("submissions/accepted/twice.cpp", reference),
        ],
    );
    let dir = out.path().join("imported");
    import_package(&package, &dir).unwrap();
    let said = choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap();
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].starts_with("the output validator does not build here (it stays in package/):") && said[0].contains("GCC accepts this"), "{}", said[0]);
    assert!(said[0].ends_with("Port it into checker.rs, which compares words as the default validator does until then. A bugrank checker is given the input, the model answer's output and the hand-in's output, and accepts or rejects with a reason; bugrank_check.rs reads them and compares words and numbers for it."), "{}", said[0]);
    assert!(file(&dir, "problem.toml").contains("oracle = \"checker\"\n"));
    assert!(!dir.join("validator").exists() && dir.join("checker.rs").is_file() && dir.join("package/output_validators/positive/validate.cpp").is_file());
    assert_eq!(file(&dir, "reference.cpp"), reference, "the reference is not blamed");
    passes_check(&dir, &["ok    the reference agrees with the course's 1 test"]);
}

/// Writes `files` (path, text) under `dir`.
fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.join(path), text).unwrap();
    }
}

#[test]
fn an_import_reads_submissions_as_judges_name_them_and_says_what_it_leaves_out() {
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("pairs");
    let cpp = "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n";
    let c = "#include <stdio.h>\nint main(void) { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); return 0; }\n";
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Pairs\ntype: scoring\n"),
            (".timelimit", "2\n"),
            ("data/sample/1.in", "1 2\n"),
            ("data/sample/1.ans", "3\n"),
            ("data/secret/testdata.yaml", "grading: default\n"),
            ("submissions/accepted/paul.cc", cpp),
            ("submissions/accepted/paul.py3", "a, b = map(int, input().split())\nprint(a + b)\n"),
            ("submissions/accepted/old.py", "a, b = map(int, raw_input().split())\nprint a + b\n"),
            ("submissions/accepted/older.py2", "print 3\n"),
            ("submissions/slow_accepted/loop.c++", cpp),
            ("submissions/rejected/minus.c", &c.replace("a + b", "a - b")),
            ("submissions/brute_force/count.c", c),
            ("submissions/partially_accepted/half.c", c),
            ("submissions/mystery/m.c", c),
        ],
    );
    let dir = out.path().join("imported");
    let imported = import_package(&package, &dir).unwrap();
    assert_eq!(file(&dir, "reference.cpp"), cpp, "the first accepted in C++, read from its .cc");
    assert_eq!(imported.time_rule, TimeRule::Seconds(2.0), "the judges' tool's .timelimit");
    assert_eq!(file(&dir, "reference.py"), file(&package, "submissions/accepted/paul.py3"));
    assert_eq!(names(&dir.join("submissions")), ["buggy-minus.c", "slow-count.c", "slowcorrect-loop.cpp"]);
    let notes = imported.notes.join("\n");
    for said in [
        "submissions/accepted/old.py (accepted) left out: Python 2, which bugrank does not run (it runs Python 3): line 2 is a `print` statement",
        "submissions/accepted/older.py2 (accepted) left out: Python 2",
        "submissions/partially_accepted/ left out: partial scores are for scoring problems",
        "submissions/mystery/ left out: not a verdict bugrank knows",
        "type: scoring: bugrank grades each test pass or fail",
        "data/secret/testdata.yaml: test groups' grading is not read (their validators' flags are)",
    ] {
        assert!(notes.contains(said), "{said}\nin:\n{notes}");
    }

    // Two accepted submissions of one name in two languages keep the language in their ids.
    let twins = out.path().join("twins");
    write_files(
        &twins,
        &[
            ("problem.yaml", "name: Twins\n"),
            ("data/sample/1.in", "1 2\n"),
            ("data/sample/1.ans", "3\n"),
            ("submissions/accepted/first.cpp", cpp),
            ("submissions/accepted/paul.c", c),
            ("submissions/accepted/paul.py", "a, b = map(int, input().split())\nprint(a + b)\n"),
            (
                "submissions/accepted/paul.rs",
                "use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_to_string(&mut s).unwrap(); let v: Vec<i64> = s.split_whitespace().map(|w| w.parse().unwrap()).collect(); println!(\"{}\", v[0] + v[1]); }\n",
            ),
        ],
    );
    let dir = out.path().join("twins-imported");
    import_package(&twins, &dir).unwrap();
    assert_eq!(names(&dir.join("submissions")), ["correct-paul-c.c", "correct-paul-rs.rs"], "paul.py is reference.py");

    // An interactive package without an interactor bugrank can run (here one in Python 2)
    // is refused with its reason.
    let interactive = out.path().join("guess");
    write_files(&interactive, &[("problem.yaml", "name: Guess\ntype: [pass-fail, interactive]\n"), ("output_validator/interact.py", "print 1\n")]);
    let refused = import_package(&interactive, &out.path().join("guess-imported")).unwrap_err().to_string();
    assert!(refused.contains("an interactive problem (type: interactive) needs its interactor (an output validator) in C, C++ or Python 3"), "{refused}");
}

#[test]
fn a_package_with_its_own_cpp_validator_imports_checks_and_grades_with_it() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // `fixtures/packages/divisors`: the divisors of n in any order, judged by the
    // package's validator (C++, problemtools' protocol; its input validator throws C++
    // exceptions as problemtools' own library does); its accepted Python prints them
    // in another order than the C++ reference (it is `reference.py`, which sets Python
    // hand-ins' budgets), so no comparison of outputs would pass it.
    let package = root().join("fixtures/packages/divisors");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("divisors");
    let imported = import_package(&package, &dir).unwrap();
    let toml = file(&dir, "problem.toml");
    assert!(toml.contains("oracle = \"validator\"\n\n[validator]\nflags = []\n"), "{toml}");
    assert_eq!(names(&dir.join("validator")), ["validate.h", "validator.cpp"]);
    assert_eq!(names(&dir.join("input_validator")), ["range.cpp"]);
    assert_eq!(file(&dir, "validator/validator.cpp"), file(&package, "output_validators/divisors/validator.cpp"));
    assert!(!dir.join("checker.rs").exists(), "nothing to port");
    assert!(imported.todo.iter().all(|todo| !todo.contains("validator")), "{:?}", imported.todo);
    assert!(imported.notes.iter().any(|note| note.contains("output_validators/divisors/ judges outputs")), "{:?}", imported.notes);
    passes_check(
        &dir,
        &[
            "ok    the reference agrees with the course's 6 tests",
            "ok    the checker accepts the reference's outputs: 1000 of 1000 outputs accepted",
            "ok    the input validator accepts the 1000 generated inputs and the course's 6 tests: 1006 of 1006 inputs valid",
            "ok    the correct example `reference.py` passes every input",
            "ok    the correct example `correct-divisors` passes every input",
            "ok    the correct example `correct-throwing` passes every input",
            "ok    the example `wrong-half` fails some input by giving a wrong output",
            "ok    the example `wrong-square_twice` fails some input by giving a wrong output",
            "ok    the example `slow-every_number` fails some input by running out of time",
        ],
    );

    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "200")]);
    let analysis = &run.graded.analysis;
    let row = |id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id}"));
    assert_eq!(row("correct-divisors").points.as_ref().unwrap().points, 100.0);
    // (It throws and catches C++ exceptions, as does the input validator.)
    assert_eq!(row("correct-throwing").points.as_ref().unwrap().points, 100.0);
    assert_eq!(row("wrong-square_twice").course_tests_failed, ["sample-2", "secret-02-square"]);
    assert_eq!(row("wrong-half").course_tests_failed.len(), 6, "n itself is missing on every test");
    // The validator's judgemessage.txt is the reason a student reads.
    // A test the package's input validator refuses fails the check, named with the reason.
    std::fs::write(dir.join("tests/zero.in"), "0\n").unwrap();
    let (passed, text) = checked(&dir);
    assert!(!passed && text.contains("FAIL  the input validator accepts the 1000 generated inputs and the course's 7 tests: 1 of 1007 inputs refused; the course's test `zero`: n is not a positive integer without leading zeros"), "{text}");
    let json = &run.files["analysis.json"];
    assert!(
        json.contains("\"reason\": \"1 printed twice\"") && json.contains("\"reason\": \"0 divisors printed, 1 has 1\""),
        "the validator's reasons are the failures'"
    );
}

#[test]
fn an_interactive_package_talks_with_each_submission_and_grades_it_as_the_judges_folders_say() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // `fixtures/packages/treasure`: find a buried treasure among n flagstones in at most
    // 30 digs, told left or right after each. The package's interactor (C++, against the
    // fixtures' validate.h) talks with every submission, each one's output the other's
    // input; its submissions are as judges get them: `cin`/`cout` with `endl`, `scanf` with
    // `fflush`, Python with `input()` and `flush=True`, one that forgets to flush.
    let package = root().join("fixtures/packages/treasure");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("treasure");
    let imported = import_package(&package, &dir).unwrap();
    assert!(file(&dir, "problem.toml").contains("oracle = \"interactive\"\n\n[validator]\nflags = []\n"));
    assert_eq!(names(&dir.join("validator")), ["interactor.cpp", "validate.h"]);
    assert!(imported.notes.iter().any(|note| note.contains("validation: custom interactive): the output validator output_validators/dig/ is the interactor")));
    assert!(choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap().is_empty(), "the C++ reference builds and passes");
    set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
    passes_check(
        &dir,
        &[
            "ok    the input validator accepts the 1000 generated inputs and the course's 7 tests: 1007 of 1007 inputs valid",
            "ok    the correct example `correct-upper_half` passes every input",
            "ok    the correct example `reference.py` passes every input",
            // (`sync_with_stdio(false)` and `cin.tie(NULL)`: its reads take what the
            // interactor has sent, never waiting for a full buffer.)
            "ok    the correct example `correct-quick_io` passes every input",
            "ok    the example `wrong-stuck` fails some input by giving a wrong output",
            "ok    the example `slow-no_flush` fails some input by running out of time",
            "ok    the example `slow-closes_and_spins` fails some input by running out of time",
            "ok    the example `crash-returns_one` fails some input by crashing",
            // The package's own sample dialogue, line for line.
            "output  \"<10\\n>dig 5\\n<right\\n>dig 8\\n<left\\n>dig 6\\n<right\\n>dig 7\\n<found\\n\"",
        ],
    );
    assert_eq!(file(&package, "data/sample/1.interaction"), "<10\n>dig 5\n<right\n>dig 8\n<left\n>dig 6\n<right\n>dig 7\n<found\n");

    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let options = [("--problem", problem.as_str()), ("--submissions", &submissions), ("--stable-after", "200")];
    let run = grade_without_roster(&options);
    let analysis = &run.graded.analysis;
    let kinds = |id: &str| -> Vec<FailureKind> {
        let row = analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id}"));
        let mut kinds: Vec<FailureKind> = row.failures.values().map(|detail| detail.failure.kind).collect();
        kinds.dedup();
        kinds
    };
    assert_eq!(kinds("correct-upper_half"), []);
    for wrong in ["wrong-stuck", "wrong-one_by_one", "wrong-gives_up", "wrong-says_where"] {
        assert_eq!(kinds(wrong), [FailureKind::Wrong], "{wrong}");
    }
    // The interactor rejected its dig before it looped: a wrong answer, as judges say,
    // however long it then ran.
    assert_eq!(kinds("wrong-dig_zero_then_wait"), [FailureKind::Wrong]);
    // It waits for a reply to a dig it never flushed, and the interactor for the dig.
    assert_eq!(kinds("slow-no_flush"), [FailureKind::Timeout]);
    // Right, then it closes its output and spins: the interactor accepted on reading the
    // end of its output, and the program never ended (clang keeps the empty loop, as GCC).
    assert_eq!(kinds("slow-closes_and_spins"), [FailureKind::Timeout]);
    // Right, then `return 1`: the interactor accepted once it read the program's end.
    assert_eq!(kinds("crash-returns_one"), [FailureKind::Crash]);
    assert_eq!(
        grade_without_roster(&options).files["analysis.json"],
        run.files["analysis.json"],
        "two programs on two threads, the same analysis byte for byte"
    );

    // A student reads the two dialogues, and the interactor's reason.
    let analysis_json = out.path().join("analysis.json");
    std::fs::write(&analysis_json, &run.files["analysis.json"]).unwrap();
    let bugs = |answer: &str| {
        let argv = ["bugs", "--problem", &problem, "--submissions", &submissions, "--analysis", &analysis_json.display().to_string(), "--answer", answer];
        present::bug_list_markdown(&run_bugs(tools(), &parse_args::<BugsArgs, _>(&argv)).unwrap()[0])
    };
    let gives_up = bugs("wrong-gives_up");
    for said in [
        "The model answer's dialogue with the interactor (`>` before what it wrote, `<` before what it was sent):\n\n```text\n<1000000000\n>dig 500000000\n<left\n",
        "Your program's dialogue:\n\n```text\n<1000000000\n>dig 500000000\n<left\n",
        "Why it is wrong: dig 21: the program ended without finding the treasure",
    ] {
        assert!(gives_up.contains(said), "{said}\nin:\n{gives_up}");
    }
    // (wasi-libc's stdout, musl's, is line-buffered until its first line is written: the
    // first dig goes out unflushed, the second waits.)
    let no_flush = bugs("slow-no_flush");
    for said in ["the interactor sees a line only once it is flushed", "Your program's dialogue, up to where it stopped:\n\n```text\n<10\n>dig 5\n<right\n```"]
    {
        assert!(no_flush.contains(said), "{said}\nin:\n{no_flush}");
    }
}

#[test]
fn a_package_with_python_validators_imports_checks_and_grades_with_them() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // `fixtures/packages/pairsum`: any two positions whose values sum to the target, so
    // the package judges with its own output validator, in Python (`validate.py3`: the
    // input and the judges' answer from the files sys.argv names, the reason written to
    // the feedback directory's judgemessage.txt), and checks inputs with Python asserts.
    let package = root().join("fixtures/packages/pairsum");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("pairsum");
    let imported = import_package(&package, &dir).unwrap();
    assert!(file(&dir, "problem.toml").contains("oracle = \"validator\"\n\n[validator]\nflags = []\n"));
    assert_eq!(names(&dir.join("validator")), ["validate.py"], "a .py3 is Python 3");
    assert_eq!(file(&dir, "validator/validate.py"), file(&package, "output_validators/pairs/validate.py3"));
    assert_eq!(names(&dir.join("input_validator")), ["validate.py"]);
    assert!(!dir.join("checker.rs").exists(), "nothing to port");
    assert!(
        imported.notes.iter().any(|note| note == "reference.py is submissions/accepted/pairs.py3: Python hand-ins' time budgets come from it"),
        "{:?}",
        imported.notes
    );
    assert!(choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap().is_empty(), "the C++ reference builds and passes");
    set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
    passes_check(
        &dir,
        &[
            "ok    the checker accepts the reference's outputs: 1000 of 1000 outputs accepted",
            // (Its 1 MB test takes the Python validator a billion instructions.)
            "ok    the input validator accepts the 1000 generated inputs and the course's 7 tests: 1007 of 1007 inputs valid",
            "ok    the correct example `correct-two_pointers` passes every input",
            "ok    the correct example `reference.py` passes every input",
            "ok    the example `wrong-same_index` fails some input by giving a wrong output: fails 1 of 1007 inputs, 1 of them by giving a wrong output; first on the course's test `secret-02-once`: wrong: positions 1 and 1 are not 1 <= i < j <= 4",
            "ok    the example `wrong-int_sum` fails some input by giving a wrong output",
            "ok    the example `wrong-reversed` fails some input by giving a wrong output",
            "ok    the example `slow-quadratic` fails some input by running out of time",
        ],
    );

    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "200")]);
    let analysis = &run.graded.analysis;
    let row = |id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id}"));
    // Another pair than the reference's, and the validator takes it.
    assert_eq!(row("correct-two_pointers").points.as_ref().unwrap().points, 100.0);
    assert_eq!(row("wrong-int_sum").course_tests_failed, ["secret-03-big-values"]);
    assert_eq!(row("wrong-same_index").course_tests_failed, ["secret-02-once"]);
    assert!(row("wrong-reversed").course_tests_failed.contains(&"secret-04-smaller-later".to_owned()));
    assert!(run.files["analysis.json"].contains("\"reason\": \"positions 3 and 1 are not 1 <= i < j <= 3\""), "the validator's reason is the failure's");

    // A test the Python input validator refuses fails the check, with its assert's words.
    std::fs::write(dir.join("tests/short.in"), "3 5\n1 2\n").unwrap();
    let (passed, text) = checked(&dir);
    assert!(!passed && text.contains("the course's test `short`: AssertionError: 2 values, not n = 3"), "{text}");
}

#[test]
fn a_package_whose_checker_is_written_with_testlib_imports_checks_and_grades_with_it() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // `fixtures/packages/distance`: a distance within 1e-6, judged by a testlib checker
    // (`registerTestlibCmd`, testlib.h beside it): `check input output answer`, its
    // verdict by exit status, its reason on stderr. Its accepted C++ prints `hypotl`'s
    // long double, which must be formatted.
    let package = root().join("fixtures/packages/distance");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("distance");
    let imported = import_package(&package, &dir).unwrap();
    assert!(file(&dir, "problem.toml").contains("oracle = \"validator\"\n\n[validator]\nprotocol = \"testlib\"\n"));
    assert_eq!(names(&dir.join("validator")), ["check.cpp", "testlib.h"]);
    assert!(
        imported.notes.iter().any(|note| note.starts_with("the output validator output_validators/close_enough/ is a testlib checker")),
        "{:?}",
        imported.notes
    );
    assert!(choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap().is_empty(), "the C++ reference (hypotl) builds and passes");
    set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
    passes_check(
        &dir,
        &[
            "ok    the checker accepts the reference's outputs: 1000 of 1000 outputs accepted",
            "ok    the correct example `correct-sqrt` passes every input",
            "ok    the correct example `reference.py` passes every input",
            "ok    the example `wrong-int_overflow` fails some input by giving a wrong output: fails 3 of 1007 inputs, 3 of them by giving a wrong output; first on the course's test `secret-03-far`: wrong: wrong answer expected 2828427124.7461900711, found 31495.2837104000",
            "ok    the example `wrong-two_decimals` fails some input by giving a wrong output",
            "ok    the example `wrong-label` fails some input by giving a wrong output",
            "ok    the example `slow-count_up` fails some input by running out of time",
        ],
    );

    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "200")]);
    let analysis = &run.graded.analysis;
    let row = |id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id}"));
    // Six decimals where the reference prints nine, and the checker takes them.
    assert_eq!(row("correct-sqrt").points.as_ref().unwrap().points, 100.0);
    assert_eq!(row("wrong-int_overflow").course_tests_failed, ["secret-03-far", "secret-04-wide", "secret-05-tall"]);
    assert!(row("wrong-label").course_tests_failed.contains(&"sample-1".to_owned()));
    assert!(run.files["analysis.json"].contains("wrong output format Expected double, but \\\"distance:\\\" found"), "the checker's words are the reason");

    // A checker that fails (testlib's _fail, exit 3) is the checker's failure, not a
    // wrong answer: check-problem says so with its words.
    let failing = file(&dir, "validator/check.cpp")
        .replace("registerTestlibCmd(argc, argv);", "registerTestlibCmd(argc, argv);\n    quitf(_fail, \"the answer file is broken\");");
    std::fs::write(dir.join("validator/check.cpp"), failing).unwrap();
    let (passed, text) = checked(&dir);
    assert!(!passed && text.contains("the testlib checker exited with status 3, not 0 (ok), 1 (wrong answer), 2 (presentation error) or 8 (unexpected end of file): FAIL the answer file is broken"), "{text}");
}

#[test]
fn an_interactive_problem_whose_interactor_is_in_python_judges_as_with_its_cpp_one() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // Buried Treasure with its interactor in Python, as judges write them
    // (`tests/data/treasure_interactor.py`, the package's C++ one rule for rule): it reads
    // the judges' input from the file sys.argv names, talks with `print(..., flush=True)`
    // and reads the program's words a line at a time as they come.
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("treasure");
    let imported = import_package(&root().join("fixtures/packages/treasure"), &dir).unwrap();
    std::fs::remove_dir_all(dir.join("validator")).unwrap();
    std::fs::create_dir(dir.join("validator")).unwrap();
    std::fs::copy(root().join("tests/data/treasure_interactor.py"), dir.join("validator/interactor.py")).unwrap();
    assert!(choose_reference(&tools().sandbox, &tools().builder, &dir).unwrap().is_empty(), "the C++ reference passes with it");
    set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
    passes_check(
        &dir,
        &[
            "ok    the correct example `correct-upper_half` passes every input",
            "ok    the correct example `reference.py` passes every input",
            "ok    the example `wrong-stuck` fails some input by giving a wrong output",
            "ok    the example `wrong-gives_up` fails some input by giving a wrong output",
            "ok    the example `wrong-dig_zero_then_wait` fails some input by giving a wrong output",
            "ok    the example `slow-no_flush` fails some input by running out of time",
            "ok    the example `slow-closes_and_spins` fails some input by running out of time",
            "ok    the example `crash-returns_one` fails some input by crashing",
            "output  \"<10\\n>dig 5\\n<right\\n>dig 8\\n<left\\n>dig 6\\n<right\\n>dig 7\\n<found\\n\"",
        ],
    );
}

#[test]
fn a_judges_time_limit_is_at_least_a_second_so_a_python_recursion_error_is_a_crash_as_judges_see_it() {
    // Accepted runs of some thousand instructions: five times the slowest is microseconds,
    // where judges give at least a second, in which Python's RecursionError (some six
    // million instructions) ends the run as a crash, as problemtools' run_time_error/ says.
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("echo");
    write_files(
        &package,
        &[
            ("problem.yaml", "name: Echo\n"),
            ("data/sample/1.in", "999\n"),
            ("data/sample/1.ans", "999\n"),
            ("submissions/accepted/echo.py", "print(input())\n"),
            ("submissions/run_time_error/recursion.py", "def f():\n    f()\n\n\nf()\n"),
        ],
    );
    let dir = out.path().join("imported");
    let imported = import_package(&package, &dir).unwrap();
    let limit = set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
    assert!(limit.slowest.2 * 5 < LEAST_TIME_LIMIT_FUEL && limit.fuel == LEAST_TIME_LIMIT_FUEL, "{limit:?}");
    assert!(file(&dir, "IMPORT.md").contains(", the least limit, as judges give at least a second (limits.fuel_limit)"));
    passes_check(&dir, &["ok    the example `crash-recursion` fails some input by crashing", "RecursionError: maximum recursion depth exceeded"]);
}

#[test]
fn the_2025_formats_test_group_yaml_gives_the_validators_arguments_as_lists() {
    // As DOMjudge's fltcmp in BAPCtools' tests: `data/test_group.yaml` (the 2025 format's
    // testdata.yaml) with `output_validator_args`, a list, where older packages have one
    // line of `output_validator_flags`.
    let out = tempfile::tempdir().unwrap();
    let package = out.path().join("fltcmp");
    write_files(
        &package,
        &[
            ("problem.yaml", "problem_format_version: 2025-09\ntype: pass-fail\nname: fltcmp\nlimits:\n  time_limit: 2.5\n"),
            ("data/test_group.yaml", "output_validator_args: [float_tolerance, \"1E-6\"]\ninput_validator_args: [--max, 10]\n"),
            ("data/sample/1.in", "1\n"),
            ("data/sample/1.ans", "0.50000000001\n"),
            ("input_validators/check.py", "import sys\nassert sys.argv[1:] == ['--max', '10']\nsys.exit(42)\n"),
            ("submissions/accepted/half.c", "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); printf(\"%.7f\\n\", n / 2.0); return 0; }\n"),
        ],
    );
    let dir = out.path().join("imported");
    let imported = import_package(&package, &dir).unwrap();
    assert_eq!(imported.time_rule, TimeRule::Seconds(2.5), "the package's own time limit");
    let toml = file(&dir, "problem.toml");
    assert!(toml.contains("float_absolute = 1e-6\nfloat_relative = 1e-6\n") && toml.contains("[input_validator]\nflags = [\"--max\", \"10\"]\n"), "{toml}");
    if can_build(&[Language::C]) {
        let limit = set_time_limit(&tools().sandbox, &tools().builder, &dir, imported.time_rule).unwrap().expect("a time limit");
        assert_eq!(limit.fuel, 2_500_000_000, "2.5 s, a billion fuel each");
        assert!(file(&dir, "IMPORT.md").contains("time limit: the package's 2.5 s, so any run may use 2500000000 fuel"));
        passes_check(&dir, &["ok    the reference agrees with the course's 1 test", "ok    the input validator accepts"]);
    }
}
