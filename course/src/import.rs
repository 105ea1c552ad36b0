//! A judge's problem package (the Kattis / ICPC problem package format) made into a bugrank
//! problem directory: what `bugrank import` does.
//!
//! What maps, and how:
//!
//! | package | bugrank problem |
//! |---|---|
//! | `problem.yaml`: `name` | `problem.toml`: `title`; the package's folder is the `name` |
//! | `validation: default` and `validator_flags` | `oracle = "tokens"`: `case_sensitive` only with the flag (judges compare case-insensitively by default), `float_tolerance` (both), `float_absolute_tolerance`, `float_relative_tolerance` |
//! | `validation: custom` (`output_validators/`) | `oracle = "checker"`: the validator's sources kept in `package/`, a `checker.rs` to port it into |
//! | `limits: memory`, `output` (MiB) | `limits.memory_mib`, `limits.output_bytes` (within bugrank's bounds) |
//! | `problem_statement/problem.en.md` (or `statement/`, or `.tex` kept as it is) | `statement.md` |
//! | `data/sample/*.in` with `.ans`, `data/secret/**/*.in` with `.ans` | the course's tests: `tests/sample-NAME.in` with `.out`, `tests/secret-GROUP-NAME…` |
//! | `submissions/accepted` | the reference (the first in C++, else C, Rust, Python), `reference.py` (a Python one, when the reference is compiled: it sets Python hand-ins' budgets) and `submissions/correct-NAME` |
//! | `submissions/wrong_answer`, `time_limit_exceeded`, `run_time_error` | `submissions/wrong-NAME`, `slow-NAME`, `crash-NAME`: `check-problem` checks each fails some test that way |
//!
//! A package has no generator: the import writes `generator.rs`, which draws one of the
//! sample inputs (so the problem is complete and checks at once), with the inputs' shape
//! as comments to start a real generator from. `IMPORT.md` lists what was imported and what
//! the author must still write ([`Imported::todo`]). An interactive problem cannot be
//! imported (bugrank runs programs from their input to their output).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolchain::Language;

use crate::error::{CourseError, CourseResult};
use crate::problem_dir::{MAX_COURSE_TESTS, MAX_OUTPUT_BYTES, MAX_PROBLEM_NAME_CHARS, MAX_TEST_NAME_CHARS};

/// The most bytes of sample inputs the generator written by the import embeds: a generator
/// is one source file, built for every check, and samples are small.
pub const MAX_EMBEDDED_SAMPLE_BYTES: usize = 64 << 10;

/// A package's submission folders, the prefix their examples get in bugrank (see
/// [`crate::problem_check::example_expectation`]), and what the judge's verdict was.
const SUBMISSION_FOLDERS: [(&str, &str, &str); 4] = [
    ("accepted", "correct", "accepted"),
    ("wrong_answer", "wrong", "a wrong answer"),
    ("time_limit_exceeded", "slow", "too slow"),
    ("run_time_error", "crash", "a run-time error"),
];

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
}

/// The parts of `problem.yaml` the import reads (the rest is left alone).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PackageYaml {
    name: Option<PackageName>,
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

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PackageLimits {
    /// MiB.
    memory: Option<u64>,
    /// MiB.
    output: Option<u64>,
}

