//! Runs a child process to its end and measures it: wall time, CPU time, peak memory.
//! Shared by the adversarial corpus and the class benchmark (`benches/class.rs`).
//!
//! A process's peak memory as `wait4` reports it (`ru_maxrss`) counts what it inherited:
//! a child forked (or spawned) from this process starts with this process's resident
//! memory, hundreds of MB once the corpus has made CPython's snapshot here, whatever the
//! child itself uses. So the command is started by a small wrapper, this same binary
//! started afresh ([`wrap_if_asked`], called first in `main`), whose own few MB are all
//! its child inherits; the wrapper reaps the command and reports its usage.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variables that make this binary the wrapper: the file it writes the
/// command's usage to, and the wall time after which it kills the command (ms).
const WRAPPER_REPORT: &str = "BUGRANK_MEASURE_REPORT";
const WRAPPER_LIMIT_MS: &str = "BUGRANK_MEASURE_LIMIT_MS";

/// What a finished process cost.
pub struct Process {
    /// `None` if it was killed (for running past its limit, or by a signal).
    pub exit_code: Option<i32>,
    pub seconds: f64,
    /// Killed past its limit, its wall time (what it ran for, at the least: it did not
    /// end), so that a bound on CPU time catches it.
    pub user_seconds: f64,
    pub system_seconds: f64,
    /// Peak resident memory, MB: the command's own.
    pub peak_mb: u64,
}

impl Process {
    /// Its CPU time, user and system: what it cost whatever else the machine did.
    pub fn cpu_seconds(&self) -> f64 {
        self.user_seconds + self.system_seconds
    }
}

/// When this binary was started as [`measure`]'s wrapper: runs the command its arguments
/// name, writes the command's status and usage to the report file, and exits. Otherwise
/// returns at once. Call it first in `main`.
pub fn wrap_if_asked() {
    let Some(report) = std::env::var_os(WRAPPER_REPORT) else { return };
    let limit = Duration::from_millis(std::env::var(WRAPPER_LIMIT_MS).ok().and_then(|ms| ms.parse().ok()).expect("a limit"));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let started = Instant::now();
    let child = Command::new(&args[0]).args(&args[1..]).env_remove(WRAPPER_REPORT).env_remove(WRAPPER_LIMIT_MS).spawn().expect("the measured command starts");
    let pid = child.id() as libc::pid_t;
    let (mut status, mut killed) = (0, false);
    // SAFETY: `rusage` is plain data, filled in by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: a system call about our own child, which only this loop reaps; polling
        // (`WNOHANG`) lets the same thread kill it past `limit`, so a pid is never
        // signalled after it is reaped.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            break;
        }
        assert_eq!(reaped, 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if !killed && started.elapsed() > limit {
            // SAFETY: as above: the child is not reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status).to_string() } else { "killed".to_owned() };
    let cpu = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // Killed past its limit, it did not end: its wall time counts as CPU time at the least.
    let user = if killed { cpu(usage.ru_utime).max(started.elapsed().as_secs_f64()) } else { cpu(usage.ru_utime) };
    let line = format!("{code} {user} {} {}", cpu(usage.ru_stime), usage.ru_maxrss);
    std::fs::write(PathBuf::from(report), line).expect("the report is written");
    std::process::exit(0);
}

/// Runs `command` to its end (killed after `limit` of wall time; its stdout dropped, its
/// stderr shown if it fails) and measures it: its own CPU time and peak memory, not what
/// it inherited. Pitfall: the binary calling this must call [`wrap_if_asked`] first in
/// its `main`, and `command` must not clear its environment (its variables set or removed
/// are carried over).
pub fn measure(command: Command, limit: Duration) -> Process {
    let report = tempfile::NamedTempFile::new().expect("a report file");
    let mut wrapper = Command::new(std::env::current_exe().expect("this binary's path"));
    wrapper.env(WRAPPER_REPORT, report.path()).env(WRAPPER_LIMIT_MS, limit.as_millis().to_string());
    wrapper.arg(command.get_program()).args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => wrapper.env(name, value),
            None => wrapper.env_remove(name),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapper.current_dir(dir);
    }
    let started = Instant::now();
    // Its own process group: should the wrapper itself not end (it kills the command past
    // `limit`), the whole group is killed.
    let mut child = wrapper.process_group(0).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the process starts");
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        text
    });
    let backstop = 2 * limit + Duration::from_secs(60);
    while child.try_wait().expect("the wrapper can be waited for").is_none() {
        if started.elapsed() > backstop {
            // SAFETY: the group of our own child, not reaped yet.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            child.wait().expect("the wrapper is reaped");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let seconds = started.elapsed().as_secs_f64();
    let errors = errors.join().unwrap_or_default();
    let said = std::fs::read_to_string(report.path()).unwrap_or_default();
    let process = match said.split_whitespace().collect::<Vec<_>>()[..] {
        [code, user, system, peak_kb] => Process {
            exit_code: code.parse().ok(),
            seconds,
            user_seconds: user.parse().expect("seconds"),
            system_seconds: system.parse().expect("seconds"),
            peak_mb: peak_kb.parse::<u64>().expect("KB") / 1024,
        },
        _ => panic!("the measuring wrapper reported nothing after {seconds:.1} s: {errors}"),
    };
    if process.exit_code != Some(0) {
        eprintln!("{errors}");
    }
    process
}
