//! A hand-in's program: a module compiled, or a student's sources read, checked, built
//! to a module in the toolchain's sandbox, and compiled. What the compiler says is the
//! student's result ([`Loaded`]); only what this machine cannot do (no toolchain, no
//! sandbox) rejects the files.

use grader::Build;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use sandbox::{Interpreter, InterpreterSpec, Program, Role, Sandbox};
use toolchain::{BuildOptions, Builder, Built, Harness, Language, Source, ToolchainError};

use crate::error::{CourseError, CourseResult};
use crate::hand_in::{Handed, Loaded, ModuleSource};

/// What a problem accepts as hand-ins and how they are built: sources in `languages` (or
/// modules), built with the harness of their language when it has `harnesses`, and with
/// the problem's `build` options (how C and C++ locals start, the stack).
#[derive(Clone, Debug)]
pub struct Accepted {
    pub languages: Vec<Language>,
    pub harnesses: Vec<Harness>,
    pub build: BuildOptions,
    /// What a hand-in must not use, by language ([`crate::rules::RulesToml`],
    /// checked): checked once it compiles, each use a [`grader::RuleBroken`] of its build.
    pub rules: crate::rules::RulesToml,
}

/// Reads one student's source files (plain names: headers included) into a [`Source`] in
/// one language. Headers go with C and C++ sources; other files are left out.
pub fn read(files: &[(String, ModuleSource)]) -> Result<Source, String> {
    let language = language(files)?;
    let mut source = Source { language, files: Vec::new() };
    for (name, file) in files.iter().filter(|(name, _)| Language::of_file(name) == Some(language) || language.is_header(name)) {
        source.files.push((name.clone(), file.read()?.into_owned()));
    }
    source.check_names().map_err(|bad| bad.to_string())?;
    Ok(source)
}

/// The one language of a student's source files, by their names.
pub fn language(files: &[(String, ModuleSource)]) -> Result<Language, String> {
    let mut languages: Vec<Language> = files.iter().filter_map(|(name, _)| Language::of_file(name)).collect();
    languages.sort();
    languages.dedup();
    let language = match languages[..] {
        [one] => one,
        [] => {
            let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
            return Err(format!("no C, C++, Rust or Python source file among {}", names.join(", ")));
        }
        _ => {
            let names: Vec<&str> = languages.iter().map(|l| l.name()).collect();
            return Err(format!("sources in {} languages ({}): a submission is written in one", names.len(), names.join(", ")));
        }
    };
    Ok(language)
}

/// Builds `source` (handed in as `file`) and loads its module. A compile error, a compile
/// limit, or a module the sandbox refuses is the student's result: [`Loaded::NotBuilt`].
/// `Err` only when this machine cannot build the language (no toolchain, no sandbox).
///
/// Once `stop` is set a compile running is killed and the build ends with an error (the
/// host's, not the student's).
pub fn build(
    sandbox: &Sandbox,
    builder: &Builder,
    accepted: &Accepted,
    file: &str,
    source: &Source,
    stop: Option<&AtomicBool>,
) -> Result<Loaded<Program>, String> {
    if source.language == Language::Python {
        return interpret(sandbox, accepted, file, source);
    }
    let toolchain = builder.ready(source.language).map_err(|e| format!("{file}: {e}"))?;
    let record = |warnings: String, error: Option<String>| Build {
        language: source.language.name().to_owned(),
        toolchain: toolchain.version.clone(),
        sources: source.hash(),
        warnings,
        error,
        rules_broken: Vec::new(),
    };
    Ok(match built(builder, accepted, source, stop).map_err(|e| format!("{file}: {e}"))? {
        Built::Module { wasm, warnings } => match sandbox.load(file, &wasm, Role::Answer) {
            Ok(program) => match compiled_rules_broken(builder, accepted, source).map_err(|e| format!("{file}: {e}"))? {
                Ok(rules_broken) => Loaded::Program(program, Some(Build { rules_broken, ..record(warnings, None) })),
                Err(unchecked) => Loaded::NotBuilt(record(warnings, Some(unchecked))),
            },
            Err(refused) => Loaded::NotBuilt(record(warnings, Some(format!("the compiled program cannot be run: {refused}")))),
        },
        Built::Failed { message, .. } => Loaded::NotBuilt(record(String::new(), Some(message))),
    })
}

/// Where the compiled `source` (C, C++, Rust) breaks the rules of the problem that
/// `accepted` it: [`crate::rules::compiled_rules_broken`] with its rules, harness and build
/// options.
pub fn compiled_rules_broken(builder: &Builder, accepted: &Accepted, source: &Source) -> Result<Result<Vec<grader::RuleBroken>, String>, String> {
    let (rules, language) = (&accepted.rules, source.language);
    let harness = accepted.harnesses.iter().find(|h| h.language == language);
    crate::rules::compiled_rules_broken(builder, source, harness, &accepted.build, rules.forbidden(language), rules.required(language))
}

/// `source` built by `builder` as the problem `accepted` says: with the harness of its
/// language when the problem has harnesses (a function-level assignment: a hand-in in a
/// language without one is told so, as a build failure), with the problem's build options. `stop` stops a compile midway.
pub fn built(builder: &Builder, accepted: &Accepted, source: &Source, stop: Option<&AtomicBool>) -> Result<Built, ToolchainError> {
    let harnesses = &accepted.harnesses;
    let harness = harnesses.iter().find(|h| h.language == source.language);
    if harness.is_none() && !harnesses.is_empty() {
        return Ok(Built::Failed { failure: toolchain::Failure::CompileError, message: no_harness(harnesses, source.language) });
    }
    builder.build_for(source, harness, &accepted.build, stop)
}

