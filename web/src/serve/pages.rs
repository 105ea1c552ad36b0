//! The routes. Each page handler builds its data once and serves it as HTML at its path
//! and as JSON under `/api` + path, with the same authorization: an [`Instructor`]
//! argument for instructor pages, a live student token for `/s/<token>`.

use std::collections::HashMap;
use std::sync::Arc;

use actix_multipart::Multipart;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::{HttpRequest, HttpResponse, web};
use grader::{Analysis, BugList, GradeChange, ProblemReport, RerunMode, Stability, changed_since, compare, grade_changes, stability};
use maud::{Markup, PreEscaped, html};
use serde::{Deserialize, Serialize};

use super::auth::{Instructor, Refused, SESSION_COOKIE, SESSION_SECONDS, check_password, random_token};
use super::checks::{self, CHECK_REPORT};
use super::db::{CheckStatus, UPLOAD_DISCARDED, UPLOAD_PENDING, UPLOAD_SAVED, AnalysisRow, AnalysisSettings, BatchRow, ProblemRow, Status, StudentRow, SubmissionRow, now};
use super::forms::{BatchForm, MAX_STABILITY_SEEDS, batch_form, bundle_form, form_again, late_form, name_field, rename_form, roster_form, run_form, stability_form};
use super::html::{bug_list, button, confirm_button, csrf_field, table_filter, date, markdown, page};
use super::store::sha256_hex;
use super::upload::{Form, UploadReport, choose_roster, form_files, validate};
use super::worker::LiveProgress;
use super::{App, AppError, Page};
use course::exports;
use present::list_or_none;
use course::outputs::{main_cohorts, score_rows, scores_csv};
use course::problem_dir::{PROBLEM_FILES, ProblemToml};
use course::submissions::RosterRow;

type AppData = web::Data<Arc<App>>;

/// Registers every route; pages twice, as HTML and as JSON under `/api`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    macro_rules! page {
        ($path:literal, $handler:expr) => {
            cfg.route($path, web::get().to($handler));
            cfg.route(concat!("/api", $path), web::get().to($handler));
        };
    }
    cfg.route("/", web::get().to(home));
    cfg.route("/login", web::get().to(login_form));
    cfg.route("/login", web::post().to(login));
    cfg.route("/logout", web::post().to(logout));
    page!("/problems", problems_page);
    cfg.route("/problems", web::post().to(upload_problem));
    page!("/problems/{id}", problem_page);
    page!("/problems/checks/{id}", problem_check_page);
    cfg.route("/problems/{id}/bundle", web::post().to(replace_problem));
    cfg.route("/problems/{id}/batches", web::post().to(upload_batch));
    page!("/uploads/{id}", upload_page);
    cfg.route("/uploads/{id}/save", web::post().to(save_upload));
    cfg.route("/uploads/{id}/discard", web::post().to(discard_upload));
    cfg.route("/static/app.js", web::get().to(app_js));
    page!("/batches", batches_page);
    cfg.route("/batches", web::post().to(new_batch));
    page!("/batches/{id}", batch_page);
    cfg.route("/batches/{id}/rename", web::post().to(rename_batch));
    cfg.route("/batches/{id}/roster", web::post().to(attach_roster));
    page!("/batches/{id}/delete", delete_batch_page);
    cfg.route("/batches/{id}/delete", web::post().to(delete_batch));
    cfg.route("/batches/{id}/late", web::post().to(upload_late));
    cfg.route("/batches/{id}/analyses", web::post().to(queue_analysis));
    cfg.route("/batches/{id}/release", web::post().to(release));
    page!("/analyses/{id}", analysis_page);
    cfg.route("/analyses/{id}/cancel", web::post().to(cancel_analysis));
    cfg.route("/analyses/{id}/stability", web::post().to(queue_stability));
    cfg.route("/analyses/{id}/files/{file}", web::get().to(analysis_file));
    page!("/experiment", experiment_page);
    cfg.route("/experiment/{file}", web::get().to(experiment_file));
    page!("/students", students_page);
    cfg.route("/students/links.csv", web::get().to(links_csv));
    cfg.route("/students/{course}/{id}/issue", web::post().to(issue_link));
    cfg.route("/students/{course}/{id}/revoke", web::post().to(revoke_link));
    page!("/s/{token}", student_page);
    cfg.route("/s/{token}/{analysis}.md", web::get().to(student_markdown));
    cfg.route("/s/{token}/{analysis}/statement", web::get().to(student_statement));
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

fn found<T>(value: Option<T>) -> Result<T, AppError> {
    value.ok_or(AppError::NotFound)
}

// ---------------------------------------------------------------- login

async fn home(who: Option<Instructor>) -> Page {
    see_other(if who.is_some() { "/batches" } else { "/login" })
}

/// The cookie that carries the login form's CSRF token before there is a session.
const LOGIN_COOKIE: &str = "bugrank_login";

async fn login_form(app: AppData) -> Page {
    Ok(login_page(&app, None))
}

/// The login form, with a fresh CSRF token in a cookie and in the form (a forged login
/// cannot read the cookie, so it cannot send the matching field).
fn login_page(app: &App, error: Option<&str>) -> HttpResponse {
    let token = random_token();
    let mut response = page(
        "Log in",
        None,
        html! {
            @if let Some(error) = error { p.bad { (error) } }
            form method="post" action="/login" {
                input type="hidden" name="csrf" value=(token);
                p { label { "Login " input name="login" autofocus required; } }
                p { label { "Password " input name="password" type="password" required; } }
                button type="submit" { "Log in" }
            }
            p.muted { "Instructor accounts are made with " code { "bugrank user add" } "; the first one is printed when the service first starts. Students open the private link their instructor sent them." }
        },
    );
    let cookie = Cookie::build(LOGIN_COOKIE, token).path("/login").http_only(true).same_site(SameSite::Strict).secure(app.secure_cookies).finish();
    response.add_cookie(&cookie).expect("a valid cookie");
    if error.is_some() {
        *response.status_mut() = actix_web::http::StatusCode::UNAUTHORIZED;
    }
    response
}

#[derive(Deserialize)]
struct LoginForm {
    login: String,
    password: String,
    csrf: Option<String>,
}

async fn login(app: AppData, req: HttpRequest, form: web::Form<LoginForm>) -> Page {
    let LoginForm { login, password, csrf } = form.into_inner();
    let expected = req.cookie(LOGIN_COOKIE).map(|c| c.value().to_owned());
    match (csrf, expected) {
        (Some(given), Some(expected)) if super::auth::same_secret(&given, &expected) => {}
        _ => return Err(AppError::Csrf),
    }
    let address = req.peer_addr().map_or_else(String::new, |a| a.ip().to_string());
    let slot = match app.logins.admit(&login, &address, now()) {
        Ok(slot) => slot,
        Err(refused) => {
            let (message, seconds) = match refused {
                Refused::Wait(seconds) => {
                    (format!("Too many failed logins for this account or from your address: try again in {seconds} s."), seconds)
                }
                Refused::Busy => ("Many logins at once: try again in a second.".to_owned(), 1),
            };
            let mut response = login_page(&app, Some(&message));
            *response.status_mut() = actix_web::http::StatusCode::TOO_MANY_REQUESTS;
            response.headers_mut().insert(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from(seconds),
            );
            return Ok(response);
        }
    };
    let app2 = app.clone();
    let name = login.clone();
    let checked = blocking(move || {
        let account = app2.db.instructor(&name)?;
        let matches = check_password(&password, account.as_ref().map(|(_, hash)| hash.as_str()));
        Ok(account.filter(|_| matches).map(|(id, _)| id))
    })
    .await?;
    drop(slot);
    app.logins.record(&login, &address, checked.is_some(), now());
    let Some(instructor) = checked else { return Ok(login_page(&app, Some("Wrong login or password."))) };
    let token = random_token();
    app.db.add_session(&sha256_hex(token.as_bytes()), instructor, &random_token(), now() + SESSION_SECONDS)?;
    let cookie = Cookie::build(SESSION_COOKIE, token)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(app.secure_cookies)
        .max_age(actix_web::cookie::time::Duration::seconds(SESSION_SECONDS))
        .finish();
    Ok(HttpResponse::SeeOther().cookie(cookie).insert_header(("Location", "/batches")).finish())
}

