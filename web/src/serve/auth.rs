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

/// Password checks (argon2, 19 MiB and some 20 ms each) running at once, at most: a
/// flood of logins cannot take more than this many times 19 MiB. A login beyond it is
/// told to try again in a second.
pub const MAX_PASSWORD_CHECKS: usize = 4;

/// Failed logins, for one login name or one client address, before each further attempt
/// must wait: 5 is room for typos, not for guessing.
pub const FREE_FAILURES: u32 = 5;

/// The wait after the first failure beyond [`FREE_FAILURES`], doubled with each further
/// one, up to [`MAX_LOGIN_WAIT_SECONDS`].
pub const FIRST_LOGIN_WAIT_SECONDS: i64 = 2;
pub const MAX_LOGIN_WAIT_SECONDS: i64 = 15 * 60;

/// The most login names and addresses whose failures are remembered: a flood of made-up
/// names cannot fill memory (the oldest entries are forgotten first).
pub const MAX_REMEMBERED_FAILURES: usize = 10_000;

/// A hash that no password matches, checked when the login does not exist, so that a
/// wrong login takes as long as a wrong password.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_password(&random_token()).expect("argon2 hashes a password"))
}

/// Checks a password against the account's hash, or against a hash no password matches
/// when there is no such account: the same work either way.
pub fn check_password(password: &str, hash: Option<&str>) -> bool {
    let matches = verify_password(password, hash.unwrap_or_else(|| dummy_hash()));
    matches && hash.is_some()
}

/// Why a login is refused before its password is even checked.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Too many failures for this login or from this address: try again in this many seconds.
    Wait(i64),
    /// [`MAX_PASSWORD_CHECKS`] checks are running.
    Busy,
}

/// Failed logins by login name and by client address, and the checks running.
#[derive(Default)]
pub struct LoginGuard {
    /// Key (`login:NAME` or `addr:IP`) to (failures, time of the last one).
    failures: std::sync::Mutex<std::collections::HashMap<String, (u32, i64)>>,
    running: std::sync::atomic::AtomicUsize,
}

/// A running password check; dropping it frees its place.
pub struct CheckSlot<'a>(&'a LoginGuard);

impl Drop for CheckSlot<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl LoginGuard {
    fn keys(login: &str, address: &str) -> [String; 2] {
        [format!("login:{login}"), format!("addr:{address}")]
    }

    /// How long `key` must still wait at time `now`.
    fn wait(entry: Option<&(u32, i64)>, now: i64) -> i64 {
        match entry {
            Some(&(failures, last)) if failures >= FREE_FAILURES => {
                let doublings = (failures - FREE_FAILURES).min(20);
                let wait = (FIRST_LOGIN_WAIT_SECONDS << doublings).min(MAX_LOGIN_WAIT_SECONDS);
                (last + wait - now).max(0)
            }
            _ => 0,
        }
    }

    /// A place to check a password for `login` from `address` at time `now`, or why not.
    pub fn admit(&self, login: &str, address: &str, now: i64) -> Result<CheckSlot<'_>, Refused> {
        {
            let failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
            let wait = Self::keys(login, address).iter().map(|k| Self::wait(failures.get(k), now)).max().unwrap_or(0);
            if wait > 0 {
                return Err(Refused::Wait(wait));
            }
        }
        use std::sync::atomic::Ordering;
        if self.running.fetch_add(1, Ordering::SeqCst) >= MAX_PASSWORD_CHECKS {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return Err(Refused::Busy);
        }
        Ok(CheckSlot(self))
    }

    /// Records the outcome of a check: a failure counts against the login and the
    /// address, a success clears the login's count.
    pub fn record(&self, login: &str, address: &str, succeeded: bool, now: i64) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let [by_login, by_address] = Self::keys(login, address);
        if succeeded {
            failures.remove(&by_login);
            return;
        }
        if failures.len() >= MAX_REMEMBERED_FAILURES {
            let oldest = failures.iter().min_by_key(|&(_, &(_, last))| last).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                failures.remove(&oldest);
            }
        }
        for key in [by_login, by_address] {
            let entry = failures.entry(key).or_insert((0, now));
            *entry = (entry.0 + 1, now);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_are_free_then_each_waits_twice_as_long() {
        let guard = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            drop(guard.admit("ann", "10.0.0.1", 100).expect("room for typos"));
            guard.record("ann", "10.0.0.1", false, 100);
        }
        assert_eq!(guard.admit("ann", "10.0.0.2", 101).err(), Some(Refused::Wait(1)), "the login waits, from anywhere");
        assert_eq!(guard.admit("bob", "10.0.0.1", 101).err(), Some(Refused::Wait(1)), "the address waits, for any login");
        assert!(guard.admit("bob", "10.0.0.2", 101).is_ok());
        drop(guard.admit("ann", "10.0.0.1", 102).expect("waited"));
        guard.record("ann", "10.0.0.1", false, 102);
        assert_eq!(guard.admit("ann", "10.0.0.3", 102).err(), Some(Refused::Wait(4)));
    }

    #[test]
    fn a_success_clears_the_logins_failures() {
        let guard = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            guard.record("ann", "10.0.0.1", false, 100);
        }
        guard.record("ann", "10.0.0.9", true, 100);
        assert!(guard.admit("ann", "10.0.0.9", 100).is_ok());
    }

    #[test]
    fn only_so_many_passwords_are_checked_at_once() {
        let guard = LoginGuard::default();
        let slots: Vec<CheckSlot> = (0..MAX_PASSWORD_CHECKS).map(|i| guard.admit(&format!("u{i}"), "a", 0).unwrap()).collect();
        assert_eq!(guard.admit("one more", "b", 0).err(), Some(Refused::Busy));
        drop(slots);
        assert!(guard.admit("one more", "b", 0).is_ok());
    }

    #[test]
    fn a_missing_login_and_a_wrong_password_are_checked_alike() {
        let hash = hash_password("right").unwrap();
        assert!(check_password("right", Some(&hash)));
        assert!(!check_password("wrong", Some(&hash)));
        assert!(!check_password("right", None));
    }
}
