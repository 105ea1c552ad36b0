//! Writing a problem from source: `bugrank new-problem` gives a working problem in C or
//! Rust, `bugrank check-problem` says whether a problem is ready (and what is wrong when
//! not), and the generator library gives the same inputs in C as in Rust.

use std::path::Path;

use course::problem_check::run_check_problem;
use course::problem_dir::ProblemDir;
use end_to_end::{can_build, grade_without_roster, tools};
use grader::{ChoiceSource, Executor};
use toolchain::Language;
use web::cli::check_problem::check_text;
use web::cli::new_problem::{AuthorLanguage, new_problem};

/// `(what, passed)` of each check of the problem in `dir`.
fn checks(dir: &Path) -> Vec<(String, bool)> {
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, dir, None).unwrap();
    report.checks.iter().map(|c| (c.what.clone(), c.passed)).collect()
}

fn failed(dir: &Path) -> Vec<String> {
    checks(dir).into_iter().filter(|(_, passed)| !passed).map(|(what, _)| what).collect()
}

#[test]
fn a_new_problem_in_c_rust_or_python_is_ready_and_grades_its_buggy_example_on_the_simplest_failing_input() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mut samples = Vec::new();
    for (name, language) in [("largest-c", AuthorLanguage::C), ("largest-rust", AuthorLanguage::Rust), ("largest-python", AuthorLanguage::Python)] {
        let dir = root.path().join(name);
        new_problem(&dir, name, language, false).unwrap();
        let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir, None).unwrap();
        let text = check_text(&problem, &report);
        assert!(report.passed(), "{text}");
        assert_eq!(report.checks.len(), 6, "{text}");
        assert!(text.contains("the correct example `correct` passes every input") && text.contains("the buggy example `buggy` fails some input"), "{text}");
        assert!(text.contains("The reference's fuel per input: min ") && text.contains("ready: every check passed"), "{text}");
        assert_eq!(report.samples[0].input, "\n", "all-zero choices give an empty list");
        samples.push(report.samples);

        let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
        let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "1000")]);
        let suite: Vec<(&str, &[String])> = run.graded.analysis.suite.iter().map(|t| (t.input.as_str(), t.failing.as_slice())).collect();
        assert_eq!(suite, [("-1\n", &["buggy".to_owned()][..])], "{name}: one bug, shrunk to the simplest list it shows in");
    }
    assert_eq!(samples[0], samples[1], "the C and the Rust generator make the same inputs");
    assert_eq!(samples[0], samples[2], "the C and the Python generator make the same inputs");
    assert!(new_problem(&root.path().join("largest-c"), "again", AuthorLanguage::C, false).unwrap_err().to_string().contains("already exists"));
}

#[test]
fn a_new_function_level_problem_in_c_rust_or_python_is_ready_and_shrinks_its_bug_to_the_calls_that_matter() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mut samples = Vec::new();
    for (name, language) in [("stack-c", AuthorLanguage::C), ("stack-rust", AuthorLanguage::Rust), ("stack-python", AuthorLanguage::Python)] {
        let dir = root.path().join(name);
        new_problem(&dir, name, language, true).unwrap();
        let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir, None).unwrap();
        let text = check_text(&problem, &report);
        assert!(report.passed(), "{text}");
        assert_eq!(problem.accepted.harnesses.len(), 1, "{name}: its harness is read");
        assert!(text.contains("the correct example `correct` passes every input") && text.contains("the buggy example `buggy` fails some input"), "{text}");
        assert_eq!(report.samples[0].input, "init 1\n", "all-zero choices give a stack of one and no command");
        samples.push(report.samples);

        let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
        let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "1000")]);
        let suite: Vec<(&str, &[String])> = run.graded.analysis.suite.iter().map(|t| (t.input.as_str(), t.failing.as_slice())).collect();
        // The full test off by one: a stack of one takes a second value.
        assert_eq!(suite, [("init 1\npush 0\npush 0\n", &["buggy".to_owned()][..])], "{name}: one bug, shrunk to the calls that show it");
        let analysis = root.path().join(format!("{name}.json"));
        std::fs::write(&analysis, &run.files["analysis.json"]).unwrap();
        let argv = ["bugs", "--problem", &problem, "--submissions", &submissions, "--analysis", &analysis.display().to_string(), "--answer", "buggy"];
        let lists = web::cli::bugs::run_bugs(tools(), &end_to_end::parse_args::<web::cli::bugs::BugsArgs, _>(&argv)).unwrap();
        let markdown = present::bug_list_markdown(&lists[0]);
        assert!(markdown.contains("| → 3 | `push 0` | `0` | `1` |"), "{markdown}");
    }
    assert_eq!(samples[0], samples[1], "the C and the Rust generator make the same sequences");
    assert_eq!(samples[0], samples[2], "the C and the Python generator make the same sequences");
}

