//! Batches: the list, a batch's page, renaming, deleting, attaching a roster, queueing an
//! analysis, releasing to students, and students' own hand-ins: a batch's hand-in window
//! (open, deadline, minutes between hand-ins, late policy, analysis at the deadline), a new
//! batch opened to hand-ins with no file yet, and who handed in with each pre-check.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, web};
use grader::RerunMode;
use maud::{Markup, html};
use serde::{Deserialize, Serialize};

use super::super::auth::Instructor;
use super::super::auth::random_token;
use super::super::db::{AnalysisRow, AnalysisSettings, BatchRow, HandInRow, PreCheckStatus, ProblemRow, Status, SubmissionRow, WindowRow, now};
use super::super::hand_ins::queue_due_analyses;
use super::super::lti::grades;
use super::super::upload::Form;
use super::super::{App, AppError, Page};
use super::forms::{
    BatchForm, WindowForm, adjustment_form, batch_form, form_again, late_form, name_field, open_batch_form, rename_form, roster_form, run_form,
    show_analysis_form, window_form,
};
use super::layout::{csrf_field, date, first_ids, table_filter};
use course::exports::{self, NoHandIn};
use course::hand_in_window::{HandInWindow, span_in_words};
use course::roster::{Adjustment, RosterRow};

use super::{AppData, CsrfForm, blocking, found, number, problem_toml, respond, see_other, status_word};
#[derive(Serialize)]
struct BatchSummary {
    batch: BatchRow,
    submissions: usize,
    latest: Option<AnalysisRow>,
    /// The analysis students see ([`BatchRow::shown`]).
    shown: Option<i64>,
    /// The latest finished analysis, when it is not the one they see (it waits for release).
    waiting: Option<i64>,
}

#[derive(Serialize)]
struct BatchesView {
    batches: Vec<BatchSummary>,
    /// For the new batch form.
    problems: Vec<ProblemRow>,
    courses: Vec<String>,
}

pub(super) async fn batches_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let (mut counts, mut latest) = (app.db.submission_counts()?, app.db.latest_analyses()?);
    let batches = app
        .db
        .batches()?
        .into_iter()
        .map(|batch| {
            let (latest, done) = latest.remove(&batch.id).map_or((None, None), |(row, done)| (Some(row), done));
            let waiting = done.filter(|&done| batch.shown().is_some_and(|shown| shown != done));
            BatchSummary { submissions: counts.remove(&batch.id).unwrap_or(0), latest, shown: batch.shown(), waiting, batch }
        })
        .collect();
    let view = BatchesView { batches, problems: app.db.problems()?, courses: app.db.courses()? };
    respond(&req, Some(&who), "Batches", &view, |v| {
        let form = BatchForm { problems: &v.problems, problem: None, courses: &v.courses, name: "", course: None, chosen: None };
        html! {
            @if v.batches.is_empty() {
                p { "No batch yet: upload one below." }
                (batch_form(&who, &form))
            } @else {
                p { a href="#new-batch" { "New batch" } }
            }
            @if v.batches.len() > 1 { (table_filter("batches", "batches")) }
            table.sortable #batches {
                tr { th { "Batch" } th { "Problem" } th { "Submissions" } th { "Latest analysis" } th { "Students see" } }
                @for b in &v.batches {
                    tr {
                        td { a href={ "/batches/" (b.batch.id) } { (b.batch.name) } }
                        td { a href={ "/problems/" (b.batch.problem_id) } { (b.batch.problem) } }
                        td.num { (b.submissions) }
                        td { @if let Some(a) = &b.latest { a href={ "/analyses/" (a.id) } { "#" (a.id) " " (status_word(a.status)) } } @else { span.muted { "none" } } }
                        td { (students_see(b.batch.released, b.shown))
                            @if let Some(waiting) = b.waiting { " " span.bad { "(#" (waiting) " waits for release)" } } }
                    }
                }
            }
            @if !v.batches.is_empty() { (batch_form(&who, &form)) }
            (open_batch_form(&who, &v.problems, &v.courses))
        }
    })
}

/// What the students of a batch see now, in a few words.
fn students_see(released: bool, shown: Option<i64>) -> Markup {
    html! {
        @match (released, shown) {
            (true, Some(analysis)) => { "their results of " a href={ "/analyses/" (analysis) } { "#" (analysis) } }
            (true, None) => span.muted { "nothing yet: released, but no analysis has finished" }
            (false, _) => span.muted { "nothing: not released" }
        }
    }
}

