//! A judge's problem package (the Kattis / ICPC problem package format) made into a bugrank
//! problem directory: what `bugrank import` does.
//!
//! What maps, and how:
//!
//! | package | bugrank problem |
//! |---|---|
//! | `problem.yaml`: `name` | `problem.toml`: `title`; the package's folder is the `name` |
//! | `validation: default` and `validator_flags` | `oracle = "tokens"`: `case_sensitive` only with the flag (judges compare case-insensitively by default), `float_tolerance` (both), `float_absolute_tolerance`, `float_relative_tolerance` |
//! | `validation: custom` (`output_validators/NAME/`, or the 2023 format's `output_validator/`) | `oracle = "validator"`: the validator's sources copied into `validator/` and built there (C or C++; one Python 3 file runs in bugrank's Python), `validator_flags` its `[validator] flags`, run with the judges' protocol (a testlib checker, one that calls `registerTestlibCmd`, with testlib's: `[validator] protocol = "testlib"`); one in another language is kept in `package/` with a `checker.rs` to port it into |
//! | `input_validators/NAME/` | the first in C or C++, else in Python 3, copied into `input_validator/`: `check-problem` runs it on every generated input and every test (exit status 42 valid, 43 not); checktestdata ones kept in `package/`, said, not run |
//! | `testdata.yaml` (the 2025 format's `test_group.yaml`): `input_validator_flags`, `output_validator_flags` (or `_args`, lists) (a group inherits its parent's) | `[input_validator] flags`, or `groups` when the test groups differ (an input is valid with one of them); the output validator's after `validator_flags` (the first group's, when they differ, said) |
//! | `limits: memory`, `output` (MiB, 8 when not given, as the format says) | `limits.memory_mib`, `limits.output_bytes` (within bugrank's bounds); `limits.stack_mib` the memory limit, as judges set the stack |
//! | `problem_statement/problem.en.md` (or `statement/`, or `.tex` kept as it is) | `statement.md` |
//! | `data/sample/*.in` with `.ans`, `data/secret/**/*.in` with `.ans` | the course's tests: `tests/sample-NAME.in` with `.out`, `tests/secret-GROUP-NAME…` |
//! | `submissions/accepted` | the reference (the first in C++, else C, Rust, Python; [`choose_reference`] then keeps the first that builds and passes the package's tests), `reference.py` (a Python one, when the reference is compiled: it sets Python hand-ins' budgets) and `submissions/correct-NAME` |
//! | `submissions/wrong_answer`, `time_limit_exceeded`, `run_time_error` | `submissions/wrong-NAME`, `slow-NAME`, `crash-NAME`: `check-problem` checks each fails some test that way |
//! | `submissions/rejected`, `brute_force`, `slow_accepted` (the 2023 format's, and tools') | `buggy-NAME` (fails some test), `slow-NAME`, `slowcorrect-NAME` (fails none but by time); `partially_accepted/` and unknown folders are said and left out |
//! | a submission's extension: `.c`, `.cpp .cc .cxx .c++`, `.rs`, `.py .py3` | its language; Python 2 (`.py2`, or a `print` statement) is said and left out; two examples of one name keep their language in their ids (`correct-paul-c`, `correct-paul-rs`) |
//! | `type: interactive` (2023) or `validation: custom interactive` | `oracle = "interactive"`: the output validator is the interactor, copied into `validator/` and built there (a package without one in C, C++ or Python 3 is refused, with the reason), a test's `.ans` its answer file |
//! | `limits: time_limit` (2023, 2025) or `.timelimit` (seconds), else `time_multiplier` (legacy) or `time_multipliers: ac_to_time_limit` | `limits.fuel_limit` ([`set_time_limit`]): the seconds, a billion fuel each, or the multiplier times the slowest accepted run, at least a second |
//! | `type: scoring`, `multi-pass`, `testdata.yaml`'s grading | said in `IMPORT.md` |
//!
//! A package has no generator: the import writes `generator.rs`, which draws one of the
//! sample inputs (so the problem is complete and checks at once), with the inputs' shape
//! as comments to start a real generator from. `IMPORT.md` lists what was imported and what
//! the author must still write ([`Imported::todo`]).
//!
//! [`import_package`] writes files and never builds or runs anything. Then, with the sandbox and the builder,
//! [`choose_reference`] keeps as the reference the first accepted submission that builds and passes the package's
//! tests, and [`set_time_limit`] writes the judges' `fuel_limit` from the accepted submissions' runs on them
//! (`bugrank import` does both; each adds its findings to `IMPORT.md`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use grader::Executor;
use sandbox::Sandbox;
use serde::Deserialize;
use toolchain::{Builder, Language};

use crate::batch::Batch;
use crate::error::{CourseError, CourseResult};
use crate::hand_in::HandIn;
use crate::hand_ins::{accept_languages, hand_ins, read_batch_dir};
use crate::own_files::{OwnFiles, size_in_words};
use crate::problem_dir::{INPUT_VALIDATOR_DIR, OracleName, ProblemDir, ProblemToml, VALIDATOR_DIR, build_validator};
use crate::problem_dir::{MAX_COURSE_TEST_BYTES, MAX_COURSE_TESTS, MAX_OUTPUT_BYTES, MAX_PROBLEM_NAME_CHARS, MAX_TEST_NAME_CHARS};

/// The most bytes of sample inputs the generator written by the import embeds: a generator
/// is one source file, built for every check, and samples are small.
pub const MAX_EMBEDDED_SAMPLE_BYTES: usize = 64 << 10;

/// The most bytes of `problem.yaml` read: a package's settings take a few hundred.
pub const MAX_YAML_BYTES: u64 = 1 << 20;

/// The deepest `problem.yaml` is read at (flow brackets, block indentation and `- ` items
/// together): real ones nest three or four levels, and the YAML parser's time grows faster
/// than the depth (2,000 levels took 0.2 s, 8,000 took 2.5 s, 100,000 did not end in
/// 120 s), so a deeper file is refused before it is parsed.
pub const MAX_YAML_DEPTH: usize = 64;

/// The most bytes of a statement read (`problem.en.md`, `.tex`): statements take some KiB.
pub const MAX_STATEMENT_BYTES: u64 = 4 << 20;

/// The most bytes of one source file read (a submission, an output validator's file): as
/// much as a batch allows a source file.
pub const MAX_SOURCE_BYTES: u64 = sandbox::MAX_MODULE_BYTES as u64;

/// A package's submission folders, the prefix their examples get in bugrank (see
/// [`crate::problem_check::example_expectation`]), and what the judge's verdict was. Only
/// `accepted/` gives the reference.
const SUBMISSION_FOLDERS: [(&str, &str, &str); 7] = [
    ("accepted", "correct", "accepted"),
    ("wrong_answer", "wrong", "a wrong answer"),
    ("time_limit_exceeded", "slow", "too slow"),
    ("run_time_error", "crash", "a run-time error"),
    // The 2023 format's: rejected in any way, and right but too slow.
    ("rejected", "buggy", "rejected"),
    ("brute_force", "slow", "right but too slow"),
    // Accepted, though slowly: never a wrong output, and time-outs allowed (the judges'
    // tools hold it to no time limit; it sets none either: only `accepted/` does).
    ("slow_accepted", "slowcorrect", "accepted, though slow"),
];

/// Submission folders judges' tools have that bugrank leaves out, and why.
const FOLDERS_LEFT_OUT: [(&str, &str); 1] = [("partially_accepted", "partial scores are for scoring problems; bugrank grades each input pass or fail")];

/// Accepted solutions tried as the reference, in this order: a compiled one sets tighter,
/// steadier budgets than an interpreted one.
const REFERENCE_LANGUAGES: [Language; 4] = [Language::Cpp, Language::C, Language::Rust, Language::Python];

/// What an import wrote, and what is left to the author.
#[derive(Debug)]
pub struct Imported {
    /// The problem directory written.
    pub dir: PathBuf,
    /// The course's tests written (`tests/`), and how many have an expected output.
    pub tests: usize,
    /// Example submissions written, by prefix (`correct`, `wrong`, `slow`, `crash`).
    pub examples: BTreeMap<&'static str, usize>,
    /// What the author must still do before the problem grades as well as it can, first
    /// things first (the generator is always one).
    pub todo: Vec<String>,
    /// What did not map exactly and how it was done instead, or what was left out.
    pub notes: Vec<String>,
    /// How the package sets its time limit ([`set_time_limit`] sets the fuel limit so).
    pub time_rule: TimeRule,
}

