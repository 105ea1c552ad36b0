//! Files served from memory: what an output validator of the judges' protocol reads and
//! writes (problemtools, Kattis, DOMjudge: `validator input answer feedback_dir <
//! output`, a verdict by exit status and its reasons written in the feedback directory).
//!
//! A program loaded as [`crate::Role::Validator`] may import the WASI calls of files. A
//! run of it given [`Files`] sees one preopened directory, `/` (descriptor 3), holding the
//! files it may read, by their paths, and one directory it may create files in; nothing
//! else exists. What it writes there comes back with the run ([`crate::Run::written`]).
//! The host keeps every byte: no file of the machine is read or written, and a run of it
//! without [`Files`] sees no directory at all (every call of a file then answers `EBADF`
//! or `ENOENT`, as a program without preopens sees).
//!
//! The limits are a run's: the bytes written to files count against the output limit
//! (past it, the run ends as [`crate::Outcome::OutputLimit`]), each call pays the host
//! call's fuel and every byte moved is charged as the standard streams' are; at most
//! [`MAX_OPEN_FILES`] descriptors are open and [`MAX_WRITTEN_FILES`] files created.

use wasmtime::Caller;

use crate::state::{OutputFull, RunState};
use crate::stdio::{self, BYTES_PER_FUEL, charge, memory};

/// What a run of a validator is given besides its stdin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Files {
    /// Its arguments after its name (`argv[1]` on).
    pub args: Vec<String>,
    /// The files it may read: (absolute path, bytes). A path's directories exist for it
    /// to name, not to list.
    pub read: Vec<(String, Vec<u8>)>,
    /// The absolute path of the directory it may create files in and write (the judges'
    /// feedback directory), empty at the start.
    pub directory: String,
}

/// The most descriptors a run may have open at once, the standard streams and the
/// preopened directory aside: a validator opens two or three.
pub const MAX_OPEN_FILES: usize = 64;

/// The most files a run may create: the judges' protocol names four.
pub const MAX_WRITTEN_FILES: usize = 16;

/// The longest path a call may name, in bytes.
const MAX_PATH_BYTES: usize = 4096;

/// The descriptor of the preopened `/`, and the first of the files opened.
const ROOT_FD: i32 = 3;

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

/// A run's files, the ones it wrote and its open descriptors.
#[derive(Debug)]
pub(crate) struct FileTable {
    read: Vec<(String, Vec<u8>)>,
    /// The writable directory's path, relative to `/`.
    directory: String,
    /// The files created in `directory`: (name, bytes), in the order created.
    pub(crate) written: Vec<(String, Vec<u8>)>,
    /// Descriptor `ROOT_FD + 1 + i` is `open[i]`.
    open: Vec<Option<Open>>,
}

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    /// A directory: `/`, the writable one, or one on the way to a file read.
    Directory,
    /// `read[i]`.
    Read(usize),
    /// `written[i]`.
    Written(usize),
}

/// An open descriptor: what it names, where it reads or writes next, and how.
#[derive(Debug)]
struct Open {
    node: Node,
    at: u64,
    write: bool,
    append: bool,
}

impl FileTable {
    pub(crate) fn new(files: Files) -> FileTable {
        let read = files.read.into_iter().map(|(path, bytes)| (normal(&path).unwrap_or_default(), bytes)).collect();
        FileTable { read, directory: normal(&files.directory).unwrap_or_default(), written: Vec::new(), open: Vec::new() }
    }

    /// What `path` (relative to `/`, made normal) names, if anything.
    fn find(&self, path: &str) -> Option<Node> {
        let inside = |dir: &str, path: &str| dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'));
        if let Some(i) = self.read.iter().position(|(name, _)| name == path) {
            return Some(Node::Read(i));
        }
        if let Some(i) = self.written.iter().position(|(name, _)| *name == self.in_directory(path).unwrap_or_default()) {
            return Some(Node::Written(i));
        }
        let is_directory = path.is_empty() || path == self.directory || inside(path, &self.directory) || self.read.iter().any(|(name, _)| inside(path, name));
        is_directory.then_some(Node::Directory)
    }