/// Imports the package in `package` into a new problem directory `out` (which must not
/// exist). Errors name the file and what is wrong; what merely does not map is a note.
pub fn import_package(package: &Path, out: &Path) -> CourseResult<Imported> {
    let bad = |why: String| CourseError::Problem(format!("{}: {why}", package.display()));
    if out.exists() {
        return Err(CourseError::Problem(format!("{} already exists: choose another folder, or delete it first", out.display())));
    }
    let yaml_path = package.join("problem.yaml");
    let yaml_text = std::fs::read_to_string(&yaml_path).map_err(CourseError::io(format!("cannot read {} (is this a problem package?)", yaml_path.display())))?;
    let yaml: PackageYaml = serde_yaml_ng::from_str(&yaml_text).map_err(|e| bad(format!("problem.yaml is not valid: {e}")))?;
    let id = package
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "imported".to_owned());
    let id: String = id.chars().take(MAX_PROBLEM_NAME_CHARS).collect();
    let title = match &yaml.name {
        Some(PackageName::One(name)) => name.clone(),
        Some(PackageName::ByLanguage(names)) => names.get("en").or_else(|| names.values().next()).cloned().unwrap_or_else(|| id.clone()),
        None => id.clone(),
    };
    let title: String = title.chars().filter(|c| !c.is_control() && *c != '"' && *c != '\\').collect();

    let mut imported = Imported { dir: out.to_owned(), tests: 0, examples: BTreeMap::new(), todo: Vec::new(), notes: Vec::new() };
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let validation = yaml.validation.as_deref().unwrap_or("default").trim().to_owned();
    if validation.contains("interactive") {
        return Err(bad("an interactive problem (validation: custom interactive) cannot be graded by bugrank, which runs each program from its input to its output".to_owned()));
    }
    let oracle = match validation.as_str() {
        "default" => tokens_oracle(yaml.validator_flags.as_deref().unwrap_or(""), &mut imported.notes),
        _ => {
            let validators = package.join("output_validators");
            for path in files_under(&validators) {
                let target = Path::new("package/output_validators").join(path.strip_prefix(&validators).unwrap_or(&path));
                files.push((target, std::fs::read(&path).map_err(CourseError::io(format!("cannot read {}", path.display())))?));
            }
            files.push((PathBuf::from("checker.rs"), CHECKER_SKELETON.as_bytes().to_vec()));
            files.push((PathBuf::from("bugrank_check.rs"), toolchain::guest::RUST_CHECK_CRATE.as_bytes().to_vec()));
            imported.todo.push(
                "Port the package's output validator (kept in package/output_validators/) into checker.rs, which compares words as the default validator does until then. A bugrank checker is given the input, the model answer's output and the hand-in's output, and accepts or rejects with a reason; bugrank_check.rs reads them and compares words and numbers for it."
                    .to_owned(),
            );
            "oracle = \"checker\"\n".to_owned()
        }
    };
    let limits = limits_toml(&yaml.limits, &mut imported.notes);
    files.push((
        PathBuf::from("problem.toml"),
        format!(
            "# Imported from the problem package {id} by `bugrank import` (see IMPORT.md).\ntitle = \"{title}\"\nname = \"{id}\"\nlanguages = [\"c\", \"cpp\", \"rust\", \"python\"]\n{oracle}{limits}"
        )
        .into_bytes(),
    ));
    files.push((PathBuf::from("statement.md"), statement(package, &title, &mut imported)?));

    let (tests, samples) = course_tests(package, &mut files, &mut imported)?;
    imported.tests = tests;
    files.push((PathBuf::from("generator.rs"), generator(&samples, &mut imported)));
    files.push((PathBuf::from("bugrank_gen.rs"), toolchain::guest::RUST_CRATE.as_bytes().to_vec()));
    submissions(package, &mut files, &mut imported)?;

    files.push((PathBuf::from("IMPORT.md"), import_notes(&id, &imported).into_bytes()));
    for (path, bytes) in files {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(out))
            .and_then(|()| std::fs::write(&path, bytes))
            .map_err(CourseError::io(format!("cannot write {}", path.display())))?;
    }
    Ok(imported)
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
    if let Some(mib) = limits.memory {
        let max = (sandbox::MAX_MEMORY_BYTES >> 20) as u64;
        if mib > max {
            notes.push(format!("the package's memory limit of {mib} MiB is more than bugrank's {max} MiB; {max} MiB it is"));
        }
        toml.push_str(&format!("memory_mib = {}\n", mib.clamp(1, max)));
    }
    if let Some(mib) = limits.output {
        let max = MAX_OUTPUT_BYTES as u64;
        toml.push_str(&format!("output_bytes = {}\n", (mib << 20).clamp(1, max)));
    }
    notes.push(
        "time: a judge's time limit is seconds of wall clock; bugrank gives each hand-in a budget of instructions relative to the reference on the same input (limits.fuel_factor, 20 times by default), the same on every machine".to_owned(),
    );
    if toml.is_empty() { toml } else { format!("\n[limits]\n{toml}") }
}

/// The statement: the package's Markdown one, else its LaTeX one kept as it is.
fn statement(package: &Path, title: &str, imported: &mut Imported) -> CourseResult<Vec<u8>> {
    let candidates = ["problem_statement/problem.en.md", "problem_statement/problem.md", "statement/problem.en.md", "statement/problem.md"];
    for candidate in candidates {
        if let Some(text) = read_if_there(&package.join(candidate))? {
            return Ok(text);
        }
    }
    for candidate in ["problem_statement/problem.en.tex", "problem_statement/problem.tex", "statement/problem.en.tex"] {
        if let Some(tex) = read_if_there(&package.join(candidate))? {
            imported.todo.push(format!("Turn statement.md into Markdown: it holds {candidate} as it is, in LaTeX."));
            return Ok(format!("# {title}\n\n```latex\n{}\n```\n", String::from_utf8_lossy(&tex).trim_end()).into_bytes());
        }
    }
    imported.todo.push("Write statement.md: the package has no statement.".to_owned());
    Ok(format!("# {title}\n").into_bytes())
}

