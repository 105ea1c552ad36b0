//! The routes. Each page handler builds its data once and serves it as HTML at its path
//! and as JSON under `/api` + path, with the same authorization: an [`Instructor`]
//! argument for instructor pages, a live student token for `/s/<token>`.
//!
//! Here are the route table ([`routes`]) and what every page shares: `respond` (one serialisable view served as HTML
//! at its path and as JSON under `/api`), `see_other`, `blocking` (work off the HTTP workers), `found`, the CSRF form.
//! Every other file is one resource, parsing its requests, calling the store and `course`, and drawing its pages with
//! its forms beside it; no page module uses another (`forms.rs` and `layout.rs` are shared).

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use maud::Markup;
use serde::{Deserialize, Serialize};

use super::auth::Instructor;
use super::db::{ProblemRow, Status, StudentRow};
use super::{App, AppError, Page};
use course::problem_dir::ProblemToml;
use layout::page;

mod analyses;
mod batches;
mod cohorts;
pub(super) mod forms;
pub(super) mod layout;
mod login;
mod lti;
mod problems;
mod release;
mod sources;
mod students;
mod uploads;

type AppData = web::Data<Arc<App>>;

/// Registers every route; pages twice, as HTML and as JSON under `/api`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    macro_rules! page {
        ($path:literal, $handler:expr) => {
            cfg.route($path, web::get().to($handler));
            cfg.route(concat!("/api", $path), web::get().to($handler));
        };
    }
    cfg.route("/", web::get().to(login::home));
    cfg.route("/login", web::get().to(login::login_form));
    cfg.route("/login", web::post().to(login::login));
    cfg.route("/logout", web::post().to(login::logout));
    page!("/problems", problems::problems_page);
    cfg.route("/problems", web::post().to(problems::upload_problem));
    page!("/problems/{id}", problems::problem_page);
    page!("/problems/checks/{id}", problems::problem_check_page);
    cfg.route("/problems/{id}/bundle", web::post().to(problems::replace_problem));
    cfg.route("/problems/{id}/batches", web::post().to(uploads::upload_batch));
    page!("/uploads/{id}", uploads::upload_page);
    cfg.route("/uploads/{id}/save", web::post().to(uploads::save_upload));
    cfg.route("/uploads/{id}/discard", web::post().to(uploads::discard_upload));
    cfg.route("/static/app.js", web::get().to(app_js));
    page!("/batches", batches::batches_page);
    cfg.route("/batches", web::post().to(uploads::new_batch));
    page!("/batches/{id}", batches::batch_page);
    cfg.route("/batches/{id}/rename", web::post().to(batches::rename_batch));
    cfg.route("/batches/{id}/roster", web::post().to(batches::attach_roster));
    page!("/batches/{id}/delete", batches::delete_batch_page);
    cfg.route("/batches/{id}/delete", web::post().to(batches::delete_batch));
    cfg.route("/batches/{id}/late", web::post().to(uploads::upload_late));
    cfg.route("/batches/{id}/analyses", web::post().to(batches::queue_analysis));
    page!("/batches/{id}/release", batches::release_page);
    cfg.route("/batches/{id}/release", web::post().to(batches::release));
    cfg.route("/batches/{id}/adjustments", web::post().to(batches::adjust_points));
    cfg.route("/batches/{id}/shown", web::post().to(batches::show_analysis));
    cfg.route("/batches/{id}/release-reruns", web::post().to(batches::release_reruns));
    cfg.route("/batches/{id}/no-hand-in", web::post().to(batches::set_no_hand_in));
    cfg.route("/batches/{id}/hand-ins", web::post().to(batches::set_window));
    cfg.route("/batches/open", web::post().to(batches::open_batch));
    page!("/batches/{id}/sources/{student}", sources::sources_page);
    page!("/batches/{id}/emails", release::emails_page);
    cfg.route("/batches/{id}/emails", web::post().to(release::send_emails));
    page!("/analyses/{id}", analyses::analysis_page);
    cfg.route("/analyses/{id}/cancel", web::post().to(analyses::cancel_analysis));
    cfg.route("/analyses/{id}/stability", web::post().to(analyses::queue_stability));
    cfg.route("/analyses/{id}/files/{file}", web::get().to(analyses::analysis_file));
    page!("/experiment", cohorts::experiment_page);
    cfg.route("/experiment/{file}", web::get().to(cohorts::experiment_file));
    page!("/students", students::students_page);
    cfg.route("/students/links.csv", web::get().to(students::links_csv));
    cfg.route("/students/{course}/{id}/issue", web::post().to(students::issue_link));
    cfg.route("/students/{course}/{id}/revoke", web::post().to(students::revoke_link));
    cfg.route("/lti/login", web::get().to(lti::login_by_get));
    cfg.route("/lti/login", web::post().to(lti::login_by_post));
    cfg.route("/lti/launch", web::post().to(lti::launch));
    cfg.route("/lti/jwks", web::get().to(lti::tool_jwks));
    page!("/lti/platforms", lti::platforms_page);
    page!("/lti/links/{platform}/{link}", lti::link_page);
    page!("/lti/deep-links/{token}", lti::deep_link_page);
    cfg.route("/lti/deep-links/{token}", web::post().to(lti::answer_deep_link));
    cfg.route("/lti/links/{platform}/{link}/bind", web::post().to(lti::bind_link));
    cfg.route("/lti/platforms", web::post().to(lti::add_platform));
    cfg.route("/lti/instructors/approve", web::post().to(lti::approve_instructor));
    page!("/s/{token}", students::student_page);
    cfg.route("/s/{token}/batches/{batch}/hand-ins", web::post().to(students::hand_in));
    cfg.route("/s/{token}/batches/{batch}/statement", web::get().to(students::own_statement));
    cfg.route("/s/{token}/{analysis}.md", web::get().to(students::student_markdown));
    cfg.route("/s/{token}/{analysis}/statement", web::get().to(students::student_statement));
    cfg.route("/s/{token}/{analysis}/code", web::get().to(students::student_code));
    cfg.default_service(web::to(|| async { Page::Err(AppError::NotFound) }));
}

