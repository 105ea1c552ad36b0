//! The host calls whose work fuel would not see, done here and charged for that work.
//!
//! Fuel counts the guest's own instructions. A host call can do much more work than the
//! instruction that makes it: one `random_get` can fill 64 MiB, one `fd_write` can walk
//! millions of buffers, a loop reading stdin after its end or writing a byte at a time
//! costs a system call's worth of host time per wasm call. So the sandbox does stdin,
//! stdout, stderr, random bytes and polling itself, and each call takes fuel for what it
//! does: one unit per [`BYTES_PER_FUEL`] bytes moved, and [`BUFFER_FUEL`] per buffer of a
//! scatter/gather call (at most [`MAX_BUFFERS`] of them). Every host call, of whatever
//! import (these, the arguments and exit of `process.rs`, wasmtime-wasi's clocks and
//! descriptor calls, a generator's `bugrank.choice`), first pays [`HOST_CALL_FUEL`] through
//! the store's call hook ([`charge_host_call`]): no import can be called in a loop more
//! cheaply than a plain loop runs. A run out of fuel in a host call ends as a timeout, like
//! one out of fuel in its own code, and a run that writes past its output limit ends
//! there, at once.

use wasmtime::{AsContextMut, CallHook, Caller, Extern, Memory, StoreContextMut, Trap};

use crate::pipe::Received;
use crate::state::{OutputFull, RunState};

/// Fuel every host call costs before its work, whatever the import: about what a system
/// call costs in time, in wasm instructions. A program that writes once per line pays it
/// once per line; one that calls `sched_yield` or `clock_time_get` in a loop pays it on
/// every call (those loops once cost 30 to 200 CPU seconds an analysis, for a plain
/// loop's 1.8).
pub const HOST_CALL_FUEL: u64 = 1_000;

/// Bytes copied per unit of fuel: a copy costs far less per byte than an instruction.
pub const BYTES_PER_FUEL: u64 = 16;

/// Fuel per buffer of an `fd_read` / `fd_write` call.
pub const BUFFER_FUEL: u64 = 10;

/// The most buffers one `fd_read` / `fd_write` may name (POSIX's `IOV_MAX`); more is an
/// error (`EINVAL`), as on Linux.
pub const MAX_BUFFERS: usize = 1024;

const ERRNO_SUCCESS: i32 = 0;
pub(crate) const ERRNO_BADF: i32 = 8;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;

/// Takes `fuel` from the run, or ends it as out of fuel.
pub(crate) fn charge(mut store: impl AsContextMut, fuel: u64) -> wasmtime::Result<()> {
    let mut store = store.as_context_mut();
    let left = store.get_fuel()?;
    if left < fuel {
        store.set_fuel(0)?;
        return Err(Trap::OutOfFuel.into());
    }
    store.set_fuel(left - fuel)
}

/// The store's call hook: every call from the guest into the host, of any import, costs
/// [`HOST_CALL_FUEL`] before the host function runs.
pub(crate) fn charge_host_call(store: StoreContextMut<'_, RunState>, hook: CallHook) -> wasmtime::Result<()> {
    match hook {
        CallHook::CallingHost => charge(store, HOST_CALL_FUEL),
        _ => Ok(()),
    }
}

pub(crate) fn memory(caller: &mut Caller<'_, RunState>) -> Option<Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Some(memory),
        _ => None,
    }
}

/// `count` little-endian (pointer, length) pairs at `at`, or `None` if any is out of bounds.
fn buffers(data: &[u8], at: u32, count: u32) -> Option<Vec<(usize, usize)>> {
    let at = at as usize;
    let table = data.get(at..at.checked_add(8 * count as usize)?)?;
    table
        .chunks_exact(8)
        .map(|pair| {
            let start = u32::from_le_bytes(pair[..4].try_into().unwrap()) as usize;
            let len = u32::from_le_bytes(pair[4..].try_into().unwrap()) as usize;
            (start.checked_add(len)? <= data.len()).then_some((start, len))
        })
        .collect()
}

/// Stores `value` little-endian at `at`; false when that is outside `data`.
pub(crate) fn store_u32(data: &mut [u8], at: u32, value: u32) -> bool {
    match data.get_mut(at as usize..(at as usize).saturating_add(4)) {
        Some(slot) => {
            slot.copy_from_slice(&value.to_le_bytes());
            true
        }
        None => false,
    }
}

/// Writes `bytes` at `at` in the guest's memory, recorded as written; `EFAULT` if they do
/// not fit.
pub(crate) fn put(data: &mut [u8], wrote: &mut crate::state::Wrote, at: i32, bytes: &[u8]) -> Result<(), i32> {
    let start = at as u32 as usize;
    let slot = start.checked_add(bytes.len()).and_then(|end| data.get_mut(start..end)).ok_or(ERRNO_FAULT)?;
    slot.copy_from_slice(bytes);
    wrote.push((start, bytes.len()));
    Ok(())
}

