//! The queue survives a crash; a running analysis can be cancelled.

use crate::common::{Client, Service, cpu_spent, run_analysis, service_with_cohort, upload_cohort, upload_problem, wait_until_running};

#[test]
fn a_service_killed_during_an_analysis_loses_nothing_and_finishes_it_after_a_restart() {
    let (data, service, client, batch) = service_with_cohort("interval-sets");
    let password = service.password.clone();
    let queued = run_analysis(&client, batch, &[("seed", "3"), ("stable_after", "40000")]);
    let waiting = run_analysis(&client, batch, &[("seed", "4"), ("stable_after", "500")]);
    wait_until_running(&client, queued);
    let before = client.api(&format!("/api/batches/{batch}"));
    service.kill();

    let service = Service::start(data.path(), &[]);
    assert!(service.password.is_empty(), "the account is still there: no new one is made");
    let mut client = Client::new(&service.url);
    assert_eq!(client.login("instructor", &password), 303);
    let after = client.api(&format!("/api/batches/{batch}"));
    assert_eq!(after["submissions"], before["submissions"], "every accepted upload is still there");
    assert_eq!(after["roster"], before["roster"]);
    for id in [queued, waiting] {
        let done = client.wait_for_analysis(id);
        assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
        assert_eq!(done["bug_lists"].as_array().unwrap().len(), 19);
    }
}

#[test]
fn a_running_analysis_can_be_cancelled() {
    // One analysis at a time besides the express worker, so that a third waits.
    let data = tempfile::tempdir().unwrap();
    let _service = Service::start(data.path(), &["--workers", "1"]);
    let client = _service.instructor();
    let batch = upload_cohort(&client, upload_problem(&client, "interval-sets"), "interval-sets");
    let running = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    // (A batch of 19 hand-ins: the express worker takes the second analysis; the third waits.)
    let express = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    let queued = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    let view = wait_until_running(&client, running);
    wait_until_running(&client, express);
    // The page says in words where the analysis is; no one knows how long a search
    // will last (a new bug restarts its count), so it shows no time left and no share done.
    let progress = &view["progress"];
    let text = progress["text"].as_str().unwrap();
    assert!(text.starts_with("searching for bugs: ") || text.starts_with("shrinking test "), "{progress:#}");
    assert!(progress["remaining"].is_null() && progress["percent"].is_null(), "{progress:#}");
    let page = client.get(&format!("/analyses/{running}"));
    assert!(page.body.contains("<progress id=\"bar\" max=\"100\"></progress>") && !page.body.contains(" left"), "{}", page.body);
    assert_eq!(client.post(&format!("/analyses/{queued}/cancel"), &[]).status, 303);
    assert_eq!(client.api(&format!("/api/analyses/{queued}"))["analysis"]["status"], "cancelled");
    let (ended, cpu) = cpu_spent(_service.pid(), || {
        assert_eq!(client.post(&format!("/analyses/{running}/cancel"), &[]).status, 303);
        client.wait_for_analysis(running)
    });
    assert_eq!(ended["analysis"]["status"], "cancelled");
    // Within the runs in flight, a fraction of a second of CPU (the express analysis on
    // the other thread runs on meanwhile); this bound only catches a cancel that waits for
    // the search to notice. In CPU time, which a busy machine does not stretch.
    assert!(cpu < 5.0, "the service worked {cpu:.1} s of CPU from the cancel to its end");
    let again = client.post(&format!("/analyses/{running}/cancel"), &[]);
    assert_eq!(again.status, 400);
    assert!(again.body.contains("is not running"), "{}", again.body);
    assert_eq!(client.post(&format!("/analyses/{express}/cancel"), &[]).status, 303);
    assert_eq!(client.wait_for_analysis(express)["analysis"]["status"], "cancelled");
}

#[test]
fn an_analysis_interrupted_three_times_is_failed_with_the_reason_instead_of_requeued_for_ever() {
    let (data, mut service, client, batch) = service_with_cohort("interval-sets");
    let password = service.password.clone();
    let id = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    let mut holder = wait_until_running(&client, id)["analysis"]["holder"].clone();
    for _ in 1..3 {
        service.kill();
        service = Service::start(data.path(), &[]);
        let mut client = Client::new(&service.url);
        assert_eq!(client.login("instructor", &password), 303);
        // On PostgreSQL the row names the killed process until its lease runs out: the
        // interruption counts once the new process holds it.
        holder = loop {
            let now = wait_until_running(&client, id)["analysis"]["holder"].clone();
            if now != holder {
                break now;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
    }
    service.kill();
    let service = Service::start(data.path(), &[]);
    let mut client = Client::new(&service.url);
    assert_eq!(client.login("instructor", &password), 303);
    // At once on SQLite (requeued at start-up); on PostgreSQL when the lease runs out.
    let view = client.wait_for_analysis(id);
    assert_eq!(view["analysis"]["status"], "failed", "{:#}", view["analysis"]);
    assert!(view["analysis"]["error"].as_str().unwrap().contains("3 times"), "{:#}", view["analysis"]);
}

#[test]
fn a_second_service_on_the_same_data_refuses_to_start_and_touches_nothing() {
    let (data, _service, client, batch) = service_with_cohort("interval-sets");
    let running = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    wait_until_running(&client, running);
    let second = crate::common::bugrank(data.path()).args(["serve", "--bind", "127.0.0.1:0", "--no-demo", "--data"]).arg(data.path()).output().unwrap();
    assert!(!second.status.success());
    let message = String::from_utf8_lossy(&second.stderr);
    assert!(message.contains("another bugrank process (serve or worker) is using"), "{message}");
    let view = client.api(&format!("/api/analyses/{running}"));
    assert_eq!(view["analysis"]["status"], "running", "the first service's analysis is left alone");
    assert_eq!(client.post(&format!("/analyses/{running}/cancel"), &[]).status, 303);
}
