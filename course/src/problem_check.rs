//! Whether a problem is ready for a class: its parts build, the reference agrees with the
//! course's tests, and its examples (`submissions/correct…` must pass every input,
//! `submissions/buggy…` fail some; `wrong…`, `slow…` and `crash…` fail some by a wrong
//! output, a timeout or a crash, as a judge package's submissions do) behave as their
//! names say ([`grader::check_problem`]). `bugrank check-problem` prints it; the
//! service checks an uploaded bundle with it before it becomes a problem.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};

use grader::{Check, Example, Expect, FailureKind, ProblemCheck};
use sandbox::Sandbox;
use toolchain::Builder;

use crate::CourseResult;
use crate::batch::Batch;
use crate::executor::SandboxExecutor;
use crate::hand_in::HandIn;
use crate::hand_ins::{accept_languages, hand_ins, read_batch_dir};
use crate::problem_dir::ProblemDir;

/// What a problem's example submission `id` must do, by the start of its name: pass every
/// input (`correct…`), fail none but by running out of time (`slowcorrect…`: a judge's
/// `slow_accepted` submission), fail some (`buggy…`), or fail some by a wrong output
/// (`wrong…`), by running out of time (`slow…`) or by crashing (`crash…`); `None` for any
/// other id, which is not an example.
pub fn example_expectation(id: &str) -> Option<Expect> {
    let prefixes = [
        // (Before `slow`, which it starts with.)
        ("slowcorrect", Expect::PassOrTimeout),
        ("correct", Expect::Pass),
        ("buggy", Expect::Fail),
        ("wrong", Expect::FailAs(FailureKind::Wrong)),
        ("slow", Expect::FailAs(FailureKind::Timeout)),
        ("crash", Expect::FailAs(FailureKind::Crash)),
    ];
    prefixes.into_iter().find(|(prefix, _)| id.starts_with(prefix)).map(|(_, expect)| expect)
}

/// A check followed from outside it (the service's, which shows its progress and stops it
/// past its time).
#[derive(Debug, Default)]
pub struct CheckWatch {
    /// Set from outside: the check's programs stop running.
    pub stop: AtomicBool,
    /// The runs the check has made so far (the generator's, the programs' and the
    /// checker's).
    pub runs: AtomicU64,
}

/// Builds the problem in `dir` and checks it, with the examples of `dir/submissions`
/// (only those [`example_expectation`] names are built, in the languages the problem accepts; an
/// example that does not compile, or in another language, fails its check).
///
/// With a `watch`, the check counts its runs there, and once its `stop` is set no program
/// runs any more (each run ends at once as a timeout), so that a check past its time ends
/// within the runs in flight.
pub fn run_check_problem(sandbox: &Sandbox, builder: &Builder, dir: &Path, watch: Option<&CheckWatch>) -> CourseResult<(ProblemDir, ProblemCheck)> {
    let problem_dir = ProblemDir::load(sandbox, builder, dir)?;
    let examples_dir = dir.join("submissions");
    let files = if examples_dir.is_dir() { read_batch_dir(&examples_dir)? } else { Vec::new() };
    let examples: Vec<HandIn> = hand_ins(files, false).into_iter().filter(|h| h.id.as_deref().and_then(example_expectation).is_some()).collect();
    let batch = Batch::from_hand_ins(sandbox, builder, &problem_dir.accepted, &accept_languages(examples, &problem_dir.toml.languages));
    let mut programs = Vec::new();
    let mut examples = Vec::new();
    for submission in &batch.submissions {
        if let Some(expect) = example_expectation(&submission.id) {
            programs.push(&submission.program);
            examples.push(Example { id: submission.id.clone(), program: programs.len(), expect });
        }
    }
    // A Python reference beside the reference must be one too: it sets Python answers'
    // budgets, and is checked as a correct example is.
    let python = problem_dir.python_reference.program(sandbox);
    if let Some(Ok(python)) = python {
        programs.push(python);
        examples.push(Example { id: "reference.py".to_owned(), program: programs.len(), expect: Expect::Pass });
    }
    let executor = SandboxExecutor { cancel: watch.map(|w| &w.stop), runs_made: watch.map(|w| &w.runs), ..problem_dir.executor(sandbox, programs) };
    let mut report = grader::check_problem(&problem_dir.problem(), &executor, &examples);
    if let Some(Err(message)) = python {
        report.checks.push(Check { what: "reference.py compiles".to_owned(), passed: false, detail: message.to_owned() });
    }
    for not_built in &batch.not_built {
        let message = not_built.build.error.clone().unwrap_or_default();
        report.checks.push(Check { what: format!("the example `{}` compiles", not_built.id), passed: false, detail: message });
    }
    for rejected in &batch.rejected {
        report.checks.push(Check { what: format!("the example {} can be graded", rejected.file), passed: false, detail: rejected.reason.clone() });
    }
    Ok((problem_dir, report))
}