/// The package's sample and secret data as the course's tests; returns how many, and the
/// sample inputs (the secret ones when there is no sample), smallest first.
fn course_tests(package: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) -> CourseResult<(usize, Vec<Vec<u8>>)> {
    let mut tests = 0;
    let mut inputs_of: BTreeMap<&str, Vec<Vec<u8>>> = BTreeMap::new();
    for group in ["sample", "secret"] {
        let root = package.join("data").join(group);
        for input in files_under(&root).into_iter().filter(|path| path.extension().is_some_and(|e| e == "in")) {
            let relative = input.strip_prefix(&root).unwrap_or(&input).with_extension("");
            let parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let name = test_name(&format!("{group}-{}", parts.join("-")));
            let answer = input.with_extension("ans");
            let bytes = std::fs::read(&input).map_err(CourseError::io(format!("cannot read {}", input.display())))?;
            if let Some(expected) = read_if_there(&answer)? {
                files.push((PathBuf::from(format!("tests/{name}.out")), expected));
            }
            files.push((PathBuf::from(format!("tests/{name}.in")), bytes.clone()));
            inputs_of.entry(group).or_default().push(bytes);
            tests += 1;
        }
    }
    if tests > MAX_COURSE_TESTS {
        return Err(CourseError::Problem(format!("{}: {tests} test files in data/, more than bugrank's {MAX_COURSE_TESTS}", package.display())));
    }
    if tests == 0 {
        imported.todo.push("Add tests: the package's data/ has no sample or secret inputs, so the problem has no course's tests.".to_owned());
    }
    let mut samples = inputs_of.remove("sample").or_else(|| inputs_of.remove("secret")).unwrap_or_default();
    samples.sort_by_key(Vec::len);
    Ok((tests, samples))
}

/// Every file under `dir`, folders walked in name order (none when `dir` is not there).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths.into_iter().flat_map(|path| if path.is_dir() { files_under(&path) } else { vec![path] }).filter(|path| path.is_file()).collect()
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

/// The package's submissions as the reference and the examples.
fn submissions(package: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>, imported: &mut Imported) -> CourseResult<()> {
    let mut accepted: Vec<(Language, String, Vec<u8>)> = Vec::new();
    for (folder, prefix, verdict) in SUBMISSION_FOLDERS {
        let dir = package.join("submissions").join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let language = Language::of_file(&file).filter(|_| path.is_file());
            let Some(language) = language else {
                imported.notes.push(format!("submissions/{folder}/{file} ({verdict}) left out: bugrank builds one C, C++, Rust or Python file"));
                continue;
            };
            let bytes = std::fs::read(&path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
            let stem = test_name(file.rsplit_once('.').map_or(file.as_str(), |(stem, _)| stem));
            if folder == "accepted" {
                accepted.push((language, stem, bytes));
            } else {
                files.push((PathBuf::from(format!("submissions/{prefix}-{stem}.{}", language.extension())), bytes));
                *imported.examples.entry(prefix).or_default() += 1;
            }
        }
    }
    let reference = REFERENCE_LANGUAGES.iter().find_map(|language| accepted.iter().position(|(l, _, _)| l == language));
    let Some(reference) = reference else {
        imported.todo.insert(0, "Write the reference (reference.c, .cpp, .rs or .py): the package has no accepted submission bugrank can build.".to_owned());
        return Ok(());
    };
    let (language, stem, bytes) = accepted.remove(reference);
    imported.notes.push(format!("the reference is submissions/accepted/{stem}.{}, the first accepted submission in {language}", language.extension()));
    files.push((PathBuf::from(format!("reference.{}", language.extension())), bytes));
    // A Python twin sets Python hand-ins' budgets (see `PythonReference`).
    if language != Language::Python
        && let Some(python) = accepted.iter().position(|(l, _, _)| *l == Language::Python)
    {
        let (_, stem, bytes) = accepted.remove(python);
        imported.notes.push(format!("reference.py is submissions/accepted/{stem}.py: Python hand-ins' time budgets come from it"));
        files.push((PathBuf::from("reference.py"), bytes));
    }
    for (language, stem, bytes) in accepted {
        files.push((PathBuf::from(format!("submissions/correct-{stem}.{}", language.extension())), bytes));
        *imported.examples.entry("correct").or_default() += 1;
    }
    Ok(())
}

/// The bytes of `path`, or `None` when there is no such file.
fn read_if_there(path: &Path) -> CourseResult<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CourseError::Io { what: format!("cannot read {}", path.display()), error: e }),
    }
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
