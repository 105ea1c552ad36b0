//! Grades sent back to the LMS (Assignment and Grade Services): each link bound to a batch
//! gets the batch's released points in its line item (made by bugrank when the platform
//! gave none), with the points' maximum and the feedback the Moodle export carries. Only
//! grades that changed since they were last posted are posted again: a release posts the
//! class, a re-run shown or an adjustment posts the students whose grade moved.

use std::collections::HashMap;

use serde::Serialize;

use super::keys::ToolKey;
use super::services::{self, AGS_LINEITEM_SCOPE, AGS_SCORE_SCOPE};
use crate::serve::App;
use crate::serve::db::{BatchRow, LinkRow, now};

/// One sending of grades at a time in this process: a release and an adjustment a moment
/// later must reach the LMS in that order.
static SENDING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Sends the grades of `batch` ([`sync_batch`]) off the request that changed them: a class
/// of 300 is 300 requests to the LMS, which no page waits for.
pub fn send_in_background(app: &std::sync::Arc<App>, batch: i64) {
    let app = app.clone();
    std::thread::spawn(move || sync_batch(&app, batch));
}

/// Sends the released grades of `batch` to every link bound to it. A link whose sending
/// fails keeps the reason (shown on the LMS page) and is tried again at the next change or
/// by hand; the others go on. The number of grades posted.
pub fn sync_batch(app: &App, batch: i64) -> usize {
    let _one = SENDING.lock().unwrap_or_else(|p| p.into_inner());
    let links = match app.db.lti_links_of(batch) {
        Ok(links) => links,
        Err(error) => {
            eprintln!("batch {batch}: its LMS links cannot be read: {error}");
            return 0;
        }
    };
    let mut posted = 0;
    for link in links {
        let outcome = sync_link(app, batch, &link);
        let error = outcome.as_ref().err().map(String::as_str);
        if let Err(reason) = app.db.set_lti_sync_error(link.platform_id, &link.link_id, error) {
            eprintln!("batch {batch}: the outcome of sending grades cannot be kept: {reason}");
        }
        match outcome {
            Ok(count) => posted += count,
            Err(reason) => eprintln!("batch {batch}: grades not sent to LMS link {}: {reason}", link.link_id),
        }
    }
    posted
}

/// The grades each student of the link should have in the LMS now, by `sub`: none until
/// the batch is released.
fn wanted(app: &App, batch: &BatchRow, link: &LinkRow) -> Result<Option<(f64, Vec<Score>)>, String> {
    let Some(shown) = batch.shown() else { return Ok(None) };
    let analysis = app.analysis(shown).map_err(|e| format!("{e:#}"))?;
    let roster = app.db.graded_roster(batch.id).map_err(|e| e.to_string())?;
    let lines = course::exports::gradebook(&analysis, &roster, batch.no_hand_in);
    let by_id: HashMap<&str, &course::exports::GradebookLine> = lines.iter().map(|line| (line.id, line)).collect();
    let max = course::exports::points_possible(&analysis);
    let students = app.db.lti_students_of(link.platform_id, link.course_id).map_err(|e| e.to_string())?;
    let scores = students
        .into_iter()
        .filter_map(|(sub, student)| {
            let line = by_id.get(student.as_str())?;
            let comment = course::exports::line_feedback(&analysis, line, &batch.name, batch.no_hand_in);
            Some(Score { sub, points: line.points, comment })
        })
        .collect();
    Ok(Some((max, scores)))
}

/// One student's grade as it should be in the LMS.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub sub: String,
    /// `None`: no grade (a student who handed in nothing, when the batch gives them none).
    pub points: Option<f64>,
    pub comment: String,
}

/// The scores of `wanted` the LMS does not have as they are (`posted`, by `sub`).
pub fn changed<'a>(wanted: &'a [Score], posted: &HashMap<String, Option<f64>>) -> Vec<&'a Score> {
    wanted.iter().filter(|score| posted.get(&score.sub) != Some(&score.points)).collect()
}

