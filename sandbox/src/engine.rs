//! One wasmtime engine, a cache of compiled modules, and a fresh store per run.
//!
//! [`Sandbox`] holds one wasmtime `Engine` (a pooling allocator with a warm instance slot per module, copy-on-write
//! memory images, fuel), a cache of compiled modules by SHA-256 (`compile.rs`: the cache and the compile gate; with
//! [`Sandbox::with_disk_cache`] also on disk, as the service keeps them in `<data>/compiled` and the command line in
//! `~/.cache/bugrank/compiled`), Cranelift's cache of compiled functions shared by all modules (`compile.rs`'s
//! `FunctionCache`: a class's modules share most of the standard library's functions), and a `Linker` with WASI
//! preview 1, the generator host functions `bugrank.choice` and `bugrank.size`, and `bugrank.output`, through which a
//! function-level problem's harness writes the judged output (a program that imports it, or an interpreted one
//! compiled with a harness, has its stdout kept apart as [`Run::printed`], never judged). The streams, random bytes
//! and polling are the sandbox's own (`stdio.rs`, charged in fuel), and so are the arguments, the environment, the
//! exit and what the three descriptors are (`process.rs`); the rest of WASI is wasmtime-wasi's.
//!
//! [`Sandbox::load`] validates a module (`validate.rs`: the import allow-list, the shape limits before compiling, the
//! engine's validator, `_start`) and compiles it; [`Sandbox::check`] does all of that but the compiling, in
//! milliseconds (uploads are checked with it). [`Sandbox::run`] and [`Sandbox::generate`] use a fresh `Store` per
//! run, whose state is `state.rs`'s `RunState`. Programs can also be run by an interpreter (`interpreter.rs`):
//! [`Sandbox::interpreter`] initialises it once and snapshots it (`snapshot.rs`), compiled and cached on disk like any
//! module; [`Sandbox::load_interpreted`] compiles a program to bytecode in a run of its own ([`Sandbox::load_harnessed`]:
//! with a harness, the hand-in as its module `answer`): the compiler's refusal is the program's result, and with the
//! program the compiler gives its [`Program::same_code`] digest, which copies share. Every run of it starts from the
//! snapshot, with no file at all; a hand-in with its harness is prepared once (`prepared.rs`).
//!
//! The pooling allocator resets only the pages written in a slot, and keeps them mapped: for CPython, which writes
//! pages all over its heap, that needs the vendored wasmtime's page-map scan, which is not bounded in regions, and its
//! trim, which gives a slot keeping 1 MiB or more back whole every 64 runs, so that what each reset copies back is what
//! recent runs wrote, not every run's since the slot was made (`vendor/README.md`). An interpreter's runs do not pay
//! even that: its instances are kept from run to run and reset page by page (`written.rs`, `warm.rs`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmparser::types::Types;
use wasmtime::{
    Caller, Config, Enabled, Engine, Extern, Instance, InstanceAllocationStrategy, InstancePre, Linker, Module, ModuleExport, PoolConcurrencyLimitError,
    PoolingAllocationConfig, Store, Trap, Val,
};
use wasmtime_wasi::{FsPerms, I32Exit};

use crate::compile::{CompileGate, FUNCTION_CACHE_BYTES, FunctionCache, MAX_COMPILE_WAIT, MODULE_CACHE_BYTES, ModuleCache};
use crate::file_table::{FileTable, Files};
use crate::interpreter::{COMPILE_FUEL, Entries, INIT_FUEL, Interpreter, InterpreterSpec, Library, MAX_COMPILED_BYTES, SAME_CODE_BYTES, UNCAUGHT};
use crate::limits::{
    EPOCH_TICK, HOST_STACK_BYTES, Limits, MAX_MEMORY_BYTES, MAX_MODULE_BYTES, MAX_STACK_BYTES, MAX_WASM_STACK_BYTES, STDERR_LIMIT_BYTES, WALL_CLOCK_LIMIT,
};
use crate::prepared::{self, Prepared};
use crate::snapshot::{SnapshotState, snapshot_value, value_of};
use crate::state::{Choices, OutputFull, RunState, memory_cap, wasi_context};
use crate::stdio;
use crate::validate::{self, Role};
use crate::warm::Warm;
use crate::{Interaction, Outcome, Run, SandboxError};
use crate::{files, interpreter, pipe, process, snapshot, written};

/// Instance slots in the pooling allocator: the most runs in flight at once, and the most
/// modules whose slot stays warm between runs. A freed slot keeps its module's memory image
/// mapped (module affinity), so the module's next run resets a few pages instead of
/// mapping its image again, which costs page faults and a TLB shootdown on every core.
/// Runs cycle through every answer of a class, so every module needs its own warm slot:
/// with 256 slots a class of 300 spent half its time in the kernel (74 s, 41 s of it
/// system time; 41 s and 5 s with 2,048). Each slot reserves address space (not memory)
/// for one linear memory, 2,048 of them some TiB of the 128 TiB there are; what a warm
/// slot keeps resident is bounded by [`KEEP_RESIDENT_BYTES`], and is in practice the pages
/// its program touched (a class of 300 peaks at 160 MB).
const POOL_SLOTS: u32 = 2048;

/// Linear memory kept mapped between runs in a reused slot and reset in place instead of
/// returned to the kernel: avoids `madvise` and the TLB shootdowns that made two threads
/// slower than one. A small program's data, heap and shadow stack fit in 2 MiB.
const KEEP_RESIDENT_BYTES: usize = 2 << 20;

/// Instance slots of the interpreters' engine: the runs in flight at once (one per
/// thread) and a warm slot per interpreter and thread.
const INTERPRETER_SLOTS: u32 = 64;

/// The memories of an interpreter's instance: its own and the byte map of the pages its
/// runs write (see `written.rs`).
const INTERPRETER_MEMORIES: u32 = 2;

/// [`KEEP_RESIDENT_BYTES`] for interpreters, whose every program starts from the same
/// snapshot in the same warm slot: CPython writes pages all over its heap and static data,
/// and a class's programs, on their inputs, together wrote between 2 and 8 MiB of them;
/// beyond the bound each page is given back and faulted in again on the next run (a
/// copy-on-write fault and a TLB flush each). The Python cohort of interval sets graded
/// with `--stable-after 500` (56,286 executions): 3.4 million page faults, 15.6 s of system
/// time and 78.5 s with 2 MiB; 4,725 faults, 5.9 s and 51.2 s with 8 MiB; 49.9 s with
/// 16 MiB. Not more: every page a run of the slot ever wrote is copied back after every
/// run (the kernel cannot tell the pages this run wrote from those an earlier one did), so
/// after a run that wrote 16 MiB even an empty program paid 590 µs instead of 124. (The
/// vendored wasmtime gives such a slot's pages back every 64 runs, so that what it keeps
/// is what recent runs wrote: `vendor/README.md`.) A pool
/// of its own, so that modules keep [`KEEP_RESIDENT_BYTES`] (a class of 300 modules keeps
/// up to that much in each of 300 warm slots).
const INTERPRETER_KEEP_RESIDENT_BYTES: usize = 8 << 20;

/// A loaded, validated module, or a program compiled by an interpreter: ready to be run
/// many times.
#[derive(Clone)]
pub struct Program {
    name: String,
    hash: [u8; 32],
    /// See [`Program::same_code`].
    same_code: [u8; 32],
    /// Whether its judged output is a problem's harness's (a module that imports
    /// [`crate::HARNESS_IMPORTS`], or an interpreted hand-in compiled with its harness):
    /// its stdout is then its own prints, kept apart (see [`Run::printed`]).
    harness: bool,
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    /// A WASI command.
    Module {
        pre: InstancePre<RunState>,
        /// Where `_start` is among the module's exports, found once (not by name every run).
        start: ModuleExport,
    },
    /// A program an interpreter compiled: run by its `bugrank_run`, or, prepared once
    /// (see `prepared.rs`: a hand-in with its harness), by its `bugrank_run_prepared`.
    Interpreted { interpreter: Arc<Interpreter>, code: Arc<[u8]>, prepared: Arc<OnceLock<Option<Arc<Prepared>>>> },
}

