//! Grades an instructor publishes: the batch's own maximum of points, one student's
//! adjustment with its reason, release that reaches every student, the links sent by
//! email through a real SMTP server on loopback, and the code beside the results.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Client, Service, run_analysis, serve_command, service_with_cohort, upload_cohort, upload_problem};
use crate::flow::csv_shape;

/// Students' points in an analysis, by id.
fn points(analysis: &serde_json::Value) -> Vec<(String, f64, f64)> {
    analysis["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap().to_owned(), a["points"]["points"].as_f64().unwrap(), a["points"]["max"].as_f64().unwrap()))
        .collect()
}

#[test]
fn a_batch_grades_on_its_own_maximum_and_an_adjustment_with_its_reason_reaches_the_student_and_the_gradebooks() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    let hundred = client.wait_for_analysis(run_analysis(&client, batch, &[("seed", "1")]));
    let on_hundred = points(&hundred["result"]);
    assert!(on_hundred.iter().all(|(_, _, max)| *max == 100.0), "the problem's maximum: {on_hundred:?}");

    // A maximum of 20 for this batch: every program's points scale, nothing else moves.
    let twenty = client.wait_for_analysis(run_analysis(&client, batch, &[("seed", "1"), ("max_points", "20"), ("mode", "full")]));
    assert_eq!(twenty["analysis"]["max_points"], 20.0);
    for ((id, p100, _), (same, p20, max)) in on_hundred.iter().zip(points(&twenty["result"])) {
        assert_eq!((id, max), (&same, 20.0));
        assert!((p20 - p100 / 5.0).abs() <= 0.011, "{id}: {p100} of 100 is {p20} of 20");
    }
    // The next run proposes the batch's maximum again, and a frozen re-run keeps it.
    assert!(client.get(&format!("/batches/{batch}")).body.contains("name=\"max_points\" type=\"number\" min=\"0.01\" max=\"10000\" step=\"any\" value=\"20\""));
    let refused = client.post(&format!("/batches/{batch}/analyses"), &[("max_points", "-3")]);
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("max_points must be more than 0"), "{}", refused.body);

    // a14 crashes on everything: 0 points; the instructor gives 5 for the attempt.
    let adjust = |fields: &[(&str, &str)]| client.post(&format!("/batches/{batch}/adjustments"), fields);
    let no_reason = adjust(&[("student", "a14"), ("points", "5"), ("reason", " ")]);
    assert_eq!(no_reason.status, 400, "a reason is required: the student reads it");
    assert_eq!(adjust(&[("student", "zz"), ("points", "5"), ("reason", "x")]).status, 400, "only a student of the batch");
    assert_eq!(adjust(&[("student", "a14"), ("points", "5"), ("reason", "Partial credit for the attempt")]).status, 303);
    let view = client.api(&format!("/api/batches/{batch}"));
    assert_eq!(view["adjustments"][0][0], "a14");
    assert_eq!(view["adjustments"][0][1]["points"], 5.0);

    let released = client.post(&format!("/batches/{batch}/release"), &[("released", "1")]);
    assert_eq!(released.status, 303);
    let students = client.api("/api/students");
    let a14 = students["students"].as_array().unwrap().iter().find(|s| s["student"] == "a14").unwrap();
    let page = client.api(&format!("/api{}", a14["link"].as_str().unwrap()));
    let shown = &page["results"][0]["points"];
    assert_eq!((shown["points"].as_f64(), shown["max"].as_f64()), (Some(5.0), Some(20.0)), "{shown:#}");
    assert_eq!(shown["adjustment"]["reason"], "Partial credit for the attempt");

    let analysis = twenty["analysis"]["id"].as_i64().unwrap();
    let canvas = client.get(&format!("/analyses/{analysis}/files/canvas.csv")).body;
    let a14_row = canvas.lines().find(|l| l.contains("a14")).unwrap();
    assert!(a14_row.ends_with(",5"), "the gradebook has the adjusted points: {a14_row}");
    assert!(canvas.lines().nth(1).unwrap().ends_with(",20"), "Points Possible is the batch's maximum: {canvas}");
    let ranking = client.get(&format!("/analyses/{analysis}")).body;
    assert!(
        ranking.contains("<span title=\"of 20; the program earned 0, adjusted by +5\">5</span>"),
        "the ranking shows the grade the exports give: {ranking}"
    );
    assert_eq!(client.api(&format!("/api/analyses/{analysis}"))["grades"]["a14"], 5.0);

    // Removing it (empty points) gives the program's own points back.
    assert_eq!(adjust(&[("student", "a14"), ("points", "")]).status, 303);
    let canvas = client.get(&format!("/analyses/{analysis}/files/canvas.csv")).body;
    assert!(canvas.lines().find(|l| l.contains("a14")).unwrap().ends_with(",0"), "{canvas}");
}

