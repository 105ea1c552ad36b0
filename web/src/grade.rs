//! `bugrank grade`: one problem, one batch, one analysis, written to a directory.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use grader::{Analysis, Answer, Build, ProblemReport, Progress, RerunMode, ScoreRow, analyse, compare, rerun};
use present::{analysis_html, order_dot, order_svg};
use indicatif::{ProgressBar, ProgressStyle};
use sandbox::Program;
use serde::Serialize;

use crate::Tools;
use crate::problem::ProblemDir;
use crate::submissions::{Batch, Rejected, RosterRow, natural_cmp, read_roster};

#[derive(clap::Args)]
pub struct GradeArgs {
    /// The problem directory (problem.toml, reference.wasm, generator.wasm).
    #[arg(long)]
    pub problem: PathBuf,
    /// A directory or zip of submissions: modules (.wasm, .wat), source files (.c, .cpp,
    /// .rs) or a folder of sources per student; the id is the file's or folder's name.
    #[arg(long)]
    pub submissions: PathBuf,
    /// CSV with a header and the columns id,cohort and optionally manual.
    #[arg(long)]
    pub roster: Option<PathBuf>,
    /// The seed of the random search: the same seed gives the same analysis.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write analysis.json, scores.csv and order.dot.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Stop after this many consecutive tests add nothing (default: problem.toml's).
    #[arg(long)]
    pub stable_after: Option<u64>,
    /// Worker threads (default: one per core). The analysis does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// A previous analysis of this batch (its analysis.json) to grade against: its suite
    /// is kept (tests, ids, inputs, budgets), a submission whose module is unchanged keeps
    /// its result, and only new or changed submissions are run and searched for bugs
    /// the suite misses. No other submission's score or test id moves.
    #[arg(long, value_name = "ANALYSIS_JSON")]
    pub suite_from: Option<PathBuf>,
    /// With --suite-from: analyse the whole batch again instead, keeping only the ids of
    /// tests whose input is kept, and list every grade that changed and why.
    #[arg(long, requires = "suite_from")]
    pub full: bool,
}

impl GradeArgs {
    /// The defaults of the command line for `problem` and `submissions`: no roster, seed 1,
    /// output to `out`, the problem's own search budget, one thread per core.
    pub fn new(problem: PathBuf, submissions: PathBuf) -> GradeArgs {
        GradeArgs {
            problem,
            submissions,
            roster: None,
            seed: 1,
            out: PathBuf::from("out"),
            stable_after: None,
            threads: None,
            suite_from: None,
            full: false,
        }
    }
}

/// `analysis.json`: the grader's analysis and what the batch could not use.
#[derive(Serialize)]
struct AnalysisFile<'a> {
    #[serde(flatten)]
    analysis: &'a Analysis,
    rejected: &'a [Rejected],
    warnings: &'a [String],
}

/// A graded batch, before it is written anywhere.
pub struct Graded {
    pub analysis: Analysis,
    pub rejected: Vec<Rejected>,
    pub warnings: Vec<String>,
    pub roster: Vec<RosterRow>,
}