    /// The name of `path` in the writable directory, if that is where it lies (directly).
    fn in_directory(&self, path: &str) -> Option<String> {
        let name = match self.directory.is_empty() {
            true => path,
            false => path.strip_prefix(&self.directory)?.strip_prefix('/')?,
        };
        (!name.is_empty() && !name.contains('/')).then(|| name.to_owned())
    }

    fn bytes(&self, node: Node) -> &[u8] {
        match node {
            Node::Read(i) => &self.read[i].1,
            Node::Written(i) => &self.written[i].1,
            Node::Directory => &[],
        }
    }

    fn opened(&mut self, fd: i32) -> Option<&mut Open> {
        let i = usize::try_from(fd.checked_sub(ROOT_FD + 1)?).ok()?;
        self.open.get_mut(i)?.as_mut()
    }

    /// A new descriptor for `open`, or `EMFILE`.
    fn add(&mut self, open: Open) -> Result<i32, i32> {
        let slot = match self.open.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.open.len() < MAX_OPEN_FILES => {
                self.open.push(None);
                self.open.len() - 1
            }
            None => return Err(ERRNO_MFILE),
        };
        self.open[slot] = Some(open);
        Ok(ROOT_FD + 1 + slot as i32)
    }

    /// The bytes the run has written to files.
    fn written_bytes(&self) -> usize {
        self.written.iter().map(|(_, bytes)| bytes.len()).sum()
    }
}

/// `path` relative to `/`, without `.`, empty components or a trailing `/`; `None` if
/// `..` climbs above `/`.
fn normal(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

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

/// Writes `bytes` at `at` in the guest's memory, recorded as written; `EFAULT` if they do
/// not fit.
fn put(data: &mut [u8], wrote: &mut crate::state::Wrote, at: i32, bytes: &[u8]) -> Result<(), i32> {
    let start = at as u32 as usize;
    let slot = start.checked_add(bytes.len()).and_then(|end| data.get_mut(start..end)).ok_or(ERRNO_FAULT)?;
    slot.copy_from_slice(bytes);
    wrote.push((start, bytes.len()));
    Ok(())
}

/// Runs `call` with the guest's memory, the run's files (`EBADF` without any) and its
/// record of what the host wrote.
fn with_files(
    caller: &mut Caller<'_, RunState>,
    call: impl FnOnce(&mut [u8], &mut FileTable, &mut crate::state::Wrote) -> Result<(), i32>,
) -> wasmtime::Result<i32> {
    let Some(memory) = memory(caller) else { return Ok(ERRNO_FAULT) };
    let (data, state) = memory.data_and_store_mut(caller);
    let Some(files) = state.files.as_mut() else { return Ok(ERRNO_BADF) };
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
    with_files(&mut caller, |data, files, wrote| {
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
                if files.written.len() >= MAX_WRITTEN_FILES {
                    return Err(ERRNO_NOSPC);
                }
                files.written.push((name, Vec::new()));
                Node::Written(files.written.len() - 1)
            }
            None => return Err(ERRNO_NOENT),
        };
        if let (Node::Written(i), true) = (node, oflags & OFLAGS_TRUNC != 0) {
            files.written[i].1.clear();
        }
        let opened = files.add(Open { node, at: 0, write, append: fdflags & FDFLAGS_APPEND != 0 })?;
        put(data, wrote, fd, &(opened as u32).to_le_bytes())
    })
}

