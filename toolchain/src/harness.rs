//! Function-level assignments: a problem's harness, built with each program.
//!
//! In such an assignment a hand-in is the file that defines the functions the assignment
//! asks for, with no `main`: the problem's harness is the program. It reads the generated
//! input, calls the functions and writes what they return through `bugrank.output` (with
//! `bugrank_harness.h` or `bugrank_harness.rs`, shipped here), so that the student's own
//! prints are never judged. Every program of the problem, its reference included, is built
//! as the harness plus one such file ([`crate::Builder::build_harnessed`]), with the same
//! flags; C and C++ files are compiled with `BUGRANK_HARNESS` defined, Rust with the cfg
//! `bugrank_harness`, so that a `main` kept for the student's own tests can stay out.
//!
//! Per language, a harness is:
//!
//! - C: `harness.c` and `interface.h` (the functions' declarations); C++: `harness.cpp`
//!   and `interface.h`. A hand-in's own copies of these files are replaced by the
//!   problem's.
//! - Rust: `harness.rs`, the crate's root, declaring `mod answer;` and calling
//!   `answer::…`; the hand-in (one `.rs` file, whatever its name) is that module.
//! - Python: `harness.py`, run as `__main__`, importing the hand-in (one `.py` file) as
//!   `answer` and writing with `bugrank_harness.out` (built into bugrank's CPython, which
//!   compiles them together: see `sandbox`'s `interpreter.rs`). Not built here.
//!
//! A hand-in that defines `main`, or lacks something the harness calls, is a build
//! failure that says so in plain words before the compiler's or linker's own message.

use crate::Language;

/// The C and C++ harnesses' library: `bh_printf` and `bh_write`.
pub const C_LIBRARY: (&str, &str) = ("bugrank_harness.h", include_str!("../guest/bugrank_harness.h"));

/// The Rust harnesses' library, the module `bugrank_harness`: `outln!`, `write`.
pub const RUST_LIBRARY: (&str, &str) = ("bugrank_harness.rs", include_str!("../guest/bugrank_harness.rs"));

/// The Python harnesses' library, the module `bugrank_harness` (`out`, `write`), built into
/// bugrank's CPython: a copy beside a harness is for the author's native runs.
pub const PYTHON_LIBRARY: (&str, &str) = ("bugrank_harness.py", include_str!("../guest/bugrank_harness.py"));

/// What `interface.h` is called: C and C++ hand-ins include it.
pub const INTERFACE: &str = "interface.h";

/// The module a Rust harness declares for the hand-in (`mod answer;`).
pub const RUST_MODULE: &str = "answer.rs";

/// A problem's harness for one language: its files (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harness {
    pub language: Language,
    pub files: Vec<(String, Vec<u8>)>,
}

impl Harness {
    /// The files a harness in `language` is made of, its `main` first.
    pub fn file_names(language: Language) -> &'static [&'static str] {
        match language {
            Language::C => &["harness.c", INTERFACE],
            Language::Cpp => &["harness.cpp", INTERFACE],
            Language::Rust => &["harness.rs"],
            Language::Python => &["harness.py"],
        }
    }

    /// The file names of every harness a problem directory may hold.
    pub const ALL_FILES: [&'static str; 5] = ["harness.c", "harness.cpp", INTERFACE, "harness.rs", "harness.py"];

    /// The library the harness is built with.
    fn library(&self) -> (&'static str, &'static str) {
        match self.language {
            Language::Rust => RUST_LIBRARY,
            _ => C_LIBRARY,
        }
    }
}

/// What a hand-in built with a harness is made of: the sources to compile and the name of
/// the student's file, when it was renamed (a Rust hand-in becomes `answer.rs`).
pub(crate) struct Combined {
    pub(crate) source: crate::Source,
    pub(crate) renamed: Option<String>,
}

