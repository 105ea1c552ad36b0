//! An analysis: its page (progress, ranking, diagram, suite, bug lists, grade changes,
//! stability), its files, cancelling it, a stability check.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use grader::{Analysis, BugList, GradeChange, RerunMode, Stability, changed_since, grade_changes, stability};
use maud::{Markup, PreEscaped, html};
use serde::{Deserialize, Serialize};

use super::super::auth::Instructor;
use super::super::db::{AnalysisRow, BatchRow, QueueEntry, Status};
use super::super::worker::EXPRESS_ANSWERS;
use super::super::worker::LiveProgress;
use super::super::{App, AppError, Page};
use super::forms::{MAX_STABILITY_SEEDS, form_again, show_analysis_form, stability_form};
use super::layout::{bug_list, button, first_ids, table_filter};
use course::exports;
use course::outputs::{Class, ClassFile};
use present::list_or_none;

use super::{AppData, CsrfForm, found, is_api, number, respond, see_other, status_word};
#[derive(Serialize)]
pub(super) struct AnalysisView {
    analysis: AnalysisRow,
    batch: BatchRow,
    progress: Option<LiveProgress>,
    result: Option<Arc<Analysis>>,
    bug_lists: Vec<BugList>,
    /// Every grade that differs from the previous finished analysis of the batch, with why.
    changes: Vec<GradeChange>,
    /// The stability check of this analysis, once asked for.
    stability: Option<StabilityView>,
    /// Each student's cohort in the batch's roster now (it may have been attached or
    /// replaced since the analysis ran; it wins over the cohort the analysis recorded).
    cohorts: HashMap<String, String>,
    /// Each answer's grade: its points with the instructor's adjustment.
    grades: HashMap<String, f64>,
    /// Each student's name, from the batch's roster.
    names: HashMap<String, String>,
    /// While this analysis waits: every analysis queued or running, first queued first.
    queue: Vec<QueueEntry>,
    /// Where the Canvas gradebook file's grades land: the assignment columns of the
    /// batch's roster when it is Canvas's gradebook export (the instructor picks one when
    /// there are several), and the students Canvas could not match (no Canvas or SIS id).
    canvas_assignments: Vec<String>,
    canvas_unmatched: Vec<String>,
    /// The roster's students who handed in nothing (every export lists them).
    no_hand_in: Vec<String>,
}

/// A stability check: this analysis and others of the same answers with other seeds.
#[derive(Serialize)]
struct StabilityView {
    /// The other seeds' analyses, and how many of them are done.
    runs: usize,
    done: usize,
    failed: usize,
    /// Once every run is done: the comparison over this analysis and them.
    result: Option<Stability>,
}

fn stability_view(app: &App, current: &Analysis, id: i64) -> Result<Option<StabilityView>, AppError> {
    let runs = app.db.stability_runs(id)?;
    if runs.is_empty() {
        return Ok(None);
    }
    let done: Vec<&AnalysisRow> = runs.iter().filter(|r| r.status == Status::Done).collect();
    let failed = runs.iter().filter(|r| matches!(r.status, Status::Failed | Status::Cancelled)).count();
    let mut result = None;
    if done.len() == runs.len() {
        let mut analyses = vec![current.clone()];
        for run in &done {
            analyses.push((*app.analysis(run.id)?).clone());
        }
        result = Some(stability(&analyses));
    }
    Ok(Some(StabilityView { runs: runs.len(), done: done.len(), failed, result }))
}

