//! bugrank as an LTI 1.3 tool, launched by a test double of an LMS (`lms.rs`: its own RSA
//! key and JWKS, the OIDC authorization step, real cryptography): a student launched to
//! their own page and nothing else, an instructor to a session, the tool's keys, and every
//! forged or replayed launch refused with the reason on the page.

use std::time::{Duration, Instant};

use crate::common::{Client, Reply, Service, bugrank, run_analysis, upload_cohort, upload_problem};
use crate::lms::{self, Forgery, INSTRUCTOR, LEARNER, Lms, Person};

fn people() -> Vec<Person> {
    vec![
        Person { sub: "lms-a01", name: "Ann One", email: "a01@example.edu", sourcedid: Some("a01"), roles: &[LEARNER] },
        Person { sub: "lms-a02", name: "Bob Two", email: "a02@example.edu", sourcedid: Some("a02"), roles: &[LEARNER] },
        Person { sub: "lms-a05", name: "Cy Five", email: "a05@example.edu", sourcedid: Some("a05"), roles: &[LEARNER] },
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
pub fn registered() -> (tempfile::TempDir, Service, Lms) {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let lms = Lms::start(&people());
    lms.trust_tool(&service.url);
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

/// Grace (the LMS's instructor) launches, is told she waits, and the service's first
/// instructor lets her in.
pub fn let_in_the_instructor(service: &Service, lms: &Lms) {
    let (waiting, _) = launch(service, lms, "lms-user-grace");
    assert_eq!(waiting.status, 401, "{}", waiting.body);
    assert!(waiting.body.contains("Grace Hopper asks to come in as an instructor from Test LMS"), "{}", waiting.body);
    assert!(!waiting.headers.contains_key("set-cookie"), "no session before she is let in");
    let admin = service.instructor();
    assert!(admin.get("/lti/platforms").body.contains("grace@example.edu"), "listed as waiting");
    let reply = admin.post("/lti/instructors/approve", &[("platform", "1"), ("sub", "lms-user-grace")]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert!(!admin.get("/lti/platforms").body.contains("grace@example.edu"), "no longer waiting");
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
    assert_eq!(listed, [(lms::COURSE.1.to_owned(), "s1001".to_owned())], "a course named as the LMS's");
    // The same student again: the same page. Another student without an institution id is
    // known by their email.
    assert_eq!(launch(&service, &lms, "lms-user-ada").0.location.unwrap(), page);
    let alan = launch(&service, &lms, "lms-user-alan").0.location.unwrap();
    assert_ne!(alan, page);
    let students = admin.api("/api/students");
    assert!(students["students"].as_array().unwrap().iter().any(|s| s["student"] == "alan@example.edu"), "{students}");
    // A learner gets their page's link and nothing else: no session.
    assert!(!student.headers.contains_key("set-cookie"), "{:?}", student.headers);

    // An instructor gets a session of their own, once an instructor of bugrank lets them in.
    let_in_the_instructor(&service, &lms);
    let (teacher, _) = launch(&service, &lms, "lms-user-grace");
    assert_eq!((teacher.status, teacher.location.as_deref()), (303, Some("/lti/links/1/resource-link-1")), "the link asks for its batch: {}", teacher.body);
    let mut instructor = Client::new(&service.url);
    instructor.keep_cookie(&teacher);
    let batches = instructor.get("/batches");
    assert_eq!(batches.status, 200, "{}", batches.body);
    assert!(batches.body.contains("grace@example.edu (Test LMS)"), "signed in as themselves");
    // Who came from an LMS does not register LMSs, nor let others in.
    instructor.csrf = Some(crate::common::csrf_of(&batches.body));
    let fields = lms.registration();
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(instructor.post("/lti/platforms", &fields).status, 401);
    assert_eq!(instructor.post("/lti/instructors/approve", &[("platform", "1"), ("sub", "lms-user-mentor")]).status, 401);
    // The LMS's keys do not change from the form, not even by an instructor of bugrank's.
    let mut changed = fields.clone();
    changed[5].1 = "https://evil.example/jwks";
    let again = service.instructor().post("/lti/platforms", &changed);
    assert_eq!(again.status, 400);
    assert!(again.body.contains("registered already"), "{}", again.body);

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

/// Waits until the LMS has received `count` scores.
fn scores_received(lms: &Lms, count: usize) -> Vec<(String, serde_json::Value)> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let scores = lms.scores();
        if scores.len() >= count {
            return scores;
        }
        assert!(Instant::now() < deadline, "the LMS received {} scores, not {count}: {scores:?}", scores.len());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn released_points_reach_the_lms_gradebook_as_scores_csv_has_them_and_again_when_they_change() {
    let (_data, service, lms) = registered();
    let admin = service.instructor();
    let problem = upload_problem(&admin, "interval-sets");
    let batch = upload_cohort(&admin, problem, "interval-sets");
    // Three of the class come by the LMS (their institution ids are the roster's), and the
    // instructor binds the LMS's link to the batch.
    for student in ["lms-a01", "lms-a02", "lms-a05"] {
        assert_eq!(launch(&service, &lms, student).0.status, 303);
    }
    let_in_the_instructor(&service, &lms);
    let (teacher, _) = launch(&service, &lms, "lms-user-grace");
    let mut instructor = Client::new(&service.url);
    instructor.keep_cookie(&teacher);
    instructor.csrf = Some(crate::common::csrf_of(&instructor.get("/batches").body));
    let link = teacher.location.unwrap();
    assert_eq!(instructor.post(&format!("{link}/bind"), &[("batch", &batch.to_string())]).status, 303);
    assert!(instructor.get(&link).body.contains(&format!("/batches/{batch}")), "bound");
    let (again, _) = launch(&service, &lms, "lms-user-grace");
    assert_eq!(again.location, Some(format!("/batches/{batch}")), "the bound link opens its batch");

    let analysis = admin.wait_for_analysis(run_analysis(&admin, batch, &[("seed", "1")]));
    let id = analysis["analysis"]["id"].as_i64().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(lms.scores().is_empty(), "nothing goes to the LMS before the release");
    assert_eq!(admin.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let scores = scores_received(&lms, 3);
    // One line item, made by bugrank with the points' maximum, and a score per student of
    // the LMS: the points of scores.csv.
    let items = lms.lineitems();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!((items[0].1["scoreMaximum"].as_f64(), items[0].1["resourceLinkId"].as_str()), (Some(100.0), Some("resource-link-1")));
    let csv = admin.get(&format!("/analyses/{id}/files/scores.csv")).body;
    let points_of = |csv: &str, student: &str| -> f64 {
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let column = header.iter().position(|h| *h == "points").unwrap();
        csv.lines().find(|l| l.starts_with(&format!("{student},"))).unwrap().split(',').nth(column).unwrap().parse().unwrap()
    };
    let by_user: std::collections::HashMap<&str, &serde_json::Value> = scores.iter().map(|(_, s)| (s["userId"].as_str().unwrap(), s)).collect();
    for (sub, student) in [("lms-a01", "a01"), ("lms-a02", "a02"), ("lms-a05", "a05")] {
        let score = by_user[sub];
        assert_eq!(score["scoreGiven"].as_f64(), Some(points_of(&csv, student)), "{student}: {score}");
        assert_eq!((score["scoreMaximum"].as_f64(), score["gradingProgress"].as_str()), (Some(100.0), Some("FullyGraded")));
        assert!(score["comment"].as_str().unwrap().contains("of 100 points"), "{score}");
        assert!(scores.iter().all(|(item, _)| item == &items[0].0));
    }
    // An adjustment sends that student's new grade, and only theirs.
    assert_eq!(admin.post(&format!("/batches/{batch}/adjustments"), &[("student", "a02"), ("points", "-5"), ("reason", "late")]).status, 303);
    let scores = scores_received(&lms, 4);
    let csv = admin.get(&format!("/analyses/{id}/files/scores.csv")).body;
    assert_eq!((scores[3].1["userId"].as_str(), scores[3].1["scoreGiven"].as_f64()), (Some("lms-a02"), Some(points_of(&csv, "a02"))));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(lms.scores().len(), 4, "nobody else's grade moved");
}

#[test]
fn an_instructors_launch_brings_the_lms_roster_its_learners_become_the_courses_students_with_names() {
    let (_data, service, lms) = registered();
    let_in_the_instructor(&service, &lms);
    assert_eq!(launch(&service, &lms, "lms-user-grace").0.status, 303);
    let admin = service.instructor();
    // The roster comes off the request, page by page (two a page).
    let deadline = Instant::now() + Duration::from_secs(60);
    let students = loop {
        let students: Vec<String> =
            admin.api("/api/students")["students"].as_array().unwrap().iter().map(|s| s["student"].as_str().unwrap().to_owned()).collect();
        if students.len() >= 5 || Instant::now() > deadline {
            break students;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Learners only (not the instructor, not the mentor), by the ids their launches give.
    assert_eq!(students, ["a01", "a02", "a05", "alan@example.edu", "s1001"]);
    let page = admin.get("/students").body;
    assert!(page.contains("<td>a01</td><td>Ann One</td>") && page.contains("<td>s1001</td><td>Ada Lovelace</td>"), "names from the LMS: {page}");
    // A learner of the roster who launches later is the same student.
    let before = admin.api("/api/students");
    assert_eq!(launch(&service, &lms, "lms-a02").0.status, 303);
    assert_eq!(admin.api("/api/students")["students"].as_array().unwrap().len(), before["students"].as_array().unwrap().len());
}

#[test]
fn an_instructor_picks_the_batch_a_new_lms_link_opens_and_its_grades_go_to_the_lms_s_line_item() {
    let (_data, service, lms) = registered();
    let admin = service.instructor();
    let problem = upload_problem(&admin, "interval-sets");
    let batch = upload_cohort(&admin, problem, "interval-sets");
    // The LMS asks the instructor what its new link opens (deep linking).
    let_in_the_instructor(&service, &lms);
    let browser = Client::new(&service.url);
    let login = browser.get(&format!("/lti/login?{}", lms.login_query("lms-user-grace", "x").replace("resource-link-1", "deep-linking")));
    let page = ureq::get(&login.location.unwrap()).call().unwrap().into_string().unwrap();
    let (_, token, state) = lms::form_post(&page);
    let chosen = post_launch(&service, &[("id_token".into(), token), ("state".into(), state)]);
    assert_eq!(chosen.status, 303, "{}", chosen.body);
    let choose = chosen.location.clone().unwrap();
    assert!(choose.starts_with("/lti/deep-links/"), "{choose}");
    let mut instructor = Client::new(&service.url);
    instructor.keep_cookie(&chosen);
    instructor.csrf = Some(crate::common::csrf_of(&instructor.get("/batches").body));
    assert!(instructor.get(&choose).body.contains("Assignment 1"), "the batches to choose from");
    let answer = instructor.post(&choose, &[("batch", &batch.to_string())]);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let csp = &answer.headers["content-security-policy"];
    assert!(csp.contains(&format!("form-action {}", lms.url)) && !csp.contains("form-action 'self'"), "the answer may go to the LMS alone: {csp}");
    assert_eq!(instructor.post(&choose, &[("batch", &batch.to_string())]).status, 401, "answered once");
    // The browser posts the signed answer to the LMS, which checks it and makes the link.
    let form = answer.body.split("<form").find(|f| f.contains("data-autosubmit")).expect("the form that posts itself");
    let action = form.split("action=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let jwt = answer.body.split("name=\"JWT\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    assert_eq!(action, format!("{}/deep-link-return", lms.url));
    let made = ureq::post(&action).send_form(&[("JWT", &jwt)]);
    assert!(made.is_ok(), "{:?}", made.map(|r| r.into_string().unwrap()).map_err(|e| e.to_string()));
    let links = lms.deep_links();
    assert_eq!(links.len(), 1);
    let (link, item, lineitem) = links[0].clone();
    assert_eq!((item["type"].as_str(), item["url"].as_str()), (Some("ltiResourceLink"), Some(format!("{}/lti/launch", service.url).as_str())));
    assert_eq!((item["custom"]["batch"].as_str(), item["lineItem"]["scoreMaximum"].as_f64()), (Some(batch.to_string().as_str()), Some(100.0)));

    // The new link opens the batch for the instructor, and students' grades go to the line
    // item the LMS made with it (bugrank makes none).
    let login = |person: &str| {
        let browser = Client::new(&service.url);
        let login = browser.get(&format!("/lti/login?{}", lms.login_query(person, "x").replace("resource-link-1", &link)));
        let page = ureq::get(&login.location.unwrap()).call().unwrap().into_string().unwrap();
        let (_, token, state) = lms::form_post(&page);
        post_launch(&service, &[("id_token".into(), token), ("state".into(), state)])
    };
    assert_eq!(login("lms-user-grace").location, Some(format!("/batches/{batch}")));
    assert_eq!(login("lms-a01").status, 303);
    admin.wait_for_analysis(run_analysis(&admin, batch, &[("seed", "1")]));
    assert_eq!(admin.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let scores = scores_received(&lms, 1);
    assert_eq!(scores[0].0, lineitem);
    assert_eq!(lms.lineitems().len(), 1, "only the LMS's own line item");
}

#[test]
fn behind_https_a_launch_must_come_back_to_the_browser_that_started_its_login() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &["--secure-cookies"]);
    let lms = Lms::start(&people());
    lms.trust_tool(&service.url);
    let fields = lms.registration();
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(service.instructor().post("/lti/platforms", &fields).status, 303);
    let started = |with_cookie: bool| {
        let mut browser = Client::new(&service.url);
        let login = browser.get(&format!("/lti/login?{}", lms.login_query("lms-user-ada", "x")));
        let cookie = login.headers.get("set-cookie").cloned().unwrap_or_default();
        assert!(cookie.contains("Secure") && cookie.contains("SameSite=None") && cookie.contains("HttpOnly"), "{cookie}");
        if with_cookie {
            browser.keep_cookie(&login);
        }
        let page = ureq::get(&login.location.unwrap()).call().unwrap().into_string().unwrap();
        let (_, token, state) = lms::form_post(&page);
        browser.post("/lti/launch", &[("id_token", &token), ("state", &state)])
    };
    let elsewhere = started(false);
    assert_eq!(elsewhere.status, 401);
    assert!(elsewhere.body.contains("did not start in this browser"), "{}", elsewhere.body);
    assert_eq!(started(true).status, 303);
}
