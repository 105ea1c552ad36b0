//! One compiler run inside a bubblewrap sandbox, within limits.
//!
//! Compilers are native programs reading hostile input, and whatever a compiler can read a
//! source can put in its module or its error messages (`#include "/etc/passwd"`,
//! `include_bytes!`, `#[path = ...] mod x;`). So a run is shown nothing of the host but
//! what compiling needs: no network and its own process, IPC, UTS and user namespaces
//! (`--unshare-all`); a read-only view of `/usr` and of the toolchain's own directories,
//! each at a fixed path of the sandbox ([`crate::Mount`]: Rust's sysroot is
//! `/toolchain/rust` whatever the host calls it); an empty writable `/tmp`; bubblewrap's
//! minimal `/dev`; the build directory holding only this submission's sources, as `/src`.
//! Nothing else: no `/etc`, no home, no data directory, no other student's files, no
//! `/sys`, and no `/proc` at all, so no process's environment, command line or mount table
//! (bubblewrap's own first process, inside the sandbox, holds its whole command line with
//! the host's paths; rustc is given `LD_LIBRARY_PATH` instead of reading `/proc/self/exe`).
//! The environment is empty, bubblewrap's own included (bubblewrap itself starts with an
//! empty one: its first process keeps what it inherits): the compiler gets [`JAIL_ENV`] and
//! the variables its toolchain names, nothing inherited, so `env!` and `option_env!` see
//! nothing of the host. Sources are passed as `/src/<name>`, so that no file name is an
//! option (`-o.c`, `--help.rs`), and `/src/` is cut from the module's paths (panics,
//! `__FILE__`) and the messages. No student code runs while compiling (a bin crate defines
//! no procedural macros and has no build script; C and C++ compile and link only), so the
//! limits bound the compiler's own work: [`Limits`] ([`COMPILE_SECONDS`],
//! [`COMPILE_MEMORY_BYTES`] by `RLIMIT_AS`, [`COMPILE_MESSAGE_BYTES`], [`COMPILE_FILE_BYTES`]).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
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
/// The largest file the compiler may write (the module, its temporary files): a run's
/// memory (1 GiB at most) and some more, since clang writes a zero-initialised global
/// array's bytes out in full in its object file (the module holds none of them). At 256
/// MiB a student's `int a[100000000];`, which runs natively within 512 MiB, killed clang
/// mid-write with its crash report for a message.
pub const COMPILE_FILE_BYTES: u64 = (1 << 30) + (64 << 20);

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
    /// Killed because the caller asked it to stop.
    Stopped,
}

pub(crate) struct Ran {
    pub ended: Ended,
    /// Standard output and error together, at most `Limits::message_bytes`.
    pub messages: Vec<u8>,
    /// Bytes of messages dropped beyond the limit.
    pub dropped: u64,
}

/// The sandbox's whole environment besides what a toolchain names ([`crate::Toolchain::env`]):
/// what a compiler expects to find, the same on every host.
pub const JAIL_ENV: [(&str, &str); 4] = [("PATH", "/usr/bin:/bin"), ("HOME", "/tmp"), ("TMPDIR", "/tmp"), ("LANG", "C.UTF-8")];

/// Where the sources are inside the sandbox: the build directory, the compiler's working
/// directory.
pub(crate) const SOURCES: &str = "/src";

/// A host directory a toolchain needs, shown read-only inside the sandbox at a fixed path
/// of its own (so a source cannot learn the host's path, say a home directory).
#[derive(Clone, Debug)]
pub struct Mount {
    pub host: PathBuf,
    pub jail: &'static str,
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
        let bwrap =
            which("bwrap").ok_or_else(|| ToolchainError::NoSandbox("bubblewrap (`bwrap`) is not installed (Debian: apt-get install bubblewrap)".into()))?;
        let jail = Jail { bwrap };
        let dir = tempfile::tempdir().map_err(|e| ToolchainError::Io(format!("cannot create a build directory: {e}")))?;
        let ran = jail.run(dir.path(), &[], &[], Path::new("/bin/true"), &[], &Limits { time: Duration::from_secs(10), ..Limits::default() }, None)?;
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
    /// directory), the `mounts` read-only at their sandbox paths and `env` besides
    /// [`JAIL_ENV`]; `program` is its path inside the sandbox. `Err` when bubblewrap could
    /// not make the sandbox (the host's failure, never the sources').
    /// Once `stop` is set, the compiler is killed within a few milliseconds
    /// ([`Ended::Stopped`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        dir: &Path,
        mounts: &[Mount],
        env: &[(&str, String)],
        program: &Path,
        args: &[String],
        limits: &Limits,
        stop: Option<&AtomicBool>,
    ) -> Result<Ran, ToolchainError> {
        let mut command = Command::new(&self.bwrap);
        // bubblewrap's own environment too: its first process inside the sandbox keeps it.
        command.env_clear();
        command.args(["--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]);
        for (name, value) in JAIL_ENV {
            command.args(["--setenv", name, value]);
        }
        for (name, value) in env {
            command.args(["--setenv", name]).arg(value);
        }
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
        for mount in mounts {
            command.arg("--ro-bind").arg(&mount.host).arg(mount.jail);
        }
        // No `--proc`: see the module's documentation.
        command.args(["--dev", "/dev", "--tmpfs", "/tmp"]);
        command.arg("--bind").arg(dir).arg(SOURCES).args(["--chdir", SOURCES, "--"]);
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
                None if Instant::now() >= deadline || stop.is_some_and(|s| s.load(Ordering::Relaxed)) => {
                    // SAFETY: signals the process group this run created, nothing else.
                    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
                    let _ = child.wait();
                    break if Instant::now() >= deadline { Ended::TimedOut } else { Ended::Stopped };
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        let (messages, dropped) = collector.join().map_err(|_| ToolchainError::Io("the message reader failed".into()))?;
        // bubblewrap's own failures (it exits 1 before running anything) start so; a
        // compiler's messages never do (they start with a file name or the compiler's).
        if ended == Ended::Exited(1) && messages.starts_with(b"bwrap: ") {
            return Err(ToolchainError::NoSandbox(format!("bubblewrap failed: {}", String::from_utf8_lossy(&messages).trim())));
        }
        Ok(Ran { ended, messages, dropped })
    }
}

/// `name` found in `PATH`.
pub(crate) fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}
