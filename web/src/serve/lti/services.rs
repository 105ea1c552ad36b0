//! LTI Advantage's services, bugrank as their client: an OAuth 2 access token by the
//! client-credentials grant, proven with a JWT the tool's key signs (1EdTech Security
//! Framework 1.0, section 4.1), then Names and Role Provisioning (a course's members) and
//! Assignment and Grade Services (line items and scores).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::keys::ToolKey;
use crate::serve::auth::random_token;
use crate::serve::db::PlatformRow;

pub const NRPS_SCOPE: &str = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly";
pub const AGS_LINEITEM_SCOPE: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem";
pub const AGS_SCORE_SCOPE: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/score";

/// How long a request to a platform may take.
pub const SERVICE_TIMEOUT: Duration = Duration::from_secs(20);

/// The most bytes of one answer of a platform (a page of a roster of a thousand is some
/// hundreds of KB).
pub const MAX_ANSWER_BYTES: u64 = 8 << 20;

/// The most pages of a roster followed: a platform's `next` links cannot run forever.
pub const MAX_ROSTER_PAGES: usize = 100;

/// Access tokens by platform and scopes, until a minute before they expire.
#[derive(Default)]
pub struct AccessTokens {
    tokens: Mutex<HashMap<(i64, String), (i64, String)>>,
}

#[derive(Serialize)]
struct Assertion<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: i64,
    exp: i64,
    jti: String,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: Option<i64>,
}

/// A client for a platform: no redirect followed, each request within `timeout`.
pub(super) fn agent_within(timeout: Duration) -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(timeout).redirects(0).build()
}

fn agent() -> ureq::Agent {
    agent_within(SERVICE_TIMEOUT)
}

/// `url` when the platform's tokens may go there ([`super::secure_url`]).
fn checked(what: &str, url: &str) -> Result<(), String> {
    super::secure_url(url).map_err(|why| format!("{what} `{url}` {why}: bugrank sends it no token"))
}

/// The body of an answer, within [`MAX_ANSWER_BYTES`].
fn body(reply: ureq::Response) -> Result<String, String> {
    body_within(reply, MAX_ANSWER_BYTES)
}

/// The body of an answer, at most `limit` bytes of it.
pub(super) fn body_within(reply: ureq::Response, limit: u64) -> Result<String, String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(reply.into_reader(), limit), &mut text).map_err(|e| e.to_string())?;
    Ok(text)
}

/// A failed request in words: the platform's status and what it said.
fn failed(what: &str, url: &str, error: ureq::Error) -> String {
    match error {
        ureq::Error::Status(status, reply) => {
            format!("{what} ({url}) answered {status}: {}", body(reply).unwrap_or_default().chars().take(300).collect::<String>())
        }
        other => format!("{what} ({url}) could not be reached: {other}"),
    }
}

impl AccessTokens {
    /// An access token of `platform` for `scopes`: a kept one, or a new one from its token
    /// URL, asked with a client assertion signed by `key`.
    pub fn token(&self, platform: &PlatformRow, key: &ToolKey, scopes: &[&str], now: i64) -> Result<String, String> {
        let scope = scopes.join(" ");
        let slot = (platform.id, scope.clone());
        if let Some((expires, token)) = self.tokens.lock().expect("tokens poisoned").get(&slot)
            && *expires > now
        {
            return Ok(token.clone());
        }
        checked("the LMS's token URL", &platform.token_url)?;
        let assertion = key.sign(&Assertion {
            iss: &platform.client_id,
            sub: &platform.client_id,
            aud: &platform.token_url,
            iat: now,
            exp: now + 300,
            jti: random_token(),
        });
        let reply = agent()
            .post(&platform.token_url)
            .send_form(&[
                ("grant_type", "client_credentials"),
                ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                ("client_assertion", &assertion),
                ("scope", &scope),
            ])
            .map_err(|e| failed("the LMS's token URL", &platform.token_url, e))?;
        let answer: TokenAnswer = serde_json::from_str(&body(reply)?).map_err(|e| format!("the LMS's token URL answered no access token: {e}"))?;
        let expires = now + answer.expires_in.unwrap_or(3600) - 60;
        self.tokens.lock().expect("tokens poisoned").insert(slot, (expires, answer.access_token.clone()));
        Ok(answer.access_token)
    }
}