/// How a package sets its time limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeRule {
    /// This many times its slowest accepted run (problemtools' `time_multiplier`, the 2023
    /// format's `ac_to_time_limit`).
    Multiplier(f64),
    /// Seconds it gives itself: the 2023 and 2025 formats' `limits.time_limit`, or the
    /// `.timelimit` file judges' tools write.
    Seconds(f64),
}

/// The parts of `problem.yaml` the import reads (the rest is left alone).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PackageYaml {
    name: Option<PackageName>,
    /// `2023-07-draft` and the like: the 2023 format (another default time multiplier).
    problem_format_version: Option<String>,
    /// The 2023 format's `type`: `pass-fail` (the default), `scoring`, `interactive`,
    /// `multi-pass`, or several of them in a list.
    #[serde(rename = "type")]
    kind: Option<PackageType>,
    validation: Option<String>,
    validator_flags: Option<String>,
    limits: PackageLimits,
}

/// A package's name: one string, or one per language (`en:`), as the 2023 format has it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PackageName {
    One(String),
    ByLanguage(BTreeMap<String, String>),
}

/// A package's `type`: one word, or a list of them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PackageType {
    One(String),
    Several(Vec<String>),
}

impl PackageType {
    fn has(&self, word: &str) -> bool {
        match self {
            PackageType::One(one) => one.trim() == word,
            PackageType::Several(all) => all.iter().any(|one| one.trim() == word),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PackageLimits {
    /// MiB.
    memory: Option<u64>,
    /// The legacy format's: the time limit is this many times the slowest accepted run
    /// (default [`LEGACY_TIME_MULTIPLIER`]).
    time_multiplier: Option<f64>,
    /// The 2023 format's (`ac_to_time_limit`, default [`TIME_MULTIPLIER_2023`]).
    time_multipliers: Option<TimeMultipliers>,
    /// The 2023 and 2025 formats' time limit, in seconds, where the package sets it.
    time_limit: Option<f64>,
    /// MiB.
    output: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TimeMultipliers {
    ac_to_time_limit: Option<f64>,
}

/// The package format's output limit, in MiB, where `problem.yaml` gives none (legacy and
/// 2023 formats alike).
pub const PACKAGE_OUTPUT_MIB: u64 = 8;

/// problemtools' default `time_multiplier` (legacy format): the time limit is 5 times the
/// slowest accepted run.
pub const LEGACY_TIME_MULTIPLIER: f64 = 5.0;

/// The 2023 format's default `ac_to_time_limit`.
pub const TIME_MULTIPLIER_2023: f64 = 2.0;

/// Imports the package in `package` into a new problem directory `out` (which must not
/// exist). Errors name the file and what is wrong; what merely does not map is a note.
pub fn import_package(package: &Path, out: &Path) -> CourseResult<Imported> {
    let bad = |why: String| CourseError::Problem(format!("{}: {why}", package.display()));
    if out.exists() {
        return Err(CourseError::Problem(format!("{} already exists: choose another folder, or delete it first", out.display())));
    }
    let own = OwnFiles::open(package)?;
    let yaml_bytes = own.read("problem.yaml", MAX_YAML_BYTES).map_err(|e| bad(e.to_string()))?;
    let yaml_bytes = yaml_bytes.ok_or_else(|| bad("it has no problem.yaml (is this a problem package?)".to_owned()))?;
    let yaml_text = String::from_utf8(yaml_bytes).map_err(|_| bad("problem.yaml is not UTF-8 text".to_owned()))?;
    if let Some(depth) = nesting_beyond(&yaml_text, MAX_YAML_DEPTH) {
        return Err(bad(format!("problem.yaml nests {depth} levels deep or more, beyond the {MAX_YAML_DEPTH} a problem.yaml may have: not read")));
    }
    let yaml: PackageYaml = serde_yaml_ng::from_str(&yaml_text).map_err(|e| bad(format!("problem.yaml is not valid: {e}")))?;
    let id = package.canonicalize().ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_else(|| "imported".to_owned());
    let id: String = id.chars().take(MAX_PROBLEM_NAME_CHARS).collect();
    let title = match &yaml.name {
        Some(PackageName::One(name)) => name.clone(),
        Some(PackageName::ByLanguage(names)) => names.get("en").or_else(|| names.values().next()).cloned().unwrap_or_else(|| id.clone()),
        None => id.clone(),
    };
    let title: String = title.chars().filter(|c| !c.is_control() && *c != '"' && *c != '\\').collect();

    // (The 2023 format, or a later one: any version but the legacy one.)
    let format_2023 = yaml.problem_format_version.as_deref().is_some_and(|version| !version.trim().starts_with("legacy"));
    let time_multiplier = match format_2023 {
        true => yaml.limits.time_multipliers.as_ref().and_then(|m| m.ac_to_time_limit).unwrap_or(TIME_MULTIPLIER_2023),
        false => yaml.limits.time_multiplier.unwrap_or(LEGACY_TIME_MULTIPLIER),
    };
    let time_multiplier = if time_multiplier.is_finite() && time_multiplier >= 1.0 { time_multiplier } else { LEGACY_TIME_MULTIPLIER };
    let seconds = |value: f64| Some(value).filter(|seconds| seconds.is_finite() && *seconds > 0.0);
    let timelimit_file = match own.read(".timelimit", 64) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).trim().parse::<f64>().ok().and_then(seconds),
        _ => None,
    };
    let time_rule = match yaml.limits.time_limit.and_then(seconds).or(timelimit_file) {
        Some(seconds) => TimeRule::Seconds(seconds),
        None => TimeRule::Multiplier(time_multiplier),
    };
    let mut imported = Imported { dir: out.to_owned(), tests: 0, examples: BTreeMap::new(), todo: Vec::new(), notes: Vec::new(), time_rule };
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let validation = yaml.validation.as_deref().unwrap_or("default").trim().to_owned();
    let interactive = match (validation.contains("interactive"), yaml.kind.as_ref().is_some_and(|kind| kind.has("interactive"))) {
        (true, _) => Some("validation: custom interactive"),
        (false, true) => Some("type: interactive"),
        (false, false) => None,
    };
    if yaml.kind.as_ref().is_some_and(|kind| kind.has("scoring")) {
        imported.notes.push("type: scoring: bugrank grades each test pass or fail, and its own points (see IMPORT.md's problem.toml [grading]); the package's test-group scores are not read".to_owned());
    }
    if yaml.kind.as_ref().is_some_and(|kind| kind.has("multi-pass")) {
        imported.notes.push("type: multi-pass: bugrank runs each program once per input; the passes after the first are not run".to_owned());
    }
    package_files_said(&own, &mut imported.notes);
    // The output validator's flags: problem.yaml's, then the test groups' (as problemtools
    // gives them); bugrank judges every input alike, so with one group's only.
    let test_groups = test_groups(&own, &mut imported.notes);
    let output_groups = group_flags(&test_groups, "output_validator", &mut imported.notes);
    if output_groups.len() > 1 {
        imported.notes.push(format!(
            "the test groups give the output validator different flags ({}): bugrank judges every input with the first; change [validator] flags or [tokens] by hand",
            shown_groups(&output_groups)
        ));
    }
    let output_flags = [yaml.validator_flags.clone().unwrap_or_default(), output_groups.first().map(|flags| flags.join(" ")).unwrap_or_default()].join(" ");
    let oracle = match (interactive, validation.as_str()) {
        (None, "default") => tokens_oracle(&output_flags, &mut imported.notes),
        (interactive, _) => {
            let kept = read_under(&own, &["output_validators", "output_validator"], &mut imported.notes);
            let oracle = match interactive {
                Some(said) => interactor_oracle(&kept, said, &output_flags, &mut files, &mut imported).map_err(bad)?,
                None => validator_oracle(&kept, &output_flags, &mut files, &mut imported),
            };
            files.extend(kept.into_iter().map(|(path, bytes)| (Path::new("package").join(path), bytes)));
            oracle
        }
    };
    let kept = read_under(&own, &["input_validators"], &mut imported.notes);
    let mut input_validator = String::new();
    if !kept.is_empty() {
        match take_validator(&kept, INPUT_VALIDATOR_DIR, "an input validator", &mut files, &mut imported) {
            Some(chosen) => {
                imported
                    .notes
                    .push(format!("the input validator {chosen}/ checks every generated input and every test in check-problem (copied into input_validator/)"));
                input_validator = input_validator_toml(&group_flags(&test_groups, "input_validator", &mut imported.notes), &mut imported.notes);
            }
            None => imported.notes.push(
                "input_validators/ has no C, C++ or Python 3 program for bugrank to run (checktestdata is not run): kept in package/, not run".to_owned(),
            ),
        }
        files.extend(kept.into_iter().map(|(path, bytes)| (Path::new("package").join(path), bytes)));
    }
    let limits = limits_toml(&yaml.limits, &mut imported.notes);
    files.push((
        PathBuf::from("problem.toml"),
        format!(
            "# Imported from the problem package {id} by `bugrank import` (see IMPORT.md).\ntitle = \"{title}\"\nname = \"{id}\"\nlanguages = [\"c\", \"cpp\", \"rust\", \"python\"]\n{oracle}{input_validator}{limits}"
        )
        .into_bytes(),
    ));
    files.push((PathBuf::from("statement.md"), statement(&own, &title, &mut imported)));

    let (tests, samples) = course_tests(&own, &mut files, &mut imported).map_err(|e| bad(e.to_string()))?;
    imported.tests = tests;
    files.push((PathBuf::from("generator.rs"), generator(&samples, &mut imported)));
    files.push((PathBuf::from("bugrank_gen.rs"), toolchain::guest::RUST_CRATE.as_bytes().to_vec()));
    submissions(&own, &mut files, &mut imported);

    files.push((PathBuf::from("IMPORT.md"), import_notes(&id, &imported).into_bytes()));
    for (path, bytes) in files {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(out))
            .and_then(|()| std::fs::write(&path, bytes))
            .map_err(CourseError::io(format!("cannot write {}", path.display())))?;
    }
    Ok(imported)
}

/// What to do with an output validator bugrank cannot run, after what it is.
const PORT: &str = "into checker.rs, which compares words as the default validator does until then. A bugrank checker is given the input, the model answer's output and the hand-in's output, and accepts or rejects with a reason; bugrank_check.rs reads them and compares words and numbers for it.";

/// The files of a checker to port a package's output validator into (path, bytes): the
/// skeleton `checker.rs`, which compares words, and the checkers' library.
fn checker_to_port() -> [(PathBuf, Vec<u8>); 2] {
    [
        (PathBuf::from("checker.rs"), CHECKER_SKELETON.as_bytes().to_vec()),
        (PathBuf::from("bugrank_check.rs"), toolchain::guest::RUST_CHECK_CRATE.as_bytes().to_vec()),
    ]
}

/// The oracle of a package with its own output validator, whose files (`path`, bytes) are
/// `validators`: `oracle = "validator"` with its program's sources in `validator/` and the
/// package's `validator_flags` (see [`take_validator`]); else a `checker.rs` to port it
/// into, said in the notes.
fn validator_oracle(validators: &[(String, Vec<u8>)], flags: &str, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) -> String {
    let Some(chosen) = take_validator(validators, VALIDATOR_DIR, "an output validator", files, imported) else {
        files.extend(checker_to_port());
        imported.todo.push(format!("Port the package's output validator (kept in package/, it has no C, C++ or Python 3 source for bugrank to run) {PORT}"));
        return "oracle = \"checker\"\n".to_owned();
    };
    let testlib = validators
        .iter()
        .any(|(path, bytes)| program_folder(path) == chosen && bytes.windows(TESTLIB_CHECKER.len()).any(|window| window == TESTLIB_CHECKER.as_bytes()));
    if !testlib {
        imported
            .notes
            .push(format!("the output validator {chosen}/ judges outputs as the judges' protocol has it (built from its sources, copied into validator/)"));
        return judged_by("validator", flags);
    }
    imported.notes.push(format!(
        "the output validator {chosen}/ is a testlib checker ({TESTLIB_CHECKER}): it judges outputs as testlib has it (`checker input output answer`, exit status 0 accepts, 1 and 2 reject), [validator] protocol = \"testlib\" (built from its sources, copied into validator/)"
    ));
    if !flags.trim().is_empty() {
        imported.notes.push(format!("a testlib checker takes no flags: the package's `{}` are not given to it", flags.trim()));
    }
    "oracle = \"validator\"\n\n[validator]\nprotocol = \"testlib\"\n".to_owned()
}

/// The program a package's validator file `path` belongs to: its folder (`NAME/` under
/// the validators' folder), empty for a file directly there.
fn program_folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The call by which a source is a testlib checker (testlib.h's checkers' protocol).
const TESTLIB_CHECKER: &str = "registerTestlibCmd";

/// `problem.toml`'s `oracle` named `oracle`, judged by the program in `validator/` with
/// `flags` (a validator's or an interactor's).
fn judged_by(oracle: &str, flags: &str) -> String {
    format!("oracle = \"{oracle}\"\n\n[validator]\nflags = {}\n", toml_list(flags.split_whitespace()))
}

/// The oracle of an interactive package (`said`: how its `problem.yaml` says so), whose
/// output validators' files (path, bytes) are `validators`: `oracle = "interactive"` with
/// the interactor's sources in `validator/` (see [`take_validator`]) and its flags; `Err`
/// when there is none bugrank can build, as nothing could judge a dialogue.
fn interactor_oracle(
    validators: &[(String, Vec<u8>)],
    said: &str,
    flags: &str,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
    imported: &mut Imported,
) -> Result<String, String> {
    let Some(chosen) = take_validator(validators, VALIDATOR_DIR, "an interactor", files, imported) else {
        return Err(format!(
            "an interactive problem ({said}) needs its interactor (an output validator) in C, C++ or Python 3 for bugrank to run it, and this package has none: nothing could judge the dialogues"
        ));
    };
    imported.notes.push(format!(
        "an interactive problem ({said}): the output validator {chosen}/ is the interactor, and every program talks with it as judges run them, each one's output the other's input (built from its sources, copied into validator/); a dialogue is shown to students as the package's .interaction files are written, `>` before what the program wrote and `<` before what it was sent; a test's .ans is the interactor's answer file"
    ));
    Ok(judged_by("interactive", flags))
}

/// The files under the package's `folders` (path, bytes); what cannot be read is said in
/// `notes` and left out.
fn read_under(own: &OwnFiles, folders: &[&str], notes: &mut Vec<String>) -> Vec<(String, Vec<u8>)> {
    let mut kept = Vec::new();
    for folder in folders {
        let (paths, refused) = own.files_under(folder);
        notes.extend(refused);
        for path in paths {
            match own.read(&path, MAX_SOURCE_BYTES) {
                Ok(Some(bytes)) => kept.push((path, bytes)),
                Ok(None) => {}
                Err(refused) => notes.push(format!("{refused}; left out")),
            }
        }
    }
    kept
}

/// Copies into the folder `into` the program among a package's validator files
/// (`validators`: path, bytes) that bugrank runs: the first written in C or C++, else the
/// first in Python 3 (`.py3` copied as `.py`), where a program is the files of one folder
/// (`NAME/` under the validators' folder, or files of its own directly there). Its folder,
/// if there is one; the other programs are said in the notes (judges run every one; here
/// `what` alone is run), and so is one in Python 2.
fn take_validator(validators: &[(String, Vec<u8>)], into: &str, what: &str, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) -> Option<String> {
    let program = |path: &str| program_folder(path).to_owned();
    let mut programs: Vec<String> = validators.iter().map(|(path, _)| program(path)).collect();
    programs.dedup();
    // Each file's language as judges read it (a Python 2 one said and left out).
    let mut languages = BTreeMap::new();
    for (path, bytes) in validators {
        match package_language(path, bytes) {
            Ok(language) => _ = languages.insert(path.as_str(), language),
            Err(why) if Language::of_file(path) == Some(Language::Python) || path.ends_with(".py2") || path.ends_with(".py3") => {
                imported.notes.push(format!("{path}: {why}: {what} bugrank cannot run"));
            }
            Err(_) => {}
        }
    }
    let written_in = |folder: &String, wanted: &[Language]| {
        validators.iter().any(|(path, _)| program(path) == *folder && languages.get(path.as_str()).is_some_and(|language| wanted.contains(language)))
    };
    let chosen = [&[Language::C, Language::Cpp][..], &[Language::Python]]
        .into_iter()
        .find_map(|wanted| programs.iter().find(|folder| written_in(folder, wanted)))
        .cloned()?;
    for other in programs.iter().filter(|folder| **folder != chosen) {
        imported.notes.push(format!("{other}/: {what} besides {chosen}/, which alone is run here (judges run every one): left out"));
    }
    let scripts: Vec<&str> = validators
        .iter()
        .filter(|(path, _)| program(path) == chosen)
        .map(|(path, _)| path.rsplit_once('/').map_or(path.as_str(), |(_, name)| name))
        .filter(|name| ["build", "run"].contains(name))
        .collect();
    if !scripts.is_empty() {
        imported.notes.push(format!(
            "{chosen}/ has its own `{}` script, which bugrank does not run: it builds the sources itself and runs the program with the judges' arguments (input, answer, feedback directory), which a `run` script may have changed",
            scripts.join("` and `")
        ));
    }
    for (path, bytes) in validators.iter().filter(|(path, _)| program(path) == chosen) {
        let name = path.rsplit_once('/').map_or(path.as_str(), |(_, name)| name);
        let name = match name.strip_suffix(".py3") {
            Some(stem) => format!("{stem}.py"),
            None => name.to_owned(),
        };
        files.push((Path::new(into).join(name), bytes.clone()));
    }
    Some(chosen)
}

/// `oracle = "tokens"` and its `[tokens]` for the default output validator's `flags`.
fn tokens_oracle(flags: &str, notes: &mut Vec<String>) -> String {
    let (mut case_sensitive, mut absolute, mut relative) = (false, 0.0f64, 0.0f64);
    let mut words = flags.split_whitespace();
    while let Some(flag) = words.next() {
        let mut number = |name: &str| -> Option<f64> {
            let value = words.next().and_then(|w| w.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0);
            if value.is_none() {
                notes.push(format!("validator flag `{name}` has no tolerance after it; left out"));
            }
            value
        };
        match flag {
            "case_sensitive" => case_sensitive = true,
            "space_change_sensitive" => notes.push(
                "validator flag `space_change_sensitive`: bugrank's token comparison ignores changes of white space, so outputs that differ only in spacing pass".to_owned(),
            ),
            "float_tolerance" => {
                if let Some(value) = number(flag) {
                    (absolute, relative) = (value, value);
                }
            }
            "float_absolute_tolerance" => absolute = number(flag).unwrap_or(absolute),
            "float_relative_tolerance" => relative = number(flag).unwrap_or(relative),
            other => notes.push(format!("validator flag `{other}` is not known to bugrank; left out")),
        }
    }
    if !case_sensitive {
        notes.push("outputs are compared case-insensitively, as the default output validator does without `case_sensitive`".to_owned());
    }
    format!("oracle = \"tokens\"\n\n[tokens]\ncase_sensitive = {case_sensitive}\nfloat_absolute = {absolute:e}\nfloat_relative = {relative:e}\n")
}

/// `[limits]` for the package's memory and output limits, within bugrank's bounds.
fn limits_toml(limits: &PackageLimits, notes: &mut Vec<String>) -> String {
    let mut toml = String::new();
    // As judges do, a program's stack may take all its memory (a depth-first search a
    // million calls deep is an accepted solution); bugrank reserves the stack beside the
    // memory, both within its ceiling, so each gets at most half of it (and the default
    // stack of 8 MiB).
    let max = (sandbox::MAX_MEMORY_BYTES >> 20) as u64;
    let half = max / 2 + (toolchain::STACK_BYTES >> 20) as u64 / 2;
    let memory = match limits.memory {
        Some(mib) => {
            if mib > half {
                notes.push(format!(
                    "the package's memory limit of {mib} MiB is more than bugrank's {half} MiB with a stack as large (its ceiling is {max} MiB, stack included); {half} MiB it is, and as much stack"
                ));
            }
            toml.push_str(&format!("memory_mib = {}\n", mib.clamp(1, half)));
            mib.clamp(1, half)
        }
        None => (sandbox::Limits::default().memory_bytes >> 20) as u64,
    };
    toml.push_str(&format!("stack_mib = {memory}\n"));
    notes.push(format!("stack: {memory} MiB, the memory limit, as judges give it (limits.stack_mib)"));
    // A judges' solution runs on the package's largest tests: a C++ one reading 100,000
    // numbers of a 1 MB test with `cin` took just over the default ceiling (1 billion).
    toml.push_str(&format!("reference_fuel = {}\n", crate::executor::MAX_REFERENCE_FUEL));
    notes.push(format!(
        "the reference may use up to {} fuel on one input (limits.reference_fuel, the most bugrank allows): it runs on the package's largest tests",
        crate::executor::MAX_REFERENCE_FUEL
    ));
    // (Without one, the package format's own default: bugrank's, 64 KiB, refused an output
    // of two 131,070-character lines that judges read as a wrong answer.)
    let output = limits.output.unwrap_or(PACKAGE_OUTPUT_MIB);
    toml.push_str(&format!("output_bytes = {}\n", (output << 20).clamp(1, MAX_OUTPUT_BYTES as u64)));
    notes.push(
        "time: a judge's time limit is seconds of wall clock; bugrank counts instructions (fuel), the same on every machine: a hand-in's budget is relative to the reference on the same input (limits.fuel_factor, 20 times by default) and at least the judges' limit, limits.fuel_limit, which `bugrank import` sets from the accepted submissions' runs on the package's tests".to_owned(),
    );
    if toml.is_empty() { toml } else { format!("\n[limits]\n{toml}") }
}

/// Makes the reference an accepted submission that builds and passes every one of the
/// course's tests (the package's data), as a judge's reference must: the import's choice
/// if it does, else the next accepted one that does, in the import's order (C++, C, Rust,
/// then Python: `correct-` examples, then `reference.py`). One that does not is left out
/// (it cannot be a correct example either), said with why: a compile error bugrank's
/// toolchain gives (C++ only GCC accepts, say), or the test it fails. The package's
/// validators are built first: an input validator that does not build is left out, an
/// output validator that does not build gives way to a `checker.rs` to port it into, and
/// an interactor that does not build is an `Err`.
/// Returns what it said, also added to `IMPORT.md`; `Ok` with nothing said when all of the
/// import's choices build and pass.
pub fn choose_reference(sandbox: &Sandbox, builder: &Builder, dir: &Path) -> CourseResult<Vec<String>> {
    let mut said = Vec::new();
    // The package's validators first: a failure to build is theirs, not a reference's. An
    // input validator only checks inputs: one that does not build here is left out. An
    // output validator that does not build gives way to a checker to port it into, which
    // compares words until then (as for one in another language).
    let input_validator = dir.join(INPUT_VALIDATOR_DIR);
    if input_validator.is_dir()
        && let Err(error) = build_validator(sandbox, builder, &input_validator)
    {
        std::fs::remove_dir_all(&input_validator).map_err(CourseError::io(format!("cannot remove {}", input_validator.display())))?;
        said.push(format!("the input validator does not build here, so it is not run (it stays in package/): {error}"));
    }
    let validator = dir.join(VALIDATOR_DIR);
    if validator.is_dir()
        && let Err(error) = build_validator(sandbox, builder, &validator)
    {
        if ProblemToml::read(dir)?.oracle == OracleName::Interactive {
            return Err(CourseError::Problem(format!("the interactor does not build here, and nothing else can judge a dialogue: {error}")));
        }
        std::fs::remove_dir_all(&validator).map_err(CourseError::io(format!("cannot remove {}", validator.display())))?;
        for (path, bytes) in checker_to_port() {
            std::fs::write(dir.join(&path), bytes).map_err(CourseError::io(format!("cannot write {}", path.display())))?;
        }
        rewrite(dir, "problem.toml", |toml| toml.replacen("oracle = \"validator\"", "oracle = \"checker\"", 1))?;
        said.push(format!("the output validator does not build here (it stays in package/): {error}. Port it {PORT}"));
    }
    let mut candidates = reference_candidates(dir);
    let mut replaced = false;
    while let Some(candidate) = candidates.first().cloned() {
        let failure = match ProblemDir::load(sandbox, builder, dir) {
            Err(error) => Some(format!("does not build here: {error}")),
            Ok(problem_dir) => {
                let (problem, executor) = (problem_dir.problem(), problem_dir.executor(sandbox, []));
                problem
                    .fixed
                    .iter()
                    .find_map(|test| grader::check_test(&problem, &executor, test).err().map(|why| format!("fails the package's test `{}`: {why}", test.name)))
            }
        };
        let Some(failure) = failure else {
            if replaced {
                said.push(format!("the reference is now {candidate}, which builds and passes the package's tests"));
            }
            break;
        };
        said.push(format!("{candidate}, an accepted submission, {failure}; left out"));
        replaced = true;
        candidates.remove(0);
        let current = reference_file(dir);
        if let Some(current) = &current {
            std::fs::remove_file(dir.join(current)).map_err(CourseError::io(format!("cannot remove {current}")))?;
        }
        match candidates.first() {
            Some(next) if next.starts_with("submissions/") => {
                let extension = next.rsplit_once('.').map_or("", |(_, e)| e);
                let to = format!("reference.{extension}");
                std::fs::rename(dir.join(next), dir.join(&to)).map_err(CourseError::io(format!("cannot move {next} to {to}")))?;
            }
            Some(_) => {}
            None => said.push("no accepted submission builds and passes the package's tests: write the reference (reference.c, .cpp, .rs or .py)".to_owned()),
        }
    }
    if !said.is_empty() {
        add_notes(dir, &said)?;
    }
    Ok(said)
}

/// Rewrites the file `name` of the problem in `dir` as `change` says.
fn rewrite(dir: &Path, name: &str, change: impl FnOnce(String) -> String) -> CourseResult<()> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
    std::fs::write(&path, change(text)).map_err(CourseError::io(format!("cannot write {}", path.display())))
}

