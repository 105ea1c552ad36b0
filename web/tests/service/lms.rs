//! A test double of an LMS as an LTI 1.3 platform: its own RSA key and JWKS, the OIDC
//! authorization step of a launch, with people and a course of its own, real
//! cryptography (RS256 by `jsonwebtoken`, the key made by `rsa`), on a port of its own.
//! What it received is recorded for the tests to assert.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::{HttpResponse, web};
use base64::Engine as _;
use rsa::pkcs1::EncodeRsaPrivateKey;
use rsa::traits::PublicKeyParts;
use serde_json::{Value, json};

/// The platform's client id for bugrank, and its deployment.
pub const CLIENT_ID: &str = "bugrank-tool-1";
pub const DEPLOYMENT_ID: &str = "1:deployment";
pub const COURSE: (&str, &str) = ("course-101", "Programming 1 (LMS)");

/// A person of the LMS: their id there, name, email, institution id and roles.
#[derive(Clone)]
pub struct Person {
    pub sub: &'static str,
    pub name: &'static str,
    pub email: &'static str,
    pub sourcedid: Option<&'static str>,
    pub roles: &'static [&'static str],
}

pub const LEARNER: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";
pub const INSTRUCTOR: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor";

/// How the double misbehaves when asked to (to check that bugrank refuses it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Forgery {
    None,
    /// Signed by another key under the platform's key id.
    OtherKey,
    /// Another nonce than the login's.
    OtherNonce,
    /// Already expired.
    Expired,
}

struct State {
    key_der: Vec<u8>,
    other_der: Vec<u8>,
    kid: String,
    jwk: Value,
    people: HashMap<&'static str, Person>,
    forgery: Forgery,
    /// Every authorization request's query, as received.
    authorizations: Vec<HashMap<String, String>>,
}

pub struct Lms {
    pub url: String,
    state: Arc<Mutex<State>>,
}

fn rsa_key() -> rsa::PrivateKey {
    let mut rng = getrandom::SysRng;
    rsa::PrivateKey::new(&mut rng, 2048).unwrap()
}

impl Lms {
    /// Starts the double on a free port with `people`.
    pub fn start(people: &[Person]) -> Lms {
        let (key, other) = (rsa_key(), rsa_key());
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let kid = "lms-key-1".to_owned();
        let jwk = json!({ "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": b64(&key.n_bytes()), "e": b64(&key.e_bytes()) });
        let state = Arc::new(Mutex::new(State {
            key_der: key.to_pkcs1_der().unwrap().as_bytes().to_vec(),
            other_der: other.to_pkcs1_der().unwrap().as_bytes().to_vec(),
            kid,
            jwk,
            people: people.iter().map(|p| (p.sub, p.clone())).collect(),
            forgery: Forgery::None,
            authorizations: Vec::new(),
        }));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = web::Data::new(state.clone());
        let issuer = url.clone();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                actix_web::HttpServer::new(move || {
                    actix_web::App::new()
                        .app_data(shared.clone())
                        .app_data(web::Data::new(issuer.clone()))
                        .route("/jwks", web::get().to(jwks))
                        .route("/auth", web::get().to(authorize))
                })
                .workers(1)
                .listen(listener)
                .unwrap()
                .run()
                .await
                .unwrap()
            })
        });
        Lms { url, state }
    }

    /// From now on, launches are forged this way.
    pub fn forge(&self, forgery: Forgery) {
        self.state.lock().unwrap().forgery = forgery;
    }

    /// The authorization requests received so far.
    pub fn authorizations(&self) -> Vec<HashMap<String, String>> {
        self.state.lock().unwrap().authorizations.clone()
    }

    /// The registration form's fields for this platform.
    pub fn registration(&self) -> Vec<(&'static str, String)> {
        vec![
            ("name", "Test LMS".to_owned()),
            ("issuer", self.url.clone()),
            ("client_id", CLIENT_ID.to_owned()),
            ("auth_url", format!("{}/auth", self.url)),
            ("token_url", format!("{}/token", self.url)),
            ("jwks_url", format!("{}/jwks", self.url)),
            ("deployment_ids", DEPLOYMENT_ID.to_owned()),
        ]
    }

    /// The login initiation query the LMS's browser redirect carries for `person`.
    pub fn login_query(&self, person: &str, target: &str) -> String {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("iss", &self.url)
            .append_pair("login_hint", person)
            .append_pair("target_link_uri", target)
            .append_pair("lti_message_hint", "resource-link-1")
            .append_pair("client_id", CLIENT_ID)
            .append_pair("lti_deployment_id", DEPLOYMENT_ID)
            .finish()
    }
}