#[derive(Deserialize)]
struct CsrfForm {
    csrf: Option<String>,
}

async fn logout(app: AppData, req: HttpRequest, who: Instructor, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        app.db.end_session(&sha256_hex(cookie.value().as_bytes()))?;
    }
    let mut gone = Cookie::build(SESSION_COOKIE, "").path("/").secure(app.secure_cookies).finish();
    gone.make_removal();
    Ok(HttpResponse::SeeOther().cookie(gone).insert_header(("Location", "/login")).finish())
}

// ---------------------------------------------------------------- problems

#[derive(Serialize)]
struct ProblemsView {
    problems: Vec<ProblemRow>,
}

async fn problems_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let view = ProblemsView { problems: app.db.problems()? };
    respond(&req, Some(&who), "Problems", &view, |v| {
        html! {
            table {
                tr { th { "Problem" } th { "Directory name" } th { "Source" } }
                @for p in &v.problems {
                    tr { td { a href={ "/problems/" (p.id) } { (p.title) } } td { code { (p.name) } } td { @if p.builtin { "built in" } @else { "uploaded" } } }
                }
            }
            div.card {
                h3 { "Upload a problem" }
                p.muted { "A zip of a problem directory: " code { "problem.toml" } ", the reference, the generator, and a checker when several outputs can be right, each as a module (" code { "reference.wasm" } ") or a source built here in the sandbox (" code { "reference.c" } ", " code { ".cpp" } " or " code { ".rs" } "; a generator gets the library " code { "bugrank_gen" } "); " code { "statement.md" } " is shown to instructors; examples in " code { "submissions/" } " named " code { "correct…" } " and " code { "buggy…" } " are checked (as " code { "bugrank new-problem" } " writes them). The problem is checked when uploaded, and the report is on its page. Other files are ignored." }
                (bundle_form(&who, "/problems", "Upload"))
            }
        }
    })
}

/// The longest name a problem's folder may have (the bundle's folder, else the zip's
/// name): a name people read in lists, and far below what a file system allows.
const MAX_PROBLEM_NAME_CHARS: usize = 64;

/// The most example submissions a bundle may carry: each is built and run on a thousand
/// inputs in the check; `new-problem` writes two.
const MAX_EXAMPLES: usize = 20;

/// Unpacks a problem bundle into a new folder of the store and reads its settings, so that
/// a bundle that is not one (or has bad settings) is refused at once with the reason.
/// Returns the folder and the problem's name. Every entry is streamed into its file within
/// one [`Unpacking`] budget: a bundle is never held unpacked.
fn unpack_bundle(app: &App, file_name: &str, bytes: Vec<u8>) -> Result<(std::path::PathBuf, String), AppError> {
    let bad = |reason: String| AppError::BadRequest(format!("{file_name}: {reason}"));
    let mut unpacking = course::submissions::Unpacking::new();
    let mut zip = unpacking.open(course::hand_in::SharedBytes(std::sync::Arc::new(bytes))).map_err(|e| bad(format!("not a readable zip: {e:#}")))?;
    // The problem's files, at the top or in one folder, and its examples in `submissions/`
    // there (the layout `bugrank new-problem` writes): which entry goes to which file.
    let mut wanted: Vec<(usize, String)> = Vec::new();
    let mut folders = std::collections::BTreeSet::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| bad(e.to_string()))?;
        let name = entry.name().to_owned();
        if course::submissions::is_unsafe_path(&name) {
            return Err(bad(format!("unsafe path in zip (absolute or with `..`): {name}")));
        }
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        let (dir, file) = match parts[..] {
            ["submissions", base] if is_example(base) => (None, format!("submissions/{base}")),
            [dir, "submissions", base] if is_example(base) => (Some(dir.to_owned()), format!("submissions/{base}")),
            [base] if PROBLEM_FILES.contains(&base) => (None, base.to_owned()),
            [dir, base] if PROBLEM_FILES.contains(&base) => (Some(dir.to_owned()), base.to_owned()),
            _ => continue,
        };
        if entry.is_dir() {
            continue;
        }
        if wanted.iter().any(|(_, f)| *f == file) {
            return Err(bad(format!("it holds `{file}` twice: a bundle is one problem, at its top or in one folder")));
        }
        folders.extend(dir);
        wanted.push((i, file));
    }
    if folders.len() > 1 {
        let names: Vec<String> = folders.iter().map(|f| format!("`{f}`")).collect();
        return Err(bad(format!("its problem files are in {} folders ({}): a bundle is one problem, at its top or in one folder", folders.len(), names.join(", "))));
    }
    let examples = wanted.iter().filter(|(_, f)| f.starts_with("submissions/")).count();
    if examples > MAX_EXAMPLES {
        return Err(bad(format!("it has {examples} examples in submissions/, more than {MAX_EXAMPLES}")));
    }
    if !wanted.iter().any(|(_, n)| n == "problem.toml") {
        return Err(bad("the bundle has no problem.toml (at its top or in one folder)".into()));
    }
    for program in ["reference", "generator"] {
        if !wanted.iter().any(|(_, n)| n.strip_prefix(program).is_some_and(|rest| rest.starts_with('.'))) {
            return Err(bad(format!("the bundle has no {program}.wasm, nor a {program}.c, .cpp or .rs (at its top or in one folder)")));
        }
    }
    let name = folders.into_iter().next().unwrap_or_else(|| file_name.trim_end_matches(".zip").to_owned());
    if name.chars().count() > MAX_PROBLEM_NAME_CHARS {
        return Err(bad(format!("the problem's name (its folder, or the zip's name) has {} characters, more than {MAX_PROBLEM_NAME_CHARS}", name.chars().count())));
    }
    let dir = app.store.new_problem_dir(&name)?;
    let written: anyhow::Result<()> = wanted.iter().try_for_each(|(index, file)| {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap_or(&dir))?;
        let mut out = std::fs::File::create(&path)?;
        let size = unpacking.unpack(&mut zip.by_index(*index)?, sandbox::MAX_MODULE_BYTES as u64, &mut out)?;
        anyhow::ensure!(size <= sandbox::MAX_MODULE_BYTES as u64, "{file} is larger than {} bytes", sandbox::MAX_MODULE_BYTES);
        Ok(out.sync_all()?)
    });
    // Its settings are read here, so that a bundle with bad ones is refused at once; the
    // rest of the check (building, running) is the check thread's (`checks.rs`).
    let settings = written.and_then(|()| course::problem_dir::ProblemToml::read(&dir).map(drop).map_err(anyhow::Error::from));
    match settings {
        Ok(()) => Ok((dir, name)),
        Err(error) => {
            // Nothing of a refused bundle stays: not its files, not its numbered folder.
            let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
            Err(bad(format!("{error:#}")))
        }
    }
}

