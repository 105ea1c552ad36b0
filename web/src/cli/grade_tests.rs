//! `bugrank grade-tests`: the students' own test suites, graded against the submissions.

use std::path::{Path, PathBuf};

use anyhow::Context;
use course::Tools;
use grader::{SuiteScore, WrittenTest, calibrate, grade_test_suites};

use course::batch::Batch;
use course::problem_dir::{ProblemDir, read_written_tests};

#[derive(clap::Args)]
pub struct GradeTestsArgs {
    #[arg(long)]
    pub problem: PathBuf,
    #[arg(long)]
    pub submissions: PathBuf,
    /// One folder per student, holding `NAME.in` inputs and optional `NAME.out` expected outputs.
    #[arg(long)]
    pub tests: PathBuf,
    /// Where to write `test-scores.csv` (default: print only).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Reads `DIR/<student>/<name>.in` and `<name>.out` ([`read_written_tests`]), students
/// and tests sorted by name.
pub fn read_suites(dir: &Path) -> anyhow::Result<Vec<(String, Vec<WrittenTest>)>> {
    let mut students: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    students.sort();
    students.into_iter().map(|student| Ok((student.file_name().unwrap_or_default().to_string_lossy().into_owned(), read_written_tests(&student)?))).collect()
}

pub fn run_grade_tests(tools: &Tools, args: &GradeTestsArgs) -> anyhow::Result<Vec<SuiteScore>> {
    let sandbox = &tools.sandbox;
    let problem_dir = ProblemDir::load(sandbox, &tools.builder, &args.problem)?;
    let batch = Batch::load(sandbox, &tools.builder, &problem_dir, &args.submissions)?;
    let suites = read_suites(&args.tests)?;
    let executor = problem_dir.executor(sandbox, batch.submissions.iter().map(|s| &s.program));
    let ids: Vec<String> = batch.submissions.iter().map(|s| s.id.clone()).collect();
    let problem = problem_dir.problem();
    Ok(grade_test_suites(&problem, &calibrate(&problem, &executor), &executor, &ids, &suites))
}

pub fn grade_tests_command(args: &GradeTestsArgs) -> anyhow::Result<()> {
    let tools = super::cli_tools()?;
    let scores = run_grade_tests(&tools, args)?;
    println!("{:<16} {:>5} {:>7} {:>5}  bugs found in", "student", "tests", "invalid", "score");
    for s in &scores {
        println!("{:<16} {:>5} {:>7} {:>5}  {}", s.student, s.tests, s.invalid.len(), s.score, s.found_bugs_in.join(" "));
        for invalid in &s.invalid {
            println!("    invalid {}: {}", invalid.name, invalid.reason);
        }
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)?;
        let mut csv = csv::Writer::from_path(out.join("test-scores.csv"))?;
        csv.write_record(["student", "tests", "invalid", "score", "found_bugs_in"])?;
        for s in &scores {
            csv.write_record([&s.student, &s.tests.to_string(), &s.invalid.len().to_string(), &s.score.to_string(), &s.found_bugs_in.join(" ")])?;
        }
        csv.flush()?;
    }
    Ok(())
}
