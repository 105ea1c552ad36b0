//! Compiling one submission's sources to a module: in the sandbox, cached by content.
//!
//! [`Builder::build`] gives a [`Built`]: a module with its warnings, or a [`Failure`] with the compiler's cleaned
//! message. It is cached as JSON by [`Builder::key`] (the sources, the language, the toolchain's version, the flags,
//! program or generator) when it depends on the sources alone (a module or a compile error; never a time or memory
//! limit, a killed compiler or linker, a host failure), at most [`BUILD_CACHE_BYTES`] of them, the least recently used
//! deleted first. [`Builder::build_generator`] adds the guest library (`guest.rs`) and [`Builder::build_checker`] the
//! checkers' library: generators, references and checkers from a problem's bundle are built by the same `Builder`,
//! in the same jail; [`Builder::build_harnessed`] builds a hand-in with its problem's harness (`harness.rs`). A
//! [`Source`] and its bundle ([`Source::to_bytes`]: one byte string per student's sources) are what the service
//! stores. The sandbox and the toolchains are looked for when first needed.
//!
//! The flags are [`Language::flags`]; a problem changes two of them ([`BuildOptions`]: how locals start, the stack's
//! size). A build with another stack than 8 MiB is cached under the default's key with `-stack<bytes>` after it, so
//! that [`Builder::forget`] finds every build of a source. A C or C++ source that uses `long double` is linked with
//! wasi-libc's `long double` formatting (`LONG_DOUBLE_LIBRARY`), which costs every other program's `printf` several
//! times the fuel; the flag follows from the source, which the key hashes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ToolchainError;
use crate::exceptions;
use crate::find::{Toolchain, Toolchains};
use crate::harness::{self, Harness};
use crate::jail::{Ended, Jail, Limits, Ran, SOURCES};
use crate::language::{BuildOptions, Language, Locals, OUTPUT, STACK_BYTES};

/// The most characters of compiler messages a student is shown: the first errors are the
/// ones to fix; the rest is cut with a note saying how much.
pub const MAX_MESSAGE_CHARS: usize = 8_000;

/// Bumped whenever what a cache entry means changes, so that old entries are not used
/// (2: built in a sandbox without `/proc`; a build of 1 may hold the host's environment;
/// 3: a hand-in with a harness has its own objects checked, and a `main` of its is a
/// warning, no longer a failure). The code that builds is part of the key too
/// ([`BUILD_CODE`]), so a change of it needs no bump to be seen.
const CACHE_FORMAT: &str = "bugrank-build-3";

/// The toolchain crate's code that makes a build, as this build of bugrank has it: part of
/// every cache key, so that a module built by other code (other flags, another harness
/// link, another jail) is built again, never used. (A bump by hand was forgotten once, for
/// the sandbox's snapshots: see `sandbox::interpreter`.) Any edit of these files costs a
/// class one new build of each source.
const BUILD_CODE: [&str; 7] = [
    include_str!("build.rs"),
    include_str!("calls.rs"),
    include_str!("compat.rs"),
    include_str!("exceptions.rs"),
    include_str!("harness.rs"),
    include_str!("jail.rs"),
    include_str!("language.rs"),
];

/// The most bytes of builds the cache keeps; beyond it the least recently used are deleted
/// (a build asked for again is compiled again, to the same result). A class of 1,000
/// students' builds takes about 200 MB (the fixture modules average 70 KB, 200 KB as
/// JSON), so this keeps a few classes, re-analysed without compiling; one source with a
/// 40 MB static array made an 84 MB entry, and without a bound such entries stayed.
pub const BUILD_CACHE_BYTES: u64 = 1 << 30;

/// One submission's sources: file names (plain names, no directories) and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub language: Language,
    pub files: Vec<(String, Vec<u8>)>,
}

/// The first bytes of a [`Source::to_bytes`] bundle: no module starts with them (a binary
/// module starts with `\0asm`, a text one with `(` or a comment).
const BUNDLE_MAGIC: &[u8] = b"bugrank-sources-1\n";

impl Source {
    /// The sources as one byte string, the same for the same files in any order: what the
    /// service stores for a student, and what [`Source::hash`] hashes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut files: Vec<&(String, Vec<u8>)> = self.files.iter().collect();
        files.sort();
        let mut out = BUNDLE_MAGIC.to_vec();
        let language = self.language.extension();
        out.extend((language.len() as u64).to_le_bytes());
        out.extend(language.as_bytes());
        for (name, bytes) in files {
            out.extend((name.len() as u64).to_le_bytes());
            out.extend(name.as_bytes());
            out.extend((bytes.len() as u64).to_le_bytes());
            out.extend(bytes);
        }
        out
    }

    /// Reads a bundle written by [`Source::to_bytes`]; `None` for anything else (a module).
    pub fn from_bytes(bytes: &[u8]) -> Option<Source> {
        fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
            let all = *rest;
            let len = usize::try_from(u64::from_le_bytes(all.get(..8)?.try_into().ok()?)).ok()?;
            let part = all.get(8..8usize.checked_add(len)?)?;
            *rest = &all[8 + len..];
            Some(part)
        }
        let mut rest = bytes.strip_prefix(BUNDLE_MAGIC)?;
        let language = Language::of_file(&format!("x.{}", std::str::from_utf8(take(&mut rest)?).ok()?))?;
        let mut files = Vec::new();
        while !rest.is_empty() {
            let name = String::from_utf8(take(&mut rest)?.to_vec()).ok()?;
            files.push((name, take(&mut rest)?.to_vec()));
        }
        Some(Source { language, files })
    }

    /// Whether every file name is plain (letters, digits and `._-+`, not hidden): the
    /// names are written into the build directory and shown in the compiler's messages.
    pub fn check_names(&self) -> Result<(), ToolchainError> {
        for (name, _) in &self.files {
            let plain = !name.is_empty() && !name.starts_with('.') && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c));
            if !plain {
                return Err(ToolchainError::BadFileName(name.clone()));
            }
        }
        Ok(())
    }

    /// The SHA-256 of the sources (names and bytes) and their language, in hex: how
    /// `analysis.json` names what a student handed in.
    pub fn hash(&self) -> String {
        hex(&Sha256::digest(self.to_bytes()))
    }
}