/// Whether `file` is an example submission of a problem bundle (`correct…`, `buggy…`).
fn is_example(file: &str) -> bool {
    course::problem_check::example_should_pass(file).is_some() && course::submissions::is_batch_file(file)
}

/// The one bundle of a form.
fn bundle_of(form: Form) -> Result<(String, Vec<u8>), AppError> {
    form.files.into_iter().find(|(field, _, _)| field == "bundle").map(|(_, name, bytes)| (name, bytes)).ok_or_else(|| AppError::BadRequest("choose a problem bundle (.zip) to upload".into()))
}

async fn upload_problem(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart) -> Page {
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let (file, bytes) = bundle_of(form)?;
        checked_bundle(&app, file, bytes, None).await
    }
    .await;
    form_again(&req, &who, "The problem was not uploaded", result, || bundle_form(&who, "/problems", "Upload"))
}

async fn replace_problem(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
    let id = path.into_inner();
    found(app.db.problem(id)?)?;
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let (file, bytes) = bundle_of(form)?;
        checked_bundle(&app, file, bytes, Some(id)).await
    }
    .await;
    let action = format!("/problems/{id}/bundle");
    form_again(&req, &who, "The problem was not replaced", result, || bundle_form(&who, &action, "Replace"))
}

/// Unpacks a bundle (a new problem, or one that `replaces` a problem) and has it checked
/// outside the request (`checks.rs`); answers as the check ended when it ends within
/// [`checks::BUNDLE_CHECK_WAIT`] (the problem's page, or the refusal), else with the
/// check's page.
async fn checked_bundle(app: &AppData, file: String, bytes: Vec<u8>, replaces: Option<i64>) -> Page {
    let app = app.clone();
    let check = blocking(move || {
        let (dir, name) = unpack_bundle(&app, &file, bytes)?;
        let id = app.db.add_problem_check(&file, &name, &app.store.relative(&dir), replaces)?;
        app.checks.queue(id)?;
        Ok(checks::wait(&app, id, checks::BUNDLE_CHECK_WAIT)?)
    })
    .await?;
    let check = found(check)?;
    match (check.status, check.problem_id, check.error) {
        (CheckStatus::Ready, Some(problem), _) => see_other(&format!("/problems/{problem}")),
        (CheckStatus::Refused, _, error) => Err(AppError::BadRequest(error.unwrap_or_default())),
        _ => see_other(&format!("/problems/checks/{}", check.id)),
    }
}

/// How often the page of a check still running reloads itself, in seconds.
const CHECK_PAGE_RELOAD_SECONDS: u32 = 2;

async fn problem_check_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let check = found(app.db.problem_check(path.into_inner())?)?;
    if !is_api(&req) {
        if let (CheckStatus::Ready, Some(problem)) = (check.status, check.problem_id) {
            return see_other(&format!("/problems/{problem}"));
        }
    }
    let action = check.replaces.map_or_else(|| "/problems".to_owned(), |id| format!("/problems/{id}/bundle"));
    let checking = check.status == CheckStatus::Checking;
    let mut response = respond(&req, Some(&who), &format!("Checking {}", check.file), &check, |c| {
        html! {
            @match c.status {
                CheckStatus::Checking => p role="status" { "The bundle " code { (c.file) } " is being built and checked: its programs run on a thousand generated inputs. This page reloads itself until the check ends (at most " (checks::BUNDLE_CHECK_SECONDS / 60) " minutes)." },
                CheckStatus::Ready => p { "Checked: " a href={ "/problems/" (c.problem_id.unwrap_or_default()) } { "the problem's page" } "." },
                CheckStatus::Refused => {
                    p.bad.refused role="alert" { (c.error.clone().unwrap_or_default()) }
                    (bundle_form(&who, &action, if c.replaces.is_some() { "Replace" } else { "Upload" }))
                }
            }
        }
    })?;
    if checking && !is_api(&req) {
        response.headers_mut().insert(actix_web::http::header::REFRESH, actix_web::http::header::HeaderValue::from(CHECK_PAGE_RELOAD_SECONDS));
    }
    Ok(response)
}

#[derive(Serialize)]
struct ProblemView {
    problem: ProblemRow,
    statement: Option<String>,
    /// `problem.toml` as written.
    settings: String,
    batches: Vec<BatchRow>,
    /// Course names for the upload form, the most recently used first.
    courses: Vec<String>,
    /// How each language's sources are compiled here, the same for every student.
    compilers: Vec<CompilerView>,
    /// The check of the problem made when its bundle was uploaded (`bugrank
    /// check-problem`'s report); none for the demo problems.
    check: Option<grader::ProblemCheck>,
}

/// One language's compiler on this machine, or what installs it.
#[derive(Serialize)]
struct CompilerView {
    language: &'static str,
    /// The compiler's version, or why there is none.
    version: Result<String, String>,
    /// The compiler's fixed flags (the sources and `-o main.wasm` follow).
    flags: String,
    /// Whether the problem accepts sources in this language (its `languages`).
    accepted: bool,
}

fn compilers(app: &App, accepted: &[toolchain::Language]) -> Vec<CompilerView> {
    toolchain::Language::ALL
        .into_iter()
        .map(|language| CompilerView {
            accepted: accepted.contains(&language),
            language: language.name(),
            version: app.tools.builder.ready(language).map(|t| t.version.clone()).map_err(|missing| missing.to_string()),
            flags: language.flags().join(" "),
        })
        .collect()
}

