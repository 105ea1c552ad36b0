//! Hand-ins of a function-level assignment, built with the problem's harness: what builds,
//! and what a student is told when their file does not fit the harness.
//!
//! Each test needs the toolchain of its language and bubblewrap; without them it says so
//! and passes, except under `CI`, where it fails.

use toolchain::{Builder, Built, Harness, Language, Source};

/// A counter: `add N` lines and `total` lines, one output line each.
const INTERFACE: &str = "void counter_add(int n);\nint counter_total(void);\n";
const C_HARNESS: &str = r#"#include <stdio.h>
#include <string.h>
#include "bugrank_harness.h"
#include "interface.h"
int main(void) {
    char line[100];
    int n;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "add %d", &n) == 1) { counter_add(n); bh_printf("ok\n"); }
        else if (strncmp(line, "total", 5) == 0) bh_printf("%d\n", counter_total());
    }
    return 0;
}
"#;
const RUST_HARNESS: &str = r#"mod answer;
mod bugrank_harness;
fn main() {
    let mut counter = answer::Counter::new();
    for line in std::io::stdin().lines().map_while(Result::ok) {
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["add", n] => { counter.add(n.parse().unwrap()); outln!("ok"); }
            ["total"] => outln!("{}", counter.total()),
            _ => outln!("?"),
        }
    }
}
"#;

fn harness(language: Language) -> Harness {
    let files = match language {
        Language::Rust => vec![("harness.rs".to_owned(), RUST_HARNESS.as_bytes().to_vec())],
        // (The C harness is C++ too.)
        Language::Cpp => vec![("harness.cpp".to_owned(), C_HARNESS.as_bytes().to_vec()), ("interface.h".to_owned(), INTERFACE.as_bytes().to_vec())],
        _ => vec![("harness.c".to_owned(), C_HARNESS.as_bytes().to_vec()), ("interface.h".to_owned(), INTERFACE.as_bytes().to_vec())],
    };
    Harness { language, files }
}

/// The build of `text` as the file `name` with the counter's harness, if `language` can
/// be built here.
fn build(language: Language, name: &str, text: &str) -> Option<Built> {
    let builder = Builder::new(None);
    if let Err(missing) = builder.ready(language) {
        assert!(std::env::var_os("CI").is_none(), "under CI every toolchain must be installed: {missing}");
        eprintln!("skipped: {missing}");
        return None;
    }
    let source = Source { language, files: vec![(name.to_owned(), text.as_bytes().to_vec())] };
    Some(builder.build_harnessed(&source, &harness(language), None).unwrap())
}

/// Checks that `text` builds with every one of `said` in its warnings.
fn check_warned(language: Language, name: &str, text: &str, said: &[&str]) {
    let Some(built) = build(language, name, text) else { return };
    let Built::Module { warnings, .. } = built else { panic!("{name} did not build: {built:?}") };
    for words in said {
        assert!(warnings.contains(words), "{warnings}\n--- lacks: {words}");
    }
}

/// Checks that `text` fails to build with every one of `said` in its message.
fn check_refused(language: Language, name: &str, text: &str, said: &[&str]) {
    let Some(built) = build(language, name, text) else { return };
    let Built::Failed { message, .. } = built else { panic!("{name} built") };
    for words in said {
        assert!(message.contains(words), "{message}\n--- lacks: {words}");
    }
}

const C_COUNTER: &str = "#include <stdio.h>\n#include \"interface.h\"\nstatic int total;\nvoid counter_add(int n) { printf(\"adding %d\\n\", n); total += n; }\nint counter_total(void) { return total; }\n";

#[test]
fn a_c_file_of_the_interfaces_functions_builds_with_the_harness_into_a_module_importing_its_output() {
    let Some(built) = build(Language::C, "counter.c", C_COUNTER) else { return };
    let Built::Module { wasm, .. } = built else { panic!("{built:?}") };
    // An import's module and field are length-prefixed names in the import section.
    let imports_output = wasm.windows(15).any(|w| w == b"\x07bugrank\x06output");
    assert!(imports_output, "the harness writes through bugrank.output");
}