/// Adds `lines` to the list of what did not map exactly, at the end of `IMPORT.md`.
fn add_notes(dir: &Path, lines: &[String]) -> CourseResult<()> {
    rewrite(dir, "IMPORT.md", |notes| notes + &lines.iter().map(|line| format!("- {line}\n")).collect::<String>())
}

/// The problem's reference file in `dir` (`reference.cpp`, ...: a compiled one before
/// `reference.py`), if any.
fn reference_file(dir: &Path) -> Option<String> {
    REFERENCE_LANGUAGES.iter().map(|language| format!("reference.{}", language.extension())).find(|name| dir.join(name).is_file())
}

/// The reference and the accepted submissions that could take its place, in the import's
/// order: the reference file, the compiled `correct-` examples by language (C++, C, Rust)
/// and name, a `reference.py` beside a compiled reference, then the Python examples.
fn reference_candidates(dir: &Path) -> Vec<String> {
    let mut examples: Vec<(usize, String)> = std::fs::read_dir(dir.join("submissions"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let language = Language::of_file(&name)?;
            name.starts_with("correct-").then(|| (REFERENCE_LANGUAGES.iter().position(|l| *l == language).unwrap_or(usize::MAX), format!("submissions/{name}")))
        })
        .collect();
    examples.sort();
    let reference = reference_file(dir);
    let twin = (reference.as_deref() != Some("reference.py") && dir.join("reference.py").is_file()).then(|| "reference.py".to_owned());
    let (python, compiled): (Vec<String>, Vec<String>) = examples.into_iter().map(|(_, name)| name).partition(|name| name.ends_with(".py"));
    reference.into_iter().chain(compiled).chain(twin).chain(python).collect()
}

