//! Hostile requests to `bugrank serve`: each case gets a fresh service on a temporary data
//! directory, and its bounds are on the case's wall time (from the service being up) and
//! on the service process's peak memory.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::common::{COURSE, Client, Service, fixture, run_analysis, upload_problem, upload_ready, wait_until_running, zip};
use crate::modules::{command, flood, sleep};
use crate::{Case, Measured};

#[path = "../service/raw.rs"]
#[allow(dead_code)]
mod raw;

/// A case against a fresh `bugrank serve` started with `args`; `run` does it and says
/// what happened.
pub fn served(name: &'static str, args: &'static [&'static str], run: fn(&Service) -> String, max_seconds: f64, max_peak_mb: u64) -> Case {
    served_by(name, crate::common::serve_command, args, run, max_seconds, max_peak_mb)
}

/// [`served`] by the service `command` starts (on its data directory, with `args`).
fn served_by(
    name: &'static str,
    command: fn(&std::path::Path, &[&str]) -> std::process::Command,
    args: &'static [&'static str],
    run: fn(&Service) -> String,
    max_seconds: f64,
    max_peak_mb: u64,
) -> Case {
    Case {
        name,
        max_seconds,
        max_peak_mb,
        run: Box::new(move || {
            let data = tempfile::tempdir().unwrap();
            let mut command = command(data.path(), args);
            command.arg("--no-demo");
            let service = Service::spawn(command);
            let started = service.cpu_seconds();
            let outcome = run(&service);
            Measured { outcome, seconds: service.cpu_seconds() - started, peak_mb: service.memory_mb("VmHWM") }
        }),
    }
}

/// Uploads `files` as a batch of the interval-sets problem (uploaded first); the reply.
fn upload_batch(client: &Client, files: &[(&str, &str, &[u8])]) -> crate::common::Reply {
    let problem = upload_problem(client, "interval-sets");
    client.upload(&format!("/problems/{problem}/batches"), &[("name", "Hostile"), ("course", COURSE)], files)
}

/// The reasons an upload's files were rejected for.
fn rejections(client: &Client, upload: i64) -> Vec<String> {
    let report = client.api(&format!("/api/uploads/{upload}"));
    report["report"]["files"].as_array().unwrap().iter().filter_map(|f| f["rejected"].as_str().map(str::to_owned)).collect()
}

