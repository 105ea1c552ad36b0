//! The LTI 1.3 tool's routes (see `serve::lti`): the login initiation (`/lti/login`), the
//! launch (`/lti/launch`), the tool's keys (`/lti/jwks`), and the instructors' page of
//! platforms (`/lti/platforms`: the values an LMS asks for, and the registration form).

use actix_web::{HttpRequest, HttpResponse, web};
use maud::html;
use serde::{Deserialize, Serialize};

use super::super::auth::{Instructor, random_token, start_session};
use super::super::db::{DeepLinkRow, LinkRow, Person, PlatformRow, WaitingInstructor, now};
use super::super::lti::grades;
use super::super::lti::keys::{ToolKey, jwks};
use super::super::lti::launch::{self, LOGIN_SECONDS, LoginRequest, MOST_LOGINS_IN_FLIGHT, Refused};
use super::super::lti::{Registration, Role, roster, student_ids};
use super::super::store::sha256_hex;
use super::super::{App, AppError, Page};
use super::forms::form_again;
use super::layout::csrf_field;
use super::{AppData, blocking, found, problem_toml, respond, see_other};

impl From<Refused> for AppError {
    fn from(refused: Refused) -> AppError {
        AppError::Refused(refused.to_string())
    }
}

/// The tool's addresses an LMS is given, from the service's public address.
#[derive(Serialize)]
struct ToolUrls {
    /// OIDC login initiation URL ("OpenID Connect Initiation Url" in Canvas, "Initiate
    /// login URL" in Moodle).
    login: String,
    /// Redirect URI and target link URI: where launches arrive.
    launch: String,
    /// The tool's public keys ("Public JWK URL" in Canvas, "Public keyset URL" in Moodle).
    jwks: String,
}

fn tool_urls(app: &App, req: &HttpRequest) -> ToolUrls {
    let base = app.link_base(req).unwrap_or_else(|asked| asked);
    ToolUrls { login: format!("{base}/lti/login"), launch: format!("{base}/lti/launch"), jwks: format!("{base}/lti/jwks") }
}

/// `/lti/login` by GET: the platform's login initiation in the query.
pub(super) async fn login_by_get(app: AppData, req: HttpRequest) -> Page {
    let query = web::Query::<LoginRequest>::from_query(req.query_string()).map_err(|e| not_a_login(&e.to_string()))?;
    start_login(&app, &req, query.into_inner())
}

/// `/lti/login` by POST: the platform's login initiation as a form.
pub(super) async fn login_by_post(app: AppData, req: HttpRequest, form: Result<web::Form<LoginRequest>, actix_web::Error>) -> Page {
    start_login(&app, &req, form.map_err(|e| not_a_login(&e.to_string()))?.into_inner())
}

fn not_a_login(error: &str) -> AppError {
    AppError::BadRequest(format!("an LTI login comes from an LMS, with `iss`, `login_hint` and `target_link_uri` ({error})"))
}

/// The platform's login initiation: keeps a state and a nonce for it and sends the browser
/// on to the platform's authorization URL.
fn start_login(app: &App, req: &HttpRequest, login: LoginRequest) -> Page {
    let platforms = app.db.lti_platforms()?;
    let platform = login.platform(&platforms)?;
    let (state, nonce) = (random_token(), random_token());
    if !app.db.add_lti_state(&sha256_hex(state.as_bytes()), platform.id, &nonce, now() + LOGIN_SECONDS, MOST_LOGINS_IN_FLIGHT)? {
        return Err(AppError::Refused(format!(
            "more than {MOST_LOGINS_IN_FLIGHT} LTI logins began in the last {} minutes and none of them has ended: try again in a few minutes",
            LOGIN_SECONDS / 60
        )));
    }
    let redirect = tool_urls(app, req).launch;
    let location = launch::authorization_url(platform, &login, &redirect, &state, &nonce)?;
    let mut response = HttpResponse::Found();
    response.insert_header(("Location", location)).insert_header(("Cache-Control", "no-store"));
    // The state is bound to this browser where cookies can be Secure (`--secure-cookies`,
    // behind HTTPS): the launch, a cross-site POST from the LMS, carries only a
    // `SameSite=None` cookie, which browsers take only when Secure. Without it, a launch
    // made in another browser could log this one in as its maker.
    if app.secure_cookies {
        response.cookie(
            actix_web::cookie::Cookie::build(STATE_COOKIE, state)
                .path("/lti/launch")
                .http_only(true)
                .secure(true)
                .same_site(actix_web::cookie::SameSite::None)
                .finish(),
        );
    }
    Ok(response.finish())
}

