//! bugrank as an LTI 1.3 tool, launched by a test double of an LMS (`lms.rs`: its own RSA
//! key and JWKS, the OIDC authorization step, real cryptography): a student launched to
//! their own page and nothing else, an instructor to a session, the tool's keys, and every
//! forged or replayed launch refused with the reason on the page.

use crate::common::{Client, Reply, Service, bugrank};
use crate::lms::{self, Forgery, INSTRUCTOR, LEARNER, Lms, Person};

fn people() -> Vec<Person> {
    vec![
        Person { sub: "lms-user-ada", name: "Ada Lovelace", email: "ada@example.edu", sourcedid: Some("s1001"), roles: &[LEARNER] },
        Person { sub: "lms-user-alan", name: "Alan Turing", email: "alan@example.edu", sourcedid: None, roles: &[LEARNER] },
        Person { sub: "lms-user-grace", name: "Grace Hopper", email: "grace@example.edu", sourcedid: None, roles: &[INSTRUCTOR] },
        Person {
            sub: "lms-user-mentor",
            name: "Mo Mentor",
            email: "mo@example.edu",
            sourcedid: None,
            roles: &["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"],
        },
    ]
}

/// A service and the LMS double, the LMS registered through the instructors' page.
fn registered() -> (tempfile::TempDir, Service, Lms) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let lms = Lms::start(&people());
    let admin = service.instructor();
    let fields = lms.registration();
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let reply = admin.post("/lti/platforms", &fields);
    assert_eq!(reply.status, 303, "{}", reply.body);
    (data, service, lms)
}

/// A browser going through a launch of `person`: the LMS's redirect to `/lti/login`, on to
/// the LMS's authorization step, and its form posted to bugrank's launch. The launch's
/// reply, and the form posted (to post it again).
fn launch(service: &Service, lms: &Lms, person: &str) -> (Reply, Vec<(String, String)>) {
    let browser = Client::new(&service.url);
    let login = browser.get(&format!("/lti/login?{}", lms.login_query(person, &format!("{}/lti/launch", service.url))));
    assert_eq!(login.status, 302, "{}", login.body);
    let authorize = login.location.expect("the login goes on to the LMS");
    assert!(authorize.starts_with(&format!("{}/auth?", lms.url)), "{authorize}");
    let page = ureq::get(&authorize).call().expect("the LMS authorizes").into_string().unwrap();
    let (action, id_token, state) = lms::form_post(&page);
    assert_eq!(action, format!("{}/lti/launch", service.url), "the redirect URI bugrank asked for");
    let form = vec![("id_token".to_owned(), id_token), ("state".to_owned(), state)];
    (post_launch(service, &form), form)
}

fn post_launch(service: &Service, form: &[(String, String)]) -> Reply {
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Client::new(&service.url).post("/lti/launch", &fields)
}

