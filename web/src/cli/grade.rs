//! `bugrank grade`: one problem, one batch, one analysis, written to a directory. The arguments become a
//! `course::Class` and `Settings`; progress is a bar, or a line every 5 s when stderr is no terminal; the files
//! are `Graded::files()`, and the ranking is printed.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Context;
use course::hand_ins::read_hand_ins;
use course::problem_dir::ProblemDir;
use course::roster::read_roster;
use course::{Class, Graded, Previous, Settings, Stage, grade_batch};
use grader::RerunMode;
use indicatif::{ProgressBar, ProgressStyle};

use course::Tools;
use course::exports::NoHandIn;

#[derive(clap::Args)]
pub struct GradeArgs {
    /// The problem directory: problem.toml, the reference and the generator (modules, or
    /// sources built in the sandbox), a function-level problem's harnesses, the course's
    /// own tests in tests/.
    #[arg(long)]
    pub problem: PathBuf,
    /// A directory or zip of submissions (a Canvas "Download Submissions" zip too): modules
    /// (.wasm, .wat), source files (.c, .cpp, .rs, .py) or a folder of sources per
    /// student; the id is the file's or folder's name (`reference` is the model answer's).
    /// For a function-level problem each file is the student's module, built with the
    /// problem's harness.
    #[arg(long)]
    pub submissions: PathBuf,
    /// A roster: CSV with a header and an `id` column; optionally `cohort` (for the
    /// two-cohort report), `manual`, `adjustment` and `adjustment_reason`, and any others
    /// (a name, an email), kept as they are.
    #[arg(long)]
    pub roster: Option<PathBuf>,
    /// What the roster's students who handed in nothing get in scores.csv: `zero` (0
    /// points) or `empty` (no grade: an empty cell, to grade by hand).
    #[arg(long, default_value = "zero", value_parser = no_hand_in)]
    pub no_hand_in: NoHandIn,
    /// The seed of the random search: the same seed gives the same analysis.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the results: analysis.json, scores.csv, the correctness order
    /// (order.dot, order.svg) and report.html (each student's bugs: `bugrank bugs`).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Stop searching once this many tests in a row find no new bug (default: problem.toml's `search.stable_after`).
    #[arg(long)]
    pub stable_after: Option<u64>,
    /// The points of a program with no failure (default: problem.toml's `grading.max_points`,
    /// itself 100 by default). Everyone's points scale with it; nothing else changes.
    #[arg(long)]
    pub max_points: Option<f64>,
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
    /// Runs every interpreted hand-in whole, none prepared once for all its runs: the
    /// same analysis, slower; for measuring what preparing saves (the class bench).
    #[arg(long, hide = true)]
    pub whole_runs: bool,
}

impl GradeArgs {
    /// The defaults of the command line for `problem` and `submissions`: no roster, seed 1,
    /// output to `out`, the problem's own search budget, one thread per core.
    pub fn new(problem: PathBuf, submissions: PathBuf) -> GradeArgs {
        GradeArgs {
            problem,
            submissions,
            roster: None,
            no_hand_in: NoHandIn::Zero,
            seed: 1,
            out: PathBuf::from("out"),
            stable_after: None,
            max_points: None,
            threads: None,
            suite_from: None,
            full: false,
            whole_runs: false,
        }
    }
}

/// `--no-hand-in`'s value: `zero` or `empty`.
fn no_hand_in(value: &str) -> Result<NoHandIn, String> {
    NoHandIn::named(value).ok_or_else(|| format!("`{value}` is neither `zero` (0 points) nor `empty` (an empty cell)"))
}

