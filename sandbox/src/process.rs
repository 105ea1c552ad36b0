//! The program's arguments, environment, descriptors and exit, done by the sandbox itself.
//!
//! With these and `stdio.rs`, a run that calls no other WASI function never needs a WASI context: `RunState::wasi`
//! builds one on the first call that does, and most runs never do (creating and dropping one per run took about 7 % of
//! an analysis's CPU; and an interpreter's instance is kept for the next run only if the run never did, see `warm.rs`).
//! They answer as wasmtime-wasi's would for the context the sandbox builds: one argument, the program's name; an empty
//! environment; descriptors 0 to 2 alone, pipes (not terminals) that cannot seek and have no file status but their type
//! (`fd_fdstat_get`, `fd_filestat_get`, `fd_tell`, `fd_seek`: tested in `sandbox/tests/outcomes.rs` to answer as
//! wasmtime-wasi's own calls do; `fd_close` of one succeeds, and ends an interactive run's stdout); an exit ends the run with the status a native system gives (0 to 255). A pointer out
//! of the guest's memory, or a result pointer not aligned (to 4 bytes, to 8 for a structure with 64-bit fields), ends
//! the run with a trap, as WASI asks (the stream calls of `stdio.rs` answer `EFAULT` instead, as they always have).

use wasmtime::Caller;
use wasmtime_wasi::I32Exit;

use crate::state::RunState;
use crate::stdio::{self, memory};

/// Why a host call ended the run: a pointer the guest gave cannot be used.
fn bad_pointer(what: &str, at: u32) -> wasmtime::Error {
    wasmtime::Error::msg(format!("{what} pointer {at:#x} passed to a WASI call"))
}

/// Stores `value` at the guest address `at` (a `u32` result or array slot, which must be
/// aligned).
fn store_u32(guest: &mut Guest<'_>, at: u32, value: u32) -> wasmtime::Result<()> {
    if !at.is_multiple_of(4) {
        return Err(bad_pointer("misaligned", at));
    }
    if !stdio::store_u32(guest.data, at, value) {
        return Err(bad_pointer("out-of-bounds", at));
    }
    guest.wrote.push((at as usize, 4));
    Ok(())
}

/// The guest's memory as a call of this file writes it: its bytes, and the record of the
/// ranges written (`Stdio::wrote`), which every write here adds to.
struct Guest<'a> {
    data: &'a mut [u8],
    wrote: &'a mut crate::state::Wrote,
}

/// Runs `write` on the guest's memory (a module without one cannot take results), with
/// the program's arguments.
fn with_memory(caller: &mut Caller<'_, RunState>, write: impl FnOnce(&mut Guest<'_>, &[String]) -> wasmtime::Result<()>) -> wasmtime::Result<i32> {
    let memory = memory(caller).ok_or_else(|| wasmtime::Error::msg("a WASI call needs the module's exported memory"))?;
    let (data, state) = memory.data_and_store_mut(caller);
    write(&mut Guest { data, wrote: &mut state.stdio.wrote }, &state.args)?;
    Ok(0)
}

/// `args_sizes_get(argc, argv_buf_size) -> errno`: the arguments (the name alone but for
/// a validator's), and their bytes with a NUL each.
pub(crate) fn args_sizes_get(mut caller: Caller<'_, RunState>, argc: i32, size: i32) -> wasmtime::Result<i32> {
    with_memory(&mut caller, |data, args| {
        store_u32(data, argc as u32, args.len() as u32)?;
        store_u32(data, size as u32, args.iter().map(|arg| arg.len() as u32 + 1).sum())
    })
}

/// `args_get(argv, argv_buf) -> errno`: `argv[i]` points at argument `i`, written
/// NUL-ended one after the other from `argv_buf`.
pub(crate) fn args_get(mut caller: Caller<'_, RunState>, argv: i32, buf: i32) -> wasmtime::Result<i32> {
    with_memory(&mut caller, |data, args| {
        let mut at = buf as u32 as usize;
        for (i, arg) in args.iter().enumerate() {
            store_u32(data, (argv as u32).wrapping_add(4 * i as u32), at as u32)?;
            let end = at + arg.len() + 1;
            let text = data.data.get_mut(at..end).ok_or_else(|| bad_pointer("out-of-bounds", buf as u32))?;
            text[..arg.len()].copy_from_slice(arg.as_bytes());
            text[arg.len()] = 0;
            data.wrote.push((at, end - at));
            at = end;
        }
        Ok(())
    })
}

/// `environ_sizes_get(count, buf_size) -> errno`: no variables.
pub(crate) fn environ_sizes_get(mut caller: Caller<'_, RunState>, count: i32, size: i32) -> wasmtime::Result<i32> {
    with_memory(&mut caller, |data, _| {
        store_u32(data, count as u32, 0)?;
        store_u32(data, size as u32, 0)
    })
}

/// `environ_get(environ, environ_buf) -> errno`: no variables, so nothing is written.
pub(crate) fn environ_get(_caller: Caller<'_, RunState>, _environ: i32, _buf: i32) -> wasmtime::Result<i32> {
    Ok(0)
}

/// WASI's `ESPIPE`: the descriptor is a pipe, it has no position.
const ERRNO_SPIPE: i32 = 70;

