//! bugrank_harness: what a problem's Rust harness writes its results with.
//!
//! In a function-level assignment the students hand in functions, not programs: the
//! problem's harness (`harness.rs`) is the crate's root and the program's `main`. It
//! declares the hand-in as `mod answer;`, reads the test input (typically one command a
//! line), calls `answer::…`, and writes what came back with `outln!` or [`write`].
//!
//! What it writes there is the program's output, the one judged: a stream of its own,
//! which the student's code does not write to. A student's `println!` goes to stdout as
//! usual and is not judged. Hand-ins are compiled with the cfg `bugrank_harness`.
//!
//! ```ignore
//! mod answer;
//! mod bugrank_harness;
//!
//! fn main() {
//!     let mut counter = answer::Counter::new();
//!     for line in std::io::stdin().lines().map_while(Result::ok) {
//!         match line.split_whitespace().collect::<Vec<_>>().as_slice() {
//!             ["add", n] => { counter.add(n.parse().unwrap()); outln!("ok"); }
//!             ["total"] => outln!("{}", counter.total()),
//!             _ => outln!("?"),
//!         }
//!     }
//! }
//! ```
//!
//! Write one output line per input line: bug lists then show a failing test as the calls
//! in order, each beside what the reference and the hand-in gave. Built natively
//! (`rustc harness.rs`), the output goes to stdout.
#![allow(dead_code)]

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "bugrank")]
extern "C" {
    #[link_name = "output"]
    fn host_output(data: *const u8, len: usize) -> i32;
}

/// Writes `bytes` to the judged output.
pub fn write(bytes: &[u8]) {
    #[cfg(target_arch = "wasm32")]
    // SAFETY: the host reads `len` bytes from `data`, which `bytes` holds.
    unsafe {
        host_output(bytes.as_ptr(), bytes.len());
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(bytes).and_then(|()| stdout.flush());
    }
}

/// `println!` to the judged output: one write (one host call) per line.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::bugrank_harness::write(b"\n")
    };
    ($($arg:tt)*) => {{
        let mut line = format!($($arg)*);
        line.push('\n');
        $crate::bugrank_harness::write(line.as_bytes());
    }};
}
