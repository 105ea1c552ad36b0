//! Problems: the list, a problem's page (statement, settings, compilers, its check),
//! uploading a bundle and following its check. A problem's page shows the `check.json` its
//! bundle's check kept.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, web};
use maud::html;
use serde::Serialize;

use super::super::auth::Instructor;
use super::super::checks::{self, CHECK_REPORT};
use super::super::db::{BatchRow, CheckStatus, ProblemCheckRow, ProblemRow};
use super::super::upload::Form;
use super::super::{App, AppError, Page};
use super::forms::{BatchForm, batch_form, bundle_form, form_again};
use super::layout::markdown;

use super::{AppData, accepted, blocking, found, is_api, respond, see_other};
#[derive(Serialize)]
struct ProblemsView {
    problems: Vec<ProblemRow>,
}

pub(super) async fn problems_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
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
                p.muted { "A zip of a problem directory: " code { "problem.toml" } ", the reference, the generator, and a checker when several outputs can be right, each as a module (" code { "reference.wasm" } ") or a source built here in the sandbox (" code { "reference.c" } ", " code { ".cpp" } " or " code { ".rs" } "; a generator gets the library " code { "bugrank_gen" } "); " code { "statement.md" } " is shown to instructors; examples in " code { "submissions/" } " named " code { "correct…" } " and " code { "buggy…" } " are checked (as " code { "bugrank new-problem" } " writes them; " code { "wrong…" } ", " code { "slow…" } " and " code { "crash…" } " must fail some input that way), and the course's own tests in " code { "tests/" } " (" code { "NAME.in" } ", with " code { "NAME.out" } " optional) run first in every analysis. The problem is checked when uploaded, and the report is on its page. Other files are ignored." }
                (bundle_form(&who, "/problems", "Upload"))
            }
        }
    })
}

/// Unpacks a problem bundle ([`course::bundle`]: its layout checked first) into a new
/// folder of the store and reads its settings, so that a bundle that is not one (or has
/// bad settings) is refused at once with the reason. Returns the folder and the problem's
/// name. Nothing of a refused bundle stays: not its files, not its numbered folder.
fn unpack_bundle(app: &App, file_name: &str, bytes: Vec<u8>) -> Result<(std::path::PathBuf, String), AppError> {
    let refused = |e: course::CourseError| AppError::BadRequest(e.to_string());
    let bundle = course::bundle::Bundle::open(file_name, bytes).map_err(refused)?;
    let name = bundle.name.clone();
    let dir = app.store.new_problem_dir(&name)?;
    match bundle.unpack_into(&dir) {
        Ok(()) => Ok((dir, name)),
        Err(error) => {
            let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
            Err(refused(error))
        }
    }
}

/// The one bundle of a form.
fn bundle_of(form: Form) -> Result<(String, Vec<u8>), AppError> {
    form.files
        .into_iter()
        .find(|(field, _, _)| field == "bundle")
        .map(|(_, name, bytes)| (name, bytes))
        .ok_or_else(|| AppError::BadRequest("choose a problem bundle (.zip) to upload".into()))
}

pub(super) async fn upload_problem(app: AppData, req: HttpRequest, who: Instructor, payload: Multipart) -> Page {
    let result = async {
        let form = Form::read(&req, payload, app.max_upload_bytes).await?;
        who.check_csrf(&req, form.field("csrf"))?;
        let (file, bytes) = bundle_of(form)?;
        checked_bundle(&app, file, bytes, None).await
    }
    .await;
    form_again(&req, &who, "The problem was not uploaded", result, || bundle_form(&who, "/problems", "Upload"))
}

pub(super) async fn replace_problem(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>, payload: Multipart) -> Page {
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

/// Unpacks a bundle (a new problem, or one that `replaces` a problem), has it checked
/// outside the request (`checks.rs`) and answers at once with the check's page: a check
/// runs every program on a thousand inputs, which no request waits for.
async fn checked_bundle(app: &AppData, file: String, bytes: Vec<u8>, replaces: Option<i64>) -> Page {
    let app = app.clone();
    let id = blocking(move || {
        let (dir, name) = unpack_bundle(&app, &file, bytes)?;
        let id = app.db.add_problem_check(&file, &name, &app.store.relative(&dir), replaces)?;
        app.checks.queue(id)?;
        Ok(id)
    })
    .await?;
    see_other(&format!("/problems/checks/{id}"))
}

/// A bundle's check, and how far it has come while it runs here.
#[derive(Serialize)]
struct CheckView {
    #[serde(flatten)]
    check: ProblemCheckRow,
    progress: Option<checks::CheckProgress>,
}

pub(super) async fn problem_check_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let check = found(app.db.problem_check(path.into_inner())?)?;
    if !is_api(&req)
        && let (CheckStatus::Ready, Some(problem)) = (check.status, check.problem_id)
    {
        return see_other(&format!("/problems/{problem}"));
    }
    let action = check.replaces.map_or_else(|| "/problems".to_owned(), |id| format!("/problems/{id}/bundle"));
    let checking = check.status == CheckStatus::Checking;
    let view = CheckView { progress: app.checks.progress(check.id), check };
    let mut response = respond(&req, Some(&who), &format!("Checking {}", view.check.file), &view, |v| {
        let c = &v.check;
        html! {
            @match c.status {
                CheckStatus::Checking => {
                    p role="status" {
                        "The bundle " code { (c.file) } " is being built and checked: its programs run on a thousand generated inputs. This page reloads itself until the check ends (at most " (checks::BUNDLE_CHECK_SECONDS / 60) " minutes)."
                    }
                    p.progress {
                        @match &v.progress {
                            Some(p) => { "Checking for " (p.seconds) " s: " (p.runs) " runs made so far." }
                            None => "Waiting for the check before it (or checked by another process of the service).",
                        }
                    }
                }
                CheckStatus::Ready => p { "Checked: " a href={ "/problems/" (c.problem_id.unwrap_or_default()) } { "the problem's page" } "." },
                CheckStatus::Refused => {
                    p.bad.refused role="alert" { (c.error.clone().unwrap_or_default()) }
                    (bundle_form(&who, &action, if c.replaces.is_some() { "Replace" } else { "Upload" }))
                }
            }
        }
    })?;
    if checking && !is_api(&req) {
        super::layout::reload_while_checking(&mut response, req.path());
    }
    Ok(response)
}

