//! Students hand in themselves (issue 49): an instructor opens a batch to hand-ins, each
//! student hands in through their private link and sees at once whether it builds and how
//! it does on the problem's public tests (never on a hidden one), at most once per the
//! instructor's minutes; the last hand-in by the deadline is what the analysis queued at
//! the deadline grades, and late ones follow the late policy.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{Client, Service, fixture, run_analysis, upload_ready, wait_for, zip};

/// The public tests' inputs and the hidden one's: `a01` (insert never joins two
/// intervals that become touching) fails the first.
const TESTS: [(&str, &str); 3] = [("sample-1", "insert 1 [(0,0),(2,2)]\n"), ("sample-2", "empty\n"), ("secret-1", "member 7 [(7,9)]\n")];

/// Interval sets with the course's tests [`TESTS`], a short search, as a bundle.
pub fn bundle() -> Vec<u8> {
    let dir = fixture("interval-sets");
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap().replace("stable_after = 10000", "stable_after = 300");
    let mut files: Vec<(String, Vec<u8>)> = ["generator.wasm", "reference.wasm", "reference.py", "statement.md"]
        .iter()
        .map(|f| (format!("interval-sets/{f}"), std::fs::read(dir.join(f)).unwrap()))
        .collect();
    files.push(("interval-sets/problem.toml".to_owned(), toml.into_bytes()));
    files.extend(TESTS.iter().map(|(name, input)| (format!("interval-sets/tests/{name}.in"), input.as_bytes().to_vec())));
    zip(&files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())
}

pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A `datetime-local` value for `seconds` (UTC).
pub fn datetime(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm), as the service's own.
    let z = days + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let (day, month) = (doy - (153 * mp + 2) / 5 + 1, if mp < 10 { mp + 3 } else { mp - 9 });
    let year = yoe + era * 400 + i64::from(month <= 2);
    let rest = seconds.rem_euclid(86_400);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// A service with the problem uploaded: its data directory, the service, a logged-in
/// instructor and the problem's id.
fn service_with_problem() -> (tempfile::TempDir, Service, Client, String) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_ready(&client, "interval-sets.zip", &bundle()).to_string();
    (data, service, client, problem)
}

/// Opens a batch of `problem` to hand-ins with `window`'s fields and attaches the interval
/// sets roster: the batch and each roster student's private link.
fn open_batch(client: &Client, problem: &str, window: &[(&str, &str)]) -> (i64, Vec<(String, String)>) {
    let mut fields = vec![("problem", problem), ("name", "Lab 3"), ("course", "CS 1"), ("accepting", "1")];
    fields.extend_from_slice(window);
    let opened = client.post("/batches/open", &fields);
    assert_eq!(opened.status, 303, "{}", opened.body);
    let batch: i64 = opened.location.unwrap().trim_start_matches("/batches/").split('#').next().unwrap().parse().unwrap();
    let roster = std::fs::read(fixture("interval-sets").join("roster.csv")).unwrap();
    assert_eq!(client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", &roster)]).status, 200);
    let students = client.api("/api/students");
    let links = students["students"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["student"].as_str().unwrap().to_owned(), s["link"].as_str().unwrap_or_default().to_owned()))
        .collect();
    (batch, links)
}

fn link<'a>(links: &'a [(String, String)], student: &str) -> &'a str {
    &links.iter().find(|(s, _)| s == student).unwrap_or_else(|| panic!("{student} has a link: {links:?}")).1
}

/// Hands in `files` through the student's private link (`/s/<token>`) on `service`,
/// without the instructor's session: the reply.
fn hand_in(service: &Service, link: &str, batch: i64, files: &[(&str, &[u8])]) -> crate::common::Reply {
    let files: Vec<(&str, &str, &[u8])> = files.iter().map(|(name, bytes)| ("files", *name, *bytes)).collect();
    Client::new(&service.url).upload(&format!("{}/batches/{batch}/hand-ins", path_of(link)), &[], &files)
}

