//! bugrank's Python: CPython 3.13.5 compiled to WebAssembly (`toolchain/python/build.sh`,
//! which builds these bytes reproducibly from Debian's source package), inside bugrank.
//! `toolchain/python/` holds what it builds, `python.wasm` and the standard library's zip
//! ([`LIBRARY_FILE`]); `build.sh --check` rebuilds them and compares.
//!
//! It is not a compiler of the host: the sandbox snapshots it once initialised
//! (`sandbox::Sandbox::interpreter`), compiles each Python hand-in to bytecode in a run of
//! its own (a syntax error, or an import that cannot work, is the hand-in's build result in
//! Python's words), and runs the bytecode from the snapshot on every input. Its standard
//! library is read into memory while it initialises; programs have no files.

/// The interpreter: a WASI reactor with bugrank's entry points (`bugrank_python.c`).
pub const MODULE: &[u8] = include_bytes!("../python/python.wasm");

/// The standard library, compiled (`.pyc`), as CPython's zip import reads it.
pub const LIBRARY: &[u8] = include_bytes!("../python/python313.zip");

/// The library's file name, as the interpreter looks for it (in [`LIBRARY_DIR`]).
pub const LIBRARY_FILE: &str = "python313.zip";

/// Where the interpreter finds its library while it initialises.
pub const LIBRARY_DIR: &str = "/usr/local/lib";

/// Its name, as messages say it.
pub const NAME: &str = "CPython 3.13.5";

/// What it is, as `bugrank toolchains` and `analysis.json` say it.
pub const VERSION: &str = "CPython 3.13.5 (bugrank's build for wasm32-wasi, Debian python3.13 3.13.5-2+deb13u5)";