#[test]
fn a_python_reference_beside_a_compiled_one_is_checked_to_agree_with_it() {
    if !can_build(&[Language::C]) {
        return;
    }
    let python_reference = include_str!("../../../web/templates/new-problem/reference.py");
    let root = edited(&[("reference.py", python_reference)]);
    let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p"), None).unwrap();
    assert!(problem.python_reference.is_present() && problem.reference.interpreter().is_none(), "reference.c is the reference");
    let text = check_text(&problem, &report);
    assert!(report.passed() && text.contains("the correct example `reference.py` passes every input"), "{text}");

    // One that prints 0 for an empty list disagrees, and the check says so.
    let root = edited(&[("reference.py", &python_reference.replace("print(\"empty\")", "print(0)"))]);
    assert_eq!(failed(&root.path().join("p")), ["the correct example `reference.py` passes every input"]);
    // One that does not compile is said so.
    let root = edited(&[("reference.py", "print(\n")]);
    assert_eq!(failed(&root.path().join("p")), ["reference.py compiles"]);
}

/// A new C problem in a temporary directory, edited by `edit` (file, text).
fn edited(edits: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    new_problem(&dir, "p", AuthorLanguage::C, false).unwrap();
    for (file, text) in edits {
        std::fs::write(dir.join(file), text).unwrap();
    }
    root
}

