//! `cargo bench -p web --bench workers [-- ANALYSES]`: analyses shared out to `bugrank
//! worker` processes over one PostgreSQL database.
//!
//! A throwaway PostgreSQL server (as in the tests), `bugrank serve --workers 0` with the
//! interval-sets cohort, and ANALYSES (default 12) analyses queued with seeds 1, 2, ...;
//! then one worker process, or two, each `--threads 1`, take them. Prints the seconds from
//! the workers' start to the last analysis done, for one and for two workers (each on a
//! fresh database and data folders, so neither finds the other's compiled modules), and
//! the ratio.

#[path = "../tests/service/common.rs"]
#[allow(dead_code)]
mod common;
#[path = "../tests/service/postgres.rs"]
#[allow(dead_code)]
mod postgres;

use std::process::{Child, Stdio};
use std::time::Instant;

use common::{Client, Service, run_analysis, service_with_cohort};

fn on_postgres() -> bool {
    true
}

/// Killed when dropped.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Seconds for `workers` worker processes to run `analyses` analyses.
fn run(workers: usize, analyses: usize) -> f64 {
    let (data, first, _, batch) = service_with_cohort("interval-sets");
    let password = first.password.clone();
    drop(first);
    // Pages only: the analyses queued below wait for the workers.
    let service = Service::start(data.path(), &["--workers", "0"]);
    let mut client = Client::new(&service.url);
    assert_eq!(client.login("instructor", &password), 303);
    let ids: Vec<i64> = (1..=analyses).map(|seed| run_analysis(&client, batch, &[("seed", &seed.to_string())])).collect();
    let started = Instant::now();
    let _workers: Vec<Worker> = (0..workers)
        .map(|n| {
            let child = common::bugrank(data.path())
                .args(["worker", "--threads", "1", "--data"])
                .arg(data.path().join(format!("worker-{n}")))
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            Worker(child)
        })
        .collect();
    for id in ids {
        assert_eq!(client.wait_for_analysis(id)["analysis"]["status"], "done");
    }
    started.elapsed().as_secs_f64()
}

fn main() {
    let analyses: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(12);
    let one = run(1, analyses);
    println!("{analyses} analyses (interval-sets, seeds 1 to {analyses}), 1 worker process (--threads 1): {one:.1} s");
    let two = run(2, analyses);
    println!("{analyses} analyses, 2 worker processes (--threads 1 each): {two:.1} s");
    println!("ratio 2 workers / 1 worker: {:.2}x the time ({:.2}x the throughput)", two / one, one / two);
}
