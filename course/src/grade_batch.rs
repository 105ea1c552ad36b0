//! The one grading pipeline: a problem, the hand-ins of a batch and its roster in, every
//! result out. `bugrank grade` and the service's worker both call [`grade_batch`] and only
//! present or store what it returns, so the two write the same `analysis.json`, byte for
//! byte, for the same batch, roster and seed.
//!
//! The stages, each reported through [`Stage`]: compile the hand-ins (sources are built
//! first; at most [`BATCH_COMPILE_SECONDS`] for the batch), search for the suite
//! ([`grader::analyse`], or [`grader::rerun`] against a previous analysis), record how each
//! hand-in was built, and, when asked, explain each student's bugs ([`grader::bug_list`]).
//! It also warns of roster rows without hand-ins and of hand-ins without roster rows.
//!
//! Copies run once ([`answers_of`]): hand-ins whose programs have the same code (`sandbox::Program::same_code`:
//! identical modules, or Python whose comments, spacing, blank lines and file names differ) share the first one's
//! program number in the search. Each copy's failures are then told again by its own program
//! ([`grader::own_failures`]), and its bug list is explained from it, so that no message names another student's file
//! or lines ([`Graded::copies`] counts them).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use grader::{Analysis, Answer, Build, GraderError, Progress, RerunMode, analyse, bug_list, grade_changes, rerun};
use rayon::prelude::*;
use sandbox::{Program, Sandbox};
use toolchain::Builder;

use crate::batch::{Batch, Rejected};
use crate::error::{CourseError, CourseResult};
use crate::executor::SandboxExecutor;
use crate::hand_in::HandIn;
use crate::hand_ins::natural_cmp;
use crate::problem_dir::ProblemDir;
use crate::roster::RosterRow;
use crate::rounds::{decode_hand_ins, decode_runs, encode_bug_lists, encode_executions};

/// The longest the compile phase of one batch may take, wall clock: some 30 times what
/// the largest honest class measured needs (300 Rust sources, 56 s cold on 2 cores), so
/// that only compile bombs reach it (some 60 of them at the 60 s limit each, two at a
/// time), and short enough that a batch of them cannot hold a worker for hours. When it
/// runs out no grade is given: grading fails, naming the hand-ins that did not compile
/// and how many were not reached (a grade that depends on a classmate's compile time
/// would not be defensible). What compiled is kept (the build and compiled-module
/// caches), so the next analysis starts from there.
pub const BATCH_COMPILE_SECONDS: u64 = 30 * 60;

/// What programs run with: the sandbox, and the builder of sources.
pub struct Tools {
    pub sandbox: Sandbox,
    pub builder: Builder,
}

/// What is graded: the hand-ins of a batch, what of it was already refused (files that
/// are not hand-ins, roster rows that cannot be read), and the roster, if there is one.
#[derive(Clone, Debug, Default)]
pub struct Class {
    pub hand_ins: Vec<HandIn>,
    pub rejected: Vec<Rejected>,
    /// `None`: no roster was given (hand-ins are graded without cohorts, and nothing is
    /// said of ids missing from it).
    pub roster: Option<Vec<RosterRow>>,
}

/// How a batch is graded, beyond its problem's own settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The seed of the random search: the same seed gives the same analysis.
    pub seed: u64,
    /// Instead of `problem.toml`'s search: the paper's rule with this count (whatever
    /// `search.stop` says).
    pub stable_after: Option<u64>,
    /// Instead of `problem.toml`'s `limits.fuel_factor`.
    pub fuel_factor: Option<u64>,
    /// Instead of `problem.toml`'s `grading.max_points` (more than 0, at most
    /// [`MAX_POINTS`](crate::problem_dir::MAX_POINTS)): the batch's own scale.
    pub max_points: Option<f64>,
    /// A previous analysis of the batch to grade against ([`grader::rerun`]).
    pub previous: Option<Previous>,
    /// Whether to write each student's bug list too (the service shows them at once;
    /// `bugrank bugs` writes them from a finished analysis). Default false.
    pub bug_lists: bool,
    /// What the roster's students who handed in nothing get in the exports. Default 0
    /// points.
    pub no_hand_in: crate::exports::NoHandIn,
    /// Where the search's rounds of runs may be made besides `pool` (other workers of the
    /// service). Default none: every run here.
    pub elsewhere: Option<std::sync::Arc<dyn crate::rounds::RunsElsewhere>>,
}