#[derive(Serialize)]
struct BatchView {
    batch: BatchRow,
    submissions: Vec<SubmissionRow>,
    roster: Vec<RosterRow>,
    analyses: Vec<AnalysisRow>,
    /// The analysis students see, once the batch is released ([`BatchRow::shown`]).
    shown: Option<i64>,
    /// A finished analysis after the one shown, which waits for the instructor.
    waiting: Option<Waiting>,
    /// The maximum of points the next analysis grades on: the latest analysis's, else the
    /// problem's.
    max_points: f64,
    /// The instructor's adjustments of points, by student.
    adjustments: Vec<(String, Adjustment)>,
    /// How many of the batch's students have a private link.
    linked: usize,
    /// The batch's students: those who handed in, and the roster's who did not.
    students: usize,
    /// The roster's students with no submission in the batch, in the roster's order.
    without_hand_in: Vec<RosterRow>,
}

/// A finished analysis students do not see yet (a re-run after the one released), and the
/// grades it would change: `(student, now, with it)`, a grade absent where the analysis did
/// not grade the student.
#[derive(Serialize)]
struct Waiting {
    analysis: i64,
    changes: Vec<(String, Option<f64>, Option<f64>)>,
}

/// What releasing analysis `waiting` instead of `shown` changes in the batch's grades.
fn waiting(app: &App, batch: &BatchRow, shown: i64, waiting: i64) -> Result<Waiting, AppError> {
    let roster = app.db.graded_roster(batch.id)?;
    let (now, then) = (exports::grades(&*app.analysis(shown)?, &roster), exports::grades(&*app.analysis(waiting)?, &roster));
    let mut students: Vec<&String> = now.keys().chain(then.keys()).collect();
    students.sort_by(|a, b| course::hand_ins::natural_cmp(a, b));
    students.dedup();
    let changes = students.into_iter().map(|s| (s.clone(), now.get(s).copied(), then.get(s).copied())).filter(|(_, now, then)| now != then).collect();
    Ok(Waiting { analysis: waiting, changes })
}

/// The roster's students with no current submission among `submissions`, in the roster's
/// order (`reference`, the model answer's id, is nobody's).
fn without_hand_in(submissions: &[SubmissionRow], roster: &[RosterRow]) -> Vec<RosterRow> {
    let handed_in: std::collections::HashSet<&str> = submissions.iter().map(|s| s.student.as_str()).collect();
    roster.iter().filter(|r| r.id != grader::REFERENCE_ID && !handed_in.contains(r.id.as_str())).cloned().collect()
}

