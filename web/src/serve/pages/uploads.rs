//! Uploads of batches (new, added to a problem, late hand-ins): each checked file by file,
//! held when anything is refused until the instructor saves its accepted part or discards it.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, web};
use maud::html;
use serde::Serialize;

use super::super::auth::Instructor;
use super::super::db::{UPLOAD_DISCARDED, UPLOAD_PENDING, UPLOAD_SAVED};
use super::super::upload::{Form, keep, submissions};
use super::super::{App, AppError, Page};
use super::forms::{BatchForm, batch_form, form_again, late_form, name_field};
use super::layout::{button, first_ids};
use course::intake::{RosterGiven, UploadBuild, UploadReport, check_upload, choose_roster, form_files};
use course::roster::UploadKind;

use super::{AppData, CsrfForm, accepted, blocking, found, respond, see_other};

pub(super) async fn upload_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
    receive_batch(app, req, who, payload, Some(path.into_inner())).await
}

/// The Batches page's upload: the problem is a field of the form.
pub(super) async fn new_batch(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart) -> Page {
    receive_batch(app, req, who, payload, None).await
}

/// A new batch for `problem` (or the form's `problem`): checked, then saved or held (see
/// [`save_or_hold`]). A refusal shows the form again with the values sent.
async fn receive_batch(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart, problem: Option<i64>) -> Page {
    let mut sent = (String::new(), None::<String>, None::<i64>);
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let chosen = match problem {
            Some(id) => Some(id),
            None => form.field("problem").and_then(|id| id.parse().ok()),
        };
        sent = (form.field("name").unwrap_or_default().to_owned(), form.field("course").map(str::to_owned), chosen);
        let problem = app.db.problem(chosen.ok_or_else(|| AppError::BadRequest("choose the problem the batch is for".into()))?)?;
        let problem = problem.ok_or_else(|| AppError::BadRequest("the problem chosen does not exist (any more)".into()))?;
        let name = name_field(Some(form.field("name").unwrap_or("Batch")), "batch")?;
        let course = name_field(form.field("course"), "course the batch belongs to")?;
        let mut roster = None;
        let mut files = Vec::new();
        for (field, file, bytes) in form.files {
            if field == "roster" {
                roster = Some((file, bytes));
            } else {
                files.push((file, bytes));
            }
        }
        if files.is_empty() {
            return Err(AppError::BadRequest("choose the submissions (source files, modules or zips of them) to upload".into()));
        }
        let app2 = app.clone();
        let id = blocking(move || {
            let (modules, verdicts, in_zips) = form_files(files);
            let (roster, roster_from, roster_problem) = choose_roster(roster, in_zips);
            let roster = roster.map_or(RosterGiven::None, RosterGiven::File);
            let mut report = keep(&app2, check_upload(&app2.tools, &name, &accepted(&app2, &problem)?, modules, verdicts, roster, UploadKind::Batch)?)?;
            report.course = course;
            report.roster_from = roster_from;
            report.roster_problems.extend(roster_problem);
            save_or_hold(&app2, problem.id, None, report)
        })
        .await?;
        see_other(&format!("/uploads/{id}"))
    }
    .await;
    form_again(&req, &who, "The batch was not uploaded", result, || {
        let problems = app.db.problems().unwrap_or_default();
        let courses = app.db.courses().unwrap_or_default();
        batch_form(&who, &BatchForm { problems: &problems, problem, courses: &courses, name: &sent.0, course: sent.1.as_deref(), chosen: sent.2 })
    })
}

/// Records an upload: saved at once when clean, else held until the instructor decides.
fn save_or_hold(app: &App, problem: i64, batch: Option<i64>, report: UploadReport) -> Result<i64, AppError> {
    let json = serde_json::to_string(&report).map_err(anyhow::Error::from)?;
    if !report.is_clean() {
        return Ok(app.db.add_upload(problem, batch, &json, UPLOAD_PENDING)?);
    }
    let batch = commit(app, problem, batch, &report)?;
    Ok(app.db.add_upload(problem, Some(batch), &json, UPLOAD_SAVED)?)
}

/// Adds the accepted part of an upload: a new batch, or late submissions to `batch`.
fn commit(app: &App, problem: i64, batch: Option<i64>, report: &UploadReport) -> Result<i64, AppError> {
    let submissions = submissions(report);
    if submissions.is_empty() {
        return Err(AppError::BadRequest("no file of this upload was accepted: nothing to save".into()));
    }
    match batch {
        Some(batch) => {
            for s in &submissions {
                app.db.add_late_submission(batch, s)?;
            }
            Ok(batch)
        }
        None => {
            // Every row: a student who handed in nothing is part of the class.
            Ok(app.db.add_batch(problem, &report.course, &report.name, &submissions, &report.roster)?)
        }
    }
}

#[derive(Serialize)]
struct UploadView {
    id: i64,
    status: String,
    batch: Option<i64>,
    accepted: usize,
    rejected: usize,
    report: UploadReport,
}

fn upload_view(app: &App, id: i64) -> Result<(UploadView, i64), AppError> {
    let row = found(app.db.upload(id)?)?;
    let report: UploadReport = serde_json::from_str(&row.report).map_err(anyhow::Error::from)?;
    let accepted = report.accepted().count();
    let rejected = report.files.len() - accepted;
    Ok((UploadView { id, status: row.status, batch: row.batch, accepted, rejected, report }, row.problem))
}

