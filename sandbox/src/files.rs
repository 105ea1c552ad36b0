//! Files served from memory: what an output validator of the judges' protocol reads and
//! writes (problemtools, Kattis, DOMjudge: `validator input answer feedback_dir <
//! output`, a verdict by exit status and its reasons written in the feedback directory).
//!
//! A program loaded as [`crate::Role::Validator`] may import the WASI calls of files, and
//! so does every interpreted program (the interpreter's one instantiation serves them
//! all). A run of it given [`crate::Files`] sees one preopened directory, `/` (descriptor 3), holding the
//! files it may read, by their paths, and one directory it may create files in; nothing
//! else exists. What it writes there comes back with the run ([`crate::Run::written`]).
//! The host keeps every byte: no file of the machine is read or written, and a run of it
//! without [`crate::Files`] sees no directory at all (every call of a file then answers `EBADF`
//! or `ENOENT`, as a program without preopens sees).
//!
//! The limits are a run's: the bytes written to files count against the output limit
//! (past it, the run ends as [`crate::Outcome::OutputLimit`]), each call pays the host
//! call's fuel and every byte moved is charged as the standard streams' are; at most
//! [`crate::MAX_OPEN_FILES`] descriptors are open and [`crate::MAX_WRITTEN_FILES`] files created.

use wasmtime::Caller;

use crate::file_table::{FileTable, Node, Open, ROOT_FD, normal};
use crate::state::{OutputFull, RunState};
use crate::stdio::{self, BYTES_PER_FUEL, charge, memory, put};

/// The longest path a call may name, in bytes.
const MAX_PATH_BYTES: usize = 4096;

// WASI's errno values.
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_ACCES: i32 = 2;
const ERRNO_BADF: i32 = stdio::ERRNO_BADF;
const ERRNO_EXIST: i32 = 20;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;
const ERRNO_ISDIR: i32 = 31;
const ERRNO_MFILE: i32 = 33;
const ERRNO_NAMETOOLONG: i32 = 37;
const ERRNO_NOENT: i32 = 44;
const ERRNO_NOSPC: i32 = 51;
const ERRNO_NOTDIR: i32 = 54;
const ERRNO_NOTCAPABLE: i32 = 76;

// WASI's `oflags`, `fdflags`, file types and rights.
const OFLAGS_CREAT: i32 = 1;
const OFLAGS_DIRECTORY: i32 = 2;
const OFLAGS_EXCL: i32 = 4;
const OFLAGS_TRUNC: i32 = 8;
const FDFLAGS_APPEND: i32 = 1;
const FILETYPE_DIRECTORY: u8 = 3;
const FILETYPE_REGULAR_FILE: u8 = 4;
const RIGHT_FD_WRITE: u64 = 1 << 6;
/// Every right of WASI preview 1 (a descriptor here can do what its kind allows).
const ALL_RIGHTS: u64 = (1 << 29) - 1;

/// The guest's path of `len` bytes at `at`, or an errno.
fn guest_path(data: &[u8], at: i32, len: i32) -> Result<String, i32> {
    let (at, len) = (at as u32 as usize, len as u32 as usize);
    if len > MAX_PATH_BYTES {
        return Err(ERRNO_NAMETOOLONG);
    }
    let bytes = at.checked_add(len).and_then(|end| data.get(at..end)).ok_or(ERRNO_FAULT)?;
    let path = std::str::from_utf8(bytes).map_err(|_| ERRNO_INVAL)?;
    if path.starts_with('/') {
        return Err(ERRNO_NOTCAPABLE);
    }
    normal(path).ok_or(ERRNO_NOTCAPABLE)
}

/// The call's errno, from the result of its work.
fn errno(result: Result<(), i32>) -> i32 {
    result.err().unwrap_or(ERRNO_SUCCESS)
}

/// Runs `call` with the guest's memory, the run's files (`EBADF` without any) and its
/// record of what the host wrote.
fn with_files(
    caller: &mut Caller<'_, RunState>,
    call: impl FnOnce(&mut [u8], &mut FileTable, &mut crate::state::Wrote) -> Result<(), i32>,
) -> wasmtime::Result<i32> {
    with_files_or(caller, ERRNO_BADF, call)
}