/// The cookie that binds a login's state to the browser that started it.
pub const STATE_COOKIE: &str = "bugrank_lti_state";

#[derive(Deserialize)]
pub(super) struct LaunchForm {
    id_token: Option<String>,
    state: Option<String>,
    /// OIDC's error response, when the platform could not authenticate the person.
    error: Option<String>,
    error_description: Option<String>,
}

/// `/lti/launch`: the platform's signed `id_token`. Verified, it lets an instructor in
/// with a session, and a learner to their own page of the launch's course.
pub(super) async fn launch(app: AppData, req: HttpRequest, form: web::Form<LaunchForm>) -> Page {
    let LaunchForm { id_token, state, error, error_description } = form.into_inner();
    if let Some(error) = error {
        return Err(AppError::Refused(format!("the LMS did not let this launch through: {error} {}", error_description.unwrap_or_default())));
    }
    let (Some(id_token), Some(state)) = (id_token, state) else {
        return Err(AppError::BadRequest("an LTI launch posts `id_token` and `state` (it comes from an LMS)".into()));
    };
    if app.secure_cookies && !req.cookie(STATE_COOKIE).is_some_and(|c| super::super::auth::same_secret(c.value(), &state)) {
        return Err(AppError::Refused(
            "this launch did not start in this browser (its login's cookie is missing or another): start it again from the LMS".into(),
        ));
    }
    let app2 = app.clone();
    let (platform, launch) = blocking(move || {
        let (platform, nonce) = app2.db.take_lti_state(&sha256_hex(state.as_bytes()))?.ok_or(Refused::UnknownState)?;
        let platform = app2.db.lti_platform(platform)?.ok_or(Refused::UnknownState)?;
        let kid = jsonwebtoken::decode_header(&id_token).map_err(|e| Refused::Malformed(e.to_string()))?.kid;
        let keys = app2.jwks.key_set(&platform.jwks_url, kid.as_deref(), now()).map_err(Refused::Keys)?;
        let launch = launch::verify(&id_token, &platform, &nonce, &keys)?;
        Ok((platform, launch))
    })
    .await?;
    let person = Person { platform: platform.id, sub: &launch.sub, name: &launch.name, email: &launch.email };
    // The launch's course, and the LMS link it came by with the services offered there.
    let course = match &launch.context {
        Some((context, title)) => Some(app.db.lti_course(platform.id, context, title)?.0),
        None => None,
    };
    let link = match (course, &launch.resource_link) {
        (Some(course), Some((id, title))) => Some(app.db.record_lti_link(&LinkRow {
            platform_id: platform.id,
            link_id: id.clone(),
            course_id: course,
            title: title.clone(),
            batch_id: launch.batch,
            lineitems_url: launch.lineitems.clone(),
            lineitem_url: launch.lineitem.clone(),
            memberships_url: launch.memberships.clone(),
            sync_error: None,
        })?),
        _ => None,
    };
    match launch.role {
        Role::Instructor => {
            let Some((instructor, _)) = app.db.lti_instructor(&person)? else {
                return Err(AppError::Refused(format!(
                    "{} asks to come in as an instructor from {}: a bugrank instructor approves it once, on the page LMS; then launch again",
                    if person.name.is_empty() { person.sub } else { person.name },
                    platform.name
                )));
            };
            let cookie = start_session(&app, instructor)?;
            // A link bound at this launch (deep linking's) sends its batch's grades.
            if let Some(LinkRow { batch_id: Some(batch), .. }) = &link {
                grades::send_in_background(&app, *batch);
            }
            // The course's roster comes along (off the request: a class of 300 is pages).
            if let (Some(course), Some(memberships)) = (course, &launch.memberships) {
                roster::sync_in_background(&app, platform.clone(), course, memberships.clone());
            }
            // A deep linking request asks which batch the new link opens; a link bound to a
            // batch opens it; a link not yet bound asks which batch it is.
            let location = match (&launch.deep_linking, &link) {
                (Some(settings), _) => {
                    let token = random_token();
                    let request = DeepLinkRow {
                        platform_id: platform.id,
                        deployment_id: launch.deployment_id.clone(),
                        course_id: course,
                        return_url: settings.deep_link_return_url.clone(),
                        data: settings.data.clone(),
                    };
                    app.db.add_lti_deep_link(&sha256_hex(token.as_bytes()), &request, now() + DEEP_LINK_SECONDS)?;
                    format!("/lti/deep-links/{token}")
                }
                (None, link) => match link {
                    Some(LinkRow { batch_id: Some(batch), .. }) => format!("/batches/{batch}"),
                    Some(link) => link_path(link),
                    None => "/batches".to_owned(),
                },
            };
            Ok(HttpResponse::SeeOther().cookie(cookie).insert_header(("Location", location)).finish())
        }
        Role::Learner => {
            let Some(course) = course else {
                return Err(AppError::Refused("a learner's launch must come from a course of the LMS (it has no context)".into()));
            };
            let ids = student_ids(launch.sourcedid.as_deref(), &launch.email, &launch.sub);
            let (_, token) = app.db.lti_student(&person, course, &ids, &random_token)?;
            // A learner known now (a first launch after the release) gets their grades.
            for batch in app.db.lti_bound_batches(platform.id, course)? {
                grades::send_in_background(&app, batch);
            }
            // A link bound to a batch opens it: its hand-in form, while it takes hand-ins.
            match link.and_then(|l| l.batch_id) {
                Some(batch) => see_other(&format!("/s/{token}#hand-in-{batch}")),
                None => see_other(&format!("/s/{token}")),
            }
        }
    }
}