#[test]
fn releasing_says_whom_it_reaches_and_issues_every_missing_link() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    let course = client.api(&format!("/api/batches/{batch}"))["batch"]["course_id"].as_i64().unwrap();
    assert_eq!(client.post(&format!("/students/{course}/a01/issue"), &[]).status, 303);
    let before = client.api("/api/students");
    let a01 = before["students"].as_array().unwrap().iter().find(|s| s["student"] == "a01").unwrap()["link"].clone();

    let confirm = client.api(&format!("/api/batches/{batch}/release"));
    assert_eq!(confirm["students"], 19);
    assert_eq!(confirm["without_link"].as_array().unwrap().len(), 18, "a01 has a link already");
    let page = client.get(&format!("/batches/{batch}/release")).body;
    assert!(page.contains("<strong>18</strong> of them have no private link yet") && page.contains("Release to 19 students and issue 18 links"), "{page}");
    assert!(!client.api(&format!("/api/batches/{batch}"))["batch"]["released"].as_bool().unwrap(), "asking is not releasing");

    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let after = client.api("/api/students");
    let links: Vec<&serde_json::Value> = after["students"].as_array().unwrap().iter().map(|s| &s["link"]).collect();
    assert_eq!(links.len(), 19);
    assert!(links.iter().all(|l| l.is_string()), "every student has a link: {after:#}");
    let kept = after["students"].as_array().unwrap().iter().find(|s| s["student"] == "a01").unwrap()["link"].clone();
    assert_eq!(kept, a01, "a link already given is kept");
    assert_eq!(client.api(&format!("/api/batches/{batch}"))["linked"], 19);
    let (header, rows) = csv_shape(&client.get("/students/links.csv").body);
    assert_eq!((header[..3].to_vec(), rows), (vec!["course".to_owned(), "id".into(), "link".into()], 19), "links.csv carries the course");
}