/// The least time limit [`set_time_limit`] sets, in fuel: judges round theirs to whole
/// seconds, at least one (problemtools: `max(1, int(0.5 + multiplier × slowest))`), and
/// a second of a judge's machine runs well over a billion instructions. Without it a
/// package whose accepted runs take microseconds gave every run a few of them: a Python
/// hand-in's `RecursionError` (some 6 million instructions, 2 ms natively) timed out where
/// judges see it crash.
pub const LEAST_TIME_LIMIT_FUEL: u64 = sandbox::FUEL_PER_SECOND;

/// The time limit [`set_time_limit`] set: a judge's, in fuel, and the run it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeLimit {
    /// `limits.fuel_limit`.
    pub fuel: u64,
    /// The slowest accepted run: who, on which of the course's tests, and its fuel.
    pub slowest: (String, String, u64),
}

/// Sets the judge's time limit of the problem imported into `dir`, as problemtools does,
/// by the package's `rule` ([`Imported::time_rule`]): its seconds, [`sandbox::FUEL_PER_SECOND`]
/// each, or its multiplier times the most fuel the reference or any `correct-` example
/// uses on one of the course's tests (the package's data), at least
/// [`LEAST_TIME_LIMIT_FUEL`]; written as `limits.fuel_limit` in `problem.toml` and said in
/// `IMPORT.md`. A judge-accepted solution that is slower than the reference by more than
/// the budget's factor then passes, as it does on the judge, and the package's
/// `slow-` examples must still fail (`check-problem` checks). `Ok(None)` when no accepted
/// run could be measured (no course test, or none that an accepted submission passed).
pub fn set_time_limit(sandbox: &Sandbox, builder: &Builder, dir: &Path, rule: TimeRule) -> CourseResult<Option<TimeLimit>> {
    let problem_dir = ProblemDir::load(sandbox, builder, dir)?;
    let examples_dir = dir.join("submissions");
    let files = if examples_dir.is_dir() { read_batch_dir(&examples_dir)? } else { Vec::new() };
    let accepted: Vec<HandIn> = hand_ins(files, false).into_iter().filter(|h| h.id.as_deref().is_some_and(|id| id.starts_with("correct-"))).collect();
    let batch = Batch::from_hand_ins(sandbox, builder, &problem_dir.accepted, &accept_languages(accepted, &problem_dir.toml.languages));
    let executor = problem_dir.executor(sandbox, batch.submissions.iter().map(|s| &s.program));
    // (An accepted submission passes the judges' limit however slow the reference is: it
    // is measured with as much fuel as a limit may be.)
    let fuel = crate::problem_dir::MAX_FUEL_FLOOR;
    let who = |program: usize| if program == 0 { "the reference".to_owned() } else { format!("`{}`", batch.submissions[program - 1].id) };
    let mut slowest: Option<(usize, &str, u64)> = None;
    for test in &problem_dir.fixed {
        for program in 0..=batch.submissions.len() {
            let run = executor.run(program, &test.input, fuel);
            if run.outcome == grader::RunOutcome::Success && slowest.is_none_or(|(_, _, fuel)| run.fuel_used > fuel) {
                slowest = Some((program, &test.name, run.fuel_used));
            }
        }
    }
    let Some((program, test, fuel)) = slowest else { return Ok(None) };
    let most = crate::problem_dir::MAX_FUEL_FLOOR;
    let limit = match rule {
        TimeRule::Multiplier(multiplier) => (((fuel as f64) * multiplier).ceil() as u64).max(LEAST_TIME_LIMIT_FUEL),
        TimeRule::Seconds(seconds) => (seconds * sandbox::FUEL_PER_SECOND as f64).ceil() as u64,
    };
    let limit = TimeLimit { fuel: limit.min(most), slowest: (who(program), test.to_owned(), fuel) };
    rewrite(dir, "problem.toml", |toml| toml.replacen("\n[limits]\n", &format!("\n[limits]\nfuel_limit = {}\n", limit.fuel), 1))?;
    add_notes(dir, &[limit.in_words(rule)])?;
    Ok(Some(limit))
}

