//! `bugrank serve` end to end on PostgreSQL: the service's tests (`tests/service`) again,
//! but those that do not depend on the store (the browser's clicks, connection hardening),
//! each service with its own database on a throwaway PostgreSQL server
//! (`service/postgres.rs`), and what only PostgreSQL allows: several processes on one
//! database (the multi-process test kills a `bugrank worker` mid-analysis). `schemas.rs`
//! compares a new database's schema with a new SQLite store's, naming each difference.

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
#[path = "../service/grades.rs"]
mod grades;
#[path = "../service/hand_ins.rs"]
mod hand_ins;
#[path = "../service/lms.rs"]
mod lms;
#[path = "../service/lti.rs"]
mod lti;
#[path = "../service/postgres.rs"]
mod postgres;
#[path = "../service/restart.rs"]
mod restart;
mod schemas;
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

/// A `bugrank worker` process on the service's database, killed (SIGKILL) when dropped.
struct Worker(std::process::Child);

impl Worker {
    /// A worker with its own data directory `own`, CPython's snapshot already in it.
    fn start(service_data: &std::path::Path, own: &std::path::Path, options: &[&str]) -> Worker {
        common::with_python_snapshot(own);
        let child = common::bugrank(service_data)
            // (One analysis at a time besides the express worker: which takes what is then
            // known.)
            .args(["worker", "--threads", "1", "--workers", "1", "--data"])
            .arg(own)
            .args(options)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("bugrank worker starts");
        Worker(child)
    }

