//! Every bad upload is named on its report page and changes nothing.

use crate::common::{COURSE, Client, Service, cohort, fixture, run_analysis, service_with_cohort, upload_bundle, upload_problem, zip};

const SNEAKY: &str = r#"(module
  (import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))"#;

/// What the service holds: every batch with its current submissions and roster, and
/// every problem. A bad upload must leave it as it was.
fn holdings(client: &Client) -> String {
    let mut all = client.api("/api/problems").to_string();
    for batch in client.api("/api/batches")["batches"].as_array().unwrap() {
        let id = batch["batch"]["id"].as_i64().unwrap();
        let view = client.api(&format!("/api/batches/{id}"));
        all += &format!("{}{}", view["submissions"], view["roster"]);
    }
    all
}

/// The rejection reasons of a report, in file order, and its roster problems.
fn reasons(report: &serde_json::Value) -> Vec<String> {
    let files = report["report"]["files"].as_array().unwrap();
    let problems = report["report"]["roster_problems"].as_array().unwrap();
    files.iter().filter_map(|f| f["rejected"].as_str()).chain(problems.iter().filter_map(|p| p.as_str())).map(str::to_owned).collect()
}

#[test]
fn every_bad_upload_is_named_and_changes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &["--max-upload-mib", "1"]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let modules = cohort("interval-sets");
    let a01 = &modules[0].1;
    let a02 = &modules[1].1;
    let roster = b"id,cohort\na01,quickcheck\na02,hunit\n";
    let before = holdings(&client);

    let check = |files: &[(&str, &str, &[u8])], expected: &[&str]| {
        let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Bad"), ("course", COURSE)], files);
        assert_eq!(reply.status, 303, "{}", reply.body);
        let report = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
        assert_eq!(report["status"], "pending", "{report:#}");
        let found = reasons(&report);
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for (reason, wanted) in found.iter().zip(expected) {
            assert!(reason.contains(wanted), "`{reason}` should say `{wanted}`");
        }
        // The report page says it in words, and nothing is saved.
        let page = client.get(&format!("/uploads/{}", report["id"]));
        assert!(page.body.contains("Nothing has been saved yet"), "{}", page.body);
        assert_eq!(holdings(&client), before);
        report
    };

    check(
        &[("modules", "a01.wasm", a01), ("modules", "notes.txt", b"hello"), ("roster", "roster.csv", b"id,cohort\na01,x\n")],
        &["notes.txt: not a hand-in (a module .wasm or .wat, a source .c, .cpp, .rs or .py)"],
    );
    check(&[("modules", "a01.wasm", a01), ("modules", "empty.zip", &zip(&[]))], &["empty.zip: the zip is empty"]);
    check(&[("modules", "a01.wasm", a01), ("modules", "notes.zip", &zip(&[("notes.txt", b"hello")]))], &["notes.zip: the zip holds no submission"]);
    check(
        &[("modules", "a01.wasm", a01), ("modules", "a02.wasm", b"this is text, not wasm")],
        &["a02.wasm: not a valid WebAssembly module: a .wasm file must be a WebAssembly binary"],
    );
    check(
        &[("modules", "a01.wasm", a01), ("modules", "sneaky.wat", SNEAKY.as_bytes())],
        &["imports `wasi_snapshot_preview1.sock_accept`, which programs may not use"],
    );
    let duplicate = zip(&[("a/a01.wasm", a01), ("b/a01.wasm", a02)]);
    check(&[("modules", "two.zip", &duplicate)], &["another file already gives submission `a01`"]);
    check(&[("modules", "a01.wasm", a01), ("modules", "reference.wasm", a02)], &["reference.wasm: the id `reference` is the model answer's"]);
    let evil = zip(&[("a01.wasm", a01), ("../a02.wasm", a02), ("/etc/a03.wasm", a02)]);
    check(&[("modules", "evil.zip", &evil)], &["unsafe path in zip", "unsafe path in zip"]);
    check(
        &[("modules", "a01.wasm", a01), ("modules", "a02.wasm", a02), ("roster", "roster.csv", b"id,cohort\na01,quickcheck\n")],
        &["no roster row for `a02`"],
    );
    check(
        &[("modules", "a01.wasm", a01), ("roster", "roster.csv", b"id,cohort\na01,quickcheck\na01,hunit\nshort\n")],
        &["`a01` is listed twice", "expected 2 fields"],
    );
    check(&[("modules", "a<b>.wasm", a01)], &["a student id may only have"]);
    // An id is a cell of every gradebook file: none may start as a formula does.
    check(
        &[("modules", "-2+3.wasm", a01), ("modules", "@SUM.wasm", a02)],
        &["`-2+3`, which a spreadsheet would read as a formula", "`@SUM`, which a spreadsheet"],
    );
    check(&[("modules", "broken.zip", b"PK but not a zip")], &["not a readable zip"]);

    // Refused before any file is looked at: too large, no CSRF token, a malformed roster.
    let big = vec![0u8; 2 << 20];
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Big"), ("course", COURSE)], &[("modules", "big.wasm", &big)]);
    assert_eq!(reply.status, 413);
    assert!(reply.body.contains("larger than the limit of 1 MiB"), "{}", reply.body);
    let long_name = "x".repeat(100 << 10);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", &long_name), ("course", COURSE)], &[("modules", "a01.wasm", a01)]);
    assert_eq!(reply.status, 413);
    assert!(reply.body.contains("the form field <code>name</code> is larger than 64 KiB"), "{}", reply.body);
    let mut forger = Client::new(&service.url);
    assert_eq!(forger.login("instructor", &service.password), 303);
    forger.csrf = Some("0".repeat(64));
    let reply = forger.upload(&format!("/problems/{problem}/batches"), &[("name", "Forged"), ("course", COURSE)], &[("modules", "a01.wasm", a01)]);
    assert_eq!(reply.status, 403);
    assert!(reply.body.contains("CSRF"), "{}", reply.body);
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "Bad"), ("course", COURSE)],
        &[("modules", "a01.wasm", a01), ("roster", "r.csv", b"student,group\na01,x\n")],
    );
    assert_eq!(reply.status, 400);
    assert!(reply.body.contains("the header must name the column <code>id</code>"), "{}", reply.body);
    for course in [None, Some("  "), Some("two\nlines")] {
        let fields: Vec<(&str, &str)> = [("name", "No course")].into_iter().chain(course.map(|c| ("course", c))).collect();
        let reply = client.upload(&format!("/problems/{problem}/batches"), &fields, &[("modules", "a01.wasm", a01)]);
        assert_eq!(reply.status, 400, "{course:?}");
        assert!(reply.body.contains("name the course the batch belongs to"), "{}", reply.body);
    }
    assert_eq!(holdings(&client), before);

    // Bad problem bundles.
    for (bundle, message) in [
        (zip(&[("../problem.toml", b"title = \"x\"")]), "unsafe path in zip"),
        (zip(&[("p/problem.toml", b"title = \"x\"")]), "the bundle has no reference.wasm"),
        (zip(&[("p/problem.toml", b"title = 3"), ("p/reference.wasm", a01), ("p/generator.wasm", a01)]), "problem.toml is not valid"),
    ] {
        let reply = client.upload("/problems", &[], &[("bundle", "p.zip", &bundle)]);
        assert_eq!(reply.status, 400, "{}", reply.body);
        assert!(reply.body.contains(message), "`{}` should say `{message}`", reply.body);
    }
    assert_eq!(holdings(&client), before);
    // A refused bundle leaves no folder behind, and a bundle named `.zip` is one like any other.
    let problems = |data: &std::path::Path| std::fs::read_dir(data.join("problems")).unwrap().count();
    let folders = problems(data.path());
    let broken = zip(&[("problem.toml", b"title = 3"), ("reference.wasm", a01), ("generator.wasm", a01)]);
    assert_eq!(client.upload("/problems", &[], &[("bundle", ".zip", &broken)]).status, 400);
    assert_eq!(problems(data.path()), folders, "no empty problems/N/ is left");

    // A pending upload saves its accepted part only when asked.
    let report = check(&[("modules", "a01.wasm", a01), ("modules", "a02.wasm", b"junk")], &["a02.wasm"]);
    let saved = client.post(&format!("/uploads/{}/save", report["id"]), &[]);
    assert_eq!(saved.status, 303);
    let batch = saved.redirect_id();
    let view = client.api(&format!("/api/batches/{batch}"));
    assert_eq!(view["submissions"].as_array().unwrap().len(), 1);
    assert_eq!(client.post(&format!("/uploads/{}/save", report["id"]), &[]).status, 400, "saved once only");

    // A student on the roster who handed in nothing is no problem: the upload is saved at
    // once, and its report says who.
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "One missing"), ("course", COURSE)],
        &[("modules", "a01.wasm", a01), ("roster", "roster.csv", roster)],
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let report = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!((&report["status"], &report["report"]["no_hand_in"]), (&serde_json::json!("saved"), &serde_json::json!(["a02"])), "{report:#}");
    let page = client.get(&format!("/uploads/{}", report["id"])).body;
    assert!(page.contains("1 students on the roster handed in nothing: a02. They are part of the class"), "{page}");
}