#[derive(Serialize)]
struct ProblemView {
    problem: ProblemRow,
    statement: Option<String>,
    /// A function-level assignment's harness files, as `(name, text)` (see
    /// `toolchain::harness`).
    harness: Vec<(String, String)>,
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

pub(super) async fn problem_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<i64>) -> Page {
    let problem = found(app.db.problem(path.into_inner())?)?;
    let dir = app.local(&problem.dir)?;
    let view = ProblemView {
        statement: std::fs::read_to_string(dir.join("statement.md")).ok(),
        harness: super::layout::harness_files(&dir),
        settings: std::fs::read_to_string(dir.join("problem.toml")).unwrap_or_default(),
        batches: app.db.batches()?.into_iter().filter(|b| b.problem_id == problem.id).collect(),
        courses: app.db.courses()?,
        compilers: compilers(&app, &accepted(&app, &problem)?.languages),
        check: std::fs::read(dir.join(CHECK_REPORT)).ok().and_then(|json| serde_json::from_slice(&json).ok()),
        problem,
    };
    respond(&req, Some(&who), &view.problem.title.clone(), &view, |v| {
        html! {
            (batch_form(&who, &BatchForm { problems: &[], problem: Some(v.problem.id), courses: &v.courses, name: "", course: v.batches.last().map(|b| b.course.as_str()), chosen: None }))
            h2 { "Batches" }
            @if v.batches.is_empty() { p.muted { "None yet." } }
            ul { @for b in &v.batches { li { a href={ "/batches/" (b.id) } { (b.name) } } } }
            h2 { "Statement" }
            @match &v.statement { Some(s) => div.card { (markdown(s)) }, None => p.muted { "This problem has no statement.md." } }
            @if !v.harness.is_empty() {
                h2 { "Harness" }
                (super::layout::harness_listing(&v.harness))
            }
            h2 { "Settings" }
            pre { (v.settings) }
            @if let Some(check) = &v.check {
                h2 { "Problem check" }
                p.muted { "Made when the bundle was uploaded, on the " (check.inputs) " generated inputs the time budget is measured on (the same as " code { "bugrank check-problem" } "). Examples in the bundle's " code { "submissions/" } " folder named " code { "correct…" } " must pass every input (" code { "slowcorrect…" } ": but by a timeout), those named " code { "buggy…" } " fail some (" code { "wrong…" } ", " code { "slow…" } ", " code { "crash…" } ": by a wrong output, a timeout, a crash); they also run on the course's tests." }
                p { @if check.passed() { span.ok { "Ready: every check passed." } } @else { span.bad { (check.checks.iter().filter(|c| !c.passed).count()) " of " (check.checks.len()) " checks failed: fix the problem before grading a class with it." } } }
                table {
                    tr { th { "Check" } th { "Result" } th { "Evidence" } }
                    @for c in &check.checks {
                        tr { td { (c.what) } td { @if c.passed { span.ok { "ok" } } @else { span.bad { "failed" } } } td { (c.detail) } }
                    }
                }
                details {
                    summary { "Sample inputs and the model answer's outputs; the model answer's cost" }
                    table {
                        tr { th { "Input" } th { "Model answer's output" } }
                        @for sample in &check.samples { tr { td { pre { (sample.input) } } td { pre { (sample.output) } } } }
                    }
                    p { "The reference's fuel per input: min " (check.cost.min) ", median " (check.cost.median) ", 90% " (check.cost.p90) ", 99% " (check.cost.p99) ", max " (check.cost.max) " (its limit: " (check.cost.limit) ")." }
                    @if let Some(checker) = &check.checker_cost {
                        p { "The checker's fuel per check of the reference's outputs: min " (checker.min) ", median " (checker.median) ", 90% " (checker.p90) ", 99% " (checker.p99) ", max " (checker.max) " (its limit: " (checker.limit) ")." }
                    }
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
