//! `bugrank check-problem`: builds a problem and prints whether it is ready for a class
//! ([`course::problem_check`], the check the service runs on an uploaded bundle).

use std::path::PathBuf;

use anyhow::bail;
use course::problem_check::run_check_problem;
use course::problem_dir::ProblemDir;
use grader::ProblemCheck;

#[derive(clap::Args)]
pub struct CheckProblemArgs {
    /// The problem directory (its `submissions/` folder may hold examples: those named
    /// `correct…` must pass every input, those named `buggy…` fail some, `wrong…`,
    /// `slow…` and `crash…` fail some by a wrong output, a timeout or a crash; its
    /// `tests/` folder the course's own tests, which the reference must agree with).
    pub dir: PathBuf,
}

/// The report as the terminal shows it.
pub fn check_text(problem: &ProblemDir, report: &ProblemCheck) -> String {
    let course = match problem.fixed.len() {
        0 => String::new(),
        n => format!(" and the course's {n} tests"),
    };
    let mut out = format!("{} ({}): checked on {} generated inputs{course}\n", problem.name, problem.toml.title, report.inputs);
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
    if let Some(checker) = &report.checker_cost {
        out.push_str(&format!(
            "The checker's fuel per check of the reference's outputs: min {}, median {}, 90% {}, 99% {}, max {} (its limit: {}).\n",
            checker.min, checker.median, checker.p90, checker.p99, checker.max, checker.limit
        ));
    }
    out.push_str(&format!(
        "An answer gets {} times the reference's fuel on the same input (fuel_factor), at least {} (fuel_floor), and at least {} times the reference's on the hardest inputs of the same size (hardest_factor).\n",
        limits.fuel_factor, limits.fuel_floor, limits.hardest_factor
    ));
    let failed = report.checks.iter().filter(|c| !c.passed).count();
    out.push_str(&if failed == 0 {
        "\nready: every check passed\n".to_owned()
    } else {
        format!("\nnot ready: {failed} of {} checks failed\n", report.checks.len())
    });
    out
}

pub fn check_problem_command(args: &CheckProblemArgs) -> anyhow::Result<()> {
    let tools = super::cli_tools()?;
    let (problem, report) = run_check_problem(&tools.sandbox, &tools.builder, &args.dir, None)?;
    print!("{}", check_text(&problem, &report));
    if !report.passed() {
        bail!("{} is not ready to grade a class", args.dir.display());
    }
    Ok(())
}
