//! A problem directory: `problem.toml`, `statement.md`, the reference, the generator, and
//! a checker when several outputs can be right. Each program is a module
//! (`reference.wasm`) or sources bugrank builds in the toolchain's sandbox
//! (`reference.c`, `.cpp` or `.rs`; a generator with the guest library `bugrank_gen`), or
//! Python sources compiled by the sandbox's CPython; a module wins over sources beside it.
//! A `reference.py` beside a compiled reference is its Python twin, which sets Python
//! answers' budgets. A function-level problem has harnesses, which its reference is built
//! with, and its accepted languages are narrowed to theirs (`load::Accepted`). The course's
//! tests of `tests/` are read by [`read_written_tests`], which `bugrank grade-tests` reads
//! each student's suite with too. Every number of `problem.toml` is bounded (the `MAX_`
//! constants here): a bundle cannot make its check, its calibration or an analysis run for
//! hours.

use std::path::{Path, PathBuf};

use grader::{FuelPolicy, GradingPolicy, Oracle, SearchOptions, TokenRules, WrittenTest};
use sandbox::{Limits, MAX_MEMORY_BYTES, Program, Role, Sandbox};
use serde::Deserialize;
use toolchain::{BuildOptions, Builder, Built, Harness, Language, Locals, Source};

use crate::error::{CourseError, CourseResult};
use crate::executor::{ExitStatus, Protocol, PythonReference, SandboxExecutor};
pub use crate::load::Accepted;

pub use crate::executor::MAX_REFERENCE_FUEL;

/// The largest `limits.output_bytes` a problem may set: outputs are kept in memory for
/// every suite test and every answer's failed run.
pub const MAX_OUTPUT_BYTES: usize = 16 << 20;

/// The largest `limits.fuel_floor`: the reference's own ceiling. An answer's budget is at
/// least the floor on every run, so a floor of 10^15 made every looping answer run to the
/// sandbox's wall clock (30 s) on every test.
pub const MAX_FUEL_FLOOR: u64 = MAX_REFERENCE_FUEL;

/// The largest `limits.fuel_factor` and `limits.hardest_factor`: an answer 1,000 times
/// slower than the reference is not one a judge would wait for (the defaults are 20 and 10).
pub const MAX_FUEL_FACTOR: u64 = 1_000;

/// The largest `search.stable_after`: a hundred times the paper's 10,000.
pub const MAX_STABLE_AFTER: u64 = 1_000_000;

/// The largest `search.max_tests`: ten times the default, some hours of a large class.
pub const MAX_TESTS: u64 = 10_000_000;

/// The largest `grading.max_points`: a gradebook's scale is 1 to a few hundred points;
/// 10,000 leaves room for any, and keeps points readable with two decimals.
pub const MAX_POINTS: f64 = 10_000.0;

/// The longest name of a problem (`name` in `problem.toml`, a bundle's folder, else the
/// zip's name): a name people read in lists, and far below what a file system allows.
pub const MAX_PROBLEM_NAME_CHARS: usize = 64;

/// The most tests a problem's `tests/` folder may hold: each runs on every hand-in before
/// the search (500 tests of a class of 300 are 150,000 runs, a minute or two here), and a
/// judge package's sample and secret data rarely hold more than a few hundred.
pub const MAX_COURSE_TESTS: usize = 500;

/// The most bytes of all the inputs and expected outputs of a problem's `tests/` together:
/// they stay in memory through every analysis, beside the outputs of every answer on them.
pub const MAX_COURSE_TEST_BYTES: u64 = 64 << 20;

/// The longest name of a hand-written test (`NAME` of `NAME.in`): a name people read in a
/// bug list's heading.
pub const MAX_TEST_NAME_CHARS: usize = 64;

/// `max` if it can be a maximum of points (more than 0, at most [`MAX_POINTS`]), else why
/// not, in words that start with `max_points`.
pub fn max_points(max: f64) -> Result<f64, String> {
    if max > 0.0 && max <= MAX_POINTS { Ok(max) } else { Err(format!("max_points must be more than 0 and at most {MAX_POINTS} (it is {max})")) }
}

/// The files of a problem directory (a bundle's other files are ignored): the settings and
/// statement, each program as a module or a source file, and the generator's and the
/// checker's guest libraries when the author keeps a copy. `statement.md` is optional, and
/// the checker needed only when the oracle is a checker. (A validator's sources are the
/// files of `validator/`, an input validator's of `input_validator/`: see [`ValidatorToml`].)
pub const PROBLEM_FILES: [&str; 29] = [
    "problem.toml",
    "statement.md",
    "reference.wasm",
    "reference.c",
    "reference.cpp",
    "reference.rs",
    "reference.py",
    "generator.wasm",
    "generator.c",
    "generator.cpp",
    "generator.rs",
    "generator.py",
    "checker.wasm",
    "checker.c",
    "checker.cpp",
    "checker.rs",
    "checker.py",
    VALIDATOR_MODULE,
    INPUT_VALIDATOR_MODULE,
    "bugrank_gen.h",
    "bugrank_gen.rs",
    "bugrank_gen.py",
    "bugrank_check.h",
    "bugrank_check.rs",
    "harness.c",
    "harness.cpp",
    "interface.h",
    "harness.rs",
    "harness.py",
];

