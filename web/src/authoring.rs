//! Writing a problem: `bugrank new-problem` starts one from a working example, and
//! `bugrank check-problem` builds one and says whether it is ready for a class
//! ([`grader::check_problem`]). The service shows the same check for an uploaded bundle.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{Context, bail};
use grader::{Check, Example, ProblemCheck};
use sandbox::Sandbox;
use toolchain::Builder;

use course::executor::SandboxExecutor;
use course::problem::ProblemDir;
use course::submissions::{Batch, HandIn, accept_languages, hand_ins, read_batch_dir};

#[derive(clap::Args)]
pub struct NewProblemArgs {
    /// The problem's name: the folder written (`./NAME`) and its title.
    pub name: String,
    /// The language of the reference, the generator and the example submissions.
    #[arg(long, value_enum, default_value = "c")]
    pub lang: AuthorLanguage,
}

/// The languages a problem can be written in with `new-problem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthorLanguage {
    C,
    Rust,
}

#[derive(clap::Args)]
pub struct CheckProblemArgs {
    /// The problem directory (its `submissions/` folder may hold examples: those named
    /// `correct…` must pass every input, those named `buggy…` fail some).
    pub dir: PathBuf,
}

/// The files of a new problem, by language: (path in the problem, text with `{{TITLE}}`).
fn template(language: AuthorLanguage) -> Vec<(&'static str, &'static str)> {
    let mut files = vec![
        ("statement.md", include_str!("../templates/new-problem/statement.md")),
        ("problem.toml", include_str!("../templates/new-problem/problem.toml")),
    ];
    files.extend(match language {
        AuthorLanguage::C => [
            ("reference.c", include_str!("../templates/new-problem/reference.c")),
            ("generator.c", include_str!("../templates/new-problem/generator.c")),
            ("bugrank_gen.h", toolchain::guest::C_HEADER),
            ("submissions/correct.c", include_str!("../templates/new-problem/submissions/correct.c")),
            ("submissions/buggy.c", include_str!("../templates/new-problem/submissions/buggy.c")),
        ],
        AuthorLanguage::Rust => [
            ("reference.rs", include_str!("../templates/new-problem/reference.rs")),
            ("generator.rs", include_str!("../templates/new-problem/generator.rs")),
            ("bugrank_gen.rs", toolchain::guest::RUST_CRATE),
            ("submissions/correct.rs", include_str!("../templates/new-problem/submissions/correct.rs")),
            ("submissions/buggy.rs", include_str!("../templates/new-problem/submissions/buggy.rs")),
        ],
    });
    files
}

/// Writes a working problem into `dir` (which must not exist yet), titled `title`.
pub fn new_problem(dir: &Path, title: &str, language: AuthorLanguage) -> anyhow::Result<()> {
    if dir.exists() {
        bail!("{} already exists: choose another name, or delete it first", dir.display());
    }
    // The title goes into a TOML string and a Markdown heading.
    if title.is_empty() || title.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        bail!("`{title}`: a problem's name is one line without quotes or backslashes");
    }
    for (path, text) in template(language) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a file in the problem")).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(&path, text.replace("{{TITLE}}", title)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn new_problem_command(args: &NewProblemArgs) -> anyhow::Result<()> {
    let dir = Path::new(&args.name);
    new_problem(dir, &args.name, args.lang)?;
    println!("wrote the problem {} (a working example: the largest of a list of integers)", dir.display());
    println!("next: edit statement.md, the reference, the generator and the examples in submissions/, then");
    println!("  bugrank check-problem {}", dir.display());
    println!("  bugrank grade --problem {0} --submissions {0}/submissions --out {0}/results", dir.display());
    Ok(())
}

/// Whether a problem's example submission `id` must pass every input (`correct…`) or
/// fail some (`buggy…`); `None` for any other id, which is not an example.
pub fn example_should_pass(id: &str) -> Option<bool> {
    match id {
        _ if id.starts_with("correct") => Some(true),
        _ if id.starts_with("buggy") => Some(false),
        _ => None,
    }
}