async fn problem_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let problem = found(app.db.problem(path.into_inner())?)?;
    let dir = app.local(&problem.dir)?;
    let view = ProblemView {
        statement: std::fs::read_to_string(dir.join("statement.md")).ok(),
        settings: std::fs::read_to_string(dir.join("problem.toml")).unwrap_or_default(),
        batches: app.db.batches()?.into_iter().filter(|b| b.problem_id == problem.id).collect(),
        courses: app.db.courses()?,
        compilers: compilers(&app, &accepted_languages(&app, &problem)?),
        check: std::fs::read(dir.join(CHECK_REPORT)).ok().and_then(|json| serde_json::from_slice(&json).ok()),
        problem,
    };
    respond(&req, Some(&who), &view.problem.title.clone(), &view, |v| {
        html! {
            (batch_form(&who, &BatchForm { problems: &[], problem: Some(v.problem.id), courses: &v.courses, name: "", course: None }))
            h2 { "Batches" }
            @if v.batches.is_empty() { p.muted { "None yet." } }
            ul { @for b in &v.batches { li { a href={ "/batches/" (b.id) } { (b.name) } } } }
            h2 { "Statement" }
            @match &v.statement { Some(s) => div.card { (markdown(s)) }, None => p.muted { "This problem has no statement.md." } }
            h2 { "Settings" }
            pre { (v.settings) }
            @if let Some(check) = &v.check {
                h2 { "Problem check" }
                p.muted { "Made when the bundle was uploaded, on the " (check.inputs) " generated inputs the time budget is measured on (the same as " code { "bugrank check-problem" } "). Examples in the bundle's " code { "submissions/" } " folder named " code { "correct…" } " must pass every input, those named " code { "buggy…" } " fail some." }
                p { @if check.passed() { span.ok { "Ready: every check passed." } } @else { span.bad { (check.checks.iter().filter(|c| !c.passed).count()) " of " (check.checks.len()) " checks failed: fix the problem before grading a class with it." } } }
                table {
                    tr { th { "Check" } th { "Result" } th { "Evidence" } }
                    @for c in &check.checks {
                        tr { td { (c.what) } td { @if c.passed { span.ok { "ok" } } @else { span.bad { "failed" } } } td { (c.detail) } }
                    }
                }
                details {
                    summary { "Sample inputs and the reference's outputs; the reference's cost" }
                    table {
                        tr { th { "Input" } th { "Reference's output" } }
                        @for sample in &check.samples { tr { td { pre { (sample.input) } } td { pre { (sample.output) } } } }
                    }
                    p { "The reference's fuel per input: min " (check.cost.min) ", median " (check.cost.median) ", 90% " (check.cost.p90) ", 99% " (check.cost.p99) ", max " (check.cost.max) " (its limit: " (check.cost.limit) ")." }
                }
            }
            h2 { "How sources are compiled" }
            p.muted { "Every student's sources are compiled the same way, in a sandbox (no network, no files but the compiler's), within "
                (toolchain::COMPILE_SECONDS) " s and " (toolchain::COMPILE_MEMORY_BYTES >> 30) " GiB. A compile error is the student's result: they rank below everyone whose program compiled, and their page shows the compiler's message." }
            table {
                tr { th { "Language" } th { "Accepted" } th { "Compiler" } th { "Flags" } }
                @for c in &v.compilers {
                    tr { td { (c.language) }
                         td { @if c.accepted { "yes" } @else { span.muted { "no (not in this problem's " code { "languages" } ")" } } }
                         td { @match &c.version { Ok(version) => (version), Err(missing) => span.bad { (missing) } } }
                         td { code { (c.flags) } } }
                }
            }
            details {
                summary { "Replace the reference, generator, checker or limits" }
                p.muted { "Upload a new bundle for this problem. Earlier analyses keep the version they used; run the analysis again to see how each score changes." }
                (bundle_form(&who, &format!("/problems/{}/bundle", v.problem.id), "Replace"))
            }
        }
    })
}

// ---------------------------------------------------------------- uploads


/// The languages `problem` accepts students' sources in (its `problem.toml`).
fn accepted_languages(app: &App, problem: &ProblemRow) -> Result<Vec<toolchain::Language>, AppError> {
    Ok(ProblemToml::read(&app.local(&problem.dir)?).map_err(|e| AppError::Internal(e.into()))?.languages)
}

async fn upload_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
    receive_batch(app, req, who, payload, Some(path.into_inner())).await
}

/// The Batches page's upload: the problem is a field of the form.
async fn new_batch(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart) -> Page {
    receive_batch(app, req, who, payload, None).await
}

/// A new batch for `problem` (or the form's `problem`): checked, then saved or held (see
/// [`save_or_hold`]). A refusal shows the form again with the values sent.
async fn receive_batch(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart, problem: Option<i64>) -> Page {
    let mut sent = (String::new(), None::<String>);
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        sent = (form.field("name").unwrap_or_default().to_owned(), form.field("course").map(str::to_owned));
        let chosen = match problem {
            Some(id) => Some(id),
            None => form.field("problem").and_then(|id| id.parse().ok()),
        };
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
            let mut report = validate(&app2, &name, &accepted_languages(&app2, &problem)?, modules, verdicts, roster, false)?;
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
        batch_form(&who, &BatchForm { problems: &problems, problem, courses: &courses, name: &sent.0, course: sent.1.as_deref() })
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
    let submissions = report.submissions();
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
            let roster: Vec<RosterRow> =
                report.roster.iter().filter(|r| submissions.iter().any(|s| s.student == r.id)).cloned().collect();
            Ok(app.db.add_batch(problem, &report.course, &report.name, &submissions, &roster)?)
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

async fn upload_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
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
                    @if v.accepted > 0 { (button(&who, &format!("/uploads/{}/save", v.id), &format!("Save the {} accepted files", v.accepted))) " " }
                    (button(&who, &format!("/uploads/{}/discard", v.id), "Discard"))
                },
            }
            table {
                tr { th { "File" } th { "Student" } th { "Verdict" } }
                @for f in &v.report.files {
                    tr {
                        td { code { (f.file) } }
                        td { (f.student.as_deref().unwrap_or("")) }
                        td { @match &f.rejected { None => span.ok { "accepted" }, Some(reason) => span.bad { "rejected: " (reason) } } }
                    }
                }
            }
            @if let Some(from) = &v.report.roster_from {
                p { "Roster: " (from) ", " (v.report.roster.len()) " rows." }
            }
            @if !v.report.roster_problems.is_empty() {
                h2 { "Roster" }
                ul { @for p in &v.report.roster_problems { li.bad { (p) } } }
            }
        }
    })
}

async fn save_upload(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
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

async fn discard_upload(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let id = path.into_inner();
    let (view, _) = upload_view(&app, id)?;
    if view.status != UPLOAD_PENDING {
        return Err(AppError::BadRequest(format!("this upload is already {}", view.status)));
    }
    app.db.set_upload(id, view.batch, UPLOAD_DISCARDED)?;
    see_other(&format!("/uploads/{id}"))
}

async fn upload_late(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
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
            let mut report = validate(&app2, &batch.name, &accepted_languages(&app2, &problem)?, modules, verdicts, None, true)?;
            let roster = app2.db.roster(batch.id)?;
            if !roster.is_empty() {
                for f in report.files.iter_mut().filter(|f| f.rejected.is_none()) {
                    let student = f.student.clone().unwrap_or_default();
                    if !roster.iter().any(|r| r.id == student) {
                        f.rejected = Some(format!("{}: no roster row for `{student}` in this batch", f.file));
                    }
                }
            }
            save_or_hold(&app2, batch.problem_id, Some(batch.id), report)
        })
        .await?;
        see_other(&format!("/uploads/{id}"))
    }
    .await;
    form_again(&req, &who, "The late submission was not added", result, || late_form(&who, id))
}

// ---------------------------------------------------------------- batches

#[derive(Serialize)]
struct BatchSummary {
    batch: BatchRow,
    submissions: usize,
    latest: Option<AnalysisRow>,
    /// The analysis students see: the latest finished one of a released batch.
    shown: Option<i64>,
}

#[derive(Serialize)]
struct BatchesView {
    batches: Vec<BatchSummary>,
    /// For the new batch form.
    problems: Vec<ProblemRow>,
    courses: Vec<String>,
}

