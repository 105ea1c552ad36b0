//! Runs one untrusted WebAssembly program on one input, within limits.
//!
//! This is the only crate of bugrank that knows wasmtime and the only one that runs
//! untrusted code. A program is a WASI preview 1 *command*: it reads its input from stdin,
//! writes its answer to stdout and exits. Each run gets a fresh instance with no files,
//! no environment, no arguments beyond a program name, no network, clocks that count its
//! own instructions (a nanosecond each, from 2000-01-01) and seeded random bytes, so the
//! same module on the same input always behaves the same, down to the fuel it uses.
//!
//! Everything that can go wrong *inside* a run (a trap, running out of fuel, memory or
//! output, a non-zero exit) is an [`Outcome`], never an error. [`SandboxError`] is kept for
//! modules that cannot be loaded and for failures of the host itself.
//!
//! ```
//! use sandbox::{Limits, Outcome, Role, Sandbox};
//!
//! let sandbox = Sandbox::new().unwrap();
//! let echo = sandbox
//!     .load("echo.wat", br#"(module
//!         (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
//!         (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
//!         (memory (export "memory") 1)
//!         (func (export "_start")
//!           (i32.store (i32.const 0) (i32.const 100))   ;; iovec: buffer at 100
//!           (i32.store (i32.const 4) (i32.const 1000))  ;;        of 1000 bytes
//!           (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
//!           (i32.store (i32.const 4) (i32.load (i32.const 8)))  ;; write back what was read
//!           (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#,
//!         Role::Answer)
//!     .unwrap();
//! let run = sandbox.run(&echo, b"hello", &Limits::default()).unwrap();
//! assert_eq!(run.outcome, Outcome::Exited(0));
//! assert_eq!(run.stdout, b"hello");
//! assert!(run.fuel_used > 0);
//! ```

mod compile;
mod engine;
mod exnref;
mod file_table;
mod files;
mod interpreter;
mod limits;
mod pipe;
mod prepared;
mod process;
mod snapshot;
mod state;
mod stdio;
mod validate;
mod warm;
mod written;

pub use compile::{COMPILE_BYTES_AT_ONCE, FUNCTION_CACHE_BYTES, MAX_COMPILE_WAIT, MODULE_CACHE_BYTES};
pub use engine::{Program, Sandbox};
pub use file_table::{Files, MAX_OPEN_FILES, MAX_WRITTEN_FILES};
pub use interpreter::{COMPILE_FUEL, Interpreter, InterpreterSpec, MAX_COMPILED_BYTES, UNCAUGHT};
pub use limits::{
    EPOCH_TICK, FUEL_PER_SECOND, HOST_STACK_BYTES, Limits, MAX_MEMORY_BYTES, MAX_MODULE_BYTES, MAX_STACK_BYTES, MAX_WASM_STACK_BYTES, RUN_THREAD_STACK_BYTES,
    STDERR_LIMIT_BYTES, WALL_CLOCK_LIMIT, WALL_FUEL_FACTOR, WALL_GRACE_FUEL,
};
pub use pipe::Speaker;
pub use state::Choices;
pub use stdio::{BUFFER_FUEL, BYTES_PER_FUEL, HOST_CALL_FUEL, MAX_BUFFERS};
pub use validate::{
    ALLOWED_WASI_IMPORTS, FILE_IMPORTS, GENERATOR_IMPORTS, HARNESS_IMPORTS, MAX_BLOCK_DEPTH, MAX_FUNCTION_BODY_BYTES, MAX_FUNCTIONS, MAX_LOCALS,
    MAX_MODULE_LOCALS, MAX_OPERAND_DEPTH, NO_FILE_IMPORTS, Role,
};