    /// What the analysis page names as the holder of an analysis this worker runs.
    fn holds(&self, view: &serde_json::Value) -> bool {
        view["analysis"]["holder"].as_str().is_some_and(|h| h.contains(&format!("(pid {},", self.0.id())))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls the analysis until `done` holds of its view; the view then.
fn poll(client: &common::Client, id: i64, what: &str, done: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let view = client.api(&format!("/api/analyses/{id}"));
        if done(&view) {
            return view;
        }
        assert!(std::time::Instant::now() < deadline, "analysis {id}: {what}, not after 5 minutes: {:#}", view["analysis"]);
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_worker_killed_mid_analysis_loses_it_to_another_worker_that_finishes_it_the_same() {
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("serve");
    // Pages only: the analyses are the workers'.
    let service = common::Service::start(&data, &["--workers", "0"]);
    let client = service.instructor();
    let problem = common::upload_problem(&client, "interval-sets");
    let batch = common::upload_cohort(&client, problem, "interval-sets");
    let uploaded = client.api(&format!("/api/batches/{batch}"));
    // One long analysis (some 10 s on one thread), two short ones.
    let runs = [("1", "80000"), ("2", "2000"), ("3", "2000")];
    let ids: Vec<i64> = runs.iter().map(|(seed, stable)| common::run_analysis(&client, batch, &[("seed", seed), ("stable_after", stable)])).collect();

    let first = Worker::start(&data, &temp.path().join("first"), &[]);
    let running = poll(&client, ids[0], "taken by the first worker", |v| first.holds(v));
    // Either of its workers may take it: the express one too, for a class this small.
    let holder = running["analysis"]["holder"].as_str().unwrap();
    assert!(holder.contains(", worker 0)") || holder.contains(", worker 1) (express)"), "{:#}", running["analysis"]);
    let page = client.get(&format!("/analyses/{}", ids[0]));
    assert!(!page.body.contains("(pid "), "where it runs is for the JSON (operators), not the instructor's page");
    let second = Worker::start(&data, &temp.path().join("second"), &[]);
    for &id in &ids[1..] {
        assert_eq!(client.wait_for_analysis(id)["analysis"]["status"], "done");
    }
    let still = client.api(&format!("/api/analyses/{}", ids[0]));
    assert!(first.holds(&still) && still["analysis"]["status"] == "running", "the long analysis is mid-way: {:#}", still["analysis"]);

    let killed = std::time::Instant::now();
    drop(first);
    poll(&client, ids[0], "taken over by the second worker", |v| second.holds(v));
    let taken_over = killed.elapsed();
    // The lease (15 s) runs out at most that long after the last heartbeat, and an idle
    // worker looks at the queue every 2 s: some 17 s on a quiet machine. Twice the lease
    // leaves a busy machine its margin and still tells the lease from any longer wait.
    let lease = std::time::Duration::from_secs(web::serve::db::LEASE_SECONDS as u64);
    assert!(taken_over < 2 * lease, "taken over after {taken_over:?}");
    let done = client.wait_for_analysis(ids[0]);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);

    // Each as the command line grades it with the same seed, byte for byte.
    let tools = course::Tools { sandbox: sandbox::Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) };
    for (&id, (seed, stable)) in ids.iter().zip(runs) {
        let mut args = web::cli::grade::GradeArgs::new(common::fixture("interval-sets"), common::fixture("interval-sets").join("submissions"));
        args.roster = Some(common::fixture("interval-sets").join("roster.csv"));
        args.seed = seed.parse().unwrap();
        args.stable_after = Some(stable.parse().unwrap());
        let graded = web::cli::grade::run_grade(&tools, &args).unwrap();
        let served = client.get(&format!("/analyses/{id}/files/analysis.json"));
        let (_, written) = graded.files().unwrap().into_iter().find(|(name, _)| *name == "analysis.json").unwrap();
        assert_eq!(served.body.as_bytes(), written, "analysis {id} (seed {seed})");
        assert_eq!(client.api(&format!("/api/analyses/{id}"))["bug_lists"].as_array().unwrap().len(), 19);
    }
    // A cancel asked on the pages' process reaches the worker that runs the analysis, and
    // that worker's progress reaches the pages.
    let long = common::run_analysis(&client, batch, &[("seed", "4"), ("stable_after", "1000000"), ("mode", "full")]);
    let running = poll(&client, long, "running with progress", |v| second.holds(v) && v["progress"]["tests_generated"].as_u64().is_some_and(|n| n > 0));
    assert!(running["progress"]["text"].as_str().is_some_and(|t| !t.is_empty()), "{:#}", running["progress"]);
    let (ended, cpu) = common::cpu_spent(second.0.id(), || {
        assert_eq!(client.post(&format!("/analyses/{long}/cancel"), &[]).status, 303);
        client.wait_for_analysis(long)
    });
    assert_eq!(ended["analysis"]["status"], "cancelled");
    // A heartbeat a second brings the cancel, then the runs in flight end: about a second
    // of the worker's thread, in CPU time, which a busy machine does not stretch.
    assert!(cpu < 5.0, "the worker worked {cpu:.1} s of CPU from the cancel to its end");

    // Started twice (by each worker), finished once; nothing uploaded is lost.
    let server = postgres::Postgres::shared();
    assert_eq!(server.query(&data, &format!("SELECT attempts, holder IS NULL FROM analyses WHERE id = {}", ids[0])), "2|t");
    let after = client.api(&format!("/api/batches/{batch}"));
    assert_eq!((&after["submissions"], &after["roster"]), (&uploaded["submissions"], &uploaded["roster"]));
}

#[test]
fn an_idle_worker_makes_runs_of_another_workers_analysis_and_killing_it_mid_analysis_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("serve");
    let service = common::Service::start(&data, &["--workers", "0"]);
    let client = service.instructor();
    let problem = common::upload_problem(&client, "interval-sets");
    // The Python cohort (a whole program's run costs some 200 µs: its rounds are long
    // enough to share with shards of about 5 ms).
    let dir = common::fixture("interval-sets").join("submissions-python");
    let mut sources: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    sources.sort();
    let archive = common::zip(&sources.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    // Each analysis of a batch of its own (a second one of the same batch is a rerun, which
    // its analysis says).
    let analyse = || {
        let reply =
            client.upload(&format!("/problems/{problem}/batches"), &[("name", "Python"), ("course", common::COURSE)], &[("modules", "python.zip", &archive)]);
        assert_eq!(reply.status, 303, "{}", reply.body);
        let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
        common::run_analysis(&client, batch, &[("seed", "3"), ("stable_after", "2000")])
    };
    let mut ids = vec![analyse()];

    let shards = ["--shard-ms", "5"];
    let first = Worker::start(&data, &temp.path().join("first"), &shards);
    poll(&client, ids[0], "taken by the first worker", |v| first.holds(v));
    let mut workers = vec![first, Worker::start(&data, &temp.path().join("second"), &shards)];
    // On a busy machine the second worker may still be starting (compiling the class,
    // making CPython's snapshot) when the first ends the analysis alone: then the same
    // analysis again, which either worker may take, the other one helping.
    let helped = loop {
        let id = *ids.last().unwrap();
        let view = poll(&client, id, "helped by the other worker, or ended", |v| {
            !matches!(v["analysis"]["status"].as_str(), Some("queued" | "running")) || v["progress"]["runs_elsewhere"].as_u64().is_some_and(|n| n > 0)
        });
        if view["analysis"]["status"] == "running" {
            break view;
        }
        assert_eq!(view["analysis"]["status"], "done", "{:#}", view["analysis"]);
        assert!(ids.len() < 4, "{} analyses ended before the idle worker made any of their runs", ids.len());
        ids.push(analyse());
    };
    let id = *ids.last().unwrap();
    let holder = workers.iter().position(|w| w.holds(&helped)).expect("one of the two workers holds the analysis");
    drop(workers.remove(1 - holder));
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let server = postgres::Postgres::shared();
    assert_eq!(server.query(&data, &format!("SELECT attempts FROM analyses WHERE id = {id}")), "1", "started once: it stays its first worker's");
    assert_eq!(server.query(&data, "SELECT count(*) FROM run_shards"), "0", "no shard is left behind");

    // As one process grades it on its own, byte for byte, and each student's bug list.
    let tools = course::Tools { sandbox: sandbox::Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) };
    let problem_dir = course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, &common::fixture("interval-sets")).unwrap();
    let class = course::Class { hand_ins: course::hand_ins::hand_ins(course::hand_ins::read_batch_dir(&dir).unwrap(), false), ..Default::default() };
    let settings = course::Settings { stable_after: Some(2000), bug_lists: true, ..course::Settings::seed(3) };
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    let graded = course::grade_batch(&tools, &problem_dir, class, &settings, &pool, &std::sync::atomic::AtomicBool::new(false), &|_| {}).unwrap();
    let (_, written) = graded.files().unwrap().into_iter().find(|(name, _)| *name == "analysis.json").unwrap();
    for &each in &ids {
        assert_eq!(client.get(&format!("/analyses/{each}/files/analysis.json")).body.as_bytes(), written, "analysis {each} of {ids:?}");
    }
    let lists: Vec<serde_json::Value> = graded.bug_lists.iter().map(|(_, list)| serde_json::from_str(list).unwrap()).collect();
    assert_eq!(client.api(&format!("/api/analyses/{id}"))["bug_lists"], serde_json::Value::Array(lists), "the bug lists, some written by the helper");
}

#[test]
fn two_services_starting_at_once_on_a_new_database_make_one_account_and_one_demo() {
    let temp = tempfile::tempdir().unwrap();
    let (first, second) = (temp.path().join("first"), temp.path().join("second"));
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let url = postgres::Postgres::shared().database_for(&first);
    let services = std::thread::scope(|scope| {
        let starting = [&first, &second].map(|data| scope.spawn(|| common::Service::start_with_demo(data, &["--database", &url])));
        starting.map(|s| s.join().unwrap())
    });
    let printed: Vec<&str> = services.iter().map(|s| s.password.as_str()).filter(|p| !p.is_empty()).collect();
    assert_eq!(printed.len(), 1, "one process made the first account and printed its password");
    for service in &services {
        let mut client = common::Client::new(&service.url);
        assert_eq!(client.login("instructor", printed[0]), 303, "the printed password works on every process");
        assert_eq!(client.api("/api/problems")["problems"].as_array().unwrap().len(), 4, "the demo's four problems, once");
    }
}
