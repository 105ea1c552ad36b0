//! Defences of the service against its users: a flood of logins, guessed passwords.

use crate::common::{Client, Service};

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
    // The account waits too, whoever tries: even its right password, for now.
    let mut owner = Client::new(&service.url);
    assert_eq!(owner.login("instructor", &service.password), 429);
    // An unknown login is refused like a wrong password (and counts against the address).
    let mut other = Client::new(&service.url);
    assert_eq!(other.login("nobody", "x"), 429, "the address has failed too often");
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