/// `problem.toml`. Every field but the title has a default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemToml {
    pub title: String,
    /// The problem's name in outputs (`analysis.json`, reports): default the folder's name.
    #[serde(default)]
    pub name: Option<String>,
    /// How outputs are judged: `exact`, `trim-trailing-whitespace` (the default: the end
    /// of the whole output), `trim-line-ends` (the end of every line), `checker`,
    /// `validator` (the judges' protocol, with `[validator]`), `tokens` (with `[tokens]`)
    /// or `interactive` (programs talk with the judges' interactor, built from
    /// `validator/` with `[validator]`'s flags: [`crate::executor::Protocol::Interactive`]).
    #[serde(default)]
    pub oracle: OracleName,
    /// `[validator]` for `oracle = "validator"` or `"interactive"`: the judges' output
    /// validator or interactor, built from the C or C++ sources in `validator/`, or its one
    /// Python file run by bugrank's Python (see [`ValidatorToml`]).
    #[serde(default)]
    pub validator: ValidatorToml,
    /// `[input_validator]`: the flags of the input validator built from the sources in
    /// `input_validator/`, where the problem has one (a judge's package's): `check-problem`
    /// runs it on every generated input and every course's test (see
    /// [`InputValidatorToml`]).
    #[serde(default)]
    pub input_validator: InputValidatorToml,
    /// `[tokens]` for `oracle = "tokens"`: `case_sensitive` (default true), `float_absolute`
    /// and `float_relative` (default 0): see [`grader::TokenRules`].
    #[serde(default)]
    pub tokens: TokenRules,
    #[serde(default)]
    pub limits: LimitsToml,
    #[serde(default)]
    pub search: SearchToml,
    /// How points on the fixed scale are given (`max_points`, default 100;
    /// `failure_deduction`, default 0.1): see [`grader::GradingPolicy`].
    #[serde(default)]
    pub grading: GradingPolicy,
    /// The languages students' sources may be in (`["c", "cpp", "rust"]`, the default:
    /// all). Modules are always accepted.
    #[serde(default = "all_languages")]
    pub languages: Vec<Language>,
    /// Which exit statuses let a run's output be judged: `"zero"` (the default, as judges
    /// do: any other status is a failure, said in words) or `"any"` (the output alone is
    /// judged, for courses whose programs `return 1` and never learnt otherwise).
    #[serde(default)]
    pub exit_status: ExitStatus,
    /// How C and C++ locals start before they are given a value: `"pattern"` (the default:
    /// every byte 0xFF, so that reading one shows as the same wrong answer everywhere, and
    /// the bug list names it) or `"uninitialized"` (as the compiler makes them:
    /// `-O2` may fold a read into any value, the right one included). See [`Locals`].
    #[serde(default)]
    pub uninitialised_locals: Locals,
    /// `[rules]`: what hand-ins must not use, whatever they print (see [`RulesToml`]).
    #[serde(default)]
    pub rules: crate::rules::RulesToml,
    /// `[pre_check]`: which of the course's tests a student's hand-in is run on at once,
    /// before the deadline (see [`PreCheckToml`]).
    #[serde(default)]
    pub pre_check: PreCheckToml,
}

/// `[pre_check]` of `problem.toml`: the course's tests (`tests/NAME.in`) that students
/// may see, by name, each pattern a name or a prefix ending in `*`. Their hand-ins are run
/// on these at once, and they see each one's input, the expected output and their own;
/// every other course's test, and every generated one, stays for the analysis. Default
/// `["sample*", "example*"]`: a judge's package's sample data, which `bugrank import` names
/// `sample-NAME`, and tests named as examples. `public = []` shows none (the pre-check then
/// only builds the hand-in).
///
/// ```toml
/// [pre_check]
/// public = ["sample*", "edge-empty"]
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreCheckToml {
    #[serde(default = "default_public_tests")]
    pub public: Vec<String>,
}

impl Default for PreCheckToml {
    fn default() -> PreCheckToml {
        PreCheckToml { public: default_public_tests() }
    }
}

fn default_public_tests() -> Vec<String> {
    vec!["sample*".to_owned(), "example*".to_owned()]
}

impl PreCheckToml {
    /// Whether the course's test `name` is public: a pattern is the name, or a prefix of
    /// it followed by `*`.
    pub fn is_public(&self, name: &str) -> bool {
        self.public.iter().any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        })
    }
}

/// `[validator]` of `problem.toml`: an output validator as judges write it (problemtools,
/// Kattis, DOMjudge), whose sources are the files of the problem's folder `validator/`
/// (C or C++, with their headers: `validate.h`, `testlib.h`; or one Python file, with
/// `sys.argv` as judges give it), built in the sandbox as hand-ins are. Each output is judged by a run of it with the test's input and the
/// reference's output as files, the output on stdin: see [`crate::executor::Protocol`].
///
/// ```toml
/// oracle = "validator"
/// [validator]
/// flags = ["float_tolerance", "1e-6"]
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatorToml {
    /// Arguments given after the feedback directory (a package's `validator_flags`).
    /// Default none.
    #[serde(default)]
    pub flags: Vec<String>,
    /// How an output validator is asked (`protocol`): `judges` (the default, see
    /// [`crate::executor::Protocol::Judges`]) or `testlib`, a checker written with
    /// testlib.h's `registerTestlibCmd` ([`crate::executor::Protocol::Testlib`]: no flags).
    /// An interactor is asked as judges ask one.
    #[serde(default)]
    pub protocol: ValidatorProtocol,
}

/// `[validator] protocol`: see [`ValidatorToml::protocol`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValidatorProtocol {
    #[default]
    Judges,
    Testlib,
}

/// `[input_validator]` of `problem.toml`: the arguments of the input validator (a judge's
/// package's, built from `input_validator/`). A package whose test groups give it
/// different flags (subtasks: `nFive=1` for one group, `nFive=0` for the others) has them
/// all in `groups`: an input is valid when the validator accepts it with one of them, as
/// bugrank grades no subtask.
///
/// ```toml
/// [input_validator]
/// groups = [["nFive=1"], ["nFive=0"]]
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputValidatorToml {
    /// Its arguments. Default none.
    #[serde(default)]
    pub flags: Vec<String>,
    /// Each test group's arguments, in place of `flags`. Default none.
    #[serde(default)]
    pub groups: Vec<Vec<String>>,
}

impl InputValidatorToml {
    /// The arguments it is run with, one list a run: `groups`, or else `flags`.
    pub fn flag_sets(&self) -> Vec<&[String]> {
        match self.groups.is_empty() {
            true => vec![self.flags.as_slice()],
            false => self.groups.iter().map(Vec::as_slice).collect(),
        }
    }
}

