//! The service as a user meets it: the real `bugrank serve` process on port 0 with a
//! temporary data directory, driven over HTTP.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

pub fn fixture(problem: &str) -> PathBuf {
    root().join("fixtures/problems").join(problem)
}

/// The CPU time so far of process `pid`, user and system, its own and its finished
/// children's (`/proc/PID/stat`).
pub fn cpu_seconds_of(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process is running");
    // After the command's name in parentheses: fields 3 on; utime, stime, cutime and
    // cstime are fields 14 to 17, in clock ticks.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("Linux's format").1.split_whitespace().collect();
    let ticks: u64 = fields[11..15].iter().map(|f| f.parse::<u64>().expect("a number of ticks")).sum();
    // SAFETY: a query of a constant of the system.
    ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// Does `work` and says what it cost process `pid` in CPU seconds, with what it returned.
///
/// How a test bounds promptness (a cancel that stops the runs in flight and no more) so
/// that a busy machine does not fail it: on a loaded machine the wall time of the same
/// work grows with the load, its CPU time does not (issue 51). Pitfall: a child the
/// process has not reaped yet is not counted.
#[allow(dead_code)]
pub fn cpu_spent<T>(pid: u32, work: impl FnOnce() -> T) -> (T, f64) {
    let before = cpu_seconds_of(pid);
    let value = work();
    (value, cpu_seconds_of(pid) - before)
}

/// A running `bugrank serve`, killed when dropped.
pub struct Service {
    child: Child,
    pub url: String,
    /// The first instructor's password, as printed on the first start (else empty).
    pub password: String,
}

/// `bugrank` with the store of `data`: SQLite in it, or in the PostgreSQL tests the
/// throwaway server's database of `data` (`BUGRANK_DATABASE`).
pub fn bugrank(data: &Path) -> Command {
    with_python_snapshot(data);
    bugrank_cold(data)
}

/// [`bugrank`] on `data` as it is: a new data directory has not made CPython's snapshot yet.
pub fn bugrank_cold(data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bugrank"));
    if crate::on_postgres() {
        command.env("BUGRANK_DATABASE", crate::postgres::Postgres::shared().database_for(data));
    }
    command
}

/// Puts CPython's compiled snapshot into `data`'s `compiled/`, as any service has it once
/// it made it: a problem with a `reference.py` (interval sets) needs it, and making it
/// costs a fresh data directory some 7 s and 330 MB once, which every test uploading
/// interval sets would otherwise pay again (the adversarial case "the first Python
/// reference uploaded" measures it, on a cold directory). The snapshot is made once per
/// test binary, by the same sandbox code as the service's.
pub fn with_python_snapshot(data: &Path) {
    static SNAPSHOTS: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let made = SNAPSHOTS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = sandbox::Sandbox::new().unwrap().with_disk_cache(dir.path().to_owned()).unwrap();
        course::load::python(&sandbox).unwrap();
        dir
    });
    let compiled = data.join("compiled");
    std::fs::create_dir_all(&compiled).unwrap();
    for entry in std::fs::read_dir(made.path()).unwrap() {
        let path = entry.unwrap().path();
        let target = compiled.join(path.file_name().unwrap());
        if path.to_string_lossy().ends_with(".snapshot.cwasm") && !target.exists() {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// `bugrank serve` on `data`, on a free port, with `args`.
pub fn serve_command(data: &Path, args: &[&str]) -> Command {
    with_python_snapshot(data);
    serve_command_cold(data, args)
}

/// [`serve_command`] on `data` as it is, CPython's snapshot not made (see
/// [`with_python_snapshot`]).
pub fn serve_command_cold(data: &Path, args: &[&str]) -> Command {
    let mut command = bugrank_cold(data);
    command.args(["serve", "--bind", "127.0.0.1:0", "--data"]).arg(data).args(args);
    command
}

impl Service {
    /// Starts the service on `data` with `args`, without demo data.
    pub fn start(data: &Path, args: &[&str]) -> Service {
        let mut command = serve_command(data, args);
        command.arg("--no-demo");
        Service::spawn(command)
    }

    /// Starts the service on `data` with `args` and the demo data built into the binary,
    /// from `data` as its working directory: the README's command, run anywhere.
    pub fn start_with_demo(data: &Path, args: &[&str]) -> Service {
        let mut command = serve_command(data, args);
        command.current_dir(data);
        Service::spawn(command)
    }

    pub fn spawn(mut command: Command) -> Service {
        let child = command.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("bugrank starts");
        // Owned by the guard at once, so that the process dies with a failing test.
        let mut service = Service { child, url: String::new(), password: String::new() };
        let stdout = service.child.stdout.take().unwrap();
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                println!("[service] {line}");
                let _ = lines.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let line = received.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("the service prints its URL within 5 minutes");
            if let Some(rest) = line.split("with password `").nth(1) {
                service.password = rest.trim_end_matches('`').to_owned();
            }
            if let Some(url) = line.strip_prefix("bugrank is listening on ") {
                service.url = url.trim_end_matches('/').to_owned();
                return service;
            }
        }
    }

    /// A memory figure of the process from `/proc`, in MB: `VmHWM` (the peak so far) or
    /// `VmRSS` (now). The adversarial corpus bounds them.
    #[allow(dead_code)]
    pub fn memory_mb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("the service is running");
        let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).expect("Linux reports it");
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
    }

    /// The process's CPU time so far (see [`cpu_seconds_of`]). The adversarial corpus
    /// bounds it.
    #[allow(dead_code)]
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds_of(self.child.id())
    }

    /// The process's id, for [`cpu_spent`].
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process with SIGKILL, as a crash or the OOM killer would.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// A client logged in as the first instructor.
    pub fn instructor(&self) -> Client {
        let mut client = Client::new(&self.url);
        assert_eq!(client.login("instructor", &self.password), 303, "the printed password logs in");
        client
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response, whatever its status.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub content_type: String,
    /// Every header, by lower-case name.
    pub headers: std::collections::BTreeMap<String, String>,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    /// The id at the end of the redirect's location (`/uploads/7` gives 7).
    pub fn redirect_id(&self) -> i64 {
        let location = self.location.as_deref().unwrap_or_else(|| panic!("no redirect: {} {}", self.status, self.body));
        location.rsplit('/').next().unwrap().parse().unwrap()
    }
}