pub(super) async fn batch_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let analyses = app.db.analyses_of(batch.id)?;
    let problem = found(app.db.problem(batch.problem_id)?)?;
    let max_points = match analyses.iter().find_map(|a| a.max_points) {
        Some(max) => max,
        None => problem_toml(&app, &problem)?.grading.max_points,
    };
    let submissions = app.db.submissions(batch.id)?;
    let roster = app.db.roster(batch.id)?;
    let without_hand_in = without_hand_in(&submissions, &roster);
    let batch_students = app.db.batch_students(batch.id)?;
    let view = BatchView {
        without_hand_in,
        submissions,
        roster,
        shown: batch.shown(),
        waiting: match (batch.shown(), app.db.latest_done(batch.id)?) {
            (Some(shown), Some(latest)) if latest != shown => Some(waiting(&app, &batch, shown, latest)?),
            _ => None,
        },
        max_points,
        adjustments: app.db.adjustments(batch.id)?,
        linked: batch_students.iter().filter(|s| s.token.is_some()).count(),
        students: batch_students.len(),
        analyses,
        batch,
    };
    let window = app.db.hand_in_window(view.batch.id)?;
    let deadline = passed(window.as_ref());
    let hand_ins = hand_ins_card(&app, &who, &view.batch, window.as_ref())?;
    respond(&req, Some(&who), &view.batch.name.clone(), &view, |v| {
        let id = v.batch.id;
        html! {
            p { "Problem: " a href={ "/problems/" (v.batch.problem_id) } { (v.batch.problem) } ". Course: " (v.batch.course) ". " (v.submissions.len()) " submissions"
                @if v.roster.is_empty() { ", no roster." } @else { ", a roster of " (v.roster.len()) " rows." } }
            details {
                summary { "Rename or delete this batch" }
                (rename_form(&who, &v.batch, &v.batch.name))
                p { a href={ "/batches/" (id) "/delete" } { "Delete this batch…" } " (you are asked to confirm first)" }
            }
            (hand_ins)
            (run_form(&who, id, v.analyses.iter().any(|a| a.status == Status::Done), v.batch.released, v.max_points, deadline))
            h2 { "Analyses" }
            @if v.analyses.is_empty() { p.muted { "None yet." } }
            ul { @for a in &v.analyses { li { a href={ "/analyses/" (a.id) } { "#" (a.id) } " · " (status_word(a.status)) " · seed " (a.seed) " · " (date(a.created)) } } }
            div.card #access {
                h3 { "Students' access" }
                @if v.batch.released {
                    @match v.shown {
                        Some(analysis) => p.ok { "Students see their points, bug lists and code of " a href={ "/analyses/" (analysis) } { "analysis #" (analysis) } "." }
                        None => p { "Released, but no analysis has finished: students see nothing of this batch yet, and the first to finish is theirs. Run one above." }
                    }
                    @if let Some(w) = &v.waiting {
                        div #waiting {
                            p.bad { a href={ "/analyses/" (w.analysis) } { "Analysis #" (w.analysis) } " finished after it and is not released: students still see the grades of #" (v.shown.unwrap_or_default()) "." }
                            @if w.changes.is_empty() {
                                p { "Releasing it changes no grade (bug lists and tests may differ)." }
                            } @else {
                                p { "Releasing it changes " (w.changes.len()) " grades:" }
                                table #grade-changes {
                                    tr { th { "Student" } th { "Now" } th { "With #" (w.analysis) } }
                                    @for (student, now, then) in &w.changes {
                                        tr { td { (student) } td.num { (grade_cell(*now)) } td.num { (grade_cell(*then)) } }
                                    }
                                }
                            }
                            p { (show_analysis_form(&who, id, w.analysis)) }
                        }
                    }
                    form method="post" action={ "/batches/" (id) "/release-reruns" } {
                        (csrf_field(&who))
                        label { input type="checkbox" name="automatic" value="1" checked[v.batch.release_reruns]; " Release each analysis of this batch to students as it finishes (re-runs too), without waiting for me" }
                        " " button type="submit" { "Save" }
                    }
                    p { (v.linked) " of " (v.students) " students have their private link. " a href={ "/batches/" (id) "/emails" } { "Email the links to the students…" } " (you see the message first)" }
                    form method="post" action={ "/batches/" (id) "/release" } { (csrf_field(&who)) input type="hidden" name="released" value="0"; button type="submit" { "Hide from students" } }
                } @else {
                    p { "Hidden from students until you release it." }
                    p { a href={ "/batches/" (id) "/release" } { "Release to students…" } " (you are told whom it reaches first)" }
                }
                p.muted { "Every student's private link is on the " a href="/students" { "Students" } " page, and in " a href="/students/links.csv" { "links.csv" } "." }
            }
            h2 { "Submissions" }
            (table_filter("submissions", "submissions"))
            table.sortable #submissions {
                tr { th { "Student" } th { "Name" } th { "Cohort" } th { "File" } th { "Uploaded" } }
                @for s in &v.submissions {
                    @let row = v.roster.iter().find(|r| r.id == s.student);
                    tr {
                        td { (s.student) }
                        td { (row.and_then(|r| r.name()).unwrap_or_default()) }
                        td { (row.map(|r| r.cohort.as_str()).unwrap_or("")) }
                        td { a href={ "/batches/" (id) "/sources/" (s.student) } title="The code handed in, every version" { code { (s.file) } } }
                        td { (date(s.uploaded)) @if s.late { " " strong.bad { "late" } } }
                    }
                }
                @for row in shown_without_hand_in(&v.without_hand_in) {
                    tr.no-hand-in {
                        td { (row.id) }
                        td { (row.name().unwrap_or_default()) }
                        td { (row.cohort) }
                        td { strong.bad { "no hand-in" } }
                        td {}
                    }
                }
            }
            div.card #no-hand-in {
                h3 { "Students who handed in nothing" }
                @if v.without_hand_in.is_empty() {
                    p.muted { "Every student on the roster handed in. " @if v.roster.is_empty() { "(Attach a roster below to list the whole class: a student on it with no hand-in is listed here and in every export.)" } }
                } @else {
                    p { (v.without_hand_in.len()) " of the " (v.roster.len()) " students on the roster handed in nothing. Every export (scores.csv, Canvas, Moodle) lists them, with " (v.batch.no_hand_in.in_words()) "."
                        @if v.without_hand_in.len() > NO_HAND_IN_ROWS_SHOWN { " The table above shows the first " (NO_HAND_IN_ROWS_SHOWN) " of them; scores.csv has every one." } }
                }
                form method="post" action={ "/batches/" (id) "/no-hand-in" } {
                    (csrf_field(&who))
                    fieldset {
                        legend { "A student on the roster with no hand-in gets" }
                        @for choice in [NoHandIn::Zero, NoHandIn::Empty] {
                            label { input type="radio" name="choice" value=(choice.name()) checked[v.batch.no_hand_in == choice]; " " (choice.in_words()) }
                            " "
                        }
                    }
                    button type="submit" { "Save" }
                }
            }
            (adjustment_form(&who, id, &v.submissions, shown_without_hand_in(&v.without_hand_in), &v.adjustments, v.max_points))
            (late_form(&who, id))
            (roster_form(&who, id, !v.roster.is_empty()))
        }
    })
}