#[test]
fn a_cpp_file_builds_with_a_cpp_harness_and_its_main_is_said_in_plain_words() {
    let Some(built) = build(Language::Cpp, "counter.cpp", C_COUNTER) else { return };
    assert!(matches!(built, Built::Module { .. }), "{built:?}");
    let text = format!("{C_COUNTER}int main() {{ counter_add(2); return 0; }}\n");
    check_warned(Language::Cpp, "counter.cpp", &text, &["Your file defines `main`, which is left out", "#ifndef BUGRANK_HARNESS"]);
}

#[test]
fn a_cpp_file_that_throws_and_catches_builds_with_the_harness() {
    let text = "#include <stdexcept>\n#include \"interface.h\"\nstatic int total;\n\
        void counter_add(int n) {\n    try {\n        if (n < 0) throw std::invalid_argument(\"negative\");\n        total += n;\n    } catch (const std::invalid_argument&) {\n        total = 0;\n    }\n}\n\
        int counter_total(void) { return total; }\n";
    let Some(built) = build(Language::Cpp, "counter.cpp", text) else { return };
    assert!(matches!(built, Built::Module { .. }), "{built:?}");
}

#[test]
fn a_c_main_kept_under_bugrank_harness_is_left_out_and_builds() {
    let text = format!("{C_COUNTER}#ifndef BUGRANK_HARNESS\nint main(void) {{ counter_add(2); return 0; }}\n#endif\n");
    let Some(built) = build(Language::C, "counter.c", &text) else { return };
    assert!(matches!(built, Built::Module { .. }), "{built:?}");
}

#[test]
fn a_c_file_with_its_own_main_builds_with_it_left_out_and_is_warned_in_plain_words() {
    let text = format!("{C_COUNTER}int main(void) {{ counter_add(2); return 0; }}\n");
    check_warned(Language::C, "counter.c", &text, &["Your file defines `main`, which is left out", "#ifndef BUGRANK_HARNESS"]);
}

/// A hand-in that writes every answer itself, through the harness library, from a
/// constructor, and ends the run before the harness starts: its functions do nothing.
const C_WRITES_ITS_OWN_VERDICT: &str = "#include <stdlib.h>\n#include \"bugrank_harness.h\"\n#include \"interface.h\"\n\
    __attribute__((constructor)) static void answers(void) { bh_printf(\"ok\\nok\\n3\\n\"); exit(0); }\n\
    void counter_add(int n) { (void)n; }\nint counter_total(void) { return 0; }\n";

#[test]
fn a_c_file_that_writes_the_judged_output_itself_is_refused_and_told_why() {
    check_refused(Language::C, "counter.c", C_WRITES_ITS_OWN_VERDICT, &["Your file writes the judged output itself (it calls `output` of bugrank"]);
    // Through the import declared by hand, from a function the harness calls.
    let by_hand = "#include <stddef.h>\n__attribute__((import_module(\"bugrank\"), import_name(\"output\"))) int out(const void *, size_t);\n\
        static int total;\nvoid counter_add(int n) { total += n; }\nint counter_total(void) { out(\"3\\n\", 2); return total; }\n";
    check_refused(
        Language::Cpp,
        "counter.cpp",
        &by_hand.replace("__attribute__", "extern \"C\" __attribute__"),
        &["Your file writes the judged output itself"],
    );
    check_refused(Language::C, "counter.c", by_hand, &["Your file writes the judged output itself"]);
}

#[test]
fn a_c_constructor_is_refused_and_a_cpp_globals_initialisation_is_not() {
    let constructor = format!("{C_COUNTER}__attribute__((constructor)) static void early(void) {{ counter_add(1); }}\n");
    check_refused(Language::C, "counter.c", &constructor, &["Your file runs code of its own before the harness starts (`early`, a constructor)"]);
    let memo = "#include <map>\n#include \"interface.h\"\nstatic std::map<int, int> seen;\nstatic int total;\n\
        void counter_add(int n) { seen[n]++; total += n; }\nint counter_total(void) { return total; }\n";
    let Some(built) = build(Language::Cpp, "counter.cpp", memo) else { return };
    assert!(matches!(built, Built::Module { .. }), "{built:?}");
}

