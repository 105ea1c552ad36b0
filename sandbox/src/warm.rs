//! An interpreter's instances kept from one run to the next (see `written.rs`): each run
//! of a kept instance starts from exactly the state a new instance would start it from.
//!
//! After a run the instance goes back to its interpreter's [`Kept`] as it is, with what
//! the run wrote (the pages its code marked, the ranges the host wrote). The next run that
//! takes it, whichever program it runs, first puts back from the snapshot every page the
//! last run wrote and, when the new run starts from another prepared state than the last
//! (`prepared.rs`), the bytes the last one changed; then writes the new run's prepared
//! bytes where anything was put back, and sets every global. Nothing else of an
//! instance changes in a run of it: no run can write a table or drop a segment (a module
//! whose code could is never kept, see [`crate::written::track`]), and an instance whose
//! run called wasmtime-wasi is given up instead of kept. A run that grew the memory leaves
//! it larger: the size its code sees is a global, which the reset sets (see `written.rs`),
//! and the bytes past it are zeros, put back as such.

use std::sync::{Arc, Mutex};

use wasmtime::{Global, Instance, Memory, Store};

use crate::prepared::Prepared;
use crate::snapshot::{SnapshotState, snapshot_value, value_of};
use crate::state::RunState;
use crate::written::{PAGE_BYTES, SPILL_BYTES, WRITTEN_EXPORT, marked_pages};

/// An instance between two runs.
pub(crate) struct Warm {
    pub(crate) store: Store<RunState>,
    pub(crate) instance: Instance,
    memory: Memory,
    map: Memory,
    /// The interpreter's defined globals, in its order (see `Interpreter::globals`).
    globals: Vec<Global>,
    /// The prepared state its last run started from; `None`: the snapshot's.
    state: Option<Arc<Prepared>>,
    /// The ranges of its memory the host wrote in its last run: (start, length).
    host_wrote: Vec<(usize, usize)>,
}

/// The instances of one interpreter not running now, the most recently used last.
#[derive(Default)]
pub(crate) struct Kept(Mutex<Vec<Warm>>);

/// The most instances an interpreter keeps for each thread that can run programs at once:
/// one for runs of programs that start small, one for those whose memory is larger (an
/// instance serves runs of at most its memory's size only). Each keeps the pages its runs
/// touched, some 30 MiB for CPython: the search cohort graded on one thread peaked at 386
/// MB with 16 instances kept, whatever the threads.
const KEPT_PER_THREAD: usize = 2;

impl Kept {
    /// A kept instance whose memory has at least `size` bytes and at most `cap` (a run's
    /// memory limit: within it, every growth into what the memory already has would have
    /// been allowed a new instance), if there is one.
    pub(crate) fn take(&self, size: usize, cap: usize) -> Option<Warm> {
        let mut kept = self.0.lock().expect("kept instances poisoned");
        let at = kept.iter().rposition(|warm| (size..=cap).contains(&warm.size()))?;
        Some(kept.remove(at))
    }

    /// Keeps `warm` for a later run; the least recently used is given up if enough are
    /// kept.
    pub(crate) fn keep(&self, warm: Warm) {
        static MAX_KEPT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let max = *MAX_KEPT.get_or_init(|| KEPT_PER_THREAD * std::thread::available_parallelism().map_or(1, |n| n.get()));
        let given_up = {
            let mut kept = self.0.lock().expect("kept instances poisoned");
            let given_up = (kept.len() >= max).then(|| kept.remove(0));
            kept.push(warm);
            given_up
        };
        // (Its slot's reset, outside the lock.)
        drop(given_up);
    }
}

impl Warm {
    /// `instance` in `store`, now in the state `state` (the snapshot's, or that prepared
    /// state written into it): `None` if it has no byte map or cannot be kept.
    pub(crate) fn new(mut store: Store<RunState>, instance: Instance, globals: &[String], state: Option<Arc<Prepared>>) -> Option<Warm> {
        let memory = instance.get_memory(&mut store, "memory")?;
        let map = instance.get_memory(&mut store, WRITTEN_EXPORT)?;
        let globals = globals.iter().map(|name| instance.get_global(&mut store, name)).collect::<Option<Vec<_>>>()?;
        Some(Warm { store, instance, memory, map, globals, state, host_wrote: Vec::new() })
    }