/// A zip of `entries` entries of `mib` MiB of zeros each, named `e<i>.wasm`: a few MB
/// compressed. The entry is compressed once and its compressed bytes copied.
fn zeros_zip(entries: usize, mib: usize) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(false);
    out.start_file("e0.wasm", options).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..mib {
        out.write_all(&zeros).unwrap();
    }
    for i in 1..entries {
        out.deep_copy_file("e0.wasm", &format!("e{i}.wasm")).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// 128 wrong logins at once, half for the instructor and half for no account, each from
/// its own loopback address from `client_address(first)` on (all from one address when
/// `one_address`). Every one is refused: the counts of 401 and 429. From addresses of
/// their own, a login told to wait (429: the checks are busy) tries again a tenth of a
/// second later, so that every password is checked (401).
fn flood_of_wrong_logins(service: &Service, first: u32, one_address: bool) -> (usize, usize) {
    let threads: Vec<_> = (0..128)
        .map(|i| {
            let url = service.url.clone();
            let source = raw::client_address(if one_address { first } else { first + i });
            let login = if i % 2 == 0 { "instructor" } else { "nobody" };
            std::thread::spawn(move || {
                let attempt = || raw::login_from(source, &url, login, "a wrong password").unwrap();
                let mut status = attempt();
                for _ in 0..600 {
                    if one_address || status != 429 {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    status = attempt();
                }
                status
            })
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let count = |status| statuses.iter().filter(|&&s| s == status).count();
    assert_eq!(count(401) + count(429), 128, "every wrong login is refused: {statuses:?}");
    (count(401), count(429))
}

fn login_flood(service: &Service) -> String {
    let (wrong, waiting) = flood_of_wrong_logins(service, 0, true);
    format!("all refused: {wrong} × 401, {waiting} × 429")
}

/// Memory must stay flat across floods of password checks (argon2's 19 MiB each): ten
/// floods, each from 128 fresh addresses so that none is throttled by its address, every
/// password checked. (Thirty took 88 s; a leak of one hash's memory per flood shows in
/// ten as well: 190 MB against the bound of 40.)
fn ten_login_floods(service: &Service) -> String {
    const FLOODS: u32 = 10;
    let mut resident = Vec::new();
    let mut wrong = 0;
    for flood in 0..FLOODS {
        let (checked, _) = flood_of_wrong_logins(service, 1 + flood * 128, false);
        assert_eq!(checked, 128, "every password of flood {flood} is checked");
        wrong += checked;
        resident.push(service.memory_mb("VmRSS"));
    }
    let (after_first, last) = (resident[0], resident[resident.len() - 1]);
    assert!(last <= after_first + 40, "resident memory grows across floods: {resident:?} MB");
    format!("{wrong} × 401 (each checked); resident {after_first} MB after the first flood, {last} MB after the last")
}

/// `count` connections from one address stall in their request (its head or its body):
/// the service keeps at most its bound of them, answers another address within a second
/// meanwhile, and cuts the rest within the time bound of a request.
fn stalled_flood(service: &Service, count: usize, stall: raw::Stall) -> String {
    let bound = raw::answer_bound(raw::client_address(2), &service.url);
    let started = Instant::now();
    let mut stalled = raw::stalled_connections(raw::client_address(1), &service.url, count, stall);
    let asked = Instant::now();
    let answer = raw::exchange(raw::client_address(2), &service.url, "GET /login HTTP/1.1\r\n", b"").expect("another client is answered");
    let answered = asked.elapsed();
    assert_eq!(answer.status, 200);
    assert!(answered < bound, "another client waited {answered:?} (bound {bound:?})");
    let refused_at_once = raw::closed_by_the_service(&mut stalled, bound);
    let most = web::serve::connections::MAX_CONNECTIONS_PER_ADDRESS;
    assert!(refused_at_once >= count - most, "{refused_at_once} of {count} closed at once, {most} may stay");
    let all_closed = raw::closed_by_the_service(&mut stalled, Duration::from_secs(60));
    assert_eq!(all_closed, count, "every stalled connection is cut");
    format!("{refused_at_once} closed at once, all within {:.0} s; another address answered in {} ms", started.elapsed().as_secs_f64(), answered.as_millis())
}

fn stalled_bodies(service: &Service) -> String {
    stalled_flood(service, 4_000, raw::Stall::Body)
}

fn stalled_headers(service: &Service) -> String {
    stalled_flood(service, 2_000, raw::Stall::Headers)
}

fn two_zip_bombs(service: &Service) -> String {
    let client = service.instructor();
    let bomb = zeros_zip(63, 33);
    let reply = upload_batch(&client, &[("modules", "bomb1.zip", &bomb), ("modules", "bomb2.zip", &bomb)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let reasons = rejections(&client, reply.redirect_id());
    // An entry over the size limit counts as far as it was read: 32 of the 33 MiB
    // entries exhaust the 1 GiB budget, and each zip is refused whole.
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.iter().all(|r| r.contains("unpack to more than")), "{reasons:?}");
    format!("{} MB upload of 4 GiB unpacked: both zips refused past the 1 GiB budget", (bomb.len() * 2) >> 20)
}

fn zips_past_the_unpacked_budget(service: &Service) -> String {
    let client = service.instructor();
    let zip = zeros_zip(40, 16);
    let reply = upload_batch(&client, &[("modules", "one.zip", &zip), ("modules", "two.zip", &zip)]);
    let said = if reply.status == 303 { rejections(&client, reply.redirect_id()).join("; ") } else { reply.body.clone() };
    assert!(said.contains("unpack to more than"), "{} {said}", reply.status);
    "1.25 GiB of entries in one upload: refused past the 1 GiB budget".to_owned()
}

fn unsafe_zip_paths(service: &Service) -> String {
    let client = service.instructor();
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let evil = zip(&[("a01.wasm", &a01), ("../a02.wasm", &a01), ("/etc/a03.wasm", &a01)]);
    let reply = upload_batch(&client, &[("modules", "evil.zip", &evil)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let reasons = rejections(&client, reply.redirect_id());
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.iter().all(|r| r.contains("unsafe path in zip")), "{reasons:?}");
    "held: 2 unsafe paths named, nothing written".to_owned()
}

fn malformed_multipart(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let path = format!("/problems/{problem}/batches");
    let unterminated = b"--xyz\r\nContent-Disposition: form-data; name=\"modules\"; filename=\"a.wasm\"\r\n\r\nno end".to_vec();
    for (content_type, body) in [
        ("multipart/form-data; boundary=xyz", unterminated),
        ("multipart/form-data", b"no boundary at all".to_vec()),
        ("multipart/form-data; boundary=xyz", b"--xyz\r\n\r\n\r\n--xyz--".to_vec()),
    ] {
        let reply = client.post_raw(&path, content_type, body);
        assert_eq!(reply.status, 400, "{content_type}: {}", reply.body);
    }
    "3 × 400".to_owned()
}

fn oversized_upload(service: &Service) -> String {
    let client = service.instructor();
    let big = vec![0u8; 64 << 20];
    let reply = upload_batch(&client, &[("modules", "big.wasm", &big)]);
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert!(reply.body.contains("larger than the limit of 1 MiB"), "{}", reply.body);
    "413 for 64 MiB over a 1 MiB limit, not buffered".to_owned()
}

fn long_text_field(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let long_name = "x".repeat(100 << 10);
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", &long_name), ("course", COURSE)], &[("modules", "a01.wasm", &a01)]);
    assert_eq!(reply.status, 413);
    assert!(reply.body.contains("the form field <code>name</code> is larger than 64 KiB"), "{}", reply.body);
    "413: the field named with its limit".to_owned()
}

fn bundle_named_dot_zip(service: &Service) -> String {
    let client = service.instructor();
    let bundle = crate::common::problem_bundle("interval-sets");
    let reply = client.upload("/problems", &[], &[("bundle", ".zip", &bundle)]);
    assert!(reply.status == 303 || reply.status == 400, "{} {}", reply.status, reply.body);
    format!("{} (not 500)", reply.status)
}

fn script_links_in_a_statement(service: &Service) -> String {
    let client = service.instructor();
    let dir = fixture("interval-sets");
    let statement = "[a](javascript:alert(1)) <javascript:alert(2)> [b][r] [c](data:text/html,<script>alert(3)</script>) [d](https://example.org/)\n\n[r]: javascript:alert(4)\n";
    let mut files: Vec<(String, Vec<u8>)> = course::problem_dir::PROBLEM_FILES
        .iter()
        .filter(|f| **f != "statement.md")
        .filter_map(|f| Some((format!("p/{f}"), std::fs::read(dir.join(f)).ok()?)))
        .collect();
    files.push(("p/statement.md".to_owned(), statement.as_bytes().to_vec()));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let problem = upload_ready(&client, "p.zip", &zip(&files));
    let page = client.get(&format!("/problems/{problem}"));
    assert!(!page.body.contains("href=\"javascript:") && !page.body.contains("href=\"data:"), "{}", page.body);
    assert!(page.body.contains("href=\"https://example.org/\""), "a safe link stays a link");
    assert!(page.headers["content-security-policy"].contains("script-src 'self'"), "{:?}", page.headers);
    "4 script links inert, the https one live, CSP sent".to_owned()
}

/// A batch of the honest a01 and hostile modules, graded by the service.
fn hostile_batch(client: &Client) -> i64 {
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let sleeper = sleep(1 << 62, true);
    let bomb = command("", 1, "(loop (br_if 0 (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) unreachable");
    let flooder = flood(1, 65_536);
    let reply = upload_batch(
        client,
        &[("modules", "a01.wasm", &a01), ("modules", "a02.wat", &sleeper), ("modules", "a03.wat", &bomb), ("modules", "a04.wat", &flooder)],
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap()
}

fn hostile_batch_graded(service: &Service) -> String {
    let client = service.instructor();
    let batch = hostile_batch(&client);
    let done = client.wait_for_analysis(run_analysis(&client, batch, &[]));
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let answers = done["result"]["answers"].as_array().unwrap();
    let counts = |id: &str| answers.iter().find(|a| a["id"] == id).unwrap()["counts"].clone();
    for (id, kind) in [("a02", "timeout"), ("a03", "memory"), ("a04", "output")] {
        assert!(counts(id)[kind].as_u64().unwrap() > 0, "{id} should fail by {kind}: {}", counts(id));
    }
    "done: sleeper timeout, bomb memory, flood output".to_owned()
}

fn cancel_within_a_second(service: &Service) -> String {
    let client = service.instructor();
    let batch = hostile_batch(&client);
    let running = run_analysis(&client, batch, &[("stable_after", "1000000")]);
    wait_until_running(&client, running);
    let (ended, cpu) = crate::common::cpu_spent(service.pid(), || {
        assert_eq!(client.post(&format!("/analyses/{running}/cancel"), &[]).status, 303);
        client.wait_for_analysis(running)
    });
    assert_eq!(ended["analysis"]["status"], "cancelled");
    // Within a second of each of the service's two threads: the runs in flight (the
    // sleeper's is its whole budget), in CPU time, which a busy machine does not stretch.
    assert!(cpu < 2.0, "cancelled after {cpu:.2} s of the service's CPU");
    format!("cancelled after {cpu:.2} s of the service's CPU")
}

fn the_largest_module_uploaded(service: &Service) -> String {
    let client = service.instructor();
    let module = crate::modules::largest_small_functions();
    let reply = upload_batch(&client, &[("modules", "a01.wasm", &module)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "{upload:#}");
    let after = service.memory_mb("VmRSS");
    assert!(after < 300, "the service keeps {after} MB after compiling one module");
    format!("saved; {after} MB resident after")
}

/// Interval sets uploaded to a new data directory: its `reference.py` is checked, so the
/// service makes CPython's snapshot (once per data directory; every other case starts with
/// it made, as a service that ever met Python has it).
fn the_first_python_reference_uploaded(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let page = client.get(&format!("/problems/{problem}")).body;
    assert!(page.contains("reference.py"), "the check of reference.py is on the problem's page");
    format!("saved; {} MB resident after", service.memory_mb("VmRSS"))
}

fn forged_forms_and_guessed_tokens(service: &Service) -> String {
    let mut forger = Client::new(&service.url);
    assert_eq!(forger.login("instructor", &service.password), 303);
    forger.csrf = Some("0".repeat(64));
    assert_eq!(forger.post("/logout", &[]).status, 403, "a form without this session's token");
    let stranger = Client::new(&service.url);
    for path in [
        "/s/0000000000000000000000000000000000000000000000000000000000000000",
        "/s/../api/batches",
        "/analyses/1/files/..%2F..%2Fbugrank.sqlite",
        "/api/students",
    ] {
        let status = stranger.get(path).status;
        assert!(matches!(status, 401 | 303 | 404), "{path}: {status}");
    }
    "403 forged form; 401/404 for guessed tokens and traversal".to_owned()
}

/// `bugrank serve` with a mail server URL that would send its password in the clear: it
/// refuses to start, naming the setting (never the password), before it binds anything.
fn a_password_for_plain_smtp() -> Case {
    Case {
        name: "a mail server's password over plain SMTP",
        max_seconds: 10.0,
        max_peak_mb: 200,
        run: Box::new(|| {
            let data = tempfile::tempdir().unwrap();
            let serve = || {
                let mut command = crate::common::serve_command_cold(data.path(), &["--no-demo"]);
                command.env("BUGRANK_SMTP_URL", "smtp://staff:s3cret@mail.example.edu:25").env("BUGRANK_MAIL_FROM", "Staff <staff@example.edu>");
                command
            };
            let process = crate::measure::measure(serve(), Duration::from_secs(20));
            assert_eq!(process.exit_code, Some(1), "refused to start");
            let said = String::from_utf8_lossy(&serve().output().unwrap().stderr).into_owned();
            assert!(said.contains("BUGRANK_SMTP_URL has a user and password, which this URL would send unencrypted"), "{said}");
            assert!(!said.contains("s3cret"), "{said}");
            Measured { outcome: "refused to start, naming BUGRANK_SMTP_URL".to_owned(), seconds: process.cpu_seconds(), peak_mb: process.peak_mb }
        }),
    }
}

pub fn cases() -> Vec<Case> {
    // Bounds: the service alone uses some 50 MB; each case takes well under 2 s here.
    vec![
        served("128 simultaneous wrong logins", &[], login_flood, 10.0, 300),
        served("10 floods of 128 simultaneous wrong logins, 1,280 addresses", &[], ten_login_floods, 100.0, 300),
        served("4,000 connections from one address stalling in their bodies", &[], stalled_bodies, 40.0, 300),
        served("2,000 connections from one address stalling in their headers", &[], stalled_headers, 40.0, 300),
        served("two zip bombs in one upload (2 × 63 × 33 MiB)", &[], two_zip_bombs, 20.0, 200),
        served("zips unpacking past 1 GiB in one upload", &[], zips_past_the_unpacked_budget, 20.0, 250),
        served("a zip with ../ and absolute paths", &[], unsafe_zip_paths, 10.0, 200),
        served("a malformed multipart body", &[], malformed_multipart, 10.0, 200),
        served("a 64 MiB upload over a 1 MiB limit", &["--max-upload-mib", "1"], oversized_upload, 10.0, 200),
        served("a form field over 64 KiB", &[], long_text_field, 10.0, 200),
        served("a bundle file named .zip", &[], bundle_named_dot_zip, 10.0, 200),
        served("script links in a statement", &[], script_links_in_a_statement, 10.0, 200),
        served("a batch of a sleeper, a memory bomb and a flood", &[], hostile_batch_graded, 30.0, 250),
        served("cancelling the analysis of a hostile batch", &[], cancel_within_a_second, 10.0, 250),
        served("the largest accepted module, uploaded", &[], the_largest_module_uploaded, 60.0, 1_500),
        served("forged forms, guessed tokens, traversal", &[], forged_forms_and_guessed_tokens, 10.0, 200),
        // Compiling CPython twice (instrumented, then its snapshot) and running its start-up.
        served_by("the first Python reference uploaded", crate::common::serve_command_cold, &[], the_first_python_reference_uploaded, 30.0, 450),
        a_password_for_plain_smtp(),
    ]
}
