//! `bugrank report`: the experiment report comparing two cohorts, per problem.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use grader::{ProblemReport, ScoreRow, compare};
use serde::Deserialize;

use course::outputs::{experiment_files, read_analysis, score_rows};
use course::roster::read_roster;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// An analysis.json from `bugrank grade`; repeat for several problems.
    #[arg(long, required_unless_present = "scores")]
    pub analysis: Vec<PathBuf>,
    /// Cohorts and manual grades (columns id,cohort and optionally manual); without it,
    /// the cohorts recorded in each analysis are used.
    #[arg(long)]
    pub roster: Option<PathBuf>,
    /// Scores from elsewhere instead of analyses: CSV with problem,id,cohort,score and
    /// optionally manual.
    #[arg(long, conflicts_with = "analysis")]
    pub scores: Option<PathBuf>,
    /// The two cohorts to compare, first minus second: `quickcheck,hunit`.
    #[arg(long, value_delimiter = ',', required = true)]
    pub cohorts: Vec<String>,
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
}

#[derive(Deserialize)]
struct ScoresCsv {
    problem: String,
    id: String,
    cohort: String,
    score: f64,
    #[serde(default)]
    manual: Option<f64>,
}

/// The rows of each problem, in the order problems first appear.
fn load_rows(args: &ReportArgs) -> anyhow::Result<Vec<(String, Vec<ScoreRow>)>> {
    let mut problems: Vec<(String, Vec<ScoreRow>)> = Vec::new();
    let mut push = |problem: &str, row: ScoreRow| match problems.iter_mut().find(|(p, _)| p == problem) {
        Some((_, rows)) => rows.push(row),
        None => problems.push((problem.to_owned(), vec![row])),
    };
    if let Some(path) = &args.scores {
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
        for (i, record) in reader.deserialize::<ScoresCsv>().enumerate() {
            let r = record.with_context(|| format!("{} line {}: expected problem,id,cohort,score[,manual]", path.display(), i + 2))?;
            push(&r.problem, ScoreRow { id: r.id, cohort: r.cohort, score: r.score, manual: r.manual });
        }
        return Ok(problems);
    }
    let roster = match &args.roster {
        Some(path) => {
            let (rows, rejected) = read_roster(path)?;
            if let Some(bad) = rejected.first() {
                bail!("{}", bad.reason);
            }
            rows
        }
        None => Vec::new(),
    };
    for path in &args.analysis {
        let analysis = read_analysis(path)?;
        score_rows(&analysis, &roster).into_iter().for_each(|row| push(&analysis.problem, row));
    }
    Ok(problems)
}

pub fn run_report(args: &ReportArgs) -> anyhow::Result<Vec<ProblemReport>> {
    let [first, second] = &args.cohorts[..] else { bail!("--cohorts takes two cohort names: --cohorts quickcheck,hunit") };
    if first == second {
        bail!("--cohorts names `{first}` twice: compare two different cohorts (a cohort against itself says nothing)");
    }
    let problems = load_rows(args)?;
    let reports: Vec<ProblemReport> = problems.iter().map(|(p, rows)| compare(p, rows, first, second)).collect();
    for report in &reports {
        for cohort in &report.cohorts {
            if cohort.n == 0 {
                bail!("problem {}: no answer is in cohort `{}`", report.problem, cohort.name);
            }
        }
    }
    Ok(reports)
}

pub fn write_report(out: &Path, reports: &[ProblemReport]) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (name, contents) in experiment_files(reports)? {
        let path = out.join(name);
        std::fs::write(&path, contents).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn report_command(args: &ReportArgs) -> anyhow::Result<()> {
    let reports = run_report(args)?;
    write_report(&args.out, &reports)?;
    for r in &reports {
        let p = r.welch.map_or("undefined".to_owned(), |w| format!("{:.4} (df truncated: {:.4})", w.p, w.p_df_truncated));
        println!("{}: {} {:.2} vs {} {:.2}, Welch p = {p}", r.problem, r.cohorts[0].name, r.cohorts[0].mean, r.cohorts[1].name, r.cohorts[1].mean);
    }
    eprintln!("report written to {}", args.out.join("report.html").display());
    Ok(())
}
