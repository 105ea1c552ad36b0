//! The two steps of a launch: the login initiation ([`LoginRequest`] →
//! [`authorization_url`]) and the launch's `id_token` ([`verify`] → [`Launch`], or the
//! check it fails, [`Refused`]).

use std::collections::HashMap;

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::{Role, claim};
use crate::serve::db::PlatformRow;

/// How long a login may take between its initiation and its launch: the platform's
/// authorization step is a redirect, seconds; ten minutes leaves room for a slow network
/// and a login page at the platform.
pub const LOGIN_SECONDS: i64 = 600;

/// The most logins in flight (begun in the last [`LOGIN_SECONDS`], not launched): a
/// hundred times a class of 300 launching at once, while a flood of the login URL, which
/// anyone may call, keeps at most some megabytes in the store and is refused beyond.
pub const MOST_LOGINS_IN_FLIGHT: i64 = 30_000;

/// The clock skew allowed between the platform and bugrank on `exp` (jsonwebtoken's
/// default): a minute.
pub const CLOCK_SKEW_SECONDS: u64 = 60;

/// The LTI version bugrank speaks.
pub const LTI_VERSION: &str = "1.3.0";

/// The message types bugrank accepts: a launch of a link, and an instructor's choice of
/// what a new link of the LMS opens (deep linking).
pub const RESOURCE_LINK_REQUEST: &str = "LtiResourceLinkRequest";
pub const DEEP_LINKING_REQUEST: &str = "LtiDeepLinkingRequest";

/// OIDC's third-party initiated login, as the platform sends it (by GET or POST).
#[derive(Clone, Debug, Deserialize)]
pub struct LoginRequest {
    pub iss: String,
    pub login_hint: String,
    pub target_link_uri: String,
    pub lti_message_hint: Option<String>,
    /// Which registration of the issuer (sent by platforms that give several client ids).
    pub client_id: Option<String>,
    pub lti_deployment_id: Option<String>,
}

impl LoginRequest {
    /// The platform the login is from: the one registered with its issuer (and client id,
    /// when it sends one). `Err` in words for a platform bugrank does not know.
    pub fn platform<'p>(&self, registered: &'p [PlatformRow]) -> Result<&'p PlatformRow, Refused> {
        let mut of_issuer = registered.iter().filter(|p| p.issuer == self.iss);
        let found = match &self.client_id {
            Some(client) => of_issuer.find(|p| &p.client_id == client),
            None => of_issuer.next(),
        };
        found.ok_or_else(|| Refused::UnknownPlatform { issuer: self.iss.clone(), client_id: self.client_id.clone() })
    }
}

/// Where the login goes on to: the platform's authorization URL with OIDC's parameters
/// (`response_type=id_token`, `response_mode=form_post`, `prompt=none`, ...), this
/// login's `state` and `nonce`, and `redirect_uri`, bugrank's `/lti/launch`.
pub fn authorization_url(platform: &PlatformRow, login: &LoginRequest, redirect_uri: &str, state: &str, nonce: &str) -> Result<String, Refused> {
    let mut url =
        url::Url::parse(&platform.auth_url).map_err(|e| Refused::Registration(format!("its authorization URL `{}` is not a URL: {e}", platform.auth_url)))?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("scope", "openid")
            .append_pair("response_type", "id_token")
            .append_pair("response_mode", "form_post")
            .append_pair("prompt", "none")
            .append_pair("client_id", &platform.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("login_hint", &login.login_hint)
            .append_pair("state", state)
            .append_pair("nonce", nonce);
        if let Some(hint) = &login.lti_message_hint {
            query.append_pair("lti_message_hint", hint);
        }
    }
    Ok(url.into())
}