pub fn grade(args: &GradeArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let tools = crate::cli_tools()?;
    let graded = run_grade(&tools, args)?;
    write_outputs(&args.out, &graded)?;
    print_ranking(&graded);
    eprintln!(
        "{} tests generated, {} executions in {:.1} s; results in {}",
        graded.analysis.tests_generated,
        graded.analysis.executions,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// Loads the problem, batch and roster and runs the analysis.
pub fn run_grade(tools: &Tools, args: &GradeArgs) -> anyhow::Result<Graded> {
    let sandbox = &tools.sandbox;
    let problem_dir = ProblemDir::load(sandbox, &tools.builder, &args.problem)?;
    let mut problem = problem_dir.problem();
    if let Some(stable_after) = args.stable_after {
        problem.search.stable_after = stable_after;
    }
    let batch = Batch::load(sandbox, &tools.builder, &problem_dir.toml.languages, &args.submissions)?;
    let mut rejected = batch.rejected;
    let (roster, roster_rejected) = match &args.roster {
        Some(path) => read_roster(path)?,
        None => (Vec::new(), Vec::new()),
    };
    rejected.extend(roster_rejected);

    let mut warnings = Vec::new();
    let ids: Vec<&str> = batch.submissions.iter().map(|s| s.id.as_str()).chain(batch.not_built.iter().map(|n| n.id.as_str())).collect();
    if args.roster.is_some() {
        for id in &ids {
            if !roster.iter().any(|r| r.id == *id) {
                warnings.push(format!("submission `{id}` has no roster row: graded without a cohort"));
            }
        }
        for row in &roster {
            if !ids.contains(&row.id.as_str()) && !rejected.iter().any(|r| r.id.as_ref() == Some(&row.id)) {
                warnings.push(format!("roster row `{}` has no submission", row.id));
            }
        }
    }
    let cohort_of = |id: &str| roster.iter().find(|r| r.id == id).map(|r| r.cohort.clone());

    let (programs, answers) = answers_of(batch.submissions.iter().map(|s| (s.id.as_str(), &s.program, cohort_of(&s.id))));
    anyhow::ensure!(
        !answers.is_empty(),
        "no submission in {} could be loaded{}",
        args.submissions.display(),
        if batch.not_built.is_empty() { String::new() } else { format!(" ({} did not compile)", batch.not_built.len()) }
    );

    let executor = problem_dir.executor(sandbox, programs);
    let bar = progress_bar(problem.search.stable_after);
    let mut show = |p: &Progress| {
        bar.set_position(p.stable_run);
        bar.set_message(p.describe());
        std::ops::ControlFlow::Continue(())
    };
    let previous = match &args.suite_from {
        Some(path) => Some(crate::report::read_analysis(path)?),
        None => None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let mut analysis = pool.install(|| match &previous {
        None => analyse(&problem, &answers, &executor, args.seed, &mut show)
            .with_context(|| format!("the problem {} is broken", args.problem.display())),
        Some(previous) => {
            let mode = if args.full { RerunMode::Full } else { RerunMode::Frozen };
            rerun(&problem, &answers, &executor, args.seed, previous, mode, &mut show)
                .context("cannot grade against the previous analysis")
        }
    })?;
    bar.finish_and_clear();
    add_builds(
        &mut analysis,
        batch.submissions.iter().filter_map(|s| Some((s.id.as_str(), s.build.as_ref()?))),
        batch.not_built.iter().map(|n| (n.id.clone(), cohort_of(&n.id), n.build.clone())),
    );
    let set_aside = analysis.reference_failures + analysis.checker_failures;
    if set_aside > 0 {
        warnings.push(format!(
            "{set_aside} generated tests were set aside because the problem's own programs failed on them \
             (reference: {}, checker: {}); see problem_errors in analysis.json",
            analysis.reference_failures, analysis.checker_failures
        ));
    }
    Ok(Graded { analysis, rejected, warnings, roster })
}

/// The grader's answers for `(id, program, cohort)` triples, and the programs they run:
/// identical modules run once, so answers with the same hash share a program number.
pub fn answers_of<'a>(submissions: impl IntoIterator<Item = (&'a str, &'a Program, Option<String>)>) -> (Vec<&'a Program>, Vec<Answer>) {
    let mut programs: Vec<&Program> = Vec::new();
    let mut by_hash: HashMap<[u8; 32], usize> = HashMap::new();
    let answers = submissions
        .into_iter()
        .map(|(id, program, cohort)| {
            let number = *by_hash.entry(program.hash()).or_insert_with(|| {
                programs.push(program);
                programs.len()
            });
            Answer { id: id.to_owned(), cohort, program: number, version: crate::serve::store::hex(&program.hash()) }
        })
        .collect();
    (programs, answers)
}

/// Records how each answer that ran was built (`built`: id and build), and adds the
/// answers whose sources did not compile ([`Analysis::add_not_built`]: id, cohort, build),
/// keeping the answers in id order.
pub fn add_builds<'a>(
    analysis: &mut Analysis,
    built: impl IntoIterator<Item = (&'a str, &'a Build)>,
    not_built: impl IntoIterator<Item = (String, Option<String>, Build)>,
) {
    for (id, build) in built {
        if let Some(row) = analysis.answers.iter_mut().find(|a| a.id == id) {
            row.build = Some(build.clone());
        }
    }
    let before = analysis.answers.len();
    for (id, cohort, build) in not_built {
        analysis.add_not_built(id, cohort, build);
    }
    if analysis.answers.len() > before {
        analysis.answers.sort_by(|a, b| natural_cmp(&a.id, &b.id));
    }
}

fn progress_bar(stable_after: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(stable_after);
    bar.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} stable · {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

pub fn write_outputs(out: &Path, graded: &Graded) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let write = |name: &str, contents: &[u8]| {
        let path = out.join(name);
        std::fs::write(&path, contents).with_context(|| format!("cannot write {}", path.display()))
    };
    let file = AnalysisFile { analysis: &graded.analysis, rejected: &graded.rejected, warnings: &graded.warnings };
    let mut json = serde_json::to_string_pretty(&file)?;
    json.push('\n');
    write("analysis.json", json.as_bytes())?;
    write("scores.csv", &scores_csv(&graded.analysis, &graded.roster)?)?;
    write("order.dot", order_dot(&graded.analysis).as_bytes())?;
    write("order.svg", order_svg(&graded.analysis).as_bytes())?;
    write("report.html", analysis_html(&graded.analysis, cohort_comparison(graded).as_ref()).as_bytes())
}

/// Each answer's score with its cohort and manual grade: the roster's, or else the cohort
/// recorded in the analysis. Answers without a cohort are left out.
pub fn score_rows(analysis: &Analysis, roster: &[RosterRow]) -> Vec<ScoreRow> {
    analysis
        .answers
        .iter()
        .filter_map(|a| {
            let listed = roster.iter().find(|r| r.id == a.id);
            let cohort = listed.map(|r| r.cohort.clone()).or_else(|| a.cohort.clone())?;
            Some(ScoreRow { id: a.id.clone(), cohort, score: a.passed as f64, manual: listed.and_then(|r| r.manual) })
        })
        .collect()
}

/// The two largest cohorts (ties by name), when answers come in two or more.
pub fn main_cohorts(rows: &[ScoreRow]) -> Option<(String, String)> {
    let mut sizes: Vec<(usize, &str)> = Vec::new();
    for row in rows {
        match sizes.iter_mut().find(|(_, name)| *name == row.cohort) {
            Some((n, _)) => *n += 1,
            None => sizes.push((1, &row.cohort)),
        }
    }
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    match &sizes[..] {
        [(_, first), (_, second), ..] => Some((first.to_string(), second.to_string())),
        _ => None,
    }
}

/// The two largest cohorts compared, when there are two.
fn cohort_comparison(graded: &Graded) -> Option<ProblemReport> {
    let rows = score_rows(&graded.analysis, &graded.roster);
    let (first, second) = main_cohorts(&rows)?;
    Some(compare(&graded.analysis.problem, &rows, &first, &second))
}

/// `id,cohort,passed,failed,suite_size,percent,rank`, then the failed tests by kind
/// (`wrong,crash,timeout,memory,output`), one row per answer; when any answer was built
/// from sources, `language` (`module` for one handed in as a module) and `compiled`
/// (`yes`/`no`: a `no` failed every test without running); then the roster's own
/// columns (`manual` and any others), so that an instructor's extra columns
/// (names, sections) come back with the scores.
pub fn scores_csv(analysis: &Analysis, roster: &[RosterRow]) -> anyhow::Result<Vec<u8>> {
    // The roster's columns in its own order (one header for every row of one roster).
    let mut columns: Vec<&str> = Vec::new();
    for (header, _) in roster.iter().flat_map(|r| &r.extra) {
        if !columns.contains(&header.as_str()) {
            columns.push(header);
        }
    }
    let has_sources = analysis.answers.iter().any(|a| a.build.is_some());
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header =
        vec!["id", "cohort", "passed", "failed", "suite_size", "percent", "rank", "wrong", "crash", "timeout", "memory", "output"];
    if has_sources {
        header.extend(["language", "compiled"]);
    }
    header.extend(&columns);
    csv.write_record(&header)?;
    for a in &analysis.answers {
        let row = roster.iter().find(|r| r.id == a.id);
        let mut record = vec![
            a.id.clone(),
            // The roster's cohort wins: it may have been attached after the analysis ran.
            row.map(|r| r.cohort.clone()).or_else(|| a.cohort.clone()).unwrap_or_default(),
            a.passed.to_string(),
            a.failed.len().to_string(),
            analysis.scored_tests().to_string(),
            format!("{:.1}", a.percent),
            a.rank.to_string(),
            a.counts.wrong.to_string(),
            a.counts.crash.to_string(),
            a.counts.timeout.to_string(),
            a.counts.memory.to_string(),
            a.counts.output.to_string(),
        ];
        if has_sources {
            record.push(a.build.as_ref().map_or("module", |b| b.language.as_str()).to_owned());
            record.push(if a.not_built() { "no" } else { "yes" }.to_owned());
        }
        record.extend(columns.iter().map(|column| row.and_then(|r| r.get(column)).unwrap_or_default().to_owned()));
        csv.write_record(&record)?;
    }
    Ok(csv.into_inner()?)
}

pub fn print_ranking(graded: &Graded) {
    let analysis = &graded.analysis;
    println!("{}: {} tests in the suite (one per inferred bug)", analysis.problem, analysis.scored_tests());
    for test in &analysis.suite {
        let only = test.only_for.as_ref().map(|ids| format!("  (added for {})", ids.join(", "))).unwrap_or_default();
        println!("  {}  {:<40} fails {}{only}", test.id, present::one_line(&test.input, 40), test.failing.len());
    }
    println!();
    println!(
        "{:>4}  {:<16} {:<12} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5}  failed tests",
        "rank", "answer", "cohort", "passed", "%", "wrong", "crash", "time", "limit"
    );
    for a in analysis.ranked() {
        println!(
            "{:>4}  {:<16} {:<12} {:>3}/{:<3} {:>6.1} {:>5} {:>5} {:>5} {:>5}  {}",
            a.rank,
            a.id,
            a.cohort.as_deref().unwrap_or("-"),
            a.passed,
            analysis.scored_tests(),
            a.percent,
            a.counts.wrong,
            a.counts.crash,
            a.counts.timeout,
            a.counts.memory + a.counts.output,
            if a.not_built() { "did not compile: fails every test".to_owned() } else { a.failed.join(" ") }
        );
    }
    if let Some(rerun) = &analysis.rerun {
        println!();
        let how = match rerun.mode {
            RerunMode::Frozen => "against the previous suite",
            RerunMode::Full => "in full",
        };
        println!("re-run {how} (previous seed {}); changed: {}", rerun.previous_seed, list_or_none(&rerun.changed));
        for change in &rerun.grade_changes {
            let percent = |p: Option<f64>| p.map_or("-".to_owned(), |p| format!("{p:.1}%"));
            println!("  {}: {} -> {}: {}", change.id, percent(change.before), percent(change.after), change.why.join("; "));
        }
    }
    for r in &graded.rejected {
        println!("rejected: {}", r.reason);
    }
    for w in &graded.warnings {
        println!("warning: {w}");
    }
}

pub fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() { "none".to_owned() } else { ids.join(", ") }
}
