//! The demo data of a first start: the fixture problems with their cohorts as batches,
//! released, with student links, and the first problem's analysis already run, so that a
//! new user sees a ranking at once.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::App;
use super::db::{AnalysisSettings, Status};
use super::upload::{keep, submissions};
use course::hand_ins::{hand_ins, read_batch_dir};
use course::intake::{RosterGiven, check_upload};
use course::problem_dir::{PROBLEM_FILES, ProblemDir};
use course::roster::UploadKind;

/// The demo problem graded before the service opens: the quickest of the three.
const FIRST_ANALYSED: &str = "interval-sets";

/// Loads the problems under `problems` with their cohorts, and queues the first one's
/// analysis; with `wait`, returns once it is done (this process runs it).
pub fn load(app: &App, problems: &Path, wait: bool) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(problems) else {
        println!("no demo data: {} does not exist", problems.display());
        return Ok(());
    };
    let mut dirs: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("problem.toml").is_file()).collect();
    dirs.sort();
    let mut first = None;
    for dir in dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let stored = app.store.new_problem_dir(&name)?;
        for file in PROBLEM_FILES {
            if dir.join(file).is_file() {
                std::fs::copy(dir.join(file), stored.join(file)).with_context(|| format!("cannot copy {}", dir.join(file).display()))?;
            }
        }
        let problem = ProblemDir::load(&app.tools.sandbox, &app.tools.builder, &stored)?;
        app.publish(&stored)?;
        let problem_id = app.db.add_problem(&name, &problem.toml.title, &app.store.relative(&stored), true)?;

        // The cohort, and its Python twin where there is one (the same bugs, handed in as
        // Python sources): each a class of its own.
        for (folder, course, kind) in [
            ("submissions", format!("Demo: {}", problem.toml.title), "demo cohort"),
            ("submissions-python", format!("Demo: {} in Python", problem.toml.title), "demo cohort in Python"),
        ] {
            if !dir.join(folder).is_dir() {
                continue;
            }
            let files = hand_ins(read_batch_dir(&dir.join(folder))?, false);
            let roster = std::fs::read(dir.join("roster.csv")).ok().map(|bytes| ("roster.csv".to_owned(), bytes));
            let roster = roster.map_or(RosterGiven::None, RosterGiven::File);
            let report = check_upload(&app.tools, &format!("{} ({kind})", problem.toml.title), &problem.accepted, files, Vec::new(), roster, UploadKind::Batch)
                .map_err(super::AppError::from)
                .and_then(|checked| keep(app, checked))
                .map_err(|e| anyhow::anyhow!("demo batch of {name}: {e}"))?;
            // The paper's three cohorts are three classes: `a01` of one is not `a01` of another.
            let batch = app.db.add_batch(problem_id, &course, &report.name, &submissions(&report), &report.roster)?;
            app.db.set_released(batch, true)?;
            if name == FIRST_ANALYSED && folder == "submissions" {
                first = Some((batch, stored.clone()));
            }
        }
    }
    for student in app.db.students()? {
        app.db.set_student_token(student.course_id, &student.student, Some(&super::auth::random_token()))?;
    }
    if let Some((batch, dir)) = first {
        let id = app.db.queue_analysis(batch, &app.store.relative(&dir), AnalysisSettings { seed: 1, ..Default::default() })?;
        app.jobs.notify();
        if !wait {
            println!("demo data loaded; the {FIRST_ANALYSED} batch is queued for a worker");
            return Ok(());
        }
        println!("demo data loaded; grading the {FIRST_ANALYSED} batch once (a few seconds)...");
        loop {
            let status = app.db.analysis(id)?.map(|a| a.status);
            match status {
                Some(Status::Queued | Status::Running) => std::thread::sleep(Duration::from_millis(100)),
                Some(Status::Done) => break,
                other => anyhow::bail!("the demo analysis ended {other:?}"),
            }
        }
    }
    Ok(())
}
