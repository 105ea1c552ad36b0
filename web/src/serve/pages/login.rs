//! Logging in and out: the login page, the password check (bounded by `auth::LoginGuard`),
//! the session cookie.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::{HttpRequest, HttpResponse, web};
use maud::html;
use serde::Deserialize;

use super::super::auth::{Instructor, Refused, SESSION_COOKIE, check_password, random_token, start_session};
use super::super::db::now;
use super::super::store::sha256_hex;
use super::super::{App, AppError, Page};
use super::layout::page;

use super::{AppData, CsrfForm, blocking, see_other};
pub(super) async fn home(who: Option<Instructor>) -> Page {
    see_other(if who.is_some() { "/batches" } else { "/login" })
}

/// The cookie that carries the login form's CSRF token before there is a session.
const LOGIN_COOKIE: &str = "bugrank_login";

pub(super) async fn login_form(app: AppData) -> Page {
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
pub(super) struct LoginForm {
    login: String,
    password: String,
    csrf: Option<String>,
}

pub(super) async fn login(app: AppData, req: HttpRequest, form: web::Form<LoginForm>) -> Page {
    let LoginForm { login, password, csrf } = form.into_inner();
    let expected = req.cookie(LOGIN_COOKIE).map(|c| c.value().to_owned());
    match (csrf, expected) {
        (Some(given), Some(expected)) if super::super::auth::same_secret(&given, &expected) => {}
        _ => return Err(AppError::Csrf),
    }
    let address = req.peer_addr().map_or_else(String::new, |a| a.ip().to_string());
    let slot = match app.logins.admit(&login, &address, now()) {
        Ok(slot) => slot,
        Err(refused) => {
            let (message, seconds) = match refused {
                Refused::Wait(seconds) => (format!("Too many failed logins for this account or from your address: try again in {seconds} s."), seconds),
                Refused::Busy => ("Many logins at once: try again in a second.".to_owned(), 1),
            };
            let mut response = login_page(&app, Some(&message));
            *response.status_mut() = actix_web::http::StatusCode::TOO_MANY_REQUESTS;
            response.headers_mut().insert(actix_web::http::header::RETRY_AFTER, actix_web::http::header::HeaderValue::from(seconds));
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
    let cookie = start_session(&app, instructor)?;
    Ok(HttpResponse::SeeOther().cookie(cookie).insert_header(("Location", "/batches")).finish())
}

pub(super) async fn logout(app: AppData, req: HttpRequest, who: Instructor, form: web::Form<CsrfForm>) -> Page {
    who.check_csrf(&req, form.csrf.as_deref())?;
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        app.db.end_session(&sha256_hex(cookie.value().as_bytes()))?;
    }
    let mut gone = Cookie::build(SESSION_COOKIE, "").path("/").secure(app.secure_cookies).finish();
    gone.make_removal();
    Ok(HttpResponse::SeeOther().cookie(gone).insert_header(("Location", "/login")).finish())
}
