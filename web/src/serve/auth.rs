//! Instructor accounts (argon2 password hashes), sessions in the store behind an HttpOnly
//! cookie (only the token's hash is stored), the CSRF token every form and API write must
//! carry, the [`Instructor`] extractor that makes a route instructors-only, and
//! [`LoginGuard`], which bounds logins.

use std::future::{Ready, ready};
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

use super::store::{hex, sha256_hex};
use super::{App, AppError};

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

/// Starts a session for `instructor`: the cookie that carries it (HttpOnly, `SameSite=Lax`:
/// a launch from an LMS is a cross-site POST whose redirect must carry it, and Lax keeps
/// it off cross-site posts to the service itself).
pub fn start_session(app: &App, instructor: i64) -> Result<actix_web::cookie::Cookie<'static>, AppError> {
    let token = random_token();
    app.db.add_session(&sha256_hex(token.as_bytes()), instructor, &random_token(), super::db::now() + SESSION_SECONDS)?;
    Ok(actix_web::cookie::Cookie::build(SESSION_COOKIE, token)
        .path("/")
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Lax)
        .secure(app.secure_cookies)
        .max_age(actix_web::cookie::time::Duration::seconds(SESSION_SECONDS))
        .finish())
}

pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system gives random bytes");
    let salt = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    Ok(Argon2::default().hash_password(password.as_bytes(), &salt).map_err(|e| anyhow::anyhow!("argon2: {e}"))?.to_string())
}

/// Argon2's working memory (19 MiB with the default parameters) of the checks that ran,
/// kept for the next ones: at most [`MAX_PASSWORD_CHECKS`] of them. Allocating it afresh
/// for every check made memory grow with floods of logins and never come back: freed
/// blocks of 19 MiB stay in glibc's per-thread arenas (up to eight per core: 1.9 GB on a
/// large machine after 30 floods; elsewhere 30 floods of 128 wrong logins left 1.5 GB
/// resident). Reused, memory stays at most this many blocks (115 MB after the same floods,
/// which the adversarial corpus holds it to).
static CHECK_MEMORY: std::sync::Mutex<Vec<Vec<Block>>> = std::sync::Mutex::new(Vec::new());

/// Runs `check` with `blocks` blocks of argon2 memory taken from [`CHECK_MEMORY`] (or
/// allocated, when every kept one is in use), and puts them back.
fn with_check_memory<R>(blocks: usize, check: impl FnOnce(&mut [Block]) -> R) -> R {
    let kept = CHECK_MEMORY.lock().unwrap_or_else(|p| p.into_inner()).pop();
    let mut memory = kept.unwrap_or_default();
    memory.resize(blocks, Block::default());
    let result = check(&mut memory[..blocks]);
    let mut pool = CHECK_MEMORY.lock().unwrap_or_else(|p| p.into_inner());
    if pool.len() < MAX_PASSWORD_CHECKS {
        pool.push(memory);
    }
    result
}

/// Whether `password` matches the PHC string `hash` (argon2 with the hash's own
/// algorithm, version and parameters), computed in reused memory (`CHECK_MEMORY`).
pub fn verify_password(password: &str, hash: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else { return false };
    let (Ok(algorithm), Ok(params), Some(salt), Some(expected)) = (Algorithm::try_from(parsed.algorithm), Params::try_from(&parsed), parsed.salt, parsed.hash)
    else {
        return false;
    };
    let Ok(version) = parsed.version.map_or(Ok(Version::default()), Version::try_from) else { return false };
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else { return false };
    let argon2 = Argon2::new(algorithm, version, params);
    let mut computed = vec![0u8; expected.len()];
    let hashed =
        with_check_memory(argon2.params().block_count(), |memory| argon2.hash_password_into_with_memory(password.as_bytes(), salt, &mut computed, memory));
    hashed.is_ok() && same_bytes(&computed, expected.as_bytes())
}

/// Password checks (argon2, 19 MiB and some 20 ms each) running at once, at most: a
/// flood of logins cannot take more than this many times 19 MiB. A login beyond it is
/// told to try again in a second.
pub const MAX_PASSWORD_CHECKS: usize = 4;

/// Failed logins for one account from one client address before each further attempt
/// there must wait: 5 is room for typos, not for guessing.
pub const FREE_FAILURES: u32 = 5;