/// Why a launch is refused: each check of [`verify`] that can fail, in words a person
/// reading the page (or the LMS's administrator) can act on.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Refused {
    #[error("no platform is registered in bugrank with issuer `{issuer}`{}: an instructor registers it first (Platforms, or `bugrank lti add-platform`)", client_id.as_ref().map(|c| format!(" and client id `{c}`")).unwrap_or_default())]
    UnknownPlatform { issuer: String, client_id: Option<String> },
    #[error("this launch was already used, or took longer than {} minutes, or did not start at bugrank's /lti/login: start it again from the LMS", LOGIN_SECONDS / 60)]
    UnknownState,
    #[error("the platform's registration is wrong: {0}")]
    Registration(String),
    #[error("the launch's id_token cannot be checked: {0}")]
    Keys(String),
    #[error("the launch's id_token is not a signed JWT bugrank can read: {0}")]
    Malformed(String),
    #[error("the launch's id_token is not signed by the platform's key")]
    Signature,
    #[error("the launch's id_token has expired")]
    Expired,
    /// Issued (`iat`) or valid from (`nbf`) later than now, beyond the clock skew allowed.
    #[error("the launch's id_token is from the future (its iat or nbf is after now): the LMS's clock or bugrank's is wrong")]
    NotYet,
    #[error("the launch's id_token is from issuer `{found}`, not the platform's `{expected}`")]
    Issuer { expected: String, found: String },
    #[error("the launch's id_token is not for bugrank's client id `{client_id}` (its aud/azp)")]
    Audience { client_id: String },
    #[error("the launch's id_token lacks the claim `{0}`")]
    Missing(String),
    #[error("the launch's id_token does not carry the nonce of this login: a replay, or a token of another login")]
    Nonce,
    #[error("deployment `{0}` of bugrank is not registered for this platform")]
    Deployment(String),
    #[error("bugrank speaks LTI {LTI_VERSION}; this launch is LTI `{0}`")]
    Version(String),
    #[error("bugrank does not take `{0}` launches (only {RESOURCE_LINK_REQUEST} and {DEEP_LINKING_REQUEST})")]
    MessageType(String),
    #[error("only an instructor chooses what an LMS link opens (a deep linking request); this launch is a learner's")]
    DeepLinkingLearner,
    #[error("bugrank answers a deep linking request with a resource link, which this one does not accept (it accepts {0})")]
    DeepLinkingTypes(String),
    #[error("bugrank lets instructors and learners in; the roles of this launch are neither ({0})")]
    Role(String),
}

/// A verified launch: who, in which course, as what.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The person's id at the platform (`sub`).
    pub sub: String,
    pub name: String,
    pub email: String,
    /// The institution's id of the person (`lis.person_sourcedid`), when the platform gives it.
    pub sourcedid: Option<String>,
    pub role: Role,
    /// The platform's course, `(id, title)`, when the launch is from one.
    pub context: Option<(String, String)>,
    pub deployment_id: String,
    /// The resource link launched (an LMS assignment's link to bugrank): its id and title.
    pub resource_link: Option<(String, String)>,
    pub target_link_uri: Option<String>,
    /// Assignment and Grade Services at this link: the line items container, and the
    /// link's own line item when the platform made one.
    pub lineitems: Option<String>,
    pub lineitem: Option<String>,
    /// Names and Role Provisioning: the course's members.
    pub memberships: Option<String>,
    /// The batch the link opens, as deep linking set it (the custom parameter `batch`).
    pub batch: Option<i64>,
    /// A deep linking request's settings: the instructor chooses what a new link opens.
    pub deep_linking: Option<DeepLinking>,
}

/// What a deep linking request asks bugrank to answer with.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct DeepLinking {
    /// Where the answer (a JWT bugrank signs) is posted.
    pub deep_link_return_url: String,
    #[serde(default)]
    pub accept_types: Vec<String>,
    /// The platform's own value, to be given back as it is.
    #[serde(default)]
    pub data: Option<String>,
}

#[derive(Deserialize)]
struct Context {
    id: String,
    title: Option<String>,
    label: Option<String>,
}

#[derive(Deserialize)]
struct Link {
    id: String,
    title: Option<String>,
}

#[derive(Deserialize)]
struct GradeService {
    lineitems: Option<String>,
    lineitem: Option<String>,
}

#[derive(Deserialize)]
struct RosterService {
    context_memberships_url: Option<String>,
}

