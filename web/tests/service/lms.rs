//! A test double of an LMS as an LTI 1.3 platform: its own RSA key and JWKS, the OIDC
//! authorization step of a launch, with people and a course of its own, real
//! cryptography (RS256 by `jsonwebtoken`, the key made by `rsa`), on a port of its own.
//! What it received is recorded for the tests to assert. Its services check the access
//! tokens they are given, and its token endpoint checks bugrank's client assertion
//! against bugrank's published keys (`/lti/jwks`).

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
/// The LMS's course: its id there, and its title, which is the course the service's test
/// batches are uploaded to (the LMS's course and bugrank's are one by name).
pub const COURSE: (&str, &str) = ("course-101", crate::common::COURSE);

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
    /// bugrank's JWKS URL, which client assertions are checked against.
    tool_jwks: Option<String>,
    /// Access tokens issued, with their scopes.
    tokens: HashMap<String, String>,
    /// Line items made: `(id URL, the line item as posted)`.
    lineitems: Vec<(String, Value)>,
    /// Scores received, in order: `(line item URL, the score as posted)`.
    scores: Vec<(String, Value)>,
    /// Links made by deep linking: `(link id, the content item bugrank answered with, the
    /// line item the LMS made for it)`.
    deep_links: Vec<(String, Value, String)>,
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
            tool_jwks: None,
            tokens: HashMap::new(),
            lineitems: Vec::new(),
            scores: Vec::new(),
            deep_links: Vec::new(),
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
                        .route("/token", web::post().to(token))
                        .route("/deep-link-return", web::post().to(deep_link_return))
                        .route("/lineitems/{context}", web::post().to(create_lineitem))
                        .route("/memberships/{context}", web::get().to(memberships))
                        .route("/lineitems/{context}/{item}/scores", web::post().to(score))
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

    /// Trusts client assertions signed by the keys of the bugrank at `service`.
    pub fn trust_tool(&self, service: &str) {
        self.state.lock().unwrap().tool_jwks = Some(format!("{service}/lti/jwks"));
    }

    /// The scores received so far: `(line item URL, score)`.
    pub fn scores(&self) -> Vec<(String, Value)> {
        self.state.lock().unwrap().scores.clone()
    }

    /// The links made by deep linking so far: `(link id, content item, line item URL)`.
    pub fn deep_links(&self) -> Vec<(String, Value, String)> {
        self.state.lock().unwrap().deep_links.clone()
    }

    /// The line items made so far.
    pub fn lineitems(&self) -> Vec<(String, Value)> {
        self.state.lock().unwrap().lineitems.clone()
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
    // The hint names the link launched; `deep-linking` asks the instructor to make one.
    let hint = get("lti_message_hint");
    let made = state.deep_links.iter().find(|(id, _, _)| *id == hint).cloned();
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
        "https://purl.imsglobal.org/spec/lti/claim/resource_link": { "id": hint },
        "https://purl.imsglobal.org/spec/lti/claim/roles": person.roles,
        "https://purl.imsglobal.org/spec/lti/claim/context": { "id": COURSE.0, "title": COURSE.1 },
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
            "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem", "https://purl.imsglobal.org/spec/lti-ags/scope/score"],
            "lineitems": format!("{}/lineitems/{}", issuer.get_ref(), COURSE.0),
        },
        "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
            "context_memberships_url": format!("{}/memberships/{}", issuer.get_ref(), COURSE.0),
            "service_versions": ["2.0"],
        },
    });
    if let Some(id) = person.sourcedid {
        claims["https://purl.imsglobal.org/spec/lti/claim/lis"] = json!({ "person_sourcedid": id });
    }
    if hint == "deep-linking" {
        let object = claims.as_object_mut().unwrap();
        object.remove("https://purl.imsglobal.org/spec/lti/claim/resource_link");
        object.insert("https://purl.imsglobal.org/spec/lti/claim/message_type".into(), json!("LtiDeepLinkingRequest"));
        object.insert(
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings".into(),
            json!({
                "deep_link_return_url": format!("{}/deep-link-return", issuer.get_ref()),
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["window"],
                "data": "opaque-42",
            }),
        );
    }
    // A link made by deep linking carries its custom parameters and the line item the LMS
    // made with it.
    if let Some((_, item, lineitem)) = made {
        claims["https://purl.imsglobal.org/spec/lti/claim/custom"] = item["custom"].clone();
        claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]["lineitem"] = json!(lineitem);
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

