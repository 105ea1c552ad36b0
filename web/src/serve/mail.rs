//! Sending students their private links by email, through the SMTP server the
//! environment names when the service starts:
//!
//! - `BUGRANK_SMTP_URL`: `smtp://host:25` (plain, a relay on the campus network),
//!   `smtp://user:password@host:587?tls=required` (STARTTLS), or
//!   `smtps://user:password@host:465` (TLS from the start). A user and password go only
//!   over TLS: on a plain connection (`smtp://` without `tls=required`; `tls=opportunistic`
//!   falls back to plain when the server offers no STARTTLS) they are refused, unless the
//!   server is on this machine and the URL says `plaintext_auth=loopback` (a relay on
//!   loopback, which nobody else can listen to);
//! - `BUGRANK_MAIL_FROM`: the sender, `Course staff <staff@example.edu>`.
//!
//! Each letter is made once ([`Occasion::letter`]), and previewed and sent the same. This
//! module must not know pages.
//!
//! The password stays in the service's environment: no student program sees it (every
//! jail starts with an empty environment). Without both variables, the service offers
//! `links.csv` for a mail merge instead, and the preview still shows the message.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{Message, SmtpTransport, Transport};

/// How long one exchange with the SMTP server may take before the message counts as not
/// sent: a relay that stalls must not hold a service thread for minutes.
const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

/// The environment variable naming the SMTP server.
pub const SMTP_URL_VAR: &str = "BUGRANK_SMTP_URL";
/// The environment variable naming the sender.
pub const MAIL_FROM_VAR: &str = "BUGRANK_MAIL_FROM";

/// Where and as whom messages are sent.
pub struct Mailer {
    transport: SmtpTransport,
    from: Mailbox,
    /// The server, without any password: what the pages say.
    pub server: String,
}

impl Mailer {
    /// The mailer the environment sets, `None` when it sets none; an error names the
    /// variable that is wrong.
    pub fn from_env() -> anyhow::Result<Option<Mailer>> {
        let (url, from) = (std::env::var(SMTP_URL_VAR).ok(), std::env::var(MAIL_FROM_VAR).ok());
        match (url.filter(|u| !u.is_empty()), from.filter(|f| !f.is_empty())) {
            (None, None) => Ok(None),
            (Some(_), None) => anyhow::bail!("{SMTP_URL_VAR} is set but {MAIL_FROM_VAR} is not: set the sender too, as `Course staff <staff@example.edu>`"),
            (None, Some(_)) => anyhow::bail!("{MAIL_FROM_VAR} is set but {SMTP_URL_VAR} is not: set the server too, as `smtp://host:25`"),
            (Some(url), Some(from)) => Mailer::new(&url, &from).map(Some),
        }
    }

    pub fn new(url: &str, from: &str) -> anyhow::Result<Mailer> {
        credentials_protected(url)?;
        let transport = SmtpTransport::from_url(url)
            .map_err(|e| anyhow::anyhow!("{SMTP_URL_VAR} is not an SMTP URL such as `smtp://host:25` or `smtps://user:password@host:465`: {e}"))?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        let from: Mailbox =
            from.parse().map_err(|e| anyhow::anyhow!("{MAIL_FROM_VAR} `{from}` is not an address such as `Course staff <staff@example.edu>`: {e}"))?;
        let server = match url.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{}", rest.rsplit_once('@').map_or(rest, |(_, host)| host)),
            None => url.to_owned(),
        };
        Ok(Mailer { transport, from, server })
    }

    /// Sends `letter`; the error, in words, when it was not sent.
    pub fn send(&self, letter: &Letter) -> Result<(), String> {
        let to = letter.to.parse::<lettre::Address>().map_err(|e| format!("`{}` is not an email address: {e}", letter.to))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(Mailbox::new(Some(letter.name.clone()).filter(|n| !n.is_empty()), to))
            .subject(&letter.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(letter.body.clone())
            .map_err(|e| format!("the message cannot be made: {e}"))?;
        self.transport.send(&message).map(|_| ()).map_err(|e| format!("the server did not take it: {e}"))
    }
}

