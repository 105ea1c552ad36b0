//! bugrank as an LTI 1.3 tool (1EdTech's Learning Tools Interoperability, with LTI
//! Advantage's services): an LMS (the *platform*: Canvas, Moodle, ...) launches students
//! and instructors into bugrank, and bugrank trusts who it says they are because the
//! platform signed it.
//!
//! The flow of a launch (OpenID Connect's third-party initiated login, implicit flow):
//!
//! 1. The platform sends the browser to `/lti/login` with its issuer, a login hint and the
//!    target ([`launch::LoginRequest`]). bugrank finds the platform registered with that
//!    issuer ([`crate::serve::db::PlatformRow`]), keeps a fresh *state* and *nonce* for it
//!    (ten minutes, used once), and sends the browser on to the platform's authorization
//!    URL ([`launch::authorization_url`]).
//! 2. The platform posts an `id_token` (a JWT it signed) and the state to `/lti/launch`.
//!    bugrank takes the state (a second launch with it finds nothing: a replay is
//!    refused), and checks the token ([`launch::verify`]): its signature against the
//!    platform's published keys (its JWKS, [`jwks::JwksCache`]), `iss`, `aud`/`azp`, `exp`,
//!    the nonce kept with the state, the deployment, the LTI version and message type.
//!    Any check that fails refuses the launch with a page that names it.
//! 3. By the roles in the token ([`Role`]): an instructor gets an instructor session
//!    (an account of their own, made on their first launch); a learner gets their own
//!    page in the course the launch came from (a course made on its first launch), and
//!    nothing else.
//!
//! The tool's own key ([`keys::ToolKey`], RSA, made on first use and kept in the store)
//! is published at `/lti/jwks`: platforms check with it what bugrank signs.

use serde::Deserialize;

use crate::serve::db::PlatformRow;

pub mod grades;
pub mod jwks;
pub mod keys;
pub mod launch;
pub mod roster;
pub mod services;

/// The ids a learner may have in a course, best first: the institution's id
/// (`lis_person_sourcedid`, what rosters use), their email, their LMS id (`sub`), and last
/// an id made of the LMS id's hash (always usable, and theirs alone). Only ids a roster
/// could hold ([`course::roster::id_problem`]). A launch and the LMS's roster give the
/// same person the same id.
pub fn student_ids(sourcedid: Option<&str>, email: &str, sub: &str) -> Vec<String> {
    let made = format!("lms-{}", &crate::serve::store::sha256_hex(sub.as_bytes())[..16]);
    let given = [sourcedid, Some(email), Some(sub)];
    let mut ids: Vec<String> = given.into_iter().flatten().filter(|id| !id.is_empty() && course::roster::id_problem(id).is_none()).map(str::to_owned).collect();
    ids.push(made);
    ids
}

/// A platform as an instructor registers it, with the values the LMS shows once bugrank
/// is added to it (the page `/lti/platforms`, `bugrank lti add-platform`). Missing form
/// fields are empty, which [`Registration::check`] refuses by name.
#[derive(Clone, Debug, Default, Deserialize, clap::Args)]
#[serde(default)]
pub struct Registration {
    /// What instructors call the LMS ("Canvas of Example University").
    #[arg(long)]
    pub name: String,
    /// The platform's issuer (`iss`): Canvas's is `https://canvas.instructure.com`,
    /// Moodle's its own address.
    #[arg(long)]
    pub issuer: String,
    /// The client id the LMS gave bugrank.
    #[arg(long)]
    pub client_id: String,
    /// The LMS's OIDC authentication request URL.
    #[arg(long)]
    pub auth_url: String,
    /// The LMS's OAuth 2 access token URL.
    #[arg(long)]
    pub token_url: String,
    /// The LMS's public keyset URL (JWKS).
    #[arg(long)]
    pub jwks_url: String,
    /// The deployment ids of bugrank in the LMS whose launches are accepted, separated by
    /// commas or lines.
    #[arg(long)]
    pub deployment_ids: String,
}

/// Whether bugrank may use `url` to reach a platform, with its keys or its tokens: an
/// `https` URL (a network between bugrank and the LMS cannot then swap the keys a launch
/// is checked with, or read a token), or `http` to this machine itself (a platform on
/// loopback: tests, a tunnel). `Err` says why not, in words that follow the URL.
pub fn secure_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("is not a URL: {e}"))?;
    let loopback = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err("is not an https URL (plain http only to this machine itself)".to_owned()),
    }
}

impl Registration {
    /// The platform to keep, or why it cannot be registered, in words.
    pub fn check(&self) -> Result<PlatformRow, String> {
        for (what, text) in [("name", &self.name), ("issuer", &self.issuer), ("client id", &self.client_id)] {
            if text.trim().is_empty() {
                return Err(format!("the {what} is missing"));
            }
        }
        let url = |what: &str, text: &str| -> Result<String, String> {
            secure_url(text.trim()).map_err(|why| format!("the {what} `{text}` {why}"))?;
            Ok(text.trim().to_owned())
        };
        let deployment_ids: Vec<String> = self.deployment_ids.split([',', '\n']).map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned).collect();
        if deployment_ids.is_empty() {
            return Err("name at least one deployment id (the LMS shows it once bugrank is installed in it)".into());
        }
        Ok(PlatformRow {
            id: 0,
            name: self.name.trim().to_owned(),
            issuer: self.issuer.trim().to_owned(),
            client_id: self.client_id.trim().to_owned(),
            auth_url: url("authentication request URL", &self.auth_url)?,
            token_url: url("access token URL", &self.token_url)?,
            jwks_url: url("keyset URL", &self.jwks_url)?,
            deployment_ids,
        })
    }
}