/// What compiling a submission gave: the student's result, whatever it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Built {
    /// A module, with the compiler's warnings (empty when none).
    Module { wasm: Vec<u8>, warnings: String },
    /// No module: why, in the compiler's words (trimmed, sandbox paths removed).
    Failed { failure: Failure, message: String },
}

/// Why a compile gave no module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Failure {
    /// The compiler refused the sources.
    CompileError,
    /// The compile ran past [`crate::COMPILE_SECONDS`].
    TimeLimit,
    /// The compiler ran out of its memory ([`crate::COMPILE_MEMORY_BYTES`]) or was killed.
    MemoryLimit,
}

/// Compiles sources with the toolchains found, in the sandbox, keeping results in `cache`.
pub struct Builder {
    jail: OnceLock<Result<Jail, ToolchainError>>,
    toolchains: OnceLock<Toolchains>,
    cache: Option<PathBuf>,
    cache_bytes: u64,
    limits: Limits,
}

impl Builder {
    /// A builder keeping its results in `cache` (`None`: none kept). The sandbox and the
    /// toolchains are looked for when first needed (a batch of modules never needs them);
    /// without a sandbox, every compile is refused with the reason.
    pub fn new(cache: Option<PathBuf>) -> Builder {
        Builder { jail: OnceLock::new(), toolchains: OnceLock::new(), cache, cache_bytes: BUILD_CACHE_BYTES, limits: Limits::default() }
    }

    fn jail(&self) -> Result<&Jail, ToolchainError> {
        self.jail.get_or_init(Jail::find).as_ref().map_err(Clone::clone)
    }

    /// The same with other limits (tests use short ones).
    pub fn with_limits(mut self, limits: Limits) -> Builder {
        self.limits = limits;
        self
    }

    /// The same with a cache of at most `bytes` instead of [`BUILD_CACHE_BYTES`] (tests
    /// use small ones).
    pub fn with_cache_bytes(mut self, bytes: u64) -> Builder {
        self.cache_bytes = bytes;
        self
    }

    /// Each language's toolchain, or why there is none.
    pub fn toolchains(&self) -> &Toolchains {
        self.toolchains.get_or_init(Toolchains::find)
    }

    /// Whether compiles can be sandboxed here, or why not.
    pub fn sandboxed(&self) -> Result<(), ToolchainError> {
        self.jail().map(|_| ())
    }

    /// The cache key of `source`: the hash of its bundle ([`Source::to_bytes`]: names and
    /// bytes of its files, its language), the toolchain's version and the flags.
    /// (`analysis.json` names the sources by [`Source::hash`], without the toolchain.)
    pub fn key(&self, source: &Source) -> Result<String, ToolchainError> {
        let toolchain = self.toolchain(source.language)?;
        Ok(key(source, Kind::Program, &BuildOptions::default(), toolchain))
    }

    fn toolchain(&self, language: Language) -> Result<&Toolchain, ToolchainError> {
        self.toolchains().get(language).map_err(|missing| ToolchainError::NoToolchain { language, reason: missing.reason.clone(), install: missing.install })
    }

    /// The toolchain `language` compiles with, when this machine can compile it: the
    /// toolchain is there and so is a working sandbox.
    pub fn ready(&self, language: Language) -> Result<&Toolchain, ToolchainError> {
        let toolchain = self.toolchain(language)?;
        self.jail()?;
        Ok(toolchain)
    }

    /// Compiles `source`, or finds it compiled before. `Err` only when this machine cannot
    /// compile (no toolchain for the language, no sandbox, a host failure): never for
    /// anything the sources do.
    pub fn build(&self, source: &Source) -> Result<Built, ToolchainError> {
        self.build_as(source, Kind::Program, &BuildOptions::default(), None)
    }

    /// [`Builder::build`] that gives up once `stop` is set: a compile running then is
    /// killed within milliseconds and the result is [`ToolchainError::Stopped`] (nothing is
    /// cached). An analysis cancelled while its batch compiles stops at once.
    pub fn build_or_stop(&self, source: &Source, stop: &AtomicBool) -> Result<Built, ToolchainError> {
        if stop.load(Ordering::Relaxed) {
            return Err(ToolchainError::Stopped);
        }
        self.build_as(source, Kind::Program, &BuildOptions::default(), Some(stop))
    }

    /// Compiles a problem's generator: as [`Builder::build`], with the guest library of its
    /// language ([`crate::guest`]: `bugrank_gen.h` to include, or the crate `bugrank_gen`
    /// to `use`). A library file among the sources (the author's copy) is used instead.
    pub fn build_generator(&self, source: &Source) -> Result<Built, ToolchainError> {
        self.build_with_library(source, Kind::Generator)
    }

    /// Compiles a problem's checker: as [`Builder::build`], with the checker library of its
    /// language when it has one ([`crate::guest::checker_library`]: `bugrank_check.h` to
    /// include, or the crate `bugrank_check` to `use`). A library file among the sources
    /// (the author's copy) is used instead.
    pub fn build_checker(&self, source: &Source) -> Result<Built, ToolchainError> {
        self.build_with_library(source, Kind::Checker)
    }

    /// Builds `source` as `kind` with that kind's guest library added, unless the author's
    /// copy is among its files.
    fn build_with_library(&self, source: &Source, kind: Kind) -> Result<Built, ToolchainError> {
        let mut source = source.clone();
        if let Some((name, text)) = kind.library(source.language)
            && !source.files.iter().any(|(file, _)| file == name)
        {
            source.files.push((name.to_owned(), text.as_bytes().to_vec()));
        }
        self.build_as(&source, kind, &BuildOptions::default(), None)
    }

