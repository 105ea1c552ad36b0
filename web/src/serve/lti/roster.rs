//! The course's roster from the LMS (Names and Role Provisioning): the LMS's learners of a
//! course become the bugrank course's students, each with their private link and the id a
//! launch of theirs would give ([`super::student_ids`]), their names and emails kept
//! (the Students page and the letters read them). Fetched when an instructor launches
//! from the course, off the request, and by hand from an LMS link's page.

use super::Role;
use super::keys::ToolKey;
use super::services::{self, NRPS_SCOPE};
use crate::serve::App;
use crate::serve::auth::random_token;
use crate::serve::db::{Person, PlatformRow, now};

/// Adds the learners of the LMS course at `memberships` to `course`: how many it lists.
pub fn sync_course(app: &App, platform: &PlatformRow, course: i64, memberships: &str) -> Result<usize, String> {
    let key = ToolKey::current(&app.db).map_err(|e| e.to_string())?;
    let token = app.lti_tokens.token(platform, &key, &[NRPS_SCOPE], now())?;
    let members = services::members(memberships, &token)?;
    let mut learners = 0;
    for member in &members {
        let active = member.status.as_deref().is_none_or(|s| s == "Active");
        if !active || Role::of(&member.roles) != Some(Role::Learner) {
            continue;
        }
        let (name, email) = (member.name.clone().unwrap_or_default(), member.email.clone().unwrap_or_default());
        let person = Person { platform: platform.id, sub: &member.user_id, name: &name, email: &email };
        let ids = super::student_ids(member.lis_person_sourcedid.as_deref(), &email, &member.user_id);
        app.db.lti_student(&person, course, &ids, &random_token).map_err(|e| e.to_string())?;
        learners += 1;
    }
    // Learners known now get the grades of the batches already released to them.
    for batch in app.db.lti_bound_batches(platform.id, course).map_err(|e| e.to_string())? {
        super::grades::sync_batch(app, batch);
    }
    Ok(learners)
}

/// [`sync_course`] off the request that asked for it; a failure is said in the log.
pub fn sync_in_background(app: &std::sync::Arc<App>, platform: PlatformRow, course: i64, memberships: String) {
    let app = app.clone();
    std::thread::spawn(move || {
        if let Err(reason) = sync_course(&app, &platform, course, &memberships) {
            eprintln!("the roster of course {course} was not fetched from {}: {reason}", platform.name);
        }
    });
}