#[derive(Deserialize)]
pub(super) struct RenameForm {
    csrf: Option<String>,
    name: Option<String>,
}

pub(super) async fn rename_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<RenameForm>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = async {
        who.check_csrf(&req, form.csrf.as_deref())?;
        let name = name_field(form.name.as_deref(), "batch")?;
        app.db.rename_batch(batch.id, &name)?;
        see_other(&format!("/batches/{}", batch.id))
    }
    .await;
    form_again(&req, &who, "The batch was not renamed", result, || rename_form(&who, &batch, form.name.as_deref().unwrap_or(&batch.name)))
}

/// What deleting a batch takes with it, for the confirmation page.
#[derive(Serialize)]
struct DeleteView {
    batch: BatchRow,
    submissions: usize,
    analyses: Vec<AnalysisRow>,
}

pub(super) async fn delete_batch_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let view = DeleteView { submissions: app.db.submissions(batch.id)?.len(), analyses: app.db.analyses_of(batch.id)?, batch };
    respond(&req, Some(&who), &format!("Delete {}?", view.batch.name), &view, |v| {
        let busy = v.analyses.iter().find(|a| matches!(a.status, Status::Queued | Status::Running));
        html! {
            div.card {
                p { "Deleting " strong { (v.batch.name) } " (" (v.batch.course) ", " (v.batch.problem) ") deletes, for good:" }
                ul {
                    li { (v.submissions) " submissions, with their earlier versions, and the modules and builds no other batch uses" }
                    li { (v.analyses.len()) " analyses with their results, bug lists and downloads" }
                    li { "its roster and its upload reports" }
                    li { "the private links of students who have no other batch in " (v.batch.course) }
                }
                p { "Other batches, their analyses and the problem are kept." }
                @match busy {
                    Some(a) => p.bad { "Analysis " a href={ "/analyses/" (a.id) } { "#" (a.id) } " is " (status_word(a.status)) ": cancel it first." },
                    None => form method="post" action={ "/batches/" (v.batch.id) "/delete" } {
                        (csrf_field(&who))
                        button type="submit" { "Delete " (v.batch.name) " for good" }
                        " " a href={ "/batches/" (v.batch.id) } { "Keep it" }
                    },
                }
            }
        }
    })
}

pub(super) async fn delete_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    let app2 = app.clone();
    match blocking(move || app2.delete_batch(batch.id).map_err(AppError::Internal)).await? {
        Some(analysis) => Err(AppError::BadRequest(format!("analysis #{analysis} of this batch is queued or running: cancel it first; nothing was deleted"))),
        None => see_other("/batches"),
    }
}

