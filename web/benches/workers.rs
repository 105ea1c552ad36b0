//! `cargo bench -p web --bench workers [-- ANALYSES]`: analyses shared out to `bugrank
//! worker` processes over one PostgreSQL database.
//!
//! A throwaway PostgreSQL server (as in the tests), `bugrank serve --workers 0` with the
//! interval-sets cohort, and ANALYSES (default 12) analyses queued with seeds 1, 2, ...;
//! then one worker process, or two, each `--threads 1`, take them. Prints the seconds from
//! the workers' start to the last analysis done, for one and for two workers (each on a
//! fresh database and data folders, so neither finds the other's compiled modules), and
//! the ratio.
//!
//! `cargo bench -p web --bench workers -- large [STABLE_AFTER]`: one large analysis over
//! one worker process or two (issue 45.3): the search cohort's 167 Python hand-ins
//! (`fixtures/cohorts/search`), seed 1, `stable_after` STABLE_AFTER (default 100), taken by
//! the first worker while the second makes shards of its rounds. Prints the seconds from
//! the workers' start to the analysis done, each figure's runs made elsewhere, and the
//! ratio; the two analyses must be the same, byte for byte.

#[path = "../tests/service/common.rs"]
#[allow(dead_code)]
mod common;
#[path = "../tests/service/postgres.rs"]
#[allow(dead_code)]
mod postgres;

use std::process::{Child, Stdio};
use std::time::Instant;

use common::{Client, Service, run_analysis, service_with_cohort, upload_ready};

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

/// The search cohort as a problem bundle and a batch of sources.
fn search_cohort() -> (Vec<u8>, Vec<u8>) {
    let dir = common::root().join("fixtures/cohorts/search");
    let problem: Vec<(String, Vec<u8>)> =
        course::problem_dir::PROBLEM_FILES.iter().filter_map(|f| Some((format!("search/{f}"), std::fs::read(dir.join(f)).ok()?))).collect();
    let mut sources: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("submissions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    sources.sort();
    let zip = |files: &[(String, Vec<u8>)]| common::zip(&files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    (zip(&problem), zip(&sources))
}

/// Seconds for `workers` worker processes to run one analysis of the search cohort, the
/// runs and bug lists the second made, and its `analysis.json` and bug lists.
fn large(workers: usize, stable_after: u64) -> (f64, u64, String) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &["--workers", "0"]);
    let client = service.instructor();
    let (problem, sources) = search_cohort();
    let problem = upload_ready(&client, "search.zip", &problem);
    let reply =
        client.upload(&format!("/problems/{problem}/batches"), &[("name", "Search"), ("course", common::COURSE)], &[("modules", "search.zip", &sources)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", &stable_after.to_string())]);
    let started = Instant::now();
    let _workers: Vec<Worker> = (0..workers)
        .map(|n| {
            // (Each worker has made CPython's snapshot before, as any has after its first
            // Python analysis: some 7 s once.)
            let own = data.path().join(format!("worker-{n}"));
            common::with_python_snapshot(&own);
            let child =
                common::bugrank(data.path()).args(["worker", "--threads", "1", "--workers", "1", "--data"]).arg(own).stdout(Stdio::null()).spawn().unwrap();
            Worker(child)
        })
        .collect();
    let (mut elsewhere, mut phase, mut phases) = (0, String::new(), Vec::new());
    loop {
        let view = client.api(&format!("/api/analyses/{id}"));
        elsewhere = view["progress"]["runs_elsewhere"].as_u64().unwrap_or(elsewhere);
        if let Some(now) = view["progress"]["phase"].as_str().filter(|now| *now != phase) {
            phase = now.to_owned();
            phases.push(format!("{phase} from {:.1} s", started.elapsed().as_secs_f64()));
        }
        match view["analysis"]["status"].as_str().unwrap() {
            "queued" | "running" => std::thread::sleep(std::time::Duration::from_millis(200)),
            status => {
                assert_eq!(status, "done", "{view:#}");
                break;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("  {workers} workers: {}", phases.join(", "));
    let lists = client.api(&format!("/api/analyses/{id}"))["bug_lists"].to_string();
    (seconds, elsewhere, client.get(&format!("/analyses/{id}/files/analysis.json")).body + &lists)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    if let Some(mode) = args.next().filter(|a| a == "large") {
        let stable_after: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
        let (one, _, alone) = large(1, stable_after);
        println!("one analysis ({mode}: the search cohort, 167 Python hand-ins, stable_after {stable_after}), 1 worker process (--threads 1): {one:.1} s");
        let (two, elsewhere, shared) = large(2, stable_after);
        println!("the same analysis, 2 worker processes (--threads 1 each): {two:.1} s, {elsewhere} runs and bug lists made by the second (as last reported)");
        assert_eq!(shared, alone, "the same analysis, byte for byte, and the same bug lists");
        println!("speed-up with 2 workers: {:.2}x", one / two);
        return;
    }
    let analyses: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(12);
    let one = run(1, analyses);
    println!("{analyses} analyses (interval-sets, seeds 1 to {analyses}), 1 worker process (--threads 1): {one:.1} s");
    let two = run(2, analyses);
    println!("{analyses} analyses, 2 worker processes (--threads 1 each): {two:.1} s");
    println!("ratio 2 workers / 1 worker: {:.2}x the time ({:.2}x the throughput)", two / one, one / two);
}