pub(super) async fn upload_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let (view, _) = upload_view(&app, path.into_inner())?;
    let title = if view.report.late { "Late submission" } else { "Upload report" };
    respond(&req, Some(&who), title, &view, |v| {
        html! {
            p { strong { (v.accepted) " accepted" } ", " strong.bad[v.rejected > 0] { (v.rejected) " rejected" }
                @if !v.report.roster_problems.is_empty() { ", " strong.bad { (v.report.roster_problems.len()) " roster problems" } } "." }
            @match v.status.as_str() {
                UPLOAD_SAVED => p.ok { "Saved. " @if let Some(b) = v.batch { a href={ "/batches/" (b) } { "Open the batch" } } },
                UPLOAD_DISCARDED => p.muted { "Discarded: nothing was saved." },
                _ => div.card {
                    p.bad { "Nothing has been saved yet, because of the problems below. Fix them and upload again, or save the accepted files only." }
                    @if v.accepted > 0 { (button(&who, &format!("/uploads/{}/save", v.id), &if v.accepted == 1 { "Save the accepted file".to_owned() } else { format!("Save the {} accepted files", v.accepted) })) " " }
                    (button(&who, &format!("/uploads/{}/discard", v.id), "Discard"))
                },
            }
            table {
                tr { th { "File" } th { "Student" } th { "Verdict" } }
                @for f in &v.report.files {
                    tr {
                        td { code { (f.file) } }
                        td { (f.student.as_deref().unwrap_or("")) }
                        td {
                            @match &f.rejected { None => span.ok { "accepted" }, Some(reason) => span.bad { "rejected: " (reason) } }
                            @if f.late { " · " strong.bad { "late" } " (so Canvas says)" }
                            @match &f.build {
                                Some(UploadBuild::Compiles { language, rules_broken }) => {
                                    " · " (language) ", compiles"
                                    @if !rules_broken.is_empty() {
                                        " · " strong.bad { "breaks the assignment's rules" } " (it costs points whatever it prints): "
                                        @for (i, rule) in rules_broken.iter().enumerate() { @if i > 0 { "; " } (rule) }
                                    }
                                },
                                Some(UploadBuild::DoesNotCompile { language, message }) => {
                                    " · " strong.bad { (language) ", does not compile" } " (its result will be the compiler's message)"
                                    details { summary { "The compiler's message" } pre.compiler { (message) } }
                                },
                                Some(UploadBuild::NotChecked { reason }) => { " · " span.muted { "not compiled here: " (reason) } },
                                None => {},
                            }
                        }
                    }
                }
            }
            @if let Some(from) = &v.report.roster_from {
                p { "Roster: " (from) ", " (v.report.roster.len()) " rows." }
            }
            @if !v.report.no_hand_in.is_empty() {
                p #no-hand-in { (v.report.no_hand_in.len()) " students on the roster handed in nothing: " (first_ids(&v.report.no_hand_in))
                    ". They are part of the class: the batch lists them as \"no hand-in\", and every export gives them 0 points (or, as you choose on the batch's page, an empty cell)." }
            }
            @if !v.report.roster_problems.is_empty() {
                h2 { "Roster" }
                ul { @for p in &v.report.roster_problems { li.bad { (p) } } }
            }
        }
    })
}

pub(super) async fn save_upload(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let id = path.into_inner();
    let (view, problem) = upload_view(&app, id)?;
    if view.status != UPLOAD_PENDING {
        return Err(AppError::BadRequest(format!("this upload is already {}", view.status)));
    }
    let batch = commit(&app, problem, view.batch, &view.report)?;
    app.db.set_upload(id, Some(batch), UPLOAD_SAVED)?;
    see_other(&format!("/batches/{batch}"))
}

pub(super) async fn discard_upload(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let id = path.into_inner();
    let (view, _) = upload_view(&app, id)?;
    if view.status != UPLOAD_PENDING {
        return Err(AppError::BadRequest(format!("this upload is already {}", view.status)));
    }
    app.db.set_upload(id, view.batch, UPLOAD_DISCARDED)?;
    see_other(&format!("/uploads/{id}"))
}

pub(super) async fn upload_late(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let id = batch.id;
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let student = form.field("student").map(str::to_owned);
        let mut files = form.files;
        if files.len() != 1 {
            return Err(AppError::BadRequest("choose one file (a module or a source file) for the late submission".into()));
        }
        let (_, file, bytes) = files.remove(0);
        let app2 = app.clone();
        let id = blocking(move || {
            // The module is named after the student the instructor gives, if any.
            let file = match &student {
                Some(id) => format!("{id}.{}", file.rsplit_once('.').map_or("wasm", |(_, extension)| extension)),
                None => file,
            };
            let (modules, verdicts, _) = form_files(vec![(file, bytes)]);
            let problem = found(app2.db.problem(batch.problem_id)?)?;
            let roster = RosterGiven::Rows(app2.db.roster(batch.id)?);
            let report = keep(&app2, check_upload(&app2.tools, &batch.name, &accepted(&app2, &problem)?, modules, verdicts, roster, UploadKind::Late)?)?;
            save_or_hold(&app2, batch.problem_id, Some(batch.id), report)
        })
        .await?;
        see_other(&format!("/uploads/{id}"))
    }
    .await;
    form_again(&req, &who, "The late submission was not added", result, || late_form(&who, id))
}
