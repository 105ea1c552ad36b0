//! Programs run by an interpreter (CPython compiled to WebAssembly): the interpreter is
//! initialised once and snapshotted, each program is compiled once, and every run starts
//! from the snapshot.
//!
//! An interpreter is a WASI *reactor* with these exports (bugrank's CPython build,
//! `toolchain/python/bugrank_python.c`, has them):
//!
//! - `_initialize()`: its C constructors;
//! - `bugrank_init() -> i32`: initialises the interpreter (0: done; else the reason is on
//!   stderr);
//! - `bugrank_alloc(size: i32) -> i32`: room for a request the host then writes;
//! - `bugrank_compile(request, size) -> i32`: compiles `<name>\0<source>`, or, for a
//!   function-level assignment, `<name>\0<source>\0<harness name>\0<harness source>` (the
//!   harness run as the program, the hand-in as its module `answer`): 0 and, on stdout,
//!   the program's [`SAME_CODE_BYTES`]-byte digest (see [`crate::Program::same_code`])
//!   then the compiled program; or not 0 and the compiler's message on stderr;
//! - `bugrank_run(request, size) -> i32`: runs a compiled program: its exit status, or
//!   [`UNCAUGHT`] for an exception it did not catch, whose line `bugrank_message()`
//!   points at (NUL-terminated UTF-8); a validator's arguments (its `sys.argv[1:]`) come
//!   before the program in the request ([`with_arguments`]);
//! - `bugrank_prepare(request, size) -> i32` and `bugrank_run_prepared(request, size) ->
//!   i32`: the same run in two parts, the first (the part every run of a hand-in with its
//!   harness shares) once per program, the second from where it left, each run (see
//!   `prepared.rs`).
//!
//! [`crate::Sandbox::interpreter`] instantiates the module with the same deterministic
//! WASI as every run, calls `_initialize` and `bugrank_init`, and makes the snapshot
//! (`snapshot.rs`): the module whose memory and globals start as that instance's were.
//! Copy-on-write memory images make a run's start from that heap cost a mapping, not
//! tens of milliseconds of start-up. Its library (the standard library's files) is written
//! by the sandbox into a temporary directory of its own and preopened read-only while it
//! initialises, the only time a guest (the interpreter's own code) sees a host file: it
//! keeps what it needs in memory, and programs run with no files at all.

use std::path::Path;

use sha2::{Digest, Sha256};
use wasmtime::{InstancePre, ModuleExport};

use crate::snapshot::SnapshotState;
use crate::state::RunState;

/// What [`crate::Sandbox::interpreter`] makes an interpreter from.
#[derive(Clone, Copy, Debug)]
pub struct InterpreterSpec<'a> {
    /// Its name and version, as messages say it ("CPython 3.13.5").
    pub name: &'a str,
    /// The reactor module (see the module's documentation for its exports).
    pub module: &'a [u8],
    /// The files of its library: written by the sandbox into [`InterpreterSpec::library_dir`]
    /// of a temporary directory of its own, preopened read-only as `/` while it initialises
    /// (it must read what it needs into memory then: runs have no files but a validator's,
    /// which are given in memory).
    pub library: &'a [(&'a str, &'a [u8])],
    /// Where the guest finds the library while it initialises (an absolute guest path).
    pub library_dir: &'a str,
}

impl InterpreterSpec<'_> {
    /// SHA-256 of everything the snapshot depends on: the module, the library, where it is
    /// found, and the sandbox's code that makes it ([`SNAPSHOT_CODE`]).
    pub(crate) fn hash(&self) -> [u8; 32] {
        self.hash_with(&SNAPSHOT_CODE)
    }

    fn hash_with(&self, code: &[&str]) -> [u8; 32] {
        let mut hash = Sha256::new();
        let parts = code.iter().map(|text| text.as_bytes()).chain([self.module, self.library_dir.as_bytes()]);
        for part in parts.chain(self.library.iter().flat_map(|(name, bytes)| [name.as_bytes(), *bytes])) {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        hash.finalize().into()
    }
}

/// The sandbox's code that makes a snapshot and reads what it marks, as this build has it:
/// a snapshot kept on disk by another build is made again, never used. (A version number
/// bumped by hand was forgotten once: f88b24a's host read the marks as 1 KiB pages while a
/// snapshot compiled before it marked 4 KiB ones, so a kept instance put back the wrong
/// pages and a correct Python program timed out.) Any edit of these files, comments
/// included, costs one new snapshot.
const SNAPSHOT_CODE: [&str; 5] =
    [include_str!("engine.rs"), include_str!("interpreter.rs"), include_str!("snapshot.rs"), include_str!("written.rs"), include_str!("warm.rs")];

/// The length of the digest `bugrank_compile` writes before a compiled program (SHA-256).
pub const SAME_CODE_BYTES: usize = 32;

/// `bugrank_run`'s result for a program ended by an exception it did not catch.
pub const UNCAUGHT: i32 = -1;

/// Fuel for initialising an interpreter: CPython's start-up and the modules it imports
/// ahead take some hundreds of millions.
pub(crate) const INIT_FUEL: u64 = 20_000_000_000;

