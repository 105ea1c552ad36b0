//! Emailing a released batch's students their private links: a preview of the message
//! (the first student's, exactly as sent) with whom it reaches and whom it cannot, then
//! the sending, each student's outcome said.

use actix_web::{HttpRequest, web};
use maud::html;
use serde::Serialize;

use super::super::auth::Instructor;
use super::super::db::BatchRow;
use super::super::mail::{Letter, MAIL_FROM_VAR, Occasion, SMTP_URL_VAR};
use super::super::{App, AppError, Page};
use super::layout::csrf_field;

use super::{AppData, CsrfForm, blocking, found, respond};

/// Why nothing is sent without `--public-url`.
const NO_PUBLIC_URL: &str = "Nothing is sent until the service knows the address students reach it at: the links above carry the address your browser \
     used, which students may not reach. Start the service with --public-url (or BUGRANK_PUBLIC_URL), such as https://grades.example.edu.";

#[derive(Serialize)]
struct EmailsView {
    batch: BatchRow,
    /// One letter per student with a link and an email address.
    letters: Vec<Letter>,
    /// Students who get no letter, with why.
    left_out: Vec<(String, String)>,
    /// The SMTP server, when one is set.
    server: Option<String>,
    /// Whether the links carry the service's public address (`--public-url`): without it
    /// nothing is sent.
    public: bool,
}

/// A student who gets no letter, and why: `(id, reason)`.
type LeftOut = (String, String);

/// The letters of a batch's students, and who is left out and why. The base of each
/// link is the service's public address, or, without one, the address the instructor's
/// browser used (then the letters are a preview only: see [`App::link_base`]).
fn letters(app: &App, req: &HttpRequest, batch: &BatchRow) -> Result<(Vec<Letter>, Vec<LeftOut>), AppError> {
    let base = app.link_base(req).unwrap_or_else(|browsed| browsed);
    let contacts = app.contacts()?;
    let occasion = Occasion { course: &batch.course, batch: &batch.name, problem: &batch.problem, no_hand_in: batch.no_hand_in };
    let (mut letters, mut left_out) = (Vec::new(), Vec::new());
    // The batch's students: those who handed in, and its roster's students who handed in
    // nothing (their letter says so, and what it earns).
    let handed_in: std::collections::HashSet<String> = app.db.submissions(batch.id)?.into_iter().map(|s| s.student).collect();
    for student in &app.db.batch_students(batch.id)? {
        let (name, email) = contacts.get(&(student.course_id, student.student.clone())).cloned().unwrap_or_default();
        match (&student.token, email.trim()) {
            (None, _) => left_out.push((student.student.clone(), "no private link: release the batch, or issue one on the Students page".to_owned())),
            (Some(_), "") => left_out.push((student.student.clone(), "no email address in the roster (an `email` or `Email address` column)".to_owned())),
            (Some(token), email) => {
                letters.push(occasion.letter(&student.student, &name, email, &format!("{base}/s/{token}"), handed_in.contains(&student.student)))
            }
        }
    }
    Ok((letters, left_out))
}

pub(super) async fn emails_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let (letters, left_out) = letters(&app, &req, &batch)?;
    let view = EmailsView { letters, left_out, server: app.mailer.as_ref().map(|m| m.server.clone()), public: app.public_url.is_some(), batch };
    respond(&req, Some(&who), &format!("Email the links of {}", view.batch.name), &view, |v| {
        html! {
            p { a href={ "/batches/" (v.batch.id) "#access" } { "Back to " (v.batch.name) } }
            @if !v.batch.released { p.bad { "The batch is not released: its students would find nothing of it behind their links. Release it first." } }
            p { (v.letters.len()) " students get a message";
                @if !v.left_out.is_empty() { ", " (v.left_out.len()) " do not" } "." }
            @if let Some(first) = v.letters.first() {
                div.card {
                    h3 { "The message, as " (first.student) " gets it" }
                    p { "To: " code { (first.name) " <" (first.to) ">" } br; "Subject: " strong { (first.subject) } }
                    pre.compiler { (first.body) }
                    p.muted { "Each student's message has their own name, address and link." }
                }
            }
            @if !v.left_out.is_empty() {
                details open[v.letters.is_empty()] { summary { "Who gets no message, and why (" (v.left_out.len()) ")" }
                    ul { @for (student, why) in &v.left_out { li { strong { (student) } ": " (why) } } } }
            }
            @match &v.server {
                Some(_) if !v.public => p.bad { (NO_PUBLIC_URL) },
                Some(server) => {
                    @if !v.letters.is_empty() && v.batch.released {
                        form method="post" action={ "/batches/" (v.batch.id) "/emails" } {
                            (csrf_field(&who))
                            button type="submit" { "Send " (v.letters.len()) " messages through " (server) }
                        }
                    }
                }
                None => p { "No mail server is set, so nothing can be sent from here: start the service with " code { (SMTP_URL_VAR) } " (such as " code { "smtp://mail.example.edu:25" } ") and " code { (MAIL_FROM_VAR) } " set, or download " a href="/students/links.csv" { "links.csv" } " for a mail merge." },
            }
        }
    })
}

#[derive(Serialize)]
struct SentView {
    batch: BatchRow,
    sent: Vec<String>,
    failed: Vec<(String, String)>,
}

pub(super) async fn send_emails(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    if !batch.released {
        return Err(AppError::BadRequest("the batch is not released: release it first, then send the links".into()));
    }
    if app.mailer.is_none() {
        return Err(AppError::BadRequest(format!("no mail server is set: start the service with {SMTP_URL_VAR} and {MAIL_FROM_VAR}")));
    }
    if app.public_url.is_none() {
        return Err(AppError::BadRequest(NO_PUBLIC_URL.to_owned()));
    }
    let (letters, _) = letters(&app, &req, &batch)?;
    let app2 = app.clone();
    let outcomes = blocking(move || {
        let mailer = app2.mailer.as_ref().ok_or(AppError::NotFound)?;
        Ok(letters.into_iter().map(|l| (l.student.clone(), mailer.send(&l))).collect::<Vec<_>>())
    })
    .await?;
    let (mut sent, mut failed) = (Vec::new(), Vec::new());
    for (student, outcome) in outcomes {
        match outcome {
            Ok(()) => sent.push(student),
            Err(why) => failed.push((student, why)),
        }
    }
    let view = SentView { batch, sent, failed };
    respond(&req, Some(&who), &format!("Links of {} sent", view.batch.name), &view, |v| {
        html! {
            p.ok { (v.sent.len()) " messages sent." }
            @if !v.failed.is_empty() {
                p.bad { (v.failed.len()) " were not sent:" }
                ul { @for (student, why) in &v.failed { li { strong { (student) } ": " (why) } } }
                p { "Send again to try them once more (everyone gets the message again), or give them their link from the " a href="/students" { "Students" } " page." }
            }
            p { a href={ "/batches/" (v.batch.id) "#access" } { "Back to " (v.batch.name) } }
        }
    })
}
