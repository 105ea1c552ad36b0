//! What a run's store holds ([`RunState`]): the guest's standard streams, its WASI context
//! (fixed random bytes, one argument, nothing else; its clocks count its fuel), its memory limit and a
//! generator's choices. A leaf: the engine makes it, the host calls (`stdio.rs`,
//! `process.rs`) and a kept instance (`warm.rs`) work on it.

use std::time::Duration;

use wasmtime::ResourceLimiter;
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{Deterministic, HostMonotonicClock, HostWallClock, WasiCtxBuilder};

use crate::file_table::FileTable;
use crate::limits::{Limits, MAX_MEMORY_BYTES, STDERR_LIMIT_BYTES};

/// The most table elements a run may grow its tables to (function pointers: C and Rust
/// programs need some hundreds).
const MAX_TABLE_ELEMENTS: usize = 100_000;

/// The guest's wall clock starts at this instant (2000-01-01T00:00:00Z) and runs with its
/// fuel (see `stdio.rs`, `clock_time_get`), so a program that prints the time or seeds
/// itself from the clock still behaves the same on every run. (wasmtime-wasi's own clocks,
/// which only an interpreter's initialisation reads, stay there.)
pub(crate) const FROZEN_CLOCK: Duration = Duration::from_secs(946_684_800);

/// The bytes the guest gets from `random_get`, repeated: the same on every run.
const RANDOM_SEED_BYTES: [u8; 32] = *b"bugrank: same input, same answer";

/// The source of a generator's random choices, given to [`crate::Sandbox::generate`].
pub trait Choices: Send + std::any::Any {
    /// A choice in `0..=max`; 0 is the simplest value. `None` stops the generator
    /// (for example when it has asked for too many choices); the run then traps.
    fn choice(&mut self, max: u64) -> Option<u64>;
    /// The current size hint: generators bound their collections by it.
    fn size(&self) -> u32;
}

/// What a run's store holds: its standard streams, its WASI context when it needs one,
/// its memory limit and a generator's choices.
pub(crate) struct RunState {
    /// Built on the guest's first call of a WASI function the sandbox does not do itself
    /// (see `process.rs`); most runs never need one.
    pub(crate) wasi: Option<WasiP1Ctx>,
    /// The program's arguments: its name, and a validator's own ([`crate::Files`]).
    pub(crate) args: Vec<String>,
    pub(crate) stdio: Stdio,
    pub(crate) memory: MemoryLimit,
    pub(crate) choices: Option<Box<dyn Choices>>,
    /// A validator's files (see `files.rs`); `None` for every other run.
    pub(crate) files: Option<FileTable>,
    /// The fuel the run was given: what it has used since is its clocks' time (see
    /// `stdio.rs`, `clock_time_get`).
    pub(crate) start_fuel: u64,
    /// The nanoseconds the run has slept (see `stdio.rs`, `poll_oneoff`): on its wall and
    /// monotonic clocks, not its CPU clocks or its fuel.
    pub(crate) slept: u64,
}

impl RunState {
    /// The state of one run of `name` on `input` within `limits` (memory beyond
    /// `base_memory`, an interpreter's own).
    pub(crate) fn new(name: &str, input: &[u8], limits: &Limits, base_memory: usize, choices: Option<Box<dyn Choices>>) -> RunState {
        let stdio = Stdio {
            input: input.to_vec(),
            read: 0,
            asked: false,
            stdout: Vec::new(),
            printed: Vec::new(),
            harness: false,
            stdout_limit: limits.output_bytes,
            stderr: Vec::new(),
            stderr_limit: STDERR_LIMIT_BYTES,
            random: &RANDOM_SEED_BYTES,
            wrote: Wrote::default(),
            pipe: None,
        };
        let memory = MemoryLimit { max_bytes: memory_cap(limits, base_memory), refused: false };
        RunState { wasi: None, args: vec![name.to_owned()], stdio, memory, choices, files: None, start_fuel: limits.fuel, slept: 0 }
    }

    /// The run's WASI context, built on first use: see [`wasi_context`].
    pub(crate) fn wasi(&mut self) -> &mut WasiP1Ctx {
        let arg0 = &self.args[0];
        self.wasi.get_or_insert_with(|| wasi_context(arg0).build_p1())
    }
}