/// The hand-in `source` with `harness`: the harness's files and library replace any
/// copies among the student's. `Err` says why they cannot be built together, in words.
pub(crate) fn combine(source: &crate::Source, harness: &Harness) -> Result<Combined, String> {
    if source.language != harness.language {
        return Err(format!("the harness is in {}, the hand-in in {}", harness.language, source.language));
    }
    let (library, text) = harness.library();
    let course: Vec<&str> = harness.files.iter().map(|(name, _)| name.as_str()).chain([library]).collect();
    let mut files: Vec<(String, Vec<u8>)> = source.files.iter().filter(|(name, _)| !course.contains(&name.as_str())).cloned().collect();
    let mut renamed = None;
    if source.language == Language::Rust {
        let own: Vec<&(String, Vec<u8>)> = files.iter().filter(|(name, _)| name.ends_with(".rs")).collect();
        let [(name, bytes)] = own.as_slice() else {
            return Err(format!("in this assignment a Rust hand-in is one .rs file that defines what the harness calls (found {})", own.len()));
        };
        if name != RUST_MODULE {
            renamed = Some(name.clone());
        }
        files = vec![(RUST_MODULE.to_owned(), bytes.clone())];
    }
    files.extend(harness.files.iter().cloned());
    files.push((library.to_owned(), text.as_bytes().to_vec()));
    Ok(Combined { source: crate::Source { language: source.language, files }, renamed })
}

/// A failed build of a hand-in with its harness, said in plain words first when the cause
/// is the hand-in's shape (a `main`, or something the harness calls that it lacks), then
/// the compiler's message. `student` is the hand-in's file name for messages that speak
/// of the module the harness sees (`answer.rs`).
pub(crate) fn explain(language: Language, message: &str, student: Option<&str>) -> String {
    let message = match student {
        Some(name) => message.replace(RUST_MODULE, name),
        None => message.to_owned(),
    };
    let mut said = Vec::new();
    if defines_main(language, &message) {
        said.push(main_in_words(language));
    }
    let missing = missing_names(&message);
    if !missing.is_empty() {
        let names = missing.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
        let what = match language {
            Language::Rust => "which the harness calls",
            _ => "which the assignment's interface (interface.h) declares and the harness calls",
        };
        said.push(format!("Your file does not define {names}, {what}."));
    }
    if said.is_empty() {
        return message;
    }
    format!("{}\n\nThe compiler said:\n{message}", said.join(" "))
}

/// Whether a build's messages say the hand-in defines `main`: the linker's duplicate
/// symbol (C, C++), or rustc's warning that the module's `main` is never used (Rust: a
/// `main` in a module is no error, but it never runs).
pub(crate) fn defines_main(language: Language, messages: &str) -> bool {
    match language {
        Language::Rust => messages.contains("function `main` is never used"),
        _ => messages.contains("duplicate symbol: main") || messages.contains("duplicate symbol: __main_argc_argv"),
    }
}

/// What a hand-in with a `main` is told.
fn main_in_words(language: Language) -> String {
    let keep = match language {
        Language::Rust => "put it under `#[cfg(not(bugrank_harness))]`",
        _ => "keep it between `#ifndef BUGRANK_HARNESS` and `#endif`",
    };
    format!(
        "Your file defines `main`, but in this assignment the course's harness is the program: it reads the tests and calls your \
         functions. Remove your `main`, or, to keep it for your own tests, {keep}."
    )
}

