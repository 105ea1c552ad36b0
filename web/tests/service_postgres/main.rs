//! `bugrank serve` end to end on PostgreSQL: the service's tests (`tests/service`) again,
//! each service with its own database on a throwaway PostgreSQL server
//! (`service/postgres.rs`). The browser test is left out: it drives the same pages, and
//! the store under them is what differs here.

#[path = "../service/bad_uploads.rs"]
mod bad_uploads;
#[path = "../service/batches.rs"]
mod batches;
#[path = "../service/common.rs"]
mod common;
#[path = "../service/fairness.rs"]
mod fairness;
#[path = "../service/flow.rs"]
mod flow;
#[path = "../service/hardening.rs"]
mod hardening;
#[path = "../service/postgres.rs"]
mod postgres;
#[path = "../service/restart.rs"]
mod restart;
#[path = "../service/sources.rs"]
mod sources;

/// These tests run the service on PostgreSQL.
fn on_postgres() -> bool {
    true
}

#[test]
fn a_service_on_postgres_keeps_its_store_in_the_database_not_in_the_data_directory() {
    let (data, _service, client, batch) = common::service_with_cohort("interval-sets");
    assert!(!data.path().join("bugrank.sqlite").exists(), "no SQLite store beside the PostgreSQL one");
    let server = postgres::Postgres::shared();
    let count = |table: &str| server.query(data.path(), &format!("SELECT count(*) FROM {table}"));
    assert_eq!(count("submissions"), "19", "the cohort's 19 submissions are rows");
    assert_eq!(count("batches"), "1");
    let api = client.api(&format!("/api/batches/{batch}"));
    assert_eq!(api["submissions"].as_array().unwrap().len(), 19);
}