/// [`put`] into the memory of `caller`'s guest: the call's errno.
pub(crate) fn put_in_guest(caller: &mut Caller<'_, RunState>, at: i32, bytes: &[u8]) -> i32 {
    let Some(memory) = memory(caller) else { return ERRNO_FAULT };
    let (data, state) = memory.data_and_store_mut(caller);
    put(data, &mut state.stdio.wrote, at, bytes).err().unwrap_or(ERRNO_SUCCESS)
}

/// What `fd_read` and `fd_write` share: `EBADF` unless `fd_ok`, at most
/// [`MAX_BUFFERS`] buffers (each charged), `EFAULT` for buffers out of memory; then
/// `transfer` moves the bytes and returns how many (or an errno), which are stored at
/// `done` and charged.
pub(crate) fn scatter_gather(
    caller: &mut Caller<'_, RunState>,
    fd_ok: bool,
    iovs: i32,
    count: i32,
    done: i32,
    transfer: impl FnOnce(&mut [u8], &mut RunState, Vec<(usize, usize)>) -> wasmtime::Result<Result<usize, i32>>,
) -> wasmtime::Result<i32> {
    if !fd_ok {
        return Ok(ERRNO_BADF);
    }
    if count as u32 as usize > MAX_BUFFERS {
        return Ok(ERRNO_INVAL);
    }
    charge(&mut *caller, BUFFER_FUEL * count as u32 as u64)?;
    let Some(memory) = memory(caller) else { return Ok(ERRNO_FAULT) };
    let (data, state) = memory.data_and_store_mut(&mut *caller);
    let Some(buffers) = buffers(data, iovs as u32, count as u32) else { return Ok(ERRNO_FAULT) };
    let total = match transfer(data, state, buffers)? {
        Ok(total) => total,
        Err(errno) => return Ok(errno),
    };
    if !store_u32(data, done as u32, total as u32) {
        return Ok(ERRNO_FAULT);
    }
    state.stdio.wrote.push((done as u32 as usize, 4));
    charge(caller, total as u64 / BYTES_PER_FUEL)?;
    Ok(ERRNO_SUCCESS)
}

/// `fd_read(fd, iovs, iovs_len, nread) -> errno`: stdin only; an interactive run's from
/// the other side of its dialogue (see `pipe.rs`), where a stall ends the run out of time.
pub(crate) fn fd_read(mut caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nread: i32) -> wasmtime::Result<i32> {
    if fd == 0 {
        caller.data_mut().stdio.asked = true;
    }
    let read = scatter_gather(&mut caller, fd == 0, iovs, count, nread, |data, state, buffers| {
        let stdio = &mut state.stdio;
        let received;
        let rest = match &stdio.pipe {
            None => &stdio.input[stdio.read..],
            Some(pipe) => match pipe.read(buffers.iter().map(|(_, len)| len).sum()) {
                Received::Bytes(bytes) => {
                    received = bytes;
                    &received[..]
                }
                Received::End => &[],
                Received::Stalled => return Err(Stalled.into()),
            },
        };
        let mut total = 0usize;
        for (start, len) in buffers {
            let n = len.min(rest.len() - total);
            data[start..start + n].copy_from_slice(&rest[total..total + n]);
            stdio.wrote.push((start, n));
            total += n;
            if n < len {
                break;
            }
        }
        if stdio.pipe.is_none() {
            stdio.read += total;
        }
        Ok(Ok(total))
    });
    match read {
        // Waiting for ever: out of time, all of it.
        Err(e) if e.is::<Stalled>() => {
            caller.set_fuel(0)?;
            Err(Trap::OutOfFuel.into())
        }
        other => other,
    }
}

/// Why an interactive run's read cannot be answered: see [`Received::Stalled`].
#[derive(Debug)]
struct Stalled;

impl std::fmt::Display for Stalled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("it waits for input that the interactor will never send")
    }
}

impl std::error::Error for Stalled {}

/// `fd_write(fd, iovs, iovs_len, nwritten) -> errno`: stdout and stderr only. Writing past
/// a stream's limit ends the run.
pub(crate) fn fd_write(mut caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nwritten: i32) -> wasmtime::Result<i32> {
    scatter_gather(&mut caller, fd == 1 || fd == 2, iovs, count, nwritten, |data, state, buffers| {
        let stdio = &mut state.stdio;
        let (stream, limit) = match fd {
            1 if stdio.harness => (&mut stdio.printed, stdio.stdout_limit),
            1 => (&mut stdio.stdout, stdio.stdout_limit),
            _ => (&mut stdio.stderr, stdio.stderr_limit),
        };
        let mut total = 0usize;
        for (start, len) in buffers {
            let bytes = &data[start..start + len];
            append(stream, limit, bytes)?;
            if let (1, Some(pipe)) = (fd, &stdio.pipe) {
                pipe.write(bytes);
            }
            total += len;
        }
        Ok(Ok(total))
    })
}