/// Attaches a roster to a batch, or replaces its roster. Rows of students the batch does
/// not have are left out, and said so; students without a row are named.
pub(super) async fn attach_roster(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let (file, text) = form
            .files
            .into_iter()
            .find(|(field, _, _)| field == "roster")
            .map(|(_, file, text)| (file, text))
            .ok_or_else(|| AppError::BadRequest("choose the roster file (CSV) to attach".into()))?;
        // Off the async threads: a roster of many thousands of rows is read, checked and
        // stored in one go.
        let (shared, batch_id, name) = (app.clone(), batch.id, file.clone());
        let attached = blocking(move || {
            let db = &shared.db;
            let students: Vec<String> = db.submissions(batch_id)?.into_iter().map(|s| s.student).collect();
            let attached = course::roster::Attached::roster(&name, text.as_slice(), &students)?;
            db.replace_roster(batch_id, &attached.kept)?;
            // Students hand in through their links: those the roster adds get theirs.
            if db.hand_in_window(batch_id)?.is_some_and(|w| w.accepting) {
                db.issue_missing_links(batch_id, &random_token)?;
            }
            Ok(attached)
        })
        .await?;
        let course::roster::Attached { kept, without_hand_in, without_row: missing } = attached;
        let view = serde_json::json!({ "batch": batch.id, "rows": kept.len(), "without_hand_in": without_hand_in, "without_row": missing });
        respond(&req, Some(&who), "Roster attached", &view, |_| {
            html! {
                p.ok { "The roster of " a href={ "/batches/" (batch.id) } { (batch.name) } " is now " code { (file) } ": " (kept.len()) " rows." }
                @if !without_hand_in.is_empty() {
                    p { (without_hand_in.len()) " students on it handed in nothing: " (first_ids(&without_hand_in)) ". They are part of the class: every export gives them "
                        (batch.no_hand_in.in_words()) " (" a href={ "/batches/" (batch.id) "#no-hand-in" } { "your choice" } ")." }
                }
                @if !missing.is_empty() {
                    p.bad { (missing.len()) " students of the batch have no row (graded without a cohort): " (first_ids(&missing)) "." }
                }
                p { "Grades did not change; the analyses' pages, exports and the experiment report use the new cohorts and columns now. " a href={ "/batches/" (batch.id) } { "Back to the batch" } }
            }
        })
    }
    .await;
    form_again(&req, &who, "The roster was not attached", result, || roster_form(&who, batch.id, !app.db.roster(batch.id).unwrap_or_default().is_empty()))
}

#[derive(Deserialize)]
pub(super) struct RunForm {
    csrf: Option<String>,
    seed: Option<String>,
    stable_after: Option<String>,
    fuel_factor: Option<String>,
    /// The maximum of points (empty: the problem's).
    max_points: Option<String>,
    /// `frozen` or `full`; by default frozen once the batch is released.
    mode: Option<String>,
    /// Past the deadline of students' own hand-ins: `by-deadline` (the default) grades
    /// each student's last hand-in by the deadline, `all` late ones too.
    hand_ins: Option<String>,
}

/// The deadline of students' own hand-ins in `window`, once it has passed.
fn passed(window: Option<&WindowRow>) -> Option<i64> {
    window.and_then(|w| w.window.deadline).filter(|&deadline| deadline < now())
}

/// The deadline of `batch`'s students' own hand-ins, once it has passed.
fn passed_deadline(app: &App, batch: i64) -> Result<Option<i64>, AppError> {
    Ok(passed(app.db.hand_in_window(batch)?.as_ref()))
}

pub(super) async fn queue_analysis(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<RunForm>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = queue_run(&app, &req, &who, &batch, &form);
    form_again(&req, &who, "The analysis was not queued", result, || {
        let done = app.db.latest_done(batch.id).ok().flatten().is_some();
        let max = form.max_points.as_deref().and_then(|m| m.trim().parse().ok()).unwrap_or(grader::GradingPolicy::default().max_points);
        run_form(&who, batch.id, done, batch.released, max, passed_deadline(&app, batch.id).ok().flatten())
    })
}

fn queue_run(app: &App, req: &HttpRequest, who: &Instructor, batch: &BatchRow, form: &RunForm) -> Page {
    who.check_csrf(req, form.csrf.as_deref())?;
    let problem = found(app.db.problem(batch.problem_id)?)?;
    let settings = AnalysisSettings {
        seed: number(&form.seed, "the seed")?.unwrap_or(1),
        stable_after: number(&form.stable_after, "stop after")?.filter(|&n| n > 0),
        fuel_factor: number(&form.fuel_factor, "the fuel factor")?.filter(|&n| n > 0),
        max_points: points_field(&form.max_points, "the maximum of points")?
            .map(|max| course::problem_dir::max_points(max).map_err(|why| AppError::BadRequest(format!("the batch's {why}"))))
            .transpose()?,
        rerun: Some(match form.mode.as_deref() {
            Some("frozen") => RerunMode::Frozen,
            Some("full") => RerunMode::Full,
            None if batch.released => RerunMode::Frozen,
            None => RerunMode::Full,
            Some(other) => return Err(AppError::BadRequest(format!("the mode must be `frozen` or `full`, not `{other}`"))),
        }),
        handed_in_by: match form.hand_ins.as_deref() {
            Some("all") => None,
            Some("by-deadline") | None => passed_deadline(app, batch.id)?,
            Some(other) => return Err(AppError::BadRequest(format!("the hand-ins graded are `by-deadline` or `all`, not `{other}`"))),
        },
    };
    if app.db.submissions(batch.id)?.is_empty() {
        return Err(AppError::BadRequest("the batch has no submissions to analyse".into()));
    }
    let id = app.db.queue_analysis(batch.id, &problem.dir, settings)?;
    app.jobs.notify();
    see_other(&format!("/analyses/{id}"))
}