/// [`with_files`] of a call that names a path, `absent` without any files: an interpreted
/// program's libc keeps the preopened `/` of its snapshot, and a path there names nothing
/// (`ENOENT`, as a compiled program's libc says for a path under no preopen).
fn with_files_or(
    caller: &mut Caller<'_, RunState>,
    absent: i32,
    call: impl FnOnce(&mut [u8], &mut FileTable, &mut crate::state::Wrote) -> Result<(), i32>,
) -> wasmtime::Result<i32> {
    let Some(memory) = memory(caller) else { return Ok(ERRNO_FAULT) };
    let (data, state) = memory.data_and_store_mut(caller);
    let Some(files) = state.files.as_mut() else { return Ok(absent) };
    Ok(errno(call(data, files, &mut state.stdio.wrote)))
}

/// `fd_prestat_get(fd, prestat) -> errno`: descriptor 3 is the directory `/` (an 8-byte
/// `prestat`: tag 0, a directory, and its name's length, 1).
pub(crate) fn fd_prestat_get(mut caller: Caller<'_, RunState>, fd: i32, prestat: i32) -> wasmtime::Result<i32> {
    if fd != ROOT_FD {
        return Ok(ERRNO_BADF);
    }
    with_files(&mut caller, |data, _, wrote| put(data, wrote, prestat, &[0, 0, 0, 0, 1, 0, 0, 0]))
}

/// `fd_prestat_dir_name(fd, path, len) -> errno`: `/`.
pub(crate) fn fd_prestat_dir_name(mut caller: Caller<'_, RunState>, fd: i32, path: i32, len: i32) -> wasmtime::Result<i32> {
    if fd != ROOT_FD {
        return Ok(ERRNO_BADF);
    }
    with_files(&mut caller, |data, _, wrote| if len < 1 { Err(ERRNO_NAMETOOLONG) } else { put(data, wrote, path, b"/") })
}

/// `path_open(dir, dirflags, path, path_len, oflags, rights, inheriting, fdflags, fd) ->
/// errno`: a file read (never for writing: `EACCES`), a file of the writable directory
/// (created with `O_CREAT`, emptied with `O_TRUNC`), or a directory (only to read its
/// status); `ENOENT` for anything else. The new descriptor is stored at `fd`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn path_open(
    mut caller: Caller<'_, RunState>,
    dir: i32,
    _dirflags: i32,
    path: i32,
    path_len: i32,
    oflags: i32,
    rights: i64,
    _inheriting: i64,
    fdflags: i32,
    fd: i32,
) -> wasmtime::Result<i32> {
    charge(&mut caller, path_len as u32 as u64 / BYTES_PER_FUEL)?;
    with_files_or(&mut caller, ERRNO_NOENT, |data, files, wrote| {
        if dir != ROOT_FD {
            return Err(ERRNO_BADF);
        }
        let path = guest_path(data, path, path_len)?;
        let write = rights as u64 & RIGHT_FD_WRITE != 0 || oflags & OFLAGS_TRUNC != 0;
        let node = match files.find(&path) {
            Some(_) if oflags & (OFLAGS_CREAT | OFLAGS_EXCL) == OFLAGS_CREAT | OFLAGS_EXCL => return Err(ERRNO_EXIST),
            Some(Node::Directory) if write => return Err(ERRNO_ISDIR),
            Some(node @ Node::Directory) => node,
            Some(_) if oflags & OFLAGS_DIRECTORY != 0 => return Err(ERRNO_NOTDIR),
            Some(Node::Read(_)) if write => return Err(ERRNO_ACCES),
            Some(node) => node,
            None if oflags & OFLAGS_CREAT != 0 && oflags & OFLAGS_DIRECTORY == 0 => {
                let name = files.in_directory(&path).ok_or(ERRNO_ACCES)?;
                files.create(name).ok_or(ERRNO_NOSPC)?
            }
            None => return Err(ERRNO_NOENT),
        };
        if let (Node::Written(i), true) = (node, oflags & OFLAGS_TRUNC != 0) {
            files.written[i].1.clear();
        }
        let opened = files.add(Open { node, at: 0, write, append: fdflags & FDFLAGS_APPEND != 0 }).ok_or(ERRNO_MFILE)?;
        put(data, wrote, fd, &(opened as u32).to_le_bytes())
    })
}

