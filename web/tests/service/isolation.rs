//! What a student's sources can learn of the machine that compiles them: nothing. The
//! service and the command line run with secrets in their environment (a deployment's
//! database password), and students hand in sources that include the host's processes'
//! environments and command lines; no page, bug list, API answer or file shows them, nor
//! bubblewrap's arguments, nor a host path.

use std::path::Path;
use std::process::Command;

use crate::common::{Service, fixture, issue_link, run_analysis, serve_command, upload_problem, zip};
use crate::sources::{can_build, walk};

/// Secrets in bugrank's own environment, as a deployment has them (`PGPASSWORD` is read
/// only when the store is PostgreSQL; these tests use SQLite).
const SECRETS: [(&str, &str); 2] = [("PGPASSWORD", "pg-s3cr3t-71a4"), ("BUGRANK_TEST_SECRET", "s3cr3t-e9b1")];

/// The start of the name of bugrank's temporary directory, where it builds sources.
const HOST_TMP: &str = "host-tmp-5d2c";

/// The anonymizer's students: two fixture sources that compile (an analysis needs one),
/// and sources reading the first process's environment and command line (bubblewrap's,
/// in the sandbox) and the compiler's own environment, by `#include`, `include_bytes!`,
/// `include_str!` and `#[path]`. A Rust one that compiles prints what it read.
fn students() -> Vec<(String, Vec<u8>)> {
    let file = |name: &str| std::fs::read(fixture("anonymizer").join("submissions").join(name)).unwrap();
    let c = |path: &str| format!("#include \"{path}\"\nint main(void) {{ return 0; }}\n").into_bytes();
    let print =
        |read: &str| format!("static READ: &[u8] = {read};\nfn main() {{ use std::io::Write; std::io::stdout().write_all(READ).unwrap(); }}\n").into_bytes();
    vec![
        ("a09.c".into(), file("a09.c")),
        ("a01.rs".into(), file("a01.rs")),
        ("environ1.c".into(), c("/proc/1/environ")),
        ("environ.c".into(), c("/proc/self/environ")),
        ("cmdline1.c".into(), c("/proc/1/cmdline")),
        ("environ1_rs.rs".into(), print("include_bytes!(\"/proc/1/environ\")")),
        ("environ_rs.rs".into(), print("include_str!(\"/proc/self/environ\").as_bytes()")),
        ("cmdline1_rs.rs".into(), b"#[path = \"/proc/1/cmdline\"]\nmod x;\nfn main() {}\n".to_vec()),
    ]
}

/// What must appear nowhere: the secrets, bubblewrap's arguments, the host's `dirs`
/// (bugrank's temporary directory, where the build directories are; the service's data
/// directory), and the toolchains' directories on this machine.
fn host_state(dirs: &[&Path]) -> Vec<String> {
    let mut host: Vec<String> = SECRETS.iter().map(|(_, value)| value.to_string()).collect();
    host.extend(["--unshare-all", "--die-with-parent", "--clearenv"].map(str::to_owned));
    host.extend(dirs.iter().map(|dir| dir.display().to_string()));
    let builder = toolchain::Builder::new(None);
    for language in toolchain::Language::ALL {
        if let Ok(toolchain) = builder.toolchains().get(language) {
            host.extend(toolchain.mounts.iter().map(|mount| mount.host.display().to_string()));
        }
    }
    host
}

fn assert_shows_none(what: &str, text: &str, host: &[String]) {
    for secret in host {
        assert!(!text.contains(secret.as_str()), "{what} shows `{secret}`: {text}");
    }
}

/// `command` with the secrets in its environment and its temporary directory in `tmp`.
fn with_secrets(mut command: Command, tmp: &Path) -> Command {
    command.envs(SECRETS).env("TMPDIR", tmp);
    command
}

#[test]
fn the_services_environment_and_the_sandboxs_arguments_appear_on_no_page_bug_list_or_download() {
    if !can_build() {
        return;
    }
    let (data, tmp) = (tempfile::tempdir().unwrap(), tempfile::Builder::new().prefix(HOST_TMP).tempdir().unwrap());
    let service = Service::spawn(with_secrets(serve_command(data.path(), &["--no-demo"]), tmp.path()));
    let client = service.instructor();
    let problem = upload_problem(&client, "anonymizer");
    let students = students();
    let entries: Vec<(String, &[u8])> = students.iter().map(|(name, bytes)| (format!("class/{name}"), bytes.as_slice())).collect();
    let archive = zip(&entries.iter().map(|(name, bytes)| (name.as_str(), *bytes)).collect::<Vec<_>>());
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Snoops"), ("course", "C101")], &[("modules", "class.zip", &archive)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "{upload:#}");
    let batch = upload["batch"].as_i64().unwrap();
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "500")]);
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    assert_eq!(done["result"]["answers"].as_array().unwrap().len(), students.len(), "every student is graded");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);

    let host = host_state(&[tmp.path(), data.path()]);
    assert_shows_none("the analysis's API answer", &done.to_string(), &host);
    for path in [format!("/analyses/{id}"), format!("/analyses/{id}/files/analysis.json"), format!("/batches/{batch}")] {
        let reply = client.get(&path);
        assert_eq!(reply.status, 200, "{path}");
        assert_shows_none(&path, &reply.body, &host);
    }
    for (file, _) in &students {
        let student = file.rsplit_once('.').unwrap().0;
        let link = issue_link(&client, batch, student);
        for path in [link.clone(), format!("/api{link}"), format!("{link}/{id}.md")] {
            let reply = client.get(&path);
            assert_eq!(reply.status, 200, "{student}: {path}");
            assert_shows_none(&format!("{student}'s {path}"), &reply.body, &host);
        }
    }
    // Nor does the data directory keep them (a build, a stored output).
    for file in walk(data.path()) {
        assert_shows_none(&file.display().to_string(), &String::from_utf8_lossy(&std::fs::read(&file).unwrap()), &host);
    }
}

#[test]
fn bugrank_grade_shows_its_environment_and_the_sandboxs_arguments_in_no_file_it_writes() {
    if !can_build() {
        return;
    }
    let (dir, tmp) = (tempfile::tempdir().unwrap(), tempfile::Builder::new().prefix(HOST_TMP).tempdir().unwrap());
    let (submissions, out, cache) = (dir.path().join("class"), dir.path().join("out"), dir.path().join("cache"));
    std::fs::create_dir(&submissions).unwrap();
    for (name, bytes) in students() {
        std::fs::write(submissions.join(name), bytes).unwrap();
    }
    let mut grade = with_secrets(Command::new(env!("CARGO_BIN_EXE_bugrank")), tmp.path());
    grade.env("BUGRANK_CACHE", &cache).args(["grade", "--seed", "1", "--stable-after", "500", "--problem"]).arg(fixture("anonymizer"));
    let ran = grade.arg("--submissions").arg(&submissions).arg("--out").arg(&out).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success(), "{stderr}");
    let host = host_state(&[tmp.path()]);
    assert_shows_none("the printed ranking", &format!("{stdout}{stderr}"), &host);
    let written = walk(&out);
    assert!(written.iter().any(|f| f.ends_with("analysis.json")), "{written:?}");
    for file in written.into_iter().chain(walk(&cache)) {
        assert_shows_none(&file.display().to_string(), &String::from_utf8_lossy(&std::fs::read(&file).unwrap()), &host);
    }
}