/// The most students with no hand-in the batch page lists (in its table and its
/// adjustment form's choices): a roster of a whole year (tens of thousands) attached to a
/// small batch would otherwise make a page of megabytes.
const NO_HAND_IN_ROWS_SHOWN: usize = 1_000;

/// The first [`NO_HAND_IN_ROWS_SHOWN`] of `without`.
fn shown_without_hand_in(without: &[RosterRow]) -> &[RosterRow] {
    &without[..without.len().min(NO_HAND_IN_ROWS_SHOWN)]
}

#[derive(Deserialize)]
pub(super) struct NoHandInForm {
    csrf: Option<String>,
    choice: Option<String>,
}

/// Sets what the exports give the batch's students on the roster who handed in nothing.
pub(super) async fn set_no_hand_in(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<NoHandInForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    let asked = form.choice.as_deref().unwrap_or_default();
    let choice = NoHandIn::named(asked).ok_or_else(|| {
        AppError::BadRequest(format!("choose what a student with no hand-in gets: `zero` (0 points) or `empty` (an empty cell), not `{asked}`"))
    })?;
    app.db.set_no_hand_in(batch.id, choice)?;
    grades::send_in_background(&app, batch.id);
    see_other(&format!("/batches/{}#no-hand-in", batch.id))
}

#[derive(Deserialize)]
pub(super) struct ReleaseForm {
    csrf: Option<String>,
    released: String,
}

/// Releases a batch to its students, giving a private link to each who has none, or hides
/// it again (links stay: they show the student's other released batches).
pub(super) async fn release(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<ReleaseForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    let released = form.released == "1";
    app.db.set_released(batch.id, released)?;
    if released {
        app.db.issue_missing_links(batch.id, &random_token)?;
    }
    grades::send_in_background(&app, batch.id);
    see_other(&format!("/batches/{}#access", batch.id))
}

#[derive(Deserialize)]
pub(super) struct ShowForm {
    csrf: Option<String>,
    analysis: Option<String>,
}

/// Shows the batch's students another finished analysis of it: "release this re-run".
pub(super) async fn show_analysis(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<ShowForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    let analysis = number(&form.analysis, "the analysis")?.unwrap_or_default() as i64;
    if !app.db.show_analysis(batch.id, analysis)? {
        return Err(AppError::BadRequest(format!("analysis #{analysis} is not a finished analysis of {}: release one of its own", batch.name)));
    }
    grades::send_in_background(&app, batch.id);
    see_other(&format!("/batches/{}#access", batch.id))
}

#[derive(Deserialize)]
pub(super) struct ReleaseRerunsForm {
    csrf: Option<String>,
    automatic: Option<String>,
}

/// Whether the batch's analyses reach its students as they finish.
pub(super) async fn release_reruns(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<ReleaseRerunsForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    app.db.set_release_reruns(batch.id, form.automatic.as_deref() == Some("1"))?;
    see_other(&format!("/batches/{}#access", batch.id))
}

/// A grade in a table, or a dash where there is none.
fn grade_cell(grade: Option<f64>) -> String {
    grade.map_or("–".to_owned(), |g| g.to_string())
}

/// What releasing a batch does, for the instructor to confirm.
#[derive(Serialize)]
struct ReleaseView {
    batch: BatchRow,
    students: usize,
    /// Students of the batch without a private link: releasing issues theirs.
    without_link: Vec<String>,
    /// The analysis students will see.
    shown: Option<i64>,
}