/// Closes the standard stream `fd` (`fd_close` of 0 to 2): nothing, but that an
/// interactive run's stdout ends (the other side reads the end of file: see `pipe.rs`).
/// Writing to it later is not an error, as it has never been.
pub(crate) fn close_stream(state: &mut RunState, fd: i32) {
    if let (1, Some(pipe)) = (fd, &state.stdio.pipe) {
        pipe.close();
    }
}

/// Appends `bytes` to `stream`, kept up to one byte past `limit` (enough to know it was
/// exceeded); past the limit the run ends.
fn append(stream: &mut Vec<u8>, limit: usize, bytes: &[u8]) -> wasmtime::Result<()> {
    let room = (limit + 1).saturating_sub(stream.len());
    stream.extend_from_slice(&bytes[..bytes.len().min(room)]);
    if stream.len() > limit {
        return Err(OutputFull.into());
    }
    Ok(())
}

/// `bugrank.output(data, len) -> errno`: a harness's judged output (see
/// [`crate::HARNESS_IMPORTS`]), charged as `fd_write` is; `EFAULT` for bytes out of memory.
pub(crate) fn output(mut caller: Caller<'_, RunState>, data: i32, len: i32) -> wasmtime::Result<i32> {
    let (at, len) = (data as u32 as usize, len as u32 as usize);
    charge(&mut caller, len as u64 / BYTES_PER_FUEL)?;
    let Some(memory) = memory(&mut caller) else { return Ok(ERRNO_FAULT) };
    let (data, state) = memory.data_and_store_mut(&mut caller);
    let Some(bytes) = at.checked_add(len).and_then(|end| data.get(at..end)) else { return Ok(ERRNO_FAULT) };
    let limit = state.stdio.stdout_limit;
    append(&mut state.stdio.stdout, limit, bytes)?;
    Ok(ERRNO_SUCCESS)
}

/// `random_get(buf, len) -> errno`: the run's fixed bytes, repeated.
pub(crate) fn random_get(mut caller: Caller<'_, RunState>, buf: i32, len: i32) -> wasmtime::Result<i32> {
    let (buf, len) = (buf as u32 as usize, len as u32 as usize);
    charge(&mut caller, len as u64 / BYTES_PER_FUEL)?;
    let Some(memory) = memory(&mut caller) else { return Ok(ERRNO_FAULT) };
    let (data, state) = memory.data_and_store_mut(&mut caller);
    let Some(target) = buf.checked_add(len).and_then(|end| data.get_mut(buf..end)) else { return Ok(ERRNO_FAULT) };
    for (byte, random) in target.iter_mut().zip(state.stdio.random.iter().cycle()) {
        *byte = *random;
    }
    state.stdio.wrote.push((buf, len));
    Ok(ERRNO_SUCCESS)
}

/// A run's clock time per unit of fuel (see [`crate::FUEL_PER_SECOND`]).
const NANOS_PER_FUEL: u64 = 1_000_000_000 / crate::FUEL_PER_SECOND;

/// The run's time on clock `id` (WASI's: 0 realtime, 1 monotonic, 2 and 3 the process's
/// and the thread's CPU time), in nanoseconds: the fuel it has used so far, one nanosecond
/// each ([`crate::FUEL_PER_SECOND`] a second), plus on the wall clocks (0 and 1) the time
/// it has slept; after 2000-01-01 for the realtime clock and from 0 for the others.
/// Deterministic, as fuel is: a loop that waits for its clock to pass a deadline ends
/// when it has spent that long in instructions, as natively, and the same way on every
/// run. `None` for another clock.
fn now(caller: &mut Caller<'_, RunState>, id: u32) -> wasmtime::Result<Option<u64>> {
    let (cpu, wall) = elapsed(caller)?;
    Ok(match id {
        0 => Some((crate::state::FROZEN_CLOCK.as_nanos() as u64).saturating_add(wall)),
        1 => Some(wall),
        2 | 3 => Some(cpu),
        _ => None,
    })
}

/// The run's time so far, in nanoseconds: on its CPU clocks (the fuel it has used) and on
/// its wall clocks (that and the time it has slept).
fn elapsed(caller: &mut Caller<'_, RunState>) -> wasmtime::Result<(u64, u64)> {
    let cpu = caller.data().start_fuel.saturating_sub(caller.get_fuel()?).saturating_mul(NANOS_PER_FUEL);
    Ok((cpu, cpu.saturating_add(caller.data().slept)))
}