/// How long an instructor may take to choose what a new LMS link opens.
pub const DEEP_LINK_SECONDS: i64 = 3600;

#[derive(Serialize)]
struct DeepLinkView {
    platform: String,
    /// The batches it may open: `(id, name, problem, course)`, of the launch's course.
    batches: Vec<(i64, String, String, String)>,
}

/// `/lti/deep-links/<token>`: the instructor chooses the batch a new LMS link opens.
pub(super) async fn deep_link_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<String>) -> Page {
    let request = found(app.db.lti_deep_link(&sha256_hex(path.as_bytes()), false)?)?;
    let platform = found(app.db.lti_platform(request.platform_id)?)?.name;
    // The batches of the launch's course: a link's grades go to its course's students.
    let batches =
        app.db.batches()?.into_iter().filter(|b| request.course_id.is_none_or(|c| c == b.course_id)).map(|b| (b.id, b.name, b.problem, b.course)).collect();
    let view = DeepLinkView { platform, batches };
    respond(&req, Some(&who), "Link a batch to the LMS", &view, |v| {
        html! {
            p { "Choose the batch the new link of " (v.platform) " opens. Its students land on their own page, and once it is released their points go to the LMS's gradebook." }
            @if v.batches.is_empty() {
                p.muted { "The LMS's course has no batch yet: upload one to the course of the same name, then add the link again from the LMS." }
            } @else {
                form method="post" {
                    (csrf_field(&who))
                    label { "Batch " select name="batch" {
                        @for (id, name, problem, course) in &v.batches { option value=(id) { (name) " (" (problem) ", " (course) ")" } }
                    } }
                    button type="submit" { "Add it to the LMS" }
                }
            }
        }
    })
}

