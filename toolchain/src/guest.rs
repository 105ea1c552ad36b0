//! The generators' guest library (and the checkers', `bugrank_check`), shipped inside bugrank to problem authors: the Rust
//! crate `bugrank_gen`, its C/C++ twin `bugrank_gen.h` and its Python twin
//! `bugrank_gen.py`, the same functions giving the same values for the same choices (C against Rust tested in
//! `tests/tests/end_to_end/authoring.rs`). A generator is built with it ([`crate::Builder::build_generator`]: a Rust
//! generator builds the crate first, in the same jail), a checker with `bugrank_check` ([`checker_library`],
//! [`crate::Builder::build_checker`]); `bugrank new-problem` writes a copy beside the
//! generator for the author's editor and native builds. Pitfall: a copy in the problem
//! directory is used instead of bugrank's own, so the problem keeps building with the
//! library it was written with; an edited copy is the author's library.

use crate::language::Language;

/// `bugrank_gen.h`: the library for C and C++ generators, header only.
pub const C_HEADER: &str = include_str!("../guest/bugrank_gen.h");

/// `bugrank_gen.rs`: the library for Rust generators, the crate `bugrank_gen` (the
/// fixtures' generators are built with it too, by `fixtures/build.sh`).
pub const RUST_CRATE: &str = include_str!("../guest/bugrank_gen.rs");

/// `bugrank_gen.py`: the library for Python generators, the module `bugrank_gen`. It is
/// inside bugrank's Python (`toolchain/python/build.sh` puts it in the standard library's
/// archive), so a Python generator always imports bugrank's own: a copy beside the
/// generator is for the author's native runs only.
pub const PYTHON_MODULE: &str = include_str!("../guest/bugrank_gen.py");

/// `bugrank_check.h`: the library for C and C++ checkers, header only.
pub const C_CHECK_HEADER: &str = include_str!("../guest/bugrank_check.h");

/// `bugrank_check.rs`: the library for Rust checkers, the crate `bugrank_check` (the
/// fixtures' checkers are built with it too, by `fixtures/build.sh`).
pub const RUST_CHECK_CRATE: &str = include_str!("../guest/bugrank_check.rs");

/// The library's file for a checker in `language`, when it has one (C, C++, Rust): its
/// name and its text. Reading the three parts, comparing words and numbers, and accepting
/// or rejecting with a reason the student reads.
pub fn checker_library(language: Language) -> Option<(&'static str, &'static str)> {
    match language {
        Language::C | Language::Cpp => Some(("bugrank_check.h", C_CHECK_HEADER)),
        Language::Rust => Some(("bugrank_check.rs", RUST_CHECK_CRATE)),
        Language::Python => None,
    }
}

/// The library's file for a generator in `language`: its name and its text.
pub fn library(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::C | Language::Cpp => ("bugrank_gen.h", C_HEADER),
        Language::Rust => ("bugrank_gen.rs", RUST_CRATE),
        Language::Python => ("bugrank_gen.py", PYTHON_MODULE),
    }
}

/// bugrank's check of a Python hand-in against the constructs its assignment forbids, by
/// the syntax tree: a Python program run by bugrank's CPython in the sandbox (its protocol
/// is in its docstring).
pub const PYTHON_RULES: &str = include_str!("../guest/bugrank_rules.py");