async fn batches_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let batches = app
        .db
        .batches()?
        .into_iter()
        .map(|batch| {
            Ok(BatchSummary {
                submissions: app.db.submissions(batch.id)?.len(),
                latest: app.db.analyses_of(batch.id)?.into_iter().next(),
                shown: if batch.released { app.db.latest_done(batch.id)? } else { None },
                batch,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    let view = BatchesView { batches, problems: app.db.problems()?, courses: app.db.courses()? };
    respond(&req, Some(&who), "Batches", &view, |v| {
        let form = BatchForm { problems: &v.problems, problem: None, courses: &v.courses, name: "", course: None };
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
                        td { (students_see(b.batch.released, b.shown)) }
                    }
                }
            }
            @if !v.batches.is_empty() { (batch_form(&who, &form)) }
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

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Queued => "queued",
        Status::Running => "running",
        Status::Done => "done",
        Status::Failed => "failed",
        Status::Cancelled => "cancelled",
    }
}

#[derive(Serialize)]
struct BatchView {
    batch: BatchRow,
    submissions: Vec<SubmissionRow>,
    roster: Vec<RosterRow>,
    analyses: Vec<AnalysisRow>,
    /// The analysis students see: the latest finished one, once the batch is released.
    shown: Option<i64>,
}

async fn batch_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let view = BatchView {
        submissions: app.db.submissions(batch.id)?,
        roster: app.db.roster(batch.id)?,
        analyses: app.db.analyses_of(batch.id)?,
        shown: if batch.released { app.db.latest_done(batch.id)? } else { None },
        batch,
    };
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
            (run_form(&who, id, v.analyses.iter().any(|a| a.status == Status::Done), v.batch.released))
            h2 { "Analyses" }
            @if v.analyses.is_empty() { p.muted { "None yet." } }
            ul { @for a in &v.analyses { li { a href={ "/analyses/" (a.id) } { "#" (a.id) } " · " (status_word(a.status)) " · seed " (a.seed) " · " (date(a.created)) } } }
            div.card {
                h3 { "Students' access" }
                @if v.batch.released {
                    @match v.shown {
                        Some(analysis) => p.ok { "Students see their bug lists and scores of " a href={ "/analyses/" (analysis) } { "analysis #" (analysis) } ", the latest finished." }
                        None => p { "Released, but no analysis has finished: students see nothing of this batch yet. Run one above." }
                    }
                    form method="post" action={ "/batches/" (id) "/release" } { (csrf_field(&who)) input type="hidden" name="released" value="0"; button type="submit" { "Hide from students" } }
                } @else {
                    p { "Hidden from students until you release it." }
                    form method="post" action={ "/batches/" (id) "/release" } { (csrf_field(&who)) input type="hidden" name="released" value="1"; button type="submit" { "Release to students" } }
                }
                p.muted { "Each student's private link is on the " a href="/students" { "Students" } " page." }
            }
            h2 { "Submissions" }
            (table_filter("submissions", "submissions"))
            table.sortable #submissions {
                tr { th { "Student" } th { "Cohort" } th { "File" } th { "Uploaded" } }
                @for s in &v.submissions {
                    tr {
                        td { (s.student) }
                        td { (v.roster.iter().find(|r| r.id == s.student).map(|r| r.cohort.as_str()).unwrap_or("")) }
                        td { code { (s.file) } }
                        td { (date(s.uploaded)) @if s.late { " " strong.bad { "late" } } }
                    }
                }
            }
            (late_form(&who, id))
            (roster_form(&who, id, !v.roster.is_empty()))
        }
    })
}

#[derive(Deserialize)]
struct RenameForm {
    csrf: Option<String>,
    name: Option<String>,
}

async fn rename_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<RenameForm>) -> Page {
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

async fn delete_batch_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
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

async fn delete_batch(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
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
async fn attach_roster(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
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
        let (rows, rejected) = course::submissions::parse_roster(&file, text.as_slice()).map_err(|e| AppError::BadRequest(format!("{e:#}")))?;
        if !rejected.is_empty() {
            let reasons: Vec<String> = rejected.into_iter().map(|r| r.reason).collect();
            return Err(AppError::BadRequest(format!("{file}: nothing was changed, because: {}", reasons.join("; "))));
        }
        let students: Vec<String> = app.db.submissions(batch.id)?.into_iter().map(|s| s.student).collect();
        let (kept, left_out): (Vec<RosterRow>, Vec<RosterRow>) = rows.into_iter().partition(|r| students.contains(&r.id));
        if kept.is_empty() {
            return Err(AppError::BadRequest(format!("{file}: no row names a student of this batch: nothing was changed")));
        }
        app.db.replace_roster(batch.id, &kept)?;
        let missing: Vec<&String> = students.iter().filter(|s| !kept.iter().any(|r| &r.id == *s)).collect();
        let view = serde_json::json!({ "batch": batch.id, "rows": kept.len(), "left_out": left_out.iter().map(|r| &r.id).collect::<Vec<_>>(), "without_row": missing });
        respond(&req, Some(&who), "Roster attached", &view, |_| {
            html! {
                p.ok { "The roster of " a href={ "/batches/" (batch.id) } { (batch.name) } " is now " code { (file) } ": " (kept.len()) " rows." }
                @if !left_out.is_empty() {
                    p { (left_out.len()) " rows name no student of this batch and were left out: " (left_out.iter().map(|r| r.id.as_str()).collect::<Vec<_>>().join(", ")) "." }
                }
                @if !missing.is_empty() {
                    p.bad { (missing.len()) " students of the batch have no row (graded without a cohort): " (missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")) "." }
                }
                p { "Grades did not change; the analyses' pages, exports and the experiment report use the new cohorts and columns now. " a href={ "/batches/" (batch.id) } { "Back to the batch" } }
            }
        })
    }
    .await;
    form_again(&req, &who, "The roster was not attached", result, || roster_form(&who, batch.id, !app.db.roster(batch.id).unwrap_or_default().is_empty()))
}

#[derive(Deserialize)]
struct RunForm {
    csrf: Option<String>,
    seed: Option<String>,
    stable_after: Option<String>,
    fuel_factor: Option<String>,
    /// `frozen` or `full`; by default frozen once the batch is released.
    mode: Option<String>,
}

/// An optional positive number from a form field; empty means the default.
fn number(field: &Option<String>, name: &str) -> Result<Option<u64>, AppError> {
    match field.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(text) => text.parse().map(Some).map_err(|_| AppError::BadRequest(format!("{name} must be a whole number, not `{text}`"))),
    }
}

async fn queue_analysis(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<RunForm>) -> Page {
    let batch = found(app.db.batch(path.into_inner())?)?;
    let result = queue_run(&app, &req, &who, &batch, &form);
    form_again(&req, &who, "The analysis was not queued", result, || {
        let done = app.db.latest_done(batch.id).ok().flatten().is_some();
        run_form(&who, batch.id, done, batch.released)
    })
}

fn queue_run(app: &App, req: &HttpRequest, who: &Instructor, batch: &BatchRow, form: &RunForm) -> Page {
    who.check_csrf(req, form.csrf.as_deref())?;
    let problem = found(app.db.problem(batch.problem_id)?)?;
    let settings = AnalysisSettings {
        seed: number(&form.seed, "the seed")?.unwrap_or(1),
        stable_after: number(&form.stable_after, "stop after")?.filter(|&n| n > 0),
        fuel_factor: number(&form.fuel_factor, "the fuel factor")?.filter(|&n| n > 0),
        rerun: Some(match form.mode.as_deref() {
            Some("frozen") => RerunMode::Frozen,
            Some("full") => RerunMode::Full,
            None if batch.released => RerunMode::Frozen,
            None => RerunMode::Full,
            Some(other) => return Err(AppError::BadRequest(format!("the mode must be `frozen` or `full`, not `{other}`"))),
        }),
    };
    if app.db.submissions(batch.id)?.is_empty() {
        return Err(AppError::BadRequest("the batch has no submissions to analyse".into()));
    }
    let id = app.db.queue_analysis(batch.id, &problem.dir, settings)?;
    app.jobs.notify();
    see_other(&format!("/analyses/{id}"))
}

#[derive(Deserialize)]
struct ReleaseForm {
    csrf: Option<String>,
    released: String,
}

async fn release(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<ReleaseForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = found(app.db.batch(path.into_inner())?)?;
    app.db.set_released(batch.id, form.released == "1")?;
    see_other(&format!("/batches/{}", batch.id))
}

// ---------------------------------------------------------------- analyses


#[derive(Serialize)]
struct AnalysisView {
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
    /// Per answer, its lowest and highest percentage over the analyses compared.
    percent_range: Vec<(String, f64, f64)>,
}


fn stability_view(app: &App, current: &Analysis, id: i64) -> Result<Option<StabilityView>, AppError> {
    let runs = app.db.stability_runs(id)?;
    if runs.is_empty() {
        return Ok(None);
    }
    let done: Vec<&AnalysisRow> = runs.iter().filter(|r| r.status == Status::Done).collect();
    let failed = runs.iter().filter(|r| matches!(r.status, Status::Failed | Status::Cancelled)).count();
    let (mut result, mut percent_range) = (None, Vec::new());
    if done.len() == runs.len() {
        let mut analyses = vec![current.clone()];
        for run in &done {
            analyses.push((*app.analysis(run.id)?).clone());
        }
        percent_range = current
            .answers
            .iter()
            .map(|answer| {
                let percents = analyses.iter().filter_map(|a| a.answers.iter().find(|x| x.id == answer.id)).map(|x| x.percent);
                let (low, high) = percents.fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p), h.max(p)));
                (answer.id.clone(), low, high)
            })
            .collect();
        result = Some(stability(&analyses));
    }
    Ok(Some(StabilityView { runs: runs.len(), done: done.len(), failed, result, percent_range }))
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
    Ok(AnalysisView { analysis, batch, progress, result, bug_lists, changes, stability, cohorts })
}