/// `Ok` unless `url` would send a password in the clear (see the module's documentation);
/// the error names the setting and what to write instead.
fn credentials_protected(url: &str) -> anyhow::Result<()> {
    // (A URL lettre cannot read either is refused by it, with its reason.)
    let Ok(parsed) = url::Url::parse(url) else { return Ok(()) };
    let parameter = |name: &str| parsed.query_pairs().find(|(key, _)| key == name).map(|(_, value)| value.into_owned());
    let encrypted = parsed.scheme() == "smtps" || parameter("tls").as_deref() == Some("required");
    if encrypted || parsed.password().is_none() {
        return Ok(());
    }
    let loopback = match parsed.host() {
        // (smtp is no scheme the URL standard knows: its IPv4 hosts stay text.)
        Some(url::Host::Domain(name)) => name == "localhost" || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if loopback && parameter("plaintext_auth").as_deref() == Some("loopback") {
        return Ok(());
    }
    let instead = if loopback { "add `plaintext_auth=loopback` to the URL for a relay on this machine, or use" } else { "use" };
    anyhow::bail!(
        "{SMTP_URL_VAR} has a user and password, which this URL would send unencrypted ({}): {instead} `smtp://user:password@host:587?tls=required` (STARTTLS) or `smtps://user:password@host:465`",
        if parameter("tls").as_deref() == Some("opportunistic") {
            "tls=opportunistic sends them in the clear to a server without STARTTLS"
        } else {
            "smtp:// without tls=required"
        }
    )
}

/// One student's message: their private link, and what it shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Letter {
    pub student: String,
    pub name: String,
    pub to: String,
    pub subject: String,
    pub body: String,
}

/// What a batch's letters say, beyond each student's own link.
pub struct Occasion<'a> {
    pub course: &'a str,
    pub batch: &'a str,
    pub problem: &'a str,
    /// What a roster's student who handed in nothing earns (their letter says it).
    pub no_hand_in: course::exports::NoHandIn,
}