/// The folder of a problem's validator sources (`oracle = "validator"`), and the module
/// built from them; the same for its input validator.
pub const VALIDATOR_DIR: &str = "validator";
pub const VALIDATOR_MODULE: &str = "validator.wasm";
pub const INPUT_VALIDATOR_DIR: &str = "input_validator";
pub const INPUT_VALIDATOR_MODULE: &str = "input_validator.wasm";

/// The most files `validator/` may hold: a validator is a source or two and a header.
pub const MAX_VALIDATOR_FILES: usize = 20;

/// The oracle `problem.toml` names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OracleName {
    Exact,
    #[default]
    TrimTrailingWhitespace,
    TrimLineEnds,
    Checker,
    Validator,
    Tokens,
    Interactive,
}

impl ProblemToml {
    /// The grader's oracle for this problem.
    pub fn oracle(&self) -> Oracle {
        match self.oracle {
            OracleName::Exact => Oracle::Exact,
            OracleName::TrimTrailingWhitespace => Oracle::TrimTrailingWhitespace,
            OracleName::TrimLineEnds => Oracle::TrimLineEnds,
            OracleName::Checker | OracleName::Validator => Oracle::Checker,
            OracleName::Tokens => Oracle::Tokens(self.tokens),
            OracleName::Interactive => Oracle::Interactive,
        }
    }
}

fn all_languages() -> Vec<Language> {
    Language::ALL.to_vec()
}

impl ProblemToml {
    /// Reads and checks `dir/problem.toml`.
    pub fn read(dir: &Path) -> CourseResult<ProblemToml> {
        let toml_path = dir.join("problem.toml");
        let text = std::fs::read_to_string(&toml_path).map_err(CourseError::io(format!("cannot read {}", toml_path.display())))?;
        let toml: ProblemToml = toml::from_str(&text).map_err(|e| CourseError::Problem(format!("{} is not valid: {e}", toml_path.display())))?;
        let (limits, search) = (&toml.limits, &toml.search);
        // Every number of `problem.toml`, with the range it must be in.
        let bounded: [(&str, u64, u64); 9] = [
            ("limits.memory_mib", limits.memory_mib as u64, (MAX_MEMORY_BYTES >> 20) as u64),
            ("limits.reference_fuel", limits.reference_fuel, MAX_REFERENCE_FUEL),
            ("limits.output_bytes", limits.output_bytes as u64, MAX_OUTPUT_BYTES as u64),
            ("limits.fuel_floor", limits.fuel_floor, MAX_FUEL_FLOOR),
            ("limits.fuel_factor", limits.fuel_factor, MAX_FUEL_FACTOR),
            ("limits.hardest_factor", limits.hardest_factor, MAX_FUEL_FACTOR),
            ("search.stable_after", search.stable_after, MAX_STABLE_AFTER),
            ("search.max_tests", search.max_tests, MAX_TESTS),
            ("search.min_tests", search.min_tests, MAX_TESTS),
        ];
        for (field, value, max) in bounded {
            if value == 0 || value > max {
                return Err(CourseError::Problem(format!("{}: {field} must be between 1 and {max} (it is {value})", toml_path.display())));
            }
        }
        if limits.fuel_limit > MAX_FUEL_FLOOR {
            return Err(CourseError::Problem(format!(
                "{}: limits.fuel_limit must be at most {MAX_FUEL_FLOOR} (it is {}): 0 is none",
                toml_path.display(),
                limits.fuel_limit
            )));
        }
        if let Some(stack) = limits.stack_mib {
            let (memory, most) = (limits.memory_mib, limits.most_memory_mib());
            if stack == 0 || stack as usize > memory {
                return Err(CourseError::Problem(format!(
                    "{}: limits.stack_mib must be between 1 and limits.memory_mib, {memory} (it is {stack}): judges give at most the memory limit",
                    toml_path.display()
                )));
            }
            if most > MAX_MEMORY_BYTES >> 20 {
                return Err(CourseError::Problem(format!(
                    "{}: limits.memory_mib and limits.stack_mib together reserve {most} MiB, more than bugrank's {} MiB: lower one of them",
                    toml_path.display(),
                    MAX_MEMORY_BYTES >> 20
                )));
            }
        }
        let grading = &toml.grading;
        max_points(grading.max_points).map_err(|why| CourseError::Problem(format!("{}: grading.{why}", toml_path.display())))?;
        if !(0.0..=1.0).contains(&grading.failure_deduction) {
            return Err(CourseError::Problem(format!(
                "{}: grading.failure_deduction is the share of the points any failure costs, from 0 to 1 (it is {})",
                toml_path.display(),
                grading.failure_deduction
            )));
        }
        if toml.languages.is_empty() {
            return Err(CourseError::Problem(format!("{}: languages must name at least one of \"c\", \"cpp\", \"rust\"", toml_path.display())));
        }
        if let Some(name) = &toml.name
            && (name.trim().is_empty() || name.chars().count() > MAX_PROBLEM_NAME_CHARS || name.chars().any(char::is_control))
        {
            return Err(CourseError::Problem(format!(
                "{}: name is the problem's name in outputs: one line of at most {} characters",
                toml_path.display(),
                MAX_PROBLEM_NAME_CHARS
            )));
        }
        if !(toml.search.new_set_chance > 0.0 && toml.search.new_set_chance < 1.0) {
            return Err(CourseError::Problem(format!(
                "{}: search.new_set_chance is a chance, more than 0 and less than 1 (it is {})",
                toml_path.display(),
                toml.search.new_set_chance
            )));
        }
        for (name, value) in [("float_absolute", toml.tokens.float_absolute), ("float_relative", toml.tokens.float_relative)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CourseError::Problem(format!("{}: tokens.{name} is a tolerance: a number from 0 up (it is {value})", toml_path.display())));
            }
        }
        if toml.validator.protocol == ValidatorProtocol::Testlib && (toml.oracle != OracleName::Validator || !toml.validator.flags.is_empty()) {
            return Err(CourseError::Problem(format!(
                "{}: validator.protocol = \"testlib\" is an output validator's (oracle = \"validator\"), which takes no flags",
                toml_path.display()
            )));
        }
        Ok(toml)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsToml {
    /// An answer gets this many times the reference's fuel on the same input...
    pub fuel_factor: u64,
    /// ...and never less than this...
    pub fuel_floor: u64,
    /// ...nor less than this many times the reference's fuel on the hardest inputs of
    /// the same size (see `grader::FuelPolicy`).
    pub hardest_factor: u64,
    /// Fuel for the reference (and the generator) on one input.
    pub reference_fuel: u64,
    /// A judge's time limit, in fuel: any run may use this much (0, the default: none).
    /// See `grader::FuelPolicy::limit`; `bugrank import` sets it.
    pub fuel_limit: u64,
    pub memory_mib: usize,
    pub output_bytes: usize,
    /// The stack a program gets, in MiB: its local variables (C, C++, Rust: the stack in
    /// its memory, so at most `memory_mib`) and its calls (every language: how deep it may
    /// recurse). Default: 8 MiB of local variables, as Linux gives a process, and 1 MiB of
    /// calls (about 15,000 calls of a small C function). Judges set it to the memory limit
    /// (`bugrank import` does), so that an accepted depth-first search a million calls deep
    /// runs.
    pub stack_mib: Option<u32>,
}

