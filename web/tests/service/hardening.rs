//! Defences of the service against its users: a flood of logins, guessed passwords, slow
//! and many connections.

use std::time::{Duration, Instant};

use crate::common::{Client, Service};

#[path = "raw.rs"]
#[allow(dead_code)] // the adversarial corpus uses all of it
mod raw;

#[test]
fn failed_logins_beyond_five_must_wait_and_are_told_how_long() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let mut guesser = Client::new(&service.url);
    for attempt in 1..=5 {
        assert_eq!(guesser.login("instructor", &format!("guess {attempt}")), 401, "attempt {attempt}");
    }
    let refused = guesser.login_reply("instructor", "guess 6");
    assert_eq!(refused.status, 429);
    // Two seconds after the fifth failure (one, if the clock ticked in between).
    let wait = &refused.headers["retry-after"];
    assert!(wait == "2" || wait == "1", "{wait}");
    assert!(refused.body.contains(&format!("try again in {wait} s")), "{}", refused.body);
    // The address waits, whoever tries from it: even with the right password, for now.
    let mut owner = Client::new(&service.url);
    assert_eq!(owner.login("instructor", &service.password), 429);
    // An unknown login is refused like a wrong password, and counts against the address:
    // it may try other accounts, up to its own bound.
    let mut other = Client::new(&service.url);
    assert_eq!(other.login("nobody", "x"), 401);
    let free = web::serve::auth::ADDRESS_FREE_FAILURES;
    for attempt in 7..=free {
        assert_eq!(other.login(&format!("user{attempt}"), "x"), 401, "attempt {attempt} from the address");
    }
    assert_eq!(other.login("one more", "x"), 429, "the address has failed too often");
}

#[test]
fn behind_tls_the_login_cookies_are_sent_over_https_only() {
    let set_cookies = |args: &[&str]| -> Vec<String> {
        let data = tempfile::tempdir().unwrap();
        let service = Service::start(data.path(), args);
        let response = ureq::get(&format!("{}/login", service.url)).call().unwrap();
        response.all("set-cookie").into_iter().map(str::to_owned).collect()
    };
    let plain = set_cookies(&[]);
    assert!(!plain.is_empty() && plain.iter().all(|c| !c.contains("Secure")), "{plain:?}");
    let secure = set_cookies(&["--secure-cookies"]);
    assert!(!secure.is_empty() && secure.iter().all(|c| c.contains("Secure") && c.contains("HttpOnly")), "{secure:?}");
}

#[test]
fn the_right_password_from_another_address_logs_in_after_five_wrong_ones_from_elsewhere() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let stranger = raw::client_address(1);
    for attempt in 1..=5 {
        assert_eq!(raw::login_from(stranger, &service.url, "instructor", &format!("guess {attempt}")).unwrap(), 401);
    }
    assert_eq!(raw::login_from(stranger, &service.url, "instructor", "guess 6").unwrap(), 429, "the stranger waits");
    let owner = raw::client_address(2);
    assert_eq!(raw::login_from(owner, &service.url, "instructor", &service.password).unwrap(), 303, "the owner is not locked out");
}

#[test]
fn many_stalled_connections_from_one_address_leave_the_service_answering_another_within_a_second() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let count = 1_000;
    let bound = raw::answer_bound(raw::client_address(2), &service.url);
    let mut stalled = raw::stalled_connections(raw::client_address(1), &service.url, count, raw::Stall::Body);
    let asked = Instant::now();
    let answer = raw::exchange(raw::client_address(2), &service.url, "GET /login HTTP/1.1\r\n", b"").unwrap();
    assert_eq!(answer.status, 200);
    assert!(asked.elapsed() < bound, "another address waited {:?} (bound {bound:?})", asked.elapsed());
    let closed = raw::closed_by_the_service(&mut stalled, bound);
    let most = web::serve::connections::MAX_CONNECTIONS_PER_ADDRESS;
    assert!(closed >= count - most, "{closed} of {count} connections from one address closed; at most {most} may stay");
}

#[test]
fn a_request_whose_body_trickles_is_cut_after_the_bound() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let started = Instant::now();
    let mut trickling = raw::stalled_connections(raw::client_address(1), &service.url, 1, raw::Stall::Body);
    let grace = web::serve::connections::BODY_GRACE;
    // Cut at its grace; the patience beyond it is for a busy machine.
    let closed = raw::closed_by_the_service(&mut trickling, grace + Duration::from_secs(30));
    assert_eq!(closed, 1, "a body that does not come is cut (waited {:?})", started.elapsed());
    assert!(started.elapsed() >= grace - Duration::from_millis(100), "but not before its grace: {:?}", started.elapsed());
}

#[test]
fn behind_the_trusted_proxy_clients_are_told_apart_by_x_forwarded_for_and_elsewhere_it_is_ignored() {
    let data = tempfile::tempdir().unwrap();
    let proxy = raw::client_address(1);
    let service = Service::start(data.path(), &["--trusted-proxy", &proxy.to_string()]);
    let wrong = |source, forwarded: &str| raw::login_forwarded(source, &service.url, Some(forwarded), "instructor", "a guess").unwrap();
    for _ in 0..5 {
        assert_eq!(wrong(proxy, "10.0.0.1"), 401);
    }
    assert_eq!(wrong(proxy, "10.0.0.1"), 429, "the guesser behind the proxy waits");
    let owner = raw::login_forwarded(proxy, &service.url, Some("10.0.0.1, 10.0.0.2"), "instructor", &service.password).unwrap();
    assert_eq!(owner, 303, "another client of the proxy (the last address forwarded) logs in");
    // From anywhere else the header is the client's own words, and ignored.
    let direct = raw::client_address(2);
    for i in 0..5 {
        assert_eq!(wrong(direct, &format!("10.0.1.{i}")), 401);
    }
    assert_eq!(wrong(direct, "10.0.1.99"), 429, "a made-up X-Forwarded-For does not escape the wait");
    // The proxy holds connections for many clients: they are not bounded per address.
    let count = web::serve::connections::MAX_CONNECTIONS_PER_ADDRESS + 10;
    let mut held = raw::stalled_connections(proxy, &service.url, count, raw::Stall::Body);
    assert_eq!(raw::closed_by_the_service(&mut held, Duration::from_millis(500)), 0);
}
