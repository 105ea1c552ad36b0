//! A problem directory: `problem.toml`, `statement.md`, `reference.wasm`, `generator.wasm`,
//! and `checker.wasm` when several outputs can be right.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use grader::{FuelPolicy, Oracle, SearchOptions};
use sandbox::{Limits, MAX_MEMORY_BYTES, Program, Role, Sandbox};
use serde::Deserialize;

use crate::executor::SandboxExecutor;

/// The files of a problem directory (a bundle's other files are ignored). `statement.md`
/// is optional, and `checker.wasm` needed only when the oracle is a checker.
pub const PROBLEM_FILES: [&str; 5] = ["problem.toml", "statement.md", "reference.wasm", "generator.wasm", "checker.wasm"];

/// `problem.toml`. Every field but the title has a default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemToml {
    pub title: String,
    #[serde(default)]
    pub oracle: Oracle,
    #[serde(default)]
    pub limits: LimitsToml,
    #[serde(default)]
    pub search: SearchToml,
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
    pub memory_mib: usize,
    pub output_bytes: usize,
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
            memory_mib: limits.memory_bytes >> 20,
            output_bytes: limits.output_bytes,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchToml {
    pub stable_after: u64,
    pub max_tests: u64,
}

impl Default for SearchToml {
    fn default() -> Self {
        let search = SearchOptions::default();
        SearchToml { stable_after: search.stable_after, max_tests: search.max_tests }
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
    /// `checker.wasm`, loaded when the oracle is a checker.
    pub checker: Option<Program>,
}

impl ProblemDir {
    pub fn load(sandbox: &Sandbox, dir: &Path) -> anyhow::Result<ProblemDir> {
        let toml_path = dir.join("problem.toml");
        let text = std::fs::read_to_string(&toml_path)
            .with_context(|| format!("cannot read {}", toml_path.display()))?;
        let toml: ProblemToml =
            toml::from_str(&text).with_context(|| format!("{} is not valid", toml_path.display()))?;
        let max_mib = MAX_MEMORY_BYTES >> 20;
        if toml.limits.memory_mib == 0 || toml.limits.memory_mib > max_mib {
            bail!("{}: limits.memory_mib must be between 1 and {max_mib}", toml_path.display());
        }
        let load = |file: &str, role| -> anyhow::Result<Program> {
            let path = dir.join(file);
            let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            Ok(sandbox.load(&path.display().to_string(), &bytes, role)?)
        };
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        Ok(ProblemDir {
            dir: dir.to_owned(),
            name,
            reference: load("reference.wasm", Role::Answer)?,
            generator: load("generator.wasm", Role::Generator)?,
            checker: match toml.oracle {
                Oracle::Checker => Some(load("checker.wasm", Role::Answer)?),
                _ => None,
            },
            toml,
        })
    }

    pub fn problem(&self) -> grader::Problem {
        let limits = &self.toml.limits;
        grader::Problem {
            name: self.name.clone(),
            oracle: self.toml.oracle,
            fuel: FuelPolicy {
                factor: limits.fuel_factor,
                floor: limits.fuel_floor,
                hardest_factor: limits.hardest_factor,
                reference: limits.reference_fuel,
            },
            search: SearchOptions { stable_after: self.toml.search.stable_after, max_tests: self.toml.search.max_tests },
        }
    }

    /// An executor for the grader: program 0 is the reference, then `answers` in order.
    pub fn executor<'a>(&'a self, sandbox: &'a Sandbox, answers: impl IntoIterator<Item = &'a Program>) -> SandboxExecutor<'a> {
        SandboxExecutor {
            sandbox,
            generator: &self.generator,
            programs: std::iter::once(&self.reference).chain(answers).collect(),
            checker: self.checker.as_ref(),
            limits: self.run_limits(),
            cancel: None,
        }
    }

    /// Memory and output limits of every run; fuel is set per run.
    pub fn run_limits(&self) -> Limits {
        Limits {
            fuel: self.toml.limits.reference_fuel,
            memory_bytes: self.toml.limits.memory_mib << 20,
            output_bytes: self.toml.limits.output_bytes,
        }
    }
}