    /// Compiles a hand-in of a function-level assignment with the problem's `harness` (see
    /// [`crate::harness`]): as [`Builder::build`], and a hand-in that lacks something the
    /// harness calls, or whose own code writes the judged output or has a constructor (C,
    /// C++), fails with that said in plain words; its `main` is left out, with a warning.
    pub fn build_harnessed(&self, source: &Source, harness: &Harness, stop: Option<&AtomicBool>) -> Result<Built, ToolchainError> {
        self.build_for(source, Some(harness), &BuildOptions::default(), stop)
    }

    /// Compiles a hand-in as a problem says: with its `harness` when it is a function-level
    /// assignment ([`Builder::build_harnessed`]), with its `options` (the default is what
    /// [`Builder::build`] gives); `stop` as [`Builder::build_or_stop`].
    pub fn build_for(&self, source: &Source, harness: Option<&Harness>, options: &BuildOptions, stop: Option<&AtomicBool>) -> Result<Built, ToolchainError> {
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            return Err(ToolchainError::Stopped);
        }
        let Some(harness) = harness else { return self.build_as(source, Kind::Program, options, stop) };
        let combined = match harness::combine(source, harness) {
            Ok(combined) => combined,
            Err(why) => return Ok(Built::Failed { failure: Failure::CompileError, message: why }),
        };
        let student = combined.renamed.as_deref();
        Ok(match self.build_as(&combined.source, Kind::Harnessed { student }, options, stop)? {
            Built::Module { wasm, warnings } => Built::Module { wasm, warnings: harness::explain(source.language, &warnings, student) },
            Built::Failed { failure, message } => Built::Failed { failure, message: harness::explain(source.language, &message, student) },
        })
    }

    /// The library functions a C, C++ or Rust hand-in's own code calls, by their names as a
    /// source writes them (`qsort`, `std::sort`), the functions it defines and those that
    /// call themselves ([`crate::calls::Calls`]): compiled to objects unoptimised (each C or
    /// C++ file alone; a Rust crate, or with a `harness` the hand-in's own crate), with the
    /// problem's `harness` at hand when it has one, and cached as builds are. `Ok(Err)` with the compiler's words when
    /// the files do not compile so (call it once the hand-in built); `Err` as
    /// [`Builder::build`]'s.
    pub fn library_calls(
        &self,
        source: &Source,
        harness: Option<&Harness>,
        options: &BuildOptions,
    ) -> Result<Result<crate::calls::Calls, String>, ToolchainError> {
        let combined;
        let source = match harness {
            Some(harness) => match harness::combine(source, harness) {
                Ok(done) => {
                    combined = done;
                    &combined.source
                }
                Err(why) => return Ok(Err(why)),
            },
            None => source,
        };
        Ok(match self.build_as(source, Kind::Calls, options, None)? {
            Built::Module { wasm, .. } => serde_json::from_slice(&wasm).map_err(|e| format!("the functions' names cannot be read back: {e}")),
            Built::Failed { message, .. } => Err(message),
        })
    }

    fn build_as(&self, source: &Source, kind: Kind, options: &BuildOptions, stop: Option<&AtomicBool>) -> Result<Built, ToolchainError> {
        if source.language == Language::Python {
            return Err(ToolchainError::Interpreted(source.language));
        }
        let toolchain = self.ready(source.language)?;
        let jail = self.jail()?;
        source.check_names()?;
        let key = key(source, kind, options, toolchain);
        if let Some(built) = self.cached(&key) {
            return Ok(built);
        }
        let dir = tempfile::tempdir().map_err(|e| ToolchainError::Io(format!("cannot create a build directory: {e}")))?;
        for (name, bytes) in &source.files {
            std::fs::write(dir.path().join(name), bytes).map_err(|e| ToolchainError::Io(format!("cannot write {name}: {e}")))?;
        }
        for (name, bytes) in bugrank_files(source) {
            let path = dir.path().join(crate::compat::DIR).join(name);
            std::fs::create_dir_all(path.parent().expect("bugrank's files are in a folder"))
                .and_then(|()| std::fs::write(&path, bytes))
                .map_err(|e| ToolchainError::Io(format!("cannot write {}: {e}", path.display())))?;
        }
        if matches!(kind, Kind::Harnessed { .. } | Kind::Calls) {
            std::fs::create_dir_all(dir.path().join(harness::HAND_IN_OBJECTS))
                .map_err(|e| ToolchainError::Io(format!("cannot create a build directory: {e}")))?;
        }
        let built = match compiles(source, kind, options) {
            Err(message) => Built::Failed { failure: Failure::CompileError, message },
            Ok(steps) => {
                let mut warnings = Vec::new();
                let mut failed = None;
                for args in steps {
                    let ran = jail.run(dir.path(), &toolchain.mounts, &toolchain.env, &toolchain.program_in_jail(), &args, &self.limits, stop)?;
                    if ran.ended == Ended::Stopped {
                        return Err(ToolchainError::Stopped);
                    }
                    match self.judge(ran, toolchain, dir.path()) {
                        Ok(messages) => warnings.push(messages),
                        Err(failure) => {
                            failed = Some(failure);
                            break;
                        }
                    }
                }
                let warnings = lines(warnings);
                if let (None, Kind::Calls) = (&failed, kind) {
                    // The product: the functions' names, as JSON, in place of a module.
                    failed = Some(match crate::calls::read(&dir.path().join(harness::HAND_IN_OBJECTS)) {
                        Ok(calls) => Built::Module { wasm: serde_json::to_vec(&calls).expect("names serialise"), warnings: warnings.clone() },
                        Err(unread) => Built::Failed { failure: Failure::CompileError, message: unread },
                    });
                }
                failed.unwrap_or_else(|| match std::fs::read(dir.path().join(OUTPUT)) {
                    Ok(wasm) if matches!(kind, Kind::Harnessed { .. }) => match harness::check_objects(&dir.path().join(harness::HAND_IN_OBJECTS)) {
                        Ok(said) => Built::Module { warnings: lines([warnings, said, opens_files(&wasm)]), wasm },
                        Err(refused) => Built::Failed { failure: Failure::CompileError, message: refused },
                    },
                    Ok(wasm) => Built::Module { warnings: lines([warnings, opens_files(&wasm)]), wasm },
                    Err(_) => Built::Failed { failure: Failure::CompileError, message: format!("{warnings}\n{NO_MODULE}").trim().to_owned() },
                })
            }
        };
        if depends_on_sources_alone(&built) {
            self.keep(&key, &built);
        }
        Ok(built)
    }

    /// One run of the compiler: its messages (warnings) when it succeeded, else the
    /// student's failure.
    fn judge(&self, ran: Ran, toolchain: &Toolchain, dir: &Path) -> Result<String, Built> {
        let messages = clean(&String::from_utf8_lossy(&ran.messages), ran.dropped, toolchain, dir);
        let out_of_memory = ["out of memory", "memory allocation of", "std::bad_alloc", "Cannot allocate memory"].iter().any(|sign| messages.contains(sign));
        let (seconds, mib) = (self.limits.time.as_secs(), self.limits.memory_bytes >> 20);
        let limit = |failure: Failure, what: String| {
            let message = if messages.is_empty() { what } else { format!("{what}:\n{messages}") };
            Err(Built::Failed { failure, message })
        };
        match ran.ended {
            Ended::TimedOut | Ended::Stopped => limit(Failure::TimeLimit, format!("the compiler took longer than {seconds} s")),
            Ended::Signalled(_) => {
                limit(Failure::MemoryLimit, format!("the compiler was stopped by a limit (memory, time or file size) of {mib} MiB of memory or {seconds} s"))
            }
            Ended::Exited(_) if out_of_memory => limit(Failure::MemoryLimit, format!("the compiler ran out of {mib} MiB of memory")),
            Ended::Exited(0) => Ok(messages),
            Ended::Exited(_) => Err(Built::Failed { failure: Failure::CompileError, message: format!("{messages}{}", not_as_gcc(&messages)) }),
        }
    }

    /// Deletes the kept build of `source` (a program's) and returns what it held: a deleted
    /// submission leaves nothing behind. `None` when nothing was kept or the language has
    /// no toolchain here (then nothing can have been kept under this toolchain's key).
    pub fn forget(&self, source: &Source) -> Option<Built> {
        let toolchain = self.toolchain(source.language).ok()?;
        // Kept under the key of whichever start of locals and stack its problem asked for
        // (another stack than the default's is a suffix of the default's key).
        let cache = self.cache.as_ref()?;
        let kept: Vec<String> = std::fs::read_dir(cache)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| Some(entry.file_name().into_string().ok()?.strip_suffix(".json")?.to_owned()))
            .collect();
        let mut forgotten = None;
        // (The functions it calls, kept for the assignment's rules, go with it: `Calls`.)
        for (locals, kind) in Locals::ALL.into_iter().flat_map(|locals| [(locals, Kind::Program), (locals, Kind::Calls)]) {
            let base = key(source, kind, &BuildOptions { locals, ..BuildOptions::default() }, toolchain);
            let stacks = kept.iter().filter(|key| key.strip_prefix(&base).is_some_and(|rest| rest.starts_with(STACK_KEY)));
            for key in std::iter::once(&base).chain(stacks) {
                let entry = cache_entry(cache, key);
                let built = std::fs::read(&entry).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
                if std::fs::remove_file(&entry).is_ok() && kind == Kind::Program {
                    forgotten = forgotten.or(built);
                }
            }
        }
        forgotten
    }

    /// The build kept under `key`, marked as used now (its modification time: the cache
    /// forgets the least recently used first).
    fn cached(&self, key: &str) -> Option<Built> {
        let entry = cache_entry(self.cache.as_ref()?, key);
        let built = serde_json::from_slice(&std::fs::read(&entry).ok()?).ok()?;
        let _ = std::fs::File::options().append(true).open(&entry).and_then(|file| file.set_modified(SystemTime::now()));
        Some(built)
    }

    /// Keeps `built` under `key`, then forgets the least recently used builds beyond the
    /// cache's bytes; a cache that cannot be written only costs a compile later.
    fn keep(&self, key: &str, built: &Built) {
        let Some(dir) = &self.cache else { return };
        let Ok(json) = serde_json::to_vec(built) else { return };
        let _ = std::fs::create_dir_all(dir);
        let temporary = dir.join(format!(".{key}.{}.tmp", std::process::id()));
        if std::fs::write(&temporary, json).is_ok() {
            let _ = std::fs::rename(&temporary, cache_entry(dir, key));
        }
        forget_beyond(dir, self.cache_bytes);
    }
}