pub fn grade(args: &GradeArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let tools = super::cli_tools()?;
    let tools = match args.whole_runs {
        true => Tools { sandbox: tools.sandbox.without_preparation(), builder: tools.builder },
        false => tools,
    };
    let graded = run_grade(&tools, args)?;
    write_outputs(&args.out, &graded)?;
    print_ranking(&graded);
    eprintln!(
        "{} tests generated, {} executions ({} hand-ins ran as a copy of another's code, comments and spacing aside; \
         {} runs spared: programs that never read their input ran once) in {:.1} s; results in {}",
        graded.analysis.tests_generated,
        graded.analysis.executions,
        graded.copies,
        graded.runs_spared,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// Reads the problem, the batch and the roster `args` name, and grades them through
/// [`course::grade_batch`](fn@course::grade_batch), with a progress bar on a terminal.
pub fn run_grade(tools: &Tools, args: &GradeArgs) -> anyhow::Result<Graded> {
    let problem_dir = ProblemDir::load(&tools.sandbox, &tools.builder, &args.problem)?;
    let hand_ins = read_hand_ins(&args.submissions, &problem_dir.toml.languages)?;
    let (roster, rejected) = match &args.roster {
        Some(path) => {
            let (roster, rejected) = read_roster(path)?;
            (Some(roster), rejected)
        }
        None => (None, Vec::new()),
    };
    let previous = match &args.suite_from {
        Some(path) => Some(Previous {
            analysis: course::outputs::read_analysis(path)?,
            mode: if args.full { RerunMode::Full } else { RerunMode::Frozen },
            bug_lists: Default::default(),
        }),
        None => None,
    };
    let settings =
        Settings { stable_after: args.stable_after, max_points: args.max_points, previous, no_hand_in: args.no_hand_in, ..Settings::seed(args.seed) };
    // Threads with the stack of the deepest run a problem may give (address space, until used).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).stack_size(sandbox::RUN_THREAD_STACK_BYTES).build()?;
    // The paper's rule has a count to fill; the estimate's has none known beforehand.
    let estimated = settings.stable_after.is_none() && problem_dir.toml.search.stop == course::problem_dir::StopName::Estimate;
    let bar = progress_bar((!estimated).then(|| settings.stable_after.unwrap_or(problem_dir.toml.search.stable_after)));
    let lines = ProgressLines::new(bar.is_hidden());
    let show = |stage: Stage<'_>| {
        let said = match stage {
            Stage::Compiling { compiled, total } => format!("compiling {compiled}/{total}"),
            Stage::Searching(p) => {
                bar.set_position(p.stable_run);
                format!("searching: {}", p.describe())
            }
            Stage::Explaining { explained, total } => format!("writing bug lists {explained}/{total}"),
        };
        lines.say(&said);
        bar.set_message(said);
    };
    let class = Class { hand_ins, rejected, roster };
    let graded = grade_batch(tools, &problem_dir, class, &settings, &pool, &AtomicBool::new(false), &show);
    bar.finish_and_clear();
    graded.with_context(|| format!("cannot grade {} on {}", args.submissions.display(), args.problem.display()))
}

/// How often `grade` says where it is on stderr when stderr is not a terminal (a log, a CI
/// job, a pipe), where no bar is drawn: a long analysis is seen to move.
const PROGRESS_LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Progress as lines on stderr, at most one every [`PROGRESS_LINE_EVERY`], when on.
struct ProgressLines {
    /// When the last line was written; `None` when lines are off (a bar is drawn instead).
    last: Option<std::sync::Mutex<Instant>>,
}

impl ProgressLines {
    fn new(on: bool) -> ProgressLines {
        ProgressLines { last: on.then(|| std::sync::Mutex::new(Instant::now())) }
    }

    /// Writes `said` if the last line is old enough.
    fn say(&self, said: &str) {
        let Some(last) = &self.last else { return };
        let mut last = last.lock().expect("the progress lines are never poisoned");
        if last.elapsed() >= PROGRESS_LINE_EVERY {
            *last = Instant::now();
            eprintln!("{said}");
        }
    }
}

/// A bar filling up to `stable_after` (the paper's rule), or, without one, a spinner.
fn progress_bar(stable_after: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    match stable_after {
        Some(stable_after) => {
            let bar = ProgressBar::new(stable_after);
            bar.set_style(ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} stable · {msg}").expect("a valid template").progress_chars("=> "));
            bar
        }
        None => {
            let bar = ProgressBar::new_spinner();
            bar.set_style(ProgressStyle::with_template("{elapsed:>4} {spinner} {msg}").expect("a valid template"));
            bar
        }
    }
}

/// Writes every file of `graded` ([`Graded::files`]) into `out`.
pub fn write_outputs(out: &Path, graded: &Graded) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (name, contents) in graded.files()? {
        let path = out.join(name);
        std::fs::write(&path, contents).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn print_ranking(graded: &Graded) {
    let analysis = &graded.analysis;
    println!("{}: {} tests in the suite (one per inferred bug)", analysis.problem, analysis.scored_tests());
    for test in &analysis.suite {
        let only = test.only_for.as_ref().map(|ids| format!("  (added for {})", ids.join(", "))).unwrap_or_default();
        let course = test.course_test.as_ref().map(|name| format!("  (the course's {name})")).unwrap_or_default();
        println!("  {}  {:<40} fails {}{course}{only}", test.id, present::one_line(&test.input, 40), test.failing.len());
    }
    if !analysis.course_tests.is_empty() {
        println!("{}", present::course_tests_in_words(analysis));
    }
    println!();
    println!(
        "{:>4}  {:<16} {:<12} {:>7} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5}  failed tests",
        "rank", "answer", "cohort", "points", "passed", "%", "wrong", "crash", "time", "limit"
    );
    for a in analysis.ranked() {
        println!(
            "{:>4}  {:<16} {:<12} {:>7} {:>3}/{:<3} {:>6.1} {:>5} {:>5} {:>5} {:>5}  {}",
            a.rank,
            a.id,
            a.cohort.as_deref().unwrap_or("-"),
            a.points.as_ref().map_or("-".to_owned(), |p| p.points.to_string()),
            a.passed,
            analysis.scored_tests(),
            a.percent,
            a.counts.wrong,
            a.counts.crash,
            a.counts.timeout,
            a.counts.memory + a.counts.output,
            match a.build.as_ref().and_then(grader::Build::not_built_in_words) {
                Some(why) => format!("{why}: fails every test"),
                None => a.failed.join(" "),
            }
        );
    }
    if let Some(completeness) = analysis.completeness_in_words() {
        println!();
        println!("how complete the search is: {completeness}");
    }
    if let Some(rerun) = &analysis.rerun {
        println!();
        let how = match rerun.mode {
            RerunMode::Frozen => "against the previous suite",
            RerunMode::Full => "in full",
        };
        println!("re-run {how} (previous seed {}); changed: {}", rerun.previous_seed, present::list_or_none(&rerun.changed));
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
