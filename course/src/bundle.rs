//! A problem bundle: a zip of a problem directory (at its top or in one folder, with its
//! examples in `submissions/` and the course's tests in `tests/`, the layout `bugrank
//! new-problem` writes), as the service takes one. [`Bundle::open`] checks its layout
//! without unpacking anything; [`Bundle::unpack_into`] streams its files into a folder
//! within one [`Unpacking`] budget (a bundle is never held unpacked) and reads its settings.

use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

use toolchain::Language;

use crate::error::{CourseError, CourseResult};
use crate::hand_in::{SharedBytes, entry_name};
use crate::hand_ins::is_batch_file;
use crate::problem_check::example_expectation;
use crate::problem_dir::{INPUT_VALIDATOR_DIR, MAX_COURSE_TESTS, MAX_PROBLEM_NAME_CHARS, MAX_VALIDATOR_FILES, PROBLEM_FILES, ProblemToml, VALIDATOR_DIR};
use crate::zips::{Unpacking, zip_entry_problem};

/// The most example submissions a bundle may carry: each is built and run on a thousand
/// inputs in the check; `new-problem` writes two.
pub const MAX_EXAMPLES: usize = 20;

/// A bundle whose layout was checked: which entry goes to which file of the problem.
pub struct Bundle {
    /// The problem's name: its folder in the zip, else the zip's name.
    pub name: String,
    file_name: String,
    zip: zip::ZipArchive<Cursor<SharedBytes>>,
    unpacking: Unpacking,
    /// `(entry, file in the problem)`.
    wanted: Vec<(usize, String)>,
}

/// Whether `file` of a bundle's `tests/` is part of the course's tests (`NAME.in`,
/// `NAME.out`; [`crate::problem_dir::read_written_tests`] checks them once unpacked).
fn is_course_test_file(file: &str) -> bool {
    file.ends_with(".in") || file.ends_with(".out")
}

/// Whether `file` of `folder` is a source or a header a validator is built from (in
/// `validator/` or `input_validator/`): C, C++ and their headers, or Python.
fn is_validator_file(folder: &str, file: &str) -> bool {
    [VALIDATOR_DIR, INPUT_VALIDATOR_DIR].contains(&folder)
        && (matches!(Language::of_file(file), Some(Language::C | Language::Cpp | Language::Python)) || Language::Cpp.is_header(file))
}

/// Whether `file` is an example submission of a problem bundle (`correct…`, `buggy…`, ...:
/// see [`example_expectation`]).
fn is_example(file: &str) -> bool {
    example_expectation(file).is_some() && is_batch_file(file)
}