impl Program {
    /// The name it was loaded under (usually its file name): the guest's `argv[0]`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// SHA-256 of the module's bytes (of an interpreted program, of the interpreter's
    /// identity and the compiled program): identical uploads share it.
    pub fn hash(&self) -> [u8; 32] {
        self.hash
    }
    /// What it runs, as a fingerprint: programs that share it give the same output and
    /// status on every input, so a class's copies need running once. A module's is its
    /// [`Program::hash`]; an interpreted program's sets aside its file names, line numbers
    /// and columns (and so its comments, blank lines and spacing): the interpreter's
    /// digest of its code objects, bytecode, constants and names (`_bugrank.same_code`).
    /// What differs between them: what names a file or a line (a traceback's message: a
    /// crash is still a crash, on the same inputs), and the fuel of loading a longer
    /// source (some hundreds of instructions a run, against budgets of hundreds of
    /// thousands and more: a run within that of its budget is the only one a copy could
    /// have finished otherwise).
    pub fn same_code(&self) -> [u8; 32] {
        self.same_code
    }
    /// The interpreter that runs it, if it is not a module of its own.
    pub fn interpreter(&self) -> Option<&Interpreter> {
        match &self.kind {
            Kind::Module { .. } => None,
            Kind::Interpreted { interpreter, .. } => Some(interpreter),
        }
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The sandbox: one engine shared by every run, usable from many threads at once.
pub struct Sandbox {
    engine: Engine,
    linker: Linker<RunState>,
    /// The linker of programs loaded as [`Role::Validator`].
    validator_linker: Linker<RunState>,
    modules: Mutex<ModuleCache>,
    compiling: Arc<CompileGate>,
    /// The threads that compile, wasmtime's parallel compilation included. Not rayon's
    /// global pool: a caller waiting for a compile may be a worker of that pool (an
    /// analysis loads its batch in parallel), and a compile whose parallel work is queued
    /// behind waiting workers would never run.
    compile_pool: rayon::ThreadPool,
    /// How long [`Sandbox::load`] waits for a compile: [`MAX_COMPILE_WAIT`] but in tests.
    compile_wait: Duration,
    /// Where compiled modules are also kept on disk, if anywhere (see
    /// [`Sandbox::with_disk_cache`]).
    disk_cache: Option<std::path::PathBuf>,
    /// Interpreters made ready, by [`InterpreterSpec::hash`].
    interpreters: Mutex<HashMap<[u8; 32], Arc<Interpreter>>>,
    /// The engine interpreters are snapshotted and run in, and its linker: a pool of its
    /// own (see [`INTERPRETER_KEEP_RESIDENT_BYTES`]).
    interpreter_engine: Engine,
    interpreter_linker: Linker<RunState>,
    /// wasmtime-wasi's preview 1 alone, files included, in the interpreters' engine: what
    /// an interpreter's initialisation runs with (its library preopened), never a program.
    with_files: Linker<RunState>,
    /// The interpreters' engine's compiled functions: they make compiling a snapshot, the
    /// same code as the instrumented interpreter compiled just before, cheap, and are of
    /// no use once it is compiled (CPython's are some 60 MB).
    interpreter_functions: std::sync::Arc<FunctionCache>,
    /// Whether a hand-in with its harness is prepared once for all its runs (see
    /// `prepared.rs`). Default true; [`Sandbox::without_preparation`] turns it off.
    prepare: bool,
    /// Whether an interpreter's instances are kept from one run to the next (see
    /// `warm.rs`). Default true; [`Sandbox::without_preparation`] turns it off.
    keep_instances: bool,
    /// Whether every kept instance is compared, once reset, with the state it must start
    /// from. Default false; [`Sandbox::with_reset_checks`] turns it on.
    check_resets: bool,
}

impl Sandbox {
    /// Configures the engines: pooling allocators with copy-on-write memory images, fuel
    /// metering, a bounded wasm stack, and the WASI preview 1 and generator host functions;
    /// one engine for modules, one for interpreters (see [`INTERPRETER_KEEP_RESIDENT_BYTES`]).
    pub fn new() -> Result<Sandbox, SandboxError> {
        let (engine, linkers, _) = configured(POOL_SLOTS, KEEP_RESIDENT_BYTES, 1)?;
        let (interpreter_engine, interpreter_linkers, interpreter_functions) =
            configured(INTERPRETER_SLOTS, INTERPRETER_KEEP_RESIDENT_BYTES, INTERPRETER_MEMORIES)?;
        // Interpreted programs all share one instantiation: the validators' linker, whose
        // calls of files answer as without any to a run given none (every run but a
        // validator's, see `files.rs`).
        let (interpreter_linker, with_files) = (interpreter_linkers.validators, interpreter_linkers.with_files);
        Ok(Sandbox {
            engine,
            linker: linkers.programs,
            validator_linker: linkers.validators,
            modules: Mutex::new(ModuleCache::new(MODULE_CACHE_BYTES)),
            compiling: Arc::default(),
            compile_pool: rayon::ThreadPoolBuilder::new()
                .thread_name(|i| format!("compile {i}"))
                .build()
                .map_err(|e| SandboxError::Engine(format!("cannot start the compile threads: {e}")))?,
            compile_wait: MAX_COMPILE_WAIT,
            disk_cache: None,
            interpreters: Mutex::default(),
            interpreter_engine,
            interpreter_linker,
            with_files,
            interpreter_functions,
            prepare: true,
            keep_instances: true,
            check_resets: false,
        })
    }

    /// Keeps every compiled module in `dir` as well, by the SHA-256 of its bytes, so that
    /// a new process (a restarted service) loads it instead of compiling it again: a class
    /// of 1,000 modules takes minutes of CPU to compile. A file that this wasmtime or this
    /// configuration cannot use (after an upgrade, say) is compiled again and replaced.
    ///
    /// Pitfall: the files are machine code loaded as they are. `dir` must be writable by
    /// this service alone (its data directory), never a place others can write to.
    pub fn with_disk_cache(mut self, dir: std::path::PathBuf) -> Result<Sandbox, SandboxError> {
        std::fs::create_dir_all(&dir).map_err(|e| SandboxError::Engine(format!("cannot create the compiled-module cache {}: {e}", dir.display())))?;
        self.disk_cache = Some(dir);
        Ok(self)
    }

    /// Deletes the compiled code of `bytes` kept in the disk cache, if any (a deleted
    /// submission leaves nothing behind; the in-memory cache lets go of it in its turn).
    pub fn forget(&self, bytes: &[u8]) -> std::io::Result<()> {
        let Some(dir) = &self.disk_cache else { return Ok(()) };
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        match std::fs::remove_file(dir.join(format!("{}.cwasm", hex(&hash)))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Validates and compiles a module (binary `.wasm` or `.wat` text). `name` is used in
    /// error messages and as the program's `argv[0]`. Compiled modules are cached by the
    /// SHA-256 of their bytes, so loading the same bytes twice compiles once (up to
    /// [`crate::MODULE_CACHE_BYTES`] of code); at most [`crate::COMPILE_BYTES_AT_ONCE`]
    /// bytes of modules compile at the same time, and a load beyond that waits.
    ///
    /// Rejects, naming `name` and the reason: a module over [`MAX_MODULE_BYTES`], invalid
    /// WebAssembly, a module that is not a command (no `_start`), and imports outside
    /// [`crate::ALLOWED_WASI_IMPORTS`] and [`crate::NO_FILE_IMPORTS`] (plus [`crate::GENERATOR_IMPORTS`] for generators),
    /// and, before compiling, shapes that would make the compiler take minutes and gigabytes
    /// ([`crate::MAX_FUNCTIONS`], [`crate::MAX_FUNCTION_BODY_BYTES`], [`crate::MAX_LOCALS`],
    /// [`crate::MAX_OPERAND_DEPTH`], [`crate::MAX_BLOCK_DEPTH`]).
    pub fn load(&self, name: &str, bytes: &[u8], role: Role) -> Result<Program, SandboxError> {
        // (Checked before the caches: the same bytes may have been loaded as `.wat`.)
        check_size_and_format(name, bytes)?;
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        let cached = self.modules.lock().expect("module cache poisoned").get(&hash);
        let on_disk = self.disk_cache.as_ref().map(|dir| dir.join(format!("{}.cwasm", hex(&hash))));
        let module = match cached.or_else(|| on_disk.as_deref().and_then(|path| self.load_compiled(path, hash))) {
            Some(module) => module,
            None => {
                let (binary, _) = self.checked_binary(name, bytes, role)?;
                let module = self.compile(&self.engine, name, binary.into_owned())?;
                if let Some(path) = &on_disk {
                    save_compiled(path, &module);
                }
                self.modules.lock().expect("module cache poisoned").insert(hash, module.clone());
                module
            }
        };
        validate::check(name, &module, role)?;
        let linker = if role == Role::Validator { &self.validator_linker } else { &self.linker };
        let pre = linker.instantiate_pre(&module).map_err(|e| SandboxError::Host { name: name.to_owned(), reason: format!("{e:#}") })?;
        let start = module.get_export_index("_start").expect("validate::check: a program exports `_start`");
        let harness = module.imports().any(|import| import.module() == "bugrank" && crate::HARNESS_IMPORTS.contains(&import.name()));
        Ok(Program { name: name.to_owned(), hash, same_code: hash, harness, kind: Kind::Module { pre, start } })
    }

    /// Whether `bytes` would load as a program of `role`, without compiling it: every check
    /// of [`Sandbox::load`] but the compiler's own (which fail only beyond the compiler's
    /// implementation limits, far above the shape limits checked here). Takes milliseconds
    /// where compiling takes a tenth of a second or more, so an upload of 1,000 modules is
    /// checked in seconds and its modules compile when the analysis loads them.
    pub fn check(&self, name: &str, bytes: &[u8], role: Role) -> Result<(), SandboxError> {
        check_size_and_format(name, bytes)?;
        let (binary, types) = self.checked_binary(name, bytes, role)?;
        validate::check_uncompiled(name, &binary, types)
    }

    /// Runs every program whole, none prepared (see `prepared.rs`), each run in a new
    /// instance (none kept, see `warm.rs`): the runs a prepared program's must equal, for
    /// tests and benchmarks.
    pub fn without_preparation(mut self) -> Sandbox {
        self.prepare = false;
        self.keep_instances = false;
        self
    }

    /// Compares every kept instance, once reset for its next run, with the state a new
    /// instance starts that run from, byte for byte and global for global; a difference is
    /// a [`SandboxError::Host`] naming the first differing byte. For tests (the interpreter's,
    /// `sandbox/tests/interpreter.rs`, run with it): the comparison costs a copy of the
    /// interpreter's memory a run.
    pub fn with_reset_checks(mut self) -> Sandbox {
        self.check_resets = true;
        self
    }

    /// Refuses modules that take longer than `wait` to compile, instead of
    /// [`MAX_COMPILE_WAIT`]: for tests of that refusal, which would otherwise need a module
    /// that takes minutes.
    pub fn with_compile_wait(mut self, wait: Duration) -> Sandbox {
        self.compile_wait = wait;
        self
    }

    /// Compiles `binary` once the gate admits it, in the compile pool, waiting at most
    /// `compile_wait` for it (see [`MAX_COMPILE_WAIT`]).
    fn compile(&self, engine: &Engine, name: &str, binary: Vec<u8>) -> Result<Module, SandboxError> {
        let admitted = self.compiling.admit(binary.len());
        let engine = engine.clone();
        let (sender, compiled) = std::sync::mpsc::sync_channel(1);
        self.compile_pool.spawn(move || {
            let module = Module::new(&engine, &binary);
            drop(admitted);
            // The caller may have stopped waiting.
            let _ = sender.send(module);
        });
        match compiled.recv_timeout(self.compile_wait) {
            Ok(module) => module.map_err(|e| invalid(name, e)),
            Err(_) => {
                Err(SandboxError::Invalid { name: name.to_owned(), reason: format!("it takes longer than {} s to compile", self.compile_wait.as_secs_f64()) })
            }
        }
    }

    /// The binary of a module (text is turned into binary), checked before compiling: its
    /// imports and shape, then validated with the engine's features (so that an invalid
    /// function is named in the validator's words, not the compiler's); with its types.
    fn checked_binary<'b>(&self, name: &str, bytes: &'b [u8], role: Role) -> Result<(Cow<'b, [u8]>, Option<Types>), SandboxError> {
        let binary = wat::parse_bytes(bytes).map_err(|e| invalid(name, e.into()))?;
        let types = validate::check_before_compiling(name, &binary, role)?;
        // Once valid with every proposal (the legacy exceptions' too), its legacy exception
        // handling is made the standard's, which the engine runs (the types stay the
        // module's); an invalid module is left for the engine's validator to name.
        let binary = match types.as_ref().map(|_| crate::exnref::translate(&binary)) {
            Some(Ok(Some(translated))) => Cow::Owned(translated),
            None | Some(Ok(None)) => binary,
            Some(Err(reason)) => {
                return Err(SandboxError::Invalid { name: name.to_owned(), reason: format!("its exception handling cannot be translated: {reason}") });
            }
        };
        Module::validate(&self.engine, &binary).map_err(|e| invalid(name, e))?;
        Ok((binary, types))
    }

    /// Runs `program` with `input` on stdin, within `limits`.
    ///
    /// Whatever the program does is an [`Outcome`]; `Err` means the host failed (for
    /// example every instance slot is in use), not the program.
    pub fn run(&self, program: &Program, input: &[u8], limits: &Limits) -> Result<Run, SandboxError> {
        self.execute(program, input, limits, Extras::default()).map(|(run, _)| run)
    }

    /// Runs `program` (loaded as [`Role::Validator`]) with `input` on stdin and `files`:
    /// its arguments, the files it may read and the directory it may write in, whose files
    /// come back as [`Run::written`] (see [`Files`]). The bytes it writes to files count
    /// against the output limit.
    pub fn run_with_files(&self, program: &Program, input: &[u8], files: Files, limits: &Limits) -> Result<Run, SandboxError> {
        self.execute(program, input, limits, Extras { files: Some(files), ..Extras::default() }).map(|(run, _)| run)
    }

    /// Runs a generator (loaded with [`Role::Generator`]) with empty stdin, answering its
    /// `bugrank.choice` and `bugrank.size` calls from `choices`, which is handed back
    /// with the run so the caller can read what was chosen.
    pub fn generate<C: Choices + 'static>(&self, program: &Program, choices: C, limits: &Limits) -> Result<(Run, C), SandboxError> {
        let (run, choices) = self.execute(program, &[], limits, Extras { choices: Some(Box::new(choices)), ..Extras::default() })?;
        let choices = choices.expect("the run hands its choices back");
        let choices = *(choices as Box<dyn std::any::Any>).downcast::<C>().unwrap_or_else(|_| unreachable!("the boxed choices are the caller's type"));
        Ok((run, choices))
    }

    /// Runs `program` and `interactor` (loaded as [`Role::Validator`], given `files`) as
    /// judges run an interactive problem: each one's stdout is the other's stdin, the
    /// interactor on a thread of its own (see `pipe.rs`: what each reads does not depend on
    /// the threads' timing, and a stall ends the program out of time). Each run has its
    /// own limits: both budgets are charged, each for its own side. `Err` means the host
    /// failed, as for [`Sandbox::run`].
    pub fn interact(
        &self,
        program: &Program,
        limits: &Limits,
        interactor: &Program,
        files: Files,
        interactor_limits: &Limits,
    ) -> Result<Interaction, SandboxError> {
        let (program_end, interactor_end, channel) = pipe::channel();
        let stack = interactor_limits.stack_bytes.min(MAX_STACK_BYTES) + 2 * HOST_STACK_BYTES;
        let (program_run, interactor_run) = std::thread::scope(|scope| {
            let judge = std::thread::Builder::new()
                .name("sandbox-interactor".into())
                .stack_size(stack)
                .spawn_scoped(scope, || {
                    let extras = Extras { files: Some(files), pipe: Some(interactor_end), ..Extras::default() };
                    self.execute(interactor, &[], interactor_limits, extras).map(|(run, _)| run)
                })
                .map_err(|e| SandboxError::Host { name: interactor.name.clone(), reason: format!("cannot start a thread for the interactor: {e}") })?;
            let program_run = self.execute(program, &[], limits, Extras { pipe: Some(program_end), ..Extras::default() }).map(|(run, _)| run);
            let interactor_run = judge.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            Ok::<_, SandboxError>((program_run?, interactor_run?))
        })?;
        let (dialogue, interactor_saw_end) = channel.finish();
        Ok(Interaction { program: program_run, interactor: interactor_run, dialogue, interactor_saw_end })
    }

    fn execute(&self, program: &Program, input: &[u8], limits: &Limits, extras: Extras) -> Result<(Run, Option<Box<dyn Choices>>), SandboxError> {
        // A run recurses on the calling thread's stack: one with too little left for the
        // run's call stack makes the run on a thread of its own, with enough.
        let needed = limits.stack_bytes.min(MAX_STACK_BYTES) + HOST_STACK_BYTES;
        if stack_left() < needed {
            return std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .name("sandbox-deep-run".into())
                    .stack_size(needed + HOST_STACK_BYTES)
                    .spawn_scoped(scope, || self.execute_here(program, input, limits, extras))
                    .map_err(|e| SandboxError::Host { name: program.name.clone(), reason: format!("cannot start a thread for its stack: {e}") })?
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
        }
        self.execute_here(program, input, limits, extras)
    }

    fn execute_here(&self, program: &Program, input: &[u8], limits: &Limits, extras: Extras) -> Result<(Run, Option<Box<dyn Choices>>), SandboxError> {
        let with_args;
        let launch = match &program.kind {
            Kind::Module { pre, start } => Launch { pre, entry: Entry::Start(start), base_memory: 0, harness: program.harness, prepared: None, keep: None },
            Kind::Interpreted { interpreter, code, prepared } => {
                let prepared = match self.prepare && program.harness {
                    true => prepared.get_or_init(|| self.prepared(interpreter, &program.name, code)).as_ref(),
                    false => None,
                };
                // A run whose budget cannot hold the prepared part runs whole, and ends as
                // it would have.
                let fits = |p: &&Arc<Prepared>| p.fuel < limits.fuel && p.memory_bytes <= memory_cap(limits, interpreter.base_memory);
                let prepared = prepared.filter(fits);
                // A validator's arguments reach its `sys.argv` in the request.
                let args = extras.files.as_ref().map(|files| files.args.as_slice()).filter(|args| !args.is_empty());
                with_args = args.map(|args| interpreter::with_arguments(args, code));
                let (call, request): (_, &[u8]) = match (prepared, &with_args) {
                    (Some(_), _) => (&interpreter.entries.run_prepared, &[]),
                    (None, Some(with_args)) => (&interpreter.entries.run, with_args),
                    (None, None) => (&interpreter.entries.run, code),
                };
                Launch {
                    pre: &interpreter.pre,
                    entry: Entry::Request { call, entries: &interpreter.entries, request },
                    base_memory: interpreter.base_memory,
                    harness: program.harness,
                    prepared: prepared.map(|p| (p, interpreter.globals.as_slice())),
                    keep: (self.keep_instances && interpreter.keeps).then_some(&**interpreter),
                }
            }
        };
        self.launch(&program.name, launch, input, limits, extras)
    }

    /// A fresh store for one run of `name` within `limits` (memory beyond `base_memory`,
    /// the interpreter's own).
    fn store(
        &self,
        engine: &Engine,
        name: &str,
        input: &[u8],
        limits: &Limits,
        base_memory: usize,
        choices: Option<Box<dyn Choices>>,
    ) -> Result<Store<RunState>, SandboxError> {
        let mut store = Store::new(engine, RunState::new(name, input, limits, base_memory, choices));
        store.limiter(|state| &mut state.memory);
        store.call_hook(stdio::charge_host_call);
        arm(&mut store, name, limits, limits.fuel)?;
        Ok(store)
    }

    /// Instantiates `pre` in `store`. Instantiation runs the module's start function, guest
    /// code like any other (its failure is the guest's): only a shortage of instance slots
    /// is the host's failure, and it is waited out.
    fn instantiate(&self, name: &str, pre: &InstancePre<RunState>, store: &mut Store<RunState>) -> Result<wasmtime::Result<Instance>, SandboxError> {
        let mut waited = Duration::ZERO;
        loop {
            match pre.instantiate(&mut *store) {
                Err(e) if e.downcast_ref::<PoolConcurrencyLimitError>().is_some() => {
                    if waited >= SLOT_WAIT {
                        return Err(SandboxError::Host { name: name.to_owned(), reason: format!("{e:#}") });
                    }
                    std::thread::sleep(SLOT_RETRY);
                    waited += SLOT_RETRY;
                }
                other => return Ok(other),
            }
        }
    }

    fn launch(&self, name: &str, launch: Launch<'_>, input: &[u8], limits: &Limits, extras: Extras) -> Result<(Run, Option<Box<dyn Choices>>), SandboxError> {
        let Extras { choices, files, pipe } = extras;
        let target = launch.prepared.map(|(prepared, _)| prepared);
        let size = target.map_or(launch.base_memory, |prepared| prepared.memory_bytes.max(launch.base_memory));
        let mut warm = match launch.keep {
            Some(interpreter) => self.warm(interpreter, name, size, memory_cap(limits, launch.base_memory), target)?,
            None => None,
        };
        // The prepared part's fuel is charged as if it ran in this run (`fits` above).
        let fuel = limits.fuel - launch.prepared.map_or(0, |(prepared, _)| prepared.fuel);
        let kept_instance = warm.as_ref().map(|warm| warm.instance);
        let mut fresh = None;
        let store = match warm.as_mut() {
            Some(warm) => {
                *warm.store.data_mut() = RunState::new(name, input, limits, launch.base_memory, choices);
                arm(&mut warm.store, name, limits, fuel)?;
                &mut warm.store
            }
            None => {
                let store = fresh.insert(self.store(launch.pre.module().engine(), name, input, limits, launch.base_memory, choices)?);
                store.set_fuel(fuel).map_err(|e| SandboxError::Host { name: name.to_owned(), reason: format!("{e:#}") })?;
                store
            }
        };
        store.data_mut().stdio.harness = launch.harness;
        store.data_mut().stdio.pipe = pipe;
        if let Some(mut files) = files {
            let state = store.data_mut();
            state.args.append(&mut files.args);
            state.files = Some(FileTable::new(files));
        }
        let instance = match kept_instance {
            Some(instance) => Ok(instance),
            None => self.instantiate(name, launch.pre, store)?.and_then(|instance| {
                // An interpreter's instantiation takes a unit of fuel (wasmtime's), which is
                // not the run's: a kept instance's run has none.
                if let Entry::Request { .. } = launch.entry {
                    store.set_fuel(fuel)?;
                }
                match launch.prepared {
                    Some((prepared, globals)) => start_prepared(store, instance, prepared, globals).map(|()| instance),
                    None => Ok(instance),
                }
            }),
        };
        let (result, instance) = match instance {
            Ok(instance) => (enter(store, instance, &launch.entry), Some(instance)),
            Err(e) => (Err(e), None),
        };
        let fuel_used = limits.fuel - store.get_fuel().unwrap_or(0);
        // An interpreted hand-in's harness ends its run by returning from it: an exit
        // during the run is the hand-in's own (`os._exit` from inside a call).
        let ends_by_return = launch.harness && matches!(launch.entry, Entry::Request { .. });
        let mut outcome = match result {
            Ok(outcome) => outcome,
            Err(e) if ends_by_return && e.downcast_ref::<I32Exit>().is_some() => Outcome::Trap(HAND_IN_EXITED.to_owned()),
            Err(e) if e.downcast_ref::<Trap>() == Some(&Trap::MemoryOutOfBounds) && instance.is_some_and(|i| stack_overflowed(store, i)) => {
                Outcome::StackOverflow
            }
            Err(e) => classify(e),
        };
        let mut state = std::mem::replace(store.data_mut(), RunState::new(name, &[], limits, 0, None));
        if let (Some(interpreter), Some(instance), None, false) = (launch.keep, instance, &state.wasi, state.stdio.wrote.lost) {
            let wrote = std::mem::take(&mut state.stdio.wrote.ranges);
            let warm = match warm {
                Some(warm) => Some(warm),
                None => fresh.take().and_then(|store| Warm::new(store, instance, &interpreter.globals, target.cloned())),
            };
            if let Some(mut warm) = warm {
                warm.ran(wrote);
                interpreter.kept.keep(warm);
            }
        }
        let (mut stdout, mut printed, mut stderr) = (state.stdio.stdout, state.stdio.printed, state.stdio.stderr);
        if stdout.len() > limits.output_bytes || printed.len() > limits.output_bytes || stderr.len() > STDERR_LIMIT_BYTES {
            outcome = Outcome::OutputLimit;
        } else if state.memory.refused && !outcome.is_success() {
            outcome = Outcome::OutOfMemory;
        }
        // (Each holds at most one byte over its limit: see `Stdio`.)
        stdout.truncate(limits.output_bytes);
        printed.truncate(limits.output_bytes);
        stderr.truncate(STDERR_LIMIT_BYTES);
        let read_input = state.stdio.asked;
        let written = state.files.map(|files| files.written).unwrap_or_default();
        Ok((Run { outcome, stdout, printed, stderr, fuel_used, read_input, written }, state.choices))
    }

    /// The interpreter `spec` describes, initialised and snapshotted (see `interpreter.rs`):
    /// made once per sandbox, and, with a disk cache, kept compiled there for the next
    /// process. Takes seconds the first time (compiling the interpreter twice, and its
    /// start-up); an `Err` means the interpreter itself is broken, never a program.
    pub fn interpreter(&self, spec: &InterpreterSpec<'_>) -> Result<Arc<Interpreter>, SandboxError> {
        off_async(|| self.make_interpreter(spec))
    }

    fn make_interpreter(&self, spec: &InterpreterSpec<'_>) -> Result<Arc<Interpreter>, SandboxError> {
        let hash = spec.hash();
        let mut interpreters = self.interpreters.lock().expect("interpreters poisoned");
        if let Some(ready) = interpreters.get(&hash) {
            return Ok(ready.clone());
        }
        let failed = |reason: String| SandboxError::Host { name: spec.name.to_owned(), reason };
        let on_disk = self.disk_cache.as_ref().map(|dir| dir.join(format!("{}.snapshot.cwasm", hex(&hash))));
        let snapshot = match on_disk.as_deref().filter(|path| path.is_file()) {
            // SAFETY: as in `load_compiled`: written by `save_compiled` into the sandbox's
            // own cache directory; wasmtime refuses another version's or configuration's.
            Some(path) => unsafe { Module::deserialize_file(&self.interpreter_engine, path) }.ok(),
            None => None,
        };
        let snapshot = match snapshot {
            Some(module) => module,
            None => {
                let bytes = self.take_snapshot(spec).map_err(failed);
                let module = bytes.and_then(|bytes| self.compile(&self.interpreter_engine, spec.name, bytes).map_err(|e| failed(e.to_string())));
                self.interpreter_functions.clear();
                let module = module?;
                if let Some(path) = &on_disk {
                    save_compiled(path, &module);
                }
                module
            }
        };
        let base_memory = match snapshot.exports().find_map(|e| e.ty().memory().cloned()) {
            Some(memory) => memory.minimum() as usize * (64 << 10),
            None => return Err(failed("it exports no memory".to_owned())),
        };
        let entry = |name: &str| snapshot.get_export_index(name).ok_or_else(|| failed(format!("it does not export `{name}`")));
        let entries = Entries {
            alloc: entry("bugrank_alloc")?,
            compile: entry("bugrank_compile")?,
            run: entry("bugrank_run")?,
            prepare: entry("bugrank_prepare")?,
            run_prepared: entry("bugrank_run_prepared")?,
            message: entry("bugrank_message")?,
        };
        let globals: Vec<String> = (0..).map(snapshot::global_export).take_while(|name| snapshot.get_export_index(name).is_some()).collect();
        let pre = self.interpreter_linker.instantiate_pre(&snapshot).map_err(|e| failed(format!("{e:#}")))?;
        let keeps = snapshot.get_export_index(written::WRITTEN_EXPORT).is_some();
        let ready = Arc::new(Interpreter {
            name: spec.name.to_owned(),
            hash,
            pre,
            entries,
            base_memory,
            globals,
            base: OnceLock::new(),
            keeps,
            kept: Default::default(),
            resets: Default::default(),
        });
        interpreters.insert(hash, ready.clone());
        Ok(ready)
    }

    /// Runs the interpreter's initialisation in an instrumented copy, its library written
    /// to a temporary directory and preopened read-only, and makes the snapshot of where it
    /// ended. The library's files are closed by then: runs have no files at all.
    fn take_snapshot(&self, spec: &InterpreterSpec<'_>) -> Result<Vec<u8>, String> {
        let library = Library::write(spec.library, spec.library_dir).map_err(|e| format!("cannot write its library: {e}"))?;
        let (instrumented, globals) = snapshot::instrument(spec.module)?;
        let module = self.compile(&self.interpreter_engine, spec.name, instrumented.clone()).map_err(|e| e.to_string())?;
        let pre = self.with_files.instantiate_pre(&module).map_err(|e| format!("{e:#}"))?;
        let limits = Limits { fuel: INIT_FUEL, memory_bytes: MAX_MEMORY_BYTES, output_bytes: STDERR_LIMIT_BYTES, ..Limits::default() };
        let mut store = self.store(&self.interpreter_engine, spec.name, &[], &limits, 0, None).map_err(|e| e.to_string())?;
        let stderr = wasmtime_wasi::p2::pipe::MemoryOutputPipe::new(STDERR_LIMIT_BYTES);
        let mut wasi = wasi_context(spec.name);
        wasi.allow_blocking_current_thread(true).stderr(stderr.clone());
        wasi.preopened_dir(library.root(), "/", FsPerms::ReadOnly).map_err(|e| format!("cannot open its library: {e:#}"))?;
        store.data_mut().wasi = Some(wasi.build_p1());
        let instance = self.instantiate(spec.name, &pre, &mut store).map_err(|e| e.to_string())?.map_err(|e| format!("{e:#}"))?;
        let call = |store: &mut Store<RunState>, name: &str| -> Result<i32, String> {
            let func = instance.get_func(&mut *store, name).ok_or(format!("it does not export `{name}`"))?;
            match func.typed::<(), i32>(&*store) {
                Ok(typed) => typed.call(&mut *store, ()),
                Err(_) => func.typed::<(), ()>(&*store).map_err(|e| format!("`{name}`: {e:#}"))?.call(&mut *store, ()).map(|()| 0),
            }
            .map_err(|e| format!("`{name}` failed: {}", classify(e)))
        };
        call(&mut store, "_initialize")?;
        let status = call(&mut store, "bugrank_init")?;
        if status != 0 {
            let stderr = String::from_utf8_lossy(&stderr.contents()).into_owned();
            return Err(format!("its initialisation failed ({status}): {}", stderr.trim()));
        }
        let memory = instance.get_memory(&mut store, "memory").ok_or("it exports no memory named `memory`")?;
        let values = (0..globals)
            .map(|i| {
                let value = instance.get_global(&mut store, &snapshot::global_export(i)).map(|g| g.get(&mut store));
                value.and_then(snapshot_value).ok_or(format!("global {i} is {value:?}, which a snapshot cannot keep"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // (Of the instrumented module: its globals stay exported, so that a prepared
        // program's run can start with theirs, see `prepared.rs`.)
        let taken = snapshot::snapshot(&instrumented, memory.data(&store), &values)?;
        // Its writes marked, so that its instances can be kept from run to run; a module
        // whose writes cannot all be marked runs as it is, each run in a new instance.
        Ok(written::track(&taken).unwrap_or(taken))
    }

    /// Compiles the program `source` (its file `name`) with `interpreter`. `Ok(Err(message))`
    /// is the compiler's refusal, the program's result (a syntax error, an import that
    /// cannot work, or the compile's own limits), in the interpreter's words; `Err` is the
    /// host's failure.
    pub fn load_interpreted(&self, interpreter: &Arc<Interpreter>, name: &str, source: &[u8]) -> Result<Result<Program, String>, SandboxError> {
        self.load_harnessed(interpreter, name, source, None)
    }

    /// [`Sandbox::load_interpreted`] of a hand-in of a function-level assignment, with the
    /// problem's `harness` (its file name and source) when there is one: the harness is
    /// the program and the hand-in its module (see `interpreter.rs`), and the program's
    /// judged output is what the harness writes through `bugrank.output`.
    pub fn load_harnessed(
        &self,
        interpreter: &Arc<Interpreter>,
        name: &str,
        source: &[u8],
        harness: Option<(&str, &[u8])>,
    ) -> Result<Result<Program, String>, SandboxError> {
        off_async(|| self.compile_interpreted(interpreter, name, source, harness))
    }

    fn compile_interpreted(
        &self,
        interpreter: &Arc<Interpreter>,
        name: &str,
        source: &[u8],
        harness: Option<(&str, &[u8])>,
    ) -> Result<Result<Program, String>, SandboxError> {
        let mut request = Vec::with_capacity(name.len() + 1 + source.len());
        request.extend_from_slice(name.as_bytes());
        request.push(0);
        request.extend_from_slice(source);
        if let Some((harness_name, harness_source)) = harness {
            for part in [harness_name.as_bytes(), harness_source] {
                request.push(0);
                request.extend_from_slice(part);
            }
        }
        let entries = &interpreter.entries;
        let launch = Launch {
            pre: &interpreter.pre,
            entry: Entry::Request { call: &entries.compile, entries, request: &request },
            base_memory: interpreter.base_memory,
            harness: false,
            prepared: None,
            keep: None,
        };
        let limits = Limits { fuel: COMPILE_FUEL, output_bytes: MAX_COMPILED_BYTES, ..Limits::default() };
        let (run, _) = self.launch(name, launch, &[], &limits, Extras::default())?;
        if run.outcome != Outcome::Exited(0) {
            let said = String::from_utf8_lossy(&run.stderr).trim_end().to_owned();
            return Ok(Err(match run.outcome {
                Outcome::Exited(_) if !said.is_empty() => said,
                outcome => format!("{} could not compile it: it {outcome}", interpreter.name),
            }));
        }
        // The compiler writes the program's `same_code` digest, then the program.
        let Some((digest, code)) = run.stdout.split_at_checked(SAME_CODE_BYTES) else {
            let reason = format!("{} wrote {} bytes for a compiled program, less than its digest", interpreter.name, run.stdout.len());
            return Err(SandboxError::Host { name: name.to_owned(), reason });
        };
        let of = |part: &[u8]| -> [u8; 32] { Sha256::new().chain_update(interpreter.hash).chain_update(part).finalize().into() };
        let kind = Kind::Interpreted { interpreter: interpreter.clone(), code: code.into(), prepared: Arc::default() };
        Ok(Ok(Program { name: name.to_owned(), hash: of(code), same_code: of(digest), harness: harness.is_some(), kind }))
    }

    /// A module compiled earlier and kept at `path`, if it is there and usable.
    fn load_compiled(&self, path: &std::path::Path, hash: [u8; 32]) -> Option<Module> {
        if !path.is_file() {
            return None;
        }
        // SAFETY: the file was written by `save_compiled` from `Module::serialize` of this
        // engine's kind into the service's own cache directory (see `with_disk_cache`);
        // wasmtime refuses, with an error, a file made by another version or configuration.
        let module = unsafe { Module::deserialize_file(&self.engine, path) }.ok()?;
        self.modules.lock().expect("module cache poisoned").insert(hash, module.clone());
        Some(module)
    }
}

impl Sandbox {
    /// A kept instance of `interpreter` whose memory has at least `size` bytes and at most
    /// `cap` (the run's memory limit), reset to start a run from `target` (the snapshot's
    /// state when `None`), if one is kept (see `warm.rs`). With
    /// [`Sandbox::with_reset_checks`], an instance not as a new one would be is the host's
    /// error.
    fn warm(&self, interpreter: &Interpreter, name: &str, size: usize, cap: usize, target: Option<&Arc<Prepared>>) -> Result<Option<Warm>, SandboxError> {
        let Some(base) = interpreter.base.get_or_init(|| self.snapshot_state(interpreter, name)).as_ref() else { return Ok(None) };
        let Some(mut warm) = interpreter.kept.take(size, cap) else { return Ok(None) };
        if warm.reset(base, target).is_err() {
            return Ok(None);
        }
        if self.check_resets
            && let Some(difference) = warm.differs(base, target)
        {
            return Err(SandboxError::Host { name: name.to_owned(), reason: format!("a kept instance was not reset: {difference}") });
        }
        interpreter.resets.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(warm))
    }

    /// `code` of `interpreter` prepared for its runs (see `prepared.rs`), or `None` when it
    /// runs whole: the part every run shares stopped short of its end, or reached out of
    /// the instance, or the host could not run it (a run then runs whole, as before).
    fn prepared(&self, interpreter: &Interpreter, name: &str, code: &[u8]) -> Option<Arc<Prepared>> {
        let base = interpreter.base.get_or_init(|| self.snapshot_state(interpreter, name)).as_ref()?;
        let limits = Limits { fuel: PREPARE_FUEL, memory_bytes: MAX_MEMORY_BYTES, ..Limits::default() };
        let mut store = self.store(interpreter.pre.module().engine(), name, &[], &limits, interpreter.base_memory, None).ok()?;
        store.data_mut().stdio.harness = true;
        let instance = self.instantiate(name, &interpreter.pre, &mut store).ok()?.ok()?;
        let entry = Entry::Request { call: &interpreter.entries.prepare, entries: &interpreter.entries, request: code };
        let outcome = enter(&mut store, instance, &entry).ok()?;
        let fuel = limits.fuel - store.get_fuel().ok()?;
        let stdio = &store.data().stdio;
        if outcome != Outcome::Exited(0) || stdio.asked || !stdio.stdout.is_empty() || !stdio.printed.is_empty() || !stdio.stderr.is_empty() {
            return None;
        }
        let globals = globals_of(&mut store, instance, &interpreter.globals)?;
        let globals = globals.into_iter().enumerate().filter(|(i, value)| base.globals.get(*i) != Some(value)).collect();
        let memory = instance.get_memory(&mut store, "memory")?.data(&store);
        let prepared = Prepared { fuel, memory_bytes: memory.len(), changes: prepared::changes(&base.memory, memory), globals };
        forget_pages(memory);
        Some(Arc::new(prepared))
    }

    /// The memory and globals every run of `interpreter` starts with: a new instance's.
    fn snapshot_state(&self, interpreter: &Interpreter, name: &str) -> Option<SnapshotState> {
        let mut store = self.store(interpreter.pre.module().engine(), name, &[], &Limits::default(), interpreter.base_memory, None).ok()?;
        let instance = self.instantiate(name, &interpreter.pre, &mut store).ok()?.ok()?;
        let globals = globals_of(&mut store, instance, &interpreter.globals)?;
        let memory = instance.get_memory(&mut store, "memory")?.data(&store);
        let state = SnapshotState { memory: memory.to_vec(), globals };
        forget_pages(memory);
        Some(state)
    }
}

/// Gives back to the kernel every page of `memory`, an instance's about to be dropped that
/// the host has just read whole: a read maps each page of the slot's image, and the slot
/// kept them mapped, so that every later reset of it scanned them all (a whole-program
/// Python run in that slot took 350 µs instead of 185). What the kernel maps again later
/// is the image's bytes, as the pool's own reset would have left them.
fn forget_pages(memory: &[u8]) {
    // SAFETY: `memory` is a linear memory of a store that is dropped before any other
    // use: its pages are the pool's private mapping of the image (or anonymous), which
    // MADV_DONTNEED turns back into the image's bytes (or zeros) on their next access.
    unsafe { libc::madvise(memory.as_ptr() as *mut libc::c_void, memory.len(), libc::MADV_DONTNEED) };
}

/// The values of an interpreter's instance's globals (by `globals`, their export names), or
/// `None` if one cannot be kept.
fn globals_of(store: &mut Store<RunState>, instance: Instance, globals: &[String]) -> Option<Vec<snapshot::Value>> {
    globals.iter().map(|name| snapshot_value(instance.get_global(&mut *store, name)?.get(&mut *store))).collect()
}

/// Fuel for preparing a program (see `prepared.rs`): a hand-in's module that takes more to
/// load runs whole on every run.
const PREPARE_FUEL: u64 = 1_000_000_000;

/// An engine, its linkers, and the engine's function cache.
type Configured = (Engine, Linkers, std::sync::Arc<FunctionCache>);

/// The linkers of an engine.
struct Linkers {
    /// Every program's: WASI preview 1 with the sandbox's own calls, the generator host
    /// functions and the harnesses' output.
    programs: Linker<RunState>,
    /// A validator's (loaded as [`Role::Validator`]): the programs' with the calls of the
    /// files it is given (`files.rs`).
    validators: Linker<RunState>,
    /// wasmtime-wasi's calls alone, files included: what initialises interpreters.
    with_files: Linker<RunState>,
}

/// An engine with a pooling allocator of `slots` instance slots that keep up to
/// `keep_resident` bytes of memory mapped between runs, its [`Linkers`], and its cache of
/// compiled functions.
fn configured(slots: u32, keep_resident: usize, memories: u32) -> Result<Configured, SandboxError> {
    let mut pool = PoolingAllocationConfig::new();
    pool.total_core_instances(slots)
        .total_memories(slots * memories)
        .max_memories_per_module(memories)
        .total_tables(slots)
        .max_unused_warm_slots(slots)
        .max_memory_size(MAX_MEMORY_BYTES)
        .linear_memory_keep_resident(keep_resident)
        .table_keep_resident(KEEP_RESIDENT_BYTES)
        .pagemap_scan(Enabled::Auto);
    let mut config = Config::new();
    config
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        .memory_init_cow(true)
        .consume_fuel(true)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK_BYTES);
    if memories > 1 {
        config.wasm_multi_memory(true);
    }
    // C++ built with exceptions (see `exnref.rs`): a module that uses them gets a GC heap
    // for its exceptions (within its memory limit); one that does not is compiled and run
    // as without them. Not the rest of what the engine's GC brings (structs, arrays): no
    // program of a class needs it, and it is code that untrusted modules would reach.
    config.wasm_exceptions(true).wasm_gc(false).wasm_function_references(false);
    // A trap's kind is all an outcome keeps: no backtrace is captured (symbolising one
    // took several % of an analysis whose answers crash often), nor the address map
    // that backtraces need compiled.
    config.wasm_backtrace_max_frames(None).generate_address_map(false);
    // A class's modules share most of their functions (the standard library's): each
    // is compiled once (see `compile.rs`).
    let functions = std::sync::Arc::new(FunctionCache::new(FUNCTION_CACHE_BYTES));
    config.enable_incremental_compilation(functions.clone()).map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    let engine = Engine::new(&config).map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    // The wall clock of every run's backstop; the thread ends with the engine.
    let ticking = engine.weak();
    std::thread::Builder::new()
        .name("sandbox-epoch".into())
        .spawn(move || {
            while let Some(engine) = ticking.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .map_err(|e| SandboxError::Engine(format!("cannot start the epoch thread: {e}")))?;

    let mut linker = Linker::new(&engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, RunState::wasi).map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    linker
        .func_wrap("bugrank", "choice", |mut caller: Caller<'_, RunState>, max: i64| -> wasmtime::Result<i64> {
            let max = max as u64;
            match caller.data_mut().choices.as_mut().and_then(|c| c.choice(max)) {
                Some(value) => Ok(value.min(max) as i64),
                None => wasmtime::bail!("the generator made more choices than allowed"),
            }
        })
        .and_then(|linker| {
            linker.func_wrap("bugrank", "size", |caller: Caller<'_, RunState>| -> i32 { caller.data().choices.as_ref().map_or(0, |c| c.size()) as i32 })
        })
        .and_then(|linker| linker.func_wrap("bugrank", "output", stdio::output))
        .map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    // The calls whose work fuel would not see are done by `stdio.rs`, which charges for
    // that work (its clocks count the run's fuel, and its `poll_oneoff` charges a sleep's
    // time as fuel); the
    // arguments, environment and exit by `process.rs`, so that most runs build no WASI
    // context at all.
    linker.allow_shadowing(true);
    let preview1 = "wasi_snapshot_preview1";
    // (Initialising an interpreter reads its library's files: that alone links
    // wasmtime-wasi's own calls, see `take_snapshot`.)
    let with_files = linker.clone();
    linker
        .func_wrap(preview1, "fd_read", stdio::fd_read)
        .and_then(|linker| linker.func_wrap(preview1, "fd_write", stdio::fd_write))
        .and_then(|linker| linker.func_wrap(preview1, "random_get", stdio::random_get))
        .and_then(|linker| linker.func_wrap(preview1, "poll_oneoff", stdio::poll_oneoff))
        .and_then(|linker| linker.func_wrap(preview1, "clock_time_get", stdio::clock_time_get))
        .and_then(|linker| linker.func_wrap(preview1, "clock_res_get", stdio::clock_res_get))
        .and_then(|linker| linker.func_wrap(preview1, "args_sizes_get", process::args_sizes_get))
        .and_then(|linker| linker.func_wrap(preview1, "args_get", process::args_get))
        .and_then(|linker| linker.func_wrap(preview1, "environ_sizes_get", process::environ_sizes_get))
        .and_then(|linker| linker.func_wrap(preview1, "environ_get", process::environ_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_fdstat_get", process::fd_fdstat_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_filestat_get", process::fd_filestat_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_close", process::fd_close))
        .and_then(|linker| linker.func_wrap(preview1, "fd_tell", process::fd_tell))
        .and_then(|linker| linker.func_wrap(preview1, "fd_seek", process::fd_seek))
        .and_then(|linker| linker.func_wrap(preview1, "proc_exit", process::proc_exit))
        .map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    // A validator's files (`files.rs`): the calls of its descriptors, the standard
    // streams' for the rest.
    let mut validators = linker.clone();
    validators
        .func_wrap(preview1, "fd_read", files::fd_read)
        .and_then(|linker| linker.func_wrap(preview1, "fd_write", files::fd_write))
        .and_then(|linker| linker.func_wrap(preview1, "fd_seek", files::fd_seek))
        .and_then(|linker| linker.func_wrap(preview1, "fd_tell", files::fd_tell))
        .and_then(|linker| linker.func_wrap(preview1, "fd_fdstat_get", files::fd_fdstat_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_filestat_get", files::fd_filestat_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_close", files::fd_close))
        .and_then(|linker| linker.func_wrap(preview1, "fd_prestat_get", files::fd_prestat_get))
        .and_then(|linker| linker.func_wrap(preview1, "fd_prestat_dir_name", files::fd_prestat_dir_name))
        .and_then(|linker| linker.func_wrap(preview1, "path_open", files::path_open))
        .and_then(|linker| linker.func_wrap(preview1, "path_filestat_get", files::path_filestat_get))
        .map_err(|e| SandboxError::Engine(format!("{e:#}")))?;
    linker.allow_shadowing(false);
    validators.allow_shadowing(false);
    Ok((engine, Linkers { programs: linker, validators, with_files }, functions))
}

/// Runs `work` on a thread of its own: an interpreter's initialisation and compiles call
/// wasmtime-wasi's synchronous functions (files, clocks), which block on a Tokio runtime of
/// their own and panic on a thread that runs asynchronous tasks already (the service's
/// handlers, its start). A thread costs some microseconds; these calls cost milliseconds.
fn off_async<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// How long a run waits for a free instance slot before the host gives up, and how often
/// it looks. Slots free as soon as a run ends, and runs are bounded by
/// [`WALL_CLOCK_LIMIT`], so a wait this long means the host is broken, not busy.
const SLOT_WAIT: Duration = Duration::from_secs(60);
const SLOT_RETRY: Duration = Duration::from_millis(10);

/// A module's size, and that a `.wasm` file is the binary format (only other names, such as
/// `.wat`, may be text).
fn check_size_and_format(name: &str, bytes: &[u8]) -> Result<(), SandboxError> {
    if bytes.len() > MAX_MODULE_BYTES {
        return Err(SandboxError::TooLarge { name: name.to_owned(), size: bytes.len(), limit: MAX_MODULE_BYTES });
    }
    if name.ends_with(".wasm") && !bytes.starts_with(b"\0asm") {
        return Err(SandboxError::Invalid {
            name: name.to_owned(),
            reason: "a .wasm file must be a WebAssembly binary, and this one does not start with `\\0asm`".to_owned(),
        });
    }
    Ok(())
}

/// Why the compiler (or the validator it runs first) refuses `name`, on one line.
fn invalid(name: &str, error: wasmtime::Error) -> SandboxError {
    let reason = format!("{error:#}").replace('\n', " ");
    // The error's own words follow; `SandboxError::Invalid` already says what failed.
    let reason = match reason.strip_prefix("failed to parse WebAssembly module: ") {
        Some(rest) => rest.to_owned(),
        None => reason,
    };
    SandboxError::Invalid { name: name.to_owned(), reason }
}

/// Keeps a compiled module at `path`, written to a temporary name and renamed so that a
/// crash leaves the whole file or none. A cache that cannot be written only costs a
/// compile later, so failures are ignored.
fn save_compiled(path: &std::path::Path, module: &Module) {
    let Ok(bytes) = module.serialize() else { return };
    let temporary = path.with_extension(format!("cwasm.{}.tmp", std::process::id()));
    if std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path)).is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

/// `bytes` in lower-case hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of stack left on the calling thread, about (the thread's stack as the system
/// gives it, found once per thread; 0 when it cannot be found, so that runs are then made
/// on a thread whose stack is known).
fn stack_left() -> usize {
    thread_local! {
        static STACK_BOTTOM: usize = stack_bottom();
    }
    let here = 0u8;
    let here = std::ptr::addr_of!(here) as usize;
    STACK_BOTTOM.with(|&bottom| if bottom == 0 { 0 } else { here.saturating_sub(bottom) })
}

/// The lowest address of the calling thread's stack (its guard page above it), or 0.
fn stack_bottom() -> usize {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read, and
    // destroyed once; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let (mut address, mut size, mut guard) = (std::ptr::null_mut(), 0usize, 0usize);
        let found = libc::pthread_attr_getstack(&attr, &mut address, &mut size) == 0 && libc::pthread_attr_getguardsize(&attr, &mut guard) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if found { address as usize + guard } else { 0 }
    }
}

/// Whether a program that trapped on a bad memory access had overflowed its stack: its
/// exported stack pointer (`__stack_pointer`, which bugrank's builds export; a module
/// without it is never said to have overflowed) lies past its memory. The stack is first
/// in memory and grows down from its top, so a stack too small for what is put on it
/// wraps its pointer below address 0, to the top of the 32-bit range.
fn stack_overflowed(store: &mut Store<RunState>, instance: Instance) -> bool {
    let Some(pointer) = instance.get_global(&mut *store, "__stack_pointer") else { return false };
    let Val::I32(pointer) = pointer.get(&mut *store) else { return false };
    let size = instance.get_memory(&mut *store, "memory").map_or(0, |memory| memory.data_size(&*store));
    pointer as u32 as usize > size
}

/// Why an interpreted hand-in of a function-level assignment crashed when it ended the run
/// itself: only the harness ends it (a hand-in that writes the answers and exits would
/// otherwise never be judged on its functions).
pub(crate) const HAND_IN_EXITED: &str = "the hand-in ended the run itself (os._exit): in this assignment only the harness ends it";

/// What a run is started with.
struct Launch<'p> {
    pre: &'p InstancePre<RunState>,
    entry: Entry<'p>,
    base_memory: usize,
    /// Whether the program writes its judged output through `bugrank.output` (see
    /// [`Stdio::printed`]).
    harness: bool,
    /// The state the run starts from instead of the snapshot's, with the names of the
    /// interpreter's global exports (see `prepared.rs`).
    prepared: Option<(&'p Arc<Prepared>, &'p [String])>,
    /// The interpreter whose kept instance the run may take, and keep after it (see
    /// `warm.rs`).
    keep: Option<&'p Interpreter>,
}

/// Puts `prepared` into a new instance of its interpreter: its memory's size and bytes,
/// and its globals.
fn start_prepared(store: &mut Store<RunState>, instance: Instance, prepared: &Prepared, globals: &[String]) -> wasmtime::Result<()> {
    let memory = instance.get_memory(&mut *store, "memory").ok_or_else(|| wasmtime::Error::msg("an interpreter exports its memory"))?;
    let grow = prepared.memory_bytes.saturating_sub(memory.data_size(&*store)).div_ceil(WASM_PAGE_BYTES);
    if grow > 0 {
        memory.grow(&mut *store, grow as u64)?;
    }
    prepared::write_back(memory.data_mut(&mut *store), &prepared.changes);
    for (i, value) in &prepared.globals {
        let global = instance.get_global(&mut *store, &globals[*i]).ok_or_else(|| wasmtime::Error::msg("an interpreter exports its globals"))?;
        global.set(&mut *store, value_of(*value))?;
    }
    Ok(())
}

/// Sets `store` up for one run within `limits` that starts with `fuel`: its fuel, call
/// stack and wall clock.
fn arm(store: &mut Store<RunState>, name: &str, limits: &Limits, fuel: u64) -> Result<(), SandboxError> {
    store.set_fuel(fuel).map_err(|e| SandboxError::Host { name: name.to_owned(), reason: format!("{e:#}") })?;
    store.set_max_wasm_stack(limits.stack_bytes.min(MAX_STACK_BYTES));
    store.set_epoch_deadline((WALL_CLOCK_LIMIT.as_millis() / EPOCH_TICK.as_millis()) as u64);
    store.epoch_deadline_trap();
    Ok(())
}

/// The bytes of a WebAssembly page.
const WASM_PAGE_BYTES: usize = 64 << 10;

/// What a run may be given besides its input: a generator's choices, a validator's files,
/// an interactive run's dialogue.
#[derive(Default)]
struct Extras {
    choices: Option<Box<dyn Choices>>,
    files: Option<Files>,
    /// An interactive run's side of its dialogue.
    pipe: Option<pipe::End>,
}

/// Where a run enters its instance.
enum Entry<'p> {
    /// A command's `_start`.
    Start(&'p ModuleExport),
    /// An interpreter's entry `call`, given `request` written into the guest's memory.
    Request { call: &'p ModuleExport, entries: &'p Entries, request: &'p [u8] },
}

/// Runs the instance from `entry` to its end: how it ended, unless it trapped.
fn enter(store: &mut Store<RunState>, instance: Instance, entry: &Entry<'_>) -> wasmtime::Result<Outcome> {
    let func = |store: &mut Store<RunState>, export: &ModuleExport| {
        instance.get_module_export(&mut *store, export).and_then(Extern::into_func).expect("the entry points were found when the module was loaded")
    };
    match entry {
        Entry::Start(start) => {
            func(store, start).typed::<(), ()>(&*store)?.call(&mut *store, ())?;
            Ok(Outcome::Exited(0))
        }
        Entry::Request { call, entries, request } => {
            let alloc = func(store, &entries.alloc).typed::<i32, i32>(&*store)?;
            let at = alloc.call(&mut *store, request.len() as i32)?;
            let memory = instance.get_memory(&mut *store, "memory").ok_or_else(|| wasmtime::Error::msg("an interpreter exports its memory"))?;
            if at == 0 {
                return Ok(Outcome::OutOfMemory);
            }
            memory.write(&mut *store, at as u32 as usize, request)?;
            store.data_mut().stdio.wrote.push((at as u32 as usize, request.len()));
            let status = func(store, call).typed::<(i32, i32), i32>(&*store)?.call(&mut *store, (at, request.len() as i32))?;
            if status != UNCAUGHT {
                return Ok(Outcome::Exited(status));
            }
            let at = func(store, &entries.message).typed::<(), i32>(&*store)?.call(&mut *store, ())? as u32 as usize;
            let data = memory.data(&*store);
            let line = data.get(at..).map_or(&[][..], |rest| &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())]);
            Ok(Outcome::Uncaught(String::from_utf8_lossy(line).into_owned()))
        }
    }
}

fn classify(e: wasmtime::Error) -> Outcome {
    if let Some(exit) = e.downcast_ref::<I32Exit>() {
        return Outcome::Exited(exit.0);
    }
    if e.downcast_ref::<OutputFull>().is_some() {
        return Outcome::OutputLimit;
    }
    match e.downcast_ref::<Trap>() {
        // Out of fuel, or still running at the wall-clock backstop.
        Some(Trap::OutOfFuel | Trap::Interrupt) => Outcome::Timeout,
        Some(Trap::StackOverflow) => Outcome::StackOverflow,
        Some(trap) => Outcome::Trap(trap.to_string()),
        None => Outcome::Trap(e.root_cause().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_the_default_call_stack_fits_a_rust_thread_and_a_deeper_one_does_not() {
        let needed = |stack_bytes: usize| stack_bytes + HOST_STACK_BYTES;
        // A Rust thread's default stack (rayon's, a test's): 2 MiB.
        let left = std::thread::Builder::new().stack_size(2 << 20).spawn(stack_left).unwrap().join().unwrap();
        assert!(left >= needed(MAX_WASM_STACK_BYTES), "{left} bytes left");
        assert!(left < needed(2 << 20), "{left} bytes left");
        let big = std::thread::Builder::new().stack_size(crate::RUN_THREAD_STACK_BYTES).spawn(stack_left).unwrap().join().unwrap();
        assert!(big >= needed(MAX_STACK_BYTES), "{big} bytes left");
    }
}
