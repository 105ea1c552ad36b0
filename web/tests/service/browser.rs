//! The instructor's flow clicked through in a real browser: Debian's headless Chromium,
//! driven over the WebDriver protocol by `chromedriver` (package `chromium-driver`).
//! `.ci/run` installs both; without them the test says what is missing (and fails under
//! CI, where they must be there).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use crate::common::{Service, cohort, fixture, issue_link, problem_bundle, upload_ready, zip};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The W3C WebDriver key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session through chromedriver.
struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Browser {
    fn start(profile: &Path) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(CHROMEDRIVER).arg(format!("--port={port}")).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("chromedriver starts");
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(120)).build();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(120);
        while agent.get(&format!("{base}/status")).call().is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not answer within 2 minutes");
            std::thread::sleep(Duration::from_millis(100));
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1800",
                     format!("--user-data-dir={}", profile.display())]
        }}}});
        let mut browser = Browser { driver, base, session: String::new(), agent };
        let created = browser.call("POST", "/session", capabilities);
        browser.session = created["sessionId"].as_str().expect("a session").to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = if path == "/session" { format!("{}{path}", self.base) } else { format!("{}/session/{}{path}", self.base, self.session) };
        let reply = match method {
            "GET" => self.agent.get(&url).call(),
            _ => self.agent.request(method, &url).set("Content-Type", "application/json").send_string(&body.to_string()),
        };
        let response = match reply {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let value: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
        assert!(value["value"]["error"].is_null(), "{method} {path}: {:#}", value["value"]);
        value["value"].clone()
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", json!({"url": url}));
    }

    fn find(&self, css: &str) -> String {
        let found = self.call("POST", "/element", json!({"using": "css selector", "value": css}));
        found[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}: {found}")).to_owned()
    }

    fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/value"), json!({"text": text}));
    }

    /// Empties a text field.
    fn clear(&self, css: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/clear"), json!({}));
    }

    fn click(&self, css: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/click"), json!({}));
    }

    /// Clicks the link whose text is `text`.
    fn click_link(&self, text: &str) {
        let found = self.call("POST", "/element", json!({"using": "link text", "value": text}));
        let element = found[ELEMENT].as_str().unwrap_or_else(|| panic!("no link {text}")).to_owned();
        self.call("POST", &format!("/element/{element}/click"), json!({}));
    }

    fn source(&self) -> String {
        self.call("GET", "/source", Value::Null).as_str().unwrap().to_owned()
    }

    fn url(&self) -> String {
        self.call("GET", "/url", Value::Null).as_str().unwrap().to_owned()
    }

    /// Waits until the page's source contains `text`.
    fn wait_for(&self, text: &str, seconds: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let source = self.source();
            if source.contains(text) {
                return source;
            }
            assert!(Instant::now() < deadline, "the page never showed `{text}`: {source}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// On a problem's page: uploads `archive` (and `roster`) as batch `name`, checks that
    /// the upload report says `accepted`, opens the batch, runs an analysis and returns
    /// the analysis page once it shows the results.
    fn upload_and_analyse(&self, name: &str, archive: &Path, roster: Option<&Path>, accepted: &str) -> String {
        self.type_into("input[name=name]", name);
        // A problem's first batch proposes no course; a later one, the course of its last.
        self.clear("input[name=course]");
        self.type_into("input[name=course]", "CS 101");
        self.type_into("input[name=modules]", archive.to_str().unwrap());
        if let Some(roster) = roster {
            self.type_into("input[name=roster]", roster.to_str().unwrap());
        }
        self.click("form[enctype='multipart/form-data'] button");
        let report = self.wait_for("Open the batch", 60);
        assert!(report.contains(accepted), "{report}");
        self.click_link("Open the batch");
        self.wait_for("Run an analysis", 30);
        self.click("form[action$='/analyses'] button");
        // The page follows the analysis live and shows the results when it is done.
        self.wait_for("Bug lists", 300)
    }

    /// Saves what the window shows as `file` in the test's temporary folder (to be looked
    /// at: its path is printed, saying it shows `what`) and returns the path.
    /// The page is no wider than the window: nothing to scroll sideways (on a phone).
    fn assert_fits_the_window(&self) {
        let measured = self.call("POST", "/execute/sync", json!({"script": "return [document.documentElement.scrollWidth, window.innerWidth]", "args": []}));
        let (width, window) = (measured[0].as_u64().unwrap(), measured[1].as_u64().unwrap());
        assert!(width <= window, "the page is {width} px wide in a {window} px window");
    }

    fn screenshot(&self, file: &str, what: &str) -> PathBuf {
        let png = self.call("GET", "/screenshot", Value::Null);
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let to = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(file);
        std::fs::write(&to, bytes).unwrap();
        println!("screenshot of {what}: {}", to.display());
        to
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(&format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Whether the browser is missing: then says what to install (a failure under CI, where
/// it must be there).
fn browser_missing() -> bool {
    let missing: Vec<&str> =
        [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")].iter().filter(|(path, _)| !Path::new(path).exists()).map(|(_, package)| *package).collect();
    if missing.is_empty() {
        return false;
    }
    let message = format!(
        "the browser test needs Debian's packages {} ({} missing): `apt-get install chromium chromium-driver`, which .ci/run does",
        ["chromium", "chromium-driver"].join(" and "),
        missing.join(" and ")
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("SKIPPED: {message}");
    true
}

/// Whether the C toolchain is missing (said, and a failure under CI).
fn c_missing() -> bool {
    match toolchain::Builder::new(None).ready(toolchain::Language::C) {
        Ok(_) => false,
        Err(missing) => {
            assert!(std::env::var_os("CI").is_none(), "under CI the C toolchain must be installed: {missing}");
            eprintln!("SKIPPED the C part: {missing}");
            true
        }
    }
}

impl Browser {
    /// Logs in as the service's first instructor.
    fn log_in(&self, service: &Service) {
        self.open(&format!("{}/login", service.url));
        self.type_into("input[name=login]", "instructor");
        self.type_into("input[name=password]", &service.password);
        self.click("button[type=submit]");
        self.wait_for("Log out", 30);
    }
}

#[test]
fn an_instructor_clicks_through_upload_analysis_and_results_in_chromium() {
    if browser_missing() {
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let service = Service::start(&temp.path().join("data"), &[]);
    // The files the instructor picks in the browser's file dialogs.
    let bundle = temp.path().join("interval-sets.zip");
    std::fs::write(&bundle, problem_bundle("interval-sets")).unwrap();
    let modules = cohort("interval-sets");
    let archive = temp.path().join("submissions.zip");
    std::fs::write(&archive, zip(&modules.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())).unwrap();
    // The fixture's roster with a `name` column: a14 has a name, the others none.
    let roster = temp.path().join("roster.csv");
    let named: String = std::fs::read_to_string(fixture("interval-sets").join("roster.csv"))
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            format!(
                "{line},{}\n",
                if i == 0 {
                    "name"
                } else if line.starts_with("a14,") {
                    "Grace Hopper"
                } else {
                    ""
                }
            )
        })
        .collect();
    std::fs::write(&roster, named).unwrap();

    let browser = Browser::start(&temp.path().join("profile"));
    browser.open(&format!("{}/", service.url));
    assert!(browser.url().ends_with("/login"), "logged-out visitors land on the login page");
    browser.type_into("input[name=login]", "instructor");
    browser.type_into("input[name=password]", &service.password);
    browser.click("button[type=submit]");
    browser.wait_for("Log out", 30);

    browser.click_link("Problems");
    browser.type_into("input[name=bundle]", bundle.to_str().unwrap());
    browser.click("form[action='/problems'] button");
    browser.wait_for("Upload a batch of submissions", 60);
    assert!(browser.source().contains("<h2>Statement</h2>"));
    let problem_page = browser.url();

    let results = browser.upload_and_analyse("Assignment 1", &archive, Some(&roster), "19 accepted");
    assert!(results.contains("<svg"), "the diagram is inline");
    assert!(results.contains("a18") && results.contains("19/19"), "the correct answer is ranked");

    // The ranking sorts by a click on a heading (again: reversed) and filters by text;
    // both are kept in the address, so a reload shows the same.
    let ids = |browser: &Browser| -> Vec<String> {
        let found = browser.call("POST", "/execute/sync", json!({"script": "return Array.from(document.querySelectorAll('#ranking tr')).slice(1).filter(r => !r.hidden).map(r => r.cells[1].textContent)", "args": []}));
        found.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
    };
    let ranked = ids(&browser);
    assert_eq!((ranked.len(), ranked[0].as_str()), (19, "a18"), "best first: {ranked:?}");
    browser.click("#ranking th:nth-child(2)");
    browser.click("#ranking th:nth-child(2)");
    let by_name_reversed = ids(&browser);
    let mut expected = ranked.clone();
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(by_name_reversed, expected, "sorted by student, reversed");
    browser.type_into("input[data-filter=ranking]", "a1");
    let filtered = ids(&browser);
    assert!(!filtered.is_empty() && filtered.iter().all(|id| id.contains("a1")), "{filtered:?}");
    assert!(browser.url().contains("ranking-sort=-1") && browser.url().contains("ranking-q=a1"), "{}", browser.url());
    browser.open(&browser.url());
    browser.wait_for("Bug lists", 30);
    assert_eq!(ids(&browser), filtered, "the address keeps the order and the filter");
    let url = browser.url();
    browser.open(url.split('?').next().unwrap());
    browser.wait_for("Bug lists", 30);
    assert_eq!(ids(&browser), ranked, "without the state in the address, the ranking as served");

    // Beside an id, the student's name from the roster, where it has one.
    assert!(ranked.contains(&"a14 Grace Hopper".to_owned()) && ranked.contains(&"a18".to_owned()), "{ranked:?}");

    // A student's name in the ranking opens their bug list, not a folded one.
    // (The page's script opens it on the click: on a busy machine, a moment later.)
    browser.click("#ranking a[href='#bugs-a14']");
    let deadline = Instant::now() + Duration::from_secs(60);
    let is_open = || browser.call("POST", "/execute/sync", json!({"script": "return document.getElementById('bugs-a14').open", "args": []}));
    while is_open() != Value::Bool(true) {
        assert!(Instant::now() < deadline, "the bug list is opened");
        std::thread::sleep(Duration::from_millis(100));
    }

    let shot = browser.screenshot("analysis-page.png", "the analysis page");
    assert!(std::fs::metadata(&shot).unwrap().len() > 20_000, "a real page, not a blank one");

    // From the Batches page: a new batch whose zip carries its roster. A course left
    // blank is refused on a page of the site, with the form again and what was typed.
    let with_roster = temp.path().join("with-roster.zip");
    let roster_bytes = std::fs::read(&roster).unwrap();
    let entries: Vec<(&str, &[u8])> = modules.iter().map(|(n, b)| (n.as_str(), b.as_slice())).chain([("roster.csv", roster_bytes.as_slice())]).collect();
    std::fs::write(&with_roster, zip(&entries)).unwrap();
    browser.click_link("Batches");
    browser.wait_for("New batch", 30);
    browser.type_into("#new-batch input[name=name]", "Assignment 2");
    // The course typed over what the form proposes, the zip chosen (again), sent.
    let send = |course: &str| {
        browser.clear("#new-batch input[name=course]");
        browser.type_into("#new-batch input[name=course]", course);
        browser.type_into("#new-batch input[name=modules]", with_roster.to_str().unwrap());
        browser.click("#new-batch button[type=submit]");
    };
    send("   ");
    let refused = browser.wait_for("name the course the batch belongs to", 30);
    assert!(refused.contains("action=\"/batches\"") && refused.contains("value=\"Assignment 2\""), "{refused}");
    browser.screenshot("refused-upload.png", "a refused upload");
    send("Course B");
    let report = browser.wait_for("Open the batch", 60);
    assert!(report.contains("found in the zip") && report.contains("19 accepted"), "{report}");
    browser.click_link("Batches");
    browser.wait_for("Assignment 2", 30);
    browser.screenshot("batches-page.png", "the Batches page");

    // Revoking a student's link asks first; dismissed, the link stays.
    browser.click_link("Students");
    browser.wait_for("Private link", 30);
    browser.click("form[action$='/a01/issue'] button");
    browser.wait_for("Revoke", 30);
    browser.click("form[action$='/a01/revoke'] button");
    let question = browser.call("GET", "/alert/text", Value::Null);
    assert!(question.as_str().unwrap().starts_with("Revoke a01's link?"), "{question}");
    browser.call("POST", "/alert/dismiss", json!({}));
    assert!(browser.source().contains("/a01/revoke"), "the link is still there");

    // A student's page on a 360 px phone in the system's dark scheme: a14 crashes on every
    // test; the page fits the width (long messages wrap) and is drawn dark.
    let client = service.instructor();
    let batch = client.api("/api/batches")["batches"][0]["batch"]["id"].as_i64().unwrap();
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let link = issue_link(&client, batch, "a14");
    browser.call("POST", "/window/rect", json!({"width": 360, "height": 780}));
    browser.call(
        "POST",
        "/goog/cdp/execute",
        json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}}),
    );
    browser.open(&format!("{}{link}", service.url));
    let page = browser.wait_for("Compared with your class", 30);
    assert!(page.contains("crashed") && page.contains("The problem statement"), "{page}");
    browser.assert_fits_the_window();
    let background = browser.call("POST", "/execute/sync", json!({"script": "return getComputedStyle(document.body).backgroundColor", "args": []}));
    assert_eq!(background, "rgb(13, 17, 23)", "the dark scheme is followed");
    browser.screenshot("student-page-360-dark.png", "a student's page at 360 px, dark");
    browser.click_link("The problem statement");
    browser.wait_for("Back to your results", 30);
    browser.call("POST", "/window/rect", json!({"width": 1400, "height": 1800}));
    browser.call("POST", "/goog/cdp/execute", json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": []}}));

    // A class that hands in C sources uses the same form: a zip of `.c` files, one of
    // which does not compile.
    if c_missing() {
        return;
    }
    let c_sources: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixture("interval-sets").join("submissions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .chain([("c99.c".to_owned(), b"int main(void) { return 0 }\n".to_vec())])
        .collect();
    assert_eq!(c_sources.len(), 3, "two C answers of the cohort and a broken one");
    let c_archive = temp.path().join("c-sources.zip");
    std::fs::write(&c_archive, zip(&c_sources.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())).unwrap();
    browser.open(&problem_page);
    browser.wait_for("How sources are compiled", 30);
    let results = browser.upload_and_analyse("Assignment 1 in C", &c_archive, None, "3 accepted");
    assert!(results.contains("did not compile"), "the ranking says c99 did not compile: {results}");
    assert!(results.contains("c99.c:1:"), "its bug list is the compiler's message: {results}");
}

/// A class of the problem `bugrank new-problem` writes (the largest of a line of integers,
/// `empty` for an empty line) in C, named as Canvas's "Download Submissions" names files:
/// one correct, one whose only bug is the empty line (it prints nothing), one with the
/// template's bug.
fn largest_class() -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("lovelaceada_1001_55501_largest.c", include_bytes!("../../templates/new-problem/submissions/correct.c")),
        ("turingalán_1002_55502_largest.c", b"#include <stdio.h>\nint main() {\n    long long x, best;\n    int n = 0;\n    while (scanf(\"%lld\", &x) == 1) {\n        if (n == 0 || x > best) best = x;\n        n++;\n    }\n    if (n > 0) printf(\"%lld\\n\", best);\n    return 0;\n}\n"),
        ("hoppergrace_LATE_1003_55503_largest.c", include_bytes!("../../templates/new-problem/submissions/buggy.c")),
    ]
}

#[test]
fn an_instructor_releases_grades_reads_the_code_and_round_trips_the_canvas_gradebook_in_chromium() {
    if browser_missing() || c_missing() {
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let service = Service::start(&temp.path().join("data"), &[]);
    let client = service.instructor();
    // The problem `bugrank new-problem` writes, uploaded as a bundle.
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_bugrank")).args(["new-problem", "largest"]).current_dir(temp.path()).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let mut bundle = Vec::new();
    for entry in walk(&temp.path().join("largest")) {
        let name = format!("largest/{}", entry.strip_prefix(temp.path().join("largest")).unwrap().display());
        bundle.push((name, std::fs::read(&entry).unwrap()));
    }
    let bundle = zip(&bundle.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    let problem = upload_ready(&client, "largest.zip", &bundle);
    // The roster is Canvas's own gradebook export: students are Canvas's user ids.
    // It has two assignments: the grades go into the one the instructor picks. Knuth
    // (1004) handed in nothing.
    let roster = "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (5501),Lab 2 (5502)\n    Points Possible,,,,,100,100\n\"Lovelace, Ada\",1001,S1,ada,CS 101 A,,\n\"Turing, Alan\",1002,S2,alan,CS 101 A,,\n\"Hopper, Grace\",1003,S3,grace,CS 101 B,,\n\"Knuth, Donald\",1004,S4,don,CS 101 B,,\n";
    let class = zip(&largest_class());
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "Lab 1"), ("course", "CS 101")],
        &[("modules", "lab1.zip", &class), ("roster", "roster.csv", roster.as_bytes())],
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    // Canvas's names (an accented one too) are read by user id, and its late file is late.
    let submissions = client.api(&format!("/api/batches/{batch}"))["submissions"].clone();
    let late: Vec<(&str, bool)> = submissions.as_array().unwrap().iter().map(|s| (s["student"].as_str().unwrap(), s["late"].as_bool().unwrap())).collect();
    assert_eq!(late, [("1001", false), ("1002", false), ("1003", true)]);
    let analysis = crate::common::run_analysis(&client, batch, &[("seed", "1")]);
    let done = client.wait_for_analysis(analysis);
    assert_eq!(done["analysis"]["status"], "done");

    let browser = Browser::start(&temp.path().join("profile"));
    browser.log_in(&service);

    // Release: the confirmation says how many links it issues; released, every student has one.
    browser.open(&format!("{}/batches/{batch}", service.url));
    browser.click_link("Release to students…");
    let confirm = browser.wait_for("Release to 4 students and issue 4 links", 30);
    assert!(confirm.contains("<strong>4</strong> of them have no private link yet"), "{confirm}");
    browser.screenshot("release-confirmation.png", "the release confirmation");
    browser.click("form[action$='/release'] button");
    let page = browser.wait_for("4 of 4 students have their private link", 30);
    assert!(page.contains("Hide from students"), "{page}");

    // The code beside the results: from the batch's list of submissions, with line numbers.
    browser.click("a[href$='/sources/1002']");
    let code = browser.wait_for("graded now", 30);
    assert!(code.contains("id=\"largest.c-L6\"") && code.contains("if (n == 0 || x &gt; best) best = x;"), "{code}");
    browser.screenshot("source-view.png", "a student's code with line numbers");

    // 1002's only bug is the empty line: their page says so in words, at 360 px.
    let link =
        client.api("/api/students")["students"].as_array().unwrap().iter().find(|s| s["student"] == "1002").unwrap()["link"].as_str().unwrap().to_owned();
    browser.call("POST", "/window/rect", json!({"width": 360, "height": 780}));
    browser.open(&format!("{}{link}", service.url));
    let student = browser.wait_for("Your points", 30);
    assert!(student.contains("nothing (empty)"), "what 1002's program printed is said to be nothing: {student}");
    assert!(student.contains("<code>⏎</code>"), "the input, one line break, is visible: {student}");
    browser.screenshot("student-empty-input-360.png", "a student whose bug is the empty line, at 360 px");
    browser.click_link("The code that was graded");
    let graded = browser.wait_for("Back to your results", 30);
    assert!(graded.contains("id=\"largest.c-L1\""), "{graded}");
    browser.call("POST", "/window/rect", json!({"width": 1400, "height": 1800}));

    // The Canvas gradebook: the instructor picks the assignment of Canvas's export, the
    // file keeps its exact header; read back as the batch's roster: the same students,
    // the same Canvas identities, and the same file again.
    browser.open(&format!("{}/analyses/{analysis}", service.url));
    let page = browser.wait_for("Canvas gradebook into the assignment", 30);
    assert!(page.contains("<option value=\"Lab 2 (5502)\">") && !page.contains("Canvas cannot match"), "{page}");
    browser.screenshot("canvas-assignment-choice.png", "choosing the Canvas assignment the grades go into");
    let canvas = client.get(&format!("/analyses/{analysis}/files/canvas.csv?assignment=Lab%201%20(5501)")).body;
    assert!(canvas.contains("Section,Lab 1 (5501)\n"), "the assignment's exact header: {canvas}");
    assert!(canvas.contains("\"Lovelace, Ada\",1001,S1,ada,CS 101 A,"), "Canvas's name order and identities: {canvas}");
    let canvas_file = temp.path().join("canvas.csv");
    std::fs::write(&canvas_file, &canvas).unwrap();
    browser.open(&format!("{}/batches/{batch}", service.url));
    browser.wait_for("Replace the roster", 30);
    browser.type_into("#roster input[name=roster]", canvas_file.to_str().unwrap());
    browser.click("#roster button");
    let attached = browser.wait_for("The roster of", 30);
    assert!(attached.contains(": 4 rows.") && !attached.contains("have no row"), "{attached}");
    browser.screenshot("canvas-round-trip.png", "the Canvas export attached as the roster");
    // The file attached has one assignment, the one its grades went into.
    browser.open(&format!("{}/analyses/{analysis}", service.url));
    let page = browser.wait_for("Canvas gradebook (into Lab 1 (5501))", 30);
    let href = format!("/analyses/{analysis}/files/canvas.csv?assignment=Lab+1+%285501%29");
    assert!(page.contains(&format!("href=\"{href}\"")), "{page}");
    assert!(client.get(&href).body.contains("Section,Lab 1 (5501)\n"), "the link downloads into the assignment");
    let again = client.get(&format!("/analyses/{analysis}/files/canvas.csv")).body;
    let identities = |text: &str| text.lines().map(|l| l.splitn(6, ',').take(5).collect::<Vec<_>>().join(",")).collect::<Vec<_>>();
    assert_eq!(identities(&again), identities(&canvas), "Canvas's own columns round-trip");

    // Knuth handed in nothing: the batch page lists him, and his own page says so.
    browser.open(&format!("{}/batches/{batch}", service.url));
    let page = browser.wait_for("students on the roster handed in nothing", 30);
    assert!(page.contains("<td>1004</td><td>Knuth, Donald</td>") || page.contains("<td>1004</td><td>Donald Knuth</td>"), "{page}");
    let link_of = |id: &str| {
        client.api("/api/students")["students"].as_array().unwrap().iter().find(|s| s["student"] == id).unwrap()["link"].as_str().unwrap().to_owned()
    };
    browser.call("POST", "/window/rect", json!({"width": 360, "height": 780}));
    browser.open(&format!("{}{}", service.url, link_of("1004")));
    browser.wait_for("Nothing of yours was received for this assignment, so it earns <strong>0 of 100 points</strong>.", 30);
    browser.screenshot("student-no-hand-in-360.png", "a student who handed in nothing, at 360 px");
    browser.call("POST", "/window/rect", json!({"width": 1400, "height": 1800}));

    // Turing hands in a fix late; the re-run waits for the instructor, who sees the grade
    // it changes and releases it.
    let fixed = std::fs::read(temp.path().join("largest/submissions/correct.c")).unwrap();
    let reply = client.upload(&format!("/batches/{batch}/late"), &[("student", "1002")], &[("module", "largest.c", &fixed)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let rerun = crate::common::run_analysis(&client, batch, &[("seed", "1")]);
    assert_eq!(client.wait_for_analysis(rerun)["analysis"]["status"], "done");
    browser.open(&format!("{}/batches/{batch}", service.url));
    let page = browser.wait_for(&format!("Analysis #{rerun}</a> finished after it and is not released"), 30);
    assert!(page.contains("Releasing it changes 1 grades:") && page.contains("<td>1002</td>"), "{page}");
    browser.screenshot("rerun-waiting.png", "a re-run waiting for release, with the grade it changes");
    browser.click("#waiting form button");
    let page = browser.wait_for(&format!("Students see their points, bug lists and code of <a href=\"/analyses/{rerun}\">analysis #{rerun}</a>."), 30);
    assert!(!page.contains("finished after it and is not released"), "{page}");
    assert!(client.get(&link_of("1002")).body.contains("Graded from your late submission."));
}

#[test]
fn a_student_reads_a_function_level_bug_list_on_a_phone_in_chromium() {
    if browser_missing() || c_missing() {
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let service = Service::start(&temp.path().join("data"), &[]);
    let client = service.instructor();
    let files = crate::sources::new_c_problem_files(true, &[]);
    let problem = upload_ready(&client, "stack.zip", &crate::sources::bundle(&files));
    let text = |name: &str| files.iter().find(|(n, _)| n.ends_with(name)).unwrap().1.clone();
    let class = zip(&[("class/a01.c", &text("submissions/correct.c")), ("class/a02.c", &text("submissions/buggy.c"))]);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Stacks"), ("course", "C101")], &[("modules", "class.zip", &class)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    let done = client.wait_for_analysis(crate::common::run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "500")]));
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let link = issue_link(&client, batch, "a02");

    // The failing calls once, as a table of call, expected and got, that fits a phone;
    // the raw input one tap away.
    let browser = Browser::start(&temp.path().join("profile"));
    browser.call("POST", "/window/rect", json!({"width": 360, "height": 780}));
    browser.open(&format!("{}{link}", service.url));
    let page = browser.wait_for("The calls in order", 30);
    assert!(page.contains("first-difference") && page.contains("<summary>The input as the harness reads it</summary>"), "{page}");
    browser.assert_fits_the_window();
    browser.call("POST", "/execute/sync", json!({"script": "document.querySelector('.first-difference').scrollIntoView({block: 'center'})", "args": []}));
    browser.screenshot("function-level-bug-list-360.png", "a function-level bug list at 360 px, at its first difference");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files.sort();
    files
}

impl Browser {
    /// Forgets every cookie: the next person at this browser is someone else.
    fn forget_cookies(&self) {
        self.call("DELETE", "/cookie", json!({}));
    }

    /// `person` of the LMS double launches bugrank from the LMS's link: the LMS's redirect
    /// to the login, its authorization step and the form it posts, all in the browser.
    fn launch_from(&self, lms: &crate::lms::Lms, service: &Service, person: &str) {
        self.forget_cookies();
        self.open(&format!("{}/lti/login?{}", service.url, lms.login_query(person, &format!("{}/lti/launch", service.url))));
    }
}

impl Browser {
    /// `person` launches from the LMS, lands on the form of `batch`, which its link opens,
    /// and hands in `file`: the milliseconds from the launch to the form, the page once it
    /// shows the pre-check, and the milliseconds from the hand-in to that.
    fn hand_in_from(&self, lms: &crate::lms::Lms, service: &Service, person: &str, batch: i64, file: &Path) -> (u128, String, u128) {
        let start = Instant::now();
        self.launch_from(lms, service, person);
        self.wait_for("Hand in: Lab 3", 30);
        let launched = ms(start);
        assert!(self.url().ends_with(&format!("#hand-in-{batch}")), "the form of the batch the link opens: {}", self.url());
        self.type_into("input[name=files]", file.to_str().unwrap());
        let start = Instant::now();
        self.click("form[action$='/hand-ins'] button");
        let checked = self.wait_for("public tests</strong>", 300);
        (launched, checked, ms(start))
    }
}

/// Milliseconds since `start`, for the printed walkthrough.
fn ms(start: Instant) -> u128 {
    start.elapsed().as_millis()
}

#[test]
fn students_launched_from_the_lms_hand_in_with_a_pre_check_and_the_lms_gets_the_points_of_scores_csv_in_chromium() {
    if browser_missing() {
        return;
    }
    let (data, service, lms) = crate::lti::registered();
    crate::lti::let_in_the_instructor(&service, &lms);
    let admin = service.instructor();
    upload_ready(&admin, "interval-sets.zip", &crate::hand_ins::bundle());
    let files = data.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let (a01, correct) = (files.join("lab3.py"), files.join("intervals.py"));
    std::fs::write(&a01, crate::hand_ins::python("a01")).unwrap();
    std::fs::copy(fixture("interval-sets").join("reference.py"), &correct).unwrap();
    let browser = Browser::start(&data.path().join("profile"));
    let mut timings = Vec::new();

    // The instructor opens a batch of the LMS's course to hand-ins, a week to go.
    browser.log_in(&service);
    browser.open(&format!("{}/batches", service.url));
    browser.type_into("#open-batch input[name=name]", "Lab 3");
    browser.type_into("#open-batch input[name=course]", crate::common::COURSE);
    browser.call("POST", "/execute/sync", json!({"script": "document.querySelector('#open-batch input[name=deadline]').value = arguments[0]", "args": [&crate::hand_ins::datetime(crate::hand_ins::now() + 7 * 86_400)[..16]]}));
    browser.click("#open-batch button");
    browser.wait_for("Open to students", 30);
    let batch: i64 = browser.url().split("/batches/").nth(1).unwrap().split('#').next().unwrap().parse().unwrap();

    // Her launch from the LMS's assignment: the link is bound to the batch.
    let start = Instant::now();
    browser.launch_from(&lms, &service, "lms-user-grace");
    browser.wait_for("Bind and send its grades", 30);
    timings.push(("instructor's first launch (login, LMS authorization, launch) to the link's page", ms(start)));
    browser.click("form[action$='/bind'] button");
    browser.wait_for(&format!("/batches/{batch}"), 30);

    // Ann launches, lands on the hand-in form, hands in; the pre-check shows the public
    // test her program fails, and nothing of the hidden one.
    let (launched, checked, in_ms) = browser.hand_in_from(&lms, &service, "lms-a01", batch, &a01);
    timings.push(("student's launch to the hand-in form", launched));
    timings.push(("hand-in to the pre-check on the page (first of the problem: calibration included)", in_ms));
    assert!(checked.contains("passes 1 of the 2 public tests"), "{checked}");
    assert!(checked.contains("insert 1 [(0,0),(2,2)]") && !checked.contains("member 7"), "{checked}");
    assert!(checked.contains("You can hand in again at"), "{checked}");
    browser.screenshot("pre-check.png", "a student's pre-check on the public tests");

    // Bob hands in a correct program.
    let (_, checked, in_ms) = browser.hand_in_from(&lms, &service, "lms-a02", batch, &correct);
    timings.push(("hand-in to the pre-check on the page (problem loaded)", in_ms));
    assert!(checked.contains("passes 2 of the 2 public tests"), "{checked}");

    // The instructor's launch opens the batch: who handed in, then the analysis and the
    // release.
    let start = Instant::now();
    browser.launch_from(&lms, &service, "lms-user-grace");
    let page = browser.wait_for("Hand-ins by students", 30);
    timings.push(("instructor's launch to the batch", ms(start)));
    assert!(page.contains("builds, passes 1 of 2 public tests") && page.contains("builds, passes 2 of 2 public tests"), "{page}");
    let start = Instant::now();
    browser.click("form[action$='/analyses'] button");
    browser.wait_for("Bug lists", 300);
    timings.push(("the class's analysis, from the click to its results", ms(start)));
    let analysis: i64 = browser.url().split("/analyses/").nth(1).unwrap().split(['#', '?']).next().unwrap().parse().unwrap();
    browser.open(&format!("{}/batches/{batch}", service.url));
    browser.click_link("Release to students…");
    browser.wait_for("Release to 2 students", 30);
    let start = Instant::now();
    browser.click("form[action$='/release'] button");
    browser.wait_for("Hide from students", 30);

    // The LMS's gradebook gets each student's points: those of scores.csv.
    let deadline = Instant::now() + Duration::from_secs(60);
    let scores = loop {
        let scores = lms.scores();
        if scores.len() >= 2 {
            break scores;
        }
        assert!(Instant::now() < deadline, "the LMS received {scores:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    timings.push(("release to both scores in the LMS", ms(start)));
    let csv = admin.get(&format!("/analyses/{analysis}/files/scores.csv")).body;
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "points").unwrap();
    let points =
        |student: &str| -> f64 { csv.lines().find(|l| l.starts_with(&format!("{student},"))).unwrap().split(',').nth(column).unwrap().parse().unwrap() };
    let given: Vec<(String, f64)> = scores.iter().map(|(_, s)| (s["userId"].as_str().unwrap().to_owned(), s["scoreGiven"].as_f64().unwrap())).collect();
    let mut expected = vec![("lms-a01".to_owned(), points("a01")), ("lms-a02".to_owned(), points("a02"))];
    let mut given_sorted = given.clone();
    given_sorted.sort_by(|a, b| a.0.cmp(&b.0));
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(given_sorted, expected, "the LMS's scores are scores.csv's points: {csv}");
    assert!(points("a02") > points("a01"), "the correct program earns more: {csv}");
    for (what, ms) in timings {
        println!("timing: {what}: {ms} ms");
    }
}