#[derive(Deserialize)]
struct Lis {
    person_sourcedid: Option<String>,
}

/// The claims bugrank reads (jsonwebtoken checks `iss`, `aud` and `exp` itself).
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    azp: Option<String>,
    /// One audience or several (jsonwebtoken checks that bugrank's client id is one).
    aud: serde_json::Value,
    nonce: Option<String>,
    /// When the platform issued it: LTI requires it (jsonwebtoken checks `nbf`, not this).
    iat: Option<u64>,
    name: Option<String>,
    given_name: Option<String>,
    family_name: Option<String>,
    email: Option<String>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/message_type")]
    message_type: Option<String>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/version")]
    version: Option<String>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/deployment_id")]
    deployment_id: Option<String>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri")]
    target_link_uri: Option<String>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/resource_link")]
    resource_link: Option<Link>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/roles")]
    roles: Option<Vec<String>>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/context")]
    context: Option<Context>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/lis")]
    lis: Option<Lis>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint")]
    grades: Option<GradeService>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice")]
    roster: Option<RosterService>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti/claim/custom")]
    custom: Option<HashMap<String, serde_json::Value>>,
    #[serde(rename = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings")]
    deep_linking: Option<DeepLinking>,
}

/// Checks a launch's `id_token` from `platform`, whose login kept `nonce`, against the
/// platform's keys `keys` (see [`super::jwks::JwksCache`]): RS256 signature by the key its
/// header names, `iss` the platform's issuer, `aud` holding its client id (and `azp` that
/// client id when `aud` holds several, or when given), not expired, the nonce, a registered
/// deployment, LTI 1.3.0, a resource link request, and a role bugrank knows.
pub fn verify(id_token: &str, platform: &PlatformRow, nonce: &str, keys: &JwkSet) -> Result<Launch, Refused> {
    let header = jsonwebtoken::decode_header(id_token).map_err(|e| Refused::Malformed(e.to_string()))?;
    if header.alg != Algorithm::RS256 {
        return Err(Refused::Malformed(format!("it is signed with {:?}; LTI asks for RS256", header.alg)));
    }
    let jwk = match &header.kid {
        Some(kid) => keys.find(kid).ok_or_else(|| Refused::Keys(format!("the platform publishes no key `{kid}` at {}", platform.jwks_url)))?,
        None if keys.keys.len() == 1 => &keys.keys[0],
        None => return Err(Refused::Malformed("its header names no key (`kid`), and the platform has several".into())),
    };
    let key = DecodingKey::from_jwk(jwk)
        .map_err(|e| Refused::Keys(format!("the platform's key `{}` is not an RSA key bugrank can use: {e}", header.kid.clone().unwrap_or_default())))?;
    let mut validation = Validation::new(Algorithm::RS256);
    validation.leeway = CLOCK_SKEW_SECONDS;
    validation.validate_nbf = true;
    validation.set_issuer(&[&platform.issuer]);
    validation.set_audience(&[&platform.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let claims = jsonwebtoken::decode::<Claims>(id_token, &key, &validation)
        .map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::InvalidSignature => Refused::Signature,
                ErrorKind::ExpiredSignature => Refused::Expired,
                ErrorKind::ImmatureSignature => Refused::NotYet,
                ErrorKind::InvalidIssuer => Refused::Issuer { expected: platform.issuer.clone(), found: issuer_of(id_token).unwrap_or_default() },
                ErrorKind::InvalidAudience => Refused::Audience { client_id: platform.client_id.clone() },
                ErrorKind::MissingRequiredClaim(claim) => Refused::Missing(claim.clone()),
                _ => Refused::Malformed(e.to_string()),
            }
        })?
        .claims;
    match claims.iat {
        None => return Err(Refused::Missing("iat".into())),
        Some(iat) if iat > jsonwebtoken::get_current_timestamp() + CLOCK_SKEW_SECONDS => return Err(Refused::NotYet),
        Some(_) => {}
    }
    let several = claims.aud.as_array().is_some_and(|all| all.len() > 1);
    match &claims.azp {
        Some(azp) if azp != &platform.client_id => return Err(Refused::Audience { client_id: platform.client_id.clone() }),
        None if several => return Err(Refused::Audience { client_id: platform.client_id.clone() }),
        _ => {}
    }
    if claims.nonce.as_deref() != Some(nonce) {
        return Err(Refused::Nonce);
    }
    let deployment_id = claims.deployment_id.ok_or_else(|| Refused::Missing(claim::DEPLOYMENT_ID.into()))?;
    if !platform.deployment_ids.contains(&deployment_id) {
        return Err(Refused::Deployment(deployment_id));
    }
    match claims.version.as_deref() {
        Some(LTI_VERSION) => {}
        Some(other) => return Err(Refused::Version(other.into())),
        None => return Err(Refused::Missing(claim::VERSION.into())),
    }
    let deep_linking = match claims.message_type.as_deref() {
        Some(RESOURCE_LINK_REQUEST) => None,
        Some(DEEP_LINKING_REQUEST) => Some(claims.deep_linking.ok_or_else(|| Refused::Missing(DEEP_LINKING_SETTINGS.into()))?),
        Some(other) => return Err(Refused::MessageType(other.into())),
        None => return Err(Refused::Missing(claim::MESSAGE_TYPE.into())),
    };
    let roles = claims.roles.ok_or_else(|| Refused::Missing(claim::ROLES.into()))?;
    let role = Role::of(&roles).ok_or_else(|| Refused::Role(if roles.is_empty() { "none".into() } else { roles.join(", ") }))?;
    if let Some(settings) = &deep_linking {
        if role != Role::Instructor {
            return Err(Refused::DeepLinkingLearner);
        }
        if !settings.accept_types.is_empty() && !settings.accept_types.iter().any(|t| t == "ltiResourceLink") {
            return Err(Refused::DeepLinkingTypes(settings.accept_types.join(", ")));
        }
    }
    let sub = claims.sub.expect("`sub` is required by the validation");
    let name = claims.name.or_else(|| Some(format!("{} {}", claims.given_name?, claims.family_name?))).unwrap_or_default();
    Ok(Launch {
        sub,
        name,
        email: claims.email.unwrap_or_default(),
        sourcedid: claims.lis.and_then(|lis| lis.person_sourcedid),
        role,
        context: claims.context.map(|c| {
            let title = c.title.or(c.label).unwrap_or_else(|| c.id.clone());
            (c.id, title)
        }),
        deployment_id,
        resource_link: claims.resource_link.map(|l| {
            let title = l.title.unwrap_or_else(|| l.id.clone());
            (l.id, title)
        }),
        target_link_uri: claims.target_link_uri,
        lineitems: claims.grades.as_ref().and_then(|g| g.lineitems.clone()),
        lineitem: claims.grades.and_then(|g| g.lineitem),
        memberships: claims.roster.and_then(|r| r.context_memberships_url),
        // A custom parameter is a string, or a number when the platform reads it so.
        batch: claims.custom.and_then(|c| c.get("batch").and_then(|b| b.as_i64().or_else(|| b.as_str()?.trim().parse().ok()))),
        deep_linking,
    })
}