fn analysis_view(app: &App, id: i64) -> Result<AnalysisView, AppError> {
    let analysis = found(app.db.analysis(id)?)?;
    let batch = found(app.db.batch(analysis.batch_id)?)?;
    let progress = match analysis.status {
        Status::Running => app.jobs.progress(id).or_else(|| app.db.progress(id).ok().flatten().and_then(|p| serde_json::from_str(&p).ok())),
        _ => None,
    };
    let (mut result, mut bug_lists, mut changes, mut stability) = (None, Vec::new(), Vec::new(), None);
    if analysis.status == Status::Done {
        let current = app.analysis(id)?;
        // One query for the whole class, in the analysis's answer order.
        let mut lists: HashMap<String, String> = app.db.bug_lists(id)?.into_iter().collect();
        for a in &current.answers {
            if let Some(list) = lists.remove(&a.id) {
                bug_lists.push(serde_json::from_str(&list).map_err(anyhow::Error::from)?);
            }
        }
        // A re-run recorded its changes against its previous analysis; only an analysis
        // older than re-runs needs them worked out here.
        changes = match (&current.rerun, analysis.previous_id) {
            (Some(rerun), _) => rerun.grade_changes.clone(),
            (None, Some(previous)) => {
                let previous = app.analysis(previous)?;
                let versions = current.answers.iter().map(|a| (a.id.as_str(), a.version.as_str()));
                grade_changes(&previous, &current, &changed_since(&previous, versions))
            }
            (None, None) => Vec::new(),
        };
        stability = stability_view(app, &current, id)?;
        result = Some(current);
    }
    let cohorts = app.db.roster(batch.id)?.into_iter().map(|r| (r.id, r.cohort)).collect();
    // The grades every export gives: the points with the instructor's adjustments.
    let graded = app.db.graded_roster(batch.id)?;
    let grades = result.as_ref().map_or_else(HashMap::new, |result| exports::grades(result, &graded));
    let names = graded.iter().filter_map(|r| Some((r.id.clone(), r.name()?))).collect();
    let queue = if analysis.status == Status::Queued { app.db.queue()? } else { Vec::new() };
    let canvas_assignments = exports::canvas_assignments(&graded);
    let canvas_unmatched = result.as_ref().map_or_else(Vec::new, |result| exports::canvas_unmatched(result, &graded));
    let no_hand_in = result.as_ref().map_or_else(Vec::new, |result| exports::without_hand_in(result, &graded).into_iter().map(|r| r.id.clone()).collect());
    Ok(AnalysisView {
        analysis,
        batch,
        progress,
        result,
        bug_lists,
        changes,
        stability,
        cohorts,
        grades,
        names,
        queue,
        canvas_assignments,
        canvas_unmatched,
        no_hand_in,
    })
}

pub(super) async fn analysis_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let id = path.into_inner();
    let view = analysis_view(&app, id)?;
    // Drawn from the result each time, so that analyses finished before a better drawing
    // get it too.
    let svg = match &view.result {
        Some(result) if !is_api(&req) => Some(present::order_svg(result)),
        _ => None,
    };
    let title = format!("Analysis #{id} of {}", view.batch.name);
    respond(&req, Some(&who), &title, &view, |v| analysis_body(&who, v, svg))
}

/// What runs and what waits before analysis `id`, and when it will start.
fn queue_said(id: i64, queue: &[QueueEntry]) -> Markup {
    let entry = |e: &QueueEntry| html! { a href={ "/analyses/" (e.analysis) } { "analysis " (e.analysis) } " of " (e.batch) " (" (e.answers) " hand-ins" @if let Some(holder) = &e.holder { ", on " (holder) } ")" };
    let running: Vec<&QueueEntry> = queue.iter().filter(|e| e.running).collect();
    let before: Vec<&QueueEntry> = queue.iter().filter(|e| !e.running && e.analysis < id).collect();
    let small = queue.iter().find(|e| e.analysis == id).is_some_and(|e| e.answers <= EXPRESS_ANSWERS);
    html! {
        @if !running.is_empty() { p { "Running now: " @for (i, e) in running.iter().enumerate() { @if i > 0 { "; " } (entry(e)) } "." } }
        @if !before.is_empty() { p { "Waiting before this one: " @for (i, e) in before.iter().enumerate() { @if i > 0 { "; " } (entry(e)) } "." } }
        p.muted { @if small {
            "A batch of at most " (EXPRESS_ANSWERS) " hand-ins has a worker of its own beside the others: this one starts as soon as it or another worker is free."
        } @else {
            "Analyses start in the order they were queued; a batch of at most " (EXPRESS_ANSWERS) " hand-ins does not wait for them (it has a worker of its own)."
        } }
    }
}

