//! `cargo bench -p web --bench serve_load`: a load test of `bugrank serve` on loopback.
//!
//! The release binary serves the interval-sets cohort. Client threads with keep-alive
//! connections request an instructor's analysis page and a student's page in turn,
//! bounded in count and time; first with the service idle (the baseline), then while an
//! analysis runs on the worker pool. Prints requests per second and latency percentiles
//! for each page and the ratios of the loaded run to the baseline.
//!
//! The default run measures it all twice, on SQLite (the default store) and on PostgreSQL
//! (a throwaway server, as in the tests), and prints the ratios of PostgreSQL's latencies
//! to SQLite's.
//!
//! `cargo bench -p web --bench serve_load -- --class N`: the same at class scale. A class of
//! N distinct submissions (`support/class_of.rs`) is uploaded as one zip with its roster,
//! then analysed while the clients load the pages; prints the seconds of the upload
//! request, of the analysis (its modules compiled, none before), and the page latencies
//! during it against the idle baseline.

#[path = "../tests/service/common.rs"]
#[allow(dead_code)]
mod common;
#[path = "../tests/service/postgres.rs"]
#[allow(dead_code)]
mod postgres;

/// The store under the service in the current run: SQLite, then PostgreSQL.
static ON_POSTGRES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn on_postgres() -> bool {
    ON_POSTGRES.load(std::sync::atomic::Ordering::Relaxed)
}

use std::time::{Duration, Instant};

#[path = "support/class_of.rs"]
#[allow(dead_code)] // (python_class, function_class, function_c_class and their problems: the class bench's)
mod class_of;

use common::{COURSE, Client, Service, issue_link, run_analysis, service_with_cohort, upload_problem, zip};

/// Concurrent clients: more than the service's HTTP workers (one per core).
const CLIENTS: usize = 8;
/// Requests per client and phase, at most...
const REQUESTS_PER_CLIENT: usize = 2500;
/// ...and for at most this long.
const PHASE_LIMIT: Duration = Duration::from_secs(20);

