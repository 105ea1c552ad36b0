//! The generators' guest library, shipped inside bugrank to problem authors: the Rust
//! crate `bugrank_gen` and its C/C++ twin `bugrank_gen.h`, the same functions giving the
//! same values for the same choices. A generator is built with it
//! ([`crate::Builder::build_generator`]); `bugrank new-problem` writes a copy beside the
//! generator for the author's editor and native builds. Pitfall: a copy in the problem
//! directory is used instead of bugrank's own, so the problem keeps building with the
//! library it was written with; an edited copy is the author's library.

use crate::language::Language;

/// `bugrank_gen.h`: the library for C and C++ generators, header only.
pub const C_HEADER: &str = include_str!("../guest/bugrank_gen.h");

/// `bugrank_gen.rs`: the library for Rust generators, the crate `bugrank_gen` (the
/// fixtures' generators are built with it too, by `fixtures/build.sh`).
pub const RUST_CRATE: &str = include_str!("../guest/bugrank_gen.rs");

/// The library's file for a generator in `language`: its name and its text.
pub fn library(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::C | Language::Cpp => ("bugrank_gen.h", C_HEADER),
        Language::Rust => ("bugrank_gen.rs", RUST_CRATE),
    }
}