fn analysis_body(who: &Instructor, v: &AnalysisView, svg: Option<String>) -> Markup {
    let id = v.analysis.id;
    html! {
        p { "Batch " a href={ "/batches/" (v.batch.id) } { (v.batch.name) } " · problem " (v.batch.problem) " · seed " (v.analysis.seed)
            @if let Some(n) = v.analysis.stable_after { " · stop once " (n) " tests in a row find no new bug" } @if let Some(f) = v.analysis.fuel_factor { " · at most " (f) " times the model answer's work" }
            " · " strong #status { (status_word(v.analysis.status)) } }
        @if matches!(v.analysis.status, Status::Queued | Status::Running) {
            div.card #live data-analysis=(id) {
                @match v.progress.as_ref().and_then(|p| p.percent) {
                    Some(percent) => progress #bar max="100" value=(percent) {},
                    None => progress #bar max="100" {},
                }
                p #phase { @match &v.progress {
                    None => "waiting for a worker",
                    Some(p) => { (p.text) @if let Some(left) = &p.remaining { " · " (left) } },
                } }
                @if !v.queue.is_empty() { (queue_said(id, &v.queue)) }
                (button(who, &format!("/analyses/{id}/cancel"), "Cancel"))
            }
        }
        @if let Some(error) = &v.analysis.error { p.bad { "The analysis failed: " (error) } }
        @if let Some(result) = &v.result { (results(who, v, result, svg)) }
    }
}

/// The more random tests the completeness advice speaks of: a number an instructor can
/// picture, some minutes of a large class's search.
const ADVICE_TESTS: u64 = 1_000;

/// Where the Canvas gradebook file's grades land, said before it is downloaded: the
/// assignment (a choice when the roster, Canvas's export, has several), the points scale
/// Canvas takes them on, and the students Canvas cannot match.
fn canvas_said(v: &AnalysisView, result: &Analysis) -> Markup {
    let max = exports::points_possible(result);
    let unmatched = &v.canvas_unmatched;
    html! {
        @if v.canvas_assignments.len() > 1 {
            form #canvas method="get" action={ "/analyses/" (v.analysis.id) "/files/canvas.csv" } {
                label { "Canvas gradebook into the assignment "
                    select name="assignment" { @for a in &v.canvas_assignments { option value=(a) { (a) } } } }
                " " button type="submit" { "Download" }
            }
        }
        p.muted {
            @if v.canvas_assignments.is_empty() {
                "The Canvas gradebook file has a column named after the batch (" code { (v.batch.name) } "), which Canvas imports as a new assignment: to fill an assignment Canvas already has, attach Canvas's own gradebook export (Grades, Export) as the batch's roster. "
            } @else {
                "The Canvas gradebook file keeps the header of Canvas's own export, so the grades land in that assignment. "
            }
            "Canvas takes the points as they are, of " (max) ": the assignment should be worth " (max) " points in Canvas (or set the maximum of the analysis to the assignment's)."
        }
        @if !v.no_hand_in.is_empty() {
            p #no-hand-in {
                (v.no_hand_in.len()) " students on the roster handed in nothing (" (first_ids(&v.no_hand_in)) "): every file gives them "
                (v.batch.no_hand_in.in_words()) ". " a href={ "/batches/" (v.batch.id) "#no-hand-in" } { "Change this on the batch's page" } "."
            }
        }
        @if !unmatched.is_empty() {
            @let class = result.answers.len() + v.no_hand_in.len();
            p.bad #canvas-unmatched {
                @if unmatched.len() == class { "Canvas would match nobody: " } @else { "Canvas cannot match " (unmatched.len()) " of " (class) " students: " }
                "the roster gives no Canvas ID or SIS id for " (list_or_none(unmatched)) ". Attach Canvas's gradebook export as the roster (or give the columns "
                code { "canvas_id" } ", " code { "sis_user_id" } " or " code { "sis_login_id" } ") before importing."
            }
        }
    }
}

