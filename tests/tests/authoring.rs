//! Writing a problem from source: `bugrank new-problem` gives a working problem in C or
//! Rust, `bugrank check-problem` says whether a problem is ready (and what is wrong when
//! not), and the generator library gives the same inputs in C as in Rust.

use std::path::Path;

use end_to_end::{can_build, grade_without_roster, tools};
use grader::{ChoiceSource, Executor};
use toolchain::Language;
use web::authoring::{AuthorLanguage, check_text, new_problem, run_check_problem};
use web::problem::ProblemDir;

/// `(what, passed)` of each check of the problem in `dir`.
fn checks(dir: &Path) -> Vec<(String, bool)> {
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, dir).unwrap();
    report.checks.iter().map(|c| (c.what.clone(), c.passed)).collect()
}

fn failed(dir: &Path) -> Vec<String> {
    checks(dir).into_iter().filter(|(_, passed)| !passed).map(|(what, _)| what).collect()
}

#[test]
fn a_new_problem_in_c_or_rust_is_ready_and_grades_its_buggy_example_on_the_simplest_failing_input() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mut samples = Vec::new();
    for (name, language) in [("largest-c", AuthorLanguage::C), ("largest-rust", AuthorLanguage::Rust)] {
        let dir = root.path().join(name);
        new_problem(&dir, name, language).unwrap();
        let (problem, report) = run_check_problem(&tools().sandbox, &tools().builder, &dir).unwrap();
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
    assert!(new_problem(&root.path().join("largest-c"), "again", AuthorLanguage::C).unwrap_err().to_string().contains("already exists"));
}

/// A new C problem in a temporary directory, edited by `edit` (file, text).
fn edited(edits: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    new_problem(&dir, "p", AuthorLanguage::C).unwrap();
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
    let root = edited(&[("generator.c", "#include <stdio.h>\n#include <stdlib.h>\n#include \"bugrank_gen.h\"\nint main(void) { if (bg_choice(9) == 0) abort(); printf(\"1\\n\"); return 0; }\n")]);
    let names = failed(&root.path().join("p"));
    assert!(names.contains(&"all-zero choices give the simplest input, which the reference handles".to_owned()), "{names:?}");
    assert!(names.contains(&"the generator writes an input for every sequence of choices".to_owned()), "{names:?}");

    // A generator whose choice 0 is longer than other inputs it makes is pointed out, and
    // one that never makes a negative number leaves the buggy example's bug unseen.
    let root = edited(&[("generator.c", "#include <stdio.h>\n#include \"bugrank_gen.h\"\nint main(void) { unsigned long long r = bg_choice(9); printf(\"%llu\\n\", r == 0 ? 10 : r); return 0; }\n")]);
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p")).unwrap();
    let zero = report.checks.iter().find(|c| c.what.starts_with("all-zero choices")).unwrap();
    assert!(zero.passed && zero.detail.contains("Shorter inputs are generated too, such as \""), "{}", zero.detail);
    assert_eq!(failed(&root.path().join("p")), ["the buggy example `buggy` fails some input"]);

    // A reference that crashes on some inputs.
    let crashing = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) { long long x, m = 0; int any = 0;\n while (scanf(\"%lld\", &x) == 1) { if (x == 2147483647) abort(); if (!any || x > m) m = x; any = 1; }\n if (any) printf(\"%lld\\n\", m); else printf(\"empty\\n\"); return 0; }\n";
    let root = edited(&[("reference.c", crashing)]);
    let (_, report) = run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p")).unwrap();
    let reference = report.checks.iter().find(|c| c.what.starts_with("the reference handles")).unwrap();
    assert!(!reference.passed && reference.detail.contains("fail; on ") && reference.detail.contains("2147483647"), "{}", reference.detail);

    // A reference that does not compile cannot be checked: the error names the file and line.
    let root = edited(&[("reference.c", "int main(void) { return 0 }\n")]);
    let error = format!("{:#}", run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p")).err().unwrap());
    assert!(error.contains("reference.c does not compile") && error.contains("reference.c:1:"), "{error}");

    // Two sources of one program are ambiguous.
    let root = edited(&[("reference.rs", "fn main() {}\n")]);
    let error = format!("{:#}", run_check_problem(&tools().sandbox, &tools().builder, &root.path().join("p")).err().unwrap());
    assert!(error.contains("reference.c and reference.rs: keep one source of reference"), "{error}");
}

/// A generator using every function of the guest library, in C and in Rust, printing each
/// value: for the same choices both must print the same.
const EVERY_FUNCTION_C: &str = r#"#include <stdio.h>
#include "bugrank_gen.h"
int main(void) {
    static const uint64_t weights[4] = {0, 3, 0, 1};
    char text[13];
    printf("%llu %u %d\n", (unsigned long long)bg_choice(1000), bg_size(), bg_bool());
    printf("%lld %lld %lld %lld\n", (long long)bg_int_in(-5, 1000), (long long)bg_int_in(7, -3), (long long)bg_int_in(INT64_MIN, INT64_MAX), (long long)bg_int_in(-100, -50));
    printf("%d %d %zu %d\n", bg_small_int(), bg_i32_any(), bg_weighted(weights, 4), BG_ONE_OF(BG_I32_CORNERS));
    bg_many many = bg_many_new(5);
    while (bg_many_more(&many)) printf("[%d]", bg_small_int());
    printf(" %zu %zu\n", many.count, bg_length_cap(1000));
    bg_string_of("ab@.", 12, text);
    printf("%s|%d\n", text, bg_more());
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
}
"#;

#[test]
fn the_c_generator_library_gives_the_same_values_as_the_rust_one_for_the_same_choices() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let load = |name: &str, file: &str, text: &str| {
        let dir = root.path().join(name);
        new_problem(&dir, name, AuthorLanguage::C).unwrap();
        std::fs::remove_file(dir.join("generator.c")).unwrap();
        std::fs::remove_file(dir.join("bugrank_gen.h")).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        ProblemDir::load(&tools().sandbox, &tools().builder, &dir).unwrap()
    };
    let (c, rust) = (load("c", "generator.c", EVERY_FUNCTION_C), load("rust", "generator.rs", EVERY_FUNCTION_RUST));
    let (c, rust) = (c.executor(&tools().sandbox, []), rust.executor(&tools().sandbox, []));
    let mut lines = std::collections::BTreeSet::new();
    for index in 0..500 {
        let (from_c, choices) = c.generate(ChoiceSource::for_random_test(7, index));
        let (from_rust, _) = rust.generate(ChoiceSource::for_random_test(7, index));
        let from_c = String::from_utf8(from_c.unwrap()).unwrap();
        assert_eq!(from_c, String::from_utf8(from_rust.unwrap()).unwrap(), "choices {:?}", choices.into_test_case().choices);
        lines.extend(from_c.lines().map(str::to_owned));
    }
    assert!(lines.len() > 1000, "the values vary: {} distinct lines", lines.len());
}