/// A browser-like client: one session cookie, no automatic redirects.
pub struct Client {
    agent: ureq::Agent,
    base: String,
    cookie: Option<String>,
    pub csrf: Option<String>,
}

impl Client {
    pub fn new(base: &str) -> Client {
        let agent = ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(120)).build();
        Client { agent, base: base.to_owned(), cookie: None, csrf: None }
    }

    /// Logs in through the login form; returns the status (303 on success). Picks up
    /// the session's CSRF token.
    pub fn login(&mut self, login: &str, password: &str) -> u16 {
        self.login_reply(login, password).status
    }

    /// Like [`Client::login`], with the whole reply.
    pub fn login_reply(&mut self, login: &str, password: &str) -> Reply {
        let form = self.agent.get(&format!("{}/login", self.base)).call().expect("the login page");
        let cookie = form.header("set-cookie").expect("the login form sets its CSRF cookie").split(';').next().unwrap().to_owned();
        let token = csrf_of(&form.into_string().unwrap());
        self.login_form(login, password, Some(&cookie), Some(&token))
    }

    /// Posts the login form as given: a forged one lacks the cookie or the token.
    pub fn login_with(&mut self, login: &str, password: &str, cookie: Option<&str>, token: Option<&str>) -> u16 {
        self.login_form(login, password, cookie, token).status
    }

    fn login_form(&mut self, login: &str, password: &str, cookie: Option<&str>, token: Option<&str>) -> Reply {
        let mut request = self.agent.post(&format!("{}/login", self.base));
        if let Some(cookie) = cookie {
            request = request.set("Cookie", cookie);
        }
        let mut fields = vec![("login", login), ("password", password)];
        fields.extend(token.map(|t| ("csrf", t)));
        let reply = reply_of(match request.send_form(&fields) {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{e}"),
        });
        if reply.status == 303 {
            let cookie = reply.headers.get("set-cookie").expect("a session cookie");
            self.cookie = Some(cookie.split(';').next().unwrap().to_owned());
            self.csrf = Some(csrf_of(&self.get("/batches").body));
        }
        reply
    }

    fn send(&self, request: ureq::Request, body: Option<(&str, Vec<u8>)>) -> Reply {
        let request = match &self.cookie {
            Some(cookie) => request.set("Cookie", cookie),
            None => request,
        };
        let result = match body {
            Some((content_type, bytes)) => request.set("Content-Type", content_type).send_bytes(&bytes),
            None => request.call(),
        };
        reply_of(match result {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("request failed: {e}"),
        })
    }

    /// Takes the session cookie `reply` sets (an LTI launch's), if it sets one.
    pub fn keep_cookie(&mut self, reply: &Reply) {
        if let Some(cookie) = reply.headers.get("set-cookie") {
            self.cookie = Some(cookie.split(';').next().unwrap().to_owned());
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send(self.agent.get(&format!("{}{path}", self.base)), None)
    }

    /// GET of a JSON API route that must succeed.
    pub fn api(&self, path: &str) -> serde_json::Value {
        let reply = self.get(path);
        assert_eq!(reply.status, 200, "GET {path}: {}", reply.body);
        reply.json()
    }

    /// Posts a form with this session's CSRF token added.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        if let Some(csrf) = &self.csrf {
            all.push(("csrf", csrf));
        }
        // application/x-www-form-urlencoded: unreserved bytes as they are, others as %XX.
        let encode = |text: &str| -> String {
            text.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
        };
        let body: Vec<String> = all.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        self.send(self.agent.post(&format!("{}{path}", self.base)), Some(("application/x-www-form-urlencoded", body.join("&").into_bytes())))
    }

    /// Posts a multipart form: text `fields` (the CSRF token added) and `files`
    /// as `(field, file name, bytes)`.
    pub fn upload(&self, path: &str, fields: &[(&str, &str)], files: &[(&str, &str, &[u8])]) -> Reply {
        const BOUNDARY: &str = "----bugrank-test-boundary-7d3f";
        let mut body = Vec::new();
        let csrf = self.csrf.clone();
        let fields = fields.iter().map(|&(k, v)| (k, v.to_owned())).chain(csrf.map(|c| ("csrf", c)));
        for (name, value) in fields {
            write!(body, "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").unwrap();
        }
        for (field, file, bytes) in files {
            write!(
                body,
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .unwrap();
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        write!(body, "--{BOUNDARY}--\r\n").unwrap();
        self.post_raw(path, &format!("multipart/form-data; boundary={BOUNDARY}"), body)
    }

    /// Posts `body` as it is, with this session's cookie.
    pub fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        self.send(self.agent.post(&format!("{}{path}", self.base)), Some((content_type, body)))
    }

    /// Waits until analysis `id` is no longer queued or running; returns its JSON.
    pub fn wait_for_analysis(&self, id: i64) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let view = self.api(&format!("/api/analyses/{id}"));
            let status = view["analysis"]["status"].as_str().unwrap().to_owned();
            if status != "queued" && status != "running" {
                return view;
            }
            assert!(Instant::now() < deadline, "analysis {id} still {status} after 10 minutes");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn reply_of(response: ureq::Response) -> Reply {
    Reply {
        status: response.status(),
        location: response.header("location").map(str::to_owned),
        content_type: response.content_type().to_owned(),
        headers: response.headers_names().into_iter().map(|name| (name.to_ascii_lowercase(), response.header(&name).unwrap_or_default().to_owned())).collect(),
        body: response.into_string().unwrap_or_default(),
    }
}

/// The CSRF token a page's forms carry.
pub fn csrf_of(page: &str) -> String {
    let value = page.split("name=\"csrf\" value=\"").nth(1).expect("the page carries a CSRF token");
    value.split('"').next().unwrap().to_owned()
}

/// A zip of `(name, bytes)` entries, in memory.
pub fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(bytes).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// The problem directory's bundle: the files of `problem` a bundle carries, in a folder.
pub fn problem_bundle(problem: &str) -> Vec<u8> {
    let dir = fixture(problem);
    let files: Vec<(String, Vec<u8>)> =
        course::problem_dir::PROBLEM_FILES.iter().filter_map(|f| Some((format!("{problem}/{f}"), std::fs::read(dir.join(f)).ok()?))).collect();
    zip(&files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())
}

/// The cohort's modules as `(file name, bytes)`, sorted.
pub fn cohort(problem: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixture(problem).join("submissions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Uploads `problem`'s bundle and returns its id.
pub fn upload_problem(client: &Client, problem: &str) -> i64 {
    upload_ready(client, &format!("{problem}.zip"), &problem_bundle(problem))
}

/// Uploads bundle `bytes` named `file` as a new problem, which its check must make; the
/// problem's id.
pub fn upload_ready(client: &Client, file: &str, bytes: &[u8]) -> i64 {
    let check = upload_bundle(client, "/problems", file, bytes);
    assert_eq!(check["status"], "ready", "{check:#}");
    check["problem_id"].as_i64().unwrap()
}

/// Uploads bundle `bytes` named `file` to `path` (`/problems`, or `/problems/N/bundle` to
/// replace problem N), which answers at once with its check's page, and waits for the
/// check to end: its JSON then (`status` `ready` with the `problem_id`, or `refused` with
/// the `error`).
pub fn upload_bundle(client: &Client, path: &str, file: &str, bytes: &[u8]) -> serde_json::Value {
    let reply = client.upload(path, &[], &[("bundle", file, bytes)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let location = reply.location.clone().unwrap_or_default();
    assert!(location.starts_with("/problems/checks/"), "the answer is the check's page: {location}");
    wait_for(&format!("the check of {file} to end"), || Some(client.api(&format!("/api{location}"))).filter(|check| check["status"] != "checking"))
}

/// Asks `probe` every 50 ms until it gives something, for at most 10 minutes (a generous
/// deadline: a loaded machine is slow, never wrong).
pub fn wait_for<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(Instant::now() < deadline, "waited 10 minutes for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The course of the batches [`upload_cohort`] uploads.
pub const COURSE: &str = "Course A";

/// Issues `student` of `batch`'s course a private link; returns its path.
pub fn issue_link(client: &Client, batch: i64, student: &str) -> String {
    let course = client.api(&format!("/api/batches/{batch}"))["batch"]["course_id"].as_i64().unwrap();
    assert_eq!(client.post(&format!("/students/{course}/{student}/issue"), &[]).status, 303);
    let students = client.api("/api/students");
    let entry = students["students"].as_array().unwrap().iter().find(|s| s["student"] == student && s["course_id"] == course);
    entry.expect("the student is listed with their course")["link"].as_str().unwrap().to_owned()
}

/// Uploads `problem`'s whole cohort (one zip) with its roster as a batch; returns the
/// batch id. The upload must be clean.
pub fn upload_cohort(client: &Client, problem_id: i64, problem: &str) -> i64 {
    let modules = cohort(problem);
    let archive = zip(&modules.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    let roster = std::fs::read(fixture(problem).join("roster.csv")).unwrap();
    let reply = client.upload(
        &format!("/problems/{problem_id}/batches"),
        &[("name", "Assignment 1"), ("course", COURSE)],
        &[("modules", "cohort.zip", &archive), ("roster", "roster.csv", &roster)],
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "{upload:#}");
    upload["batch"].as_i64().unwrap()
}

/// A fresh service with `problem`'s bundle and cohort uploaded: its data directory (kept
/// while the tuple lives), the service, a logged-in instructor and the batch's id.
pub fn service_with_cohort(problem: &str) -> (tempfile::TempDir, Service, Client, i64) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem_id = upload_problem(&client, problem);
    let batch = upload_cohort(&client, problem_id, problem);
    (data, service, client, batch)
}

/// Waits until analysis `id` is running and has tried some tests.
pub fn wait_until_running(client: &Client, id: i64) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let view = client.api(&format!("/api/analyses/{id}"));
        if view["analysis"]["status"] == "running" && view["progress"]["tests_generated"].as_u64().unwrap_or(0) > 0 {
            return view;
        }
        assert!(Instant::now() < deadline, "analysis {id} never started: {view:#}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Queues an analysis of `batch` with form `fields`; returns its id.
pub fn run_analysis(client: &Client, batch: i64, fields: &[(&str, &str)]) -> i64 {
    let reply = client.post(&format!("/batches/{batch}/analyses"), fields);
    assert_eq!(reply.status, 303, "{}", reply.body);
    reply.redirect_id()
}