/// The path of a link (`/s/<token>`, with or without the service's address).
fn path_of(link: &str) -> &str {
    &link[link.find("/s/").unwrap()..]
}

/// The student's page as JSON once their latest hand-in's pre-check is done.
fn checked(client: &Client, link: &str) -> serde_json::Value {
    wait_for("the pre-check", || Some(client.api(&format!("/api{}", path_of(link)))).filter(|page| page["open"][0]["hand_ins"][0]["status"] != "queued"))
}

pub fn python(student: &str) -> Vec<u8> {
    std::fs::read(fixture("interval-sets").join(format!("submissions-python/{student}.py"))).unwrap()
}

#[test]
fn a_student_hands_in_through_their_link_and_sees_at_once_how_it_does_on_the_public_tests_and_no_other() {
    let (_data, service, client, problem) = service_with_problem();
    let in_a_week = datetime(now() + 7 * 86_400);
    let (batch, links) = open_batch(&client, &problem, &[("deadline", &in_a_week), ("minutes_between", "10"), ("late", "mark")]);
    let a01 = link(&links, "a01");
    let page = client.get(path_of(a01)).body;
    assert!(page.contains("Hand in: Lab 3"), "{page}");
    assert!(client.get(&format!("{}/batches/{batch}/statement", path_of(a01))).body.contains("Interval sets"), "the statement is theirs before any release");

    let handed = hand_in(&service, a01, batch, &[("lab3.py", &python("a01"))]);
    assert_eq!(handed.status, 303, "{}", handed.body);
    assert_eq!(handed.location.as_deref(), Some(format!("{}#hand-in-{batch}", path_of(a01)).as_str()));
    let view = checked(&client, a01);
    let own = &view["open"][0];
    assert_eq!(own["hand_ins"][0]["status"], "done", "{own:#}");
    assert_eq!(own["hand_ins"][0]["file"], "a01.py", "named after the student, whatever the file's name");
    let list = &own["latest"]["list"];
    assert_eq!((list["suite_size"].as_u64(), list["passed"].as_u64(), own["latest"]["hidden_tests"].as_u64()), (Some(2), Some(1), Some(1)), "{list:#}");
    assert_eq!(list["bugs"][0]["test"], "sample-1");
    assert_eq!(list["bugs"][0]["expected"].as_str().unwrap().trim(), "[(0,2)]");
    let page = client.get(path_of(a01)).body;
    assert!(page.contains("passes 1 of the 2 public tests"), "{page}");
    assert!(page.contains("insert 1 [(0,0),(2,2)]"), "the failed public test's input is shown");
    assert!(!page.contains("member 7") && !view.to_string().contains("member 7"), "the hidden test is nowhere on the student's page");

    // Again at once: refused, nothing kept; the page says when.
    let again = hand_in(&service, a01, batch, &[("lab3.py", b"print('[]')\n")]);
    assert_eq!(again.status, 400);
    assert!(again.body.contains("you can hand in again at"), "{}", again.body);
    assert_eq!(client.api(&format!("/api{}", path_of(a01)))["open"][0]["hand_ins"].as_array().unwrap().len(), 1);
    assert!(client.get(path_of(a01)).body.contains("You can hand in again at"));

    // What is not a hand-in is refused by name, and costs no wait.
    let a02 = link(&links, "a02");
    let zipped = hand_in(&service, a02, batch, &[("lab3.zip", &zip(&[("a02.py", &python("a02"))]))]);
    assert_eq!(zipped.status, 400);
    assert!(zipped.body.contains("not a zip"), "{}", zipped.body);
    let not_compiling = hand_in(&service, a02, batch, &[("lab3.py", b"def insert(:\n")]);
    assert_eq!(not_compiling.status, 303, "a program that does not compile is a hand-in: {}", not_compiling.body);
    let view = checked(&client, a02);
    assert!(view["open"][0]["latest"]["list"]["build"]["error"].as_str().unwrap().contains("SyntaxError"), "{view:#}");

    // The instructor sees who handed in, and each pre-check in words.
    let page = client.get(&format!("/batches/{batch}")).body;
    let table = &page[page.find("id=\"own-hand-ins\"").expect("the table of hand-ins")..];
    assert!(table.contains("builds, passes 1 of 2 public tests"), "{table}");
    assert!(table.contains("does not compile"), "{table}");
    assert!(page.contains("2 students handed in themselves"), "{page}");

    // A student of another course cannot hand in to this batch: a plain 404.
    let stranger = "/s/".to_owned() + &"0".repeat(64);
    assert_eq!(hand_in(&service, &stranger, batch, &[("x.py", b"print(1)\n")]).status, 404);
}