impl Settings {
    /// Seed `seed`, the problem's own search and fuel, no previous analysis, no bug lists,
    /// 0 points for no hand-in.
    pub fn seed(seed: u64) -> Settings {
        Settings {
            seed,
            stable_after: None,
            fuel_factor: None,
            max_points: None,
            previous: None,
            bug_lists: false,
            no_hand_in: Default::default(),
            elsewhere: None,
        }
    }
}

/// A previous analysis to grade against, and the bug lists it gave (a frozen re-run keeps
/// an unchanged hand-in's result, and so its bug list).
#[derive(Clone, Debug)]
pub struct Previous {
    pub analysis: Analysis,
    pub mode: RerunMode,
    /// Bug lists (JSON) by student id; may be empty.
    pub bug_lists: HashMap<String, String>,
}

/// Where grading is, as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Stage<'a> {
    /// `compiled` of `total` hand-ins compiled (or found compiled).
    Compiling { compiled: usize, total: usize },
    /// The search, as the grader reports it.
    Searching(&'a Progress),
    /// `explained` of `total` bug lists written.
    Explaining { explained: usize, total: usize },
}

/// A graded batch, before it is written anywhere.
#[derive(Debug)]
pub struct Graded {
    pub analysis: Analysis,
    /// What of the batch was not graded, and why.
    pub rejected: Vec<Rejected>,
    /// What the instructor should know: roster rows without hand-ins, hand-ins without
    /// roster rows, tests set aside because the problem's own programs failed.
    pub warnings: Vec<String>,
    pub roster: Vec<RosterRow>,
    /// `(student id, bug list as JSON)` in answer order, when [`Settings::bug_lists`].
    pub bug_lists: Vec<(String, String)>,
    /// Of the analysis's executions, how many were not run because the same program had
    /// already run without asking for its input (`executor::InputFree`).
    pub runs_spared: u64,
    /// Hand-ins that ran as another's program, having the same code (see [`answers_of`]):
    /// each of their runs was spared.
    pub copies: usize,
    /// What the roster's students who handed in nothing get in `scores.csv` (from
    /// [`Settings::no_hand_in`]).
    pub no_hand_in: crate::exports::NoHandIn,
}

