//! The limits of one run, and the ceilings that hold for every run.

/// Largest module accepted by [`crate::Sandbox::load`]. A Rust program built in release mode
/// is well under 1 MiB; a debug build with symbols can reach several MiB. Anything larger is
/// more likely an accident (or an attack on compile time) than a student's answer.
pub const MAX_MODULE_BYTES: usize = 32 << 20;

/// The most linear memory any run may be given, whatever a problem asks for. The pooling
/// allocator reserves address space for this much per instance slot.
pub const MAX_MEMORY_BYTES: usize = 1 << 30;

/// Wasm call-stack budget. 1 MiB allows recursion some thousands of frames deep, more than
/// any reasonable answer to our problems needs, while keeping host threads safe.
pub const MAX_WASM_STACK_BYTES: usize = 1 << 20;

/// stderr is kept only to show students a crash message; a flood beyond this is an
/// [`crate::Outcome::OutputLimit`] like a flood on stdout.
pub const STDERR_LIMIT_BYTES: usize = 64 << 10;

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
}

impl Default for Limits {
    fn default() -> Self {
        Limits { fuel: 100_000_000, memory_bytes: 64 << 20, output_bytes: 64 << 10 }
    }
}
