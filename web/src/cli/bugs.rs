//! `bugrank bugs`: each student's own bug list, from a finished analysis.

use std::path::PathBuf;

use anyhow::Context;
use course::Tools;
use grader::BugList;
use present::bug_list_markdown;

use course::batch::Batch;
use course::grade_batch::own_bug_list;
use course::outputs::read_analysis;
use course::problem_dir::ProblemDir;

#[derive(clap::Args)]
pub struct BugsArgs {
    /// The problem directory the analysis was made for.
    #[arg(long)]
    pub problem: PathBuf,
    /// The submissions the analysis graded.
    #[arg(long)]
    pub submissions: PathBuf,
    /// The analysis.json written by `bugrank grade`.
    #[arg(long)]
    pub analysis: PathBuf,
    /// Only this answer's list (default: every answer's).
    #[arg(long)]
    pub answer: Option<String>,
    /// Write `<id>.md` and `<id>.json` here instead of printing.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The bug lists `args` asks for, in the analysis's answer order, each made as the
/// pipeline makes it ([`own_bug_list`]).
pub fn run_bugs(tools: &Tools, args: &BugsArgs) -> anyhow::Result<Vec<BugList>> {
    let problem_dir = ProblemDir::load(&tools.sandbox, &tools.builder, &args.problem)?;
    let analysis = read_analysis(&args.analysis)?;
    let batch = Batch::load(&tools.sandbox, &tools.builder, &problem_dir, &args.submissions)?;
    let problem = problem_dir.problem();
    let lists = analysis
        .answers
        .iter()
        .filter(|a| args.answer.as_ref().is_none_or(|id| *id == a.id))
        .map(|answer| {
            let submission = batch.submissions.iter().find(|s| s.id == answer.id);
            let not_built = batch.not_built.iter().any(|n| n.id == answer.id);
            anyhow::ensure!(submission.is_some() || not_built, "submission `{}` is not in {}", answer.id, args.submissions.display());
            Ok(own_bug_list(tools, &problem_dir, &problem, &analysis, &answer.id, submission.map(|s| &s.program)))
        })
        .collect::<anyhow::Result<Vec<BugList>>>()?;
    anyhow::ensure!(!lists.is_empty(), "no answer `{}` in {}", args.answer.as_deref().unwrap_or(""), args.analysis.display());
    Ok(lists)
}

pub fn bugs_command(args: &BugsArgs) -> anyhow::Result<()> {
    let tools = super::cli_tools()?;
    let lists = run_bugs(&tools, args)?;
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    }
    for list in &lists {
        let markdown = bug_list_markdown(list);
        match &args.out {
            Some(out) => {
                std::fs::write(out.join(format!("{}.md", list.answer)), &markdown)?;
                std::fs::write(out.join(format!("{}.json", list.answer)), serde_json::to_string_pretty(list)? + "\n")?;
            }
            None => println!("{markdown}"),
        }
    }
    Ok(())
}