#[test]
fn a_student_launched_from_the_lms_lands_on_their_own_page_and_an_instructor_in_a_session() {
    let (_data, service, lms) = registered();
    // The login asked the LMS for an id_token posted back to bugrank, with a nonce.
    let (student, _) = launch(&service, &lms, "lms-user-ada");
    assert_eq!(student.status, 303, "{}", student.body);
    let page = student.location.clone().unwrap();
    assert!(page.starts_with("/s/"), "a learner goes to their own page: {page}");
    let asked = &lms.authorizations()[0];
    assert_eq!(asked["redirect_uri"], format!("{}/lti/launch", service.url));
    assert!(asked["nonce"].len() >= 32 && asked["state"].len() >= 32, "{asked:?}");
    let own = Client::new(&service.url).get(&page);
    assert_eq!(own.status, 200, "{}", own.body);
    assert!(own.body.contains("s1001"), "the institution's id is the student's id: {}", own.body);
    // The course of the launch is a course of bugrank's, with the student in it.
    let admin = service.instructor();
    let students = admin.api("/api/students");
    let listed: Vec<(String, String)> = students["students"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["course"].as_str().unwrap().to_owned(), s["student"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(listed, [(lms::COURSE.1.to_owned(), "s1001".to_owned())]);
    // The same student again: the same page. Another student without an institution id is
    // known by their email.
    assert_eq!(launch(&service, &lms, "lms-user-ada").0.location.unwrap(), page);
    let alan = launch(&service, &lms, "lms-user-alan").0.location.unwrap();
    assert_ne!(alan, page);
    let students = admin.api("/api/students");
    assert!(students["students"].as_array().unwrap().iter().any(|s| s["student"] == "alan@example.edu"), "{students}");
    // A learner gets their page's link and nothing else: no session.
    assert!(!student.headers.contains_key("set-cookie"), "{:?}", student.headers);

    // An instructor gets a session of their own.
    let (teacher, _) = launch(&service, &lms, "lms-user-grace");
    assert_eq!((teacher.status, teacher.location.as_deref()), (303, Some("/batches")), "{}", teacher.body);
    let mut instructor = Client::new(&service.url);
    instructor.keep_cookie(&teacher);
    let batches = instructor.get("/batches");
    assert_eq!(batches.status, 200, "{}", batches.body);
    assert!(batches.body.contains("grace@example.edu (Test LMS)"), "signed in as themselves");

    // A role bugrank does not let in is told so.
    let (mentor, _) = launch(&service, &lms, "lms-user-mentor");
    assert_eq!(mentor.status, 401);
    assert!(mentor.body.contains("instructors and learners"), "{}", mentor.body);
}

#[test]
fn a_replayed_forged_altered_or_expired_launch_is_refused_with_the_reason() {
    let (_data, service, lms) = registered();
    let (first, form) = launch(&service, &lms, "lms-user-ada");
    assert_eq!(first.status, 303);
    let check = |reply: Reply, reason: &str| {
        assert_eq!(reply.status, 401, "{}", reply.body);
        assert!(reply.body.contains(reason), "{reason} in {}", reply.body);
        assert!(!reply.headers.contains_key("set-cookie"), "no session");
    };
    check(post_launch(&service, &form), "already used");
    // The same id_token with a state of a fresh login: its nonce is not that login's.
    let fresh = Client::new(&service.url).get(&format!("/lti/login?{}", lms.login_query("lms-user-ada", "x")));
    let state = url::Url::parse(&fresh.location.unwrap()).unwrap().query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    check(post_launch(&service, &[form[0].clone(), ("state".into(), state)]), "nonce");
    // Tokens the LMS did not sign, or signed for another login, or too late.
    lms.forge(Forgery::OtherKey);
    check(launch(&service, &lms, "lms-user-grace").0, "not signed by the platform");
    lms.forge(Forgery::OtherNonce);
    check(launch(&service, &lms, "lms-user-grace").0, "nonce");
    lms.forge(Forgery::Expired);
    check(launch(&service, &lms, "lms-user-grace").0, "expired");
    // A token whose claims were changed after signing (a learner made an instructor).
    lms.forge(Forgery::None);
    let (_, mut form) = {
        let browser = Client::new(&service.url);
        let login = browser.get(&format!("/lti/login?{}", lms.login_query("lms-user-alan", "x")));
        let page = ureq::get(&login.location.unwrap()).call().unwrap().into_string().unwrap();
        let (_, token, state) = lms::form_post(&page);
        ((), vec![("id_token".to_owned(), token), ("state".to_owned(), state)])
    };
    form[0].1 = lms::altered(&form[0].1, |claims| claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = serde_json::json!([INSTRUCTOR]));
    check(post_launch(&service, &form), "not signed by the platform");
    // A login from an LMS nobody registered, and a launch that never started at bugrank.
    let unknown = Client::new(&service.url).get("/lti/login?iss=https%3A%2F%2Fevil.example&login_hint=1&target_link_uri=x");
    assert_eq!(unknown.status, 401);
    assert!(unknown.body.contains("no platform is registered in bugrank with issuer <code>https://evil.example</code>"), "{}", unknown.body);
    check(post_launch(&service, &[("id_token".into(), form[0].1.clone()), ("state".into(), "made-up".into())]), "already used");
}

#[test]
fn the_tools_keys_are_published_and_kept_across_restarts_and_the_command_line_registers_an_lms() {
    let data = tempfile::tempdir().unwrap();
    let registered = bugrank(data.path())
        .args(["lti", "add-platform", "--data"])
        .arg(data.path())
        .args(["--name", "Moodle", "--issuer", "https://moodle.example.org", "--client-id", "abc"])
        .args(["--auth-url", "https://moodle.example.org/mod/lti/auth.php", "--token-url", "https://moodle.example.org/mod/lti/token.php"])
        .args(["--jwks-url", "https://moodle.example.org/mod/lti/certs.php", "--deployment-ids", "1"])
        .output()
        .unwrap();
    assert!(registered.status.success(), "{}", String::from_utf8_lossy(&registered.stderr));
    let bad = bugrank(data.path())
        .args(["lti", "add-platform", "--data"])
        .arg(data.path())
        .args(["--name", "M", "--issuer", "i", "--client-id", "c"])
        .args(["--auth-url", "not a url", "--token-url", "https://x/t", "--jwks-url", "https://x/k", "--deployment-ids", "1"])
        .output()
        .unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("the authentication request URL `not a url` is not a URL"), "{bad:?}");
    let keys = |service: &Service| ureq::get(&format!("{}/lti/jwks", service.url)).call().unwrap().into_string().unwrap().parse::<serde_json::Value>().unwrap();
    let service = Service::start(data.path(), &[]);
    let first = keys(&service);
    let key = &first["keys"][0];
    assert_eq!((key["kty"].as_str(), key["alg"].as_str(), key["use"].as_str()), (Some("RSA"), Some("RS256"), Some("sig")));
    assert!(key["n"].as_str().unwrap().len() >= 342, "a modulus of 2048 bits at least");
    let page = service.instructor().get("/lti/platforms");
    assert!(page.body.contains("https://moodle.example.org") && page.body.contains("/lti/login") && page.body.contains("/lti/jwks"), "{}", page.body);
    service.kill();
    let service = Service::start(data.path(), &[]);
    assert_eq!(keys(&service), first, "the same key after a restart");
}