async fn analysis_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
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

fn analysis_body(who: &Instructor, v: &AnalysisView, svg: Option<String>) -> Markup {
    let id = v.analysis.id;
    html! {
        p { "Batch " a href={ "/batches/" (v.batch.id) } { (v.batch.name) } " · problem " (v.batch.problem) " · seed " (v.analysis.seed)
            @if let Some(n) = v.analysis.stable_after { " · stop after " (n) } @if let Some(f) = v.analysis.fuel_factor { " · fuel factor " (f) }
            " · " strong #status { (status_word(v.analysis.status)) } }
        @if matches!(v.analysis.status, Status::Queued | Status::Running) {
            div.card #live data-analysis=(id) {
                progress #bar max="100" value=(v.progress.as_ref().map_or(0.0, |p| p.percent)) {}
                p.muted #holder { @if let Some(holder) = &v.analysis.holder { "running on " (holder) } }
                p #phase { @match &v.progress {
                    None => "waiting for a worker",
                    Some(p) => { (p.text) @if let Some(left) = &p.remaining { " · " (left) } },
                } }
                (button(who, &format!("/analyses/{id}/cancel"), "Cancel"))
            }
        }
        @if let Some(error) = &v.analysis.error { p.bad { "The analysis failed: " (error) } }
        @if let Some(result) = &v.result { (results(who, v, result, svg)) }
    }
}

fn percent_text(p: Option<f64>) -> String {
    p.map_or("–".to_owned(), |p| format!("{p:.1}%"))
}

fn results(who: &Instructor, v: &AnalysisView, result: &Analysis, svg: Option<String>) -> Markup {
    let id = v.analysis.id;
    html! {
        p { (result.tests_generated) " tests generated, " (result.executions) " runs; the suite has " strong { (result.scored_tests()) " tests" } ", one per inferred bug." }
        p { "Download: "
            @for (i, (file, label)) in [("scores.csv", "scores.csv"), ("canvas.csv", "Canvas gradebook"), ("moodle.csv", "Moodle import"), ("analysis.json", "analysis.json"), ("order.dot", "order.dot"), ("order.svg", "order.svg")].into_iter().enumerate() {
                @if i > 0 { " · " } a href={ "/analyses/" (id) "/files/" (file) } { (label) }
            }
        }
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
        (table_filter("ranking", "students"))
        (PreEscaped(present::ranking_table_html(result, &present::Ranking { sortable_id: Some("ranking"), cohorts: Some(&v.cohorts), bug_links: true })))
        h2 { "Correctness order" }
        p.muted { "Each box is a class of answers that pass the same tests; an arrow goes from a class to one that passes strictly fewer, labelled with a test that tells them apart (its input is in the suite below, and shown when you point at the arrow)." }
        @if let Some(svg) = svg { div.diagram { (PreEscaped(svg)) } }
        details { summary { "The same order as a table" } (PreEscaped(present::order_table_html(result))) }
        h2 { "The test suite" }
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
                                    td { @if let Some((_, low, high)) = check.percent_range.iter().find(|(a, _, _)| *a == r.answer) { (format!("{low:.1}% to {high:.1}%")) } } } } }
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
struct StabilityForm {
    csrf: Option<String>,
    seeds: Option<String>,
}

