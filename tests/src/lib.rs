//! Helpers for the end-to-end tests: run `bugrank grade` in-process on the fixtures, with
//! a real sandbox and real files in a temporary directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;
use course::Tools;
use sandbox::Sandbox;
use web::cli::grade::{GradeArgs, run_grade, write_outputs};

/// The interval-sets fixture problem.
pub struct Fixture {
    pub problem: &'static str,
    /// Submissions in the cohort.
    pub answers: usize,
}

pub const FIXTURE: Fixture = Fixture { problem: "interval-sets", answers: 19 };

/// The repository's root directory.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

pub fn problem_dir() -> PathBuf {
    root().join("fixtures/problems").join(FIXTURE.problem)
}

/// One sandbox and builder for every test of a binary: each module is compiled once.
pub fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| Tools { sandbox: Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) })
}

/// The sandbox of [`tools`].
pub fn sandbox() -> &'static Sandbox {
    &tools().sandbox
}

/// A command's arguments, as the command line would give them to it.
#[derive(Parser)]
struct Command<A: clap::Args> {
    #[command(flatten)]
    args: A,
}

/// Parses `argv` (the command's name first) into the arguments of a `bugrank` command.
pub fn parse_args<A: clap::Args, S: AsRef<str>>(argv: &[S]) -> A {
    let argv: Vec<&str> = argv.iter().map(AsRef::as_ref).collect();
    Command::<A>::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}")).args
}

/// What a `bugrank grade` run wrote, file name to contents.
pub struct Written {
    pub files: BTreeMap<String, String>,
    pub graded: course::Graded,
}

/// Runs `bugrank grade` on the fixture cohort (problem, submissions and roster unless
/// `options` name them) with the given options, writing into a temporary directory.
pub fn grade(options: &[(&str, &str)]) -> Written {
    run(options, true)
}

/// Like [`grade`], with no roster unless `options` give one.
pub fn grade_without_roster(options: &[(&str, &str)]) -> Written {
    run(options, false)
}

fn run(options: &[(&str, &str)], default_roster: bool) -> Written {
    let out = tempfile::tempdir().unwrap();
    let mut argv: Vec<String> = vec!["grade".into()];
    let given = |flag: &str| options.iter().any(|(f, _)| *f == flag);
    let defaults = [("--problem", problem_dir()), ("--submissions", problem_dir().join("submissions")), ("--roster", problem_dir().join("roster.csv"))];
    let wanted = |flag: &str| !given(flag) && (default_roster || flag != "--roster");
    for (flag, path) in defaults.iter().filter(|(flag, _)| wanted(flag)) {
        argv.extend([flag.to_string(), path.display().to_string()]);
    }
    for (flag, value) in options {
        argv.extend([flag.to_string(), value.to_string()]);
    }
    argv.extend(["--out".into(), out.path().display().to_string()]);
    let args: GradeArgs = parse_args(&argv);
    let graded = run_grade(tools(), &args).unwrap();
    write_outputs(&args.out, &graded).unwrap();
    let files = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(entry.path()).unwrap())
        })
        .collect();
    Written { files, graded }
}

/// The full analysis of the fixture cohort with `seed` and the problem's own settings.
pub fn graded_with_seed(seed: u64) -> grader::Analysis {
    grade(&[("--seed", &seed.to_string())]).graded.analysis
}

/// True when this machine can build `languages` (their toolchains and the sandbox are
/// there); otherwise says why and returns false, except under `CI` (where `.ci/run`
/// installs them), where it fails.
pub fn can_build(languages: &[toolchain::Language]) -> bool {
    for &language in languages {
        if let Err(missing) = tools().builder.ready(language) {
            assert!(std::env::var_os("CI").is_none(), "under CI every toolchain must be installed: {missing}");
            eprintln!("skipped: {missing}");
            return false;
        }
    }
    true
}

/// What two analyses of cohorts with the same bugs must share: the suite (inputs and who
/// fails each), and each answer's score, failed tests, kinds of failure and points.
pub fn verdicts(analysis: &grader::Analysis) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let suite = analysis.suite.iter().map(|t| (t.input.clone(), t.failing.clone())).collect();
    let answers = analysis
        .answers
        .iter()
        .map(|a| format!("{} passed {} failed {:?} kinds {:?} points {:?}", a.id, a.passed, a.failed, a.outcomes, a.points.as_ref().map(|p| p.points)))
        .collect();
    (suite, answers)
}