fn percent_text(p: Option<f64>) -> String {
    p.map_or("–".to_owned(), |p| format!("{p:.1}%"))
}

pub(super) fn results(who: &Instructor, v: &AnalysisView, result: &Analysis, svg: Option<String>) -> Markup {
    let id = v.analysis.id;
    html! {
        @if let (Some(shown), None) = (v.batch.shown(), v.analysis.stability_of) {
            @if shown == id {
                p.ok #released { "The batch's students see this analysis." }
            } @else {
                p #released { "The batch's students see " a href={ "/analyses/" (shown) } { "analysis #" (shown) } ", not this one. "
                    (show_analysis_form(who, v.batch.id, id)) }
            }
        }
        p { (result.tests_generated) " tests generated, " (result.executions) " runs; the suite has " strong { (result.scored_tests()) " tests" } ", one per inferred bug." }
        @if let Some(completeness) = result.completeness_in_words() { p.muted { "How complete the search is: " (completeness) "." } }
        @if let Some(estimate) = result.completeness.as_ref().filter(|_| !result.generator_exhausted) { p #search-advice { (estimate.advice(ADVICE_TESTS)) } }
        p { "Download: "
            @for (i, (file, label)) in [("scores.csv", "scores.csv"), ("canvas.csv", "Canvas gradebook"), ("moodle.csv", "Moodle import"), ("analysis.json", "analysis.json"), ("order.dot", "order.dot"), ("order.svg", "order.svg"), ("report.html", "report (HTML)")].into_iter().enumerate() {
                @if i > 0 { " · " }
                @if file == "canvas.csv" && v.canvas_assignments.len() == 1 {
                    a href={ "/analyses/" (id) "/files/canvas.csv?assignment=" (form_urlencoded::byte_serialize(v.canvas_assignments[0].as_bytes()).collect::<String>()) } { (label) " (into " (v.canvas_assignments[0]) ")" }
                } @else if file == "canvas.csv" && v.canvas_assignments.len() > 1 {
                    a href="#canvas" { (label) " (choose the assignment below)" }
                } @else {
                    a href={ "/analyses/" (id) "/files/" (file) } { (label) }
                }
            }
        }
        (canvas_said(v, result))
        @if result.reference_failures + result.checker_failures > 0 {
            div.card.bad { "The problem's own programs failed on " (result.reference_failures + result.checker_failures) " generated tests (set aside, never counted against a student)." }
        }
        @if let Some(previous) = v.analysis.previous_id {
            h2 { "Changes since analysis #" (previous) }
            @match result.rerun.as_ref().map(|r| r.mode) {
                Some(RerunMode::Frozen) => p { "Graded against the suite of analysis #" (previous) ", kept as it was: only the submissions that changed since were run ("
                    (list_or_none(result.rerun.as_ref().map_or(&[][..], |r| &r.changed[..]))) "). Every other student keeps their score and test ids; a test added for a resubmission counts against it alone." },
                Some(RerunMode::Full) => p { "Analysed again in full: the suite was built afresh (tests whose input was kept keep their id), so a grade can move with the suite as well as with a student's own program. Every change is listed with why." },
                None => {},
            }
            @if v.changes.is_empty() { p { "No score changed." } } @else {
                table { tr { th { "Student" } th { "Before" } th { "After" } th { "Why" } }
                    @for c in &v.changes { tr { td { (c.id) } td.num { (percent_text(c.before)) } td.num { (percent_text(c.after)) } td { (c.why.join("; ")) } } } }
            }
        }
        (stability_card(who, v))
        h2 { "Ranking" }
        p.muted { strong { "Points" } " is the grade (what every export gives): earned by the program on the grading sample, the same whoever else handed in. "
            strong { "Rank" } ", " strong { "Passed" } " and " strong { "%" } " compare each program with this class (the paper's score against the class's suite): they move when the class does." }
        (table_filter("ranking", "students"))
        (PreEscaped(present::ranking_table_html(result, &present::Ranking { sortable_id: Some("ranking"), cohorts: Some(&v.cohorts), grades: Some(&v.grades), names: Some(&v.names), bug_links: true, code_links: Some(&format!("/batches/{}/sources/", v.batch.id)) })))
        h2 { "Correctness order" }
        p.muted { "Each box is a class of answers that pass the same tests; an arrow goes from a class to one that passes strictly fewer, labelled with a test that tells them apart (its input is in the suite below, and shown when you point at the arrow)." }
        @if let Some(svg) = svg { div.diagram { (PreEscaped(svg)) } }
        details { summary { "The same order as a table" } (PreEscaped(present::order_table_html(result))) }
        h2 { "The test suite" }
        @if !result.course_tests.is_empty() { p.muted { (present::course_tests_in_words(result)) } }
        (PreEscaped(present::suite_table_html(result)))
        h2 { "Bug lists" }
        @for list in &v.bug_lists {
            details id={ "bugs-" (list.answer) } { summary { strong { (list.answer) } " · " (list.headline()) } (bug_list(list)) }
        }
    }
}