async fn queue_stability(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<StabilityForm>) -> Page {
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

async fn cancel_analysis(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let analysis = found(app.db.analysis(path.into_inner())?)?;
    // Here at once if this process runs it; through the store for any process.
    let here = app.jobs.cancel(analysis.id);
    if !app.db.cancel_queued(analysis.id)? && !app.db.request_cancel(analysis.id)? && !here {
        return Err(AppError::BadRequest(format!("analysis #{} is not running (it is {})", analysis.id, status_word(analysis.status))));
    }
    see_other(&format!("/analyses/{}", analysis.id))
}

async fn analysis_file(app: AppData, _who: Instructor, path: web::Path<(i64, String)>) -> Page {
    let (id, file) = path.into_inner();
    let row = found(app.db.analysis(id)?)?;
    if row.status != Status::Done {
        return Err(AppError::NotFound);
    }
    let batch = found(app.db.batch(row.batch_id)?)?;
    let analysis = app.analysis(id)?;
    let roster = app.db.roster(batch.id)?;
    let csv_of = |bytes: csv::Result<Vec<u8>>| bytes.map_err(|e| AppError::Internal(e.into()));
    let (content_type, body) = match file.as_str() {
        "scores.csv" => ("text/csv", scores_csv(&analysis, &roster)?),
        "canvas.csv" => ("text/csv", csv_of(exports::canvas_csv(&analysis, &roster, &batch.name))?),
        "moodle.csv" => ("text/csv", csv_of(exports::moodle_csv(&analysis, &roster, &batch.name))?),
        "order.svg" => ("image/svg+xml", present::order_svg(&analysis).into_bytes()),
        "analysis.json" | "order.dot" => {
            let kind = if file.ends_with("json") { "application/json" } else { "text/vnd.graphviz" };
            (kind, std::fs::read(app.analysis_dir(id)?.join(&file)).map_err(anyhow::Error::from)?)
        }
        _ => return Err(AppError::NotFound),
    };
    Ok(HttpResponse::Ok()
        .content_type(format!("{content_type}; charset=utf-8"))
        .insert_header(("Content-Disposition", format!("attachment; filename=\"analysis-{id}-{file}\"")))
        .body(body))
}

// ---------------------------------------------------------------- experiment report

#[derive(Deserialize)]
struct ExperimentQuery {
    /// Comma-separated batch ids.
    batches: Option<String>,
    first: Option<String>,
    second: Option<String>,
}

#[derive(Serialize)]
struct ExperimentView {
    /// Batches with a finished analysis, to choose from.
    choices: Vec<BatchRow>,
    chosen: Vec<i64>,
    cohorts: Vec<String>,
    first: Option<String>,
    second: Option<String>,
    reports: Vec<ProblemReport>,
    /// Why no report could be made, when one was asked for.
    problem: Option<String>,
}

/// The experiment report the query asks for: each chosen batch's latest finished analysis,
/// two cohorts compared (by default the first batch's two largest).
fn experiment_view(app: &App, query: &ExperimentQuery) -> Result<ExperimentView, AppError> {
    let mut choices = Vec::new();
    let mut scored = Vec::new();
    for batch in app.db.batches()? {
        if let Some(latest) = app.db.latest_done(batch.id)? {
            let analysis = app.analysis(latest)?;
            // Each column names its batch: two batches of one problem must not look alike.
            let label = format!("{} (#{}, {})", batch.name, batch.id, analysis.problem);
            scored.push((batch.id, label, score_rows(&analysis, &app.db.roster(batch.id)?)));
            choices.push(batch);
        }
    }
    let chosen: Vec<i64> = match &query.batches {
        Some(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        None => choices.iter().map(|b| b.id).collect(),
    };
    let rows: Vec<_> = scored.iter().filter(|(id, _, _)| chosen.contains(id)).collect();
    let mut cohorts: Vec<String> = rows.iter().flat_map(|(_, _, r)| r.iter().map(|r| r.cohort.clone())).collect();
    cohorts.sort();
    cohorts.dedup();
    let defaults = rows.first().and_then(|(_, _, r)| main_cohorts(r));
    let first = query.first.clone().or_else(|| defaults.as_ref().map(|d| d.0.clone()));
    let second = query.second.clone().or_else(|| defaults.as_ref().map(|d| d.1.clone()));
    let mut reports = Vec::new();
    let mut problem = None;
    match (&first, &second) {
        (Some(first), Some(second)) if first == second => {
            problem = Some(format!("choose two different cohorts: `{first}` against itself says nothing"));
        }
        (Some(first), Some(second)) => {
            for (_, name, rows) in &rows {
                let report = compare(name, rows, first, second);
                if let Some(empty) = report.cohorts.iter().find(|c| c.n == 0) {
                    problem = Some(format!("{name}: no answer in cohort `{}`", empty.name));
                } else {
                    reports.push(report);
                }
            }
        }
        _ if !rows.is_empty() => problem = Some("choose two cohorts to compare".to_owned()),
        _ => {}
    }
    Ok(ExperimentView { choices, chosen, cohorts, first, second, reports, problem })
}

/// The query string of `view`'s report, for its download links.
fn experiment_query(v: &ExperimentView) -> String {
    let batches = v.chosen.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",");
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("batches", &batches);
    for (key, value) in [("first", &v.first), ("second", &v.second)] {
        if let Some(value) = value {
            query.append_pair(key, value);
        }
    }
    query.finish()
}

async fn experiment_page(app: AppData, req: HttpRequest, who: Instructor, query: web::Query<ExperimentQuery>) -> Page {
    let view = experiment_view(&app, &query)?;
    respond(&req, Some(&who), "Experiment report", &view, |v| {
        html! {
            form method="get" action="/experiment" #experiment {
                p { "Batches (each batch's latest finished analysis): " }
                @for b in &v.choices {
                    label { input type="checkbox" class="batch" value=(b.id) checked[v.chosen.contains(&b.id)]; " " (b.name) " (#" (b.id) ", " (b.course) ")" }
                }
                input type="hidden" name="batches" value=(v.chosen.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(","));
                p {
                    label { "Compare " select name="first" { @for c in &v.cohorts { option selected[v.first.as_ref() == Some(c)] { (c) } } } }
                    label { "with " select name="second" { @for c in &v.cohorts { option selected[v.second.as_ref() == Some(c)] { (c) } } } }
                    button type="submit" { "Compare" }
                }
            }
            @if let Some(problem) = &v.problem { p.bad role="alert" { (problem) } }
            @if !v.reports.is_empty() {
                @let query = experiment_query(v);
                p { "Download: "
                    a href={ "/experiment/report.html?" (query) } { "this report (HTML, self-contained)" } " · "
                    a href={ "/experiment/summary.csv?" (query) } { "its statistics (CSV)" } " · "
                    a href={ "/experiment/manual.csv?" (query) } { "automatic against manual grades (CSV)" } }
                (PreEscaped(present::experiment_section(&v.reports)))
            }
        }
    })
}

/// The experiment report's downloads: the page on its own, and its tables as CSV (the same
/// files `bugrank report` writes).
async fn experiment_file(app: AppData, _who: Instructor, path: web::Path<String>, query: web::Query<ExperimentQuery>) -> Page {
    let file = path.into_inner();
    let view = experiment_view(&app, &query)?;
    if let Some(problem) = view.problem.filter(|_| view.reports.is_empty()) {
        return Err(AppError::BadRequest(problem));
    }
    let Some((_, body)) = course::outputs::experiment_files(&view.reports)?.into_iter().find(|(name, _)| *name == file) else {
        return Err(AppError::NotFound);
    };
    let content_type = match file.rsplit('.').next() {
        Some("html") => "text/html",
        Some("csv") => "text/csv",
        _ => "application/json",
    };
    Ok(HttpResponse::Ok()
        .content_type(format!("{content_type}; charset=utf-8"))
        .insert_header(("Content-Disposition", format!("attachment; filename=\"experiment-{file}\"")))
        .body(body))
}

async fn app_js() -> HttpResponse {
    HttpResponse::Ok().content_type("text/javascript; charset=utf-8").body(super::html::APP_JS)
}

// ---------------------------------------------------------------- students

#[derive(Serialize)]
struct StudentLink {
    #[serde(flatten)]
    student: StudentRow,
    /// The private link's path, while one is live.
    link: Option<String>,
}

#[derive(Serialize)]
struct StudentsView {
    /// By course, then by id.
    students: Vec<StudentLink>,
}

async fn students_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let students = app.db.students()?.into_iter().map(|student| StudentLink { link: student.token.as_ref().map(|t| format!("/s/{t}")), student }).collect();
    let view = StudentsView { students };
    respond(&req, Some(&who), "Students", &view, |v| {
        html! {
            p { "Each student has one private link to their own results in one course (of released batches only): the same id in two courses is two students with two links. "
                a href="/students/links.csv" { "Download all links (CSV, for mail merge, with the rosters' " code { "name" } " and " code { "email" } " columns when they have them)" } ". Revoking a link makes it a plain 404; issuing a new one replaces it." }
            @if v.students.is_empty() { p.muted { "No students yet: they come with the batches you upload." } }
            @for course in v.students.chunk_by(|a, b| a.student.course_id == b.student.course_id) {
                h2 { (course[0].student.course) }
                @let table = format!("students-{}", course[0].student.course_id);
                (table_filter(&table, "students"))
                table.sortable id=(table) {
                    tr { th { "Student" } th { "Private link" } th {} }
                    @for s in course {
                        @let action = format!("/students/{}/{}", s.student.course_id, s.student.student);
                        tr {
                            td { (s.student.student) }
                            td { @match &s.link { Some(link) => a href=(link) { code { (link) } }, None => span.muted { "none" } } }
                            td {
                                @if s.link.is_some() {
                                    (confirm_button(&who, &format!("{action}/issue"), "Reissue", &format!("Give {} a new link? The link they have now stops working.", s.student.student)))
                                    " " (confirm_button(&who, &format!("{action}/revoke"), "Revoke", &format!("Revoke {}'s link? It stops working at once, and they see nothing until you issue a new one.", s.student.student)))
                                } @else {
                                    (button(&who, &format!("{action}/issue"), "Issue"))
                                }
                            }
                        }
                    }
                }
            }
        }
    })
}