/// Answers a deep linking request with the batch chosen: a page that posts the signed
/// answer to the LMS (the only page whose form may go elsewhere: its own
/// Content-Security-Policy allows the LMS's return URL).
pub(super) async fn answer_deep_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<String>, form: web::Form<BindForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let batch = form.batch()?;
    let batch = found(app.db.batch(batch)?)?;
    let request = app.db.lti_deep_link(&sha256_hex(path.as_bytes()), false)?.ok_or(Refused::UnknownState)?;
    if request.course_id.is_some_and(|course| course != batch.course_id) {
        return Err(AppError::BadRequest(format!("{} is a batch of the course {}, not of the LMS course this link is for", batch.name, batch.course)));
    }
    let request = app.db.lti_deep_link(&sha256_hex(path.as_bytes()), true)?.ok_or(Refused::UnknownState)?;
    let platform = found(app.db.lti_platform(request.platform_id)?)?;
    let max = problem_toml(&app, &found(app.db.problem(batch.problem_id)?)?)?.grading.max_points;
    let settings = launch::DeepLinking { deep_link_return_url: request.return_url.clone(), accept_types: Vec::new(), data: request.data.clone() };
    let item = launch::LinkedBatch { batch: batch.id, title: batch.name.clone(), launch_url: tool_urls(&app, &req).launch, max };
    let claims = launch::deep_linking_response(&platform, &request.deployment_id, &settings, &item, now());
    let app2 = app.clone();
    let jwt = blocking(move || Ok(ToolKey::current(&app2.db)?.sign(&claims))).await?;
    let origin = url::Url::parse(&request.return_url)
        .map(|u| u.origin().ascii_serialization())
        .map_err(|e| AppError::BadRequest(format!("the LMS's return URL is not a URL: {e}")))?;
    let mut response = super::layout::page(
        "Back to the LMS",
        Some(&who),
        html! {
            form method="post" action=(request.return_url) data-autosubmit {
                input type="hidden" name="JWT" value=(jwt);
                p { "The link to " strong { (batch.name) } " goes back to " (platform.name) "." }
                button type="submit" { "Continue to the LMS" }
            }
        },
    );
    response.headers_mut().insert(
        actix_web::http::header::CONTENT_SECURITY_POLICY,
        actix_web::http::header::HeaderValue::from_str(&format!(
            "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; form-action {origin}; frame-ancestors 'none'; base-uri 'none'"
        ))
        .map_err(|e| AppError::Internal(e.into()))?,
    );
    Ok(response)
}

/// The page of an LMS link: `/lti/links/<platform>/<link id, percent-encoded>`.
fn link_path(link: &LinkRow) -> String {
    let id: String = form_urlencoded::byte_serialize(link.link_id.as_bytes()).collect();
    format!("/lti/links/{}/{id}", link.platform_id)
}

#[derive(Serialize)]
struct LinkView {
    link: LinkRow,
    platform: String,
    /// The batches of the link's course it may be bound to: `(id, name, problem)`.
    batches: Vec<(i64, String, String)>,
    course: String,
}

/// `/lti/links/<platform>/<link>`: an LMS link, the batch it is bound to, and the form to
/// bind it to a batch of its course (whose released points then go to the LMS).
pub(super) async fn link_page(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>) -> Page {
    let (platform, link) = path.into_inner();
    let link = found(app.db.lti_link(platform, &link)?)?;
    let platform = found(app.db.lti_platform(platform)?)?.name;
    let all = app.db.batches()?;
    let course = app.db.course_name(link.course_id)?.unwrap_or_default();
    let batches = all.into_iter().filter(|b| b.course_id == link.course_id).map(|b| (b.id, b.name, b.problem)).collect();
    let view = LinkView { link, platform, batches, course };
    respond(&req, Some(&who), "LMS link", &view, |v| {
        html! {
            p { "The link " strong { (v.link.title) } " of " (v.platform) " opens bugrank for the course " strong { (v.course) } "." }
            @match v.link.batch_id {
                Some(batch) => p { "It is bound to " a href=(format!("/batches/{batch}")) { "batch " (batch) } ": once that batch is released, each student's points go to the LMS's gradebook, and again whenever they change." },
                None => p.muted { "It is bound to no batch yet: its students' points go nowhere." },
            }
            @if let Some(error) = &v.link.sync_error {
                p.bad role="alert" { "The last sending of grades failed: " (error) }
            }
            @if v.batches.is_empty() {
                p.muted { "The course has no batch yet: upload one naming the course " code { (v.course) } "." }
            } @else {
                form method="post" action=(format!("{}/bind", link_path(&v.link))) {
                    (csrf_field(&who))
                    label { "Batch " select name="batch" {
                        @for (id, name, problem) in &v.batches { option value=(id) selected[v.link.batch_id == Some(*id)] { (name) " (" (problem) ")" } }
                    } }
                    button type="submit" { "Bind and send its grades" }
                }
            }
        }
    })
}

