//! Students: the instructor's list of links (issue, revoke, `links.csv`), and each
//! student's own pages behind their link (their results, the statement, the code graded,
//! and their own hand-ins: the form of each batch open to them, their hand-ins with the
//! latest one's pre-check, the problem's statement before any release).

use actix_multipart::Multipart;
use actix_web::{HttpRequest, HttpResponse, web};
use grader::BugList;
use maud::{Markup, html};
use serde::Serialize;

use super::super::auth::{Instructor, random_token};
use super::super::db::{BatchRow, HandInRow, HandedIn, PreCheckStatus, Released, ReleasedTo, StudentRow, SubmissionRow, WindowRow, now};
use super::super::upload::Form;
use super::super::{App, AppError, Page};
use super::layout::{bug_list, button, confirm_button, date, markdown, page, public_tests_list, reload_while_checking, source_listing, table_filter};
use course::exports;
use course::hand_in_window::{LatePolicy, Verdict, span_in_words};
use course::pre_check::PreCheck;
use course::roster::{Adjustment, RosterRow};

use super::{AppData, CsrfForm, blocking, found, respond, see_other, student_of};
#[derive(Serialize)]
struct StudentLink {
    #[serde(flatten)]
    student: StudentRow,
    /// The private link's path, while one is live.
    link: Option<String>,
    /// The student's name in the course's rosters (empty without one).
    name: String,
}

#[derive(Serialize)]
struct StudentsView {
    /// By course, then by id.
    students: Vec<StudentLink>,
    /// What the links of `links.csv` start with: the service's public address (`Ok`), or
    /// the address this page was asked at (`Err`: `--public-url` is not set).
    link_base: Result<String, String>,
}

