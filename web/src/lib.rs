//! The `bugrank` program: its command line and its web service. This library holds
//! everything the binary does, so that end-to-end tests can drive it in-process.
//!
//! This crate is the edge of the system: it reads problem directories, batches and rosters,
//! runs programs through the sandbox, and writes results. The method itself is `grader`'s.

pub mod bugs;
pub mod demo;
pub mod executor;
pub mod grade;
pub mod problem;
pub mod report;
pub mod serve;
pub mod stability;
pub mod submissions;
pub mod tests_cmd;