impl TimeLimit {
    /// The limit and where it comes from, as `IMPORT.md` and the command say it.
    pub fn in_words(&self, rule: TimeRule) -> String {
        let (who, test, fuel) = &self.slowest;
        match rule {
            TimeRule::Multiplier(multiplier) => format!(
                "time limit: {multiplier} times the slowest accepted run, as the judges set theirs: {who} used {fuel} fuel on the course's test `{test}`, so any run may use {}{} (limits.fuel_limit)",
                self.fuel,
                if self.fuel == LEAST_TIME_LIMIT_FUEL { ", the least limit, as judges give at least a second" } else { "" }
            ),
            TimeRule::Seconds(seconds) => format!(
                "time limit: the package's {seconds} s, so any run may use {} fuel, {} a second (limits.fuel_limit); the slowest accepted run, {who} on the course's test `{test}`, used {fuel}{}",
                self.fuel,
                sandbox::FUEL_PER_SECOND,
                if *fuel > self.fuel { ", more than that: it fails here for time" } else { "" }
            ),
        }
    }
}

/// The statement: the package's Markdown one, else its LaTeX one kept as it is.
fn statement(own: &OwnFiles, title: &str, imported: &mut Imported) -> Vec<u8> {
    let mut read = |candidate: &str| match own.read(candidate, MAX_STATEMENT_BYTES) {
        Ok(text) => text,
        Err(refused) => {
            imported.notes.push(format!("{refused}; left out"));
            None
        }
    };
    for candidate in ["problem_statement/problem.en.md", "problem_statement/problem.md", "statement/problem.en.md", "statement/problem.md"] {
        if let Some(text) = read(candidate) {
            return text;
        }
    }
    for candidate in ["problem_statement/problem.en.tex", "problem_statement/problem.tex", "statement/problem.en.tex"] {
        if let Some(tex) = read(candidate) {
            imported.todo.push(format!("Turn statement.md into Markdown: it holds {candidate} as it is, in LaTeX."));
            return format!("# {title}\n\n```latex\n{}\n```\n", String::from_utf8_lossy(&tex).trim_end()).into_bytes();
        }
    }
    imported.todo.push("Write statement.md: the package has no statement.".to_owned());
    format!("# {title}\n").into_bytes()
}