/// A Python harness's file, as the sandbox takes it: its name and source.
fn harness_source(harness: &Harness) -> (&str, &[u8]) {
    let (name, source) = &harness.files[0];
    (name, source)
}

/// What a hand-in in `language` is told when the assignment has no harness in it.
fn no_harness(harnesses: &[Harness], language: Language) -> String {
    let given: Vec<&str> = harnesses.iter().map(|h| h.language.name()).collect();
    format!("this assignment's functions are called by a harness in {}, not {language}: hand in your functions in one of those", given.join(" or "))
}

/// bugrank's CPython ([`toolchain::python`]), made ready by `sandbox` (snapshotted once,
/// then shared by every Python program it loads). `Err` only if the interpreter itself is
/// broken: a fault of this build of bugrank, never of a hand-in.
pub fn python(sandbox: &Sandbox) -> Result<Arc<Interpreter>, String> {
    use toolchain::python::{LIBRARY, LIBRARY_DIR, LIBRARY_FILE, MODULE, NAME};
    let spec = InterpreterSpec { name: NAME, module: MODULE, library: &[(LIBRARY_FILE, LIBRARY)], library_dir: LIBRARY_DIR };
    sandbox.interpreter(&spec).map_err(|e| format!("bugrank's Python cannot start: {e}"))
}

/// A Python hand-in (one `.py` file) compiled to bytecode by bugrank's CPython in the
/// sandbox: a syntax error, or an import that cannot work there, is the student's result
/// in Python's words.
fn interpret(sandbox: &Sandbox, accepted: &Accepted, file: &str, source: &Source) -> Result<Loaded<Program>, String> {
    let harnesses = &accepted.harnesses;
    let record = |error: Option<String>| Build {
        language: source.language.name().to_owned(),
        toolchain: toolchain::python::VERSION.to_owned(),
        sources: source.hash(),
        warnings: String::new(),
        error,
        rules_broken: Vec::new(),
    };
    let harness = match harnesses.iter().find(|h| h.language == Language::Python) {
        Some(harness) => Some(harness_source(harness)),
        None if harnesses.is_empty() => None,
        None => return Ok(Loaded::NotBuilt(record(Some(no_harness(harnesses, source.language))))),
    };
    let files: Vec<&(String, Vec<u8>)> = source.files.iter().filter(|(name, _)| Language::of_file(name) == Some(Language::Python)).collect();
    let [(name, text)] = files[..] else {
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        return Ok(Loaded::NotBuilt(record(Some(format!("a Python hand-in is one .py file, and this one has {}: {}", names.len(), names.join(", "))))));
    };
    let python = python(sandbox)?;
    Ok(match sandbox.load_harnessed(&python, name, text, harness).map_err(|e| format!("{file}: {e}"))? {
        Ok(program) => match crate::rules::python_rules_broken(
            sandbox,
            &python,
            accepted.rules.forbidden(Language::Python),
            accepted.rules.required(Language::Python),
            text,
        )
        .map_err(|e| format!("{file}: {e}"))?
        {
            Ok(rules_broken) => Loaded::Program(program, Some(Build { rules_broken, ..record(None) })),
            Err(unchecked) => Loaded::NotBuilt(record(Some(unchecked))),
        },
        Err(message) => Loaded::NotBuilt(record(Some(message))),
    })
}

/// One hand-in's program: a module compiled, or sources built then compiled (a module that
/// is a bundle of sources, as the service stores them, is built too), with the problem's
/// harnesses if any, as the problem `accepted` them. `stop` stops a compile of sources midway.
pub fn load(
    sandbox: &Sandbox,
    builder: &Builder,
    accepted: &Accepted,
    file: &str,
    handed: &Handed,
    stop: Option<&AtomicBool>,
) -> Result<Loaded<Program>, String> {
    match handed {
        Handed::Module(source) => {
            let bytes = source.read()?;
            match toolchain::Source::from_bytes(&bytes) {
                Some(sources) => build(sandbox, builder, accepted, file, &sources, stop),
                None => Ok(Loaded::Program(sandbox.load(file, &bytes, Role::Answer).map_err(|e| e.to_string())?, None)),
            }
        }
        Handed::Sources(files) => build(sandbox, builder, accepted, file, &read(files)?, stop),
    }
}

impl Handed {
    /// The bytes the service keeps for this hand-in: the module, or the sources as one
    /// bundle ([`toolchain::Source::to_bytes`]).
    pub fn stored(&self) -> Result<Vec<u8>, String> {
        match self {
            Handed::Module(source) => Ok(source.read()?.into_owned()),
            Handed::Sources(files) => Ok(read(files)?.to_bytes()),
        }
    }
}

/// The Python program at `path` (a problem's own), compiled by bugrank's CPython, run by
/// `harness` when it is a function-level problem's reference.
pub(crate) fn python_program(sandbox: &Sandbox, path: &Path, harness: Option<&Harness>) -> CourseResult<Program> {
    let bytes = std::fs::read(path).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
    let python = python(sandbox).map_err(CourseError::Problem)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    match sandbox.load_harnessed(&python, &name, &bytes, harness.map(harness_source))? {
        Ok(program) => Ok(program),
        Err(message) => Err(CourseError::Problem(format!("{} does not compile:\n{message}", path.display()))),
    }
}