impl Occasion<'_> {
    /// The letter to one student (`name` may be empty: the id greets them) who handed in
    /// (`handed_in`) or is on the roster and handed in nothing.
    pub fn letter(&self, student: &str, name: &str, to: &str, link: &str, handed_in: bool) -> Letter {
        let greeting = if name.is_empty() { student } else { name };
        let (batch, problem, course) = (self.batch, self.problem, self.course);
        let (subject, opening) = if handed_in {
            (
                format!("{course}: your results for {batch}"),
                format!(
                    "Your results for {batch} ({problem}) in {course} are on your private page:\n\n\
                     {link}\n\n\
                     It shows your points, each test your program fails with what it should have printed, and the code that was graded."
                ),
            )
        } else {
            let earns = match self.no_hand_in {
                course::exports::NoHandIn::Zero => "so it earns 0 points",
                course::exports::NoHandIn::Empty => "so it has no grade: your instructor decides what it counts for",
            };
            (
                format!("{course}: nothing received for {batch}"),
                format!("Nothing of yours was received for {batch} ({problem}) in {course}, {earns}. Your private page says so:\n\n{link}\n\n"),
            )
        };
        let body = format!("Hello {greeting},\n\n{opening} The link is yours alone: do not share it. It will also show your later results in {course}.\n");
        Letter { student: student.to_owned(), name: name.to_owned(), to: to.to_owned(), subject, body }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_letter_greets_the_student_by_name_else_by_id_and_gives_the_link() {
        let occasion = Occasion { course: "CS 101", batch: "Lab 3", problem: "Interval sets", no_hand_in: course::exports::NoHandIn::Zero };
        let named = occasion.letter("a01", "Ada Lovelace", "ada@example.edu", "https://grades.example.edu/s/abc", true);
        assert_eq!(named.subject, "CS 101: your results for Lab 3");
        assert!(named.body.starts_with("Hello Ada Lovelace,\n\nYour results for Lab 3 (Interval sets) in CS 101"), "{}", named.body);
        assert!(named.body.contains("\n\nhttps://grades.example.edu/s/abc\n\n"), "{}", named.body);
        assert!(occasion.letter("a02", "", "b@example.edu", "x", true).body.starts_with("Hello a02,"));
    }

    #[test]
    fn a_student_who_handed_in_nothing_is_told_so_and_what_it_earns() {
        let zero = Occasion { course: "CS 101", batch: "Lab 3", problem: "Interval sets", no_hand_in: course::exports::NoHandIn::Zero };
        let letter = zero.letter("a03", "Grace", "g@example.edu", "https://grades.example.edu/s/def", false);
        assert_eq!(letter.subject, "CS 101: nothing received for Lab 3");
        assert!(
            letter.body.starts_with("Hello Grace,\n\nNothing of yours was received for Lab 3 (Interval sets) in CS 101, so it earns 0 points."),
            "{}",
            letter.body
        );
        assert!(letter.body.contains("\n\nhttps://grades.example.edu/s/def\n\n") && !letter.body.contains("your program"), "{}", letter.body);
        let empty = Occasion { no_hand_in: course::exports::NoHandIn::Empty, ..zero };
        let letter = empty.letter("a03", "Grace", "g@example.edu", "x", false);
        assert!(letter.body.contains("so it has no grade: your instructor decides what it counts for."), "{}", letter.body);
    }

    #[test]
    fn a_wrong_setting_is_named_and_the_password_is_never_shown() {
        let mailer = Mailer::new("smtp://staff:secret@mail.example.edu:587?tls=required", "Staff <staff@example.edu>").unwrap();
        assert_eq!(mailer.server, "smtp://mail.example.edu:587?tls=required");
        let bad_url = Mailer::new("mail.example.edu", "staff@example.edu").err().unwrap().to_string();
        assert!(bad_url.starts_with(SMTP_URL_VAR), "{bad_url}");
        let bad_from = Mailer::new("smtp://localhost:25", "staff at example").err().unwrap().to_string();
        assert!(bad_from.starts_with(MAIL_FROM_VAR), "{bad_from}");
    }

    fn check(url: &str, refused: Option<&str>) {
        match (credentials_protected(url), refused) {
            (Ok(()), None) => {}
            (Err(error), Some(words)) => {
                let said = error.to_string();
                assert!(said.starts_with(SMTP_URL_VAR) && said.contains(words), "{url}: {said}");
                assert!(!said.contains("secret"), "the password is never said: {said}");
            }
            (Ok(()), Some(words)) => panic!("{url} was taken, but should be refused with `{words}`"),
            (Err(error), None) => panic!("{url} was refused: {error}"),
        }
    }

    #[test]
    fn a_password_goes_only_over_tls_or_to_a_relay_on_loopback_said_so() {
        check("smtp://mail.example.edu:25", None);
        check("smtp://staff:secret@mail.example.edu:587?tls=required", None);
        check("smtps://staff:secret@mail.example.edu:465", None);
        check("smtp://staff:secret@mail.example.edu:25", Some("smtp:// without tls=required"));
        check("smtp://staff:secret@mail.example.edu:587?tls=opportunistic", Some("tls=opportunistic sends them in the clear"));
        check("smtp://staff:secret@mail.example.edu:25?plaintext_auth=loopback", Some("unencrypted"));
        check("smtp://staff:secret@127.0.0.1:25", Some("add `plaintext_auth=loopback`"));
        check("smtp://staff:secret@127.0.0.1:25?plaintext_auth=loopback", None);
        check("smtp://staff:secret@[::1]:2525?plaintext_auth=loopback", None);
        check("smtp://staff:secret@localhost?plaintext_auth=loopback", None);
        let refused = Mailer::new("smtp://staff:secret@mail.example.edu:25", "Staff <staff@example.edu>").err().unwrap().to_string();
        assert!(refused.contains("unencrypted"), "{refused}");
    }
}