pub(super) async fn release_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let students = app.db.batch_students(batch.id)?;
    let view = ReleaseView {
        students: students.len(),
        without_link: students.into_iter().filter(|s| s.token.is_none()).map(|s| s.student).collect(),
        shown: app.db.latest_done(batch.id)?,
        batch,
    };
    respond(&req, Some(&who), &format!("Release {}?", view.batch.name), &view, |v| {
        html! {
            div.card {
                p { "Releasing " strong { (v.batch.name) } " shows each of its " (v.students) " students their own points, bug list and code, at their private link." }
                @match v.shown {
                    Some(analysis) => p { "They see " a href={ "/analyses/" (analysis) } { "analysis #" (analysis) } ", the latest finished. A later analysis (a re-run) waits until you release it on the batch's page, unless you choose there to release each as it finishes." },
                    None => p.bad { "No analysis has finished yet: they see nothing of this batch until one does (the first to finish is theirs)." },
                }
                @if v.without_link.is_empty() {
                    p { "Every one of them has a private link already." }
                } @else {
                    p { strong { (v.without_link.len()) } " of them have no private link yet: releasing issues theirs (the others keep theirs)." }
                }
                p { "Afterwards you can email the links, or download them all in " code { "links.csv" } ". You can hide the batch again at any time." }
                form method="post" action={ "/batches/" (v.batch.id) "/release" } {
                    (csrf_field(&who))
                    input type="hidden" name="released" value="1";
                    button type="submit" { "Release to " (v.students) " students"
                        @if !v.without_link.is_empty() { " and issue " (v.without_link.len()) " links" } }
                    " " a href={ "/batches/" (v.batch.id) } { "Not now" }
                }
            }
        }
    })
}

#[derive(Deserialize)]
pub(super) struct AdjustForm {
    csrf: Option<String>,
    student: String,
    /// Points to add (negative: to take away); empty removes the adjustment.
    points: Option<String>,
    reason: Option<String>,
}

/// Sets or removes one student's adjustment of points in a batch.
pub(super) async fn adjust_points(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<AdjustForm>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = (|| {
        who.check_csrf(&req, form.csrf.as_deref())?;
        let handed_in = app.db.submissions(batch.id)?.iter().any(|s| s.student == form.student);
        // (The roster, which may be a year's, is read only when the rule needs it.)
        let roster = if handed_in { Vec::new() } else { app.db.roster(batch.id)? };
        Adjustment::may_adjust(&form.student, handed_in, &roster)?;
        let adjustment = match points_field(&form.points, "the points to add")? {
            None => None,
            Some(points) => Some(Adjustment::new(points, form.reason.as_deref().unwrap_or_default())?),
        };
        app.db.set_adjustment(batch.id, &form.student, adjustment.as_ref())?;
        grades::send_in_background(&app, batch.id);
        see_other(&format!("/batches/{}#adjustments", batch.id))
    })();
    form_again(&req, &who, "The points were not adjusted", result, || {
        let (submissions, adjustments) = (app.db.submissions(batch.id).unwrap_or_default(), app.db.adjustments(batch.id).unwrap_or_default());
        let without = without_hand_in(&submissions, &app.db.roster(batch.id).unwrap_or_default());
        adjustment_form(&who, batch.id, &submissions, shown_without_hand_in(&without), &adjustments, grader::GradingPolicy::default().max_points)
    })
}

/// An optional number of points from a form field (a decimal, negative allowed); empty
/// means none.
fn points_field(field: &Option<String>, name: &str) -> Result<Option<f64>, AppError> {
    match field.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(text) => match text.parse::<f64>() {
            Ok(points) if points.is_finite() && points.abs() <= course::problem_dir::MAX_POINTS => Ok(Some(points)),
            _ => Err(AppError::BadRequest(format!("{name} must be a number of points such as 5 or -2.5, not `{text}`"))),
        },
    }
}

/// Sets a batch's hand-in window. Opening it issues a private link to each of its
/// students who has none (they hand in through it); a deadline already past with its
/// analysis asked for queues that analysis at once.
pub(super) async fn set_window(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<WindowForm>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = (|| {
        who.check_csrf(&req, form.csrf.as_deref())?;
        let (accepting, window) = form.window()?;
        save_window(&app, batch.id, accepting, &window)?;
        see_other(&format!("/batches/{}#hand-ins", batch.id))
    })();
    form_again(&req, &who, "The hand-ins were not set", result, || window_form(&who, batch.id, app.db.hand_in_window(batch.id).ok().flatten().as_ref()))
}

/// Keeps a batch's window, and does what keeping it starts (see [`set_window`]).
fn save_window(app: &App, batch: i64, accepting: bool, window: &HandInWindow) -> Result<(), AppError> {
    app.db.set_hand_in_window(batch, accepting, window)?;
    if accepting {
        app.db.issue_missing_links(batch, &random_token)?;
    }
    queue_due_analyses(app, now());
    Ok(())
}