/// WASI's `filetype` `unknown`, which wasmtime-wasi gives a standard stream that is not a
/// terminal (a run's never is).
const FILETYPE_UNKNOWN: u8 = 0;

/// WASI's rights `fd_read` and `fd_write`: stdin's, and stdout's and stderr's.
const RIGHT_FD_READ: u64 = 1 << 1;
const RIGHT_FD_WRITE: u64 = 1 << 6;

/// The rights wasmtime-wasi gives a standard stream `fd` (0 to 2): reading stdin,
/// writing stdout and stderr; `None` for any other descriptor (there are none).
fn stream_rights(fd: i32) -> Option<u64> {
    match fd {
        0 => Some(RIGHT_FD_READ),
        1 | 2 => Some(RIGHT_FD_WRITE),
        _ => None,
    }
}

/// `fd_fdstat_get(fd, stat) -> errno`: for the standard streams, a 24-byte `fdstat` at
/// `stat` as wasmtime-wasi writes it, field by field (padding bytes 1 and 4 to 7 keep what
/// they held): filetype unknown, no flags, the stream's rights, inheriting the same;
/// `EBADF` for any other descriptor, `stat` then unused.
pub(crate) fn fd_fdstat_get(mut caller: Caller<'_, RunState>, fd: i32, stat: i32) -> wasmtime::Result<i32> {
    let Some(rights) = stream_rights(fd) else { return Ok(stdio::ERRNO_BADF) };
    with_memory(&mut caller, |guest, _| {
        let bytes = structure(guest, stat as u32, 24)?;
        bytes[0] = FILETYPE_UNKNOWN;
        bytes[2..4].fill(0);
        bytes[8..16].copy_from_slice(&rights.to_le_bytes());
        bytes[16..24].copy_from_slice(&rights.to_le_bytes());
        Ok(())
    })
}

/// `fd_close(fd) -> errno`: closing a standard stream succeeds and does nothing, but that
/// an interactive program's stdout ends ([`stdio::close_stream`]); `EBADF` for any other
/// descriptor (there are none), as wasmtime-wasi answers.
pub(crate) fn fd_close(mut caller: Caller<'_, RunState>, fd: i32) -> wasmtime::Result<i32> {
    if stream_rights(fd).is_none() {
        return Ok(stdio::ERRNO_BADF);
    }
    stdio::close_stream(caller.data_mut(), fd);
    Ok(0)
}

/// `fd_filestat_get(fd, stat) -> errno`: for the standard streams, a 64-byte `filestat`
/// at `stat` as wasmtime-wasi writes it (padding bytes 17 to 23 keep what they held):
/// every field 0, filetype unknown included; `EBADF` for any other descriptor.
pub(crate) fn fd_filestat_get(mut caller: Caller<'_, RunState>, fd: i32, stat: i32) -> wasmtime::Result<i32> {
    if stream_rights(fd).is_none() {
        return Ok(stdio::ERRNO_BADF);
    }
    with_memory(&mut caller, |guest, _| {
        let bytes = structure(guest, stat as u32, 64)?;
        bytes[..16].fill(0);
        bytes[16] = FILETYPE_UNKNOWN;
        bytes[24..].fill(0);
        Ok(())
    })
}

/// The `len` bytes of a result structure with 64-bit fields at the guest address `at`
/// (which must then be 8-aligned), recorded as written.
fn structure<'a>(guest: &'a mut Guest<'_>, at: u32, len: usize) -> wasmtime::Result<&'a mut [u8]> {
    if !at.is_multiple_of(8) {
        return Err(bad_pointer("misaligned", at));
    }
    let start = at as usize;
    let bytes = guest.data.get_mut(start..start + len).ok_or_else(|| bad_pointer("out-of-bounds", at))?;
    guest.wrote.push((start, len));
    Ok(bytes)
}

/// `fd_tell(fd, offset) -> errno`: the standard streams are pipes (`ESPIPE`), and there
/// is no other descriptor (`EBADF`); nothing is written.
pub(crate) fn fd_tell(_caller: Caller<'_, RunState>, fd: i32, _offset: i32) -> wasmtime::Result<i32> {
    Ok(if stream_rights(fd).is_some() { ERRNO_SPIPE } else { stdio::ERRNO_BADF })
}

/// `fd_seek(fd, delta, whence, offset) -> errno`: as [`fd_tell`]; a `whence` other than
/// 0 to 2 ends the run with a trap, as wasmtime-wasi's reading of it does.
pub(crate) fn fd_seek(caller: Caller<'_, RunState>, fd: i32, _delta: i64, whence: i32, offset: i32) -> wasmtime::Result<i32> {
    if !(0..=2).contains(&whence) {
        return Err(wasmtime::Error::msg(format!("invalid whence {whence} passed to fd_seek")));
    }
    fd_tell(caller, fd, offset)
}

/// `proc_exit(status)`: ends the run with the status a native system gives the same
/// program: its low 8 bits, 0 to 255 (C's `return 200;` is 200, `exit(-1)` is 255,
/// `exit(256)` is 0). WASI reserves 126 and up for its own uses and wasmtime-wasi traps on
/// them, which made a right answer ended by `return 200;` a crash.
pub(crate) fn proc_exit(_caller: Caller<'_, RunState>, status: i32) -> wasmtime::Result<()> {
    Err(I32Exit(status & 0xFF).into())
}
