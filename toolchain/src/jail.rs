//! One compiler run inside a bubblewrap sandbox, within limits.
//!
//! Compilers are native programs reading hostile input. Each run gets: no network and
//! its own process, IPC, UTS and user namespaces (`--unshare-all`); a read-only view of
//! `/usr` and of the toolchain's own directories, nothing else of the host (no `/etc`, no
//! home, no data directory, no other student's files); an empty writable `/tmp`; the build
//! directory holding only this submission's sources, as `/src`; an empty environment. No
//! student code runs while compiling (a bin crate defines no procedural macros and has no
//! build script; C and C++ compile and link only), so the limits bound the compiler's
//! own work: [`Limits`].

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::ToolchainError;

/// The longest a compile may take, wall clock (and its CPU time): a class's largest
/// programs compile in seconds, a template or macro bomb runs for ever.
pub const COMPILE_SECONDS: u64 = 60;
/// The most address space the compiler may use: generous for any student program
/// (rustc optimising a large one: a few hundred MB), and it stops `#include "/dev/zero"`.
pub const COMPILE_MEMORY_BYTES: u64 = 2 << 30;
/// The most compiler messages kept (the rest is read and dropped): a page of errors is
/// what a student reads; a flood of warnings must not fill memory.
pub const COMPILE_MESSAGE_BYTES: usize = 64 << 10;
/// The largest file the compiler may write (the module, its temporary files).
pub const COMPILE_FILE_BYTES: u64 = 256 << 20;

/// What bounds one compile. The defaults are the constants above; tests lower them.
#[derive(Clone, Debug)]
pub struct Limits {
    pub time: Duration,
    pub memory_bytes: u64,
    pub message_bytes: usize,
    pub file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(COMPILE_SECONDS),
            memory_bytes: COMPILE_MEMORY_BYTES,
            message_bytes: COMPILE_MESSAGE_BYTES,
            file_bytes: COMPILE_FILE_BYTES,
        }
    }
}

/// How a sandboxed run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    Exited(i32),
    /// Killed by a signal: a crash, or a limit the kernel enforces (memory, CPU, file size).
    Signalled(i32),
    TimedOut,
}

pub(crate) struct Ran {
    pub ended: Ended,
    /// Standard output and error together, at most `Limits::message_bytes`.
    pub messages: Vec<u8>,
    /// Bytes of messages dropped beyond the limit.
    pub dropped: u64,
}

/// bubblewrap, found and known to work here.
#[derive(Clone, Debug)]
pub struct Jail {
    bwrap: PathBuf,
}

impl Jail {
    /// Finds `bwrap` and checks that it can create its namespaces here (it cannot in some
    /// containers): compiling unsandboxed is never an option.
    pub fn find() -> Result<Jail, ToolchainError> {
        let bwrap = which("bwrap").ok_or_else(|| {
            ToolchainError::NoSandbox("bubblewrap (`bwrap`) is not installed (Debian: apt-get install bubblewrap)".into())
        })?;
        let jail = Jail { bwrap };
        let dir = tempfile::tempdir().map_err(|e| ToolchainError::Io(format!("cannot create a build directory: {e}")))?;
        let ran = jail.run(dir.path(), &[], Path::new("/bin/true"), &[], &Limits { time: Duration::from_secs(10), ..Limits::default() })?;
        if ran.ended != Ended::Exited(0) {
            return Err(ToolchainError::NoSandbox(format!(
                "bubblewrap cannot create its sandbox here ({:?}): {}",
                ran.ended,
                String::from_utf8_lossy(&ran.messages).trim()
            )));
        }
        Ok(jail)
    }

    /// Runs `program args` in the sandbox with `dir` as its writable `/src` (and working
    /// directory), `read_only` directories of the host visible at the same paths.
    pub(crate) fn run(&self, dir: &Path, read_only: &[PathBuf], program: &Path, args: &[String], limits: &Limits) -> Result<Ran, ToolchainError> {
        let mut command = Command::new(&self.bwrap);
        command.args(["--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]);
        command.args(["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8"]);
        command.args(["--ro-bind", "/usr", "/usr"]);
        // Merged-/usr systems link these into /usr; others have them as directories.
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64"] {
            match std::fs::read_link(top) {
                Ok(target) => {
                    command.arg("--symlink").arg(target).arg(top);
                }
                Err(_) if Path::new(top).is_dir() => {
                    command.args(["--ro-bind", top, top]);
                }
                Err(_) => {}
            }
        }
        for path in read_only {
            command.arg("--ro-bind").arg(path).arg(path);
        }
        command.args(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]);
        command.arg("--bind").arg(dir).arg("/src").args(["--chdir", "/src", "--"]);
        command.arg(program).args(args);

        let (mut reader, writer) = std::io::pipe().map_err(|e| ToolchainError::Io(format!("cannot create a pipe: {e}")))?;
        let writer_too = writer.try_clone().map_err(|e| ToolchainError::Io(format!("cannot create a pipe: {e}")))?;
        command.stdin(Stdio::null()).stdout(writer).stderr(writer_too).process_group(0);
        let (memory, cpu, file) = (limits.memory_bytes, limits.time.as_secs() + 1, limits.file_bytes);
        // SAFETY: between fork and exec only async-signal-safe calls (setrlimit).
        unsafe {
            command.pre_exec(move || {
                for (resource, value) in [(libc::RLIMIT_AS, memory), (libc::RLIMIT_CPU, cpu), (libc::RLIMIT_FSIZE, file), (libc::RLIMIT_CORE, 0)] {
                    let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|e| ToolchainError::Io(format!("cannot start bubblewrap: {e}")))?;
        drop(command); // closes this process's ends of the pipe
        let cap = limits.message_bytes;
        let collector = std::thread::spawn(move || {
            let (mut kept, mut dropped) = (Vec::new(), 0u64);
            let mut buffer = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let room = cap.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
                dropped += (n - room) as u64;
            }
            (kept, dropped)
        });
        let deadline = Instant::now() + limits.time;
        let ended = loop {
            match child.try_wait().map_err(|e| ToolchainError::Io(format!("cannot wait for the compiler: {e}")))? {
                Some(status) => {
                    use std::os::unix::process::ExitStatusExt;
                    break match (status.code(), status.signal()) {
                        (Some(code), _) => Ended::Exited(code),
                        (None, signal) => Ended::Signalled(signal.unwrap_or(0)),
                    };
                }
                None if Instant::now() >= deadline => {
                    // SAFETY: signals the process group this run created, nothing else.
                    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
                    let _ = child.wait();
                    break Ended::TimedOut;
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        let (messages, dropped) = collector.join().map_err(|_| ToolchainError::Io("the message reader failed".into()))?;
        Ok(Ran { ended, messages, dropped })
    }
}

/// `name` found in `PATH`.
pub(crate) fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}
