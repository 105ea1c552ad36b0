//! Hostile judges' packages given to `bugrank import`: links out of the package (to the
//! host's secrets, to the importing process's own environment), loops of links, a sparse
//! file of gigabytes, a `problem.yaml` nested without end, a data file with no name. The
//! import reads only the package's own regular files, each after its size is checked, and
//! leaves out alone, by name, what it does not read.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::measure::measure;
use crate::{Case, Measured};

/// The fixture package (`fixtures/packages/average`) copied into `dir`: the hostile files
/// are added to a real package, so that everything else still imports.
fn real_package(dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/packages/average");
    let to = dir.join("average");
    copy_tree(&from, &to);
    to
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn import_command(package: &Path, out: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bugrank"));
    command.arg("import").arg(package).arg("--out").arg(out);
    command
}

/// Runs `bugrank import package --out out` (killed past `KILLED_PAST` times `max_seconds`
/// of wall time): its exit code and what it cost.
fn import(package: &Path, out: &Path, max_seconds: f64) -> (Option<i32>, f64, u64) {
    let process = measure(import_command(package, out), Duration::from_secs_f64(max_seconds * crate::KILLED_PAST));
    (process.exit_code, process.cpu_seconds(), process.peak_mb)
}

/// An import that must be refused, measured: its cost, and the error it printed (from a
/// second run, which nothing measures).
fn refused(package: &Path, out: &Path, max_seconds: f64) -> (String, f64, u64) {
    let (code, seconds, peak_mb) = import(package, out, max_seconds);
    assert_eq!(code, Some(1), "refused");
    assert!(!out.exists(), "nothing written");
    let output = import_command(package, out).output().unwrap();
    (String::from_utf8_lossy(&output.stderr).into_owned(), seconds, peak_mb)
}

/// Every file's bytes under `dir`, with its path.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            found.extend(all_files(&entry.path()));
        } else {
            found.push((entry.path(), std::fs::read(entry.path()).unwrap()));
        }
    }
    found
}

fn links_out_of_the_package() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    for (link, target) in [
        ("data/secret/05-passwd.in", "/etc/passwd"),
        ("data/secret/06-shadow.in", "/etc/shadow"),
        ("data/secret/07-environ.in", "/proc/self/environ"),
        ("data/sample/3.in", "../../../../../../../etc/passwd"),
        ("submissions/wrong_answer/passwd.c", "/etc/passwd"),
        ("output_validators", "/etc"),
    ] {
        symlink(target, package.join(link)).unwrap();
    }
    std::fs::remove_file(package.join("problem_statement/problem.en.md")).unwrap();
    symlink("/etc/shadow", package.join("problem_statement/problem.en.md")).unwrap();
    let out = dir.path().join("out");
    let (code, seconds, peak_mb) = import(&package, &out, 10.0);
    assert_eq!(code, Some(0), "the rest of the package imports");
    let notes = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    for left_out in [
        "data/secret/05-passwd.in",
        "data/secret/06-shadow.in",
        "data/secret/07-environ.in",
        "data/sample/3.in",
        "submissions/wrong_answer/passwd.c",
        "problem_statement/problem.en.md",
    ] {
        assert!(notes.contains(&format!("{left_out} is a symbolic link to a file outside the package")), "{left_out} is named in IMPORT.md:\n{notes}");
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let first_line = passwd.lines().next().unwrap();
    for (path, bytes) in all_files(&out) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(first_line) && !text.contains("PATH=") && !text.contains("root:"), "{} holds a host file", path.display());
    }
    assert_eq!(std::fs::read_dir(out.join("tests")).unwrap().count(), 12, "the package's own 6 tests, with their answers");
    Measured { outcome: "6 links to /etc and /proc left out by name; the 6 own tests imported".to_owned(), seconds, peak_mb }
}

