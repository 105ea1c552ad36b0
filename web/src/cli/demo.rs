//! `bugrank demo`: every fixture problem graded with its cohort, and the experiment report
//! over all of them, the way the paper's section 4 presents its three problems.

use std::path::PathBuf;

use anyhow::Context;
use grader::{ProblemReport, compare};

use super::grade::{GradeArgs, print_ranking, run_grade, write_outputs};
use super::report::write_report;
use course::outputs::{main_cohorts, score_rows};

#[derive(clap::Args)]
pub struct DemoArgs {
    /// The folder of problems, each with `submissions/` and `roster.csv` (default: the
    /// paper's three problems and a function-level one, built into bugrank).
    #[arg(long)]
    pub problems: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results go to `OUT/<problem>/` and the experiment report to OUT/.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
}

pub fn demo_command(args: &DemoArgs) -> anyhow::Result<()> {
    let tools = super::cli_tools()?;
    let (folder, _kept) = crate::demo_data::demo_problems(args.problems.as_deref())?;
    let mut problems: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("cannot read {}", folder.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("problem.toml").is_file())
        .collect();
    problems.sort();
    let mut reports: Vec<ProblemReport> = Vec::new();
    for dir in &problems {
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let roster = dir.join("roster.csv");
        let grade = GradeArgs {
            roster: roster.is_file().then_some(roster),
            seed: args.seed,
            out: args.out.join(&name),
            ..GradeArgs::new(dir.clone(), dir.join("submissions"))
        };
        let graded = run_grade(&tools, &grade)?;
        write_outputs(&grade.out, &graded)?;
        print_ranking(&graded);
        println!();
        let rows = score_rows(&graded.analysis, &graded.roster);
        if let Some((first, second)) = main_cohorts(&rows) {
            reports.push(compare(&graded.analysis.problem, &rows, &first, &second));
        }
    }
    // One report needs one pair of cohorts throughout.
    if let Some(first) = reports.first().map(|r| (r.cohorts[0].name.clone(), r.cohorts[1].name.clone())) {
        reports.retain(|r| r.cohorts[0].name == first.0 && r.cohorts[1].name == first.1);
        write_report(&args.out, &reports)?;
        for r in &reports {
            if let Some(w) = r.welch {
                println!("{}: {} {:.2} vs {} {:.2}, Welch p = {:.4}", r.problem, first.0, r.cohorts[0].mean, first.1, r.cohorts[1].mean, w.p);
            }
        }
    }
    eprintln!("results in {}/<problem>/ and the experiment report in {}", args.out.display(), args.out.join("report.html").display());
    Ok(())
}