/// Builds the problem in `dir` and checks it, with the examples of `dir/submissions`
/// (only `correct…` and `buggy…` are built, in the languages the problem accepts; an
/// example that does not compile, or in another language, fails its check).
///
/// Once `stop` is set, no program runs any more (each run ends at once as a timeout), so
/// that a check past its time ends within the runs in flight.
pub fn run_check_problem(sandbox: &Sandbox, builder: &Builder, dir: &Path, stop: Option<&AtomicBool>) -> anyhow::Result<(ProblemDir, ProblemCheck)> {
    let problem_dir = ProblemDir::load(sandbox, builder, dir)?;
    let examples_dir = dir.join("submissions");
    let files = if examples_dir.is_dir() { read_batch_dir(&examples_dir)? } else { Vec::new() };
    let examples: Vec<HandIn> = hand_ins(files, false).into_iter().filter(|h| h.id.as_deref().and_then(example_should_pass).is_some()).collect();
    let batch = Batch::from_hand_ins(sandbox, builder, &accept_languages(examples, &problem_dir.toml.languages));
    let mut programs = Vec::new();
    let mut examples = Vec::new();
    for submission in &batch.submissions {
        if let Some(correct) = example_should_pass(&submission.id) {
            programs.push(&submission.program);
            examples.push(Example { id: submission.id.clone(), program: programs.len(), correct });
        }
    }
    let executor = SandboxExecutor { cancel: stop, ..problem_dir.executor(sandbox, programs) };
    let mut report = grader::check_problem(&problem_dir.problem(), &executor, &examples);
    for not_built in &batch.not_built {
        let message = not_built.build.error.clone().unwrap_or_default();
        report.checks.push(Check { what: format!("the example `{}` compiles", not_built.id), passed: false, detail: message });
    }
    for rejected in &batch.rejected {
        report.checks.push(Check { what: format!("the example {} can be graded", rejected.file), passed: false, detail: rejected.reason.clone() });
    }
    Ok((problem_dir, report))
}

/// The report as the terminal shows it.
pub fn check_text(problem: &ProblemDir, report: &ProblemCheck) -> String {
    let mut out = format!("{} ({}): checked on {} generated inputs\n", problem.name, problem.toml.title, report.inputs);
    for check in &report.checks {
        out.push_str(&format!("  {}  {}: {}\n", if check.passed { "ok  " } else { "FAIL" }, check.what, check.detail));
    }
    out.push_str("\nSample inputs, and the reference's output on each:\n");
    for sample in &report.samples {
        out.push_str(&format!("  input   {:?}\n  output  {:?}\n", sample.input, sample.output));
    }
    let cost = &report.cost;
    let limits = &problem.toml.limits;
    out.push_str(&format!(
        "\nThe reference's fuel per input: min {}, median {}, 90% {}, 99% {}, max {} (its limit, limits.reference_fuel: {}).\n",
        cost.min, cost.median, cost.p90, cost.p99, cost.max, cost.limit
    ));
    out.push_str(&format!(
        "An answer gets {} times the reference's fuel on the same input (fuel_factor), at least {} (fuel_floor), and at least {} times the reference's on the hardest inputs of the same size (hardest_factor).\n",
        limits.fuel_factor, limits.fuel_floor, limits.hardest_factor
    ));
    let failed = report.checks.iter().filter(|c| !c.passed).count();
    out.push_str(&if failed == 0 { "\nready: every check passed\n".to_owned() } else { format!("\nnot ready: {failed} of {} checks failed\n", report.checks.len()) });
    out
}

pub fn check_problem_command(args: &CheckProblemArgs) -> anyhow::Result<()> {
    let tools = crate::cli_tools()?;
    let (problem, report) = run_check_problem(&tools.sandbox, &tools.builder, &args.dir, None)?;
    print!("{}", check_text(&problem, &report));
    if !report.passed() {
        bail!("{} is not ready to grade a class", args.dir.display());
    }
    Ok(())
}
