//! Runs a child process to its end and measures it: wall time, CPU time, peak memory.
//! Shared by the adversarial corpus and the class benchmark (`benches/class.rs`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished process cost.
pub struct Process {
    /// `None` if it was killed (for running past its limit, or by a signal).
    pub exit_code: Option<i32>,
    pub seconds: f64,
    pub user_seconds: f64,
    pub system_seconds: f64,
    /// Peak resident memory, MB.
    pub peak_mb: u64,
}

impl Process {
    /// Its CPU time, user and system: what it cost whatever else the machine did.
    pub fn cpu_seconds(&self) -> f64 {
        self.user_seconds + self.system_seconds
    }
}

/// Runs `command` to its end (killed after `limit`, its stdout dropped, its stderr shown
/// if it fails) and measures it.
///
/// A child's peak memory (`ru_maxrss`) starts from the peak of the process it is spawned
/// from, so this process first gives back its free memory and resets its own peak
/// (`clear_refs` 5): what is measured is the child's, or this process's current few MB.
pub fn measure(mut command: Command, limit: Duration) -> Process {
    // SAFETY: returns free heap pages to the kernel; no memory in use is touched.
    unsafe { libc::malloc_trim(0) };
    std::fs::write("/proc/self/clear_refs", "5").expect("the peak resident memory can be reset (Linux 4.0)");
    let started = Instant::now();
    // Reaped below by `wait4`, which also gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the process starts");
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        text
    });
    let mut status = 0;
    // SAFETY: `rusage` is plain data, filled in by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    loop {
        // SAFETY: a system call about our own child, which only this loop reaps; polling
        // (`WNOHANG`) lets the same thread kill it if it runs past `limit`, so a pid is
        // never signalled after it is reaped.
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
    let seconds = started.elapsed().as_secs_f64();
    let errors = errors.join().unwrap_or_default();
    let exit_code = if libc::WIFEXITED(status) { Some(libc::WEXITSTATUS(status)) } else { None };
    if exit_code != Some(0) {
        eprintln!("{errors}");
    }
    let cpu = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Process { exit_code, seconds, user_seconds: cpu(usage.ru_utime), system_seconds: cpu(usage.ru_stime), peak_mb: usage.ru_maxrss as u64 / 1024 }
}
