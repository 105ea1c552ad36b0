//! Batches as an instructor handles them: uploaded from the Batches page with the roster
//! inside the zip, a roster attached or replaced later, renamed, deleted; and every refusal
//! a page of the site with the reason and the form again.

use crate::common::{COURSE, Client, Service, cohort, fixture, issue_link, run_analysis, upload_problem, zip};

/// The cohort of interval-sets as one zip, with `extra` entries added.
fn cohort_zip(extra: &[(&str, &[u8])]) -> Vec<u8> {
    let modules = cohort("interval-sets");
    let mut entries: Vec<(&str, &[u8])> = modules.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    entries.extend_from_slice(extra);
    zip(&entries)
}

/// Each submission's cohort on the batch's page, as `(student, cohort)` (empty: none).
fn cohorts(client: &Client, batch: i64) -> Vec<(String, String)> {
    let view = client.api(&format!("/api/batches/{batch}"));
    let roster = view["roster"].as_array().unwrap();
    view["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["student"].as_str().unwrap().to_owned();
            let cohort = roster.iter().find(|r| r["id"] == s["student"]).map_or("", |r| r["cohort"].as_str().unwrap());
            (id, cohort.to_owned())
        })
        .collect()
}

/// A refused form answered as a page of the site: HTML with the status, the reason and
/// the form (its action) again.
fn check_refused(reply: &crate::common::Reply, status: u16, reason: &str, form_action: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert!(reply.content_type.starts_with("text/html"), "{}", reply.content_type);
    // What the reason quotes between backticks is shown in code type.
    let shown: String = reason.split('`').enumerate().map(|(i, part)| if i % 2 == 1 { format!("<code>{part}</code>") } else { part.to_owned() }).collect();
    assert!(reply.body.contains(&shown), "the page should say `{shown}`: {}", reply.body);
    assert!(reply.body.contains(&format!("action=\"{form_action}\"")), "the form is shown again: {}", reply.body);
    assert!(reply.body.contains("href=\"/batches\""), "the site's menu is there");
}

#[test]
fn a_roster_in_the_zip_is_read_and_a_roster_can_be_attached_or_replaced_later() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let roster = std::fs::read(fixture("interval-sets").join("roster.csv")).unwrap();

    // From the Batches page: the problem is chosen in the form, the roster is in the zip.
    let page = client.get("/batches");
    assert!(page.body.contains("action=\"/batches\"") && page.body.contains("name=\"problem\""), "the Batches page offers a new batch");
    let archive = cohort_zip(&[("roster.csv", &roster)]);
    let reply =
        client.upload("/batches", &[("problem", &problem.to_string()), ("name", "With roster"), ("course", COURSE)], &[("modules", "class.zip", &archive)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "{upload:#}");
    assert_eq!(upload["report"]["roster_from"], "`class.zip/roster.csv`, found in the zip");
    let page = client.get(&format!("/uploads/{}", upload["id"]));
    assert!(page.body.contains("found in the zip") && page.body.contains("19 rows"), "{}", page.body);
    let batch = upload["batch"].as_i64().unwrap();
    let with_zip_roster = cohorts(&client, batch);
    assert_eq!(with_zip_roster.len(), 19);
    assert!(with_zip_roster.iter().all(|(_, c)| !c.is_empty()), "every student has the cohort of the zip's roster: {with_zip_roster:?}");

    // Two rosters in the zips and none given: which one is meant is asked, nothing saved.
    let two = zip(&[("a/roster.csv", &roster), ("b/roster.csv", &roster)]);
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "Two"), ("course", COURSE)],
        &[("modules", "class.zip", &archive), ("modules", "two.zip", &two)],
    );
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "pending");
    let problems = upload["report"]["roster_problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p.as_str().unwrap().contains("hold 3 rosters")), "{problems:?}");

    // Without a roster, then one attached: the cohort column fills.
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Later"), ("course", COURSE)], &[("modules", "class.zip", &cohort_zip(&[]))]);
    let later = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    assert!(cohorts(&client, later).iter().all(|(_, c)| c.is_empty()));
    let page = client.get(&format!("/batches/{later}"));
    assert!(page.body.contains("Attach a roster"), "{}", page.body);
    let reply = client.upload(&format!("/batches/{later}/roster"), &[], &[("roster", "roster.csv", &roster)]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body.contains("19 rows") && reply.body.contains("Grades did not change"), "{}", reply.body);
    assert_eq!(cohorts(&client, later), with_zip_roster);

    // Replaced by one that names a student with no hand-in and leaves the others out: said,
    // and kept apart.
    let partial = "id,cohort,name,email\na01,first,Ada Lovelace,ada@example.org\nz99,stranger,Zed,z@example.org\n".as_bytes();
    let reply = client.upload(&format!("/batches/{later}/roster"), &[], &[("roster", "partial.csv", partial)]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body.contains("1 students on it handed in nothing: z99."), "{}", reply.body);
    assert!(reply.body.contains("18 students of the batch have no row"), "{}", reply.body);
    let now = cohorts(&client, later);
    assert_eq!(now.iter().filter(|(_, c)| !c.is_empty()).collect::<Vec<_>>(), [&("a01".to_owned(), "first".to_owned())]);
    // The links for a mail merge carry the roster's names and emails.
    issue_link(&client, later, "a01");
    issue_link(&client, later, "a02");
    let links = client.get("/students/links.csv").body;
    let lines: Vec<&str> = links.trim_start_matches('\u{feff}').lines().collect();
    assert_eq!(lines[0], "course,id,name,email,link");
    assert!(lines[1].starts_with(&format!("{COURSE},a01,Ada Lovelace,ada@example.org,http")), "{links}");
    assert!(lines[2].starts_with(&format!("{COURSE},a02,,,http")), "{links}");

    // A malformed roster changes nothing, and the page gives the form again.
    let reply = client.upload(&format!("/batches/{later}/roster"), &[], &[("roster", "bad.csv", b"id,cohort\na01,x\na01,y\n")]);
    check_refused(&reply, 400, "listed twice", &format!("/batches/{later}/roster"));
    assert!(reply.body.contains("nothing was changed"), "{}", reply.body);
    assert_eq!(cohorts(&client, later), now);
}

