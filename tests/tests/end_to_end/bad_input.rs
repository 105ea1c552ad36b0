//! Bad input gets a clear message naming the file or line, and the rest is still graded.

use std::io::Write;
use std::path::Path;

use end_to_end::{FIXTURE, grade, problem_dir};

fn copy_modules(to: &Path) {
    for entry in std::fs::read_dir(problem_dir().join("submissions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wasm") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

const SNEAKY: &str = r#"(module
  (import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))"#;

fn reasons(run: &end_to_end::Written) -> Vec<String> {
    run.graded.rejected.iter().map(|r| r.reason.clone()).collect()
}

#[test]
fn a_broken_module_a_forbidden_import_and_a_short_roster_line_are_named_and_the_rest_is_graded() {
    let dir = tempfile::tempdir().unwrap();
    copy_modules(dir.path());
    std::fs::write(dir.path().join("broken.wasm"), "this is a text file, not a module\n").unwrap();
    std::fs::write(dir.path().join("sneaky.wat"), SNEAKY).unwrap();
    let roster = dir.path().join("roster.csv");
    let mut text = std::fs::read_to_string(problem_dir().join("roster.csv")).unwrap();
    text.push_str("a20,hunit\n");
    std::fs::write(&roster, text).unwrap();

    let submissions = dir.path().display().to_string();
    let roster_arg = roster.display().to_string();
    let run = grade(&[("--submissions", &submissions), ("--roster", &roster_arg), ("--stable-after", "300")]);

    let reasons = reasons(&run);
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
    assert!(reasons[0].starts_with("broken.wasm: not a valid WebAssembly module"), "{}", reasons[0]);
    assert!(reasons[1].starts_with("sneaky.wat: imports `wasi_snapshot_preview1.sock_accept`, which programs may not use"), "{}", reasons[1]);
    assert_eq!(reasons[2], format!("{roster_arg} line 21: expected 4 fields (id,cohort,manual,note), found 2"));
    assert_eq!(run.graded.analysis.answers.len(), FIXTURE.answers, "the good submissions are all graded");

    let json: serde_json::Value = serde_json::from_str(&run.files["analysis.json"]).unwrap();
    let files: Vec<&str> = json["rejected"].as_array().unwrap().iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(files[..2], ["broken.wasm", "sneaky.wat"]);
}

#[test]
fn a_zip_batch_is_graded_and_entries_with_unsafe_paths_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let zip_path = dir.path().join("batch.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for entry in std::fs::read_dir(problem_dir().join("submissions")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        zip.start_file(format!("class/{name}"), options).unwrap();
        zip.write_all(&std::fs::read(&path).unwrap()).unwrap();
    }
    for evil in ["../escape.wasm", "/etc/cron.d/job.wasm", "class/../../up.wasm"] {
        zip.start_file(evil, options).unwrap();
        zip.write_all(b"\0asm\x01\0\0\0").unwrap();
    }
    zip.finish().unwrap();

    let batch = zip_path.display().to_string();
    let run = grade(&[("--submissions", &batch), ("--stable-after", "300")]);
    let reasons = reasons(&run);
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
    for reason in &reasons {
        assert!(reason.ends_with("unsafe path in zip (absolute or with `..`)"), "{reason}");
    }
    assert_eq!(run.graded.analysis.answers.len(), FIXTURE.answers);
    assert!(!dir.path().join("escape.wasm").exists() && !Path::new("/etc/cron.d/job.wasm").exists());
}

#[test]
fn a_roster_without_an_id_column_is_an_error_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, "student,group\na01,hunit\n").unwrap();
    let error = course::roster::read_roster(&roster).unwrap_err();
    let error = error.to_string();
    assert!(error.contains("the header must name the column `id`") && error.ends_with("(found: student,group)"), "{error}");
}

#[test]
fn identical_modules_run_once_and_get_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    copy_modules(dir.path());
    let submissions = dir.path().display().to_string();
    let alone = grade(&[("--submissions", &submissions), ("--stable-after", "300")]);
    std::fs::copy(dir.path().join("a01.wasm"), dir.path().join("copy-of-a01.wasm")).unwrap();
    let twice = grade(&[("--submissions", &submissions), ("--stable-after", "300")]);

    let warnings = &twice.graded.warnings;
    assert_eq!(warnings, &["submission `copy-of-a01` has no roster row: graded without a cohort"]);
    let (alone, twice) = (&alone.graded.analysis, &twice.graded.analysis);
    assert_eq!(twice.executions, alone.executions, "the copy adds no runs");
    let result = |id: &str| twice.answers.iter().find(|a| a.id == id).unwrap();
    assert_eq!(result("copy-of-a01").failed, result("a01").failed);
    let class = twice.order.classes.iter().find(|c| c.answers.contains(&"a01".to_string())).unwrap();
    assert!(class.answers.contains(&"copy-of-a01".to_string()));
    assert_eq!(result("copy-of-a01").cohort, None, "it has no roster row");
}

#[test]
fn a_symbolic_link_or_a_directory_named_like_a_module_is_named_and_not_read() {
    let dir = tempfile::tempdir().unwrap();
    copy_modules(dir.path());
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("z01.wasm")).unwrap();
    std::fs::create_dir(dir.path().join("z02.wasm")).unwrap();
    let submissions = dir.path().display().to_string();
    let run = grade(&[("--submissions", &submissions), ("--stable-after", "300")]);
    let reasons = reasons(&run);
    assert_eq!(reasons.len(), 2, "{reasons:#?}");
    assert!(reasons[0].contains("z01.wasm is a symbolic link, which is not followed"), "{}", reasons[0]);
    assert!(reasons[1].contains("z02.wasm is a folder, not a module"), "{}", reasons[1]);
    assert_eq!(run.graded.analysis.answers.len(), FIXTURE.answers);
}
