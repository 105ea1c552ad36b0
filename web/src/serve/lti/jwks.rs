//! The platforms' public keys (their JWKS), fetched from the URL each was registered with
//! and kept for [`JWKS_FRESH_SECONDS`]; a token signed by a key the kept set lacks fetches
//! the set again (a platform rotating its keys), at most once per [`JWKS_REFETCH_SECONDS`]
//! per URL, so that tokens with made-up key ids cannot make bugrank hammer the platform.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use jsonwebtoken::jwk::JwkSet;

/// How long a fetched JWKS is used before it is fetched again: platforms rotate keys
/// rarely, and announce new ones ahead.
pub const JWKS_FRESH_SECONDS: i64 = 3600;

/// The least time between two fetches of one URL, however many unknown key ids arrive.
pub const JWKS_REFETCH_SECONDS: i64 = 60;

/// How long a fetch may take: a platform that does not answer refuses the launch, it
/// does not hold an HTTP worker.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes of a JWKS document: a set of a few keys is a few KB.
pub const MAX_JWKS_BYTES: u64 = 1 << 20;

/// Fetched key sets by URL, with when each was fetched.
#[derive(Default)]
pub struct JwksCache {
    sets: Mutex<HashMap<String, (i64, JwkSet)>>,
}

impl JwksCache {
    /// The key set of `url` that holds `kid`: the kept one when it does and is fresh,
    /// else fetched (unless it was fetched less than [`JWKS_REFETCH_SECONDS`] ago).
    /// `Err` says in words why there is none.
    pub fn key_set(&self, url: &str, kid: Option<&str>, now: i64) -> Result<JwkSet, String> {
        let holds = |set: &JwkSet| kid.is_none_or(|kid| set.find(kid).is_some());
        if let Some((fetched, set)) = self.sets.lock().expect("jwks poisoned").get(url) {
            let fresh = now - fetched < JWKS_FRESH_SECONDS;
            if (fresh && holds(set)) || now - fetched < JWKS_REFETCH_SECONDS {
                return Ok(set.clone());
            }
        }
        let set = fetch(url)?;
        self.sets.lock().expect("jwks poisoned").insert(url.to_owned(), (now, set.clone()));
        Ok(set)
    }
}

/// GETs the JWKS at `url`.
fn fetch(url: &str) -> Result<JwkSet, String> {
    super::secure_url(url).map_err(|why| format!("the platform's keyset URL `{url}` {why}"))?;
    let reply =
        super::services::agent_within(FETCH_TIMEOUT).get(url).call().map_err(|e| format!("the platform's keys could not be fetched from {url}: {e}"))?;
    let body = super::services::body_within(reply, MAX_JWKS_BYTES).map_err(|e| format!("the platform's keys could not be read from {url}: {e}"))?;
    serde_json::from_str(&body).map_err(|e| format!("{url} does not hold a JWKS (a JSON object with `keys`): {e}"))
}