impl Bundle {
    /// Reads the zip `file_name` of `bytes` and checks its layout: a `problem.toml`, a
    /// reference and a generator (each a module or a source), at the top or in one folder;
    /// no unsafe path, no file twice, at most [`MAX_EXAMPLES`] examples, a name of at most
    /// [`MAX_PROBLEM_NAME_CHARS`]. The error names the file and what to change.
    pub fn open(file_name: &str, bytes: Vec<u8>) -> CourseResult<Bundle> {
        let bad = |reason: String| CourseError::Problem(format!("{file_name}: {reason}"));
        let mut unpacking = Unpacking::new();
        let mut zip = unpacking.open(SharedBytes(Arc::new(bytes))).map_err(|e| bad(format!("not a readable zip: {e:#}")))?;
        let mut wanted: Vec<(usize, String)> = Vec::new();
        let mut folders = BTreeSet::new();
        for i in 0..zip.len() {
            let entry = zip.by_index(i).map_err(|e| bad(e.to_string()))?;
            let name = entry_name(&entry);
            if let Some(problem) = zip_entry_problem(&entry) {
                return Err(bad(problem));
            }
            let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
            let (dir, file) = match parts[..] {
                ["submissions", base] if is_example(base) => (None, format!("submissions/{base}")),
                [dir, "submissions", base] if is_example(base) => (Some(dir.to_owned()), format!("submissions/{base}")),
                ["tests", base] if is_course_test_file(base) => (None, format!("tests/{base}")),
                [dir, "tests", base] if is_course_test_file(base) => (Some(dir.to_owned()), format!("tests/{base}")),
                [folder, base] if is_validator_file(folder, base) => (None, format!("{folder}/{base}")),
                [dir, folder, base] if is_validator_file(folder, base) => (Some(dir.to_owned()), format!("{folder}/{base}")),
                [base] if PROBLEM_FILES.contains(&base) => (None, base.to_owned()),
                [dir, base] if PROBLEM_FILES.contains(&base) => (Some(dir.to_owned()), base.to_owned()),
                _ => continue,
            };
            if entry.is_dir() {
                continue;
            }
            if wanted.iter().any(|(_, f)| *f == file) {
                return Err(bad(format!("it holds `{file}` twice: a bundle is one problem, at its top or in one folder")));
            }
            folders.extend(dir);
            wanted.push((i, file));
        }
        if folders.len() > 1 {
            let names: Vec<String> = folders.iter().map(|f| format!("`{f}`")).collect();
            return Err(bad(format!(
                "its problem files are in {} folders ({}): a bundle is one problem, at its top or in one folder",
                folders.len(),
                names.join(", ")
            )));
        }
        let examples = wanted.iter().filter(|(_, f)| f.starts_with("submissions/")).count();
        if examples > MAX_EXAMPLES {
            return Err(bad(format!("it has {examples} examples in submissions/, more than {MAX_EXAMPLES}")));
        }
        for folder in [VALIDATOR_DIR, INPUT_VALIDATOR_DIR] {
            let validator_files = wanted.iter().filter(|(_, f)| f.starts_with(&format!("{folder}/"))).count();
            if validator_files > MAX_VALIDATOR_FILES {
                return Err(bad(format!("it has {validator_files} files in {folder}/, more than {MAX_VALIDATOR_FILES}")));
            }
        }
        let test_files = wanted.iter().filter(|(_, f)| f.starts_with("tests/")).count();
        if test_files > 2 * MAX_COURSE_TESTS {
            return Err(bad(format!("it has {test_files} files in tests/, more than {MAX_COURSE_TESTS} tests can have")));
        }
        if !wanted.iter().any(|(_, n)| n == "problem.toml") {
            return Err(bad("the bundle has no problem.toml (at its top or in one folder)".into()));
        }
        for program in ["reference", "generator"] {
            if !wanted.iter().any(|(_, n)| n.strip_prefix(program).is_some_and(|rest| rest.starts_with('.'))) {
                return Err(bad(format!("the bundle has no {program}.wasm, nor a {program}.c, .cpp, .rs or .py (at its top or in one folder)")));
            }
        }
        let name = folders.into_iter().next().unwrap_or_else(|| file_name.trim_end_matches(".zip").to_owned());
        if name.chars().count() > MAX_PROBLEM_NAME_CHARS {
            return Err(bad(format!(
                "the problem's name (its folder, or the zip's name) has {} characters, more than {MAX_PROBLEM_NAME_CHARS}",
                name.chars().count()
            )));
        }
        Ok(Bundle { name, file_name: file_name.to_owned(), zip, unpacking, wanted })
    }