/// Deletes the least recently used builds in `dir` until the rest take at most `bytes`.
/// (Builders of other threads and processes may delete some at the same time: a build
/// deleted twice is counted once here, so this never deletes more than it must by much.)
fn forget_beyond(dir: &Path, bytes: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut builds: Vec<(SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let metadata = entry.metadata().ok()?;
            (path.extension()? == "json").then_some((metadata.modified().ok()?, metadata.len(), path))
        })
        .collect();
    let mut total: u64 = builds.iter().map(|(_, size, _)| size).sum();
    builds.sort();
    for (_, size, path) in builds {
        if total <= bytes {
            break;
        }
        let _ = std::fs::remove_file(&path);
        total -= size;
    }
}

/// What a build says when the compiler succeeded but wrote no module.
const NO_MODULE: &str = "the compiler wrote no module";

/// The note a build's warnings get when its module opens files or folders: it runs, but
/// finds none (the sandbox has no file system), as on a judge's machine without them.
pub const OPENS_FILES: &str = "note: this program opens files or folders (fopen, freopen, ifstream, opendir, ...): where it runs there are \
     none, so every such call fails; it reads its input from standard input and writes its answers to standard output";

/// [`OPENS_FILES`] if `wasm` imports a call of files or folders (WASI's `path_*` and
/// `fd_readdir`), else nothing.
fn opens_files(wasm: &[u8]) -> String {
    let imports = harness::Object::read(wasm).map(|module| module.imports).unwrap_or_default();
    let opens = imports.iter().any(|(module, name)| module == "wasi_snapshot_preview1" && (name.starts_with("path_") || name == "fd_readdir"));
    if opens { OPENS_FILES.to_owned() } else { String::new() }
}