/// The claims of an LTI 1.3 message (LTI Core 1.3, section 5), by their full names.
pub mod claim {
    pub const MESSAGE_TYPE: &str = "https://purl.imsglobal.org/spec/lti/claim/message_type";
    pub const VERSION: &str = "https://purl.imsglobal.org/spec/lti/claim/version";
    pub const DEPLOYMENT_ID: &str = "https://purl.imsglobal.org/spec/lti/claim/deployment_id";
    pub const TARGET_LINK_URI: &str = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri";
    pub const RESOURCE_LINK: &str = "https://purl.imsglobal.org/spec/lti/claim/resource_link";
    pub const ROLES: &str = "https://purl.imsglobal.org/spec/lti/claim/roles";
    pub const CONTEXT: &str = "https://purl.imsglobal.org/spec/lti/claim/context";
    pub const LIS: &str = "https://purl.imsglobal.org/spec/lti/claim/lis";
}

/// What a launch makes of a person, by the roles the platform gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A course's instructor, teaching assistant, content developer, or the platform's or
    /// institution's administrator: an instructor of bugrank.
    Instructor,
    /// A course's learner: a student, who sees their own page alone.
    Learner,
}

/// The role URIs (LIS vocabulary, LTI Core appendix A.2) that make an instructor. A role
/// may also come in its short form (`Instructor`), which LTI 1.3 deprecates but platforms
/// still send.
const INSTRUCTOR_ROLES: [&str; 6] = [
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
];

const LEARNER_ROLE: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";

impl Role {
    /// The role `roles` give: an instructor's role wins over a learner's (an instructor
    /// who is also enrolled sees the course as its instructor); `None` when neither is
    /// among them (a mentor, a guest).
    pub fn of(roles: &[String]) -> Option<Role> {
        // The short form of a role is what follows its URI's last `#`.
        let has = |wanted: &str| roles.iter().any(|role| role == wanted || wanted.rsplit_once('#').is_some_and(|(_, short)| role == short));
        if INSTRUCTOR_ROLES.iter().any(|role| has(role)) {
            Some(Role::Instructor)
        } else if has(LEARNER_ROLE) {
            Some(Role::Learner)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registration() -> Registration {
        Registration {
            name: "Moodle".into(),
            issuer: "https://moodle.example.org".into(),
            client_id: "abc".into(),
            auth_url: "https://moodle.example.org/mod/lti/auth.php".into(),
            token_url: "https://moodle.example.org/mod/lti/token.php".into(),
            jwks_url: "https://moodle.example.org/mod/lti/certs.php".into(),
            deployment_ids: "1, 2\n3".into(),
        }
    }

    #[test]
    fn a_registration_keeps_its_values_and_each_deployment() {
        let platform = registration().check().unwrap();
        assert_eq!(platform.deployment_ids, ["1", "2", "3"]);
        assert_eq!(platform.jwks_url, "https://moodle.example.org/mod/lti/certs.php");
    }

    #[test]
    fn a_registration_without_a_value_or_with_a_bad_url_is_refused_by_name() {
        let refused = |change: fn(&mut Registration)| {
            let mut registration = registration();
            change(&mut registration);
            registration.check().unwrap_err()
        };
        assert_eq!(refused(|r| r.issuer = " ".into()), "the issuer is missing");
        assert!(refused(|r| r.jwks_url = "certs.php".into()).starts_with("the keyset URL `certs.php` is not a URL"));
        assert!(refused(|r| r.auth_url = "ftp://moodle.example.org/auth".into()).contains("not an https URL"));
        assert!(refused(|r| r.jwks_url = "http://moodle.example.org/mod/lti/certs.php".into()).contains("not an https URL"), "keys over plain http");
        let mut local = registration();
        local.jwks_url = "http://127.0.0.1:8080/jwks".into();
        assert!(local.check().is_ok(), "plain http to this machine");
        assert!(refused(|r| r.deployment_ids = ",\n".into()).contains("at least one deployment id"));
    }

    fn check(roles: &[&str], expected: Option<Role>) {
        let roles: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
        assert_eq!(Role::of(&roles), expected, "{roles:?}");
    }

    #[test]
    fn instructors_teaching_assistants_and_administrators_are_instructors_and_learners_are_students() {
        check(&["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"], Some(Role::Instructor));
        check(&["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"], Some(Role::Instructor));
        check(&["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"], Some(Role::Instructor));
        check(&["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"], Some(Role::Learner));
        check(&["Learner"], Some(Role::Learner));
        check(&["Instructor"], Some(Role::Instructor));
    }

    #[test]
    fn an_instructor_enrolled_as_a_learner_too_is_an_instructor() {
        check(
            &["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"],
            Some(Role::Instructor),
        );
    }

    #[test]
    fn a_mentor_a_guest_or_no_role_is_neither() {
        check(&["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"], None);
        check(&["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Guest"], None);
        check(&[], None);
        // A made-up role that ends like a known one is not it.
        check(&["https://example.com/roles#Instructor"], None);
    }
}