#[test]
fn a_late_submission_is_checked_and_replaces_the_earlier_one() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    let first = run_analysis(&client, batch, &[]);
    client.wait_for_analysis(first);
    let before = client.api(&format!("/api/batches/{batch}"));
    let a18 = std::fs::read(fixture("interval-sets").join("submissions/a18.wasm")).unwrap();

    let late = |student: &str, file: &str, bytes: &[u8]| {
        let reply = client.upload(&format!("/batches/{batch}/late"), &[("student", student)], &[("module", file, bytes)]);
        assert_eq!(reply.status, 303, "{}", reply.body);
        client.api(&format!("/api/uploads/{}", reply.redirect_id()))
    };
    let report = late("a01", "fixed.wasm", b"not a module");
    assert_eq!(report["status"], "pending");
    assert_eq!(client.api(&format!("/api/batches/{batch}")), before, "a rejected late submission changes nothing");
    let report = late("z99", "z99.wasm", &a18);
    assert!(reasons(&report)[0].contains("no roster row for `z99`"), "{report:#}");
    assert_eq!(client.api(&format!("/api/batches/{batch}")), before);

    let report = late("a01", "fixed.wasm", &a18);
    assert_eq!(report["status"], "saved", "{report:#}");
    let after = client.api(&format!("/api/batches/{batch}"));
    let a01 = after["submissions"].as_array().unwrap().iter().find(|s| s["student"] == "a01").unwrap().clone();
    assert_eq!(a01["late"], true);
    assert_eq!(a01["file"], "a01.wasm");
    assert_eq!(after["submissions"].as_array().unwrap().len(), 19);

    // Graded again, the batch shows how a01's score changed.
    let second = client.wait_for_analysis(run_analysis(&client, batch, &[]));
    assert_eq!(second["analysis"]["previous_id"], first);
    let change = second["changes"].as_array().unwrap().iter().find(|c| c["id"] == "a01").unwrap().clone();
    assert!(change["before"].as_f64().unwrap() < 100.0, "{change}");
    assert_eq!(change["after"].as_f64(), Some(100.0), "{change}");
    let page = client.get(&format!("/analyses/{}", second["analysis"]["id"]));
    assert_eq!(change["why"][0], "their own submission changed", "{change}");
    assert!(page.body.contains("Changes since analysis #"), "the page shows the changes");
}