/// Every run's WASI context: clocks frozen (a run's own are the sandbox's, `stdio.rs`; these
/// are an interpreter's initialisation's), randomness fixed, `arg0` as the one argument, no
/// environment, no files.
pub(crate) fn wasi_context(arg0: &str) -> WasiCtxBuilder {
    let mut builder = WasiCtxBuilder::new();
    builder
        .arg(arg0)
        .wall_clock(FrozenClock)
        .monotonic_clock(FrozenClock)
        .secure_random(Deterministic::new(RANDOM_SEED_BYTES.to_vec()))
        .insecure_random(Deterministic::new(RANDOM_SEED_BYTES.to_vec()))
        .insecure_random_seed(0);
    builder
}

/// The most memory a run within `limits` may have, an interpreter's own `base_memory`
/// beyond its limit.
pub(crate) fn memory_cap(limits: &Limits, base_memory: usize) -> usize {
    limits.memory_bytes.min(MAX_MEMORY_BYTES).saturating_add(base_memory)
}

/// Refuses linear-memory growth beyond the run's limit and remembers that it did.
pub(crate) struct MemoryLimit {
    max_bytes: usize,
    pub(crate) refused: bool,
}

impl ResourceLimiter for MemoryLimit {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let allowed = desired <= self.max_bytes;
        self.refused |= !allowed;
        Ok(allowed)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

struct FrozenClock;

impl HostWallClock for FrozenClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }
    fn now(&self) -> Duration {
        FROZEN_CLOCK
    }
}

impl HostMonotonicClock for FrozenClock {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        0
    }
}

/// The guest's standard streams: stdin's bytes and how far it has read, and what it wrote
/// (each kept up to its limit and one byte more, which marks the limit as exceeded).
pub(crate) struct Stdio {
    pub(crate) input: Vec<u8>,
    pub(crate) read: usize,
    /// Whether the guest has asked for its input (called `fd_read` on stdin, whatever
    /// came of it): until it has, nothing it did depends on the input.
    pub(crate) asked: bool,
    /// The judged output: what the program writes to stdout, or, when `harness`, what its
    /// harness writes through `bugrank.output` ([`output`]).
    pub(crate) stdout: Vec<u8>,
    /// When `harness`, what the program writes to stdout: the student's functions' own
    /// prints, kept apart so that they can neither spoil nor forge the judged output.
    pub(crate) printed: Vec<u8>,
    pub(crate) harness: bool,
    /// The limit of `stdout` and of `printed`, each.
    pub(crate) stdout_limit: usize,
    pub(crate) stderr: Vec<u8>,
    pub(crate) stderr_limit: usize,
    /// The bytes `random_get` hands out, repeated.
    pub(crate) random: &'static [u8],
    /// The ranges of the guest's memory the host wrote, (start, length): a kept instance
    /// puts them back before its next run (see `warm.rs`). Every write of a host call into
    /// the guest's memory is recorded here.
    pub(crate) wrote: Wrote,
    /// An interactive run's side of its dialogue: stdin is read from it, and stdout is
    /// written to it besides `stdout` (see `pipe.rs`); `None` for every other run.
    pub(crate) pipe: Option<crate::pipe::End>,
}

/// The ranges of the guest's memory the host wrote in a run, up to [`MAX_WROTE`] of them.
#[derive(Debug, Default)]
pub(crate) struct Wrote {
    pub(crate) ranges: Vec<(usize, usize)>,
    /// Whether more were written than are kept: then what the host wrote is not known, and
    /// the instance is given up after the run.
    pub(crate) lost: bool,
}

/// The most ranges [`Wrote`] keeps: a run reading its input or writing its output a
/// buffer at a time makes a few; one that calls `fd_read` in a loop millions of times
/// would otherwise keep millions.
const MAX_WROTE: usize = 4096;

impl Wrote {
    pub(crate) fn push(&mut self, range: (usize, usize)) {
        match self.ranges.len() < MAX_WROTE {
            true => self.ranges.push(range),
            false => self.lost = true,
        }
    }
}

/// The error that ends a run which wrote past its output limit: the run's outcome is then
/// [`crate::Outcome::OutputLimit`].
#[derive(Debug)]
pub(crate) struct OutputFull;

impl std::fmt::Display for OutputFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the output limit was exceeded")
    }
}

impl std::error::Error for OutputFull {}