    /// Streams the problem's files into `dir` (each at most the sandbox's module size)
    /// and reads its settings, so that a bundle with bad ones is refused at once; building
    /// and running its programs is the problem's check. Pitfall: on an error, what was
    /// written stays in `dir`: the caller removes it.
    pub fn unpack_into(mut self, dir: &Path) -> CourseResult<()> {
        let limit = sandbox::MAX_MODULE_BYTES as u64;
        for (index, file) in &self.wanted {
            let path = dir.join(file);
            let write_error = |e: std::io::Error| CourseError::Io { what: format!("{}: cannot write {file}", self.file_name), error: e };
            std::fs::create_dir_all(path.parent().unwrap_or(dir)).map_err(write_error)?;
            let mut out = std::fs::File::create(&path).map_err(write_error)?;
            let mut entry = self.zip.by_index(*index).map_err(|e| CourseError::Problem(format!("{}: {e}", self.file_name)))?;
            let size = self.unpacking.unpack(&mut entry, limit, &mut out).map_err(|e| CourseError::Problem(format!("{}: {e}", self.file_name)))?;
            if size > limit {
                return Err(CourseError::Problem(format!("{}: {file} is larger than {limit} bytes", self.file_name)));
            }
            out.sync_all().map_err(write_error)?;
        }
        ProblemToml::read(dir).map_err(|e| CourseError::Problem(format!("{}: {e}", self.file_name)))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[&str]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for name in entries {
            out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut out, b"title = \"t\"\n").unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    fn check(entries: &[&str], expected: Result<&str, &str>) {
        match (Bundle::open("p.zip", zip_of(entries)), expected) {
            (Ok(bundle), Ok(name)) => assert_eq!(bundle.name, name, "{entries:?}"),
            (Err(error), Err(words)) => assert!(error.to_string().contains(words), "{entries:?}: {error}"),
            (Ok(bundle), Err(words)) => panic!("{entries:?}: opened as {}, expected `{words}`", bundle.name),
            (Err(error), Ok(_)) => panic!("{entries:?}: {error}"),
        }
    }

    #[test]
    fn a_bundle_is_one_problem_at_its_top_or_in_one_folder_and_its_layout_is_checked_before_anything_is_unpacked() {
        check(&["problem.toml", "reference.c", "generator.c", "notes.txt"], Ok("p"));
        check(&["sum/problem.toml", "sum/reference.wasm", "sum/generator.rs", "sum/submissions/correct.c"], Ok("sum"));
        check(&["a/problem.toml", "a/reference.c", "b/generator.c"], Err("its problem files are in 2 folders (`a`, `b`)"));
        check(&["problem.toml", "../reference.c", "generator.c"], Err("p.zip: ../reference.c: unsafe path in zip"));
        check(&["problem.toml", "generator.c"], Err("no reference.wasm, nor a reference.c"));
        let many: Vec<String> = (0..=MAX_EXAMPLES).map(|i| format!("submissions/correct{i}.c")).collect();
        let mut entries: Vec<&str> = vec!["problem.toml", "reference.c", "generator.c"];
        entries.extend(many.iter().map(String::as_str));
        check(&entries, Err("21 examples in submissions/, more than 20"));
        let mut linked = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for name in ["problem.toml", "generator.c"] {
            linked.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        }
        linked.add_symlink("reference.c", "/etc/passwd", zip::write::SimpleFileOptions::default()).unwrap();
        let error = Bundle::open("p.zip", linked.finish().unwrap().into_inner()).err().expect("a link is refused");
        assert_eq!(error.to_string(), "p.zip: reference.c: a symbolic link in the zip, not a file: zip the file itself");
        let long = format!("{}/problem.toml", "x".repeat(MAX_PROBLEM_NAME_CHARS + 1));
        check(&[&long, "reference.c", "generator.c"], Err("has 65 characters, more than 64"));
    }

    #[test]
    fn a_bundle_keeps_the_sources_and_headers_of_its_validators_and_nothing_else_of_their_folders() {
        let entries = [
            "d/problem.toml",
            "d/reference.c",
            "d/generator.c",
            "d/validator/validator.cc",
            "d/validator/validate.h",
            "d/validator/README.txt",
            "d/validator/x/y.cpp",
            "d/input_validator/check.py",
            "d/other/z.cpp",
        ];
        let bundle = Bundle::open("p.zip", zip_of(&entries)).unwrap();
        let kept: Vec<&str> = bundle.wanted.iter().map(|(_, file)| file.as_str()).collect();
        assert_eq!(kept, ["problem.toml", "reference.c", "generator.c", "validator/validator.cc", "validator/validate.h", "input_validator/check.py"]);
        let many: Vec<String> = (0..=MAX_VALIDATOR_FILES).map(|i| format!("validator/part{i}.cpp")).collect();
        let mut entries: Vec<&str> = vec!["problem.toml", "reference.c", "generator.c"];
        entries.extend(many.iter().map(String::as_str));
        check(&entries, Err("21 files in validator/, more than 20"));
    }
}