fn is_api(req: &HttpRequest) -> bool {
    req.path().starts_with("/api/")
}

/// Serves `data` as JSON under `/api`, else as the HTML page `body` makes of it.
fn respond<T: Serialize>(req: &HttpRequest, who: Option<&Instructor>, title: &str, data: &T, body: impl FnOnce(&T) -> Markup) -> Page {
    if is_api(req) { Ok(HttpResponse::Ok().json(data)) } else { Ok(page(title, who, body(data))) }
}

fn see_other(location: &str) -> Page {
    Ok(HttpResponse::SeeOther().insert_header(("Location", location)).finish())
}

/// Runs blocking work (compiling modules, hashing passwords) off the HTTP workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, AppError> + Send + 'static) -> Result<T, AppError> {
    web::block(work).await.map_err(|e| AppError::Internal(anyhow::anyhow!("blocking task: {e}")))?
}

/// The student a live private link's token belongs to; anything else is a plain 404.
fn student_of(app: &App, token: &str) -> Result<StudentRow, AppError> {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(AppError::NotFound);
    }
    found(app.db.student_by_token(token)?)
}

fn found<T>(value: Option<T>) -> Result<T, AppError> {
    value.ok_or(AppError::NotFound)
}

#[derive(Deserialize)]
struct CsrfForm {
    csrf: Option<String>,
}

async fn app_js() -> HttpResponse {
    HttpResponse::Ok().content_type("text/javascript; charset=utf-8").body(layout::APP_JS)
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Queued => "queued",
        Status::Running => "running",
        Status::Done => "done",
        Status::Failed => "failed",
        Status::Cancelled => "cancelled",
    }
}

/// An optional positive number from a form field; empty means the default.
fn number(field: &Option<String>, name: &str) -> Result<Option<u64>, AppError> {
    match field.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(text) => text.parse().map(Some).map_err(|_| AppError::BadRequest(format!("{name} must be a whole number, not `{text}`"))),
    }
}

/// The `problem.toml` of a stored problem.
fn problem_toml(app: &App, problem: &ProblemRow) -> Result<ProblemToml, AppError> {
    ProblemToml::read(&app.local(&problem.dir)?).map_err(|e| AppError::Internal(e.into()))
}

/// What `problem` accepts as hand-ins: the languages of its `problem.toml`, and its
/// harnesses (see [`course::problem_dir::accepted`]).
fn accepted(app: &App, problem: &ProblemRow) -> Result<course::problem_dir::Accepted, AppError> {
    let dir = app.local(&problem.dir)?;
    course::problem_dir::accepted(&dir, &problem_toml(app, problem)?).map_err(|e| AppError::Internal(e.into()))
}