/// The claim of a deep linking request's settings.
pub const DEEP_LINKING_SETTINGS: &str = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings";

/// The answer to a deep linking request: the claims of the JWT bugrank signs and posts to
/// the request's return URL, with one resource link that launches `launch_url` with the
/// custom parameter `batch`, and its line item of `max` points.
pub fn deep_linking_response(platform: &PlatformRow, deployment_id: &str, settings: &DeepLinking, item: &LinkedBatch, now: i64) -> serde_json::Value {
    let mut claims = serde_json::json!({
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + 300,
        "nonce": crate::serve::auth::random_token(),
        claim::MESSAGE_TYPE: "LtiDeepLinkingResponse",
        claim::VERSION: LTI_VERSION,
        claim::DEPLOYMENT_ID: deployment_id,
        CONTENT_ITEMS: [{
            "type": "ltiResourceLink",
            "title": item.title,
            "url": item.launch_url,
            "custom": { "batch": item.batch.to_string() },
            "lineItem": { "scoreMaximum": item.max, "label": item.title, "resourceId": format!("bugrank-batch-{}", item.batch), "tag": "bugrank" },
        }],
    });
    if let Some(data) = &settings.data {
        claims[DEEP_LINKING_DATA] = serde_json::json!(data);
    }
    claims
}

