//! Grades an instructor can defend: a late submission to a released batch moves no other
//! student's grade, and a stability check shows whether a grade depends on the seed.

use crate::common::{Client, fixture, issue_link, run_analysis, service_with_cohort};

#[test]
fn a_late_submission_to_a_released_batch_moves_no_other_grade_and_the_page_says_what_was_graded() {
    let (_data, service, client, batch) = service_with_cohort("interval-sets");
    let first = client.wait_for_analysis(run_analysis(&client, batch, &[]));
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let link = issue_link(&client, batch, "a01");
    let student = Client::new(&service.url);

    let a18 = std::fs::read(fixture("interval-sets").join("submissions/a18.wasm")).unwrap();
    let reply = client.upload(&format!("/batches/{batch}/late"), &[("student", "a01")], &[("module", "fixed.wasm", &a18)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let page = student.get(&link).body;
    assert!(page.contains("is not graded yet: this is the result of your earlier one"), "{page}");
    assert!(!page.contains("Graded from your late submission"), "{page}");

    // Released, so the re-run keeps the released suite by default.
    let second = client.wait_for_analysis(run_analysis(&client, batch, &[]));
    assert_eq!(second["analysis"]["rerun"], "frozen");
    let (before, after) = (&first["result"], &second["result"]);
    let suite = |analysis: &serde_json::Value| -> Vec<(String, String)> {
        analysis["suite"].as_array().unwrap().iter().map(|t| (t["id"].to_string(), t["input"].to_string())).collect()
    };
    assert_eq!(suite(after), suite(before), "the same tests under the same ids");
    let answers = |analysis: &serde_json::Value| analysis["answers"].as_array().unwrap().clone();
    for (old, new) in answers(before).iter().zip(answers(after).iter()) {
        assert_eq!(old["id"], new["id"]);
        if old["id"] != "a01" {
            for field in ["passed", "percent", "failed", "outcomes"] {
                assert_eq!(old[field], new[field], "{}'s {field} moved", old["id"]);
            }
        }
    }
    let a01 = answers(after).into_iter().find(|a| a["id"] == "a01").unwrap();
    assert_eq!(a01["percent"], 100.0);
    let changes = second["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0]["id"], "a01");
    assert_eq!(changes[0]["why"][0], "their own submission changed");

    // Releasing published the first analysis: the re-run waits for the instructor, who
    // sees the grades it would change, on the batch's page and the analysis's.
    let (first_id, second_id) = (first["analysis"]["id"].as_i64().unwrap(), second["analysis"]["id"].as_i64().unwrap());
    let page = student.get(&link).body;
    assert!(page.contains("is not graded yet: this is the result of your earlier one"), "{page}");
    let batch_page = client.get(&format!("/batches/{batch}")).body;
    let waits = format!("Analysis #{second_id}</a> finished after it and is not released: students still see the grades of #{first_id}.");
    assert!(batch_page.contains(&waits) && batch_page.contains("Releasing it changes 1 grades:"), "{batch_page}");
    let waiting = &client.api(&format!("/api/batches/{batch}"))["waiting"];
    assert_eq!((&waiting["changes"][0][0], &waiting["changes"][0][2]), (&serde_json::json!("a01"), &second["grades"]["a01"]), "{waiting:#}");
    assert_eq!(waiting["changes"].as_array().unwrap().len(), 1);
    let instructor_page = client.get(&format!("/analyses/{second_id}")).body;
    assert!(instructor_page.contains("Graded against the suite of analysis #"), "{instructor_page}");
    assert!(instructor_page.contains("their own submission changed"), "{instructor_page}");
    assert!(
        instructor_page.contains(&format!("The batch's students see <a href=\"/analyses/{first_id}\">analysis #{first_id}</a>, not this one.")),
        "{instructor_page}"
    );
    assert_eq!(client.post(&format!("/batches/{batch}/shown"), &[("analysis", "999")]).status, 400, "only a finished analysis of the batch");
    assert_eq!(client.post(&format!("/batches/{batch}/shown"), &[("analysis", &second_id.to_string())]).status, 303);
    let page = student.get(&link).body;
    assert!(page.contains("Graded from your late submission."), "{page}");
    assert!(client.get(&format!("/analyses/{second_id}")).body.contains("The batch's students see this analysis."));
    assert!(client.api(&format!("/api/batches/{batch}"))["waiting"].is_null());

    // Released as they finish, if the instructor chooses so.
    assert_eq!(client.post(&format!("/batches/{batch}/release-reruns"), &[("automatic", "1")]).status, 303);
    let third = client.wait_for_analysis(run_analysis(&client, batch, &[]))["analysis"]["id"].clone();
    let view = client.api(&format!("/api/batches/{batch}"));
    assert_eq!((&view["batch"]["shown_analysis"], &view["batch"]["release_reruns"]), (&third, &serde_json::json!(true)), "{view:#}");
}

#[test]
fn a_stability_check_runs_other_seeds_in_the_background_and_shows_each_students_spread() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    let first = run_analysis(&client, batch, &[("stable_after", "500")]);
    client.wait_for_analysis(first);
    let reply = client.post(&format!("/analyses/{first}/stability"), &[("seeds", "2")]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert_eq!(client.post(&format!("/analyses/{first}/stability"), &[("seeds", "2")]).status, 400, "one check per analysis");

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    let view = loop {
        let view = client.api(&format!("/api/analyses/{first}"));
        if !view["stability"]["result"].is_null() {
            break view;
        }
        assert!(std::time::Instant::now() < deadline, "the check did not finish: {:#}", view["stability"]);
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    let check = &view["stability"];
    assert_eq!((check["runs"].as_u64(), check["done"].as_u64()), (Some(2), Some(2)));
    let ranks = check["result"]["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 19);
    assert!(ranks.iter().all(|r| r["failed"].as_array().unwrap().len() == 3), "this analysis and two other seeds");
    assert!(check["result"]["order_unchanged"].is_boolean());
    let page = client.get(&format!("/analyses/{first}")).body;
    assert!(page.contains("Over seeds 1 to 3: the correctness order"), "{page}");

    // The check's analyses are not the batch's: not listed, not its latest, not a re-run's base.
    let listed = client.api(&format!("/api/batches/{batch}"))["analyses"].as_array().unwrap().len();
    assert_eq!(listed, 1);
    let next = client.wait_for_analysis(run_analysis(&client, batch, &[("stable_after", "500")]));
    assert_eq!(next["analysis"]["previous_id"], first);
}

/// A class of `n` students named `s001`…, every one handing in `module`: one program, so
/// its runs cost little, but `n` answers to the queue.
fn class_of_one_module(client: &Client, problem: i64, name: &str, n: usize, module: &[u8]) -> i64 {
    let names: Vec<String> = (1..=n).map(|i| format!("s{i:03}.wasm")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|name| (name.as_str(), module)).collect();
    let reply =
        client.upload(&format!("/problems/{problem}/batches"), &[("name", name), ("course", "C101")], &[("modules", "class.zip", &crate::common::zip(&files))]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap()
}

#[test]
fn analyses_run_side_by_side_a_small_batch_does_not_wait_and_the_queue_says_what_runs_and_waits() {
    let data = tempfile::tempdir().unwrap();
    // Two analyses at once (the default is more: `ANALYSES_AT_ONCE`), so that a third waits.
    let service = crate::common::Service::start(data.path(), &["--threads", "1", "--workers", "2"]);
    let client = service.instructor();
    let problem = crate::common::upload_problem(&client, "interval-sets");
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    // Three large analyses that would run for minutes (61 hand-ins, a search that stops
    // only after a million tests add nothing), and a small batch queued after them.
    let large = class_of_one_module(&client, problem, "Large", 61, &a01);
    let [first, second, third] = [(); 3].map(|_| run_analysis(&client, large, &[("stable_after", "1000000")]));
    // The second does not wait for the first: both search at once.
    for id in [first, second] {
        crate::common::wait_until_running(&client, id);
    }
    let small = class_of_one_module(&client, problem, "Lab section", 3, &a01);
    let quick = client.wait_for_analysis(run_analysis(&client, small, &[("stable_after", "100")]));
    assert_eq!(quick["analysis"]["status"], "done", "{:#}", quick["analysis"]);
    for id in [first, second] {
        assert_eq!(client.api(&format!("/api/analyses/{id}"))["analysis"]["status"], "running", "the small batch did not wait for the large analyses");
    }

    let waiting = client.api(&format!("/api/analyses/{third}"));
    assert_eq!(waiting["analysis"]["status"], "queued");
    let queue = waiting["queue"].as_array().unwrap();
    for id in [first, second] {
        assert!(queue.iter().any(|e| e["analysis"] == id && e["running"] == true && e["answers"] == 61), "{queue:#?}");
    }
    let page = client.get(&format!("/analyses/{third}")).body;
    assert!(page.contains(&format!("Running now: <a href=\"/analyses/{first}\">analysis {first}</a> of Large (61 hand-ins, on ")), "{page}");
    assert!(page.contains(&format!("; <a href=\"/analyses/{second}\">analysis {second}</a> of Large (61 hand-ins, on ")), "{page}");
    assert!(page.contains("a batch of at most 60 hand-ins does not wait for them"), "{page}");
    for id in [third, second, first] {
        assert_eq!(client.post(&format!("/analyses/{id}/cancel"), &[]).status, 303);
    }
}