#[test]
fn every_refused_form_is_a_page_with_the_reason_and_the_form_again() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &["--max-upload-mib", "1"]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let batches = format!("/problems/{problem}/batches");

    let reply = client.upload(&batches, &[("name", "Empty"), ("course", COURSE)], &[]);
    check_refused(&reply, 400, "choose the submissions", &batches);
    assert!(reply.body.contains("value=\"Empty\"") && reply.body.contains(&format!("value=\"{COURSE}\"")), "what was typed is kept: {}", reply.body);
    let reply = client.upload("/batches", &[("name", "No problem"), ("course", COURSE)], &[("modules", "a.wat", b"(module)")]);
    check_refused(&reply, 400, "choose the problem", "/batches");
    // On the Batches page's form, the problem chosen is chosen again with what was typed.
    let reply = client.upload("/batches", &[("problem", &problem.to_string()), ("name", "Nothing"), ("course", COURSE)], &[]);
    check_refused(&reply, 400, "choose the submissions", "/batches");
    assert!(reply.body.contains(&format!("<option value=\"{problem}\" selected>")), "the problem is kept: {}", reply.body);
    assert!(reply.body.contains("value=\"Nothing\"") && reply.body.contains(&format!("value=\"{COURSE}\"")), "{}", reply.body);
    let reply = client.upload(&batches, &[("name", "Big"), ("course", COURSE)], &[("modules", "big.wasm", &vec![0u8; 2 << 20])]);
    check_refused(&reply, 413, "larger than the limit of 1 MiB", &batches);
    let reply = client.upload("/problems", &[], &[("bundle", "p.zip", &zip(&[("p/problem.toml", b"title = \"x\"")]))]);
    check_refused(&reply, 400, "the bundle has no reference.wasm", "/problems");
    let mut forger = Client::new(&service.url);
    forger.login("instructor", &service.password);
    forger.csrf = Some("0".repeat(64));
    let reply = forger.upload(&batches, &[("name", "Forged"), ("course", COURSE)], &[("modules", "a.wat", b"(module)")]);
    check_refused(&reply, 403, "CSRF", &batches);

    // The analysis form, with a seed that is not a number; a stability check of nothing.
    let a01 = &cohort("interval-sets")[0].1;
    let reply = client.upload(&batches, &[("name", "One"), ("course", COURSE)], &[("modules", "a01.wasm", a01)]);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    let analyses = format!("/batches/{batch}/analyses");
    check_refused(&client.post(&analyses, &[("seed", "one")]), 400, "the seed must be a whole number, not `one`", &analyses);
    let analysis = client.wait_for_analysis(run_analysis(&client, batch, &[]))["analysis"]["id"].as_i64().unwrap();
    let stability = format!("/analyses/{analysis}/stability");
    check_refused(&client.post(&stability, &[("seeds", "100")]), 400, "check with 2 to 20 other seeds, not 100", &stability);

    // Pages that do not exist are pages of the site too.
    let reply = client.get("/batches/9999");
    assert_eq!(reply.status, 404);
    assert!(reply.content_type.starts_with("text/html") && reply.body.contains("Back to bugrank"), "{}", reply.body);
}