#[test]
fn the_code_of_every_version_is_shown_with_line_numbers_and_a_student_sees_the_version_graded() {
    let temp = tempfile::tempdir().unwrap();
    let service = Service::start(temp.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let batch = upload_cohort(&client, problem, "interval-sets");
    if let Err(missing) = toolchain::Builder::new(None).ready(toolchain::Language::C) {
        assert!(std::env::var_os("CI").is_none(), "under CI the C toolchain must be installed: {missing}");
        eprintln!("SKIPPED: {missing}");
        return;
    }
    // a02 hands in C late, twice: the first version is kept as history.
    let late = |source: &str| client.upload(&format!("/batches/{batch}/late"), &[("student", "a02")], &[("module", "a02.c", source.as_bytes())]);
    assert_eq!(late("int main(void) { return 0; }\n").status, 303);
    let uninitialised = "#include <stdio.h>\nint main(void) {\n    int n;\n    printf(\"%d\\n\", n);\n    return 0;\n}\n";
    assert_eq!(late(uninitialised).status, 303);
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "200")]);
    client.wait_for_analysis(id);

    let versions = client.api(&format!("/api/batches/{batch}/sources/a02"));
    let versions = versions["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 3, "the module, then two sources: {versions:#?}");
    assert_eq!(versions.iter().map(|v| v["current"].as_bool().unwrap()).collect::<Vec<_>>(), [false, false, true]);
    let page = client.get(&format!("/batches/{batch}/sources/a02")).body;
    assert!(page.contains("id=\"a02.c-L4\"") && page.contains("printf(&quot;%d\\n&quot;, n);"), "line 4 is numbered: {page}");
    assert!(page.contains("there is no source to show"), "the first version is a module");
    let warning = page.rfind("a02.c:4:").unwrap_or_else(|| panic!("clang warns of the uninitialised n, at its line: {versions:#?}"));
    assert!(page[..warning].rfind("id=\"a02.c-L4\"").unwrap() > page[..warning].rfind("id=\"a02.c-L3\"").unwrap());
    assert!(client.get(&format!("/analyses/{id}")).body.contains(&format!("href=\"/batches/{batch}/sources/a02\"")), "the ranking links to the code");
    assert_eq!(client.get(&format!("/batches/{batch}/sources/nobody")).status, 404);

    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let link = client.api("/api/students")["students"].as_array().unwrap().iter().find(|s| s["student"] == "a02").unwrap()["link"].as_str().unwrap().to_owned();
    let student = Client::new(&service.url);
    let code = student.get(&format!("{link}/{id}/code"));
    assert_eq!(code.status, 200);
    assert!(code.body.contains("id=\"a02.c-L4\"") && code.body.contains("a02.c:4:"), "{}", code.body);
    assert_eq!(student.get(&format!("{link}/999/code")).status, 404, "only a released result's code");
}

/// An SMTP server on loopback (aiosmtpd, from PyPI) keeping each message in a maildir.
struct SmtpServer {
    child: Child,
    port: u16,
}

impl SmtpServer {
    /// `None` (with a message) when aiosmtpd is missing outside CI.
    fn start(maildir: &Path) -> Option<SmtpServer> {
        let has = Command::new("python3").args(["-c", "import aiosmtpd"]).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
        if !has {
            let message = "the email test needs aiosmtpd: `python3 -m pip install aiosmtpd`, which .ci/run does";
            assert!(std::env::var_os("CI").is_none(), "{message}");
            eprintln!("SKIPPED: {message}");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}"), "-c", "aiosmtpd.handlers.Mailbox"])
            .arg(maildir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "aiosmtpd did not listen within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(SmtpServer { child, port })
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_links_are_emailed_through_the_smtp_server_the_environment_names_after_a_preview() {
    let temp = tempfile::tempdir().unwrap();
    let maildir = temp.path().join("mail");
    let Some(smtp) = SmtpServer::start(&maildir) else { return };
    // The address students reach the service at, not the one the instructor browses from.
    let public = "https://grades.example.edu/cs1";
    let mut command = serve_command(&temp.path().join("data"), &["--no-demo", "--public-url", &format!("{public}/")]);
    command.env("BUGRANK_SMTP_URL", format!("smtp://127.0.0.1:{}", smtp.port)).env("BUGRANK_MAIL_FROM", "Course staff <staff@example.edu>");
    let service = Service::spawn(command);
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let batch = upload_cohort(&client, problem, "interval-sets");
    // Three students have an address; the others are named as left out.
    let roster = "id,cohort,name,email\na01,A,Ada Lovelace,ada@example.edu\na02,A,Alan Turing,alan@example.edu\na03,B,,grace@example.edu\n";
    assert_eq!(client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster.as_bytes())]).status, 200);

    let preview = client.api(&format!("/api/batches/{batch}/emails"));
    assert_eq!(preview["letters"].as_array().unwrap().len(), 0, "no link before release: {preview:#}");
    assert_eq!(client.post(&format!("/batches/{batch}/emails"), &[]).status, 400, "nothing is sent before release");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let preview = client.api(&format!("/api/batches/{batch}/emails"));
    let letters = preview["letters"].as_array().unwrap();
    assert_eq!((letters.len(), preview["left_out"].as_array().unwrap().len()), (3, 16), "{preview:#}");
    assert_eq!(preview["server"], format!("smtp://127.0.0.1:{}", smtp.port));
    let page = client.get(&format!("/batches/{batch}/emails")).body;
    assert!(page.contains("Hello Ada Lovelace,") && page.contains("Send 3 messages through"), "the first message is previewed: {page}");

    let sent = client.post(&format!("/batches/{batch}/emails"), &[]);
    assert_eq!(sent.status, 200, "{}", sent.body);
    assert!(sent.body.contains("3 messages sent."), "{}", sent.body);
    let links = client.api("/api/students");
    let link_of = |id: &str| links["students"].as_array().unwrap().iter().find(|s| s["student"] == id).unwrap()["link"].as_str().unwrap().to_owned();
    // As a mail reader shows them: quoted-printable's soft line breaks joined.
    let received: Vec<String> = std::fs::read_dir(maildir.join("new"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap().replace("=\r\n", "").replace("=\n", "").replace("=3D", "="))
        .collect();
    assert_eq!(received.len(), 3);
    for (address, id, greeting) in
        [("ada@example.edu", "a01", "Hello Ada Lovelace,"), ("alan@example.edu", "a02", "Hello Alan Turing,"), ("grace@example.edu", "a03", "Hello a03,")]
    {
        let message = received
            .iter()
            .find(|m| m.contains(&format!("<{address}>")) || m.contains(&format!("To: {address}")))
            .unwrap_or_else(|| panic!("no message to {address}: {received:#?}"));
        assert!(message.contains("From: \"Course staff\" <staff@example.edu>") || message.contains("From: Course staff <staff@example.edu>"), "{message}");
        assert!(message.contains(greeting) && message.contains(&format!("{public}{}", link_of(id))), "{id}'s own link: {message}");
        assert!(!message.contains(&service.url), "{message}");
    }
    let links = client.get("/students/links.csv").body;
    assert!(links.contains(&format!(",{public}/s/")) && !links.contains(&service.url), "{links}");
}

#[test]
fn without_a_public_address_no_link_is_emailed_and_the_pages_say_why() {
    let temp = tempfile::tempdir().unwrap();
    let mut command = serve_command(&temp.path().join("data"), &["--no-demo"]);
    // A mail server that is never reached: nothing may be sent.
    command.env("BUGRANK_SMTP_URL", "smtp://127.0.0.1:9").env("BUGRANK_MAIL_FROM", "Course staff <staff@example.edu>");
    let service = Service::spawn(command);
    let client = service.instructor();
    let batch = upload_cohort(&client, upload_problem(&client, "interval-sets"), "interval-sets");
    let roster = "id,cohort,name,email\na01,A,Ada Lovelace,ada@example.edu\n";
    assert_eq!(client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster.as_bytes())]).status, 200);
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let page = client.get(&format!("/batches/{batch}/emails")).body;
    assert!(page.contains("Nothing is sent until the service knows the address students reach it at") && !page.contains("Send 1 messages"), "{page}");
    let refused = client.post(&format!("/batches/{batch}/emails"), &[]);
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("--public-url"), "{}", refused.body);
    let students = client.get("/students").body;
    assert!(students.contains(&format!("The links in links.csv start with <code>{}</code>, the address your browser used", service.url)), "{students}");

    let bad = serve_command(&temp.path().join("other"), &["--no-demo", "--public-url", "grades.example.edu"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not an http:// or https:// address"), "{}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn instructor_pages_show_each_students_name_beside_the_id() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    // z90 is on the roster and handed in nothing.
    let roster = "id,cohort,name,email\na01,A,Ada Lovelace,ada@example.edu\na02,A,Alan Turing,alan@example.edu\na03,B,,grace@example.edu\nz90,B,Zed Nobody,zed@example.edu\n";
    let attached = client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster.as_bytes())]);
    assert_eq!(attached.status, 200, "{}", attached.body);
    assert!(
        attached.body.contains("1 students on it handed in nothing: z90. They are part of the class: every export gives them 0 points"),
        "{}",
        attached.body
    );
    let page = client.get(&format!("/batches/{batch}")).body;
    assert!(page.contains("<th>Student</th><th>Name</th>") && page.contains("<td>a01</td><td>Ada Lovelace</td>"), "{page}");
    assert!(page.contains("<td>a03</td><td></td>"), "a row without a name leaves it empty: {page}");
    assert!(page.contains("<td>z90</td><td>Zed Nobody</td><td>B</td><td><strong class=\"bad\">no hand-in</strong></td>"), "{page}");
    assert!(page.contains("1 of the 4 students on the roster handed in nothing."), "{page}");
    assert_eq!(client.post(&format!("/batches/{batch}/no-hand-in"), &[("choice", "none")]).status, 400, "only the two choices");
    assert_eq!(client.post(&format!("/batches/{batch}/no-hand-in"), &[("choice", "empty")]).status, 303);
    assert!(client.get(&format!("/batches/{batch}")).body.contains("with no grade (an empty cell)."), "the choice is kept");
    let students = client.get("/students").body;
    assert!(students.contains("<th>Student</th><th>Name</th>") && students.contains("<td>a02</td><td>Alan Turing</td>"), "{students}");

    let analysis = client.wait_for_analysis(run_analysis(&client, batch, &[("seed", "1")]));
    let id = analysis["analysis"]["id"].as_i64().unwrap();
    let ranking = client.get(&format!("/analyses/{id}")).body;
    assert!(ranking.contains("<a href=\"#bugs-a02\">a02</a> <span class=\"muted\">Alan Turing</span>"), "{ranking}");
    assert!(ranking.contains("<a href=\"#bugs-a03\">a03</a></td>"), "no name, nothing beside the id: {ranking}");
    assert_eq!(client.api(&format!("/api/analyses/{id}"))["names"]["a01"], "Ada Lovelace");
    assert!(ranking.contains("1 students on the roster handed in nothing (z90): every file gives them no grade (an empty cell)."), "{ranking}");
    let scores = client.get(&format!("/analyses/{id}/files/scores.csv")).body;
    let z90 = scores.lines().find(|l| l.starts_with("z90,")).unwrap_or_else(|| panic!("{scores}"));
    assert!(z90.starts_with("z90,B,,,") && z90.contains(",no,"), "{z90}");
    assert_eq!(client.post(&format!("/batches/{batch}/no-hand-in"), &[("choice", "zero")]).status, 303);
    let canvas = client.get(&format!("/analyses/{id}/files/canvas.csv")).body;
    assert!(canvas.lines().any(|l| l == "\"Nobody, Zed\",,,,,0"), "0 points once the instructor chooses them: {canvas}");
}