async fn links_csv(app: AppData, req: HttpRequest, _who: Instructor) -> Page {
    // The base URL students reach the service at, as the instructor's browser did.
    let info = req.connection_info();
    let base = format!("{}://{}", info.scheme(), info.host());
    let students = app.db.students()?;
    // Each student's name and email from their course's rosters (the latest batch's wins).
    let mut contact: HashMap<(i64, String), (String, String)> = HashMap::new();
    for batch in app.db.batches()? {
        for row in app.db.roster(batch.id)? {
            let entry = contact.entry((batch.course_id, row.id.clone())).or_default();
            for (column, value) in [("name", &mut entry.0), ("email", &mut entry.1)] {
                if let Some(text) = row.get(column).filter(|t| !t.is_empty()) {
                    *value = text.to_owned();
                }
            }
        }
    }
    let has = |pick: fn(&(String, String)) -> &String| contact.values().any(|c| !pick(c).is_empty());
    let (names, emails) = (has(|c| &c.0), has(|c| &c.1));
    let write = || -> csv::Result<Vec<u8>> {
        let mut out = exports::SpreadsheetCsv::new();
        let mut header = vec!["course", "id"];
        header.extend(names.then_some("name"));
        header.extend(emails.then_some("email"));
        header.push("link");
        out.write_record(&header)?;
        for s in students {
            if let Some(token) = s.token {
                let (name, email) = contact.get(&(s.course_id, s.student.clone())).cloned().unwrap_or_default();
                let mut record = vec![s.course, s.student];
                record.extend(names.then_some(name));
                record.extend(emails.then_some(email));
                record.push(format!("{base}/s/{token}"));
                out.write_record(&record)?;
            }
        }
        out.into_bytes()
    };
    let body = write().map_err(|e| AppError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(("Content-Disposition", "attachment; filename=\"student-links.csv\""))
        .body(body))
}

/// Issues a new link to a student of a course (`None`: revokes it).
fn set_link(app: &App, req: &HttpRequest, who: &Instructor, form: &CsrfForm, (course, student): (i64, String), token: Option<String>) -> Page {
    who.check_csrf(req, form.csrf.as_deref())?;
    if !app.db.set_student_token(course, &student, token.as_deref())? {
        return Err(AppError::NotFound);
    }
    see_other("/students")
}

async fn issue_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>, form: web::Form<CsrfForm>) -> Page {
    set_link(&app, &req, &who, &form, path.into_inner(), Some(random_token()))
}

async fn revoke_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>, form: web::Form<CsrfForm>) -> Page {
    set_link(&app, &req, &who, &form, path.into_inner(), None)
}

/// Whether a student's result is that of their late submission.
#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
enum Late {
    No,
    /// The result shown graded the late module.
    Graded,
    /// A late module (uploaded then) is saved but not graded yet: the result is older.
    NotYetGraded(i64),
}

/// One released result of a student.
#[derive(Serialize)]
struct StudentResult {
    batch: String,
    problem: String,
    analysis: i64,
    late: Late,
    bugs: BugList,
    /// The problem's statement as the analysis graded it (none: the problem has none).
    #[serde(skip)]
    statement: Option<String>,
}

#[derive(Serialize)]
struct StudentView {
    student: String,
    course: String,
    results: Vec<StudentResult>,
}

fn student_view(app: &App, token: &str) -> Result<StudentView, AppError> {
    // The student a live token belongs to; anything else is a plain 404.
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(AppError::NotFound);
    }
    let StudentRow { course_id, course, student, .. } = found(app.db.student_by_token(token)?)?;
    let mut results = Vec::new();
    for (batch, analysis) in app.db.released_analyses_of(course_id, &student)? {
        let Some(list) = app.db.bug_list(analysis, &student)? else { continue };
        // The claim is true exactly when this result graded the late module.
        let graded = app.db.analysis_answers(analysis)?.into_iter().find(|a| a.student == student).map(|a| a.sha256);
        let current = app.db.submissions(batch.id)?.into_iter().find(|s| s.student == student);
        let late = match current {
            Some(s) if s.late && graded.as_deref() == Some(s.sha256.as_str()) => Late::Graded,
            Some(s) if s.late => Late::NotYetGraded(s.uploaded),
            _ => Late::No,
        };
        let problem_dir = found(app.db.analysis(analysis)?)?.problem_dir;
        results.push(StudentResult {
            batch: batch.name,
            problem: batch.problem,
            analysis,
            late,
            bugs: serde_json::from_str(&list).map_err(anyhow::Error::from)?,
            statement: app.local(&problem_dir).ok().and_then(|dir| std::fs::read_to_string(dir.join("statement.md")).ok()),
        });
    }
    Ok(StudentView { student, course, results })
}

async fn student_page(app: AppData, req: HttpRequest, path: web::Path<String>) -> Page {
    let token = path.into_inner();
    let view = student_view(&app, &token)?;
    respond(&req, None, &format!("Results of {} · {}", view.student, view.course), &view, |v| {
        html! {
            @if v.results.is_empty() { p { "No results have been released to you yet." } }
            @for r in &v.results {
                h2 { (r.batch) " · " span.muted { (r.problem) } }
                p.score {
                    @let percent = grader::percent(r.bugs.passed, r.bugs.suite_size);
                    @if r.bugs.compile_error().is_some() {
                        "Your score: " strong { "0%" } ". Your program did not compile, so it could not be tested; the compiler's message is below."
                    } @else {
                        "Your score: " strong { (format!("{percent:.1}%")) } ": your program passes " (r.bugs.passed) " of the " (r.bugs.suite_size)
                        " tests. Each test stands for a bug found in at least one program of your class, so the score is the share of those bugs yours does not have, not a share of everything that could go wrong."
                    }
                }
                @if r.statement.is_some() { p { a href={ "/s/" (token) "/" (r.analysis) "/statement" } { "The problem statement" } } }
                @match r.late {
                    Late::Graded => p.muted { "Graded from your late submission." },
                    Late::NotYetGraded(when) => p.muted { "Your late submission of " (date(when)) " is not graded yet: this is the result of your earlier one." },
                    Late::No => {},
                }
                p { a href={ "/s/" (token) "/" (r.analysis) ".md" } { "Download this bug list (Markdown)" } }
                (bug_list(&r.bugs))
            }
            p.muted { "Each test is a small input on which your program and the model solution disagree: one inferred bug. Fix the bugs, not the tests: other inputs show the same bug." }
        }
    })
}

/// The statement of a problem a student has a released result of, in the version the
/// result was graded against.
async fn student_statement(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, analysis) = path.into_inner();
    let view = student_view(&app, &token)?;
    let result = found(view.results.into_iter().find(|r| r.analysis == analysis))?;
    let statement = found(result.statement)?;
    Ok(page(&result.problem, None, html! {
        p { a href={ "/s/" (token) } { "Back to your results" } }
        div.card { (markdown(&statement)) }
    }))
}

async fn student_markdown(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, analysis) = path.into_inner();
    let view = student_view(&app, &token)?;
    let result = found(view.results.iter().find(|r| r.analysis == analysis))?;
    Ok(HttpResponse::Ok()
        .content_type("text/markdown; charset=utf-8")
        .insert_header(("Content-Disposition", format!("attachment; filename=\"bugs-{analysis}.md\"")))
        .body(present::bug_list_markdown(&result.bugs)))
}