#[test]
fn a_batch_is_renamed_and_deleted_with_what_only_it_used() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let modules = cohort("interval-sets");
    let upload = |name: &str, files: &[(&str, &str, &[u8])]| {
        let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", name), ("course", COURSE)], files);
        client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().expect("saved")
    };
    // `kept` shares a01's module with `doomed`; a02's is doomed's alone.
    let kept = upload("Kept", &[("modules", "a01.wasm", &modules[0].1)]);
    let doomed = upload("Doomed", &[("modules", "a01.wasm", &modules[0].1), ("modules", "a02.wasm", &modules[1].1)]);
    let module_file = |bytes: &[u8]| data.path().join("modules").join(format!("{}.wasm", web::serve::store::sha256_hex(bytes)));
    assert!(module_file(&modules[1].1).exists());

    // Renamed; an empty name is refused with the form again.
    assert_eq!(client.post(&format!("/batches/{doomed}/rename"), &[("name", "Doomed (old)")]).status, 303);
    assert_eq!(client.api(&format!("/api/batches/{doomed}"))["batch"]["name"], "Doomed (old)");
    check_refused(&client.post(&format!("/batches/{doomed}/rename"), &[("name", " ")]), 400, "name the batch", &format!("/batches/{doomed}/rename"));

    // An analysis, finished; then one queued behind a running one blocks the deletion.
    let first = run_analysis(&client, doomed, &[]);
    client.wait_for_analysis(first);
    assert!(data.path().join("analyses").join(first.to_string()).exists());
    let confirm = client.get(&format!("/batches/{doomed}/delete"));
    assert!(confirm.body.contains("2 submissions") && confirm.body.contains("1 analyses"), "{}", confirm.body);
    assert!(confirm.body.contains("for good"), "the page asks before deleting: {}", confirm.body);
    let long = run_analysis(&client, doomed, &[("stable_after", "100000000")]);
    let reply = client.post(&format!("/batches/{doomed}/delete"), &[]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains(&format!("analysis #{long} of this batch is queued or running")), "{}", reply.body);
    assert_eq!(client.get(&format!("/batches/{doomed}")).status, 200, "nothing was deleted");
    assert_eq!(client.post(&format!("/analyses/{long}/cancel"), &[]).status, 303);
    client.wait_for_analysis(long);

    let reply = client.post(&format!("/batches/{doomed}/delete"), &[]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert_eq!(client.get(&format!("/batches/{doomed}")).status, 404);
    assert_eq!(client.get(&format!("/analyses/{first}")).status, 404);
    assert!(!data.path().join("analyses").join(first.to_string()).exists(), "its outputs are gone");
    assert!(!module_file(&modules[1].1).exists(), "a02's module was the deleted batch's alone");
    assert!(module_file(&modules[0].1).exists(), "a01's module is kept: another batch has it");
    let students = client.api("/api/students");
    let ids: Vec<&str> = students["students"].as_array().unwrap().iter().map(|s| s["student"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a01"], "a02 had no other batch in the course");
    // The other batch is whole and can still be analysed.
    assert_eq!(client.api(&format!("/api/batches/{kept}"))["submissions"].as_array().unwrap().len(), 1);
    let analysis = client.wait_for_analysis(run_analysis(&client, kept, &[]));
    assert_eq!(analysis["analysis"]["status"], "done", "{:#}", analysis["analysis"]);
}