/// The non-empty ones of `parts`, a line each.
fn lines(parts: impl IntoIterator<Item = String>) -> String {
    parts.into_iter().filter(|part| !part.is_empty()).collect::<Vec<_>>().join("\n")
}

/// Signs, in a compiler's messages, that it or a program it ran (the linker) was killed,
/// by a limit or by the host, though the compiler itself exited.
const KILLED_SIGNS: [&str; 3] = ["due to signal", "unable to execute command", "failed: signal: "];

/// Whether `built` is a verdict on the sources alone, the same for them at any other time
/// with this toolchain, and so kept in the cache: a module, or the compiler's refusal. Not
/// a limit (a busy machine compiles slower, and the limits are the builder's: tests lower
/// them), a compiler or linker killed, or a module the compiler did not write: those are
/// compiled again when asked again.
fn depends_on_sources_alone(built: &Built) -> bool {
    match built {
        Built::Module { .. } => true,
        Built::Failed { failure: Failure::CompileError, message } => !message.ends_with(NO_MODULE) && !KILLED_SIGNS.iter().any(|sign| message.contains(sign)),
        Built::Failed { failure: Failure::TimeLimit | Failure::MemoryLimit, .. } => false,
    }
}

/// What a build makes: a program (a submission, a reference), or a generator or a checker,
/// each built with its guest library.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind<'a> {
    Program,
    Generator,
    Checker,
    /// A hand-in with the problem's harness (see [`crate::harness`]); `student` is the
    /// name of a Rust hand-in's file, built as `answer.rs`, which the module's paths (a
    /// panic's location) give instead.
    Harnessed {
        student: Option<&'a str>,
    },
    /// A hand-in's own code compiled to objects, unoptimised, whose product is what its
    /// code calls ([`Builder::library_calls`]), as JSON in place of a module.
    Calls,
}

impl Kind<'_> {
    /// The guest library a build of this kind gets in `language` (its file's name and text):
    /// a generator's, a checker's, or none.
    fn library(self, language: Language) -> Option<(&'static str, &'static str)> {
        match self {
            Kind::Generator => Some(crate::guest::library(language)),
            Kind::Checker => crate::guest::checker_library(language),
            Kind::Program | Kind::Harnessed { .. } | Kind::Calls => None,
        }
    }
}

/// What follows the default stack's key in the key of a build with another stack.
const STACK_KEY: &str = "-stack";