    /// The bytes of its memory (at least its last run's: see `written.rs`).
    pub(crate) fn size(&self) -> usize {
        self.memory.data_size(&self.store)
    }

    /// Records what the run that just ended wrote through the host.
    pub(crate) fn ran(&mut self, host_wrote: Vec<(usize, usize)>) {
        self.host_wrote = host_wrote;
    }

    /// Puts the instance into the state a new instance of the interpreter (`base`) is in
    /// once `target` is written into it. Its memory must have at least `target`'s size.
    pub(crate) fn reset(&mut self, base: &SnapshotState, target: Option<&Arc<Prepared>>) -> wasmtime::Result<()> {
        let size = self.memory.data_size(&self.store);
        let pages = size / PAGE_BYTES;
        let mut dirty = Vec::new();
        marked_pages(self.map.data_mut(&mut self.store), pages, &mut dirty);
        for &(start, len) in &self.host_wrote {
            if len > 0 {
                dirty.extend(start / PAGE_BYTES..=(start + len - 1) / PAGE_BYTES);
            }
        }
        let switched = match (&self.state, target) {
            (Some(old), Some(new)) => !Arc::ptr_eq(old, new),
            (None, None) => false,
            _ => true,
        };
        dirty.sort_unstable();
        dirty.dedup();
        let data = self.memory.data_mut(&mut self.store);
        let put_back = |data: &mut [u8], start: usize, end: usize| {
            // (Past the snapshot's memory, a new instance's bytes are zeros.)
            let split = end.min(base.memory.len()).max(start);
            if start < split {
                data[start..split].copy_from_slice(&base.memory[start..split]);
            }
            data[split..end].fill(0);
        };
        for &page in &dirty {
            let start = page * PAGE_BYTES;
            let end = (start + PAGE_BYTES + SPILL_BYTES).min(size);
            if start < end {
                put_back(data, start, end);
            }
        }
        // The bytes the last prepared state changed, where no run wrote, are the state's
        // own: put back alone (some 17 KB for a hand-in of the search cohort, where the
        // pages they lie in are some 60).
        if switched && let Some(old) = &self.state {
            for change in &old.changes {
                put_back(data, change.at, change.at + change.bytes.len());
            }
        }
        if let Some(prepared) = target {
            for change in &prepared.changes {
                let end = change.at + change.bytes.len();
                // A page put back reaches `SPILL_BYTES` into the next.
                let first = change.at.saturating_sub(SPILL_BYTES) / PAGE_BYTES;
                let last = (end - 1) / PAGE_BYTES;
                let from = dirty.partition_point(|&page| page < first);
                if switched || dirty.get(from).is_some_and(|&page| page <= last) {
                    data[change.at..end].copy_from_slice(&change.bytes);
                }
            }
        }
        for (global, value) in self.globals.iter().zip(&base.globals) {
            if global.ty(&self.store).mutability().is_var() {
                global.set(&mut self.store, value_of(*value))?;
            }
        }
        if let Some(prepared) = target {
            for (i, value) in &prepared.globals {
                self.globals[*i].set(&mut self.store, value_of(*value))?;
            }
        }
        self.state = target.cloned();
        self.host_wrote.clear();
        Ok(())
    }

    /// Where the instance differs from the state [`Warm::reset`] must have put it in, if
    /// anywhere: the first differing page or global (for tests, see
    /// `Sandbox::with_reset_checks`).
    pub(crate) fn differs(&mut self, base: &SnapshotState, target: Option<&Arc<Prepared>>) -> Option<String> {
        let data = self.memory.data(&self.store);
        let mut expected = base.memory.clone();
        expected.resize(data.len(), 0);
        if let Some(prepared) = target {
            crate::prepared::write_back(&mut expected, &prepared.changes);
        }
        if let Some(at) = data.iter().zip(&expected).position(|(a, b)| a != b) {
            return Some(format!("byte {at:#x} (page {}) is {} instead of {}", at / PAGE_BYTES, data[at], expected[at]));
        }
        let mut values: Vec<_> = base.globals.clone();
        for (i, value) in target.iter().flat_map(|p| &p.globals) {
            values[*i] = *value;
        }
        for (i, (global, value)) in self.globals.iter().zip(values).enumerate() {
            if snapshot_value(global.get(&mut self.store)) != Some(value) {
                return Some(format!("global {i} is not as it starts"));
            }
        }
        None
    }
}