impl LimitsToml {
    /// The memory a run may have, in MiB: `memory_mib`, and the stack beyond the default's
    /// 8 MiB. A program's stack is reserved at the bottom of its memory, but, as judges
    /// count it, costs only what is used: a problem's larger stack does not take from its
    /// memory limit.
    pub fn most_memory_mib(&self) -> usize {
        let extra = self.stack_mib.map_or(0, |mib| (mib as usize).saturating_sub((toolchain::STACK_BYTES >> 20) as usize));
        self.memory_mib + extra
    }

    /// How the problem's hand-ins are built (C and C++ locals start as `locals` says).
    pub fn build_options(&self, locals: Locals) -> BuildOptions {
        BuildOptions { locals, stack_bytes: self.stack_mib.map_or(toolchain::STACK_BYTES, |mib| mib << 20) }
    }
}

impl Default for LimitsToml {
    fn default() -> Self {
        let fuel = FuelPolicy::default();
        let limits = Limits::default();
        LimitsToml {
            fuel_factor: fuel.factor,
            fuel_floor: fuel.floor,
            hardest_factor: fuel.hardest_factor,
            reference_fuel: fuel.reference,
            fuel_limit: fuel.limit,
            memory_mib: limits.memory_bytes >> 20,
            output_bytes: limits.output_bytes,
            stack_mib: None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchToml {
    /// `"stable"` (the paper's rule, the default: `stable_after` tests in a row add
    /// nothing) or `"estimate"` (the search's own estimate of what it missed is at most
    /// `new_set_chance`, after at least `min_tests` random tests: [`grader::EstimateStop`]).
    pub stop: StopName,
    pub stable_after: u64,
    pub max_tests: u64,
    /// For `stop = "estimate"`: default 1 in 5,000 (0.0002).
    pub new_set_chance: f64,
    /// For `stop = "estimate"`: default 2,000.
    pub min_tests: u64,
}

/// The stopping rule `problem.toml` names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopName {
    #[default]
    Stable,
    Estimate,
}

impl Default for SearchToml {
    fn default() -> Self {
        let search = SearchOptions::default();
        SearchToml { stop: StopName::Stable, stable_after: search.stable_after, max_tests: search.max_tests, new_set_chance: 0.0002, min_tests: 2_000 }
    }
}

impl SearchToml {
    /// The grader's options.
    pub fn options(&self) -> SearchOptions {
        let estimate = (self.stop == StopName::Estimate).then_some(grader::EstimateStop { chance: self.new_set_chance, min_tests: self.min_tests });
        SearchOptions { stable_after: self.stable_after, max_tests: self.max_tests, estimate }
    }
}

/// A loaded problem: its settings and its compiled reference and generator.
pub struct ProblemDir {
    pub dir: PathBuf,
    /// The directory's name: the problem's id in outputs.
    pub name: String,
    pub toml: ProblemToml,
    pub reference: Program,
    pub generator: Program,
    /// `checker.wasm`, loaded when the oracle is a checker; the validator when it is one.
    pub checker: Option<Program>,
    /// The input validator, where the problem has one.
    pub input_validator: Option<Program>,
    /// `reference.py` beside a compiled reference: Python answers' budgets come from its
    /// runs (see [`SandboxExecutor::fuel_scale`]). `check-problem` checks it as a correct
    /// example.
    pub python_reference: PythonReference,
    /// What the problem accepts and how hand-ins are built: the languages, the harnesses of a
    /// function-level assignment, one per language (see [`toolchain::harness`]: every
    /// program built from sources, the reference's and the hand-ins', is built with the one
    /// of its language; none for a problem whose programs read their input themselves), and
    /// how C and C++ locals start.
    pub accepted: Accepted,
    /// The course's own tests, `tests/NAME.in` with `NAME.out` optional ([`read_written_tests`]),
    /// run first in every analysis ([`grader::Problem::fixed`]). Empty without `tests/`.
    pub fixed: Vec<WrittenTest>,
    /// The modules built from the directory's sources, as `(reference.wasm, bytes)` and
    /// so on: the service stores them beside the sources, so that every analysis of an
    /// uploaded problem runs the programs it was checked with, whatever the compiler later.
    pub built: Vec<(String, Vec<u8>)>,
}

impl ProblemDir {
    /// The course's tests students may see ([`PreCheckToml`]), in the tests' order.
    pub fn public_tests(&self) -> Vec<&WrittenTest> {
        self.fixed.iter().filter(|test| self.toml.pre_check.is_public(&test.name)).collect()
    }
}

/// The validator of the problem in `dir` whose sources are in the folder `files.0` and
/// whose module is the file `files.1`: the module where there is one (once built it wins
/// over its sources, as other programs' do), else made from the sources
/// ([`build_validator`]), a module built from them added to `built`.
fn load_validator(sandbox: &Sandbox, builder: &Builder, dir: &Path, files: (&str, &str), built: &mut Vec<(String, Vec<u8>)>) -> CourseResult<Program> {
    let (folder, module) = (dir.join(files.0), dir.join(files.1));
    if module.is_file() {
        let wasm = std::fs::read(&module).map_err(CourseError::io(format!("cannot read {}", module.display())))?;
        return Ok(sandbox.load(&module.display().to_string(), &wasm, Role::Validator)?);
    }
    let (program, wasm) = build_validator(sandbox, builder, &folder)?;
    if let Some(wasm) = wasm {
        built.push((files.1.to_owned(), wasm));
    }
    Ok(program)
}

/// The language a validator of the files `names` is run in: C++ when any is a C++
/// source, else C when any is a C one, else Python when any is a Python one; `None` when
/// bugrank cannot run it.
fn validator_language<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Option<Language> {
    [Language::Cpp, Language::C, Language::Python].into_iter().find(|&language| names.clone().any(|name| Language::of_file(name) == Some(language)))
}

/// The validator whose sources are the files of `folder` ([`validator_language`]): C or
/// C++ built into a module (given too, for the problem to keep), or one Python file
/// compiled by bugrank's Python (its sources are all it keeps); or why it cannot run.
pub(crate) fn build_validator(sandbox: &Sandbox, builder: &Builder, folder: &Path) -> CourseResult<(Program, Option<Vec<u8>>)> {
    let name = folder.display().to_string();
    let entries = std::fs::read_dir(folder).map_err(CourseError::io(format!("the validator's sources must be in {name}")))?;
    let mut sources = Vec::new();
    for entry in entries {
        let entry = entry.map_err(CourseError::io(format!("cannot read {name}")))?;
        if !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        if sources.len() == MAX_VALIDATOR_FILES {
            return Err(CourseError::Problem(format!("{name} holds more than {MAX_VALIDATOR_FILES} files: a validator is its sources and headers")));
        }
        let bytes = std::fs::read(entry.path()).map_err(CourseError::io(format!("cannot read {}", entry.path().display())))?;
        sources.push((entry.file_name().to_string_lossy().into_owned(), bytes));
    }
    sources.sort();
    let language = validator_language(sources.iter().map(|(file, _)| file.as_str()))
        .ok_or_else(|| CourseError::Problem(format!("{name} holds no C, C++ or Python source: bugrank runs validators written in C, C++ or Python")))?;
    if language == Language::Python {
        let python: Vec<&(String, Vec<u8>)> = sources.iter().filter(|(file, _)| Language::of_file(file) == Some(Language::Python)).collect();
        let [(file, _)] = python[..] else {
            let files: Vec<&str> = python.iter().map(|(file, _)| file.as_str()).collect();
            return Err(CourseError::Problem(format!(
                "{name} holds {} Python files ({}): a validator in Python is one file (bugrank's Python imports only the standard library)",
                files.len(),
                files.join(", ")
            )));
        };
        return Ok((crate::load::python_program(sandbox, &folder.join(file), None)?, None));
    }
    let wasm =
        match builder.build(&Source { language, files: sources }).map_err(|e| CourseError::Problem(format!("cannot build the validator in {name}: {e}")))? {
            Built::Module { wasm, .. } => wasm,
            Built::Failed { message, .. } => return Err(CourseError::Problem(format!("the validator in {name} does not compile:\n{message}"))),
        };
    Ok((sandbox.load(&name, &wasm, Role::Validator)?, Some(wasm)))
}

impl ProblemDir {
    /// Reads `dir` and loads its programs, building those given as sources with `builder`
    /// (cached as students' sources are). Pitfall: a module wins over sources beside it, as
    /// in a batch: after editing `reference.c`, delete a stale `reference.wasm`.
    pub fn load(sandbox: &Sandbox, builder: &Builder, dir: &Path) -> CourseResult<ProblemDir> {
        let mut toml = ProblemToml::read(dir)?;
        let accepted = accepted(dir, &toml)?;
        toml.languages = accepted.languages.clone();
        let harnesses = &accepted.harnesses;
        let mut built = Vec::new();
        let mut load = |stem: &str, role| -> CourseResult<Program> {
            let (path, language) = program_file(dir, stem)?;
            let bytes = std::fs::read(&path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
            // A function-level problem's reference is built (or run) with the harness of
            // its language; its generator and checker are programs of their own.
            let harness = match language {
                Some(language) if stem == "reference" && !harnesses.is_empty() => Some(
                    harnesses
                        .iter()
                        .find(|h| h.language == language)
                        .ok_or_else(|| CourseError::Problem(format!("{} has no harness in {language} to build it with", path.display())))?,
                ),
                _ => None,
            };
            let bytes = match language {
                None => bytes,
                Some(Language::Python) => {
                    let rules = &accepted.rules;
                    let (forbidden, required) = (rules.forbidden(Language::Python), rules.required(Language::Python));
                    if stem == "reference" && !(forbidden.is_empty() && required.is_empty()) {
                        let python = crate::load::python(sandbox).map_err(CourseError::Problem)?;
                        let broken = crate::rules::python_rules_broken(sandbox, &python, forbidden, required, &bytes).map_err(CourseError::Problem)?;
                        crate::rules::reference_obeys(&path, Language::Python, broken)?;
                    }
                    return crate::load::python_program(sandbox, &path, harness);
                }
                Some(language) => {
                    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                    let mut source = Source { language, files: vec![(name, bytes)] };
                    // The generator and the checker are built with their guest library: the
                    // author's copy, when there is one, pins the problem to it; else bugrank's own.
                    let library = match stem {
                        "generator" => Some(toolchain::guest::library(language)),
                        "checker" => toolchain::guest::checker_library(language),
                        _ => None,
                    };
                    if let Some((library, _)) = library {
                        match std::fs::read(dir.join(library)) {
                            Ok(copy) => source.files.push((library.to_owned(), copy)),
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                            Err(e) => return Err(CourseError::Io { what: format!("cannot read {}", dir.join(library).display()), error: e }),
                        }
                    }
                    let result = if role == Role::Generator {
                        builder.build_generator(&source)
                    } else if stem == "checker" {
                        builder.build_checker(&source)
                    } else {
                        builder.build_for(&source, harness, &toml.limits.build_options(toml.uninitialised_locals), None)
                    };
                    let wasm = match result.map_err(|e| CourseError::Problem(format!("cannot build {}: {e}", path.display())))? {
                        Built::Module { wasm, .. } => wasm,
                        Built::Failed { message, .. } => return Err(CourseError::Problem(format!("{} does not compile:\n{message}", path.display()))),
                    };
                    if stem == "reference" {
                        let broken = crate::load::compiled_rules_broken(builder, &accepted, &source).map_err(CourseError::Problem)?;
                        crate::rules::reference_obeys(&path, language, broken)?;
                    }
                    wasm
                }
            };
            let program = sandbox.load(&path.display().to_string(), &bytes, role)?;
            if language.is_some() {
                built.push((format!("{stem}.wasm"), bytes));
            }
            Ok(program)
        };
        let folder =
            || dir.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_else(|| dir.display().to_string());
        let name = toml.name.clone().unwrap_or_else(folder);
        let reference = load("reference", Role::Answer)?;
        let generator = load("generator", Role::Generator)?;
        let checker = match toml.oracle {
            OracleName::Checker => Some(load("checker", Role::Answer)?),
            OracleName::Validator | OracleName::Interactive => Some(load_validator(sandbox, builder, dir, (VALIDATOR_DIR, VALIDATOR_MODULE), &mut built)?),
            _ => None,
        };
        let input_validator = match dir.join(INPUT_VALIDATOR_MODULE).is_file() || dir.join(INPUT_VALIDATOR_DIR).is_dir() {
            true => Some(load_validator(sandbox, builder, dir, (INPUT_VALIDATOR_DIR, INPUT_VALIDATOR_MODULE), &mut built)?),
            false => None,
        };
        let twin = dir.join("reference.py");
        let python_harness = harnesses.iter().find(|h| h.language == Language::Python).cloned();
        let python_reference = PythonReference::at((reference.interpreter().is_none() && twin.is_file()).then_some(twin), python_harness);
        let tests = dir.join("tests");
        let fixed = if tests.is_dir() { read_written_tests(&tests)? } else { Vec::new() };
        Ok(ProblemDir { dir: dir.to_owned(), name, reference, generator, checker, input_validator, python_reference, accepted, fixed, toml, built })
    }

    pub fn problem(&self) -> grader::Problem {
        let limits = &self.toml.limits;
        grader::Problem {
            name: self.name.clone(),
            oracle: self.toml.oracle(),
            fuel: FuelPolicy {
                factor: limits.fuel_factor,
                floor: limits.fuel_floor,
                hardest_factor: limits.hardest_factor,
                reference: limits.reference_fuel,
                limit: limits.fuel_limit,
            },
            search: self.toml.search.options(),
            grading: self.toml.grading,
            fixed: self.fixed.clone(),
        }
    }

    /// An executor for the grader: program 0 is the reference, then `answers` in order.
    pub fn executor<'a>(&'a self, sandbox: &'a Sandbox, answers: impl IntoIterator<Item = &'a Program>) -> SandboxExecutor<'a> {
        SandboxExecutor {
            sandbox,
            generator: &self.generator,
            programs: std::iter::once(&self.reference).chain(answers).collect(),
            checker: self.checker.as_ref(),
            protocol: match self.toml.oracle {
                OracleName::Validator => match self.toml.validator.protocol {
                    ValidatorProtocol::Judges => Protocol::Judges(&self.toml.validator.flags),
                    ValidatorProtocol::Testlib => Protocol::Testlib,
                },
                OracleName::Interactive => Protocol::Interactive { flags: &self.toml.validator.flags, tests: &self.fixed },
                _ => Protocol::Bugrank,
            },
            input_validator: self.input_validator.as_ref().map(|program| (program, self.toml.input_validator.flag_sets())),
            python_reference: &self.python_reference,
            limits: self.run_limits(),
            exit_status: self.toml.exit_status,
            cancel: None,
            runs_made: None,
            input_free: Default::default(),
            elsewhere: None,
        }
    }

    /// Memory and output limits of every run; fuel is set per run.
    pub fn run_limits(&self) -> Limits {
        Limits {
            fuel: self.toml.limits.reference_fuel,
            memory_bytes: self.toml.limits.most_memory_mib() << 20,
            output_bytes: self.toml.limits.output_bytes,
            stack_bytes: self.toml.limits.stack_mib.map_or(sandbox::MAX_WASM_STACK_BYTES, |mib| (mib as usize) << 20),
        }
    }
}

/// What the problem in `dir` (of `toml`) accepts: with harnesses, the languages of
/// `toml` that a harness is given in.
pub fn accepted(dir: &Path, toml: &ProblemToml) -> CourseResult<Accepted> {
    let harnesses = read_harnesses(dir)?;
    let mut languages = toml.languages.clone();
    if !harnesses.is_empty() {
        languages.retain(|language| harnesses.iter().any(|h| h.language == *language));
        if languages.is_empty() {
            let given: Vec<&str> = harnesses.iter().map(|h| h.language.name()).collect();
            return Err(CourseError::Problem(format!(
                "{}: the harnesses are in {}, none of the languages problem.toml accepts",
                dir.display(),
                given.join(", ")
            )));
        }
    }
    let rules = toml.rules.clone().checked().map_err(|why| CourseError::Problem(format!("{}: problem.toml's {why}", dir.display())))?;
    Ok(Accepted { languages, harnesses, build: toml.limits.build_options(toml.uninitialised_locals), rules })
}

/// The harnesses in `dir`: for each language, its files when its `main` file is there
/// (`harness.c` needs `interface.h` beside it).
fn read_harnesses(dir: &Path) -> CourseResult<Vec<Harness>> {
    let mut harnesses = Vec::new();
    for language in Language::ALL {
        let names = Harness::file_names(language);
        if names.is_empty() || !dir.join(names[0]).is_file() {
            continue;
        }
        let mut files = Vec::new();
        for name in names {
            let path = dir.join(name);
            match std::fs::read(&path) {
                Ok(bytes) => files.push((name.to_string(), bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(CourseError::Problem(format!("{} has {} but no {name} beside it", dir.display(), names[0])));
                }
                Err(e) => return Err(CourseError::Io { what: format!("cannot read {}", path.display()), error: e }),
            }
        }
        harnesses.push(Harness { language, files });
    }
    Ok(harnesses)
}

/// The hand-written tests in `dir`: each `NAME.in` an input, with `NAME.out` its expected
/// output when there is one, in natural order of their names (`2` before `10`). Other files
/// are left alone (a README), but a `NAME.out` without its input, a `NAME.ans` (a judge's
/// name for an expected output), a name that is not plain, or more than
/// [`MAX_COURSE_TESTS`] tests or [`MAX_COURSE_TEST_BYTES`] are refused, the error naming
/// the file. The course's `tests/` folder of a problem, and each student's folder of
/// `bugrank grade-tests`, are read this way.
pub fn read_written_tests(dir: &Path) -> CourseResult<Vec<WrittenTest>> {
    let bad = |why: String| CourseError::Problem(format!("{}: {why}", dir.display()));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(CourseError::io(format!("cannot read {}", dir.display())))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by_key(|name| natural_key(name));
    let stems = |extension: &str| -> Vec<String> { names.iter().filter_map(|name| name.strip_suffix(extension).map(str::to_owned)).collect() };
    let (inputs, outputs) = (stems(".in"), stems(".out"));
    if let Some(answer) = names.iter().find(|name| name.ends_with(".ans")) {
        return Err(bad(format!("{answer}: an expected output is NAME.out here (rename it)")));
    }
    if let Some(stem) = outputs.iter().find(|stem| !inputs.contains(stem)) {
        return Err(bad(format!("{stem}.out has no {stem}.in: a test is its input, with its expected output optional")));
    }
    if inputs.len() > MAX_COURSE_TESTS {
        return Err(bad(format!("{} tests, more than {MAX_COURSE_TESTS}", inputs.len())));
    }
    let mut bytes = 0u64;
    let mut read = |file: String| -> CourseResult<Vec<u8>> {
        let path = dir.join(&file);
        let content = std::fs::read(&path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
        bytes += content.len() as u64;
        if bytes > MAX_COURSE_TEST_BYTES {
            return Err(bad(format!("its tests hold more than {} MiB (at {file})", MAX_COURSE_TEST_BYTES >> 20)));
        }
        Ok(content)
    };
    let mut tests = Vec::with_capacity(inputs.len());
    for name in inputs {
        let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) && !name.starts_with('.');
        if !plain || name.is_empty() || name.chars().count() > MAX_TEST_NAME_CHARS {
            return Err(bad(format!(
                "{name}.in: a test's name is letters, digits, `.`, `_` and `-`, at most {MAX_TEST_NAME_CHARS} of them, not starting with `.`"
            )));
        }
        let input = read(format!("{name}.in"))?;
        let expected = if outputs.contains(&name) { Some(read(format!("{name}.out"))?) } else { None };
        tests.push(WrittenTest { name, input, expected });
    }
    Ok(tests)
}

/// A file name's key in natural order: its runs of digits compared as numbers (`2` before
/// `10`), the rest as text.
fn natural_key(name: &str) -> Vec<(String, Option<u128>)> {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let text_end = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let (text, tail) = rest.split_at(text_end);
        let digits_end = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        let (digits, tail) = tail.split_at(digits_end);
        key.push((text.to_owned(), digits.parse().ok()));
        rest = tail;
    }
    key
}

/// The file of program `stem` in `dir`: its module (language `None`), else its one source
/// file and the source's language.
fn program_file(dir: &Path, stem: &str) -> CourseResult<(PathBuf, Option<Language>)> {
    let module = dir.join(format!("{stem}.wasm"));
    if module.is_file() {
        return Ok((module, None));
    }
    let mut sources: Vec<(PathBuf, Language)> =
        Language::ALL.into_iter().map(|language| (dir.join(format!("{stem}.{}", language.extension())), language)).filter(|(path, _)| path.is_file()).collect();
    // A Python program beside another is the Python one's twin (a `reference.py` sets
    // Python answers' budgets: see `python_reference`), not a second candidate.
    if sources.len() > 1 {
        sources.retain(|(_, language)| *language != Language::Python);
    }
    match &sources[..] {
        [(path, language)] => Ok((path.clone(), Some(*language))),
        [] => Err(CourseError::Problem(format!("{} has no {stem}.wasm, nor a {stem}.c, {stem}.cpp, {stem}.rs or {stem}.py to build it from", dir.display()))),
        _ => {
            let names: Vec<String> = sources.iter().map(|(p, _)| p.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
            Err(CourseError::Problem(format!("{} has {}: keep one source of {stem}", dir.display(), names.join(" and "))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a `problem.toml` of `text`; the error's words, or `None` when it is read.
    fn refusal(text: &str) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("problem.toml"), text).unwrap();
        ProblemToml::read(dir.path()).err().map(|e| format!("{e:#}"))
    }

    fn check(settings: &str, expected: Option<&str>) {
        let refused = refusal(&format!("title = \"t\"\n{settings}\n"));
        match (expected, &refused) {
            (None, None) => {}
            (Some(words), Some(said)) if said.contains(words) => {}
            _ => panic!("{settings}: expected {expected:?}, got {refused:?}"),
        }
    }

    #[test]
    fn public_tests_are_the_names_and_prefixes_pre_check_lists() {
        let check = |toml: &str, name: &str, public: bool| {
            let settings: ProblemToml = toml::from_str(&format!("title = \"t\"\n{toml}")).unwrap();
            assert_eq!(settings.pre_check.is_public(name), public, "{toml}: {name}");
        };
        check("", "sample-1", true);
        check("", "example", true);
        check("", "secret-group1-7", false);
        check("", "edge", false);
        check("[pre_check]\npublic = []", "sample-1", false);
        check("[pre_check]\npublic = [\"edge\"]", "edge", true);
        check("[pre_check]\npublic = [\"edge\"]", "edge-2", false);
        check("[pre_check]\npublic = [\"edge*\"]", "edge-2", true);
    }

    #[test]
    fn every_number_of_problem_toml_is_bounded() {
        check("", None);
        check("[limits]\nfuel_floor = 1_000_000_000_000_000", Some("limits.fuel_floor must be between 1 and 10000000000 (it is 1000000000000000)"));
        check("[limits]\nfuel_floor = 10_000_000_000", None);
        check("[limits]\nfuel_factor = 0", Some("limits.fuel_factor must be between 1 and 1000"));
        check("[limits]\nhardest_factor = 1001", Some("limits.hardest_factor must be between 1 and 1000"));
        check("[limits]\nreference_fuel = 10_000_000_001", Some("limits.reference_fuel must be between 1 and"));
        check("[limits]\nmemory_mib = 0", Some("limits.memory_mib must be between 1 and 1024"));
        check("[limits]\noutput_bytes = 16_777_217", Some("limits.output_bytes must be between 1 and 16777216"));
        check("[limits]\nmemory_mib = 256\nstack_mib = 256", None);
        check("[limits]\nfuel_limit = 0", None);
        check("[limits]\nfuel_limit = 2_000_000_000", None);
        check("[limits]\nfuel_limit = 10_000_000_001", Some("limits.fuel_limit must be at most 10000000000 (it is 10000000001): 0 is none"));
        check("[limits]\nstack_mib = 65", Some("limits.stack_mib must be between 1 and limits.memory_mib, 64 (it is 65)"));
        check("[limits]\nstack_mib = 0", Some("limits.stack_mib must be between 1 and limits.memory_mib"));
        check("[limits]\nmemory_mib = 516\nstack_mib = 516", None);
        check(
            "[limits]\nmemory_mib = 600\nstack_mib = 600",
            Some("limits.memory_mib and limits.stack_mib together reserve 1192 MiB, more than bugrank's 1024 MiB"),
        );
        check("[search]\nstable_after = 1_000_001", Some("search.stable_after must be between 1 and 1000000"));
        check("[search]\nmax_tests = 0", Some("search.max_tests must be between 1 and 10000000"));
        check("[search]\nstop = \"estimate\"\nnew_set_chance = 0.001\nmin_tests = 500", None);
        check("[search]\nnew_set_chance = 1.5", Some("search.new_set_chance is a chance, more than 0 and less than 1 (it is 1.5)"));
        check("[search]\nstop = \"sometimes\"", Some("unknown variant `sometimes`"));
        check("[grading]\nmax_points = 20", None);
        check("[grading]\nmax_points = 0", Some("grading.max_points must be more than 0 and at most 10000 (it is 0)"));
        check("[grading]\nmax_points = 1e9", Some("grading.max_points must be more than 0 and at most 10000"));
        check("[grading]\nfailure_deduction = 1.5", Some("grading.failure_deduction is the share of the points any failure costs, from 0 to 1 (it is 1.5)"));
        check("[grading]\nmax_point = 20", Some("unknown field `max_point`"));
        check("oracle = \"tokens\"\n[tokens]\ncase_sensitive = false\nfloat_absolute = 1e-6\nfloat_relative = 1e-6", None);
        check("oracle = \"tokens\"\n[tokens]\nfloat_absolute = -1", Some("tokens.float_absolute is a tolerance: a number from 0 up (it is -1)"));
        check("oracle = \"token\"", Some("unknown variant `token`"));
        check("oracle = \"validator\"\n[validator]\nprotocol = \"testlib\"", None);
        check("oracle = \"interactive\"\n[validator]\nprotocol = \"testlib\"", Some("validator.protocol = \"testlib\" is an output validator's"));
        check("oracle = \"validator\"\n[validator]\nprotocol = \"testlib\"\nflags = [\"a\"]", Some("which takes no flags"));
        check("oracle = \"validator\"\n[validator]\nprotocol = \"polygon\"", Some("unknown variant `polygon`"));
        check("oracle = \"trim-line-ends\"", None);
        check("name = \"sumlist\"", None);
        check("name = \"\"", Some("name is the problem's name in outputs: one line"));
    }

    /// The tests read from a folder of `files`, as `(name, input, expected)`, or the error.
    fn written(files: &[(&str, &str)]) -> Result<Vec<(String, String, Option<String>)>, String> {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).unwrap();
        read_written_tests(dir.path())
            .map(|tests| tests.into_iter().map(|t| (t.name, text(&t.input), t.expected.as_deref().map(text))).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn hand_written_tests_are_read_in_natural_order_with_their_expected_outputs_where_given() {
        let files = [("10.in", "ten"), ("2.in", "two"), ("2.out", "2"), ("sample-1.in", "s"), ("README", "notes")];
        let read = written(&files).unwrap();
        let names: Vec<&str> = read.iter().map(|(name, _, _)| name.as_str()).collect();
        assert_eq!(names, ["2", "10", "sample-1"], "2 before 10; the README is left alone");
        assert_eq!(read[0], ("2".to_owned(), "two".to_owned(), Some("2".to_owned())));
        assert_eq!(read[1].2, None);
    }

    #[test]
    fn a_hand_written_test_that_cannot_be_one_is_refused_naming_its_file() {
        let refused = |files: &[(&str, &str)], words: &str| {
            let said = written(files).unwrap_err();
            assert!(said.contains(words), "{said}");
        };
        refused(&[("a.out", "1")], ": a.out has no a.in: a test is its input");
        refused(&[("a.in", "1"), ("a.ans", "1")], ": a.ans: an expected output is NAME.out here (rename it)");
        refused(&[("two words.in", "1")], ": two words.in: a test's name is letters, digits");
    }
}