#[test]
fn the_analysis_queued_at_the_deadline_grades_each_students_last_hand_in_by_then_and_late_ones_follow_the_policy() {
    let (_data, service, client, problem) = service_with_problem();
    let deadline = now() + 4;
    let (batch, links) = open_batch(&client, &problem, &[("deadline", &datetime(deadline)), ("minutes_between", "1"), ("late", "mark"), ("analyse", "1")]);
    assert_eq!(hand_in(&service, link(&links, "a01"), batch, &[("a01.py", &python("a01"))]).status, 303);
    // a02 hands in after the deadline, perhaps before the analysis is queued: kept, late,
    // and not graded by the deadline's analysis.
    while now() <= deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let late = hand_in(&service, link(&links, "a02"), batch, &[("a02.py", &python("a02"))]);
    assert_eq!(late.status, 303, "{}", late.body);
    let analysis = wait_for("the deadline's analysis", || client.api(&format!("/api/batches/{batch}"))["analyses"][0]["id"].as_i64());
    let graded = client.wait_for_analysis(analysis);
    let answers: Vec<&str> = graded["result"]["answers"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(answers, ["a01"], "only what came by the deadline");
    let page = client.get(&format!("/batches/{batch}")).body;
    assert!(page.contains(&format!("Analysis <a href=\"/analyses/{analysis}\">#{analysis}</a> was queued at the deadline")), "{page}");
    let api = client.api(&format!("/api/batches/{batch}"));
    let a02 = api["submissions"].as_array().unwrap().iter().find(|s| s["student"] == "a02").unwrap();
    assert_eq!(a02["late"], true);

    // An analysis started by hand after the deadline grades the same hand-ins, unless the
    // instructor asks for the late ones too.
    assert!(page.contains("Each student's last hand-in by the deadline"), "{page}");
    let graded_by = |fields: &[(&str, &str)]| -> Vec<String> {
        let done = client.wait_for_analysis(run_analysis(&client, batch, fields));
        done["result"]["answers"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(graded_by(&[("mode", "full")]), ["a01"]);
    assert_eq!(graded_by(&[("mode", "full"), ("hand_ins", "all")]), ["a01", "a02"]);

    // Late hand-ins refused from now on.
    let refuse = client.post(
        &format!("/batches/{batch}/hand-ins"),
        &[("accepting", "1"), ("deadline", &datetime(deadline)), ("minutes_between", "1"), ("late", "refuse"), ("analyse", "1")],
    );
    assert_eq!(refuse.status, 303, "{}", refuse.body);
    let refused = hand_in(&service, link(&links, "a03"), batch, &[("a03.py", &python("a03"))]);
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("late hand-ins are refused"), "{}", refused.body);
    assert_eq!(client.api(&format!("/api/batches/{batch}"))["analyses"].as_array().unwrap().len(), 3, "the same deadline is analysed once (and twice by hand)");

    // Closed by the instructor: the form is gone, a hand-in is a 404.
    assert_eq!(client.post(&format!("/batches/{batch}/hand-ins"), &[("deadline", ""), ("minutes_between", "1"), ("late", "mark")]).status, 303);
    assert!(!client.get(path_of(link(&links, "a03"))).body.contains("Hand in:"));
    assert_eq!(hand_in(&service, link(&links, "a03"), batch, &[("a03.py", &python("a03"))]).status, 404);
}