fn a_loop_of_links() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    for name in ["a", "b", "c"] {
        symlink(".", package.join("data/secret").join(name)).unwrap();
        symlink("..", package.join("submissions/accepted").join(name)).unwrap();
    }
    symlink("loop2.in", package.join("data/secret/loop1.in")).unwrap();
    symlink("loop1.in", package.join("data/secret/loop2.in")).unwrap();
    let out = dir.path().join("out");
    let (code, seconds, peak_mb) = import(&package, &out, 10.0);
    assert_eq!(code, Some(0));
    let notes = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    assert!(notes.contains("data/secret/a is a symbolic link to a folder or a special file, which is not followed"), "{notes}");
    assert!(notes.contains("data/secret/loop1.in is a loop of symbolic links"), "{notes}");
    assert_eq!(std::fs::read_dir(out.join("tests")).unwrap().count(), 12);
    Measured { outcome: "6 links to folders and a loop of 2: not walked, named".to_owned(), seconds, peak_mb }
}

fn a_sparse_file_of_6_gib() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    std::fs::File::create(package.join("data/secret/05-huge.in")).unwrap().set_len(6 << 30).unwrap();
    std::fs::File::create(package.join("submissions/accepted/huge.c")).unwrap().set_len(6 << 30).unwrap();
    let out = dir.path().join("out");
    let (code, seconds, peak_mb) = import(&package, &out, 10.0);
    assert_eq!(code, Some(0));
    let notes = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    assert!(notes.contains("data/secret/05-huge.in is 6 GiB, more than the"), "{notes}");
    assert!(notes.contains("submissions/accepted/huge.c is 6 GiB, more than the"), "{notes}");
    Measured { outcome: "a 6 GiB .in and a 6 GiB .c refused by size, unread".to_owned(), seconds, peak_mb }
}

fn problem_yaml_100000_deep() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    std::fs::write(package.join("problem.yaml"), format!("name: x\nlimits: {}{}\n", "[".repeat(100_000), "]".repeat(100_000))).unwrap();
    let out = dir.path().join("out");
    let (error, seconds, peak_mb) = refused(&package, &out, 5.0);
    assert!(error.contains("problem.yaml nests 64 levels deep or more, beyond the 64 a problem.yaml may have: not read"), "{error}");
    Measured { outcome: "refused before parsing: nests 64 levels or more".to_owned(), seconds, peak_mb }
}

fn problem_yaml_as_a_link() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    std::fs::remove_file(package.join("problem.yaml")).unwrap();
    symlink("/etc/passwd", package.join("problem.yaml")).unwrap();
    let out = dir.path().join("out");
    let (error, seconds, peak_mb) = refused(&package, &out, 5.0);
    assert!(error.contains("problem.yaml is a symbolic link to a file outside the package"), "{error}");
    Measured { outcome: "refused: problem.yaml is a link out of the package".to_owned(), seconds, peak_mb }
}

fn a_data_file_with_no_name() -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let package = real_package(dir.path());
    std::fs::write(package.join("data/secret/..in"), "1\n5\n").unwrap();
    std::fs::write(package.join("data/secret/.in"), "1\n5\n").unwrap();
    let out = dir.path().join("out");
    let (code, seconds, peak_mb) = import(&package, &out, 5.0);
    assert_eq!(code, Some(0), "the other tests import");
    let notes = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    assert!(notes.contains("data/secret/..in: a test's file needs a name before `.in`; left out"), "{notes}");
    assert!(notes.contains("data/secret/.in: a test's file needs a name before `.in`; left out"), "{notes}");
    assert_eq!(std::fs::read_dir(out.join("tests")).unwrap().count(), 12);
    Measured { outcome: "`..in` and `.in` left out alone, by name".to_owned(), seconds, peak_mb }
}

pub fn cases() -> Vec<Case> {
    let case = |name, run: fn() -> Measured, max_seconds| Case { name, max_seconds, max_peak_mb: 200, run: Box::new(run) };
    vec![
        case("package: links to /etc and /proc", links_out_of_the_package, 5.0),
        case("package: a loop of links", a_loop_of_links, 5.0),
        case("package: a sparse 6 GiB data file", a_sparse_file_of_6_gib, 5.0),
        case("package: problem.yaml nested 100,000 deep", problem_yaml_100000_deep, 2.0),
        case("package: problem.yaml a link out", problem_yaml_as_a_link, 2.0),
        case("package: a data file named ..in", a_data_file_with_no_name, 5.0),
    ]
}