/// Failed logins from one client address, whatever the accounts, before each further
/// attempt from it must wait: higher than [`FREE_FAILURES`], as a lab or an office behind
/// one NAT address is many people mistyping; low enough that trying a few passwords on
/// every account from one address is slowed as much as guessing one.
pub const ADDRESS_FREE_FAILURES: u32 = 20;

/// Failures older than this are forgotten: a typo last week does not make today's wait.
pub const FORGET_FAILURES_AFTER_SECONDS: i64 = 24 * 3600;

/// The wait after the first failure beyond [`FREE_FAILURES`], doubled with each further
/// one, up to [`MAX_LOGIN_WAIT_SECONDS`].
pub const FIRST_LOGIN_WAIT_SECONDS: i64 = 2;
pub const MAX_LOGIN_WAIT_SECONDS: i64 = 15 * 60;

/// The most addresses and (login, address) pairs whose failures are remembered: a flood
/// of made-up names or of addresses cannot fill memory (the oldest entries are forgotten
/// first).
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
    /// Too many failures from this address (for this login, or for any): try again in
    /// this many seconds.
    Wait(i64),
    /// [`MAX_PASSWORD_CHECKS`] checks are running.
    Busy,
}

/// Failed logins by client address and by (login, address), and the checks running.
///
/// Failures are counted where they come from, never for an account alone: a count per
/// account would let anyone who knows an instructor's login keep them out (five wrong
/// passwords from anywhere, and the right one from the instructor's desk waits). So the
/// account's owner, from an address that has not failed, is never kept waiting. A guesser
/// is slowed per address: [`FREE_FAILURES`] tries per account, [`ADDRESS_FREE_FAILURES`]
/// over all accounts, then waits that double. One spread over many addresses gains those
/// few free tries per address (an IPv6 /64 counts as one address: one machine is given a
/// whole /64), and all of them share [`MAX_PASSWORD_CHECKS`] checks at once; against
/// generated 16-character passwords (64 bits) that is no help.
#[derive(Default)]
pub struct LoginGuard {
    /// Key (`addr:NET` or `login:NET:NAME`) to (failures, time of the last one).
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

/// The client a failure is counted against: its IP address, or for IPv6 its /64 network
/// (an IPv4 address mapped into IPv6 is the IPv4 address).
pub fn client_network(address: &str) -> String {
    match address.parse::<std::net::IpAddr>().map(|ip| ip.to_canonical()) {
        Ok(std::net::IpAddr::V6(ip)) => {
            let s = ip.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Ok(ip) => ip.to_string(),
        Err(_) => address.to_owned(),
    }
}

impl LoginGuard {
    /// The address's key and the (login, address) key, each with its free failures.
    fn keys(login: &str, address: &str) -> [(String, u32); 2] {
        let network = client_network(address);
        [(format!("addr:{network}"), ADDRESS_FREE_FAILURES), (format!("login:{network}:{login}"), FREE_FAILURES)]
    }

    /// How long an entry with `free` free failures must still wait at time `now`.
    fn wait(entry: Option<&(u32, i64)>, free: u32, now: i64) -> i64 {
        match entry {
            Some(&(failures, last)) if failures >= free && now - last < FORGET_FAILURES_AFTER_SECONDS => {
                let doublings = (failures - free).min(20);
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
            let wait = Self::keys(login, address).iter().map(|(k, free)| Self::wait(failures.get(k), *free, now)).max().unwrap_or(0);
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

    /// Records the outcome of a check: a failure counts against the address and the
    /// (login, address) pair, a success clears the pair's count.
    pub fn record(&self, login: &str, address: &str, succeeded: bool, now: i64) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let [(by_address, _), (by_login, _)] = Self::keys(login, address);
        if succeeded {
            failures.remove(&by_login);
            return;
        }
        for key in [by_address, by_login] {
            if !failures.contains_key(&key) && failures.len() >= MAX_REMEMBERED_FAILURES {
                let oldest = failures.iter().min_by_key(|&(_, &(_, last))| last).map(|(k, _)| k.clone());
                if let Some(oldest) = oldest {
                    failures.remove(&oldest);
                }
            }
            let entry = failures.entry(key).or_insert((0, now));
            let earlier = if now - entry.1 < FORGET_FAILURES_AFTER_SECONDS { entry.0 } else { 0 };
            *entry = (earlier + 1, now);
        }
    }

    /// How many addresses and (login, address) pairs are remembered.
    pub fn remembered(&self) -> usize {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// Compares secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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
    fn five_failures_for_an_account_from_an_address_are_free_then_each_waits_twice_as_long() {
        let guard = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            drop(guard.admit("ann", "10.0.0.1", 100).expect("room for typos"));
            guard.record("ann", "10.0.0.1", false, 100);
        }
        assert_eq!(guard.admit("ann", "10.0.0.1", 101).err(), Some(Refused::Wait(1)), "the pair waits");
        assert!(guard.admit("ann", "10.0.0.2", 101).is_ok(), "the account is not locked from another address");
        assert!(guard.admit("bob", "10.0.0.1", 101).is_ok(), "the address may still try another account");
        drop(guard.admit("ann", "10.0.0.1", 102).expect("waited"));
        guard.record("ann", "10.0.0.1", false, 102);
        assert_eq!(guard.admit("ann", "10.0.0.1", 102).err(), Some(Refused::Wait(4)));
    }

    #[test]
    fn an_address_failing_on_many_accounts_waits_for_all() {
        let guard = LoginGuard::default();
        for i in 0..ADDRESS_FREE_FAILURES {
            guard.record(&format!("user{i}"), "10.0.0.1", false, 100);
        }
        assert_eq!(guard.admit("someone else", "10.0.0.1", 100).err(), Some(Refused::Wait(2)));
        assert!(guard.admit("someone else", "10.0.0.2", 100).is_ok());
    }

    #[test]
    fn an_ipv6_network_of_64_bits_is_one_address() {
        assert_eq!(client_network("2001:db8:1:2:aaaa::1"), client_network("2001:db8:1:2:bbbb::2"));
        assert_ne!(client_network("2001:db8:1:2::1"), client_network("2001:db8:1:3::1"));
        assert_eq!(client_network("::ffff:10.0.0.1"), "10.0.0.1");
        let guard = LoginGuard::default();
        for i in 0..FREE_FAILURES {
            guard.record("ann", &format!("2001:db8::{i}"), false, 100);
        }
        assert!(guard.admit("ann", "2001:db8::99", 100).is_err());
    }

    #[test]
    fn failures_of_yesterday_are_forgotten() {
        let guard = LoginGuard::default();
        for _ in 0..FREE_FAILURES + 3 {
            guard.record("ann", "10.0.0.1", false, 100);
        }
        assert!(guard.admit("ann", "10.0.0.1", 100 + FORGET_FAILURES_AFTER_SECONDS).is_ok());
        guard.record("ann", "10.0.0.1", false, 100 + FORGET_FAILURES_AFTER_SECONDS);
        assert!(guard.admit("ann", "10.0.0.1", 100 + FORGET_FAILURES_AFTER_SECONDS).is_ok(), "counted afresh");
    }

    #[test]
    fn a_flood_of_addresses_is_remembered_within_the_bound() {
        let guard = LoginGuard::default();
        for i in 0..MAX_REMEMBERED_FAILURES as i64 {
            guard.record("ann", &format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255), false, i);
        }
        assert_eq!(guard.remembered(), MAX_REMEMBERED_FAILURES);
    }

    #[test]
    fn a_success_clears_the_failures_of_the_login_from_its_address() {
        let guard = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            guard.record("ann", "10.0.0.9", false, 100);
        }
        guard.record("ann", "10.0.0.9", true, 100);
        assert!(guard.admit("ann", "10.0.0.9", 100).is_ok());
    }

    #[test]
    fn argon2_memory_is_reused_and_kept_for_at_most_as_many_checks_as_may_run() {
        let hash = hash_password("right").unwrap();
        let threads: Vec<_> = (0..3 * MAX_PASSWORD_CHECKS)
            .map(|_| {
                let hash = hash.clone();
                std::thread::spawn(move || verify_password("wrong", &hash))
            })
            .collect();
        assert!(threads.into_iter().all(|t| !t.join().unwrap()));
        assert!(CHECK_MEMORY.lock().unwrap().len() <= MAX_PASSWORD_CHECKS);
        assert!(verify_password("right", &hash));
        assert!(!verify_password("right", "not a hash"));
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
