//! Instructor accounts (argon2 password hashes), sessions in the store behind an HttpOnly
//! cookie, and the CSRF token every form and API write must carry.

use std::future::{Ready, ready};
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use super::{App, AppError};
use super::store::{hex, sha256_hex};

pub const SESSION_COOKIE: &str = "bugrank_session";

/// How long a login lasts: a term's evening of grading, not forever.
pub const SESSION_SECONDS: i64 = 12 * 3600;

/// The header API clients send the CSRF token in (forms send the field `csrf`).
pub const CSRF_HEADER: &str = "x-csrf-token";

/// 32 random bytes in hex: session tokens, CSRF tokens, student links, passwords.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    hex(&bytes)
}

pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system gives random bytes");
    let salt = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    Ok(Argon2::default().hash_password(password.as_bytes(), &salt).map_err(|e| anyhow::anyhow!("argon2: {e}"))?.to_string())
}

pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// Compares secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A logged-in instructor: taking this as a handler argument is what makes a route
/// instructors-only. Without a live session it fails with [`AppError::LoggedOut`].
#[derive(Clone, Debug)]
pub struct Instructor {
    pub login: String,
    pub csrf: String,
}

impl Instructor {
    /// Checks the token a form or API call carries (the field, else the header).
    pub fn check_csrf(&self, req: &HttpRequest, field: Option<&str>) -> Result<(), AppError> {
        let header = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        match field.or(header) {
            Some(given) if same_secret(given, &self.csrf) => Ok(()),
            _ => Err(AppError::Csrf),
        }
    }
}

impl FromRequest for Instructor {
    type Error = AppError;
    type Future = Ready<Result<Instructor, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let logged_out = AppError::LoggedOut { api: req.path().starts_with("/api/") };
        let app = req.app_data::<web::Data<Arc<App>>>().expect("the app is registered");
        let session = match req.cookie(SESSION_COOKIE) {
            Some(token) => app.db.session(&sha256_hex(token.value().as_bytes())).map_err(AppError::from),
            None => Ok(None),
        };
        ready(match session {
            Ok(Some((login, csrf))) => Ok(Instructor { login, csrf }),
            Ok(None) => Err(logged_out),
            Err(error) => Err(error),
        })
    }
}
