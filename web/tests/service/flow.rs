//! The instructor's and the students' main path through the service.

use crate::common::{Client, Service, fixture, issue_link, run_analysis, upload_bundle, upload_cohort, upload_problem};

/// The header of a CSV download and its number of data rows (after any byte-order mark).
pub fn csv_shape(text: &str) -> (Vec<String>, usize) {
    let mut reader = csv::Reader::from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let header = reader.headers().unwrap().iter().map(str::to_owned).collect();
    (header, reader.records().collect::<Result<Vec<_>, _>>().unwrap().len())
}

#[test]
fn an_instructor_grades_a_batch_and_each_student_sees_only_their_own_bugs() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);

    // Logging in: a wrong password is refused, and so is a login form not from this
    // site (no CSRF cookie, or a token that does not match it); the printed one works.
    let mut stranger = Client::new(&service.url);
    assert_eq!(stranger.login("instructor", "not the password"), 401);
    assert_eq!(stranger.login_with("instructor", &service.password, None, None), 403);
    assert_eq!(stranger.login_with("instructor", &service.password, Some("bugrank_login=1234"), Some("5678")), 403);
    let client = service.instructor();

    let problem = upload_problem(&client, "interval-sets");
    let page = client.get(&format!("/problems/{problem}"));
    assert!(page.body.contains("<h1>Interval sets") || page.body.contains("Interval sets"), "the statement is rendered");
    let batch = upload_cohort(&client, problem, "interval-sets");
    let view = client.api(&format!("/api/batches/{batch}"));
    assert_eq!(view["submissions"].as_array().unwrap().len(), 19);

    // The analysis runs in the background to completion.
    let id = run_analysis(&client, batch, &[("seed", "1")]);
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let result = &done["result"];
    let suite = result["suite"].as_array().unwrap().len();
    assert_eq!(suite, 19, "the same suite as `bugrank grade --seed 1`");
    let top: Vec<&str> = result["order"]["classes"][0]["answers"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(top, ["reference", "a18"]);
    assert_eq!(done["bug_lists"].as_array().unwrap().len(), 19, "every answer has its bug list");

    // Same batch, roster and seed as `bugrank grade`: the same analysis.json, byte for
    // byte (both write what `course::grade_batch` returns).
    let served = client.get(&format!("/analyses/{id}/files/analysis.json"));
    let out = tempfile::tempdir().unwrap();
    let graded = std::process::Command::new(env!("CARGO_BIN_EXE_bugrank"))
        .args(["grade", "--seed", "1", "--problem"])
        .arg(fixture("interval-sets"))
        .arg("--submissions")
        .arg(fixture("interval-sets").join("submissions"))
        .arg("--roster")
        .arg(fixture("interval-sets").join("roster.csv"))
        .arg("--out")
        .arg(out.path())
        .env("BUGRANK_CACHE", "off")
        .output()
        .unwrap();
    assert!(graded.status.success(), "{}", String::from_utf8_lossy(&graded.stderr));
    let written = std::fs::read_to_string(out.path().join("analysis.json")).unwrap();
    assert!(written.contains("\"rejected\": []") && written.contains("\"warnings\": []"), "what the batch could not use is said in both");
    assert_eq!(served.body, written);
    // The class's files are made on demand by the function the command line writes them
    // with: the same bytes (the service stores the analysis alone).
    for (file, content_type) in [("scores.csv", "text/csv"), ("order.dot", "text/vnd.graphviz"), ("order.svg", "image/svg+xml"), ("report.html", "text/html")] {
        let served = client.get(&format!("/analyses/{id}/files/{file}"));
        assert_eq!((served.status, served.content_type.as_str()), (200, content_type), "{file}");
        assert_eq!(served.body, std::fs::read_to_string(out.path().join(file)).unwrap(), "{file} as `bugrank grade` writes it");
    }

    // Downloads, with the columns gradebooks expect.
    let scores = client.get(&format!("/analyses/{id}/files/scores.csv"));
    assert_eq!((scores.status, scores.content_type.as_str()), (200, "text/csv"));
    let (header, rows) = csv_shape(&scores.body);
    assert_eq!(header[..9], ["id", "cohort", "passed", "failed", "suite_size", "percent", "rank", "points", "max_points"]);
    assert_eq!(header[14..], ["manual", "note"], "the roster's columns come back in its order");
    assert_eq!(rows, 19);
    assert!(!scores.body.starts_with('\u{feff}'), "scores.csv is the command line's, without a byte-order mark");
    // The gradebook files open in Excel as UTF-8: they start with a byte-order mark.
    let canvas = client.get(&format!("/analyses/{id}/files/canvas.csv"));
    assert!(canvas.body.starts_with('\u{feff}'), "{}", canvas.body);
    let (header, rows) = csv_shape(&canvas.body);
    assert_eq!(header, ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Assignment 1"]);
    assert_eq!(rows, 20, "a Points Possible row, then one per student");
    // Points on the fixed scale (of 100 by default); no SIS data in this roster, so none
    // is made up.
    assert!(canvas.body.contains("\nPoints Possible,,,,,100\n") && canvas.body.contains("\na18,,,,,100\n"), "{}", canvas.body);
    // Said before the download: a new assignment, and nobody Canvas could match.
    let page = client.get(&format!("/analyses/{id}")).body;
    assert!(page.contains("which Canvas imports as a new assignment"), "{page}");
    assert!(page.contains("Canvas would match nobody: the roster gives no Canvas ID or SIS id for a01, a02,"), "{page}");
    let moodle = client.get(&format!("/analyses/{id}/files/moodle.csv"));
    assert!(moodle.body.starts_with('\u{feff}'));
    let (header, rows) = csv_shape(&moodle.body);
    assert_eq!(header, ["ID number", "Email address", "Assignment 1", "Assignment 1 (feedback)"]);
    assert_eq!(rows, 19);
    let a14 = moodle.body.lines().find(|l| l.starts_with("a14,")).unwrap();
    assert!(a14.starts_with("a14,,0,"), "no points for a program that crashes on every input: {a14}");
    assert!(a14.contains("the same way (a crash): one failure, on every input."), "{a14}");
    assert!(
        a14.contains("Your program passed 0 of 19 tests") && a14.contains("How it failed: a crash on 19 inputs. The shortest input it fails on: "),
        "{a14}"
    );
    assert!(!a14.contains(" t0") && !a14.contains(" t1"), "no test ids, words: {a14}");
    let dot = client.get(&format!("/analyses/{id}/files/order.dot"));
    assert!(dot.body.starts_with("digraph"), "{}", dot.body);
    let page = client.get(&format!("/analyses/{id}"));
    assert!(page.body.contains("<svg"), "the diagram is inline");
    assert!(page.body.contains("How complete the search is: "), "the search's completeness in words");
    assert!(page.body.contains("1,000 more random tests would find a new kind of failure with a chance of "), "and what it means: {}", page.body);
    // For screen readers: the diagram's title and description, and the order as a table.
    assert!(page.body.contains("<title id=\"order-title\">Correctness order of interval-sets</title>") && page.body.contains("<desc id=\"order-desc\">"));
    assert!(page.body.contains("<caption>The correctness order as a table</caption>"));
    // Every page forbids inline scripts, framing, sniffing and Referers.
    let csp = &page.headers["content-security-policy"];
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-eval") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!page.body.contains("<script>"), "no inline script");
    assert_eq!(page.headers["x-frame-options"], "DENY");
    assert_eq!(page.headers["x-content-type-options"], "nosniff");
    assert_eq!(page.headers["referrer-policy"], "no-referrer");
    assert_eq!(client.get("/static/app.js").content_type, "text/javascript");
    assert_eq!(client.get(&format!("/analyses/{id}/files/secrets.txt")).status, 404);

    // The experiment report over the batch's two cohorts.
    let report = client.api(&format!("/api/experiment?batches={batch}&first=quickcheck&second=hunit"));
    assert_eq!(report["reports"].as_array().unwrap().len(), 1, "{report:#}");
    assert!(report["reports"][0]["welch"]["p"].as_f64().is_some());
    assert_eq!(report["reports"][0]["problem"], format!("Assignment 1 (#{batch}, interval-sets)"), "the column names its batch");
    let itself = client.api(&format!("/api/experiment?batches={batch}&first=hunit&second=hunit"));
    assert!(itself["reports"].as_array().unwrap().is_empty() && itself["problem"].as_str().unwrap().contains("two different cohorts"), "{itself:#}");
    let page = client.get(&format!("/experiment?batches={batch}&first=quickcheck&second=hunit"));
    assert!(page.body.contains(&format!("/experiment/summary.csv?batches={batch}&amp;first=quickcheck&amp;second=hunit")), "{}", page.body);
    let summary = client.get(&format!("/experiment/summary.csv?batches={batch}&first=quickcheck&second=hunit"));
    assert_eq!((summary.status, summary.content_type.as_str()), (200, "text/csv"));
    assert!(summary.body.starts_with("problem,group,n,mean,sd,t,df,p,") && summary.body.contains("Assignment 1 (#"), "{}", summary.body);
    assert_eq!(summary.body.lines().count(), 1 + 3, "all and the two cohorts");
    let html = client.get(&format!("/experiment/report.html?batches={batch}&first=quickcheck&second=hunit"));
    assert!(html.body.starts_with("<!DOCTYPE html>") && html.headers["content-disposition"].starts_with("attachment"), "{}", html.body);
    assert_eq!(client.get(&format!("/experiment/summary.csv?batches={batch}&first=hunit&second=hunit")).status, 400);

    // A re-run with another fuel factor lists every grade that changed (none here: no
    // answer of this cohort is slow).
    let rerun = run_analysis(&client, batch, &[("seed", "1"), ("fuel_factor", "40")]);
    let again = client.wait_for_analysis(rerun);
    assert_eq!(again["analysis"]["previous_id"], id);
    assert_eq!(again["analysis"]["rerun"], "full", "not released yet: a full re-analysis by default");
    assert_eq!(again["changes"].as_array().unwrap().len(), 0, "{:#}", again["changes"]);

    // A new bundle replaces the problem's settings; earlier analyses keep theirs, the next
    // one uses the new ones.
    let toml = std::fs::read_to_string(fixture("interval-sets").join("problem.toml")).unwrap().replace("stable_after = 10000", "stable_after = 700");
    let bundle = crate::common::zip(&[
        ("interval-sets/problem.toml", toml.as_bytes()),
        ("interval-sets/reference.wasm", &std::fs::read(fixture("interval-sets").join("reference.wasm")).unwrap()),
        ("interval-sets/generator.wasm", &std::fs::read(fixture("interval-sets").join("generator.wasm")).unwrap()),
        ("interval-sets/statement.md", &std::fs::read(fixture("interval-sets").join("statement.md")).unwrap()),
    ]);
    let replaced = upload_bundle(&client, &format!("/problems/{problem}/bundle"), "new.zip", &bundle);
    assert_eq!((replaced["status"].as_str(), replaced["problem_id"].as_i64()), (Some("ready"), Some(problem)), "{replaced:#}");
    assert!(client.api(&format!("/api/problems/{problem}"))["settings"].as_str().unwrap().contains("stable_after = 700"));
    let latest = run_analysis(&client, batch, &[]);
    let third = client.wait_for_analysis(latest);
    assert_eq!(third["result"]["stable_after"], 700);
    assert_eq!(third["analysis"]["previous_id"], rerun);
    assert_eq!(client.api(&format!("/api/analyses/{rerun}"))["result"]["stable_after"], 10000, "an earlier analysis keeps its own");

    // Student links: hidden until released, then only one's own data.
    let (a01, a02) = (issue_link(&client, batch, "a01"), issue_link(&client, batch, "a02"));
    let student = Client::new(&service.url);
    let hidden = student.get(&a01);
    assert_eq!(hidden.status, 200);
    assert!(hidden.body.contains("No results have been released to you yet"));
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);

    let own = student.get(&a01);
    assert_eq!(own.status, 200);
    assert!(own.body.contains("Results of a01 · Course A") && own.body.contains("Your program <strong>fails "), "{}", own.body);
    let own_json = student.api(&format!("/api{a01}"));
    assert_eq!(own_json["student"], "a01");
    assert_eq!(own_json["results"][0]["analysis"], latest, "the latest analysis is shown");
    let markdown = student.get(&format!("{a01}/{latest}.md"));
    assert_eq!(markdown.status, 200);
    assert!(markdown.body.contains("Input:\n\n```text\n") && !markdown.body.contains("- Input: `\""), "code blocks, not escaped strings: {}", markdown.body);
    // The score in plain words, and the statement as graded, with its tables rendered.
    // The paper's score is said to be the class comparison, not the grade.
    assert!(
        own.body.contains("Compared with your class: <strong>")
            && own.body.contains("the share of those bugs yours does not have")
            && own.body.contains("and not your grade: your points above are"),
        "{}",
        own.body
    );
    // The points on the fixed scale, and how the program earned them.
    let points = &own_json["results"][0]["points"];
    assert_eq!(points["max"], 100.0, "{own_json}");
    assert!(own.body.contains("Your points: <strong>") && own.body.contains("inputs it was graded on"), "{}", own.body);
    let statement = student.get(&format!("{a01}/{latest}/statement"));
    assert_eq!(statement.status, 200);
    assert!(statement.body.contains("<table>") && !statement.body.contains("|---"), "{}", statement.body);
    assert_eq!(student.get(&format!("{a02}/{latest}/statement")).status, 200);
    assert_eq!(student.get(&format!("{a01}/{}/statement", latest + 1000)).status, 404, "only a result of one's own");
    // (The page holds a01's token, random hex that may contain `a03`: it is left out.)
    let token = a01.trim_start_matches("/s/");
    let others: Vec<String> = (2..=19).map(|n| format!("a{n:02}")).collect();
    for text in [&own.body, &own_json.to_string(), &markdown.body] {
        let text = text.replace(token, "");
        for other in &others {
            assert!(!text.contains(other.as_str()), "a01's page mentions {other}");
        }
    }
    // Whatever a01 does with their token, nothing else is reachable.
    for path in [
        format!("/s/{token}/{rerun}.md"),
        format!("/s/{token}/{}.md", latest + 1000),
        format!("/s/{token}x"),
        format!("/s/{}", &token[..63]),
        "/s/0000000000000000000000000000000000000000000000000000000000000000".to_owned(),
        format!("/s/{token}/../../api/batches"),
    ] {
        let reply = student.get(&path);
        assert!(reply.status == 404 || reply.status == 401 || reply.status == 303, "{path}: {}", reply.status);
        assert!(!reply.body.replace(token, "").contains("a02"), "{path}");
    }
    for path in [
        "/api/batches".to_owned(),
        format!("/api/batches/{batch}"),
        format!("/api/analyses/{id}"),
        format!("/analyses/{id}/files/scores.csv"),
        format!("/analyses/{id}/files/analysis.json"),
        "/api/students".to_owned(),
        "/students/links.csv".to_owned(),
        format!("/api/experiment?batches={batch}"),
        "/api/uploads/1".to_owned(),
    ] {
        let reply = student.get(&path);
        assert!(matches!(reply.status, 401 | 303), "a student reaches {path}: {}", reply.status);
        assert!(!reply.body.contains("a02"), "{path}");
    }
    assert_eq!(student.get(&a02).status, 200, "a02's own link works");
    // Revoked and reissued links: the old one is the 404 of a link that never existed.
    let course = view["batch"]["course_id"].as_i64().unwrap();
    assert_eq!(client.post(&format!("/students/{course}/a01/revoke"), &[]).status, 303);
    let revoked = student.get(&a01);
    let never = student.get(&format!("/s/{}", "0".repeat(32)));
    assert_eq!((revoked.status, revoked.body.as_str()), (404, never.body.as_str()));
    assert_eq!(client.post(&format!("/students/{course}/a01/issue"), &[]).status, 303);
    assert_eq!(student.get(&a01).status, 404, "a reissued link is a new link");
    assert_eq!(client.post(&format!("/students/{}/a01/issue", course + 1), &[]).status, 404, "no such course");
    let links = client.get("/students/links.csv");
    assert!(links.body.starts_with('\u{feff}'), "opened in Excel for a mail merge");
    let (header, rows) = csv_shape(&links.body);
    assert_eq!((header, rows), (vec!["course".to_owned(), "id".to_owned(), "link".to_owned()], 19), "releasing gave every student a link");

    // Log out ends the session.
    assert_eq!(client.post("/logout", &[]).status, 303);
    assert_eq!(client.get("/api/batches").status, 401);
}

