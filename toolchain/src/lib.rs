//! Compiles students' C, C++ and Rust sources to WebAssembly, in a bubblewrap sandbox;
//! carries bugrank's CPython for Python sources ([`python`]), which the WebAssembly
//! sandbox compiles and runs.
//!
//! A compile is untrusted work: compilers are native programs reading hostile input. Every
//! compile runs in a sandbox ([`Jail`]: no network, no host files beyond the toolchain's,
//! no `/proc`, an empty environment, a directory holding the sources) within [`Limits`]
//! (time, memory, messages, files). What the sources do is a [`Built`] value, a module or
//! a failure the student is shown; [`ToolchainError`] is kept for what the machine cannot do (no
//! toolchain for the language, no sandbox). Results that depend on the sources alone are
//! cached by the hash of the sources, the language, the toolchain's version and the flags
//! ([`Builder::key`]), at most [`BUILD_CACHE_BYTES`] of them.
//!
//! ```no_run
//! use toolchain::{Builder, Built, Language, Source};
//!
//! let builder = Builder::new(None);
//! let source = Source { language: Language::C, files: vec![("a01.c".into(), b"int main(void) { return 0; }".to_vec())] };
//! match builder.build(&source) {
//!     Ok(Built::Module { wasm, warnings }) => println!("{} bytes, warnings: {warnings}", wasm.len()),
//!     Ok(Built::Failed { failure, message }) => println!("{failure:?}: {message}"),
//!     Err(no_compiler) => println!("cannot compile here: {no_compiler}"),
//! }
//! ```

mod build;
pub mod calls;
pub mod compat;
pub mod exceptions;
mod find;
pub mod guest;
pub mod harness;
mod jail;
mod language;
pub mod python;

pub use build::{BUILD_CACHE_BYTES, Builder, Built, Failure, MAX_MESSAGE_CHARS, OPENS_FILES, Source, cache_entry};
pub use find::{Missing, RUST_SYSROOT, Toolchain, Toolchains};
pub use harness::Harness;
pub use jail::{COMPILE_FILE_BYTES, COMPILE_MEMORY_BYTES, COMPILE_MESSAGE_BYTES, COMPILE_SECONDS, JAIL_ENV, Jail, Limits, Mount};
pub use language::{BuildOptions, Language, Locals, STACK_BYTES};

/// What this machine cannot do; never something a submission did.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ToolchainError {
    #[error("cannot compile {language} here: {reason} ({install})")]
    NoToolchain { language: Language, reason: String, install: &'static str },
    #[error("refusing to compile without a sandbox: {0}")]
    NoSandbox(String),
    #[error("`{0}`: a source file name may only have letters, digits and . _ - +")]
    BadFileName(String),
    #[error("{0}")]
    Io(String),
    /// The caller stopped the compile ([`Builder::build_or_stop`]): the compiler was killed.
    #[error("the compile was stopped")]
    Stopped,
    /// Sources no compiler of the host builds (Python: the WebAssembly sandbox's
    /// interpreter compiles them, see [`python`]).
    #[error("{0} sources are compiled by bugrank's interpreter in the WebAssembly sandbox, not by a compiler here")]
    Interpreted(Language),
}