#[test]
fn a_student_on_the_roster_who_handed_in_nothing_gets_a_link_a_letter_and_a_page_that_say_so() {
    let (_data, service, client, batch) = service_with_cohort("interval-sets");
    // z90 and z91 are on the roster and handed in nothing; z91's points were adjusted.
    let roster = "id,cohort,name,email\na01,A,Ada Lovelace,ada@example.edu\nz90,B,Zed Nobody,zed@example.edu\nz91,B,Zoe Late,zoe@example.edu\n";
    assert_eq!(client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster.as_bytes())]).status, 200);
    assert_eq!(client.post(&format!("/batches/{batch}/adjustments"), &[("student", "z91"), ("points", "5"), ("reason", "doctor's note")]).status, 303);
    assert!(client.get(&format!("/batches/{batch}")).body.contains("<option value=\"z91\">z91 (no hand-in)</option>"), "the form offers them");
    client.wait_for_analysis(run_analysis(&client, batch, &[("seed", "1")]));
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);

    // A private link each, in links.csv too (19 who handed in, and the two).
    let (_, rows) = csv_shape(&client.get("/students/links.csv").body);
    assert_eq!(rows, 21);
    let students = client.api("/api/students");
    let link = |id: &str| {
        students["students"].as_array().unwrap().iter().find(|s| s["student"] == id).unwrap_or_else(|| panic!("{id}: {students:#}"))["link"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // A letter that says nothing was received and what it earns.
    let emails = client.api(&format!("/api/batches/{batch}/emails"));
    let letter = emails["letters"].as_array().unwrap().iter().find(|l| l["student"] == "z90").unwrap_or_else(|| panic!("{emails:#}"));
    assert_eq!(letter["subject"], format!("{}: nothing received for {}", crate::common::COURSE, emails["batch"]["name"].as_str().unwrap()));
    assert!(letter["body"].as_str().unwrap().contains(", so it earns 0 points. Your private page says so:"), "{letter:#}");
    assert!(emails["left_out"].as_array().unwrap().iter().all(|l| l[0] != "z90"), "{emails:#}");
    let ada = emails["letters"].as_array().unwrap().iter().find(|l| l["student"] == "a01").unwrap();
    assert!(ada["subject"].as_str().unwrap().contains("your results for"), "{ada:#}");

    // A page that says so, with the adjustment; the others' pages are as they were.
    let page = |id: &str| Client::new(&service.url).get(&link(id)).body;
    let z90 = page("z90");
    assert!(z90.contains("Nothing of yours was received for this assignment, so it earns <strong>0 of 100 points</strong>."), "{z90}");
    assert!(!z90.contains("No results have been released to you yet"), "{z90}");
    let z91 = page("z91");
    assert!(z91.contains("so it earns <strong>5 of 100 points</strong>.") && z91.contains("doctor's note"), "{z91}");
    assert!(page("a01").contains("Your points: "), "a student who handed in sees their results");
    // No grade, if the instructor chooses so.
    assert_eq!(client.post(&format!("/batches/{batch}/no-hand-in"), &[("choice", "empty")]).status, 303);
    assert!(page("z90").contains("Nothing of yours was received for this assignment. It has no grade here"), "{}", page("z90"));
    let emails = client.api(&format!("/api/batches/{batch}/emails"));
    let letter = emails["letters"].as_array().unwrap().iter().find(|l| l["student"] == "z90").unwrap();
    assert!(letter["body"].as_str().unwrap().contains("so it has no grade: your instructor decides what it counts for."), "{letter:#}");
}

#[test]
fn the_canvas_gradebook_lands_in_the_assignment_of_canvas_export_the_instructor_picks() {
    let (_data, _service, client, batch) = service_with_cohort("interval-sets");
    // Canvas's gradebook export with two assignments and Canvas's own score columns;
    // a19 is not in it.
    let mut export =
        String::from("Student,ID,SIS User ID,SIS Login ID,Section,Interval sets (5501),Lab 2 (5502),Current Score\n    Points Possible,,,,,100,10,\n");
    for i in 1..=18 {
        export.push_str(&format!("\"Student, Number {i}\",a{i:02},S{i},login{i},Section A,,,\n"));
    }
    assert_eq!(client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "gradebook.csv", export.as_bytes())]).status, 200);
    let analysis = client.wait_for_analysis(run_analysis(&client, batch, &[("seed", "1")]));
    let id = analysis["analysis"]["id"].as_i64().unwrap();
    assert_eq!(analysis["canvas_assignments"], serde_json::json!(["Interval sets (5501)", "Lab 2 (5502)"]));
    let page = client.get(&format!("/analyses/{id}")).body;
    assert!(
        page.contains("<option value=\"Interval sets (5501)\">Interval sets (5501)</option><option value=\"Lab 2 (5502)\">"),
        "the instructor picks: {page}"
    );
    assert!(page.contains("Canvas cannot match 1 of 19 students: the roster gives no Canvas ID or SIS id for a19."), "{page}");
    assert!(page.contains("Canvas takes the points as they are, of 100"), "{page}");

    let unchosen = client.get(&format!("/analyses/{id}/files/canvas.csv"));
    assert_eq!(unchosen.status, 400);
    assert!(unchosen.body.contains("choose the Canvas assignment the grades go into"), "{}", unchosen.body);
    let wrong = client.get(&format!("/analyses/{id}/files/canvas.csv?assignment=Lab%203%20(5503)"));
    assert_eq!(wrong.status, 400);
    assert!(wrong.body.contains("has no assignment <code>Lab 3 (5503)</code>"), "{}", wrong.body);
    let canvas = client.get(&format!("/analyses/{id}/files/canvas.csv?assignment=Lab%202%20(5502)"));
    assert_eq!(canvas.status, 200, "{}", canvas.body);
    let header = canvas.body.trim_start_matches('\u{feff}').lines().next().unwrap().to_owned();
    assert_eq!(header, "Student,ID,SIS User ID,SIS Login ID,Section,Lab 2 (5502)", "Canvas's exact header: the grades land in its assignment");
    assert!(canvas.body.contains("\n\"Student, Number 1\",a01,S1,login1,Section A,"), "{}", canvas.body);
}