/// The package's sample and secret data as the course's tests; returns how many, and the
/// sample inputs (the secret ones when there is no sample), smallest first. A data file
/// that cannot be a test (no name before `.in`, a link out of the package, over what is
/// left of [`MAX_COURSE_TEST_BYTES`]) is left out alone, with a note naming it.
fn course_tests(own: &OwnFiles, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) -> CourseResult<(usize, Vec<Vec<u8>>)> {
    let mut tests = 0;
    let mut bytes_left = MAX_COURSE_TEST_BYTES;
    let mut inputs_of: BTreeMap<&str, Vec<Vec<u8>>> = BTreeMap::new();
    for group in ["sample", "secret"] {
        let root = format!("data/{group}");
        let (found, refused) = own.files_under(&root);
        imported.notes.extend(refused);
        for input in found.iter().filter_map(|path| path.strip_suffix(".in")) {
            let parts: Vec<&str> = input[root.len() + 1..].split('/').collect();
            if parts.iter().any(|part| part.chars().all(|c| c == '.')) {
                imported.notes.push(format!("{input}.in: a test's file needs a name before `.in`; left out"));
                continue;
            }
            let name = test_name(&format!("{group}-{}", parts.join("-")));
            let mut read = |path: String| match own.read(&path, bytes_left) {
                Ok(bytes) => {
                    bytes_left -= bytes.as_ref().map_or(0, |b| b.len() as u64);
                    Ok(bytes)
                }
                Err(refused) => {
                    imported.notes.push(format!("{refused} (the course's tests hold at most {} in all); left out", size_in_words(MAX_COURSE_TEST_BYTES)));
                    Err(())
                }
            };
            let Ok(Some(bytes)) = read(format!("{input}.in")) else { continue };
            let Ok(expected) = read(format!("{input}.ans")) else { continue };
            if let Some(expected) = expected {
                files.push((PathBuf::from(format!("tests/{name}.out")), expected));
            }
            files.push((PathBuf::from(format!("tests/{name}.in")), bytes.clone()));
            inputs_of.entry(group).or_default().push(bytes);
            tests += 1;
        }
    }
    if tests > MAX_COURSE_TESTS {
        return Err(CourseError::Problem(format!("{tests} test files in data/, more than bugrank's {MAX_COURSE_TESTS}")));
    }
    if tests == 0 {
        imported.todo.push("Add tests: the package's data/ has no sample or secret inputs, so the problem has no course's tests.".to_owned());
    }
    let mut samples = inputs_of.remove("sample").or_else(|| inputs_of.remove("secret")).unwrap_or_default();
    samples.sort_by_key(Vec::len);
    Ok((tests, samples))
}

/// `raw` as a hand-written test's name: letters, digits, `.`, `_` and `-`, others as `_`.
fn test_name(raw: &str) -> String {
    let name: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    name.chars().take(MAX_TEST_NAME_CHARS).collect()
}

/// The generator written by the import: it draws one of `samples` (those that fit in
/// [`MAX_EMBEDDED_SAMPLE_BYTES`]), and describes their shape for the author.
fn generator(samples: &[Vec<u8>], imported: &mut Imported) -> Vec<u8> {
    let mut embedded: Vec<String> = Vec::new();
    let mut bytes = 0;
    for sample in samples {
        bytes += sample.len();
        if bytes > MAX_EMBEDDED_SAMPLE_BYTES && !embedded.is_empty() {
            break;
        }
        embedded.push(String::from_utf8_lossy(sample).into_owned());
    }
    if embedded.is_empty() {
        embedded.push(String::new());
    }
    imported.todo.insert(
        0,
        format!(
            "Write the generator (generator.rs): it only draws one of the package's {} sample inputs now, so the search can find no bug beyond what the course's tests show. Its comments give the shape of those inputs to start from; keep choice 0 the simplest input.",
            embedded.len()
        ),
    );
    let shape: String = input_shape(&embedded).lines().map(|line| format!("//!   {line}\n")).collect();
    let listed: String = embedded.iter().map(|input| format!("    {input:?},\n")).collect();
    format!(
        "//! The generator `bugrank import` wrote: it draws one of the package's sample inputs.\n\
         //! Replace it with one that draws inputs as the statement allows, small ones first and\n\
         //! choice 0 the simplest (see bugrank_gen.rs: choice, int_in, vec_of, string_of).\n//!\n\
         //! The samples' shape, line by line:\n//!\n{shape}\n\
         use bugrank_gen as g;\n\n\
         const SAMPLES: &[&str] = &[\n{listed}];\n\n\
         fn main() {{\n    g::emit(*g::one_of(SAMPLES));\n}}\n"
    )
    .into_bytes()
}

/// The shape of the longest sample input, line by line: each token an integer (with the
/// range the samples showed at that place), a decimal number or a word.
fn input_shape(samples: &[String]) -> String {
    let Some(first) = samples.iter().max_by_key(|sample| sample.len()) else { return String::new() };
    let mut shape = String::new();
    for (l, line) in first.lines().enumerate().take(12) {
        let kinds: Vec<String> = line
            .split_whitespace()
            .enumerate()
            .take(8)
            .map(|(t, token)| {
                let at = |sample: &String| sample.lines().nth(l).and_then(|line| line.split_whitespace().nth(t)).and_then(|token| token.parse::<i64>().ok());
                match token.parse::<i64>() {
                    Ok(_) => {
                        let values: Vec<i64> = samples.iter().filter_map(at).collect();
                        format!("int {}..={}", values.iter().min().unwrap_or(&0), values.iter().max().unwrap_or(&0))
                    }
                    Err(_) if token.parse::<f64>().is_ok() => "decimal".to_owned(),
                    Err(_) => format!("word ({} letters)", token.chars().count()),
                }
            })
            .collect();
        let more = if line.split_whitespace().count() > 8 { ", …" } else { "" };
        shape.push_str(&format!("line {}: {}{more}\n", l + 1, kinds.join(", ")));
    }
    if first.lines().count() > 12 {
        shape.push_str(&format!("… ({} lines in all)\n", first.lines().count()));
    }
    shape
}