/// `path_filestat_get(dir, flags, path, path_len, filestat) -> errno`: the status of what
/// `path` names, as [`fd_filestat_get`] gives it.
pub(crate) fn path_filestat_get(mut caller: Caller<'_, RunState>, dir: i32, _flags: i32, path: i32, path_len: i32, stat: i32) -> wasmtime::Result<i32> {
    charge(&mut caller, path_len as u32 as u64 / BYTES_PER_FUEL)?;
    with_files_or(&mut caller, ERRNO_NOENT, |data, files, wrote| {
        if dir != ROOT_FD {
            return Err(ERRNO_BADF);
        }
        let node = files.find(&guest_path(data, path, path_len)?).ok_or(ERRNO_NOENT)?;
        put(data, wrote, stat, &filestat(files, node))
    })
}

/// A 64-byte `filestat`: no device or inode, the type, one link, the size, no times.
fn filestat(files: &FileTable, node: Node) -> [u8; 64] {
    let mut stat = [0u8; 64];
    stat[16] = if node == Node::Directory { FILETYPE_DIRECTORY } else { FILETYPE_REGULAR_FILE };
    stat[24..32].copy_from_slice(&1u64.to_le_bytes());
    stat[32..40].copy_from_slice(&(files.bytes(node).len() as u64).to_le_bytes());
    stat
}

/// `fd_close(fd) -> errno`: the descriptor is free again. (Closing a standard stream or
/// `/` does nothing, but that an interactor's stdout ends: [`stdio::close_stream`].)
pub(crate) fn fd_close(mut caller: Caller<'_, RunState>, fd: i32) -> wasmtime::Result<i32> {
    if (0..=ROOT_FD).contains(&fd) {
        stdio::close_stream(caller.data_mut(), fd);
        return Ok(ERRNO_SUCCESS);
    }
    with_files(&mut caller, |_, files, _| if files.close(fd) { Ok(()) } else { Err(ERRNO_BADF) })
}

/// Whether `fd` is one of the run's files (or `/`): the calls below serve it, the
/// standard streams' calls (`stdio.rs`, `process.rs`) the rest.
fn is_file(caller: &Caller<'_, RunState>, fd: i32) -> bool {
    fd >= ROOT_FD && caller.data().files.is_some()
}

/// `fd_read` for a file; the standard streams' otherwise.
pub(crate) fn fd_read(mut caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nread: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return stdio::fd_read(caller, fd, iovs, count, nread);
    }
    stdio::scatter_gather(&mut caller, true, iovs, count, nread, |data, state, buffers| {
        let files = state.files.as_mut().expect("is_file");
        let Some(open) = files.opened(fd) else { return Ok(Err(ERRNO_BADF)) };
        let (node, mut at) = (open.node, open.at as usize);
        if node == Node::Directory || (open.write && !matches!(node, Node::Written(_))) {
            return Ok(Err(ERRNO_BADF));
        }
        let bytes = files.bytes(node);
        let mut moved = 0;
        for (start, len) in buffers {
            let rest = bytes.get(at..).unwrap_or_default();
            let n = len.min(rest.len());
            data[start..start + n].copy_from_slice(&rest[..n]);
            state.stdio.wrote.push((start, n));
            at += n;
            moved += n;
            if n < len {
                break;
            }
        }
        files.opened(fd).expect("open").at = at as u64;
        Ok(Ok(moved))
    })
}

/// `fd_write` for a file; the standard streams' otherwise. Bytes past the output limit
/// (all files' together) end the run.
pub(crate) fn fd_write(mut caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nwritten: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return stdio::fd_write(caller, fd, iovs, count, nwritten);
    }
    stdio::scatter_gather(&mut caller, true, iovs, count, nwritten, |data, state, buffers| {
        let limit = state.stdio.stdout_limit;
        let files = state.files.as_mut().expect("is_file");
        let mut room = limit.saturating_sub(files.written_bytes());
        let Some(open) = files.opened(fd) else { return Ok(Err(ERRNO_BADF)) };
        let (Node::Written(i), true) = (open.node, open.write) else { return Ok(Err(ERRNO_BADF)) };
        let (append, mut at) = (open.append, open.at as usize);
        let file = &mut files.written[i].1;
        if append {
            at = file.len();
        }
        let mut moved = 0;
        for (start, len) in buffers {
            let grows = (at + len).saturating_sub(file.len());
            if grows > room {
                return Err(OutputFull.into());
            }
            room -= grows;
            if file.len() < at + len {
                file.resize(at + len, 0);
            }
            file[at..at + len].copy_from_slice(&data[start..start + len]);
            at += len;
            moved += len;
        }
        files.opened(fd).expect("open").at = at as u64;
        Ok(Ok(moved))
    })
}