async fn jwks(state: web::Data<Arc<Mutex<State>>>) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "keys": [state.lock().unwrap().jwk.clone()] }))
}

/// OIDC's authorization endpoint as a platform's: checks the request, then answers with
/// the page that posts the signed id_token to the tool (`response_mode=form_post`).
async fn authorize(state: web::Data<Arc<Mutex<State>>>, issuer: web::Data<String>, query: web::Query<HashMap<String, String>>) -> HttpResponse {
    let query = query.into_inner();
    let mut state = state.lock().unwrap();
    state.authorizations.push(query.clone());
    let get = |name: &str| query.get(name).cloned().unwrap_or_default();
    for (name, wanted) in [("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"), ("prompt", "none"), ("client_id", CLIENT_ID)] {
        if get(name) != wanted {
            return HttpResponse::BadRequest().body(format!("{name} must be {wanted}"));
        }
    }
    let Some(person) = state.people.get(get("login_hint").as_str()).cloned() else {
        return HttpResponse::BadRequest().body("unknown login_hint");
    };
    let now = jsonwebtoken::get_current_timestamp();
    let nonce = if state.forgery == Forgery::OtherNonce { "not-the-login-nonce".to_owned() } else { get("nonce") };
    let exp = if state.forgery == Forgery::Expired { now - 600 } else { now + 300 };
    let mut claims = json!({
        "iss": issuer.get_ref(),
        "aud": CLIENT_ID,
        "azp": CLIENT_ID,
        "sub": person.sub,
        "exp": exp,
        "iat": now,
        "nonce": nonce,
        "name": person.name,
        "email": person.email,
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiResourceLinkRequest",
        "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
        "https://purl.imsglobal.org/spec/lti/claim/deployment_id": DEPLOYMENT_ID,
        "https://purl.imsglobal.org/spec/lti/claim/target_link_uri": get("redirect_uri"),
        "https://purl.imsglobal.org/spec/lti/claim/resource_link": { "id": get("lti_message_hint") },
        "https://purl.imsglobal.org/spec/lti/claim/roles": person.roles,
        "https://purl.imsglobal.org/spec/lti/claim/context": { "id": COURSE.0, "title": COURSE.1 },
    });
    if let Some(id) = person.sourcedid {
        claims["https://purl.imsglobal.org/spec/lti/claim/lis"] = json!({ "person_sourcedid": id });
    }
    let der = if state.forgery == Forgery::OtherKey { &state.other_der } else { &state.key_der };
    let header = jsonwebtoken::Header { kid: Some(state.kid.clone()), ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256) };
    let token = jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_rsa_der(der)).unwrap();
    let page = format!(
        r#"<!doctype html><form method="post" action="{}"><input type="hidden" name="id_token" value="{token}"><input type="hidden" name="state" value="{}"></form><script>document.forms[0].submit()</script>"#,
        get("redirect_uri"),
        get("state")
    );
    HttpResponse::Ok().content_type("text/html").body(page)
}

/// The fields of the auto-posting form the double answers with: `(action, id_token, state)`.
pub fn form_post(page: &str) -> (String, String, String) {
    let attribute = |after: &str| -> String {
        let start = page.find(after).unwrap_or_else(|| panic!("{after} in {page}")) + after.len();
        page[start..].split('"').next().unwrap().to_owned()
    };
    (attribute(r#"action=""#), attribute(r#"name="id_token" value=""#), attribute(r#"name="state" value=""#))
}

/// `token` with its claims changed by `change` and its header and signature kept: what a
/// forger who cannot sign makes.
pub fn altered(token: &str, change: impl FnOnce(&mut Value)) -> String {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let parts: Vec<&str> = token.split('.').collect();
    let mut claims: Value = serde_json::from_slice(&engine.decode(parts[1]).unwrap()).unwrap();
    change(&mut claims);
    format!("{}.{}.{}", parts[0], engine.encode(serde_json::to_vec(&claims).unwrap()), parts[2])
}