/// The cache key of a build: the hash of everything it depends on, with the default stack's
/// flags, then [`STACK_KEY`] and the stack's bytes when the build has another stack (so that
/// `forget` finds every stack's build of a source).
fn key(source: &Source, kind: Kind, options: &BuildOptions, toolchain: &Toolchain) -> String {
    let mut hash = Sha256::new();
    let what = match kind {
        Kind::Program => "program",
        Kind::Generator => "generator",
        Kind::Checker => "checker",
        Kind::Harnessed { .. } => "harnessed",
        Kind::Calls => "calls",
    };
    if let Kind::Harnessed { student: Some(student) } = kind {
        hash.update((student.len() as u64).to_le_bytes());
        hash.update(student.as_bytes());
    }
    for part in BUILD_CODE.into_iter().chain([CACHE_FORMAT, what, source.language.name(), &toolchain.version]) {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    for flag in flags(source, &BuildOptions { stack_bytes: STACK_BYTES, ..*options }) {
        hash.update((flag.len() as u64).to_le_bytes());
        hash.update(flag.as_bytes());
    }
    for (name, bytes) in bugrank_files(source) {
        for part in [name.as_bytes(), bytes] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
    hash.update(source.to_bytes());
    match options.stack_bytes {
        STACK_BYTES => hex(&hash.finalize()),
        stack => format!("{}{STACK_KEY}{stack}", hex(&hash.finalize())),
    }
}

/// The functions of `<cmath>` GCC evaluates at compile time, as an extension, where clang
/// (bugrank's compiler) follows the standard and refuses them in a `constexpr`.
const GCC_CONSTEXPR_MATH: [&str; 24] = [
    "sqrt", "cbrt", "pow", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "trunc", "fabs", "hypot",
];

/// What a student reads after a compile error that GCC (which judges and most courses
/// compile with) would not give, or that bugrank's toolchain gives for what it lacks: a
/// paragraph for each such sign in `messages`, or nothing.
fn not_as_gcc(messages: &str) -> String {
    let mut said = String::new();
    let math = GCC_CONSTEXPR_MATH.iter().find(|name| messages.contains(&format!("non-constexpr function '{name}' cannot be used in a constant expression")));
    if let Some(name) = math {
        said.push_str(&format!(
            "\n\nGCC accepts this: it computes `{name}` at compile time, as an extension. clang, which bugrank compiles with, follows the C++ standard, where `{name}` is not `constexpr`: drop `constexpr` (use `const`), and the value is computed when the program starts."
        ));
    }
    said
}

/// wasi-libc's `printf` and `scanf` leave `long double` out (a program that formats one
/// aborts: "Support for formatting long double values is currently disabled") unless it is
/// linked with this library, whose formatting works in `long double` for every number, and
/// so formats a `double` in software quad precision, several times the fuel. Only a C or
/// C++ source that names `long double` (or a `%L` conversion, or `strtold`/`stold`) gets
/// it: a program's build, and so its fuel, depends on its own source alone.
const LONG_DOUBLE_LIBRARY: &str = "-lc-printscan-long-double";

/// The compiler's flags for `source` with `options` ([`Language::flags_for`]), and the
/// [`LONG_DOUBLE_LIBRARY`] when the source uses `long double`; exceptions' flags instead
/// of `-fno-exceptions` when it uses them ([`crate::exceptions`]).
fn flags(source: &Source, options: &BuildOptions) -> Vec<String> {
    let mut flags = source.language.flags_for(options);
    if matches!(source.language, Language::C | Language::Cpp) && source.files.iter().any(|(_, text)| uses_long_double(text)) {
        flags.push(LONG_DOUBLE_LIBRARY.to_owned());
    }
    if uses_exceptions(source) {
        flags.retain(|flag| flag != exceptions::NO_EXCEPTIONS);
        flags.push(exceptions::FLAG.to_owned());
        flags.extend(exceptions::FLAGS.iter().map(|flag| (*flag).to_owned()));
    }
    flags
}

/// Whether `source` is C++ that uses exceptions (a file names `try`, `throw` or `catch`).
fn uses_exceptions(source: &Source) -> bool {
    source.language == Language::Cpp && source.files.iter().any(|(_, text)| exceptions::uses_exceptions(text))
}

/// The files of bugrank's own a build of `source` gets beside its sources, as (path under
/// [`crate::compat::DIR`], bytes): the compatibility files ([`crate::compat::files`]), and
/// the exceptions' ([`exceptions::files`]) when it uses them.
fn bugrank_files(source: &Source) -> Vec<(&'static str, &'static [u8])> {
    let compat = crate::compat::files(source.language).into_iter().map(|(name, text)| (name, text.as_bytes()));
    let exceptions = if uses_exceptions(source) { exceptions::files().to_vec() } else { Vec::new() };
    compat.chain(exceptions).collect()
}

/// Whether a C or C++ file names `long double`, `strtold` or `stold`, calls a math
/// function of `long double` (`hypotl`, `sqrtl`, ...: [`LONG_DOUBLE_FUNCTIONS`]), writes a
/// `long double` literal (`1e-9L`, `0.5l`), or has a `%L` conversion (`%Lf`, `%.10Lg`, ...).
fn uses_long_double(text: &[u8]) -> bool {
    let names = [&b"long double"[..], b"strtold", b"stold"];
    if names.iter().any(|name| text.windows(name.len()).any(|window| window == *name)) {
        return true;
    }
    let identifier = |byte: &u8| byte.is_ascii_alphanumeric() || *byte == b'_';
    if text.split(|byte| !identifier(byte)).any(|word| LONG_DOUBLE_FUNCTIONS.iter().any(|name| name.as_bytes() == word)) {
        return true;
    }
    if (0..text.len()).any(|at| long_double_literal_ends(text, at)) {
        return true;
    }
    text.iter().enumerate().filter(|(_, byte)| **byte == b'%').any(|(at, _)| {
        let rest = &text[at + 1..];
        let spec = rest.iter().position(|b| !b"-+ #0123456789.*".contains(b)).map_or(rest, |end| &rest[end..]);
        spec.len() >= 2 && spec[0] == b'L' && b"aAeEfFgG".contains(&spec[1])
    })
}

/// The C library's math functions of `long double` that judges' code calls (C++'s
/// overloads take a `long double` that is named or a literal, found otherwise).
const LONG_DOUBLE_FUNCTIONS: &[&str] = &[
    "acosl",
    "asinl",
    "atan2l",
    "atanl",
    "cbrtl",
    "ceill",
    "copysignl",
    "cosl",
    "coshl",
    "erfl",
    "expl",
    "expm1l",
    "fabsl",
    "floorl",
    "fmal",
    "fmaxl",
    "fminl",
    "fmodl",
    "frexpl",
    "hypotl",
    "ldexpl",
    "lgammal",
    "llroundl",
    "log10l",
    "log1pl",
    "log2l",
    "logl",
    "lroundl",
    "modfl",
    "nearbyintl",
    "nextafterl",
    "powl",
    "remainderl",
    "rintl",
    "roundl",
    "sinl",
    "sinhl",
    "sqrtl",
    "tanl",
    "tanhl",
    "tgammal",
    "truncl",
];

/// Whether `text[at]` is the `L` or `l` that ends a floating literal (digits with a `.` or
/// an exponent: `1.0L`, `1e-9L`, `.5l`; not `1L` or `1LL`, integers, nor `0x1eL`).
fn long_double_literal_ends(text: &[u8], at: usize) -> bool {
    let identifier = |byte: &u8| byte.is_ascii_alphanumeric() || *byte == b'_';
    if !matches!(text[at], b'L' | b'l') || text.get(at + 1).is_some_and(identifier) {
        return false;
    }
    let mut start = at;
    while start > 0 {
        let byte = text[start - 1];
        let sign_of_exponent = matches!(byte, b'+' | b'-') && start >= 2 && matches!(text[start - 2], b'e' | b'E');
        if byte.is_ascii_digit() || matches!(byte, b'.' | b'e' | b'E') || sign_of_exponent {
            start -= 1;
        } else {
            break;
        }
    }
    let number = &text[start..at];
    let floating = number.iter().any(|byte| matches!(byte, b'.' | b'e' | b'E'));
    let begins = number.first().is_some_and(|byte| byte.is_ascii_digit() || *byte == b'.');
    floating && begins && number.iter().any(u8::is_ascii_digit) && !(start > 0 && identifier(&text[start - 1]))
}

/// `bytes` in lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The compiler's runs, each its arguments after the program: the flags, the output and
/// the sources, by their paths in the sandbox (never a bare name: a file named `-o.c` or
/// `--help.rs` would be an option). The sandbox's directory is cut from the paths the
/// module holds (a panic's location, `__FILE__`), so they name the files as the student
/// did, as [`clean`] does for the messages. One run, but two for a Rust generator: first
/// its library crate.
fn compiles(source: &Source, kind: Kind, options: &BuildOptions) -> Result<Vec<Vec<String>>, String> {
    let library = kind.library(source.language).map(|(name, _)| name);
    let in_jail = |name: &str| format!("{SOURCES}/{name}");
    let unprefix = match source.language {
        Language::Rust => format!("--remap-path-prefix={SOURCES}/="),
        Language::C | Language::Cpp => format!("-ffile-prefix-map={SOURCES}/="),
        Language::Python => return Err("Python sources are not compiled here".to_owned()),
    };
    let mut args: Vec<String> = flags(source, options);
    args.extend([unprefix.clone(), "-o".to_owned(), OUTPUT.to_owned()]);
    if let Kind::Harnessed { student } = kind {
        args.extend(match source.language {
            Language::Rust => ["--cfg", "bugrank_harness"].map(str::to_owned).to_vec(),
            _ => vec!["-DBUGRANK_HARNESS".to_owned()],
        });
        if let Some(student) = student {
            // (After the general remapping: rustc applies the last that matches.)
            args.push(format!("--remap-path-prefix={SOURCES}/{}={student}", harness::RUST_HAND_IN));
        }
    }
    let sources: Vec<&String> =
        source.files.iter().map(|(name, _)| name).filter(|name| Language::of_file(name) == Some(source.language) && Some(name.as_str()) != library).collect();
    match source.language {
        Language::Rust => {
            // One crate: its root is the only `.rs` file, or `main.rs` (whose `mod`s the
            // other files are).
            let own_crate = kind == Kind::Calls && sources.iter().any(|name| name.as_str() == harness::RUST_HAND_IN);
            let root = match sources.as_slice() {
                _ if matches!(kind, Kind::Harnessed { .. }) => {
                    sources.iter().find(|name| name.as_str() == "harness.rs").ok_or("the harness has no harness.rs")?
                }
                // (A hand-in with its harness: its own crate, as the harnessed build makes it.)
                _ if own_crate => sources.iter().find(|name| name.as_str() == harness::RUST_HAND_IN).expect("found above"),
                [only] => only,
                _ => sources
                    .iter()
                    .find(|name| name.as_str() == "main.rs")
                    .ok_or_else(|| format!("a Rust submission is one .rs file, or several with main.rs as the crate root (found {})", sources.len()))?,
            };
            args.push(in_jail(root));
            if kind == Kind::Calls {
                // One object of the crate, unoptimised: see `crate::calls`.
                let mut step: Vec<String> = args.iter().filter(|a| !(own_crate && a.starts_with("--crate-"))).cloned().collect();
                let output_at = step.iter().position(|a| a == "-o").expect("a build names its output");
                step[output_at + 1] = format!("{}/0.o", harness::HAND_IN_OBJECTS);
                step.extend(crate::calls::RUST_FLAGS.map(str::to_owned));
                if own_crate {
                    step.extend(["--crate-type=rlib".to_owned(), format!("--crate-name={}", harness::RUST_CRATE)]);
                }
                return Ok(vec![step]);
            }
            if matches!(kind, Kind::Harnessed { .. }) {
                // The hand-in is a crate of its own, built first: nothing of the harness's
                // crate can be named from it (see `harness`).
                let rlib = format!("{}/lib{}.rlib", harness::HAND_IN_OBJECTS, harness::RUST_CRATE);
                let mut first: Vec<String> = args.iter().filter(|a| !a.starts_with("--crate-") && *a != &in_jail(root)).cloned().collect();
                let output_at = first.iter().position(|a| a == "-o").expect("a build names its output");
                first[output_at + 1] = rlib.clone();
                first.extend(["--crate-type=rlib".to_owned(), format!("--crate-name={}", harness::RUST_CRATE), in_jail(harness::RUST_HAND_IN)]);
                args.extend(["--extern".to_owned(), format!("{}={rlib}", harness::RUST_CRATE)]);
                return Ok(vec![first, args]);
            }
            if let Some(library) = library {
                // The library is a crate of its own (`bugrank_gen`, `bugrank_check`), built first.
                let crate_name = library.trim_end_matches(".rs");
                let rlib = format!("lib{crate_name}.rlib");
                let mut first: Vec<String> = source.language.flags().iter().filter(|f| !f.starts_with("--crate-")).map(|f| f.to_string()).collect();
                first.extend(["--crate-type=rlib".to_owned(), format!("--crate-name={crate_name}"), "-o".to_owned(), rlib.clone()]);
                first.extend([unprefix, in_jail(library)]);
                args.extend(["--extern".to_owned(), format!("{crate_name}={rlib}")]);
                return Ok(vec![first, args]);
            }
        }
        _ if sources.is_empty() => return Err(format!("no {} source file", source.language)),
        _ if matches!(kind, Kind::Harnessed { .. }) => {
            let runtime = if uses_exceptions(source) { exceptions::inputs(SOURCES) } else { Vec::new() };
            return Ok(harnessed_compiles(source.language, &args, &sources, runtime));
        }
        _ if kind == Kind::Calls => {
            let own: Vec<&String> = sources.into_iter().filter(|name| !harness::Harness::ALL_FILES.contains(&name.as_str())).collect();
            return Ok(object_compiles(source.language, &args, &own, &crate::calls::FLAGS.map(str::to_owned)).0);
        }
        _ => {
            args.extend(crate::compat::arguments(source.language, SOURCES));
            args.extend(sources.into_iter().map(|name| in_jail(name)));
            if uses_exceptions(source) {
                args.extend(exceptions::inputs(SOURCES));
            }
        }
    }
    Ok(vec![args])
}

/// A C or C++ hand-in built with its harness, in steps (`args`: the flags and output of
/// one whole build): each of the hand-in's own files compiled alone into an object of
/// [`harness::HAND_IN_OBJECTS`] (with `main` renamed, so that one kept for the student's own
/// tests is left out rather than clashing with the harness's), which the build then checks
/// ([`harness::check_objects`]); then the harness compiled and linked with them, and with
/// `runtime` (the exceptions' files, if the hand-in uses them).
fn harnessed_compiles(language: Language, args: &[String], sources: &[&String], runtime: Vec<String>) -> Vec<Vec<String>> {
    let in_jail = |name: &str| format!("{SOURCES}/{name}");
    let (compat_sources, compat_options) = compat_parts(language);
    let (harness, own): (Vec<&String>, Vec<&String>) = sources.iter().copied().partition(|name| harness::Harness::ALL_FILES.contains(&name.as_str()));
    let (mut steps, objects) = object_compiles(language, args, &own, &[format!("-Dmain={}", harness::RENAMED_MAIN)]);
    let mut link: Vec<String> = args.to_vec();
    link.extend(compat_options);
    link.extend(harness.iter().map(|name| in_jail(name)));
    link.extend(compat_sources);
    link.extend(objects);
    link.extend(runtime);
    steps.push(link);
    steps
}

/// The compiler's runs that compile each of `own` (a C or C++ hand-in's files) to an object
/// of its own under [`harness::HAND_IN_OBJECTS`] (`args`: a build's flags and output, of
/// which the compile keeps the flags but the linker's; then the compatibility header, then
/// `extra`), and the objects' paths.
fn object_compiles(language: Language, args: &[String], own: &[&String], extra: &[String]) -> (Vec<Vec<String>>, Vec<String>) {
    let (_, compat_options) = compat_parts(language);
    let output_at = args.iter().position(|arg| arg == "-o").expect("a build names its output");
    let compile_only: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|&(i, arg)| i != output_at && i != output_at + 1 && !arg.starts_with("-Wl,") && !arg.starts_with("-l"))
        .map(|(_, arg)| arg.clone())
        .collect();
    own.iter()
        .enumerate()
        .map(|(i, name)| {
            let object = format!("{}/{i}.o", harness::HAND_IN_OBJECTS);
            let mut step = compile_only.clone();
            step.extend(extra.iter().cloned());
            step.extend(compat_options.iter().cloned());
            step.extend(["-c".to_owned(), format!("{SOURCES}/{name}"), "-o".to_owned(), object.clone()]);
            (step, object)
        })
        .unzip()
}

/// The compatibility file's arguments ([`crate::compat::arguments`]) in two: its source,
/// compiled into a link, and the rest (the header, the include folder), given to every
/// compile.
fn compat_parts(language: Language) -> (Vec<String>, Vec<String>) {
    crate::compat::arguments(language, SOURCES).into_iter().partition(|arg| arg.ends_with("/compat.c") || arg.ends_with("/compat.cpp"))
}

/// The compiler's messages as a student should read them: no path of the sandbox (the
/// sources' directory, the toolchain's mounts) nor, should one ever show, of the host (the
/// build directory, the toolchain's directories); at most [`MAX_MESSAGE_CHARS`].
fn clean(messages: &str, dropped: u64, toolchain: &Toolchain, dir: &Path) -> String {
    let mut text = messages.replace(&format!("{SOURCES}/"), "").replace(&format!("{}/", dir.display()), "");
    for mount in &toolchain.mounts {
        text = text.replace(&mount.host.display().to_string(), "<toolchain>").replace(mount.jail, "<toolchain>");
    }
    let mut text = text.trim().to_owned();
    let mut cut = dropped as usize;
    if text.chars().count() > MAX_MESSAGE_CHARS {
        let end = text.char_indices().nth(MAX_MESSAGE_CHARS).map_or(text.len(), |(i, _)| i);
        cut += text.len() - end;
        text.truncate(end);
    }
    if cut > 0 {
        text.push_str(&format!("\n… ({cut} more bytes of messages not shown)"));
    }
    text
}

/// Where the build of the source with `key` is kept in `cache`.
pub fn cache_entry(cache: &Path, key: &str) -> PathBuf {
    cache.join(format!("{key}.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_uses_long_double_when_it_names_it_or_converts_with_percent_l() {
        let check = |text: &str, expected: bool| assert_eq!(uses_long_double(text.as_bytes()), expected, "{text}");
        check("typedef long double ld;", true);
        check("printf(\"%.10Lf\\n\", x);", true);
        check("scanf(\"%Lg\", &x);", true);
        check("double d = strtold(s, 0);", true);
        check("long long x; double d; printf(\"%lld %f %lf 100%%\", x, d, d);", false);
        check("printf(\"%Ld\", 5LL);", false);
        check("%", false);
        // A math function of long double, a long double literal.
        check("cout << hypotl(x, y);", true);
        check("double r = sqrtl(n);", true);
        check("const auto eps = 1e-9L;", true);
        check("x = .5l * y;", true);
        check("x = 2.5E+3L;", true);
        // Not: integers, hex, a name that ends in l, a name like a literal.
        check("long n = 1L, m = 10LL, h = 0x1eL, s = size-1L;", false);
        check("double hypot_l = hypot(a, b); int model = 3;", false);
        check("int x1e5L = 2;", false);
    }

    fn source(files: &[(&str, &[u8])]) -> Source {
        Source { language: Language::C, files: files.iter().map(|(n, b)| (n.to_string(), b.to_vec())).collect() }
    }

    #[test]
    fn a_bundle_reads_back_as_the_same_sources_whatever_their_order() {
        let one = source(&[("main.c", b"int main(void) { return 0; }"), ("list.h", b"\xff\x00 not utf-8")]);
        let other = source(&[("list.h", b"\xff\x00 not utf-8"), ("main.c", b"int main(void) { return 0; }")]);
        assert_eq!(one.to_bytes(), other.to_bytes());
        assert_eq!(one.hash(), other.hash());
        let back = Source::from_bytes(&one.to_bytes()).unwrap();
        assert_eq!((back.language, back.files.len()), (Language::C, 2));
        assert_eq!(back.to_bytes(), one.to_bytes());
    }

    #[test]
    fn a_module_or_a_cut_bundle_is_not_a_bundle() {
        assert_eq!(Source::from_bytes(b"\0asm\x01\0\0\0"), None);
        assert_eq!(Source::from_bytes(b"(module)"), None);
        let bytes = source(&[("main.c", b"int main(void) { return 0; }")]).to_bytes();
        assert_eq!(Source::from_bytes(&bytes[..bytes.len() - 1]), None);
    }
}