#[derive(Deserialize)]
pub(super) struct BindForm {
    batch: Option<String>,
    csrf: Option<String>,
}

impl BindForm {
    /// The batch chosen.
    fn batch(&self) -> Result<i64, AppError> {
        let batch = super::number(&self.batch, "the batch")?.ok_or_else(|| AppError::BadRequest("choose a batch".into()))?;
        i64::try_from(batch).map_err(|_| AppError::BadRequest(format!("there is no batch {batch}")))
    }
}

/// Binds an LMS link to a batch of its course and sends the batch's released grades.
pub(super) async fn bind_link(app: AppData, req: HttpRequest, who: Instructor, path: web::Path<(i64, String)>, form: web::Form<BindForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    let (platform, link) = path.into_inner();
    let link = found(app.db.lti_link(platform, &link)?)?;
    let batch = form.batch()?;
    if !app.db.bind_lti_link(platform, &link.link_id, batch)? {
        return Err(AppError::BadRequest(format!("batch {batch} is not a batch of this link's course")));
    }
    grades::send_in_background(&app, batch);
    see_other(&link_path(&link))
}

/// `/lti/jwks`: the tool's public keys.
pub(super) async fn tool_jwks(app: AppData) -> Page {
    let app2 = app.clone();
    let keys = blocking(move || {
        ToolKey::current(&app2.db)?;
        Ok(ToolKey::all(&app2.db)?)
    })
    .await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "max-age=300")).json(jwks(&keys)))
}

#[derive(Serialize)]
struct PlatformsView {
    tool: ToolUrls,
    platforms: Vec<PlatformRow>,
    /// People who launched as instructors, waiting to be let in.
    waiting: Vec<WaitingInstructor>,
}

/// `/lti/platforms`: the LMSs registered, what to give an LMS, and the form to register one.
pub(super) async fn platforms_page(app: AppData, req: HttpRequest, who: Instructor) -> Page {
    let view = PlatformsView { tool: tool_urls(&app, &req), platforms: app.db.lti_platforms()?, waiting: app.db.lti_waiting_instructors()? };
    respond(&req, Some(&who), "LMS platforms", &view, |v| {
        html! {
            p { "Students and instructors can come to bugrank from an LMS (LTI 1.3): register bugrank in the LMS as an LTI 1.3 tool with these values, then register the LMS here with the values it gives you." }
            table {
                tr { th { "Login initiation URL" } td { code { (v.tool.login) } } }
                tr { th { "Redirect URI and target link URI" } td { code { (v.tool.launch) } } }
                tr { th { "Public keys (JWKS URL)" } td { code { (v.tool.jwks) } } }
            }
            h2 { "Registered" }
            @if v.platforms.is_empty() {
                p.muted { "No LMS yet." }
            } @else {
                table {
                    tr { th { "Name" } th { "Issuer" } th { "Client id" } th { "Deployments" } }
                    @for p in &v.platforms {
                        tr { td { (p.name) } td { code { (p.issuer) } } td { code { (p.client_id) } } td { (p.deployment_ids.join(", ")) } }
                    }
                }
            }
            h2 { "Instructors waiting" }
            p.muted { "Someone an LMS launches as an instructor (or teaching assistant, or administrator) comes in once an instructor here lets them: an instructor sees every course of bugrank." }
            @if v.waiting.is_empty() {
                p.muted { "Nobody is waiting." }
            } @else {
                table {
                    tr { th { "Name" } th { "Email" } th { "LMS" } th {} }
                    @for w in &v.waiting {
                        tr { td { (w.name) } td { (w.email) } td { (w.lms) } td {
                            form method="post" action="/lti/instructors/approve" {
                                (csrf_field(&who))
                                input type="hidden" name="platform" value=(w.platform);
                                input type="hidden" name="sub" value=(w.sub);
                                button type="submit" { "Let in" }
                            }
                        } }
                    }
                }
            }
            h2 { "Register an LMS" }
            (platform_form(&who, &Registration::default()))
        }
    })
}