/// Makes a line item in the platform's `lineitems` container: its URL (`id`).
pub fn create_lineitem(lineitems: &str, token: &str, item: &impl Serialize) -> Result<String, String> {
    checked("the LMS's line items", lineitems)?;
    let reply = agent()
        .post(lineitems)
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "application/vnd.ims.lis.v2.lineitem+json")
        .set("Accept", "application/vnd.ims.lis.v2.lineitem+json")
        .send_string(&serde_json::to_string(item).expect("a line item serializes"))
        .map_err(|e| failed("the LMS's line items", lineitems, e))?;
    #[derive(Deserialize)]
    struct Made {
        id: String,
    }
    let made: Made = serde_json::from_str(&body(reply)?).map_err(|e| format!("the LMS made a line item but did not say its URL (`id`): {e}"))?;
    Ok(made.id)
}

/// The scores endpoint of a line item: its URL with `/scores` after the path.
pub fn scores_url(lineitem: &str) -> String {
    match lineitem.split_once('?') {
        Some((path, query)) => format!("{}/scores?{query}", path.trim_end_matches('/')),
        None => format!("{}/scores", lineitem.trim_end_matches('/')),
    }
}

/// Posts one score to a line item's scores endpoint.
pub fn post_score(scores: &str, token: &str, score: &impl Serialize) -> Result<(), String> {
    checked("the LMS's scores", scores)?;
    agent()
        .post(scores)
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "application/vnd.ims.lis.v1.score+json")
        .send_string(&serde_json::to_string(score).expect("a score serializes"))
        .map_err(|e| failed("the LMS's scores", scores, e))?;
    Ok(())
}

/// A member of a course, as Names and Role Provisioning gives them.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Member {
    pub user_id: String,
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub lis_person_sourcedid: Option<String>,
    /// `Active`, `Inactive` or `Deleted`; absent means active.
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Deserialize)]
struct Membership {
    members: Vec<Member>,
}

/// Every member of the course at `url` (the launch's `context_memberships_url`), following
/// the platform's `Link: <...>; rel="next"` pages.
pub fn members(url: &str, token: &str) -> Result<Vec<Member>, String> {
    let mut all = Vec::new();
    let mut next = Some(url.to_owned());
    for _ in 0..MAX_ROSTER_PAGES {
        let Some(page) = next.take() else { return Ok(all) };
        checked("the LMS's roster", &page)?;
        let reply = agent()
            .get(&page)
            .set("Authorization", &format!("Bearer {token}"))
            .set("Accept", "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
            .call()
            .map_err(|e| failed("the LMS's roster", &page, e))?;
        next = reply.header("link").and_then(next_link);
        let membership: Membership =
            serde_json::from_str(&body(reply)?).map_err(|e| format!("the LMS's roster ({page}) is not a membership container: {e}"))?;
        all.extend(membership.members);
    }
    Err(format!("the LMS's roster ({url}) has more than {MAX_ROSTER_PAGES} pages"))
}

/// The `rel="next"` target of a `Link` header.
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|link| {
        let (target, params) = link.split_once(';')?;
        params.split(';').any(|p| p.trim().replace(' ', "") == "rel=\"next\"").then(|| target.trim().trim_start_matches('<').trim_end_matches('>').to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_items_scores_are_under_its_path_before_its_query() {
        assert_eq!(scores_url("https://lms.example/api/lti/courses/1/line_items/7"), "https://lms.example/api/lti/courses/1/line_items/7/scores");
        assert_eq!(
            scores_url("https://lms.example/mod/lti/services.php/2/lineitems/9/lineitem?type_id=1"),
            "https://lms.example/mod/lti/services.php/2/lineitems/9/lineitem/scores?type_id=1"
        );
    }

    #[test]
    fn the_next_page_of_a_roster_is_the_link_header_s_rel_next() {
        let header = r#"<https://lms.example/m?p=1>; rel="prev", <https://lms.example/m?p=3>; rel="next""#;
        assert_eq!(next_link(header).as_deref(), Some("https://lms.example/m?p=3"));
        assert_eq!(next_link(r#"<https://lms.example/m?p=1>; rel="prev""#), None);
    }
}