#[test]
fn a_bundles_check_runs_outside_the_request_which_answers_at_once_with_the_checks_page_that_says_how_it_ended() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let check = client.api("/api/problems/checks/1");
    assert_eq!((check["status"].as_str(), check["problem_id"].as_i64()), (Some("ready"), Some(problem)), "{check:#}");
    let page = client.get("/problems/checks/1");
    assert_eq!(page.status, 303, "a ready check's page leads to its problem");

    // A bundle whose reference is no module unpacks, and its check refuses it: the check's
    // page gives the reason and the form again.
    let dir = fixture("interval-sets");
    let files: Vec<(String, Vec<u8>)> = ["problem.toml", "generator.wasm"].iter().map(|f| (format!("p/{f}"), std::fs::read(dir.join(f)).unwrap())).collect();
    let mut files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    files.push(("p/reference.wasm", b"not a module"));
    let check = upload_bundle(&client, "/problems", "p.zip", &zip(&files));
    assert_eq!((check["id"].as_i64(), check["status"].as_str()), (Some(2), Some("refused")), "{check:#}");
    assert!(check["error"].as_str().unwrap().contains("not a valid WebAssembly module"), "{check:#}");
    let page = client.get("/problems/checks/2");
    assert!(page.body.contains("not a valid WebAssembly module") && page.body.contains("action=\"/problems\""), "{}", page.body);
    assert_eq!(client.api("/api/problems")["problems"].as_array().unwrap().len(), 1, "a refused bundle makes no problem");
    assert_eq!(client.get("/api/problems/checks/3").status, 404);
}