/// The package's submissions as the reference and the examples: the files directly in
/// each verdict's folder (a submission of several files, in a folder of its own, is left
/// out with a note, as is a file the package links to from outside).
fn submissions(own: &OwnFiles, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) {
    let (all, _) = own.files_under("submissions");
    let mut other_folders: Vec<&str> = all.iter().filter_map(|path| path["submissions/".len()..].split_once('/').map(|(folder, _)| folder)).collect();
    other_folders.dedup();
    for folder in other_folders.into_iter().filter(|folder| !SUBMISSION_FOLDERS.iter().any(|(known, _, _)| known == folder)) {
        let why = FOLDERS_LEFT_OUT.iter().find(|(known, _)| *known == folder).map_or("not a verdict bugrank knows", |(_, why)| why);
        imported.notes.push(format!("submissions/{folder}/ left out: {why}"));
    }
    // (prefix, stem, language, bytes) of every example, and the accepted ones apart.
    let mut examples: Vec<(&str, String, Language, Vec<u8>)> = Vec::new();
    // (language, stem, bytes, file name as the package has it) of each accepted one.
    let mut accepted: Vec<(Language, String, Vec<u8>, String)> = Vec::new();
    for (folder, prefix, verdict) in SUBMISSION_FOLDERS {
        let root = format!("submissions/{folder}");
        let (found, refused) = own.files_under(&root);
        imported.notes.extend(refused);
        let mut folders_left_out: Vec<&str> = Vec::new();
        for path in &found {
            let file = &path[root.len() + 1..];
            if let Some((inner, _)) = file.split_once('/') {
                if !folders_left_out.contains(&inner) {
                    folders_left_out.push(inner);
                    imported.notes.push(format!("{root}/{inner}/ ({verdict}) left out: bugrank builds one C, C++, Rust or Python file"));
                }
                continue;
            }
            let bytes = match own.read(path, MAX_SOURCE_BYTES) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => continue,
                Err(refused) => {
                    imported.notes.push(format!("{refused}; left out"));
                    continue;
                }
            };
            let language = match package_language(file, &bytes) {
                Ok(language) => language,
                Err(why) => {
                    imported.notes.push(format!("{path} ({verdict}) left out: {why}"));
                    continue;
                }
            };
            let stem = test_name(file.rsplit_once('.').map_or(file, |(stem, _)| stem));
            if folder == "accepted" {
                accepted.push((language, stem, bytes, file.to_owned()));
            } else {
                examples.push((prefix, stem, language, bytes));
            }
        }
    }
    let reference = REFERENCE_LANGUAGES.iter().find_map(|language| accepted.iter().position(|(l, ..)| l == language));
    let Some(reference) = reference else {
        imported.todo.insert(0, "Write the reference (reference.c, .cpp, .rs or .py): the package has no accepted submission bugrank can build.".to_owned());
        write_examples(examples, files, imported);
        return;
    };
    let (language, _, bytes, file) = accepted.remove(reference);
    imported.notes.push(format!("the reference is submissions/accepted/{file}, the first accepted submission in {language}"));
    files.push((PathBuf::from(format!("reference.{}", language.extension())), bytes));
    // A Python twin sets Python hand-ins' budgets (see `PythonReference`).
    if language != Language::Python
        && let Some(python) = accepted.iter().position(|(l, ..)| *l == Language::Python)
    {
        let (_, _, bytes, file) = accepted.remove(python);
        imported.notes.push(format!("reference.py is submissions/accepted/{file}: Python hand-ins' time budgets come from it"));
        files.push((PathBuf::from("reference.py"), bytes));
    }
    examples.extend(accepted.into_iter().map(|(language, stem, bytes, _)| ("correct", stem, language, bytes)));
    write_examples(examples, files, imported);
}

/// Writes `examples` as `submissions/PREFIX-STEM.EXT`; examples that would share an id
/// (`paul.cpp` and `paul.py`, both accepted) keep their language in it (`correct-paul-cpp`,
/// `correct-paul-py`).
fn write_examples(examples: Vec<(&'static str, String, Language, Vec<u8>)>, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) {
    let shared = |prefix: &str, stem: &str| examples.iter().filter(|(p, s, _, _)| *p == prefix && s == stem).count() > 1;
    let names: Vec<String> = examples
        .iter()
        .map(|(prefix, stem, language, _)| match shared(prefix, stem) {
            true => format!("{prefix}-{stem}-{}.{}", language.extension(), language.extension()),
            false => format!("{prefix}-{stem}.{}", language.extension()),
        })
        .collect();
    for ((prefix, _, _, bytes), name) in examples.into_iter().zip(names) {
        files.push((PathBuf::from(format!("submissions/{name}")), bytes));
        *imported.examples.entry(prefix).or_default() += 1;
    }
}

/// The language of a package's submission `file` (its `bytes`), as judges read its
/// extension (`.cc`, `.cxx`, `.c++`, `.py3` too), or why it is left out: another language,
/// or Python 2, which bugrank does not run.
fn package_language(file: &str, bytes: &[u8]) -> Result<Language, String> {
    const PYTHON_2: &str = "Python 2, which bugrank does not run (it runs Python 3)";
    let language = match file.rsplit_once('.').map_or("", |(_, extension)| extension) {
        "c++" => Language::Cpp,
        "py3" => Language::Python,
        "py2" => return Err(PYTHON_2.to_owned()),
        _ => Language::of_file(file).ok_or("bugrank builds one C, C++, Rust or Python file")?,
    };
    if language == Language::Python
        && let Some(line) = python_2_line(bytes)
    {
        return Err(format!("{PYTHON_2}: line {line} is a `print` statement"));
    }
    Ok(language)
}

/// The first line of a Python source that is a Python 2 `print` statement (`print x`,
/// `print "..."`, `print >>f, x`), a syntax error in Python 3, outside triple-quoted text;
/// `None` if there is none. (`print (x)` is a call in both, and `print` alone a name in
/// Python 3: neither counts.)
fn python_2_line(bytes: &[u8]) -> Option<usize> {
    let text = String::from_utf8_lossy(bytes);
    let mut quoted: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        let statement = quoted.is_none()
            && code.strip_prefix("print").is_some_and(|rest| match rest.chars().next() {
                Some('"' | '\'') => true,
                Some(' ' | '\t') => rest.trim_start().chars().next().is_some_and(|c| c.is_alphanumeric() || matches!(c, '"' | '\'' | '_' | '>' | '-')),
                _ => false,
            });
        if statement {
            return Some(index + 1);
        }
        for delimiter in ["\"\"\"", "'''"] {
            if quoted.is_none_or(|open| open == delimiter) && line.matches(delimiter).count() % 2 == 1 {
                quoted = if quoted.is_some() { None } else { Some(delimiter) };
            }
        }
    }
    None
}

/// Notes on a package's files bugrank does not read: `testdata.yaml`'s grading per test
/// group (its validator flags are read: see [`group_flags`]).
fn package_files_said(own: &OwnFiles, notes: &mut Vec<String>) {
    let (data, _) = own.files_under("data");
    let groups: Vec<&String> = data.iter().filter(|path| TEST_GROUP_FILES.iter().any(|name| path.ends_with(name))).collect();
    if !groups.is_empty() {
        let named: Vec<&str> = groups.iter().map(|path| path.as_str()).collect();
        notes.push(format!(
            "{}: test groups' grading is not read (their validators' flags are); every course test is one input, passed or failed",
            named.join(", ")
        ));
    }
}

/// The names of a test group's settings file: the legacy and 2023 formats' `testdata.yaml`,
/// the 2025 format's `test_group.yaml`.
const TEST_GROUP_FILES: [&str; 2] = ["testdata.yaml", "test_group.yaml"];

/// A package's `testdata.yaml` (or `test_group.yaml`) files, each read once, and its test
/// groups: a group is a folder of `data/sample` or `data/secret` holding tests.
struct TestGroups {
    /// The files that exist and read, by path.
    files: BTreeMap<String, serde_yaml_ng::Value>,
    /// Each group's files that apply to it, nearest first: its own, then its parent
    /// folders' up to `data/`.
    groups: Vec<Vec<String>>,
}

/// The package's [`TestGroups`]; a `testdata.yaml` that does not read is said in `notes`.
fn test_groups(own: &OwnFiles, notes: &mut Vec<String>) -> TestGroups {
    let (data, _) = own.files_under("data");
    let folders: std::collections::BTreeSet<&str> = data
        .iter()
        .filter(|path| path.ends_with(".in") && (path.starts_with("data/sample/") || path.starts_with("data/secret/")))
        .filter_map(|path| path.rsplit_once('/').map(|(folder, _)| folder))
        .collect();
    let mut read = TestGroups { files: BTreeMap::new(), groups: Vec::new() };
    let mut tried = std::collections::BTreeSet::new();
    for group in folders {
        let mut applying = Vec::new();
        let mut folder = group;
        loop {
            for name in TEST_GROUP_FILES {
                let path = format!("{folder}/{name}");
                if tried.insert(path.clone())
                    && let Some(yaml) = testdata_yaml(own, &path, notes)
                {
                    read.files.insert(path.clone(), yaml);
                }
                if read.files.contains_key(&path) {
                    applying.push(path);
                }
            }
            match folder.rsplit_once('/') {
                Some((parent, _)) if folder != "data" => folder = parent,
                _ => break,
            }
        }
        read.groups.push(applying);
    }
    read
}