struct Measured {
    requests: usize,
    seconds: f64,
    /// Latencies in milliseconds per page, sorted.
    latencies: Vec<(String, Vec<f64>)>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Runs the clients: each alternates between `pages`, with its own connection.
fn load(url: &str, password: &str, pages: &[(&str, String)]) -> Measured {
    let started = Instant::now();
    let results: Vec<Vec<(usize, f64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|c| {
                scope.spawn(move || {
                    let mut client = Client::new(url);
                    // At most `MAX_PASSWORD_CHECKS` logins are checked at once; the others are
                    // told to try again (429), as a browser's user would.
                    let mut status = client.login("instructor", password);
                    while status == 429 {
                        std::thread::sleep(Duration::from_millis(200));
                        status = client.login("instructor", password);
                    }
                    assert_eq!(status, 303);
                    let mut seen = Vec::new();
                    for i in 0..REQUESTS_PER_CLIENT {
                        if started.elapsed() > PHASE_LIMIT {
                            break;
                        }
                        let page = (c + i) % pages.len();
                        let sent = Instant::now();
                        let reply = client.get(&pages[page].1);
                        assert_eq!(reply.status, 200, "{}", pages[page].1);
                        seen.push((page, sent.elapsed().as_secs_f64() * 1000.0));
                    }
                    seen
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut latencies: Vec<(String, Vec<f64>)> = pages.iter().map(|(name, _)| (name.to_string(), Vec::new())).collect();
    for (page, ms) in results.into_iter().flatten() {
        latencies[page].1.push(ms);
    }
    for (_, l) in &mut latencies {
        l.sort_by(f64::total_cmp);
    }
    Measured { requests: latencies.iter().map(|(_, l)| l.len()).sum(), seconds, latencies }
}

fn report(phase: &str, m: &Measured) {
    println!("{phase}: {} requests in {:.1} s = {:.0} req/s", m.requests, m.seconds, m.requests as f64 / m.seconds);
    for (page, l) in &m.latencies {
        println!(
            "  {page:<14} n={:<5} p50 {:>7.2} ms  p90 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms",
            l.len(),
            percentile(l, 0.5),
            percentile(l, 0.9),
            percentile(l, 0.99),
            l[l.len() - 1]
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(n) = args.iter().position(|a| a == "--class").and_then(|i| args.get(i + 1)?.parse().ok()) {
        return class(n);
    }
    let mut runs = Vec::new();
    for (backend, postgres) in [("SQLite", false), ("PostgreSQL", true)] {
        ON_POSTGRES.store(postgres, std::sync::atomic::Ordering::Relaxed);
        println!("== {backend}");
        runs.push((backend, idle_and_loaded()));
    }
    let [(_, (sqlite_idle, sqlite_loaded)), (_, (pg_idle, pg_loaded))] = &runs[..] else { unreachable!() };
    for (phase, sqlite, pg) in [("idle", sqlite_idle, pg_idle), ("while an analysis runs", sqlite_loaded, pg_loaded)] {
        for page in 0..2 {
            let (name, s) = &sqlite.latencies[page];
            let p = &pg.latencies[page].1;
            println!(
                "PostgreSQL/SQLite, {phase}, {name}: p50 {:.2}x ({:.2} / {:.2} ms), p99 {:.2}x ({:.2} / {:.2} ms)",
                percentile(p, 0.5) / percentile(s, 0.5),
                percentile(p, 0.5),
                percentile(s, 0.5),
                percentile(p, 0.99) / percentile(s, 0.99),
                percentile(p, 0.99),
                percentile(s, 0.99)
            );
        }
    }
}

/// The two phases on the current store: the idle baseline, then with an analysis running.
fn idle_and_loaded() -> (Measured, Measured) {
    let (_data, service, client, batch) = service_with_cohort("interval-sets");
    let analysis = run_analysis(&client, batch, &[("seed", "1")]);
    assert_eq!(client.wait_for_analysis(analysis)["analysis"]["status"], "done");
    let link = issue_link(&client, batch, "a05");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let pages = [("analysis page", format!("/analyses/{analysis}")), ("student page", link)];

    let idle = load(&service.url, &service.password, &pages);
    report("idle service (baseline)", &idle);

    // Long analyses (every one of the problem's 200,000 tests, one after another) keep the
    // worker pool (every core) busy during the second phase.
    let busy: Vec<i64> =
        (2..6).map(|seed| run_analysis(&client, batch, &[("seed", &seed.to_string()), ("stable_after", "1000000"), ("mode", "full")])).collect();
    while client.api(&format!("/api/analyses/{}", busy[0]))["analysis"]["status"] != "running" {
        std::thread::sleep(Duration::from_millis(20));
    }
    let loaded = load(&service.url, &service.password, &pages);
    let last = client.api(&format!("/api/analyses/{}", busy[3]));
    assert!(matches!(last["analysis"]["status"].as_str(), Some("queued" | "running")), "the analyses ran throughout: {:#}", last["analysis"]);
    let done = busy.iter().filter(|id| client.api(&format!("/api/analyses/{id}"))["analysis"]["status"] == "done").count();
    report("while analyses run", &loaded);
    println!(
        "ratio loaded/idle: throughput {:.2}x; p99 analysis page {:.2}x, student page {:.2}x; {done} of the analyses finished meanwhile",
        (loaded.requests as f64 / loaded.seconds) / (idle.requests as f64 / idle.seconds),
        percentile(&loaded.latencies[0].1, 0.99) / percentile(&idle.latencies[0].1, 0.99),
        percentile(&loaded.latencies[1].1, 0.99) / percentile(&idle.latencies[1].1, 0.99),
    );
    (idle, loaded)
}

/// The class-scale run: upload N submissions, analyse them while the pages are loaded.
fn class(n: usize) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let (modules, roster) = class_of::class(n);
    let archive = zip(&modules.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice())).collect::<Vec<_>>());
    let sent = Instant::now();
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "Class"), ("course", COURSE)],
        &[("modules", "class.zip", &archive), ("roster", "roster.csv", roster.as_bytes())],
    );
    let upload_seconds = sent.elapsed().as_secs_f64();
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "{upload:#}");
    let batch = upload["batch"].as_i64().unwrap();
    println!("upload of {n} submissions ({:.1} MB zip), checked and saved: {upload_seconds:.1} s", archive.len() as f64 / 1e6);

    let pages = [("batch page", format!("/batches/{batch}")), ("problem page", format!("/problems/{problem}"))];
    let idle = load(&service.url, &service.password, &pages);
    report("idle service (baseline)", &idle);
    let started = Instant::now();
    let analysis = run_analysis(&client, batch, &[("seed", "1")]);
    let loaded = load(&service.url, &service.password, &pages);
    report("while the analysis runs (its first 20 s)", &loaded);
    let done = client.wait_for_analysis(analysis);
    assert_eq!(done["analysis"]["status"], "done", "{done:#}");
    println!("analysis of {n} submissions (compiling them first): {:.1} s", started.elapsed().as_secs_f64());
    println!(
        "ratio loaded/idle: p99 batch page {:.2}x, problem page {:.2}x",
        percentile(&loaded.latencies[0].1, 0.99) / percentile(&idle.latencies[0].1, 0.99),
        percentile(&loaded.latencies[1].1, 0.99) / percentile(&idle.latencies[1].1, 0.99),
    );
}