/// AGS's score, as the platform takes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScoreMessage<'a> {
    user_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    score_given: Option<f64>,
    score_maximum: f64,
    comment: &'a str,
    timestamp: String,
    activity_progress: &'static str,
    grading_progress: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LineItem<'a> {
    score_maximum: f64,
    label: &'a str,
    resource_link_id: &'a str,
    resource_id: String,
    tag: &'static str,
}

fn sync_link(app: &App, batch: i64, link: &LinkRow) -> Result<usize, String> {
    let batch = app.db.batch(batch).map_err(|e| e.to_string())?.ok_or("the batch was deleted")?;
    let Some((max, scores)) = wanted(app, &batch, link)? else { return Ok(0) };
    let posted = app.db.lti_posted(link.platform_id, &link.link_id).map_err(|e| e.to_string())?;
    let changed = changed(&scores, &posted);
    if changed.is_empty() {
        return Ok(0);
    }
    let platform = app.db.lti_platform(link.platform_id).map_err(|e| e.to_string())?.ok_or("the LMS was deleted")?;
    let key = ToolKey::current(&app.db).map_err(|e| e.to_string())?;
    let token = app.lti_tokens.token(&platform, &key, &[AGS_LINEITEM_SCOPE, AGS_SCORE_SCOPE], now())?;
    let lineitem = match &link.lineitem_url {
        Some(url) => url.clone(),
        None => {
            let lineitems = link
                .lineitems_url
                .as_deref()
                .ok_or("the LMS gave this link no grade service (no line items URL): enable Assignment and Grade Services for bugrank in the LMS")?;
            let item = LineItem {
                score_maximum: max,
                label: &batch.name,
                resource_link_id: &link.link_id,
                resource_id: format!("bugrank-batch-{}", batch.id),
                tag: "bugrank",
            };
            let url = services::create_lineitem(lineitems, &token, &item)?;
            app.db.set_lti_lineitem(link.platform_id, &link.link_id, &url).map_err(|e| e.to_string())?;
            url
        }
    };
    let scores_url = services::scores_url(&lineitem);
    // A score the LMS refuses (a student who left the course) does not keep the others
    // from theirs: each is posted, and the refusals are said together.
    let mut refused = Vec::new();
    for score in &changed {
        let message = ScoreMessage {
            user_id: &score.sub,
            score_given: score.points,
            score_maximum: max,
            comment: &score.comment,
            timestamp: rfc3339(now()),
            activity_progress: "Completed",
            grading_progress: if score.points.is_some() { "FullyGraded" } else { "NotReady" },
        };
        match services::post_score(&scores_url, &token, &message) {
            Ok(()) => app.db.set_lti_posted(link.platform_id, &link.link_id, &score.sub, score.points).map_err(|e| e.to_string())?,
            Err(reason) => refused.push(reason),
        }
    }
    match refused.first() {
        None => Ok(changed.len()),
        Some(first) => Err(format!("{} of {} grades were not taken (tried again at the next change); the first: {first}", refused.len(), changed.len())),
    }
}

/// `seconds` since the epoch as RFC 3339 in UTC (`2026-11-29T20:50:00Z`).
pub fn rfc3339(seconds: i64) -> String {
    let (year, month, day, rest) = crate::serve::civil(seconds);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(sub: &str, points: Option<f64>) -> Score {
        Score { sub: sub.into(), points, comment: String::new() }
    }

    #[test]
    fn only_grades_the_lms_does_not_have_as_they_are_are_posted() {
        let wanted = [score("a", Some(90.0)), score("b", Some(72.5)), score("c", None), score("d", Some(0.0))];
        let posted: HashMap<String, Option<f64>> = [("a".into(), Some(90.0)), ("b".into(), Some(80.0)), ("c".into(), None)].into_iter().collect();
        let subs: Vec<&str> = changed(&wanted, &posted).iter().map(|s| s.sub.as_str()).collect();
        assert_eq!(subs, ["b", "d"]);
    }

    #[test]
    fn times_are_rfc_3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_150_461), "2026-12-01T18:41:01Z");
    }
}