/// `fd_seek(fd, delta, whence, offset) -> errno` for a file (from its start, where it is,
/// or its end); the standard streams' otherwise.
pub(crate) fn fd_seek(mut caller: Caller<'_, RunState>, fd: i32, delta: i64, whence: i32, offset: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return crate::process::fd_seek(caller, fd, delta, whence, offset);
    }
    if !(0..=2).contains(&whence) {
        return Err(wasmtime::Error::msg(format!("invalid whence {whence} passed to fd_seek")));
    }
    with_files(&mut caller, |data, files, wrote| {
        let Some(open) = files.opened(fd) else { return Err(ERRNO_BADF) };
        let (node, at) = (open.node, open.at);
        let base = match whence {
            0 => 0,
            1 => at as i64,
            _ => files.bytes(node).len() as i64,
        };
        let to = base.checked_add(delta).filter(|to| *to >= 0).ok_or(ERRNO_INVAL)?;
        files.opened(fd).expect("open").at = to as u64;
        put(data, wrote, offset, &(to as u64).to_le_bytes())
    })
}

/// `fd_tell(fd, offset) -> errno` for a file; the standard streams' otherwise.
pub(crate) fn fd_tell(mut caller: Caller<'_, RunState>, fd: i32, offset: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return crate::process::fd_tell(caller, fd, offset);
    }
    with_files(&mut caller, |data, files, wrote| {
        let at = files.opened(fd).ok_or(ERRNO_BADF)?.at;
        put(data, wrote, offset, &at.to_le_bytes())
    })
}

/// `fd_fdstat_get(fd, fdstat) -> errno` for a file or `/` (its type, `O_APPEND`, every
/// right); the standard streams' otherwise.
pub(crate) fn fd_fdstat_get(mut caller: Caller<'_, RunState>, fd: i32, stat: i32) -> wasmtime::Result<i32> {
    let rootless = fd == ROOT_FD && caller.data().files.is_none();
    if !is_file(&caller, fd) && !rootless {
        return crate::process::fd_fdstat_get(caller, fd, stat);
    }
    if rootless {
        // An interpreted program's libc asks about the `/` its snapshot keeps before it
        // names a path there: an empty directory, whose paths name nothing (ENOENT, see
        // `with_files_or`).
        return Ok(stdio::put_in_guest(&mut caller, stat, &fdstat(Node::Directory, false)));
    }
    with_files(&mut caller, |data, files, wrote| {
        let (node, append) = match fd {
            ROOT_FD => (Node::Directory, false),
            _ => files.opened(fd).map(|open| (open.node, open.append)).ok_or(ERRNO_BADF)?,
        };
        put(data, wrote, stat, &fdstat(node, append))
    })
}

/// The 24-byte `fdstat` of a descriptor of `node`: its file type, its flags, every right.
fn fdstat(node: Node, append: bool) -> [u8; 24] {
    let mut fdstat = [0u8; 24];
    fdstat[0] = if node == Node::Directory { FILETYPE_DIRECTORY } else { FILETYPE_REGULAR_FILE };
    fdstat[2] = u8::from(append);
    fdstat[8..16].copy_from_slice(&ALL_RIGHTS.to_le_bytes());
    fdstat[16..24].copy_from_slice(&ALL_RIGHTS.to_le_bytes());
    fdstat
}

/// `fd_filestat_get(fd, filestat) -> errno` for a file or `/`; the standard streams'
/// otherwise.
pub(crate) fn fd_filestat_get(mut caller: Caller<'_, RunState>, fd: i32, stat: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return crate::process::fd_filestat_get(caller, fd, stat);
    }
    with_files(&mut caller, |data, files, wrote| {
        let node = match fd {
            ROOT_FD => Node::Directory,
            _ => files.opened(fd).ok_or(ERRNO_BADF)?.node,
        };
        put(data, wrote, stat, &filestat(files, node))
    })
}