/// Fuel for compiling one program: a parse and the imports it names (checked by
/// importing them: a module of the standard library takes up to some hundred million).
pub const COMPILE_FUEL: u64 = 5_000_000_000;

/// The most bytes a compiled program may take (its code objects and its source, kept for
/// tracebacks): far above any hand-in's.
pub const MAX_COMPILED_BYTES: usize = 16 << 20;

/// An interpreter, initialised and snapshotted, ready to compile and run programs.
pub struct Interpreter {
    pub(crate) name: String,
    pub(crate) hash: [u8; 32],
    pub(crate) pre: InstancePre<RunState>,
    pub(crate) entries: Entries,
    /// Bytes of linear memory every run starts with (the snapshot's heap): not counted
    /// against a run's memory limit, which is the program's own.
    pub(crate) base_memory: usize,
    /// The names of its globals' exports, in the order of their indices.
    pub(crate) globals: Vec<String>,
    /// The memory and globals of a new instance, read when a program is first prepared
    /// (see `prepared.rs`); `None` if they could not be.
    pub(crate) base: std::sync::OnceLock<Option<SnapshotState>>,
    /// Whether its instances can be kept from run to run (its snapshot's writes are marked,
    /// see `written.rs`).
    pub(crate) keeps: bool,
    /// Its instances kept between runs (see `warm.rs`).
    pub(crate) kept: crate::warm::Kept,
    /// How many runs started in a kept instance.
    pub(crate) resets: std::sync::atomic::AtomicU64,
}

impl Interpreter {
    /// Its name and version, as given in its [`InterpreterSpec`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many of its runs so far started in an instance kept from an earlier run (see
    /// `warm.rs`) rather than in a new one: for tests and benchmarks.
    pub fn kept_runs(&self) -> u64 {
        self.resets.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The entry points of an interpreter's instances, found once.
#[derive(Clone)]
pub(crate) struct Entries {
    pub(crate) alloc: ModuleExport,
    pub(crate) compile: ModuleExport,
    pub(crate) run: ModuleExport,
    pub(crate) prepare: ModuleExport,
    pub(crate) run_prepared: ModuleExport,
    pub(crate) message: ModuleExport,
}

/// The request of a run of `code` (a compiled program) with `args` after its name: a 0
/// byte (no compiled program starts with one: marshal's first byte is its type), the
/// arguments' bytes' count (4 bytes, little-endian), each argument followed by a 0, then
/// the program. Without arguments the request is the program alone.
pub(crate) fn with_arguments(args: &[String], code: &[u8]) -> Vec<u8> {
    let size: usize = args.iter().map(|arg| arg.len() + 1).sum();
    let mut request = Vec::with_capacity(5 + size + code.len());
    request.push(0);
    request.extend_from_slice(&(size as u32).to_le_bytes());
    for arg in args {
        request.extend_from_slice(arg.as_bytes());
        request.push(0);
    }
    request.extend_from_slice(code);
    request
}

/// An interpreter's library on the host while it initialises: a temporary directory of
/// the sandbox's own, deleted when the snapshot is taken. It is the guest's `/` (its one
/// preopened directory), the library's files at [`InterpreterSpec::library_dir`] within:
/// the preopen that wasi-libc keeps in the snapshot is `/`, the directory a validator's
/// run is given its files in (`files.rs`), so that an interpreted validator opens its
/// files by the paths it is given as a compiled one does.
pub(crate) struct Library {
    dir: tempfile::TempDir,
}

impl Library {
    /// Writes `files` into `library_dir` (an absolute guest path) of a new temporary
    /// directory.
    pub(crate) fn write(files: &[(&str, &[u8])], library_dir: &str) -> std::io::Result<Library> {
        let dir = tempfile::Builder::new().prefix("bugrank-library-").tempdir()?;
        let inside = library_dir.strip_prefix('/').filter(|rest| rest.split('/').all(|part| !part.is_empty() && !part.starts_with('.')));
        let Some(inside) = inside else { return Err(std::io::Error::other(format!("`{library_dir}` is not an absolute path of plain names"))) };
        let at = dir.path().join(inside);
        std::fs::create_dir_all(&at)?;
        for (name, bytes) in files {
            if name.contains('/') || name.starts_with('.') {
                return Err(std::io::Error::other(format!("`{name}` is not a plain file name")));
            }
            std::fs::write(at.join(name), bytes)?;
        }
        Ok(Library { dir })
    }

    /// The guest's `/`.
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_made_by_other_code_of_the_sandbox_has_another_hash() {
        let spec = InterpreterSpec { name: "python", module: b"\0asm", library: &[("lib.zip", b"zip")], library_dir: "/usr/local/lib" };
        assert_eq!(spec.hash(), spec.hash_with(&SNAPSHOT_CODE));
        let mut edited = SNAPSHOT_CODE;
        edited[3] = "pub(crate) const PAGE_BYTES: usize = 1024;";
        assert_ne!(spec.hash(), spec.hash_with(&edited));
        assert_ne!(spec.hash_with(&["ab", "c"]), spec.hash_with(&["a", "bc"]), "each part is framed by its length");
    }
}