/// `path_filestat_get(dir, flags, path, path_len, filestat) -> errno`: the status of what
/// `path` names, as [`fd_filestat_get`] gives it.
pub(crate) fn path_filestat_get(mut caller: Caller<'_, RunState>, dir: i32, _flags: i32, path: i32, path_len: i32, stat: i32) -> wasmtime::Result<i32> {
    charge(&mut caller, path_len as u32 as u64 / BYTES_PER_FUEL)?;
    with_files(&mut caller, |data, files, wrote| {
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
/// `/` does nothing.)
pub(crate) fn fd_close(mut caller: Caller<'_, RunState>, fd: i32) -> wasmtime::Result<i32> {
    if (0..=ROOT_FD).contains(&fd) {
        return Ok(ERRNO_SUCCESS);
    }
    with_files(&mut caller, |_, files, _| {
        let i = (fd - ROOT_FD - 1) as usize;
        files.opened(fd).ok_or(ERRNO_BADF)?;
        files.open[i] = None;
        Ok(())
    })
}

/// Whether `fd` is one of the run's files (or `/`): the calls below serve it, the
/// standard streams' calls (`stdio.rs`, `process.rs`) the rest.
fn is_file(caller: &Caller<'_, RunState>, fd: i32) -> bool {
    fd >= ROOT_FD && caller.data().files.is_some()
}

/// `fd_read` for a file; the standard streams' otherwise.
pub(crate) fn fd_read(caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nread: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return stdio::fd_read(caller, fd, iovs, count, nread);
    }
    stdio::scatter_gather(caller, true, iovs, count, nread, |data, state, buffers| {
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
pub(crate) fn fd_write(caller: Caller<'_, RunState>, fd: i32, iovs: i32, count: i32, nwritten: i32) -> wasmtime::Result<i32> {
    if !is_file(&caller, fd) {
        return stdio::fd_write(caller, fd, iovs, count, nwritten);
    }
    stdio::scatter_gather(caller, true, iovs, count, nwritten, |data, state, buffers| {
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
    if !is_file(&caller, fd) {
        return crate::process::fd_fdstat_get(caller, fd, stat);
    }
    with_files(&mut caller, |data, files, wrote| {
        let (node, append) = match fd {
            ROOT_FD => (Node::Directory, false),
            _ => files.opened(fd).map(|open| (open.node, open.append)).ok_or(ERRNO_BADF)?,
        };
        let mut fdstat = [0u8; 24];
        fdstat[0] = if node == Node::Directory { FILETYPE_DIRECTORY } else { FILETYPE_REGULAR_FILE };
        fdstat[2] = u8::from(append);
        fdstat[8..16].copy_from_slice(&ALL_RIGHTS.to_le_bytes());
        fdstat[16..24].copy_from_slice(&ALL_RIGHTS.to_le_bytes());
        put(data, wrote, stat, &fdstat)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FileTable {
        FileTable::new(Files {
            args: Vec::new(),
            read: vec![("/judge/input".into(), b"1 2\n".to_vec()), ("/judge/answer".into(), b"3\n".to_vec())],
            directory: "/judge/feedback/".into(),
        })
    }

    fn check(path: &str, expected: Option<Node>) {
        assert_eq!(table().find(&normal(path).unwrap()), expected, "{path}");
    }

    #[test]
    fn a_path_names_a_file_read_or_a_directory_on_the_way_to_one_or_nothing() {
        check("judge/input", Some(Node::Read(0)));
        check("./judge//answer", Some(Node::Read(1)));
        check("judge/feedback/../input", Some(Node::Read(0)));
        check("", Some(Node::Directory));
        check("judge", Some(Node::Directory));
        check("judge/feedback", Some(Node::Directory));
        check("judge/feedback/judgemessage.txt", None);
        check("judge/inp", None);
        check("jud", None);
    }

    #[test]
    fn a_path_cannot_climb_above_the_root() {
        assert_eq!(normal("a/../.."), None);
        assert_eq!(normal("a/./b/../c/"), Some("a/c".into()));
    }

    #[test]
    fn files_are_created_directly_in_the_writable_directory_only() {
        let files = table();
        assert_eq!(files.in_directory("judge/feedback/judgemessage.txt"), Some("judgemessage.txt".into()));
        assert_eq!(files.in_directory("judge/feedback/a/b"), None);
        assert_eq!(files.in_directory("judge/input"), None);
        assert_eq!(files.in_directory("judge/feedback"), None);
    }
}
