//! The code a student handed in to a batch, every version, for the instructor: each with
//! its SHA-256, line numbers, and the compiler's warnings under the lines they name.

use actix_web::{HttpRequest, web};
use grader::Build;
use maud::html;
use serde::Serialize;

use super::super::auth::Instructor;
use super::super::db::{BatchRow, Status, SubmissionRow};
use super::super::{App, AppError, Page};
use super::layout::{date, source_listing};

use super::{AppData, found, respond};

/// One version of a student's hand-in, as shown.
#[derive(Serialize)]
struct Version {
    #[serde(flatten)]
    submission: SubmissionRow,
    /// Whether it is the version graded from now on (the last one).
    current: bool,
    /// The compiler's warnings (or error) the latest finished analysis that graded this
    /// version gave, if one did.
    messages: Option<String>,
    #[serde(skip)]
    bytes: Vec<u8>,
}

#[derive(Serialize)]
struct SourcesView {
    batch: BatchRow,
    student: String,
    /// The first first.
    versions: Vec<Version>,
}

/// Every version `student` handed in to `batch`, with the compiler's messages of the
/// analyses that graded them (the latest analysis that graded a version speaks for it).
fn versions(app: &App, batch: i64, student: &str) -> Result<Vec<Version>, AppError> {
    let history = app.db.submission_history(batch, student)?;
    // Each finished analysis (the newest first) with the file it graded of this student:
    // what was queued, its answers' stored files. Read once for every version.
    let mut graded = Vec::new();
    for analysis in app.db.analyses_of(batch)?.into_iter().filter(|a| a.status == Status::Done) {
        if let Some(answer) = app.db.analysis_answers(analysis.id)?.into_iter().find(|a| a.student == student) {
            graded.push((analysis.id, answer.sha256));
        }
    }
    let mut versions = Vec::with_capacity(history.len());
    let last = history.len().saturating_sub(1);
    for (i, submission) in history.into_iter().enumerate() {
        let mut messages = None;
        if let Some((analysis, _)) = graded.iter().find(|(_, sha256)| *sha256 == submission.sha256) {
            let result = app.analysis(*analysis).map_err(AppError::Internal)?;
            let build = result.answers.iter().find(|a| a.id == student).and_then(|a| a.build.as_ref());
            messages = Some(build.map_or("", Build::messages).to_owned());
        }
        let bytes = app.module(&submission.sha256).map_err(AppError::Internal)?;
        versions.push(Version { submission, current: i == last, messages, bytes });
    }
    Ok(versions)
}

pub(super) async fn sources_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>) -> Page {
    let (batch, student) = path.into_inner();
    let batch = found(app.db.batch(batch)?)?;
    let versions = versions(&app, batch.id, &student)?;
    if versions.is_empty() {
        return Err(AppError::NotFound);
    }
    let view = SourcesView { batch, student, versions };
    respond(&req, Some(&who), &format!("{}'s code · {}", view.student, view.batch.name), &view, |v| {
        html! {
            p { a href={ "/batches/" (v.batch.id) } { "Back to " (v.batch.name) } " · " (v.versions.len()) " version" @if v.versions.len() != 1 { "s" } " handed in, the last first." }
            @for version in v.versions.iter().rev() {
                div.card {
                    h2 { code { (version.submission.file) } " · " (date(version.submission.uploaded))
                        @if version.submission.late { " " strong.bad { "late" } }
                        @if version.current { " " span.ok { "graded now" } } @else { " " span.muted { "replaced by a later version" } } }
                    p.muted { "SHA-256 " code { (version.submission.sha256) } }
                    @match &version.messages {
                        Some(m) if !m.is_empty() => p { "The compiler's messages are under the lines they name." },
                        Some(_) => p.muted { "The compiler gave no warning." },
                        None => p.muted { "No finished analysis has graded this version yet." },
                    }
                    (source_listing(&version.bytes, version.messages.as_deref().unwrap_or("")))
                }
            }
        }
    })
}
