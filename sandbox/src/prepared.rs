//! A hand-in's prepared start: what every run of an interpreted hand-in with its harness
//! shares, done once per program instead of once per run.
//!
//! A run of such a program (see `interpreter.rs`) unmarshals it, sets up the module
//! `answer` and the output's guard, and runs the hand-in's module before the harness reads
//! the first input: tens of thousands of instructions, the same on every input. The host
//! runs that part once (`bugrank_prepare`) on a copy of the snapshot and keeps where that
//! instance got to as a [`Prepared`]: the bytes of memory that differ from the snapshot's
//! (runs of them, [`Change`]s), the memory's size and the globals. Each run then starts
//! from the snapshot with those bytes written back and enters `bugrank_run_prepared`,
//! which runs the harness from there: the state `bugrank_run` reaches at that point, so
//! the run is the same run (its outcome, output and verdict), for less work. Nothing of one
//! run reaches another: the runs start from the prepared state, never from a run's end.
//!
//! A program is prepared only when the shared part reached nothing outside the instance:
//! no input read, no output written, no exit, no trap, and the hand-in's module ran to its
//! end. Otherwise (and for a program without a harness) every run runs it whole, as
//! before. The prepared part's fuel is charged to every run ([`Prepared::fuel`]), and its
//! memory counts against every run's limit, as when it ran in the run: a run whose budget
//! cannot hold them runs whole, and ends as it would have.

use crate::snapshot::Value;

/// The instance's state where its program's runs start.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// Fuel the prepared part used, charged to each run.
    pub(crate) fuel: u64,
    /// The memory's size, in bytes, once prepared (at least the snapshot's).
    pub(crate) memory_bytes: usize,
    /// The bytes that differ from the snapshot's memory.
    pub(crate) changes: Vec<Change>,
    /// The defined globals whose values differ from the snapshot's: `(index, value)`.
    pub(crate) globals: Vec<(usize, Value)>,
}

/// A run of bytes of memory written back at `at`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) at: usize,
    pub(crate) bytes: Box<[u8]>,
}

/// Unchanged bytes between two changed ones that still make one [`Change`]: fewer, longer
/// copies (a change costs a call and its bookkeeping, a byte almost nothing).
const CHANGE_GAP_BYTES: usize = 32;

/// The bytes compared at once before looking byte by byte: a host page, which most of a
/// run's start leaves as it is.
const COMPARED_BYTES: usize = 4096;

/// Where `now` differs from `base` (read as zeros past its end), as [`Change`]s in order of
/// address.
pub(crate) fn changes(base: &[u8], now: &[u8]) -> Vec<Change> {
    let before = |i: usize| base.get(i).copied().unwrap_or(0);
    let mut found: Vec<Change> = Vec::new();
    let mut open: Option<(usize, usize)> = None; // (start, end) of the change being grown
    for start in (0..now.len()).step_by(COMPARED_BYTES) {
        let end = (start + COMPARED_BYTES).min(now.len());
        if end <= base.len() && base[start..end] == now[start..end] {
            continue;
        }
        for i in start..end {
            if now[i] == before(i) {
                continue;
            }
            open = match open {
                Some((first, last)) if i - last <= CHANGE_GAP_BYTES => Some((first, i + 1)),
                Some((first, last)) => {
                    found.push(Change { at: first, bytes: now[first..last].into() });
                    Some((i, i + 1))
                }
                None => Some((i, i + 1)),
            };
        }
    }
    if let Some((first, last)) = open {
        found.push(Change { at: first, bytes: now[first..last].into() });
    }
    found
}

/// `changes` written into `memory`.
pub(crate) fn write_back(memory: &mut [u8], changes: &[Change]) {
    for change in changes {
        memory[change.at..change.at + change.bytes.len()].copy_from_slice(&change.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(base: &[u8], now: &[u8], expected: &[(usize, &[u8])]) {
        let found = changes(base, now);
        let expected: Vec<Change> = expected.iter().map(|(at, bytes)| Change { at: *at, bytes: (*bytes).into() }).collect();
        assert_eq!(found, expected);
        let mut rebuilt = base.to_vec();
        rebuilt.resize(now.len(), 0);
        write_back(&mut rebuilt, &found);
        assert_eq!(rebuilt, now, "the changes written back make the memory again");
    }

    #[test]
    fn the_same_memory_has_no_change() {
        check(&[7; 10_000], &[7; 10_000], &[]);
    }

    #[test]
    fn changes_close_together_are_one_and_far_apart_are_two() {
        let base = vec![0u8; 10_000];
        let mut now = base.clone();
        now[5000] = 1;
        now[5010] = 2;
        now[9000] = 3;
        check(&base, &now, &[(5000, &now[5000..5011]), (9000, &[3])]);
    }

    #[test]
    fn memory_grown_past_the_base_is_compared_with_zeros() {
        let base = vec![1u8; 4096];
        let mut now = base.clone();
        now.extend([0, 0, 9, 0]);
        check(&base, &now, &[(4098, &[9])]);
    }

    #[test]
    fn a_change_across_a_page_boundary_stays_one() {
        let base = vec![0u8; 3 * COMPARED_BYTES];
        let mut now = base.clone();
        now[COMPARED_BYTES - 2..COMPARED_BYTES + 2].copy_from_slice(&[1, 2, 3, 4]);
        check(&base, &now, &[(COMPARED_BYTES - 2, &[1, 2, 3, 4])]);
    }
}