/// A new batch open to students' hand-ins.
pub(super) async fn open_batch(app: AppData, req: HttpRequest, who: Instructor, form: web::Form<WindowForm>) -> Page {
    let result = (|| {
        who.check_csrf(&req, form.csrf.as_deref())?;
        let chosen = form.problem.as_deref().and_then(|p| p.trim().parse().ok());
        let problem = app.db.problem(chosen.ok_or_else(|| AppError::BadRequest("choose the problem the batch is for".into()))?)?;
        let problem = problem.ok_or_else(|| AppError::BadRequest("the problem chosen does not exist (any more)".into()))?;
        let name = name_field(form.name.as_deref(), "batch")?;
        let course = name_field(form.course.as_deref(), "course the batch belongs to")?;
        let (accepting, window) = form.window()?;
        let batch = app.db.add_batch(problem.id, &course, &name, &[], &[])?;
        save_window(&app, batch, accepting, &window)?;
        see_other(&format!("/batches/{batch}#hand-ins"))
    })();
    form_again(&req, &who, "The batch was not opened", result, || {
        open_batch_form(&who, &app.db.problems().unwrap_or_default(), &app.db.courses().unwrap_or_default())
    })
}

/// A pre-check in a few words, for the instructor's table.
fn pre_check_words(row: &HandInRow) -> String {
    match (row.status, row.pre_check()) {
        (PreCheckStatus::Queued, _) => "checking".to_owned(),
        (PreCheckStatus::Failed, _) => format!("not checked: {}", row.report.as_deref().unwrap_or_default()),
        (PreCheckStatus::Done, None) => "checked (the report cannot be read)".to_owned(),
        (PreCheckStatus::Done, Some(check)) if !check.built() => "does not compile".to_owned(),
        (PreCheckStatus::Done, Some(check)) if check.list.suite_size == 0 => "builds".to_owned(),
        (PreCheckStatus::Done, Some(check)) => format!("builds, passes {} of {} public tests", check.list.passed, check.list.suite_size),
    }
}

/// The batch page's card of hand-ins by students: the window, who handed in, the form.
fn hand_ins_card(app: &App, who: &Instructor, batch: &BatchRow, window: Option<&WindowRow>) -> Result<Markup, AppError> {
    let mut handed: Vec<(String, (HandInRow, i64))> = app.db.latest_hand_ins(batch.id)?.into_iter().collect();
    handed.sort_by(|a, b| course::hand_ins::natural_cmp(&a.0, &b.0));
    let now = now();
    Ok(html! {
        div.card #hand-ins {
            h3 { "Hand-ins by students" }
            @match window {
                None => p { "Students do not hand in to this batch themselves: you upload their files. Open it to them below: each student hands in through their private link (or from the LMS), and sees at once whether it builds and how it does on the problem's public tests." },
                Some(w) => {
                    p {
                        @if w.accepting { strong.ok { "Open to students" } } @else { strong { "Closed to students" } }
                        @match w.window.deadline {
                            Some(deadline) if deadline >= now => { ". Deadline " (date(deadline)) " (in " (span_in_words(deadline - now)) ")" }
                            Some(deadline) => { ". The deadline, " (date(deadline)) ", has passed" }
                            None => { ". No deadline" }
                        }
                        "; a student may hand in every " (w.window.minutes_between) " minutes; a late hand-in is " (w.window.late.in_words()) "."
                    }
                    @if w.window.analyse_at_deadline {
                        p { @match (w.deadline_analysis, w.deadline_claimed) {
                            (Some(analysis), _) => { "Analysis " a href={ "/analyses/" (analysis) } { "#" (analysis) } " was queued at the deadline: it grades each student's last hand-in by then." }
                            (None, true) => { "Nothing was handed in by the deadline: no analysis was queued." }
                            (None, false) => { "The class is analysed at the deadline by itself (each student's last hand-in by then)." }
                        } }
                    }
                }
            }
            @if !handed.is_empty() {
                p { (handed.len()) " students handed in themselves." }
                table.sortable #own-hand-ins {
                    tr { th { "Student" } th { "Hand-ins" } th { "Last" } th { "Its pre-check" } }
                    @for (student, (last, count)) in &handed {
                        tr {
                            td { (student) }
                            td.num { (count) }
                            td { (date(last.created)) @if last.late { " " strong.bad { "late" } } }
                            td { (pre_check_words(last)) }
                        }
                    }
                }
            }
            (window_form(who, batch.id, window))
        }
    })
}