/// The names a build's messages say are missing: the linker's undefined symbols (C, C++),
/// rustc's items not found in the module `answer` (Rust), in the order first named.
fn missing_names(messages: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: String| {
        if !names.contains(&name) {
            names.push(name);
        }
    };
    for line in messages.lines() {
        if let Some(rest) = line.split("undefined symbol: ").nth(1) {
            add(rest.trim().to_owned());
        }
        // rustc: "cannot find function `insert` in module `answer`",
        // "no function or associated item named `len` found for struct `Lru` in the current scope".
        if let Some(rest) = line.split("cannot find ").nth(1).filter(|rest| rest.contains("in module `answer`")) {
            if let Some(name) = between_backticks(rest) {
                add(name);
            }
        }
        if let Some(rest) = line.split("no function or associated item named ").nth(1) {
            let mut quoted = rest.split('`').skip(1).step_by(2);
            if let (Some(item), Some(owner)) = (quoted.next(), quoted.next()) {
                add(format!("{owner}::{item}"));
            }
        }
        if let Some(rest) = line.split("no method named ").nth(1) {
            if let Some(name) = between_backticks(rest) {
                add(format!("the method {name}"));
            }
        }
    }
    names
}

/// The first text between backticks in `text`.
fn between_backticks(text: &str) -> Option<String> {
    text.split('`').nth(1).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(language: Language, message: &str, expected: &[&str]) {
        let said = explain(language, message, Some("lru.rs"));
        for words in expected {
            assert!(said.contains(words), "{said:?} lacks {words:?}");
        }
        assert!(said.ends_with(&message.replace(RUST_MODULE, "lru.rs")), "the compiler's own message comes last: {said:?}");
    }

    #[test]
    fn a_c_main_beside_the_harness_is_said_in_words() {
        check(
            Language::C,
            "wasm-ld: error: duplicate symbol: main\n>>> defined in harness.o\n>>> defined in answer.o\nclang: error: linker command failed",
            &["Your file defines `main`", "#ifndef BUGRANK_HARNESS", "The compiler said:"],
        );
    }

    #[test]
    fn functions_the_linker_misses_are_named_once_each() {
        check(
            Language::C,
            "wasm-ld: error: harness.o: undefined symbol: lru_put\nwasm-ld: error: harness.o: undefined symbol: lru_size\nwasm-ld: error: harness.o: undefined symbol: lru_put",
            &["Your file does not define `lru_put`, `lru_size`, which the assignment's interface (interface.h) declares"],
        );
    }

    #[test]
    fn rust_items_the_harness_cannot_find_are_named_as_the_student_wrote_them() {
        check(
            Language::Rust,
            "error[E0425]: cannot find function `member` in module `answer`\n --> harness.rs:12:30\nerror[E0599]: no function or associated item named `len` found for struct `Lru` in the current scope\n --> answer.rs:3:1",
            &["Your file does not define `member`, `Lru::len`, which the harness calls", "--> lru.rs:3:1"],
        );
    }

    #[test]
    fn a_rust_main_is_said_in_words() {
        check(Language::Rust, "warning: function `main` is never used\n --> answer.rs:40:4", &["Your file defines `main`", "#[cfg(not(bugrank_harness))]"]);
    }

    #[test]
    fn other_failures_are_the_compilers_message_alone() {
        let message = "answer.c:3:5: error: use of undeclared identifier 'x'";
        assert_eq!(explain(Language::C, message, None), message);
    }

    #[test]
    fn a_hand_ins_copies_of_the_harness_files_are_replaced_and_a_rust_file_becomes_the_module_answer() {
        let harness = Harness { language: Language::Rust, files: vec![("harness.rs".into(), b"mod answer;".to_vec())] };
        let source = crate::Source { language: Language::Rust, files: vec![("lru.rs".into(), b"pub fn f() {}".to_vec()), ("harness.rs".into(), b"old".to_vec())] };
        let combined = combine(&source, &harness).unwrap();
        let names: Vec<&str> = combined.source.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["answer.rs", "harness.rs", "bugrank_harness.rs"]);
        assert_eq!(combined.source.files[1].1, b"mod answer;");
        assert_eq!(combined.renamed.as_deref(), Some("lru.rs"));
        let two = crate::Source { language: Language::Rust, files: vec![("a.rs".into(), vec![]), ("b.rs".into(), vec![])] };
        assert!(combine(&two, &harness).err().unwrap().contains("one .rs file"));
    }
}
