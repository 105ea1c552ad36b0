//! `bugrank serve` end to end: the real process on port 0 with a temporary data
//! directory, driven over HTTP (and, in `browser`, by headless Chromium).

mod bad_uploads;
mod batches;
mod browser;
mod common;
mod fairness;
mod flow;
mod grades;
mod hardening;
mod isolation;
#[allow(dead_code)] // the PostgreSQL tests' server: only `service_postgres` starts it
mod postgres;
mod restart;
mod sources;

/// These tests run the service on SQLite, its default store (`service_postgres` runs
/// them on PostgreSQL).
fn on_postgres() -> bool {
    false
}