fn stability_card(who: &Instructor, v: &AnalysisView) -> Markup {
    let id = v.analysis.id;
    html! {
        div.card #stability {
            h3 { "Stability check" }
            @match &v.stability {
                None => {
                    p { "Does a grade depend on the seed of the random search? Analyse the same submissions with other seeds and compare: each student's spread of scores, and the bugs only some seeds find." }
                    (stability_form(who, id))
                }
                Some(check) => @match &check.result {
                    None => p { (check.done) " of " (check.runs) " analyses with other seeds done"
                        @if check.failed > 0 { " (" span.bad { (check.failed) " failed or cancelled" } ")" } "; reload to see the comparison." },
                    Some(s) => {
                        p { "Over seeds " (v.analysis.seed) " to " (v.analysis.seed + check.runs as u64) ": the correctness order "
                            @if s.order_unchanged { strong.ok { "is the same" } } @else { strong.bad { "changes" } }
                            "; suites of " (s.suite_sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")) " tests; "
                            "failed tests vary by a standard deviation of " (format!("{:.2}", s.average_deviation)) " on average, "
                            (format!("{:.2}", s.maximum_deviation)) " at most (Paper III asks at most 0.15)." }
                        @let varying: Vec<_> = s.ranks.iter().filter(|r| r.deviation > 0.0).collect();
                        @if varying.is_empty() { p.ok { "Every student fails the same number of tests whatever the seed." } } @else {
                            table { tr { th { "Student" } th { "Failed tests per seed" } th { "Std dev" } th { "Score range" } }
                                @for r in &varying { tr { td { (r.answer) } td { (r.failed.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")) }
                                    td.num { (format!("{:.2}", r.deviation)) }
                                    td { (format!("{:.1}% to {:.1}%", r.percent_range.0, r.percent_range.1)) } } } }
                        }
                        @if !s.varying_bugs.is_empty() {
                            p { "Bugs only some seeds find (why the scores above vary):" }
                            table { tr { th { "Found by" } th { "Students failing it" } th { "Example input" } }
                                @for b in &s.varying_bugs { tr { td.num { (b.runs) "/" (check.runs + 1) } td { (b.failing.join(" ")) } td { code { (b.example) } } } } }
                        }
                    }
                },
            }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct StabilityForm {
    csrf: Option<String>,
    seeds: Option<String>,
}

pub(super) async fn queue_stability(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<StabilityForm>) -> Page {
    let analysis = found(app.db.analysis(path.into_inner())?)?;
    let id = analysis.id;
    let result = queue_seeds(&app, &req, &who, analysis, &form);
    form_again(&req, &who, "The stability check was not queued", result, || stability_form(&who, id))
}

fn queue_seeds(app: &App, req: &HttpRequest, who: &Instructor, analysis: AnalysisRow, form: &StabilityForm) -> Page {
    who.check_csrf(req, form.csrf.as_deref())?;
    if analysis.status != Status::Done || analysis.stability_of.is_some() {
        return Err(AppError::BadRequest(format!("analysis #{} is not a finished analysis of its batch", analysis.id)));
    }
    if !app.db.stability_runs(analysis.id)?.is_empty() {
        return Err(AppError::BadRequest(format!("analysis #{} already has a stability check", analysis.id)));
    }
    let seeds = number(&form.seeds, "the number of seeds")?.unwrap_or(4);
    if !(2..=MAX_STABILITY_SEEDS).contains(&seeds) {
        return Err(AppError::BadRequest(format!("check with 2 to {MAX_STABILITY_SEEDS} other seeds, not {seeds}")));
    }
    app.db.queue_stability(&analysis, seeds)?;
    app.jobs.notify();
    see_other(&format!("/analyses/{}#stability", analysis.id))
}

pub(super) async fn cancel_analysis(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let analysis = found(app.db.analysis(path.into_inner())?)?;
    // Here at once if this process runs it; through the store for any process.
    let here = app.jobs.cancel(analysis.id);
    if !app.db.cancel_queued(analysis.id)? && !app.db.request_cancel(analysis.id)? && !here {
        return Err(AppError::BadRequest(format!("analysis #{} is not running (it is {})", analysis.id, status_word(analysis.status))));
    }
    see_other(&format!("/analyses/{}", analysis.id))
}

/// The query of a Canvas gradebook file: the assignment column its grades go into.
#[derive(Deserialize)]
pub(super) struct CanvasQuery {
    assignment: Option<String>,
}

/// The header of the Canvas gradebook file's grade column: the assignment `asked` for, one
/// of the roster's (Canvas's export's) assignments; its only one when none is asked; the
/// batch's name when the roster has none (Canvas then makes a new assignment).
fn canvas_column(assignments: &[String], asked: Option<&str>, batch: &str) -> Result<String, AppError> {
    match (asked, assignments) {
        (Some(asked), _) if assignments.iter().any(|a| a == asked) => Ok(asked.to_owned()),
        (Some(asked), []) => Err(AppError::BadRequest(format!("the roster is not Canvas's gradebook export, so it has no assignment `{asked}`"))),
        (Some(asked), _) => Err(AppError::BadRequest(format!("the roster's Canvas export has no assignment `{asked}`: it has {}", list_or_none(assignments)))),
        (None, []) => Ok(batch.to_owned()),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(AppError::BadRequest(format!("choose the Canvas assignment the grades go into: {}", list_or_none(assignments)))),
    }
}

pub(super) async fn analysis_file(app: AppData, _who: Instructor, path: web::Path<(i64, String)>, query: web::Query<CanvasQuery>) -> Page {
    let (id, file) = path.into_inner();
    let row = found(app.db.analysis(id)?)?;
    if row.status != Status::Done {
        return Err(AppError::NotFound);
    }
    let batch = found(app.db.batch(row.batch_id)?)?;
    let analysis = app.analysis(id)?;
    let (content_type, body) = match ClassFile::named(&file) {
        Some(class_file) => {
            let roster = app.db.graded_roster(batch.id)?;
            let column = match class_file {
                ClassFile::Canvas => canvas_column(&exports::canvas_assignments(&roster), query.assignment.as_deref(), &batch.name)?,
                _ => batch.name.clone(),
            };
            let class = Class { analysis: &analysis, roster: &roster, no_hand_in: batch.no_hand_in, column: &column };
            (class_file.content_type(), class_file.render(&class)?)
        }
        None if file == "analysis.json" => ("application/json", std::fs::read(app.analysis_dir(id)?.join(&file)).map_err(anyhow::Error::from)?),
        None => return Err(AppError::NotFound),
    };
    Ok(HttpResponse::Ok()
        .content_type(format!("{content_type}; charset=utf-8"))
        .insert_header(("Content-Disposition", format!("attachment; filename=\"analysis-{id}-{file}\"")))
        .body(body))
}
