//! `bugrank stability`: Paper III's section 5.1 experiment on one problem and batch.

use std::path::PathBuf;

use course::Tools;
use grader::{Stability, stability};

use super::grade::{GradeArgs, run_grade};

#[derive(clap::Args)]
pub struct StabilityArgs {
    /// The problem directory.
    #[arg(long)]
    pub problem: PathBuf,
    /// A directory or zip of submissions.
    #[arg(long)]
    pub submissions: PathBuf,
    /// Analyses to run, with seeds first-seed, first-seed + 1, ...
    #[arg(long, default_value_t = 10)]
    pub runs: u64,
    #[arg(long, default_value_t = 1)]
    pub first_seed: u64,
    /// Stop each search once this many tests in a row find no new bug (default: the problem's).
    #[arg(long)]
    pub stable_after: Option<u64>,
}

pub fn run_stability(tools: &Tools, args: &StabilityArgs) -> anyhow::Result<Stability> {
    anyhow::ensure!(args.runs >= 2, "--runs must be at least 2 to compare anything");
    let analyses = (args.first_seed..args.first_seed + args.runs)
        .map(|seed| {
            let grade = GradeArgs { seed, stable_after: args.stable_after, ..GradeArgs::new(args.problem.clone(), args.submissions.clone()) };
            eprintln!("seed {seed}...");
            run_grade(tools, &grade).map(|graded| graded.analysis)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(stability(&analyses))
}

pub fn stability_command(args: &StabilityArgs) -> anyhow::Result<()> {
    let tools = super::cli_tools()?;
    let s = run_stability(&tools, args)?;
    let sizes: Vec<String> = s.suite_sizes.iter().map(usize::to_string).collect();
    match s.estimate_stop {
        None => println!("{:<32} {}", "Number of tests (stable after)", s.stable_after),
        Some(rule) => println!(
            "{:<32} a new kind of failure 1 in {} or rarer, after at least {} random tests",
            "Stopped by its estimate",
            (1.0 / rule.chance).round(),
            rule.min_tests
        ),
    }
    println!("{:<32} {}", "Sizes of test suite", sizes.join(","));
    println!("{:<32} {:.2}", "Avg std dev of ranks", s.average_deviation);
    println!("{:<32} {:.2}", "Max std dev of ranks", s.maximum_deviation);
    let verdict = if s.order_unchanged { "unchanged" } else { "CHANGED" };
    println!("{:<32} {verdict} over {} seeds", "Correctness order", args.runs);
    for rank in s.ranks.iter().filter(|r| r.deviation > 0.0) {
        let failed: Vec<String> = rank.failed.iter().map(usize::to_string).collect();
        println!("  {}: std dev {:.2}, failed {}", rank.answer, rank.deviation, failed.join(","));
    }
    if !s.varying_bugs.is_empty() {
        println!("Bugs in only some suites (runs, answers failing, an example input):");
        for bug in &s.varying_bugs {
            println!("  {:>2}/{}  {}  {:?}", bug.runs, args.runs, bug.failing.join(" "), bug.example);
        }
    }
    Ok(())
}