/// `clock_time_get(id, precision, time) -> errno`: the run's time on clock `id` (see
/// [`now`]).
pub(crate) fn clock_time_get(mut caller: Caller<'_, RunState>, id: i32, _precision: i64, time: i32) -> wasmtime::Result<i32> {
    match now(&mut caller, id as u32)? {
        Some(value) => Ok(put_in_guest(&mut caller, time, &value.to_le_bytes())),
        None => Ok(ERRNO_INVAL),
    }
}

/// `clock_res_get(id, resolution) -> errno`: a nanosecond, for every clock [`now`] knows.
pub(crate) fn clock_res_get(mut caller: Caller<'_, RunState>, id: i32, resolution: i32) -> wasmtime::Result<i32> {
    match now(&mut caller, id as u32)? {
        Some(_) => Ok(put_in_guest(&mut caller, resolution, &1u64.to_le_bytes())),
        None => Ok(ERRNO_INVAL),
    }
}

/// `poll_oneoff(subscriptions, events, count, nevents) -> errno`: every subscription (a
/// clock, or a file descriptor ready to read or write) is reported as an event at once.
/// Waiting takes what it would natively, in the clocks' time: a poll of clocks alone (a
/// sleep) adds the shortest of them (an absolute one's time from [`now`]) to the run's
/// wall clocks, not to its fuel, as a sleep uses no CPU time; a run whose wall time passes
/// [`crate::WALL_FUEL_FACTOR`] × its fuel + [`crate::WALL_GRACE_FUEL`] runs out of time
/// (all its fuel), the same way on every run. With a descriptor among them nothing is
/// waited for. Each subscription is 48 bytes (userdata, the tag; a clock's id at 16, its
/// timeout at 24, its flags at 40, bit 0 absolute), each event 32 (userdata, errno, type,
/// then for descriptors the bytes available and flags, left 0). A guest that polls in a
/// loop burns fuel.
pub(crate) fn poll_oneoff(mut caller: Caller<'_, RunState>, subscriptions: i32, events: i32, count: i32, nevents: i32) -> wasmtime::Result<i32> {
    if count <= 0 || count as usize > MAX_BUFFERS {
        return Ok(ERRNO_INVAL);
    }
    let Some(memory) = memory(&mut caller) else { return Ok(ERRNO_FAULT) };
    let (subscriptions, events, count) = (subscriptions as u32 as usize, events as u32 as usize, count as usize);
    let data = memory.data(&caller);
    let fits = |at: usize, len: usize| at.checked_add(len).is_some_and(|end| end <= data.len());
    if !fits(subscriptions, 48 * count) || !fits(events, 32 * count) {
        return Ok(ERRNO_FAULT);
    }
    // The clocks' subscriptions (id, timeout, absolute), or none when a descriptor is among
    // them.
    let field = |at: usize, len: usize| data[at..at + len].iter().rev().fold(0u64, |value, byte| value << 8 | u64::from(*byte));
    let clocks: Option<Vec<(u32, u64, bool)>> = (0..count)
        .map(|i| subscriptions + 48 * i)
        .map(|at| (data[at + 8] == 0).then(|| (field(at + 16, 4) as u32, field(at + 24, 8), field(at + 40, 2) & 1 == 1)))
        .collect();
    let mut wait = None;
    for (id, timeout, absolute) in clocks.unwrap_or_default() {
        let Some(now) = now(&mut caller, id)? else { continue };
        let left = if absolute { timeout.saturating_sub(now) } else { timeout };
        wait = Some(wait.map_or(left, |shortest: u64| shortest.min(left)));
    }
    let (data, state) = memory.data_and_store_mut(&mut caller);
    for i in 0..count {
        let subscription = subscriptions + 48 * i;
        let mut event = [0u8; 32];
        event[..8].copy_from_slice(&data[subscription..subscription + 8]);
        event[10] = data[subscription + 8];
        data[events + 32 * i..events + 32 * (i + 1)].copy_from_slice(&event);
    }
    state.stdio.wrote.push((events, 32 * count));
    if !store_u32(data, nevents as u32, count as u32) {
        return Ok(ERRNO_FAULT);
    }
    state.stdio.wrote.push((nevents as u32 as usize, 4));
    charge(&mut caller, BUFFER_FUEL * count as u64)?;
    caller.data_mut().slept = caller.data().slept.saturating_add(wait.unwrap_or(0));
    let (_, wall) = elapsed(&mut caller)?;
    let wall_limit = caller.data().start_fuel.saturating_mul(crate::WALL_FUEL_FACTOR).saturating_add(crate::WALL_GRACE_FUEL);
    if wall > wall_limit.saturating_mul(NANOS_PER_FUEL) {
        charge(&mut caller, u64::MAX)?;
    }
    Ok(ERRNO_SUCCESS)
}
