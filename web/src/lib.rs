//! The `bugrank` program: its command line and its web service. This library holds
//! everything the binary does, so that end-to-end tests can drive it in-process.
//!
//! This crate is the edge of the system: it turns arguments and requests into calls of
//! `course` (which grades a batch, the same for both) and prints, stores or serves what
//! comes back. The method itself is `grader`'s.

pub mod cli;
pub mod demo_data;
pub mod serve;
