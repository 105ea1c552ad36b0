//! `bugrank serve` end to end: the real process on port 0 with a temporary data
//! directory, driven over HTTP (and, in `browser`, by headless Chromium, on a module batch
//! and a C-source batch). `common.rs` is the client, also used by the load bench. Covered:
//! the main flow and every route a student could try, bad uploads, late submissions,
//! SIGKILL and restart, cancel, demo data, a zip of sources with a hostile `#include`.
//!
//! No test bounds wall time for promptness: a cancel is bounded by the CPU its process
//! spent (`common::cpu_spent`), an answer under attack by a multiple of the same answer
//! measured just before (`raw.rs`'s `answer_bound`) (issue 51; `.ci/loaded` runs the test
//! suite beside a busy loop on every core).

mod bad_uploads;
mod batches;
mod browser;
mod common;
mod fairness;
mod flow;
mod grades;
mod hand_ins;
mod hardening;
mod isolation;
mod lms;
mod lti;
#[allow(dead_code)] // the PostgreSQL tests' server: only `service_postgres` starts it
mod postgres;
mod restart;
mod sources;

/// These tests run the service on SQLite, its default store (`service_postgres` runs
/// them on PostgreSQL).
fn on_postgres() -> bool {
    false
}