#[test]
fn check_problem_names_what_is_wrong_with_a_problem() {
    if !can_build(&[Language::C]) {
        return;
    }
    // The "correct" example is the buggy one: it fails, and the check says on what.
    let buggy = std::fs::read_to_string(edited(&[]).path().join("p/submissions/buggy.c")).unwrap();
    let root = edited(&[("submissions/correct.c", &buggy)]);
    assert_eq!(failed(&root.path().join("p")), ["the correct example `correct` passes every input"]);

    // A generator that fails on choice 0: no simplest input, and some runs write nothing.
    let root = edited(&[(
        "generator.c",
        "#include <stdio.h>\n#include <stdlib.h>\n#include \"bugrank_gen.h\"\nint main(void) { if (bg_choice(9) == 0) abort(); printf(\"1\\n\"); return 0; }\n",
    )]);
    let names = failed(&root.path().join("p"));
    assert!(names.contains(&"all-zero choices give the simplest input, which the reference handles".to_owned()), "{names:?}");
    assert!(names.contains(&"the generator writes an input for every sequence of choices".to_owned()), "{names:?}");

    // A generator whose choice 0 is longer than other inputs it makes is pointed out, and
    // one that never makes a negative number leaves the buggy example's bug unseen.
    let root = edited(&[(
        "generator.c",
        "#include <stdio.h>\n#include \"bugrank_gen.h\"\nint main(void) { unsigned long long r = bg_choice(9); printf(\"%llu\\n\", r == 0 ? 10 : r); return 0; }\n",
    )]);
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p"), None).unwrap();
    let zero = report.checks.iter().find(|c| c.what.starts_with("all-zero choices")).unwrap();
    assert!(zero.passed && zero.detail.contains("Shorter inputs are generated too, such as \""), "{}", zero.detail);
    assert_eq!(failed(&root.path().join("p")), ["the buggy example `buggy` fails some input"]);

    // An example that does not compile, and one in a language the problem does not accept.
    let root = edited(&[
        ("problem.toml", "title = \"p\"\nlanguages = [\"c\"]\n"),
        ("submissions/correct2.c", "int main(void) { return 0 }\n"),
        ("submissions/buggy2.rs", "fn main() {}\n"),
    ]);
    assert_eq!(failed(&root.path().join("p")), ["the example `correct2` compiles", "the example buggy2.rs can be graded"]);

    // A reference that crashes on some inputs.
    let crashing = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) { long long x, m = 0; int any = 0;\n while (scanf(\"%lld\", &x) == 1) { if (x == 2147483647) abort(); if (!any || x > m) m = x; any = 1; }\n if (any) printf(\"%lld\\n\", m); else printf(\"empty\\n\"); return 0; }\n";
    let root = edited(&[("reference.c", crashing)]);
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p"), None).unwrap();
    let reference = report.checks.iter().find(|c| c.what.starts_with("the reference handles")).unwrap();
    assert!(!reference.passed && reference.detail.contains(" inputs fail") && reference.detail.contains("2147483647"), "{}", reference.detail);

    // A reference that does not compile cannot be checked: the error names the file and line.
    let root = edited(&[("reference.c", "int main(void) { return 0 }\n")]);
    let error = format!("{:#}", run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p"), None).err().unwrap());
    assert!(error.contains("reference.c does not compile") && error.contains("reference.c:1:"), "{error}");

    // Two sources of one program are ambiguous.
    let root = edited(&[("reference.rs", "fn main() {}\n")]);
    let error = format!("{:#}", run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p"), None).err().unwrap());
    assert!(error.contains("reference.c and reference.rs: keep one source of reference"), "{error}");
}

#[test]
fn the_cryptarithm_problem_is_ready_and_its_checker_accepts_the_references_outputs() {
    let dir = end_to_end::root().join("fixtures/problems/cryptarithm");
    let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir, None).unwrap();
    let text = check_text(&problem, &report);
    assert!(report.passed(), "{text}");
    assert!(text.contains("ok    the checker accepts the reference's outputs: 1000 of 1000 outputs accepted"), "{text}");
    let checker = report.checker_cost.as_ref().expect("the checker's cost is measured");
    assert!(checker.min > 0 && checker.min <= checker.median && checker.median <= checker.max && checker.max < checker.limit, "{checker:?}");
    assert!(text.contains("The checker's fuel per check of the reference's outputs: min "), "{text}");
    assert!(!text.contains("example"), "its cohort's submissions are not examples: {text}");
}

/// A generator using every function of the guest library, in C and in Rust, printing each
/// value: for the same choices both must print the same.
const EVERY_FUNCTION_C: &str = r#"#include <stdio.h>
#include "bugrank_gen.h"
/* Each value is drawn in its own statement: C leaves the order of a call's arguments open. */
int main(void) {
    static const uint64_t weights[4] = {0, 3, 0, 1};
    char text[13];
    unsigned long long choice = bg_choice(1000);
    unsigned size = bg_size();
    int flag = bg_bool();
    printf("%llu %u %d\n", choice, size, flag);
    long long a = bg_int_in(-5, 1000), b = bg_int_in(7, -3), c = bg_int_in(INT64_MIN, INT64_MAX), d = bg_int_in(-100, -50);
    printf("%lld %lld %lld %lld\n", a, b, c, d);
    int small = bg_small_int(), any = bg_i32_any();
    size_t weighted = bg_weighted(weights, 4);
    int corner = BG_ONE_OF(BG_I32_CORNERS);
    printf("%d %d %zu %d\n", small, any, weighted, corner);
    bg_many many = bg_many_new(5);
    while (bg_many_more(&many)) printf("[%d]", bg_small_int());
    size_t cap = bg_length_cap(1000);
    printf(" %zu %zu\n", many.count, cap);
    bg_string_of("ab@.", 12, text);
    int more = bg_more();
    printf("%s|%d\n", text, more);
    char word[101];
    bg_many sized = bg_many_sized(40);
    while (bg_many_more(&sized)) printf("<%d>", bg_small_int());
    size_t sized_cap = bg_sized_cap(100);
    printf(" %zu %zu\n", sized.count, sized_cap);
    bg_sized_string_of("xyz", 100, word);
    printf("sized %s\n", word);
    return 0;
}
"#;

const EVERY_FUNCTION_RUST: &str = r#"use bugrank_gen as g;
fn main() {
    println!("{} {} {}", g::choice(1000), g::size(), g::bool() as i32);
    println!("{} {} {} {}", g::int_in(-5, 1000), g::int_in(7, -3), g::int_in(i64::MIN, i64::MAX), g::int_in(-100, -50));
    println!("{} {} {} {}", g::small_int(), g::i32_any(), g::weighted(&[0, 3, 0, 1]), g::one_of(&g::I32_CORNERS));
    let mut many = g::Many::new(5);
    while many.more() { print!("[{}]", g::small_int()); }
    println!(" {} {}", many.count(), g::length_cap(1000));
    let text = g::string_of("ab@.", 12);
    println!("{}|{}", text, g::more() as i32);
    let mut sized = g::Many::sized(40);
    while sized.more() { print!("<{}>", g::small_int()); }
    println!(" {} {}", sized.count(), g::sized_cap(100));
    println!("sized {}", g::sized_string_of("xyz", 100));
}
"#;

const EVERY_FUNCTION_PYTHON: &str = r#"import bugrank_gen as g
print(g.choice(1000), g.size(), int(g.bool_()))
print(g.int_in(-5, 1000), g.int_in(7, -3), g.int_in(-2**63, 2**63 - 1), g.int_in(-100, -50))
print(g.small_int(), g.i32_any(), g.weighted([0, 3, 0, 1]), g.one_of(g.I32_CORNERS))
many = g.Many(5)
while many.more():
    print(f"[{g.small_int()}]", end="")
print(f" {many.count()} {g.length_cap(1000)}")
text = g.string_of("ab@.", 12)
print(f"{text}|{int(g.more())}")
sized = g.Many(40, sized=True)
while sized.more():
    print(f"<{g.small_int()}>", end="")
print(f" {sized.count()} {g.sized_cap(100)}")
print(f"sized {g.sized_string_of('xyz', 100)}")
"#;

#[test]
fn the_c_and_python_generator_libraries_give_the_same_values_as_the_rust_one_for_the_same_choices() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let load = |name: &str, file: &str, text: &str| {
        let dir = root.path().join(name);
        new_problem(&dir, name, AuthorLanguage::C, false).unwrap();
        std::fs::remove_file(dir.join("generator.c")).unwrap();
        std::fs::remove_file(dir.join("bugrank_gen.h")).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        ProblemDir::load(&tools().sandbox, &tools().builder, &dir).unwrap()
    };
    let (c, rust, python) =
        (load("c", "generator.c", EVERY_FUNCTION_C), load("rust", "generator.rs", EVERY_FUNCTION_RUST), load("python", "generator.py", EVERY_FUNCTION_PYTHON));
    let (c, rust, python) = (c.executor(&tools().sandbox, []), rust.executor(&tools().sandbox, []), python.executor(&tools().sandbox, []));
    let (mut lines, mut caps) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for index in 0..500 {
        let (from_rust, choices) = rust.generate(ChoiceSource::for_random_test(7, index));
        let from_rust = String::from_utf8(from_rust.unwrap()).unwrap();
        caps.insert(from_rust.lines().nth(3).and_then(|line| line.split(' ').next_back()).unwrap().parse::<u64>().unwrap());
        let choices = choices.into_test_case().choices;
        for other in [&c, &python] {
            let (from_other, _) = other.generate(ChoiceSource::for_random_test(7, index));
            assert_eq!(String::from_utf8(from_other.unwrap()).unwrap(), from_rust, "choices {choices:?}");
        }
        lines.extend(from_rust.lines().map(str::to_owned));
    }
    assert!(lines.len() > 1000, "the values vary: {} distinct lines", lines.len());
    let longest = lines.iter().filter_map(|line| line.strip_prefix("sized ")).map(str::len).max().unwrap();
    assert!((90..=100).contains(&longest), "a sized collection reaches near its maximum of 100: {longest}");
    // `length_cap(1000)`: 1 + size / 4 while that is more, else in proportion to the size,
    // so that a plain collection's maximum is reached at the largest size too.
    assert_eq!(caps, (0..=100).map(|size| (1 + size / 4).max(10 * size)).collect(), "length_cap(1000) at every size");
}

/// The native stand-ins for the host (a generator built with plain `cc` or `rustc`, or run
/// with plain `python3`, to try it out) read the environment alike: bad entries of `BUGRANK_CHOICES` are skipped,
/// values out of range folded, white space ignored, bad sizes and seeds fall back.
#[test]
fn built_natively_the_c_rust_and_python_generator_libraries_read_the_environment_alike() {
    let Some(cc) = ["cc", "clang", "gcc"].into_iter().find(|cc| std::process::Command::new(cc).arg("--version").output().is_ok()) else {
        assert!(std::env::var_os("CI").is_none(), "under CI a C compiler is installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    std::fs::write(path("bugrank_gen.h"), toolchain::guest::C_HEADER).unwrap();
    std::fs::write(path("bugrank_gen.rs"), toolchain::guest::RUST_CRATE).unwrap();
    std::fs::write(path("every.c"), EVERY_FUNCTION_C).unwrap();
    std::fs::write(path("every.rs"), EVERY_FUNCTION_RUST).unwrap();
    let run = |program: &str, args: &[&str]| {
        let out = std::process::Command::new(program).args(args).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    std::fs::write(path("bugrank_gen.py"), toolchain::guest::PYTHON_MODULE).unwrap();
    std::fs::write(path("every.py"), EVERY_FUNCTION_PYTHON).unwrap();
    run(cc, &["-std=c11", "-O1", "-o", "every-c", "every.c"]);
    run("rustc", &["--edition=2021", "--crate-type=rlib", "--crate-name=bugrank_gen", "-o", "libbugrank_gen.rlib", "bugrank_gen.rs"]);
    run("rustc", &["--edition=2021", "--extern", "bugrank_gen=libbugrank_gen.rlib", "-o", "every-rust", "every.rs"]);
    let settings: [&[(&str, &str)]; 8] = [
        &[],
        &[("BUGRANK_SEED", "7"), ("BUGRANK_SIZE", "100")],
        &[("BUGRANK_ZERO", "1")],
        &[("BUGRANK_CHOICES", "3,,5,x,999999,+2, 4 ,-1,18446744073709551616,7")],
        &[("BUGRANK_CHOICES", "  "), ("BUGRANK_SEED", "abc"), ("BUGRANK_SIZE", "abc")],
        &[("BUGRANK_SIZE", "-4"), ("BUGRANK_CHOICES", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1")],
        &[("BUGRANK_SIZE", " 1000 "), ("BUGRANK_SEED", "18446744073709551615")],
        &[("BUGRANK_TRACE", "1"), ("BUGRANK_SEED", "3")],
    ];
    for env in settings {
        let output = |program: &str| {
            let mut command = match program {
                "every.py" => std::process::Command::new("python3"),
                _ => std::process::Command::new(path(program)),
            };
            if program == "every.py" {
                command.arg(path(program)).current_dir(dir.path());
            }
            for name in ["BUGRANK_SEED", "BUGRANK_SIZE", "BUGRANK_ZERO", "BUGRANK_CHOICES", "BUGRANK_TRACE"] {
                command.env_remove(name);
            }
            let out = command.envs(env.iter().copied()).output().unwrap();
            assert!(out.status.success(), "{program} with {env:?}");
            (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
        };
        assert_eq!(output("every-c"), output("every-rust"), "with {env:?}");
        assert_eq!(output("every.py"), output("every-rust"), "with {env:?}");
    }
}

#[test]
fn a_python_hand_in_of_a_function_level_problem_is_told_what_does_not_fit_its_harness() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("stack");
    new_problem(&dir, "stack", AuthorLanguage::Python, true).unwrap();
    let problem = ProblemDir::load(&tools().sandbox, &tools().builder, &dir).unwrap();
    let correct = std::fs::read_to_string(dir.join("submissions/correct.py")).unwrap();
    let check = |text: &str, said: Option<&str>| {
        let source = toolchain::Source { language: Language::Python, files: vec![("mine.py".into(), text.as_bytes().to_vec())] };
        let loaded = course::load::build(&tools().sandbox, &tools().builder, &problem.accepted, "mine.py", &source, None).unwrap();
        match (loaded, said) {
            (course::hand_in::Loaded::Program(..), None) => {}
            (course::hand_in::Loaded::NotBuilt(build), Some(said)) => {
                let error = build.error.unwrap();
                assert!(error.starts_with(said), "{error}");
            }
            (loaded, said) => panic!("expected {said:?}, got {}", matches!(loaded, course::hand_in::Loaded::Program(..))),
        }
    };
    check(&correct, None);
    check(&correct.replace("def size", "def count"), Some("Your file does not define `size`, which the harness calls."));
    check(&format!("n = int(input())\n{correct}"), Some("Your file reads the input itself when it is loaded (line 1: `n = int(input())`)"));
    check("def init(c):\n  pass\n  return (\n", Some("  File \"mine.py\", line 3"));
}

#[test]
fn with_a_checker_a_buggy_example_must_be_rejected_by_it_not_only_crash() {
    let root = tempfile::tempdir().unwrap();
    let (from, dir) = (end_to_end::root().join("fixtures/problems/cryptarithm"), root.path().join("cryptarithm"));
    std::fs::create_dir_all(dir.join("submissions")).unwrap();
    for file in ["problem.toml", "reference.wasm", "generator.wasm", "checker.wasm"] {
        std::fs::copy(from.join(file), dir.join(file)).unwrap();
    }
    // a14 crashes on every input; a06 gives a wrong answer on some.
    std::fs::copy(from.join("submissions/a14.wasm"), dir.join("submissions/buggy_crash.wasm")).unwrap();
    std::fs::copy(from.join("submissions/a06.wasm"), dir.join("submissions/buggy_wrong.wasm")).unwrap();
    let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir, None).unwrap();
    let text = check_text(&problem, &report);
    assert_eq!(failed(&dir), ["the buggy example `buggy_crash` fails some input, rejected by the checker"], "{text}");
    assert!(text.contains("but the checker rejects none of its outputs: it may accept wrong answers"), "{text}");
    assert!(text.contains("ok    the buggy example `buggy_wrong` fails some input, rejected by the checker"), "{text}");
}

/// A checker for the average problem (`fixtures/packages/average`, imported) written with the
/// checker library: the words of the model answer, numbers within 10^-6, as its
/// `oracle = "tokens"` judges; in C and in Rust.
const LIBRARY_CHECKERS: [(&str, &str); 2] = [
    (
        "checker.c",
        r#"#include "bugrank_check.h"

int main(void) {
    bc_parts parts = bc_read();
    char reason[512];
    if (!bc_compare_tokens(parts.expected, parts.actual, 0, 1e-6, 1e-6, reason, sizeof reason)) bc_reject("%s", reason);
    bc_accept();
}
"#,
    ),
    (
        "checker.rs",
        r#"use bugrank_check as check;

fn main() {
    let parts = check::read();
    match check::compare_tokens(&parts.expected, &parts.actual, false, 1e-6, 1e-6) {
        Ok(()) => check::accept(),
        Err(reason) => check::reject(reason),
    }
}
"#,
    ),
];

#[test]
fn a_checker_written_with_the_checker_library_in_c_or_rust_judges_as_the_token_oracle_does() {
    if !can_build(&[Language::C, Language::Cpp, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let graded = |dir: &Path| {
        let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
        let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "200")]);
        let answers = &run.graded.analysis.answers;
        answers
            .iter()
            .map(|a| (a.id.clone(), a.failures.values().map(|f| f.failure.reason.clone().unwrap_or_default()).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
    };
    let tokens = root.path().join("tokens");
    course::import::import_package(&end_to_end::root().join("fixtures/packages/average"), &tokens).unwrap();
    let by_tokens = graded(&tokens);
    assert!(by_tokens.iter().any(|(_, reasons)| reasons.contains(&"word 1 of the output is `2` where `2.333333333` is expected".to_owned())), "{by_tokens:?}");
    for (file, text) in LIBRARY_CHECKERS {
        let dir = root.path().join(file.replace('.', "-"));
        course::import::import_package(&end_to_end::root().join("fixtures/packages/average"), &dir).unwrap();
        let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
        let toml = toml.replace("oracle = \"tokens\"", "oracle = \"checker\"");
        std::fs::write(dir.join("problem.toml"), toml).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir, None).unwrap();
        let text = check_text(&problem, &report);
        assert!(report.passed(), "{text}");
        assert!(
            text.contains("ok    the checker accepts the reference's outputs") && text.contains("The checker's fuel per check of the reference's outputs: "),
            "{text}"
        );
        assert_eq!(graded(&dir), by_tokens, "{file}: the same verdicts, with the same reasons, as the tokens oracle");
    }
}