/// How one run of a program ended. Exhausting a limit is an outcome like any other.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The program returned from `_start` (code 0) or called `proc_exit(code)`.
    Exited(i32),
    /// The program trapped: `unreachable` (a Rust panic or C `abort` ends this way), an
    /// out-of-bounds access, a division by zero... The message is wasmtime's.
    Trap(String),
    /// The program used all the fuel it was given: our deterministic timeout.
    Timeout,
    /// The program asked for more linear memory than the limit allows and did not recover.
    OutOfMemory,
    /// The program overflowed its stack: recursed deeper than the engine's call stack
    /// allows, or (a module that exports `__stack_pointer`, as every build from sources
    /// does) put more on its stack in linear memory than the stack holds.
    StackOverflow,
    /// The program wrote more than the output limit to stdout (or more than
    /// [`STDERR_LIMIT_BYTES`] to stderr).
    OutputLimit,
    /// An interpreted program ended with an exception it did not catch: the exception's
    /// line as the interpreter prints it last (`ZeroDivisionError: division by zero`);
    /// the whole traceback is on stderr.
    Uncaught(String),
}

impl Outcome {
    /// True for a run that exited with code 0: the only outcome whose output counts.
    pub fn is_success(&self) -> bool {
        *self == Outcome::Exited(0)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Exited(code) => write!(f, "exited with code {code}"),
            Outcome::Trap(message) => write!(f, "crashed: {message}"),
            Outcome::Timeout => f.write_str("ran out of time (fuel)"),
            Outcome::OutOfMemory => f.write_str("ran out of memory"),
            Outcome::StackOverflow => f.write_str("overflowed its stack"),
            Outcome::OutputLimit => f.write_str("wrote more output than allowed"),
            Outcome::Uncaught(line) => write!(f, "stopped on an exception it did not catch: {line}"),
        }
    }
}

/// What one run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub outcome: Outcome,
    /// The judged output, cut at the output limit: everything written to stdout, or, for a
    /// harness built with a hand-in, what the harness wrote through `bugrank.output`.
    pub stdout: Vec<u8>,
    /// What a harnessed program's own code wrote to stdout (a student's debugging lines,
    /// never judged), cut at the output limit; empty for other programs.
    pub printed: Vec<u8>,
    /// Everything written to stderr, cut at [`STDERR_LIMIT_BYTES`].
    pub stderr: Vec<u8>,
    /// Fuel consumed: the same program on the same input always uses the same amount.
    pub fuel_used: u64,
    /// Whether the program asked for its input (read stdin, even at its end). A run that
    /// did not would have gone the same way on any input: within the same limits, the same
    /// program gives this same run (every run starts from the same state, with the same
    /// clock, random bytes and arguments).
    pub read_input: bool,
    /// The files a run given [`Files`] created in its directory: (name, bytes), in the
    /// order created; empty for every other run.
    pub written: Vec<(String, Vec<u8>)>,
}

/// An interactive run ([`Sandbox::interact`]): the program's run and the interactor's,
/// each as [`Sandbox::run`] gives one (the program's `stdout` is all it wrote, the
/// interactor's too), and their dialogue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interaction {
    pub program: Run,
    pub interactor: Run,
    /// The dialogue as the program had it: what it wrote and what it read, in its own
    /// order, consecutive bytes of one side together. What the interactor wrote and the
    /// program never read is not in it (it is in the interactor's `stdout`).
    pub dialogue: Vec<(Speaker, Vec<u8>)>,
    /// Whether the interactor read the end of the program's output (the program ended
    /// first, or the interactor waited for its end): false when the interactor ended on
    /// its own, whatever the program did after.
    pub interactor_saw_end: bool,
}

/// Why a module could not be loaded, or the host could not run it.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{name}: module is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge { name: String, size: usize, limit: usize },
    #[error("{name}: not a valid WebAssembly module: {reason}")]
    Invalid { name: String, reason: String },
    #[error("{name}: not a WASI command: {reason}")]
    NotACommand { name: String, reason: String },
    #[error("{name}: imports `{module}.{field}`, which programs may not use{hint}")]
    ForbiddenImport { name: String, module: String, field: String, hint: &'static str },
    #[error("wasmtime could not be configured: {0}")]
    Engine(String),
    #[error("{name}: the host could not run the module: {reason}")]
    Host { name: String, reason: String },
}
