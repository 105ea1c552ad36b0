//! The limits of one run, and the ceilings that hold for every run.

/// Largest module accepted by [`crate::Sandbox::load`]. A Rust program built in release mode
/// is well under 1 MiB; a debug build with symbols can reach several MiB. Anything larger is
/// more likely an accident (or an attack on compile time) than a student's answer.
pub const MAX_MODULE_BYTES: usize = 32 << 20;

/// The most linear memory any run may be given, whatever a problem asks for. The pooling
/// allocator reserves address space for this much per instance slot.
pub const MAX_MEMORY_BYTES: usize = 1 << 30;

/// The call stack a run gets by default ([`Limits::stack_bytes`]): 1 MiB allows recursion
/// some thousands of frames deep (a C function with a few locals: about 15,000), more than
/// the paper's problems need, and fits the 2 MiB every thread has.
pub const MAX_WASM_STACK_BYTES: usize = 1 << 20;

/// The most call stack a run may be given: as much as memory, as judges allow (they set
/// the stack limit to the memory limit, so an accepted depth-first search a million calls
/// deep runs).
pub const MAX_STACK_BYTES: usize = MAX_MEMORY_BYTES;

/// Stack a thread that runs programs needs beyond a run's call stack: the host's own frames
/// (wasmtime's entry, and the host functions a program calls at its deepest). With the
/// default call stack, a run fits the 2 MiB of a Rust thread (rayon's, a test's).
pub const HOST_STACK_BYTES: usize = 512 << 10;

/// The stack to give a thread on which runs of [`MAX_STACK_BYTES`] are made without a
/// thread of their own (see [`Limits::stack_bytes`]): the run's, the host's
/// ([`HOST_STACK_BYTES`]) and 2 MiB for the thread's own frames before the run (a rayon
/// pool's). Address space only, until a run recurses that deep.
pub const RUN_THREAD_STACK_BYTES: usize = MAX_STACK_BYTES + HOST_STACK_BYTES + (2 << 20);

/// stderr is kept only to show students a crash message; a flood beyond this is an
/// [`crate::Outcome::OutputLimit`] like a flood on stdout.
pub const STDERR_LIMIT_BYTES: usize = 64 << 10;

/// Units of fuel in one second of a run's clocks (see `stdio.rs`, [`clock_time_get`]): a
/// run's time is the fuel it has used, a nanosecond each, about what a judge's machine
/// runs of compiled code (well over a billion instructions a second), so that a program
/// that waits for its clock to pass a deadline, or sleeps, spends what it would natively.
///
/// [`clock_time_get`]: https://github.com/WebAssembly/WASI/blob/main/legacy/preview1/docs.md#clock_time_get
pub const FUEL_PER_SECOND: u64 = 1_000_000_000;

/// A run's time asleep is on its wall clock, not its fuel: judges limit CPU time, which a
/// sleeping program does not use, and end a run by the wall clock only well past that
/// (BAPCtools: `time_limit_to_tle` × the time limit + 1 s, 2 × by default). So a run
/// whose fuel used plus time slept passes this many times its fuel, plus
/// [`WALL_GRACE_FUEL`], runs out of time; before that a sleep costs no fuel. A program
/// that sleeps a second and then crashes crashes, as on a judge's machine.
pub const WALL_FUEL_FACTOR: u64 = 2;

/// The second of wall-clock grace beyond [`WALL_FUEL_FACTOR`] × a run's fuel.
pub const WALL_GRACE_FUEL: u64 = FUEL_PER_SECOND;

/// The wall-clock backstop of one run, independent of fuel. Fuel bounds the guest's own
/// instructions; this bounds everything else a run could spend time on (host calls whose
/// work fuel does not see). The largest fuel budget, a reference's billion, runs in a few
/// seconds, so a run that is still going after this long is stuck outside wasm and ends as
/// a [`crate::Outcome::Timeout`]. Checked every [`EPOCH_TICK`].
pub const WALL_CLOCK_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// How often the engine's epoch advances, the granularity of [`WALL_CLOCK_LIMIT`]. A
/// tick costs a counter increment; runs check it only at function entries and loop heads.
pub const EPOCH_TICK: std::time::Duration = std::time::Duration::from_millis(100);

/// Limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Fuel: roughly one unit per wasm instruction. Deterministic, unlike wall time.
    /// Default 100 million (a fraction of a second).
    pub fuel: u64,
    /// Linear memory in bytes, at most [`MAX_MEMORY_BYTES`]. Default 64 MiB.
    pub memory_bytes: usize,
    /// Bytes a run may write to stdout. Default 64 KiB.
    pub output_bytes: usize,
    /// The call stack: how deep the program's calls may go, in bytes of the engine's
    /// frames, at most [`MAX_STACK_BYTES`]; deeper is [`crate::Outcome::StackOverflow`].
    /// Default [`MAX_WASM_STACK_BYTES`] (1 MiB). (A compiled program's local arrays are on
    /// its own stack in its memory, sized when it is built.) Pitfall: a run needs this much
    /// stack left on the calling thread, and [`HOST_STACK_BYTES`] more; on a thread with
    /// less, the run is made on a thread of its own, which costs tens of microseconds:
    /// give threads that make many such runs [`RUN_THREAD_STACK_BYTES`].
    pub stack_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { fuel: 100_000_000, memory_bytes: 64 << 20, output_bytes: 64 << 10, stack_bytes: MAX_WASM_STACK_BYTES }
    }
}