/// Grades `class` on `problem`: compiles the hand-ins, searches for the suite, ranks, and
/// explains each student's bugs if `settings` asks. Runs on `pool` (the analysis does not
/// depend on its size); `cancel` stops it within a run's time (the result is then
/// [`GraderError::Cancelled`]); `report` hears each stage, from the pool's threads.
pub fn grade_batch(
    tools: &Tools,
    problem_dir: &ProblemDir,
    class: Class,
    settings: &Settings,
    pool: &rayon::ThreadPool,
    cancel: &AtomicBool,
    report: &(dyn Fn(Stage<'_>) + Sync),
) -> CourseResult<Graded> {
    let mut problem = problem_of(problem_dir, settings)?;
    let batch = pool.install(|| compile(tools, &problem_dir.accepted, &class.hand_ins, cancel, report));
    if cancel.load(Ordering::Relaxed) {
        return Err(GraderError::Cancelled.into());
    }
    if !batch.not_reached.is_empty() {
        return Err(compile_time_ran_out(&batch, class.hand_ins.len()));
    }
    let mut rejected = batch.rejected.clone();
    rejected.extend(class.rejected);
    let mut warnings = roster_warnings(&batch, class.roster.as_deref(), &rejected);
    let roster = class.roster.unwrap_or_default();
    let cohort_of = |id: &str| roster.iter().find(|r| r.id == id).map(|r| r.cohort.clone());

    let (programs, answers) = answers_of(batch.submissions.iter().map(|s| (s.id.as_str(), &s.program, cohort_of(&s.id))));
    if answers.is_empty() && batch.not_built.is_empty() {
        return Err(CourseError::NothingGraded("no submission of the batch could be loaded".into()));
    }
    if answers.is_empty() {
        // Nothing compiled: still an analysis, whose every hand-in's result is its
        // compiler's message. There is nobody to search bugs in: one test settles it.
        warnings.push(format!("none of the {} hand-ins compiled: each one's result is its compiler's message", batch.not_built.len()));
        problem.search = grader::SearchOptions { stable_after: 1, estimate: None, ..problem.search };
    }
    let mut executor = SandboxExecutor { cancel: Some(cancel), ..problem_dir.executor(&tools.sandbox, programs.iter().copied()) };
    if let Some(elsewhere) = &settings.elsewhere {
        executor.elsewhere = Some((&**elsewhere, executor.programs_digest()));
    }
    let mut show = |p: &Progress| {
        report(Stage::Searching(p));
        if cancel.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let mut analysis = pool.install(|| match &settings.previous {
        None => analyse(&problem, &answers, &executor, settings.seed, &mut show),
        Some(previous) => rerun(&problem, &answers, &executor, settings.seed, &previous.analysis, previous.mode, &mut show),
    })?;
    // A copy ran as the first one's program: its failures are told again by its own, so
    // that its messages name its own file and lines.
    let copies: HashMap<&str, &Program> = batch
        .submissions
        .iter()
        .zip(&answers)
        .filter(|(s, a)| s.program.hash() != programs[a.program - 1].hash())
        .map(|(s, a)| (a.id.as_str(), &s.program))
        .collect();
    let grader::Analysis { suite, answers: rows, .. } = &mut analysis;
    pool.install(|| {
        rows.par_iter_mut().filter_map(|row| Some((copies.get(row.id.as_str())?, row))).for_each(|(own, row)| {
            grader::own_failures(&problem, suite, row, 1, &problem_dir.executor(&tools.sandbox, [*own]));
        })
    });
    add_builds(
        &mut analysis,
        batch.submissions.iter().filter_map(|s| Some((s.id.as_str(), s.build.as_ref()?))),
        batch.not_built.iter().map(|n| (n.id.clone(), cohort_of(&n.id), n.build.clone())),
    );
    // The grader's re-run knew only the hand-ins that ran: its changes are said again of
    // the whole class, so that one that did not compile, before and now, is not "not in
    // this analysis" (and one whose sources changed is among the changed).
    if let (Some(previous), Some(mut rerun)) = (&settings.previous, analysis.rerun.take()) {
        for not_built in &batch.not_built {
            let before = previous.analysis.answers.iter().find(|a| a.id == not_built.id);
            if before.is_none_or(|a| a.version != not_built.build.sources) && !rerun.changed.contains(&not_built.id) {
                rerun.changed.push(not_built.id.clone());
            }
        }
        rerun.changed.sort_by(|a, b| natural_cmp(a, b));
        rerun.grade_changes = grade_changes(&previous.analysis, &analysis, &rerun.changed);
        analysis.rerun = Some(rerun);
    }
    let set_aside = analysis.reference_failures + analysis.checker_failures;
    if set_aside > 0 {
        warnings.push(format!(
            "{set_aside} generated tests were set aside because the problem's own programs failed on them \
             (reference: {}, checker: {}); see problem_errors in analysis.json",
            analysis.reference_failures, analysis.checker_failures
        ));
    }
    let bug_lists = match settings.bug_lists {
        false => Vec::new(),
        true => {
            let explained = Explained { answers: &answers, submissions: &batch.submissions, elsewhere: executor.elsewhere };
            pool.install(|| explain(tools, problem_dir, &problem, &analysis, &explained, settings.previous.as_ref(), cancel, report))?
        }
    };
    let runs_spared = executor.input_free.spared();
    let copies = answers.len() - programs.len();
    Ok(Graded { analysis, rejected, warnings, roster, bug_lists, runs_spared, copies, no_hand_in: settings.no_hand_in })
}

/// The problem of `problem_dir` as `settings` grade it (their search, fuel factor and
/// points instead of `problem.toml`'s).
pub fn problem_of(problem_dir: &ProblemDir, settings: &Settings) -> CourseResult<grader::Problem> {
    let mut problem = problem_dir.problem();
    if let Some(stable_after) = settings.stable_after {
        problem.search.stable_after = stable_after;
        problem.search.estimate = None;
    }
    if let Some(factor) = settings.fuel_factor {
        problem.fuel.factor = factor;
    }
    if let Some(max) = settings.max_points {
        problem.grading.max_points = crate::problem_dir::max_points(max).map_err(CourseError::Problem)?;
    }
    Ok(problem)
}

/// Loads every hand-in in parallel (sources are built first, with the problem's
/// `harnesses` if any), until the batch's compile
/// time runs out or `cancel` is set: those not reached then are in `not_reached`.
pub(crate) fn compile(
    tools: &Tools,
    accepted: &crate::problem_dir::Accepted,
    hand_ins: &[HandIn],
    cancel: &AtomicBool,
    report: &(dyn Fn(Stage<'_>) + Sync),
) -> Batch {
    let compiled = AtomicUsize::new(0);
    let started = Instant::now();
    let total = hand_ins.len();
    Batch::of(hand_ins, |file, handed| {
        if cancel.load(Ordering::Relaxed) || started.elapsed() > Duration::from_secs(BATCH_COMPILE_SECONDS) {
            return None;
        }
        let loaded = crate::load::load(&tools.sandbox, &tools.builder, accepted, file, handed, Some(cancel));
        report(Stage::Compiling { compiled: compiled.fetch_add(1, Ordering::Relaxed) + 1, total });
        Some(loaded)
    })
}

/// The error of a batch whose compile time ran out: how many were not reached, and who
/// did not compile (the compile bombs are among them).
fn compile_time_ran_out<P>(batch: &Batch<P>, total: usize) -> CourseError {
    let not_reached = batch.not_reached.len();
    let failed: Vec<&str> = batch.not_built.iter().map(|n| n.id.as_str()).collect();
    CourseError::NothingGraded(format!(
        "compiling this batch took longer than its limit of {} minutes, so nothing was graded: {} of {total} hand-ins were compiled, {not_reached} were not reached; {} did not compile ({}). What compiled is kept: analyse the batch again to go on, or replace the hand-ins that do not compile",
        BATCH_COMPILE_SECONDS / 60,
        total - not_reached,
        failed.len(),
        if failed.is_empty() { "none".to_owned() } else { failed.join(", ") }
    ))
}

/// Hand-ins without a roster row, and roster rows without a hand-in (nor a rejected file
/// of theirs), when there is a roster.
fn roster_warnings<P>(batch: &Batch<P>, roster: Option<&[RosterRow]>, rejected: &[Rejected]) -> Vec<String> {
    let Some(roster) = roster else { return Vec::new() };
    let ids: Vec<&str> = batch.submissions.iter().map(|s| s.id.as_str()).chain(batch.not_built.iter().map(|n| n.id.as_str())).collect();
    let mut warnings = Vec::new();
    for id in &ids {
        if !roster.iter().any(|r| r.id == *id) {
            warnings.push(format!("submission `{id}` has no roster row: graded without a cohort"));
        }
    }
    for row in roster {
        if !ids.contains(&row.id.as_str()) && !rejected.iter().any(|r| r.id.as_ref() == Some(&row.id)) {
            warnings.push(format!("roster row `{}` has no submission", row.id));
        }
    }
    warnings
}

/// The grader's answers for `(id, program, cohort)` triples, and the programs they run:
/// copies run once, so answers whose programs have the same code ([`Program::same_code`]:
/// identical modules, or Python hand-ins that differ only in comments, spacing, blank
/// lines and file name) share a program number, the first one's. Each answer's version is
/// still its own program's hash.
pub fn answers_of<'a>(submissions: impl IntoIterator<Item = (&'a str, &'a Program, Option<String>)>) -> (Vec<&'a Program>, Vec<Answer>) {
    let mut programs: Vec<&Program> = Vec::new();
    let mut by_code: HashMap<[u8; 32], usize> = HashMap::new();
    let answers = submissions
        .into_iter()
        .map(|(id, program, cohort)| {
            let number = *by_code.entry(program.same_code()).or_insert_with(|| {
                programs.push(program);
                programs.len()
            });
            Answer { id: id.to_owned(), cohort, program: number, version: crate::hand_in::hex(&program.hash()) }
        })
        .collect();
    (programs, answers)
}

/// Records how each answer that ran was built (`built`: id and build: a rule of the
/// assignment broken costs its points, [`grader::Points::breaking_rule`]), and adds the
/// answers whose sources did not compile ([`Analysis::add_not_built`]: id, cohort, build),
/// keeping the answers in id order.
pub fn add_builds<'a>(
    analysis: &mut Analysis,
    built: impl IntoIterator<Item = (&'a str, &'a Build)>,
    not_built: impl IntoIterator<Item = (String, Option<String>, Build)>,
) {
    for (id, build) in built {
        if let Some(row) = analysis.answers.iter_mut().find(|a| a.id == id) {
            // A rule of the assignment its sources break costs what the policy says.
            if let Some(rule) = build.rules_broken.first() {
                row.points = row.points.take().map(|p| p.breaking_rule(&analysis.grading, &rule.in_words()));
            }
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

/// A class compiled by a helper ([`crate::rounds`]), as [`grade_batch`] compiles it: the
/// same programs, numbered the same way.
pub struct CompiledClass {
    batch: Batch,
}

impl CompiledClass {
    /// Compiles `hand_ins` for `problem_dir` on the current rayon pool (until `cancel`).
    /// `Err` when the batch's compile time ran out or the compile was cancelled: the
    /// programs would not be the analysis's.
    pub fn compile(tools: &Tools, problem_dir: &ProblemDir, hand_ins: &[HandIn], cancel: &AtomicBool) -> CourseResult<CompiledClass> {
        let batch = compile(tools, &problem_dir.accepted, hand_ins, cancel, &|_| {});
        if !batch.not_reached.is_empty() {
            return Err(CourseError::NothingGraded(format!("{} hand-ins were not compiled", batch.not_reached.len())));
        }
        Ok(CompiledClass { batch })
    }

    /// The executor of the class's programs, numbered as the analysis numbers them.
    pub fn executor<'a>(&'a self, tools: &'a Tools, problem_dir: &'a ProblemDir) -> SandboxExecutor<'a> {
        let (programs, _) = answers_of(self.batch.submissions.iter().map(|s| (s.id.as_str(), &s.program, None)));
        problem_dir.executor(&tools.sandbox, programs)
    }

    /// Writes the bug lists of a shard ([`encode_hand_ins`](crate::rounds::encode_hand_ins),
    /// [`decode_hand_ins`])
    /// of `analysis` graded on `problem` (as [`problem_of`] gives it), on the current rayon
    /// pool: the lists ([`encode_bug_lists`]).
    pub fn bug_lists_shard(
        &self,
        tools: &Tools,
        problem_dir: &ProblemDir,
        problem: &grader::Problem,
        analysis: &grader::Analysis,
        shard: &[u8],
    ) -> CourseResult<Vec<u8>> {
        let places = decode_hand_ins(shard)?;
        if let Some(place) = places.iter().find(|&&p| p >= self.batch.submissions.len()) {
            return Err(CourseError::Batch(format!("a shard names hand-in {place}, which this class does not have")));
        }
        let lists = bug_lists_here(tools, problem_dir, problem, analysis, &self.batch.submissions, &places, &AtomicBool::new(false), &|| {});
        Ok(encode_bug_lists(&lists))
    }

    /// Makes the runs of a shard ([`encode_runs`](crate::rounds::encode_runs)) on the
    /// current rayon pool: their executions ([`encode_executions`]). `Err` when a run
    /// names a program the class does not have.
    pub fn run_shard(&self, executor: &SandboxExecutor<'_>, shard: &[u8]) -> CourseResult<Vec<u8>> {
        let runs = decode_runs(shard)?;
        if let Some((program, ..)) = runs.iter().find(|(program, ..)| *program >= executor.programs.len()) {
            return Err(CourseError::Batch(format!("a shard names program {program}, which this class does not have")));
        }
        let requests: Vec<grader::RunRequest<'_>> =
            runs.iter().map(|(program, input, fuel)| grader::RunRequest { program: *program, input, fuel: *fuel }).collect();
        Ok(encode_executions(&grader::run_here(executor, &requests)))
    }
}

/// Whose bug lists [`explain`] writes: the answers, the hand-ins they are (in the same
/// order: each student's own program, so that a copy's messages name its own lines), and
/// where the lists may be written besides here.
struct Explained<'a> {
    answers: &'a [Answer],
    submissions: &'a [crate::batch::Submission],
    elsewhere: Option<(&'a dyn crate::rounds::RunsElsewhere, [u8; 32])>,
}

/// Each answer's bug list as JSON, computed now so that a student's page costs nothing
/// (some here, some elsewhere when `explained` says where); then those whose sources did
/// not compile (their list is the compiler's message). A frozen re-run keeps an
/// unchanged answer's list.
#[allow(clippy::too_many_arguments)]
fn explain(
    tools: &Tools,
    problem_dir: &ProblemDir,
    problem: &grader::Problem,
    analysis: &Analysis,
    explained: &Explained<'_>,
    previous: Option<&Previous>,
    cancel: &AtomicBool,
    report: &(dyn Fn(Stage<'_>) + Sync),
) -> CourseResult<Vec<(String, String)>> {
    let unchanged = |id: &str| match (previous, &analysis.rerun) {
        (Some(previous), Some(rerun)) if previous.mode == RerunMode::Frozen && !rerun.changed.iter().any(|c| c == id) => previous.bug_lists.get(id),
        _ => None,
    };
    let answers = explained.answers;
    let total = answers.len();
    let kept: Vec<Option<&String>> = answers.iter().map(|a| unchanged(&a.id)).collect();
    let places: Vec<usize> = (0..total).filter(|&i| kept[i].is_none()).collect();
    let done = AtomicUsize::new(total - places.len());
    report(Stage::Explaining { explained: done.load(Ordering::Relaxed), total });
    let tick = || report(Stage::Explaining { explained: done.fetch_add(1, Ordering::Relaxed) + 1, total });
    let here = |places: &[usize]| bug_lists_here(tools, problem_dir, problem, analysis, explained.submissions, places, cancel, &tick);
    let made = match explained.elsewhere {
        Some((elsewhere, programs)) => elsewhere.bug_lists(&programs, &crate::rounds::encode_analysis(analysis)?, &places, &here),
        None => here(&places),
    };
    if cancel.load(Ordering::Relaxed) {
        return Err(GraderError::Cancelled.into());
    }
    let mut made = places.iter().zip(made).collect::<HashMap<_, _>>();
    let mut lists: Vec<(String, String)> =
        answers.iter().enumerate().map(|(i, answer)| (answer.id.clone(), made.remove(&i).or_else(|| kept[i].cloned()).unwrap_or_default())).collect();
    for a in analysis.answers.iter().filter(|a| a.not_built()) {
        lists.push((a.id.clone(), json(&own_bug_list(tools, problem_dir, problem, analysis, &a.id, None))));
    }
    Ok(lists)
}

/// The bug list of `id` in `analysis` (graded on `problem`, as [`problem_of`] gives it),
/// told by its own `program` (each failed test run once more: a crash names its own lines,
/// a copy's too), or, for a hand-in that did not compile (`None`), the compiler's message:
/// the step every bug list is made by, the pipeline's and `bugrank bugs`'s.
///
/// Panics when `id` is not in `analysis`.
pub fn own_bug_list(
    tools: &Tools,
    problem_dir: &ProblemDir,
    problem: &grader::Problem,
    analysis: &Analysis,
    id: &str,
    program: Option<&Program>,
) -> grader::BugList {
    let executor = problem_dir.executor(&tools.sandbox, program);
    bug_list(problem, analysis, id, 1, &executor).unwrap_or_else(|| panic!("`{id}` is not in the analysis"))
}

/// The bug lists (JSON) of `submissions` at `places` in `analysis`, each from the
/// student's own program, on the current rayon pool; `tick` after each. Empty lists once
/// `cancel` is set (the caller then gives up).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bug_lists_here(
    tools: &Tools,
    problem_dir: &ProblemDir,
    problem: &grader::Problem,
    analysis: &Analysis,
    submissions: &[crate::batch::Submission],
    places: &[usize],
    cancel: &AtomicBool,
    tick: &(dyn Fn() + Sync),
) -> Vec<String> {
    places
        .par_iter()
        .map(|&place| {
            if cancel.load(Ordering::Relaxed) {
                return String::new();
            }
            let submission = &submissions[place];
            let list = json(&own_bug_list(tools, problem_dir, problem, analysis, &submission.id, Some(&submission.program)));
            tick();
            list
        })
        .collect()
}

/// A bug list as JSON (plain strings and numbers: it always serialises).
fn json(list: &grader::BugList) -> String {
    serde_json::to_string(list).expect("a bug list serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{NotBuilt, Submission};

    /// A batch of `loaded` hand-ins, `not_built` ones and `not_reached` ones, by id.
    fn batch(loaded: &[&str], not_built: &[&str], not_reached: &[&str]) -> Batch<()> {
        let build = Build {
            language: "C".into(),
            toolchain: "clang".into(),
            sources: String::new(),
            warnings: String::new(),
            error: Some("took more than 60 s".into()),
            rules_broken: Vec::new(),
        };
        Batch {
            submissions: loaded.iter().map(|id| Submission { id: id.to_string(), file: id.to_string(), program: (), build: None }).collect(),
            not_built: not_built.iter().map(|id| NotBuilt { id: id.to_string(), file: id.to_string(), build: build.clone() }).collect(),
            rejected: Vec::new(),
            not_reached: not_reached.iter().map(|id| id.to_string()).collect(),
        }
    }

    #[test]
    fn a_batch_whose_compile_time_ran_out_is_not_graded_and_the_error_says_who_did_not_compile() {
        let error = compile_time_ran_out(&batch(&["a1"], &["a2"], &["a3", "a4"]), 4).to_string();
        assert!(
            error.contains(
                "took longer than its limit of 30 minutes, so nothing was graded: 2 of 4 hand-ins were compiled, 2 were not reached; 1 did not compile (a2)"
            ),
            "{error}"
        );
    }

    fn roster(ids: &[&str]) -> Vec<RosterRow> {
        ids.iter().map(|id| RosterRow { id: id.to_string(), cohort: "A".into(), manual: None, extra: Vec::new() }).collect()
    }

    #[test]
    fn the_roster_and_the_hand_ins_are_matched_both_ways_when_there_is_a_roster() {
        let graded = batch(&["a1", "a2"], &["a3"], &[]);
        let refused = [Rejected { file: "a5.wasm".into(), reason: "broken".into(), id: Some("a5".into()) }];
        assert_eq!(
            roster_warnings(&graded, Some(&roster(&["a1", "a3", "a4", "a5"])), &refused),
            ["submission `a2` has no roster row: graded without a cohort", "roster row `a4` has no submission"]
        );
        assert!(roster_warnings(&graded, None, &refused).is_empty(), "no roster, nothing to say");
    }
}