#[test]
fn a_c_file_without_a_function_of_the_interface_is_told_which() {
    let text = "#include \"interface.h\"\nvoid counter_add(int n) { (void)n; }\n";
    check_refused(Language::C, "counter.c", text, &["Your file does not define `counter_total`", "interface.h"]);
}

#[test]
fn a_students_own_copy_of_the_interface_is_replaced_by_the_courses() {
    let Some(builder) = Some(Builder::new(None)).filter(|b| b.ready(Language::C).is_ok()) else { return };
    // The copy changes the signature: built with it, the harness would not compile.
    let source = Source {
        language: Language::C,
        files: vec![("counter.c".into(), C_COUNTER.as_bytes().to_vec()), ("interface.h".into(), b"int counter_add(const char *name);\n".to_vec())],
    };
    let built = builder.build_harnessed(&source, &harness(Language::C), None).unwrap();
    assert!(matches!(built, Built::Module { .. }), "{built:?}");
}

const RUST_COUNTER: &str = "pub struct Counter { total: i64 }\nimpl Counter {\n    pub fn new() -> Counter { Counter { total: 0 } }\n    pub fn add(&mut self, n: i64) { println!(\"adding {n}\"); self.total = self.total.checked_add(n).expect(\"no overflow\"); }\n    pub fn total(&self) -> i64 { self.total }\n}\n";

#[test]
fn a_rust_file_of_any_name_builds_as_the_harnesss_module_answer_and_its_panics_name_it() {
    let Some(built) = build(Language::Rust, "my_counter.rs", RUST_COUNTER) else { return };
    let Built::Module { wasm, .. } = built else { panic!("{built:?}") };
    let holds = |text: &[u8]| wasm.windows(text.len()).any(|w| w == text);
    assert!(holds(b"my_counter.rs") && !holds(b"answer.rs"), "a panic's location is the student's file");
}

#[test]
fn a_rust_file_with_a_main_builds_and_is_warned_under_its_own_name() {
    let text = format!("{RUST_COUNTER}fn main() {{ let mut c = Counter::new(); c.add(1); }}\n");
    check_warned(Language::Rust, "my_counter.rs", &text, &["Your file defines `main`, which is left out", "#[cfg(not(bugrank_harness))]", "my_counter.rs"]);
}

#[test]
fn a_rust_file_cannot_name_the_harnesss_library_nor_declare_its_output() {
    // The harness's crate is not the hand-in's: its library cannot be named from it.
    let through_library = RUST_COUNTER
        .replace("pub fn total(&self) -> i64 { self.total }", "pub fn total(&self) -> i64 { crate::bugrank_harness::write(b\"3\\n\"); std::process::exit(0) }");
    check_refused(Language::Rust, "my_counter.rs", &through_library, &["Your file uses the harness's own library", "my_counter.rs"]);
    let through_macro = RUST_COUNTER.replace("pub fn total(&self) -> i64 { self.total }", "pub fn total(&self) -> i64 { crate::outln!(\"3\"); 0 }");
    check_refused(Language::Rust, "my_counter.rs", &through_macro, &["Your file uses the harness's own library"]);
    // Nor can it declare the host's output itself.
    let by_hand = format!("{RUST_COUNTER}#[link(wasm_import_module = \"bugrank\")]\nextern \"C\" {{ fn output(p: *const u8, n: usize) -> i32; }}\n");
    check_refused(Language::Rust, "my_counter.rs", &by_hand, &["has the attribute `#[link]`"]);
    let included = format!("{RUST_COUNTER}mod h {{ include!(\"bugrank_harness.rs\"); }}\n");
    check_refused(Language::Rust, "my_counter.rs", &included, &["takes in another file (`include!`)"]);
}

#[test]
fn a_rust_file_lacking_a_method_the_harness_calls_is_told_which() {
    let text = "pub struct Counter { total: i64 }\nimpl Counter {\n    pub fn new() -> Counter { Counter { total: 0 } }\n    pub fn add(&mut self, n: i64) { self.total += n; }\n}\n";
    check_refused(Language::Rust, "my_counter.rs", text, &["Your file does not define", "total", "which the harness calls"]);
}