/// The flags of one of a package's validators (`key`: `input_validator` or
/// `output_validator`) that its test groups give, each list once, in the groups' order: a
/// group's are those of the nearest `testdata.yaml` that sets `KEY_flags` (one line) or,
/// as the 2023 and 2025 formats name them, `KEY_args` (a list) (a group inherits its
/// parent's, as problemtools reads them). Flags given otherwise (the 2023 format's flags
/// per validator) are said in `notes`.
fn group_flags(test_groups: &TestGroups, key: &str, notes: &mut Vec<String>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let keys = [format!("{key}_flags"), format!("{key}_args")];
    for applying in &test_groups.groups {
        let set = applying.iter().find_map(|path| {
            let yaml = &test_groups.files[path];
            keys.iter().find_map(|key| Some((path, key, yaml.get(key).filter(|set| !set.is_null())?)))
        });
        let flags = match set {
            None => Vec::new(),
            Some((path, key, value)) => {
                let word = |value: &serde_yaml_ng::Value| match value {
                    serde_yaml_ng::Value::String(text) => Some(text.clone()),
                    serde_yaml_ng::Value::Number(number) => Some(number.to_string()),
                    _ => None,
                };
                let flags = match value {
                    serde_yaml_ng::Value::String(flags) => Some(flags.split_whitespace().map(str::to_owned).collect()),
                    serde_yaml_ng::Value::Sequence(list) => list.iter().map(word).collect(),
                    _ => None,
                };
                flags.unwrap_or_else(|| {
                    let said = format!("{path}: {key} other than one line or one list of flags (flags per validator) is not read");
                    if !notes.contains(&said) {
                        notes.push(said);
                    }
                    Vec::new()
                })
            }
        };
        if !found.contains(&flags) {
            found.push(flags);
        }
    }
    if found == [Vec::<String>::new()] { Vec::new() } else { found }
}

/// The `testdata.yaml` at `path` in the package, if there is one that reads; one that does
/// not is said in `notes`.
fn testdata_yaml(own: &OwnFiles, path: &str, notes: &mut Vec<String>) -> Option<serde_yaml_ng::Value> {
    let text = match own.read(path, MAX_YAML_BYTES) {
        Ok(Some(bytes)) => String::from_utf8(bytes).ok(),
        Ok(None) => return None,
        Err(refused) => {
            notes.push(format!("{refused}; its flags are not read"));
            return None;
        }
    };
    let parsed = text.filter(|text| nesting_beyond(text, MAX_YAML_DEPTH).is_none()).and_then(|text| serde_yaml_ng::from_str(&text).ok());
    if parsed.is_none() {
        notes.push(format!("{path} is not YAML that bugrank reads (UTF-8, nested at most {MAX_YAML_DEPTH} deep); its flags are not read"));
    }
    parsed
}

/// `[input_validator]` for the test groups' flags `groups` (see [`group_flags`]): nothing
/// for none, `flags` for one list, `groups` for several (an input is valid with one of
/// them), said in `notes`.
fn input_validator_toml(groups: &[Vec<String>], notes: &mut Vec<String>) -> String {
    let list = |flags: &Vec<String>| toml_list(flags.iter().map(String::as_str));
    match groups {
        [] => String::new(),
        [flags] => format!("\n[input_validator]\nflags = {}\n", list(flags)),
        _ => {
            notes.push(format!(
                "the test groups give the input validator different flags ({}): an input is valid when it accepts it with one of them ([input_validator] groups), as bugrank grades no subtask",
                shown_groups(groups)
            ));
            format!("\n[input_validator]\ngroups = [{}]\n", groups.iter().map(list).collect::<Vec<_>>().join(", "))
        }
    }
}

/// `words` as a TOML array of strings: `["float_tolerance", "1e-6"]`.
fn toml_list<'a>(words: impl Iterator<Item = &'a str>) -> String {
    format!("[{}]", words.map(|word| toml::Value::String(word.to_owned()).to_string()).collect::<Vec<_>>().join(", "))
}

/// Test groups' lists of flags as a note shows them: `` `nFive=0`, `nFive=1` ``.
fn shown_groups(groups: &[Vec<String>]) -> String {
    groups.iter().map(|flags| format!("`{}`", flags.join(" "))).collect::<Vec<_>>().join(", ")
}

/// The nesting depth of `yaml` once it reaches `limit` (or more), else `None`: on each
/// line its indentation and leading `- ` items, plus the flow brackets (`[`, `{`) open
/// there, quoted text and comments set aside. An upper bound of the parser's depth, found
/// in one pass.
fn nesting_beyond(yaml: &str, limit: usize) -> Option<usize> {
    let mut brackets = 0usize;
    for line in yaml.lines() {
        let content = line.trim_start_matches(' ');
        let mut depth = line.len() - content.len();
        let mut rest = content;
        while depth < limit
            && let Some(after) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix('-').filter(|r| r.is_empty()))
        {
            depth += 1;
            rest = after.trim_start_matches(' ');
        }
        let mut quote: Option<char> = None;
        for c in rest.chars() {
            match (quote, c) {
                (None, '#') => break,
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '[' | '{') => brackets += 1,
                (None, ']' | '}') => brackets = brackets.saturating_sub(1),
                _ => {}
            }
            if depth + brackets >= limit {
                return Some(depth + brackets);
            }
        }
        if depth + brackets >= limit {
            return Some(depth + brackets);
        }
    }
    None
}

/// `IMPORT.md`: what was imported, what the author must still do, and what did not map.
fn import_notes(id: &str, imported: &Imported) -> String {
    let examples: Vec<String> = imported.examples.iter().map(|(prefix, n)| format!("{n} `{prefix}-…`")).collect();
    let mut md = format!(
        "# Imported from the problem package `{id}`\n\nThe package's {} tests are the course's tests now (`tests/`): every analysis runs them first. \
         Example submissions: {}.\n\nCheck the problem with `bugrank check-problem {}`.\n\n## Still to do\n\n",
        imported.tests,
        if examples.is_empty() { "none".to_owned() } else { examples.join(", ") },
        imported.dir.display()
    );
    for (i, item) in imported.todo.iter().enumerate() {
        md.push_str(&format!("{}. {item}\n", i + 1));
    }
    md.push_str("\n## What did not map exactly\n\n");
    for note in &imported.notes {
        md.push_str(&format!("- {note}\n"));
    }
    md
}

/// The checker an import with a custom output validator starts from: it compares words as
/// the default validator does, with bugrank's checker library, until the author ports the
/// validator's rules.
const CHECKER_SKELETON: &str = r#"//! The problem's checker, to port from the package's output validator
//! (package/output_validators/). bugrank runs it with the test's input, the model answer's
//! output and the hand-in's output; it accepts, or rejects with a reason the student reads.
//! The library `bugrank_check` (bugrank_check.rs) reads the three parts, compares words and
//! numbers, and says the verdict.

use bugrank_check as check;

fn main() {
    let parts = check::read();
    // TODO: the validator's rules. Until then: the model answer's words, numbers within 1e-6.
    match check::compare_tokens(&parts.expected, &parts.actual, false, 1e-6, 1e-6) {
        Ok(()) => check::accept(),
        Err(reason) => check::reject(reason),
    }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_2_print_statement_is_found_outside_docstrings() {
        let check = |text: &str, expected: Option<usize>| assert_eq!(python_2_line(text.as_bytes()), expected, "{text}");
        check("n = int(raw_input())\nprint n * 2\n", Some(2));
        check("print \"hello\"\n", Some(1));
        check("import sys\nprint >>sys.stderr, 'x'\n", Some(2));
        check("print(n * 2)\nprint (n)\nprint = 3\nprint\nprinted = 1\n", None);
        check("\"\"\"Reads n and\nprint the answer doubled.\n\"\"\"\nprint(2 * int(input()))\n", None);
    }

    fn check(yaml: &str, expected: Option<usize>) {
        assert_eq!(nesting_beyond(yaml, MAX_YAML_DEPTH), expected, "{yaml:.80}");
    }

    #[test]
    fn a_problem_yaml_nested_too_deep_is_found_in_one_pass_whatever_its_style() {
        check("name: Average\nlimits:\n  memory: 256\nvalidator_flags: float_tolerance 1e-6\n", None);
        check("name: 'a [bracket' # and [[[[ in a comment\nkeywords: [a, {b: c}]\n", None);
        check(&format!("limits: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)), Some(MAX_YAML_DEPTH));
        check(&"- ".repeat(100_000), Some(MAX_YAML_DEPTH));
        let indented: String = (0..100).map(|level| format!("{}k{level}:\n", " ".repeat(level))).collect();
        check(&indented, Some(MAX_YAML_DEPTH));
    }
}