/// OAuth 2's token endpoint: the client-credentials grant with a JWT assertion, which must
/// be signed by a key of bugrank's JWKS, with `iss` and `sub` the client id and `aud`
/// this endpoint.
async fn token(state: web::Data<Arc<Mutex<State>>>, issuer: web::Data<String>, form: web::Form<HashMap<String, String>>) -> HttpResponse {
    let get = |name: &str| form.get(name).cloned().unwrap_or_default();
    if get("grant_type") != "client_credentials" || get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
        return HttpResponse::BadRequest().json(json!({ "error": "unsupported_grant_type" }));
    }
    let checked = tool_signed(&state, get("client_assertion"), format!("{}/token", issuer.get_ref()), Some(CLIENT_ID)).await;
    if let Err(reason) = checked {
        return HttpResponse::Unauthorized().json(json!({ "error": "invalid_client", "error_description": reason }));
    }
    let token = format!("token-{}", state.lock().unwrap().tokens.len() + 1);
    state.lock().unwrap().tokens.insert(token.clone(), get("scope"));
    HttpResponse::Ok().json(json!({ "access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": get("scope") }))
}

/// The members of the course, two a page, the next page in a `Link` header.
async fn memberships(state: web::Data<Arc<Mutex<State>>>, issuer: web::Data<String>, request: actix_web::HttpRequest, path: web::Path<String>) -> HttpResponse {
    let state = state.lock().unwrap();
    if !authorized(&state, &request, "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly") {
        return HttpResponse::Unauthorized().finish();
    }
    let context = path.into_inner();
    let page: usize = request.query_string().strip_prefix("page=").and_then(|p| p.parse().ok()).unwrap_or(0);
    let mut people: Vec<&Person> = state.people.values().collect();
    people.sort_by_key(|p| p.sub);
    let members: Vec<Value> = people
        .iter()
        .skip(2 * page)
        .take(2)
        .map(|p| json!({ "user_id": p.sub, "roles": p.roles, "name": p.name, "email": p.email, "lis_person_sourcedid": p.sourcedid, "status": "Active" }))
        .collect();
    let mut reply = HttpResponse::Ok();
    reply.content_type("application/vnd.ims.lti-nrps.v2.membershipcontainer+json");
    if people.len() > 2 * (page + 1) {
        reply.insert_header(("Link", format!(r#"<{}/memberships/{context}?page={}>; rel="next""#, issuer.get_ref(), page + 1)));
    }
    reply.body(json!({ "id": format!("{}/memberships/{context}", issuer.get_ref()), "context": { "id": context }, "members": members }).to_string())
}

/// The deep linking answer: a JWT bugrank signed (checked against its JWKS), `iss` the
/// client id, `aud` this LMS, the data given back; each resource link it holds becomes a
/// link of the course, with a line item when it asks for one.
async fn deep_link_return(state: web::Data<Arc<Mutex<State>>>, issuer: web::Data<String>, form: web::Form<HashMap<String, String>>) -> HttpResponse {
    let checked = tool_signed(&state, form.get("JWT").cloned().unwrap_or_default(), issuer.get_ref().clone(), None).await;
    let claims = match checked {
        Ok(claims) => claims,
        Err(reason) => return HttpResponse::Unauthorized().body(reason),
    };
    let field = |name: &str| claims[name].as_str().unwrap_or_default().to_owned();
    if field("https://purl.imsglobal.org/spec/lti/claim/message_type") != "LtiDeepLinkingResponse"
        || field("https://purl.imsglobal.org/spec/lti-dl/claim/data") != "opaque-42"
        || field("https://purl.imsglobal.org/spec/lti/claim/deployment_id") != DEPLOYMENT_ID
    {
        return HttpResponse::BadRequest().body(format!("not this LMS's deep linking answer: {claims}"));
    }
    let mut state = state.lock().unwrap();
    for item in claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"].as_array().cloned().unwrap_or_default() {
        let id = format!("dl-link-{}", state.deep_links.len() + 1);
        let lineitem = format!("{}/lineitems/{}/{}", issuer.get_ref(), COURSE.0, 100 + state.deep_links.len());
        state.lineitems.push((lineitem.clone(), item["lineItem"].clone()));
        state.deep_links.push((id, item, lineitem));
    }
    HttpResponse::Ok().body("the LMS made the link")
}

/// The claims of `jwt` when bugrank signed it (by a key of its JWKS, fetched now), for
/// `audience`, from the client id (and with that `sub`, when given).
async fn tool_signed(state: &Arc<Mutex<State>>, jwt: String, audience: String, sub: Option<&str>) -> Result<Value, String> {
    let jwks_url = state.lock().unwrap().tool_jwks.clone().expect("the test told the LMS which tool to trust");
    let sub = sub.map(str::to_owned);
    web::block(move || {
        let set: jsonwebtoken::jwk::JwkSet =
            serde_json::from_str(&ureq::get(&jwks_url).call().map_err(|e| e.to_string())?.into_string().unwrap()).map_err(|e| e.to_string())?;
        let kid = jsonwebtoken::decode_header(&jwt).map_err(|e| e.to_string())?.kid.ok_or("no kid")?;
        let key = jsonwebtoken::DecodingKey::from_jwk(set.find(&kid).ok_or("unknown kid")?).map_err(|e| e.to_string())?;
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
        validation.set_issuer(&[CLIENT_ID]);
        validation.sub = sub;
        validation.set_audience(&[audience]);
        jsonwebtoken::decode::<Value>(&jwt, &key, &validation).map(|t| t.claims).map_err(|e| e.to_string())
    })
    .await
    .unwrap()
}

/// Whether the request carries an access token issued with `scope`.
fn authorized(state: &State, request: &actix_web::HttpRequest, scope: &str) -> bool {
    let given = request.headers().get("authorization").and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer "));
    given.and_then(|token| state.tokens.get(token)).is_some_and(|scopes| scopes.split(' ').any(|s| s == scope))
}

async fn create_lineitem(
    state: web::Data<Arc<Mutex<State>>>,
    issuer: web::Data<String>,
    request: actix_web::HttpRequest,
    path: web::Path<String>,
    body: String,
) -> HttpResponse {
    let mut state = state.lock().unwrap();
    if !authorized(&state, &request, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem") {
        return HttpResponse::Unauthorized().finish();
    }
    let item: Value = serde_json::from_str(&body).unwrap();
    let id = format!("{}/lineitems/{}/{}", issuer.get_ref(), path.into_inner(), state.lineitems.len() + 1);
    state.lineitems.push((id.clone(), item.clone()));
    let mut made = item;
    made["id"] = json!(id);
    HttpResponse::Created().content_type("application/vnd.ims.lis.v2.lineitem+json").body(made.to_string())
}

async fn score(
    state: web::Data<Arc<Mutex<State>>>,
    issuer: web::Data<String>,
    request: actix_web::HttpRequest,
    path: web::Path<(String, String)>,
    body: String,
) -> HttpResponse {
    let mut state = state.lock().unwrap();
    if !authorized(&state, &request, "https://purl.imsglobal.org/spec/lti-ags/scope/score") {
        return HttpResponse::Unauthorized().finish();
    }
    let content_type = request.headers().get("content-type").and_then(|h| h.to_str().ok()).unwrap_or_default();
    assert_eq!(content_type, "application/vnd.ims.lis.v1.score+json");
    let (context, item) = path.into_inner();
    state.scores.push((format!("{}/lineitems/{context}/{item}", issuer.get_ref()), serde_json::from_str(&body).unwrap()));
    HttpResponse::Ok().finish()
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