#[test]
fn a_student_id_names_one_student_of_one_course_with_one_link_to_that_courses_batches() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let modules: Vec<(String, Vec<u8>)> = ["a01", "a02"]
        .iter()
        .map(|id| (format!("{id}.wasm"), std::fs::read(fixture("interval-sets").join(format!("submissions/{id}.wasm"))).unwrap()))
        .collect();
    let files: Vec<(&str, &str, &[u8])> = modules.iter().map(|(name, bytes)| ("modules", name.as_str(), bytes.as_slice())).collect();
    // Two batches of one course, one of another: each graded and released.
    let batch = |name: &str, course: &str| {
        let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", name), ("course", course)], &files);
        assert_eq!(reply.status, 303, "{}", reply.body);
        let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
        client.wait_for_analysis(run_analysis(&client, batch, &[]));
        assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
        batch
    };
    let (first, second, other) = (batch("First", "Spring"), batch("Second", "Spring"), batch("Elsewhere", "Autumn"));
    // One link for a01 of Spring, whichever of its batches it is issued from.
    let spring = issue_link(&client, first, "a01");
    assert_eq!(client.api(&format!("/api/batches/{second}"))["batch"]["course_id"], client.api(&format!("/api/batches/{first}"))["batch"]["course_id"]);
    let autumn = issue_link(&client, other, "a01");
    assert_ne!(spring, autumn, "a01 of another course is another student");

    let student = Client::new(&service.url);
    let results = |link: &str| -> (String, Vec<String>) {
        let view = student.api(&format!("/api{link}"));
        let batches = view["results"].as_array().unwrap().iter().map(|r| r["batch"].as_str().unwrap().to_owned()).collect();
        (view["course"].as_str().unwrap().to_owned(), batches)
    };
    assert_eq!(results(&spring), ("Spring".to_owned(), vec!["First".to_owned(), "Second".to_owned()]));
    assert_eq!(results(&autumn), ("Autumn".to_owned(), vec!["Elsewhere".to_owned()]));
    let listed: Vec<(String, String)> = client.api("/api/students")["students"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["course"].as_str().unwrap().to_owned(), s["student"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [("Autumn", "a01"), ("Autumn", "a02"), ("Spring", "a01"), ("Spring", "a02")];
    assert_eq!(listed, expected.map(|(c, s)| (c.to_owned(), s.to_owned())));
    let page = client.get(&format!("/problems/{problem}"));
    assert!(page.body.contains(r#"value="Autumn""#), "the form offers the course used last: {}", page.body);
}

#[test]
fn a_new_service_started_in_any_directory_shows_the_demo_ranking_at_once() {
    // The demo problems are built into the binary: no fixtures/ folder is needed.
    let data = tempfile::tempdir().unwrap();
    let service = Service::start_with_demo(data.path(), &[]);
    let client = service.instructor();
    let batches = client.api("/api/batches");
    let batches = batches["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 5, "one batch per demo problem (the paper's three and the LRU cache), and interval sets' cohort in Python");
    let graded: Vec<&serde_json::Value> = batches.iter().filter(|b| b["latest"]["status"] == "done").collect();
    assert_eq!(graded.len(), 1, "one analysis already run");
    // The Batches page says what students see now: the graded batch's results, nothing of
    // the other four (released, never analysed).
    let page = client.get("/batches").body;
    assert_eq!(page.matches("nothing yet: released, but no analysis has finished").count(), 4, "{page}");
    assert!(page.contains("Demo: Interval sets in Python"), "{page}");
    assert_eq!(page.matches("their results of <a").count(), 1, "{page}");
    assert!(batches.iter().all(|b| b["batch"]["released"] == true));
    let analysis = client.api(&format!("/api/analyses/{}", graded[0]["latest"]["id"]));
    assert_eq!(analysis["result"]["answers"].as_array().unwrap().len(), 19);
    // Demo students have links, and the demo batches are released. Each fixture cohort is
    // its own course: its `a01` is not another's.
    let students = client.api("/api/students");
    let students = students["students"].as_array().unwrap();
    assert_eq!(students.iter().filter(|s| s["student"] == "a01").count(), 5);
    // The function-level demo's hand-ins were built with its harnesses at first start.
    let lru = batches.iter().find(|b| b["batch"]["name"].as_str().is_some_and(|n| n.starts_with("LRU cache"))).expect("the LRU cache's batch");
    let lru = client.api(&format!("/api/batches/{}", lru["batch"]["id"]));
    assert_eq!(lru["submissions"].as_array().unwrap().len(), 13, "{lru:#}");
    let graded_course = &graded[0]["batch"]["course_id"];
    let link = students.iter().find(|s| &s["course_id"] == graded_course).unwrap()["link"].as_str().unwrap().to_owned();
    let page = Client::new(&service.url).get(&link);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Your program <strong>"), "the headline: {}", page.body);
}

#[test]
fn an_instructor_added_on_the_command_line_can_log_in() {
    let data = tempfile::tempdir().unwrap();
    let add = |login: &str, password: &str| {
        let mut child = crate::common::bugrank(data.path())
            .args(["user", "add", "--login", login, "--password-stdin", "--data"])
            .arg(data.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        writeln!(child.stdin.take().unwrap(), "{password}").unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(add("alice", "a long enough password").status.success());
    let refused = add("bob", "short");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("at least 8 characters"));
    let service = Service::start(data.path(), &[]);
    assert!(service.password.is_empty(), "no account is made when one exists");
    let mut alice = Client::new(&service.url);
    assert_eq!(alice.login("alice", "a long enough password"), 303);
    assert_eq!(alice.api("/api/problems")["problems"].as_array().unwrap().len(), 0);
    assert_eq!(Client::new(&service.url).login("bob", "short"), 401);
}