#[derive(Deserialize)]
pub(super) struct PlatformForm {
    #[serde(flatten)]
    platform: Registration,
    csrf: Option<String>,
}

fn platform_form(who: &Instructor, form: &Registration) -> maud::Markup {
    html! {
        form method="post" action="/lti/platforms" {
            (csrf_field(who))
            label { "Name " input name="name" required value=(form.name) placeholder="Canvas of Example University"; }
            label { "Issuer " input name="issuer" required value=(form.issuer) placeholder="https://canvas.instructure.com"; }
            label { "Client id " input name="client_id" required value=(form.client_id); }
            label { "Authentication request URL " input name="auth_url" required value=(form.auth_url); }
            label { "Access token URL " input name="token_url" required value=(form.token_url); }
            label { "Public keyset URL (JWKS) " input name="jwks_url" required value=(form.jwks_url); }
            label { "Deployment ids (one per line) " textarea name="deployment_ids" required { (form.deployment_ids) } }
            button type="submit" { "Register" }
        }
    }
}

/// Refuses an instructor who came from an LMS: registering LMSs and letting their
/// instructors in is for instructors of bugrank's own accounts.
fn may_manage_lms(app: &App, who: &Instructor) -> Result<(), AppError> {
    if app.db.is_lti_instructor(&who.login)? {
        return Err(AppError::Refused(
            "an instructor who came from an LMS does not register LMSs or let their instructors in: an instructor with a bugrank account does".into(),
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
pub(super) struct ApproveForm {
    platform: i64,
    sub: String,
    csrf: Option<String>,
}

/// Lets a person who launched as an instructor in: their account is made.
pub(super) async fn approve_instructor(app: AppData, req: HttpRequest, who: Instructor, form: web::Form<ApproveForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    may_manage_lms(&app, &who)?;
    let waiting = app.db.lti_waiting_instructors()?;
    let Some(w) = waiting.into_iter().find(|w| w.platform == form.platform && w.sub == form.sub) else {
        return Err(AppError::BadRequest("nobody of that LMS is waiting to come in".into()));
    };
    let shown = [&w.email, &w.name, &w.sub].into_iter().find(|s| !s.is_empty()).cloned().unwrap_or_default();
    app.db.approve_lti_instructor(w.platform, &w.sub, &format!("{shown} ({})", w.lms), "!lti")?;
    see_other("/lti/platforms")
}

/// Registers a platform from the form (a platform registered already changes only on the
/// server: its keys are what every launch is checked with).
pub(super) async fn add_platform(app: AppData, req: HttpRequest, who: Instructor, form: web::Form<PlatformForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    may_manage_lms(&app, &who)?;
    let result = match form.platform.check() {
        Ok(platform) if app.db.lti_platforms_of(&platform.issuer)?.iter().any(|p| p.client_id == platform.client_id) => Err(AppError::BadRequest(format!(
            "an LMS with issuer {} and client id {} is registered already: its keys and URLs change only on the server (`bugrank lti add-platform`)",
            platform.issuer, platform.client_id
        ))),
        Ok(platform) => app.db.add_lti_platform(&platform).map(|_| ()).map_err(AppError::from),
        Err(reason) => Err(AppError::BadRequest(reason)),
    };
    match result {
        Ok(()) => see_other("/lti/platforms"),
        Err(error) => form_again(&req, &who, "LMS platforms", Err(error), || platform_form(&who, &form.platform)),
    }
}