pub(super) async fn students_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let contacts = app.contacts()?;
    let students = app
        .db
        .students()?
        .into_iter()
        .map(|student| {
            let name = contacts.get(&(student.course_id, student.student.clone())).map(|(name, _)| name.clone()).unwrap_or_default();
            StudentLink { link: student.token.as_ref().map(|t| format!("/s/{t}")), student, name }
        })
        .collect();
    let view = StudentsView { students, link_base: app.link_base(&req) };
    respond(&req, Some(&who), "Students", &view, |v| {
        html! {
            p { "Each student has one private link to their own results in one course (of released batches only): the same id in two courses is two students with two links. "
                a href="/students/links.csv" { "Download all links (CSV, for mail merge, with the rosters' " code { "name" } " and " code { "email" } " columns when they have them)" } ". Revoking a link makes it a plain 404; issuing a new one replaces it." }
            @match &v.link_base {
                Ok(base) => p.muted { "The links in links.csv start with " code { (base) } ", the service's public address." },
                Err(browsed) => p.bad { "The links in links.csv start with " code { (browsed) } ", the address your browser used, which students may not reach: start the service with "
                    code { "--public-url" } " (or " code { "BUGRANK_PUBLIC_URL" } "), such as " code { "https://grades.example.edu" } ", and emailed links and links.csv carry it." },
            }
            @if v.students.is_empty() { p.muted { "No students yet: they come with the batches you upload." } }
            @for course in v.students.chunk_by(|a, b| a.student.course_id == b.student.course_id) {
                h2 { (course[0].student.course) }
                @let table = format!("students-{}", course[0].student.course_id);
                (table_filter(&table, "students"))
                table.sortable id=(table) {
                    tr { th { "Student" } th { "Name" } th { "Private link" } th {} }
                    @for s in course {
                        @let action = format!("/students/{}/{}", s.student.course_id, s.student.student);
                        tr {
                            td { (s.student.student) }
                            td { (s.name) }
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

pub(super) async fn links_csv(app: AppData, req: HttpRequest, _who: Instructor) -> Page {
    // The service's public address; without one, the address the instructor's browser
    // used (the Students page says so).
    let base = app.link_base(&req).unwrap_or_else(|browsed| browsed);
    let contacts = app.contacts()?;
    let links: Vec<exports::StudentLink> = app
        .db
        .students()?
        .into_iter()
        .filter_map(|s| {
            let (name, email) = contacts.get(&(s.course_id, s.student.clone())).cloned().unwrap_or_default();
            Some(exports::StudentLink { link: format!("{base}/s/{}", s.token?), course: s.course, id: s.student, name, email })
        })
        .collect();
    let body = exports::links_csv(&links).map_err(|e| AppError::Internal(e.into()))?;
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

pub(super) async fn issue_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>, form: web::Form<CsrfForm>) -> Page {
    set_link(&app, &req, &who, &form, path.into_inner(), Some(random_token()))
}

pub(super) async fn revoke_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>, form: web::Form<CsrfForm>) -> Page {
    set_link(&app, &req, &who, &form, path.into_inner(), None)
}

/// The statement of the problem stored at `problem_dir` (none: it has none) and a
/// function-level assignment's harness files (see `toolchain::harness`).
fn problem_statement(app: &App, problem_dir: &str) -> (Option<String>, Vec<(String, String)>) {
    match app.local(problem_dir) {
        Ok(dir) => (std::fs::read_to_string(dir.join("statement.md")).ok(), super::layout::harness_files(&dir)),
        Err(_) => (None, Vec::new()),
    }
}

/// Whether a student's result is that of their late submission.
#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Late {
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
    /// The points the student's program earned, with the instructor's adjustment.
    points: Option<StudentPoints>,
    bugs: BugList,
    /// The problem's statement as the analysis graded it (none: the problem has none).
    #[serde(skip)]
    statement: Option<String>,
    /// A function-level assignment's harness files (see `toolchain::harness`).
    #[serde(skip)]
    harness: Vec<(String, String)>,
}

/// A student's points as their page shows them.
#[derive(Serialize)]
struct StudentPoints {
    /// With the adjustment, if any.
    points: f64,
    max: f64,
    /// How the program earned its points, in words.
    how: String,
    adjustment: Option<Adjustment>,
}

/// A released batch whose roster has the student and that graded nothing of theirs.
#[derive(Serialize)]
struct NotHandedIn {
    batch: String,
    problem: String,
    /// What it earns, the instructor's adjustment included: 0 points and up (`None`: no
    /// grade, the instructor's choice for the batch, [`exports::NoHandIn`]).
    points: Option<f64>,
    max: f64,
    adjustment: Option<Adjustment>,
    /// When their hand-in came, if one came after the analysis (not graded yet).
    received: Option<i64>,
}

#[derive(Serialize)]
struct StudentView {
    student: String,
    course: String,
    results: Vec<StudentResult>,
    not_handed_in: Vec<NotHandedIn>,
    /// The batches of the course open to their hand-ins (on their page only).
    open: Vec<OwnBatch>,
}

fn student_view(app: &App, student: StudentRow) -> Result<StudentView, AppError> {
    let StudentRow { course_id, course, student, .. } = student;
    let (mut results, mut not_handed_in) = (Vec::new(), Vec::new());
    // Every row of theirs in one query; the analyses' files come from the cache.
    for ReleasedTo { batch, released, bug_list, graded_sha256, problem_dir, submission, roster } in app.db.released_to(course_id, &student)? {
        let row = roster.as_ref();
        let analysis = match released {
            Released::Graded(analysis) => analysis,
            Released::NotHandedIn(latest) => {
                let max = exports::points_possible(&*app.analysis(latest)?);
                not_handed_in.push(NotHandedIn {
                    points: (batch.no_hand_in == exports::NoHandIn::Zero).then(|| exports::adjusted_points(0.0, max, row)),
                    max,
                    adjustment: row.and_then(RosterRow::adjustment),
                    received: submission.map(|s| s.uploaded),
                    batch: batch.name,
                    problem: batch.problem,
                });
                continue;
            }
        };
        let (Some(list), Some(problem_dir)) = (bug_list, problem_dir) else { continue };
        // The claim is true exactly when this result graded the late module.
        let late = match submission {
            Some(s) if s.late && graded_sha256.as_deref() == Some(s.sha256.as_str()) => Late::Graded,
            Some(s) if s.late => Late::NotYetGraded(s.uploaded),
            _ => Late::No,
        };
        let bugs: BugList = serde_json::from_str(&list).map_err(anyhow::Error::from)?;
        let points = bugs.points.as_ref().map(|p| StudentPoints {
            points: exports::adjusted_points(p.points, p.max, row),
            max: p.max,
            how: present::points_in_words(p),
            adjustment: row.and_then(RosterRow::adjustment),
        });
        let (statement, harness) = problem_statement(app, &problem_dir);
        results.push(StudentResult { batch: batch.name, problem: batch.problem, analysis, late, points, bugs, statement, harness });
    }
    Ok(StudentView { student, course, results, not_handed_in, open: Vec::new() })
}

pub(super) async fn student_page(app: AppData, req: HttpRequest, path: web::Path<String>) -> Page {
    let token = path.into_inner();
    let student = student_of(&app, &token)?;
    let view = StudentView { open: own_batches(&app, &student)?, ..student_view(&app, student)? };
    let checking = view.open.iter().any(OwnBatch::checking);
    let mut response = respond(&req, None, &format!("Results of {} · {}", view.student, view.course), &view, |v| {
        html! {
            @for own in &v.open { (own_section(&token, own)) }
            @if v.results.is_empty() && v.not_handed_in.is_empty() { p { "No results have been released to you yet." } }
            @for m in &v.not_handed_in {
                h2 { (m.batch) " · " span.muted { (m.problem) } }
                @match (m.received, m.points) {
                    (Some(when), _) => p.score { "Your hand-in of " (date(when)) " came after the grading: it is not graded yet." },
                    (None, Some(points)) => p.score { "Nothing of yours was received for this assignment, so it earns " strong { (points) " of " (m.max) " points" } "." },
                    (None, None) => p.score { "Nothing of yours was received for this assignment. It has no grade here: your instructor decides what it counts for." },
                }
                @if m.received.is_none() { p.muted { "If you did hand something in, tell your instructor: it did not reach this batch." } }
                @if let Some(adjustment) = &m.adjustment {
                    p { "Your instructor adjusted your points by " strong { (format!("{:+}", adjustment.points)) } ": " (adjustment.reason) }
                }
            }
            @for r in &v.results {
                h2 { (r.batch) " · " span.muted { (r.problem) } }
                @if let Some(p) = &r.points {
                    p.score { "Your points: " strong { (p.points) " of " (p.max) } ". The program earned " (p.how) }
                    @if let Some(adjustment) = &p.adjustment {
                        p { "Your instructor adjusted your points by " strong { (format!("{:+}", adjustment.points)) } ": " (adjustment.reason) }
                    }
                }
                p.score {
                    @let percent = grader::percent(r.bugs.passed, r.bugs.suite_size);
                    @if let Some(why) = r.bugs.build.as_ref().and_then(grader::Build::not_built_in_words) {
                        "Compared with your class: " strong { "0%" } ". Your program " (why) ", so it could not be tested; the message is below."
                    } @else {
                        "Compared with your class: " strong { (format!("{percent:.1}%")) } ", your program passes " (r.bugs.passed) " of the " (r.bugs.suite_size)
                        " tests. Each test stands for a bug found in at least one program of your class, so this is the share of those bugs yours does not have, not a share of everything that could go wrong"
                        @if r.points.is_some() { ", and not your grade: your points above are, the same whoever else handed in." } @else { "." }
                    }
                }
                p {
                    @if r.statement.is_some() || !r.harness.is_empty() { a href={ "/s/" (token) "/" (r.analysis) "/statement" } { "The problem statement" } " · " }
                    a href={ "/s/" (token) "/" (r.analysis) "/code" } { "The code that was graded" }
                }
                @match r.late {
                    Late::Graded => p.muted { "Graded from your late submission." },
                    Late::NotYetGraded(when) => p.muted { "Your late submission of " (date(when)) " is not graded yet: this is the result of your earlier one." },
                    Late::No => {},
                }
                p { a href={ "/s/" (token) "/" (r.analysis) ".md" } { "Download this bug list (Markdown)" } }
                (bug_list(&r.bugs))
            }
            @if v.results.iter().any(|r| !r.bugs.bugs.is_empty()) {
                p.muted { "Each test is a small input on which your program and the model answer disagree: one inferred bug. Fix the bug, not the test: other inputs show the same bug." }
            }
        }
    })?;
    if checking {
        // To the page without its `#hand-in-N` (see `reload_while_checking`).
        reload_while_checking(&mut response, &format!("/s/{token}"));
    }
    Ok(response)
}

/// The statement of a problem a student has a released result of, in the version the
/// result was graded against.
pub(super) async fn student_statement(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, analysis) = path.into_inner();
    let view = student_view(&app, student_of(&app, &token)?)?;
    let result = found(view.results.into_iter().find(|r| r.analysis == analysis))?;
    if result.statement.is_none() && result.harness.is_empty() {
        return Err(AppError::NotFound);
    }
    Ok(page(
        &result.problem,
        None,
        html! {
            p { a href={ "/s/" (token) } { "Back to your results" } }
            @if let Some(statement) = &result.statement { div.card { (markdown(statement)) } }
            (super::layout::harness_listing(&result.harness))
        },
    ))
}

/// The code a released result graded, for its student: the version that analysis ran,
/// with line numbers and the compiler's warnings under their lines.
pub(super) async fn student_code(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, analysis) = path.into_inner();
    let view = student_view(&app, student_of(&app, &token)?)?;
    let result = found(view.results.iter().find(|r| r.analysis == analysis))?;
    let graded = found(app.db.analysis_answers(analysis)?.into_iter().find(|a| a.student == view.student))?;
    let bytes = app.module(&graded.sha256).map_err(AppError::Internal)?;
    let messages = result.bugs.build.as_ref().map_or("", grader::Build::messages).to_owned();
    Ok(page(
        &format!("Your code · {}", result.batch),
        None,
        html! {
            p { a href={ "/s/" (token) } { "Back to your results" } }
            p { "The code graded for " (result.batch) " (" (result.problem) "). Its SHA-256 is " code { (graded.sha256) } "."
                @if !messages.is_empty() { " The compiler's messages are under the lines they name." } }
            (source_listing(&bytes, &messages))
        },
    ))
}

pub(super) async fn student_markdown(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, analysis) = path.into_inner();
    let view = student_view(&app, student_of(&app, &token)?)?;
    let result = found(view.results.iter().find(|r| r.analysis == analysis))?;
    Ok(HttpResponse::Ok()
        .content_type("text/markdown; charset=utf-8")
        .insert_header(("Content-Disposition", format!("attachment; filename=\"bugs-{analysis}.md\"")))
        .body(present::bug_list_markdown(&result.bugs)))
}

/// The most bytes one student's hand-in may have: sources are kilobytes, and a module
/// handed in as it is at most the sandbox's largest.
pub const MAX_HAND_IN_BYTES: usize = sandbox::MAX_MODULE_BYTES + (1 << 20);

/// A batch open to a student's hand-ins, as their page shows it.
#[derive(Serialize)]
struct OwnBatch {
    batch: BatchRow,
    window: WindowRow,
    /// Their own hand-ins, the latest first.
    hand_ins: Vec<HandInRow>,
    /// The latest one's pre-check, once done.
    latest: Option<PreCheck>,
    /// Pre-checks before the latest one's while it waits.
    waiting_before: Option<i64>,
    /// What the window says of a hand-in now.
    #[serde(skip)]
    verdict: Verdict,
    now: i64,
}

impl OwnBatch {
    /// Whether its latest pre-check is still running (the page reloads itself).
    fn checking(&self) -> bool {
        self.hand_ins.first().is_some_and(|h| h.status == PreCheckStatus::Queued)
    }
}

/// The batches of `student`'s course open to their hand-ins, with theirs.
fn own_batches(app: &App, student: &StudentRow) -> Result<Vec<OwnBatch>, AppError> {
    let now = now();
    let mut own = Vec::new();
    for (batch, window) in app.db.accepting_batches(student.course_id)? {
        if !app.db.may_hand_in(batch.id, &student.student)? {
            continue;
        }
        let hand_ins = app.db.hand_ins_of(batch.id, &student.student)?;
        let latest = hand_ins.first().and_then(HandInRow::pre_check);
        let waiting_before = match hand_ins.first() {
            Some(h) if h.status == PreCheckStatus::Queued => Some(app.db.hand_ins_before(h.id)?),
            _ => None,
        };
        let verdict = window.window.decide(now, hand_ins.first().map(|h| h.created));
        own.push(OwnBatch { batch, window, hand_ins, latest, waiting_before, verdict, now });
    }
    Ok(own)
}

/// A batch open to the student: the deadline, the form, their hand-ins and the latest
/// pre-check.
fn own_section(token: &str, own: &OwnBatch) -> Markup {
    let (b, w) = (&own.batch, &own.window.window);
    html! {
        div.card.hand-in id={ "hand-in-" (b.id) } {
            h2 { "Hand in: " (b.name) " · " span.muted { (b.problem) } }
            p {
                @match w.deadline {
                    Some(deadline) if deadline >= own.now => { "Deadline: " strong { (date(deadline)) } " (in " (span_in_words(deadline - own.now)) "). " }
                    Some(deadline) => { "The deadline was " (date(deadline)) ": a hand-in now is " (w.late.in_words()) ". " }
                    None => {}
                }
                a href={ "/s/" (token) "/batches/" (b.id) "/statement" } { "The problem statement" }
            }
            @match own.verdict {
                Verdict::Closed => p.bad { "Hand-ins are closed: the deadline has passed." },
                Verdict::Wait { until } => p { "You can hand in again at " (date(until)) " (in " (span_in_words(until - own.now)) "): one hand-in every " (w.minutes_between) " minutes." },
                Verdict::OnTime | Verdict::Late => {
                    form method="post" action={ "/s/" (token) "/batches/" (b.id) "/hand-ins" } enctype="multipart/form-data" {
                        label { "Your program (a source file, or several files of one program) "
                            input type="file" name="files" multiple required accept=".c,.cpp,.cc,.cxx,.h,.hpp,.rs,.py,.wasm,.wat"; }
                        " "
                        button type="submit" { @if own.hand_ins.is_empty() { "Hand in" } @else { "Hand in again" } }
                        p.muted {
                            @match (w.deadline, w.late) {
                                (None, _) => "Your last hand-in is the one graded. ",
                                (Some(_), LatePolicy::Mark) => "Your last hand-in by the deadline is the one graded; one after it is kept and marked late, and graded only if your instructor grades late hand-ins. ",
                                (Some(_), LatePolicy::Refuse) => "Your last hand-in by the deadline is the one graded; after it, hand-ins are closed. ",
                            }
                            "It is checked at once; you may hand in again after " (w.minutes_between) " minutes."
                        }
                    }
                }
            }
            @if let Some(last) = own.hand_ins.first() {
                h3 { "Your hand-in of " (date(last.created)) @if last.late { " " strong.bad { "(late)" } } }
                @match last.status {
                    PreCheckStatus::Queued => p role="status" { "Checking it now"
                        @if let Some(n) = own.waiting_before.filter(|&n| n > 0) { " (" (n) " hand-ins before yours)" }
                        ": this page reloads itself until the check is done." },
                    PreCheckStatus::Failed => p { "It is kept as your hand-in, but it could not be checked here: a problem of this service, not of your program (your instructor sees why)." },
                    PreCheckStatus::Done => @match &own.latest {
                        None => p { "It is kept as your hand-in (its check's report cannot be shown)." },
                        Some(check) => {
                            (public_tests_list(&check.list))
                            @if check.unusable > 0 {
                                p.bad { (check.unusable) " of the public tests could not be run here: the model answer fails on them. Tell your instructor." }
                            }
                            @if check.built() {
                                p.muted {
                                    @if check.list.suite_size == 0 { "The problem shows no public tests, so only its build was checked. " }
                                    "The grade comes from the class's analysis after the deadline, which runs it on "
                                    @if check.hidden_tests > 0 { (check.hidden_tests) " more of the course's tests and " }
                                    "many generated inputs: passing the public tests is not full marks."
                                }
                            }
                        }
                    },
                }
                @if own.hand_ins.len() > 1 {
                    details { summary { "Your earlier hand-ins (" (own.hand_ins.len() - 1) ")" }
                        ul { @for h in &own.hand_ins[1..] { li { (date(h.created)) " · " code { (h.file) } @if h.late { " · late" } } } } }
                }
            }
        }
    }
}

/// The student's batch `batch` of their course, while it takes their hand-ins.
fn own_batch(app: &App, token: &str, batch: i64) -> Result<(StudentRow, BatchRow, WindowRow), AppError> {
    let student = student_of(app, token)?;
    let batch = found(app.db.batch(batch)?.filter(|b| b.course_id == student.course_id))?;
    let window = found(app.db.hand_in_window(batch.id)?.filter(|w| w.accepting))?;
    if !app.db.may_hand_in(batch.id, &student.student)? {
        return Err(AppError::NotFound);
    }
    Ok((student, batch, window))
}

/// Why the window refuses a hand-in, in words for the student (`None`: it lets it in).
fn refusal(verdict: Verdict, window: &WindowRow, batch: &BatchRow) -> Option<AppError> {
    let said = match verdict {
        Verdict::OnTime | Verdict::Late => return None,
        Verdict::Wait { until } => format!(
            "you handed in less than {} minutes ago: you can hand in again at {} (in {}); nothing was kept",
            window.window.minutes_between,
            date(until),
            span_in_words(until - now())
        ),
        Verdict::Closed => "the deadline has passed and late hand-ins are refused: nothing was kept".to_owned(),
    };
    Some(AppError::BadRequest(format!("{}: {said}", batch.name)))
}

/// A student's hand-in: refused at once when the window does (before its bytes are read),
/// else checked without compiling (what it is, its language), kept as their submission
/// when the window still lets it in, its pre-check queued; then their page.
pub(super) async fn hand_in(app: AppData, req: HttpRequest, path: web::Path<(String, i64)>, payload: Multipart) -> Page {
    let (token, batch) = path.into_inner();
    let (student, batch, window) = own_batch(&app, &token, batch)?;
    if let Some(refused) = refusal(window.window.decide(now(), app.db.last_hand_in(batch.id, &student.student)?), &window, &batch) {
        return Err(refused);
    }
    let batch_id = batch.id;
    let form = Form::read(&req, payload, MAX_HAND_IN_BYTES.min(app.max_upload_bytes)).await?;
    let files: Vec<(String, Vec<u8>)> = form.files.into_iter().map(|(_, name, bytes)| (name, bytes)).collect();
    let app2 = app.clone();
    let id = blocking(move || {
        let problem = found(app2.db.problem(batch.problem_id)?)?;
        let accepted = super::accepted(&app2, &problem)?;
        let (file, bytes) = course::intake::own_hand_in(&app2.tools, &accepted, &student.student, files).map_err(AppError::BadRequest)?;
        let sha256 = app2.put_module(&bytes)?;
        let submission = SubmissionRow { student: student.student.clone(), file, sha256, late: false, uploaded: now() };
        // Decided again under the window's lock: a hand-in sent at the same time may
        // have come first.
        match app2.db.hand_in(batch.id, &submission)? {
            HandedIn::Kept(id) => Ok(id),
            HandedIn::Refused(verdict) => Err(refusal(verdict, &window, &batch).unwrap_or(AppError::NotFound)),
            HandedIn::NotAccepting => Err(AppError::BadRequest(format!("{} takes no hand-ins now: nothing was kept", batch.name))),
        }
    })
    .await?;
    // Kept whatever happens here: another process's upkeep takes a pre-check not begun.
    if let Err(error) = app.hand_ins.queue(id) {
        eprintln!("bugrank: hand-in {id} is kept but its pre-check is not queued here: {error:#}");
    }
    see_other(&format!("/s/{token}#hand-in-{batch_id}"))
}

/// The statement of a batch's problem, for its students while it takes their hand-ins.
pub(super) async fn own_statement(app: AppData, path: web::Path<(String, i64)>) -> Page {
    let (token, batch) = path.into_inner();
    let (_, batch, _) = own_batch(&app, &token, batch)?;
    let problem = found(app.db.problem(batch.problem_id)?)?;
    let (statement, harness) = problem_statement(&app, &problem.dir);
    Ok(page(
        &batch.problem,
        None,
        html! {
            p { a href={ "/s/" (token) "#hand-in-" (batch.id) } { "Back to your hand-in" } }
            @match &statement { Some(s) => div.card { (markdown(s)) }, None => p.muted { "The problem has no statement here: your instructor gives it." } }
            (super::layout::harness_listing(&harness))
        },
    ))
}