/// The batch a deep linking answer links.
pub struct LinkedBatch {
    pub batch: i64,
    pub title: String,
    pub launch_url: String,
    /// The points' maximum of its line item.
    pub max: f64,
}

pub const CONTENT_ITEMS: &str = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items";
pub const DEEP_LINKING_DATA: &str = "https://purl.imsglobal.org/spec/lti-dl/claim/data";

/// The `iss` a token says, unverified: for the words of a refusal only.
fn issuer_of(token: &str) -> Option<String> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice::<serde_json::Value>(&bytes).ok()?.get("iss")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::lti::keys::{ToolKey, jwks};
    use serde_json::{Value, json};

    fn platform() -> PlatformRow {
        PlatformRow {
            id: 1,
            name: "Canvas".into(),
            issuer: "https://canvas.example.edu".into(),
            client_id: "10000000000042".into(),
            auth_url: "https://canvas.example.edu/api/lti/authorize_redirect".into(),
            token_url: "https://canvas.example.edu/login/oauth2/token".into(),
            jwks_url: "https://canvas.example.edu/api/lti/security/jwks".into(),
            deployment_ids: vec!["7:abc".into()],
        }
    }

    /// A launch's claims as Canvas sends a learner's.
    fn claims() -> Value {
        json!({
            "iss": "https://canvas.example.edu",
            "aud": "10000000000042",
            "sub": "5f2c-learner",
            "exp": jsonwebtoken::get_current_timestamp() + 300,
            "iat": jsonwebtoken::get_current_timestamp(),
            "nonce": "n-1",
            "name": "Ada Lovelace",
            "email": "ada@example.edu",
            claim::MESSAGE_TYPE: "LtiResourceLinkRequest",
            claim::VERSION: "1.3.0",
            claim::DEPLOYMENT_ID: "7:abc",
            claim::TARGET_LINK_URI: "https://bugrank.example.edu/lti/launch",
            claim::RESOURCE_LINK: { "id": "link-1" },
            claim::ROLES: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
            claim::CONTEXT: { "id": "course-9", "title": "Programming 1" },
            claim::LIS: { "person_sourcedid": "s1234" },
        })
    }

    fn keys() -> &'static (ToolKey, JwkSet) {
        static KEYS: std::sync::OnceLock<(ToolKey, JwkSet)> = std::sync::OnceLock::new();
        KEYS.get_or_init(|| {
            let key = ToolKey::generate();
            let set = serde_json::from_value(jwks(std::slice::from_ref(&key))).unwrap();
            (key, set)
        })
    }

    /// Verifies `claims` with `change` applied, signed by the platform's key.
    fn check(change: impl FnOnce(&mut Value)) -> Result<Launch, Refused> {
        let mut claims = claims();
        change(&mut claims);
        let (key, set) = keys();
        verify(&key.sign(&claims), &platform(), "n-1", set)
    }

    #[test]
    fn a_learners_launch_signed_by_the_platform_is_verified_with_who_and_where() {
        let launch = check(|_| {}).unwrap();
        assert_eq!(
            launch,
            Launch {
                sub: "5f2c-learner".into(),
                name: "Ada Lovelace".into(),
                email: "ada@example.edu".into(),
                sourcedid: Some("s1234".into()),
                role: Role::Learner,
                context: Some(("course-9".into(), "Programming 1".into())),
                deployment_id: "7:abc".into(),
                resource_link: Some(("link-1".into(), "link-1".into())),
                target_link_uri: Some("https://bugrank.example.edu/lti/launch".into()),
                lineitems: None,
                lineitem: None,
                memberships: None,
                batch: None,
                deep_linking: None,
            }
        );
    }

    #[test]
    fn a_token_signed_by_another_key_under_the_platforms_key_id_is_refused() {
        let (key, set) = keys();
        let mut forger = ToolKey::generate();
        forger.kid = key.kid.clone();
        assert_eq!(verify(&forger.sign(&claims()), &platform(), "n-1", set), Err(Refused::Signature));
    }

    #[test]
    fn a_token_altered_after_signing_is_refused() {
        let (key, set) = keys();
        let token = key.sign(&claims());
        let parts: Vec<&str> = token.split('.').collect();
        let mut altered = claims();
        altered[claim::ROLES] = json!(["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]);
        use base64::Engine as _;
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(&altered).unwrap());
        assert_eq!(verify(&format!("{}.{payload}.{}", parts[0], parts[2]), &platform(), "n-1", set), Err(Refused::Signature));
    }

    #[test]
    fn each_claim_that_does_not_hold_refuses_the_launch_and_says_which() {
        let expired = jsonwebtoken::get_current_timestamp() - 3600;
        assert_eq!(check(|c| c["exp"] = json!(expired)), Err(Refused::Expired));
        let later = jsonwebtoken::get_current_timestamp() + 600;
        assert_eq!(check(|c| c["iat"] = json!(later)), Err(Refused::NotYet));
        assert_eq!(check(|c| c["nbf"] = json!(later)), Err(Refused::NotYet));
        assert_eq!(
            check(|c| {
                c.as_object_mut().unwrap().remove("iat");
            }),
            Err(Refused::Missing("iat".into()))
        );
        assert!(matches!(check(|c| c["iss"] = json!("https://evil.example")), Err(Refused::Issuer { found, .. }) if found == "https://evil.example"));
        assert!(matches!(check(|c| c["aud"] = json!("another-tool")), Err(Refused::Audience { .. })));
        assert!(matches!(check(|c| c["aud"] = json!(["10000000000042", "another-tool"])), Err(Refused::Audience { .. })), "several audiences and no azp");
        assert!(
            check(|c| {
                c["aud"] = json!(["10000000000042", "another-tool"]);
                c["azp"] = json!("10000000000042");
            })
            .is_ok()
        );
        assert!(matches!(check(|c| c["azp"] = json!("another-tool")), Err(Refused::Audience { .. })));
        assert_eq!(check(|c| c["nonce"] = json!("n-2")), Err(Refused::Nonce));
        assert_eq!(check(|c| c.as_object_mut().unwrap().remove("nonce").map(drop).unwrap()), Err(Refused::Nonce));
        assert_eq!(check(|c| c[claim::DEPLOYMENT_ID] = json!("8:other")), Err(Refused::Deployment("8:other".into())));
        assert_eq!(check(|c| c[claim::VERSION] = json!("1.1")), Err(Refused::Version("1.1".into())));
        assert_eq!(check(|c| c[claim::MESSAGE_TYPE] = json!("LtiSubmissionReviewRequest")), Err(Refused::MessageType("LtiSubmissionReviewRequest".into())));
        assert!(matches!(check(|c| c[claim::ROLES] = json!(["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"])), Err(Refused::Role(_))));
        assert_eq!(check(|c| c.as_object_mut().unwrap().remove("sub").map(drop).unwrap()), Err(Refused::Missing("sub".into())));
        assert_eq!(check(|c| c.as_object_mut().unwrap().remove(claim::ROLES).map(drop).unwrap()), Err(Refused::Missing(claim::ROLES.into())));
    }

    #[test]
    fn a_deep_linking_request_is_an_instructors_for_a_resource_link_and_its_answer_gives_the_data_back() {
        let deep_linking = |c: &mut Value| {
            c[claim::MESSAGE_TYPE] = json!(DEEP_LINKING_REQUEST);
            c[DEEP_LINKING_SETTINGS] = json!({ "deep_link_return_url": "https://canvas.example.edu/dl", "accept_types": ["ltiResourceLink"], "data": "d1" });
        };
        assert_eq!(check(deep_linking), Err(Refused::DeepLinkingLearner));
        let instructor = |c: &mut Value| {
            deep_linking(c);
            c[claim::ROLES] = json!(["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]);
        };
        let settings = check(instructor).unwrap().deep_linking.unwrap();
        assert_eq!((settings.deep_link_return_url.as_str(), settings.data.as_deref()), ("https://canvas.example.edu/dl", Some("d1")));
        assert!(matches!(
            check(|c| {
                instructor(c);
                c[DEEP_LINKING_SETTINGS]["accept_types"] = json!(["file", "html"]);
            }),
            Err(Refused::DeepLinkingTypes(_))
        ));
        let item = LinkedBatch { batch: 7, title: "Week 3".into(), launch_url: "https://bugrank.example.edu/lti/launch".into(), max: 50.0 };
        let answer = deep_linking_response(&platform(), "7:abc", &settings, &item, 1000);
        assert_eq!((answer["iss"].as_str(), answer["aud"].as_str()), (Some("10000000000042"), Some("https://canvas.example.edu")));
        assert_eq!(answer[DEEP_LINKING_DATA], "d1");
        assert_eq!(answer[claim::MESSAGE_TYPE], "LtiDeepLinkingResponse");
        assert_eq!(answer[CONTENT_ITEMS][0]["custom"]["batch"], "7");
        assert_eq!(answer[CONTENT_ITEMS][0]["lineItem"]["scoreMaximum"], 50.0);
    }

    #[test]
    fn an_unsigned_token_or_one_of_another_algorithm_is_refused() {
        use base64::Engine as _;
        let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap());
        let (_, set) = keys();
        let none = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&claims()));
        assert!(matches!(verify(&none, &platform(), "n-1", set), Err(Refused::Malformed(_))));
        let hs256 =
            jsonwebtoken::encode(&jsonwebtoken::Header::new(Algorithm::HS256), &claims(), &jsonwebtoken::EncodingKey::from_secret(b"guess").unwrap()).unwrap();
        assert!(matches!(verify(&hs256, &platform(), "n-1", set), Err(Refused::Malformed(m)) if m.contains("RS256")));
    }

    #[test]
    fn a_login_goes_on_to_the_platforms_authorization_url_with_oidcs_parameters() {
        let login = LoginRequest {
            iss: "https://canvas.example.edu".into(),
            login_hint: "hint 1".into(),
            target_link_uri: "https://bugrank.example.edu/lti/launch".into(),
            lti_message_hint: Some("m&2".into()),
            client_id: None,
            lti_deployment_id: None,
        };
        let url = authorization_url(&platform(), &login, "https://bugrank.example.edu/lti/launch", "st", "no").unwrap();
        let parsed = url::Url::parse(&url).unwrap();
        let query: std::collections::HashMap<String, String> = parsed.query_pairs().into_owned().collect();
        assert_eq!(parsed.path(), "/api/lti/authorize_redirect");
        for (name, value) in [
            ("scope", "openid"),
            ("response_type", "id_token"),
            ("response_mode", "form_post"),
            ("prompt", "none"),
            ("client_id", "10000000000042"),
            ("redirect_uri", "https://bugrank.example.edu/lti/launch"),
            ("login_hint", "hint 1"),
            ("lti_message_hint", "m&2"),
            ("state", "st"),
            ("nonce", "no"),
        ] {
            assert_eq!(query.get(name).map(String::as_str), Some(value), "{name} in {url}");
        }
    }

    #[test]
    fn a_login_from_an_issuer_nobody_registered_is_refused_by_name() {
        let login = LoginRequest {
            iss: "https://moodle.example.org".into(),
            login_hint: "1".into(),
            target_link_uri: String::new(),
            lti_message_hint: None,
            client_id: Some("x".into()),
            lti_deployment_id: None,
        };
        let refused = login.platform(&[platform()]).unwrap_err();
        assert!(refused.to_string().contains("issuer `https://moodle.example.org` and client id `x`"), "{refused}");
    }
}
