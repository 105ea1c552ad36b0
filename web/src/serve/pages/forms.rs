//! The instructor's upload and editing forms, each drawn by one function: on its page, and
//! again under the reason when the service refuses what was sent ([`form_again`]), so
//! that a refused upload is never a dead end.

use actix_web::HttpRequest;
use actix_web::ResponseError;
use maud::{Markup, html};

use serde::Deserialize;

use super::super::auth::Instructor;
use super::super::db::{BatchRow, ProblemRow, SubmissionRow, WindowRow};
use super::super::{AppError, Page};
use super::layout::{csrf_field, page, with_code};
use course::hand_in_window::{DEFAULT_MINUTES_BETWEEN, HandInWindow, LatePolicy, MAX_MINUTES_BETWEEN};
use course::problem_dir::MAX_POINTS;
use course::roster::{Adjustment, RosterRow};

/// The longest course or batch name: a name, not a description.
pub const MAX_NAME_CHARS: usize = 200;

/// A form's refusal as a page of the site: the reason, then the form again (`form`), with
/// the status of the error. API requests and other errors are left as they are.
pub fn form_again(req: &HttpRequest, who: &Instructor, title: &str, result: Page, form: impl FnOnce() -> Markup) -> Page {
    match result {
        Err(error @ (AppError::BadRequest(_) | AppError::TooLarge(_) | AppError::Csrf)) if !req.path().starts_with("/api/") => {
            let mut response = page(title, Some(who), html! { p.bad.refused role="alert" { (with_code(&error.to_string())) } (form()) });
            *response.status_mut() = error.status_code();
            Ok(response)
        }
        other => other,
    }
}

/// A name typed into a form (a batch's, a course's): one line, not empty, at most
/// [`MAX_NAME_CHARS`] characters. `what` names it in the refusal.
pub fn name_field(value: Option<&str>, what: &str) -> Result<String, AppError> {
    let value = value.map_or("", str::trim);
    if value.is_empty() || value.chars().count() > MAX_NAME_CHARS || value.chars().any(char::is_control) {
        return Err(AppError::BadRequest(format!("name the {what} in one line of at most {MAX_NAME_CHARS} characters")));
    }
    Ok(value.to_owned())
}

/// What the batch upload form shows.
pub struct BatchForm<'a> {
    /// The problems to choose from; with `problem` set, the form is that problem's.
    pub problems: &'a [ProblemRow],
    pub problem: Option<i64>,
    /// Course names, the most recently used first.
    pub courses: &'a [String],
    /// The values sent before, when the form is shown again.
    pub name: &'a str,
    pub course: Option<&'a str>,
    /// The problem chosen before, selected again (a form with a choice of problem).
    pub chosen: Option<i64>,
}

/// The form that uploads a new batch: on a problem's page, and on the Batches page with a
/// choice of problem.
pub fn batch_form(who: &Instructor, form: &BatchForm) -> Markup {
    let action = match form.problem {
        Some(problem) => format!("/problems/{problem}/batches"),
        None => "/batches".to_owned(),
    };
    // Only a course this problem was given in is suggested: another problem's course
    // would be easy to keep by mistake.
    let course = form.course.unwrap_or("");
    html! {
        div.card #new-batch {
            h3 { "Upload a batch of submissions" }
            p.muted { "Source files (" code { ".c" } ", " code { ".cpp" } ", " code { ".rs" } ", " code { ".py" } "), modules (" code { ".wasm" } " or " code { ".wat" } "), named " code { "<student id>.c" } " and so on, or zips of them (in a zip, a folder of sources is one student's, named by the folder), and optionally a roster CSV with an "
                code { "id" } " column (and " code { "cohort" } " for the two-cohort report, " code { "manual" } ", " code { "name" } ", " code { "email" } ", " code { "section" } ", " code { "sis_user_id" } ", … for the gradebooks). A " code { "roster.csv" } " inside the zip is read when no roster file is given. Every file is checked and reported; nothing is saved until the whole upload is clean or you confirm the part that is." }
            form method="post" action=(action) enctype="multipart/form-data" {
                (csrf_field(who))
                @if form.problem.is_none() {
                    p { label { "Problem "
                        select name="problem" required {
                            @for p in form.problems { option value=(p.id) selected[form.chosen == Some(p.id)] { (p.title) } }
                        } } }
                }
                p { label { "Batch name " input name="name" required placeholder="Assignment 1" maxlength=(MAX_NAME_CHARS) value=(form.name); } }
                p {
                    label { "Course " input name="course" required list="courses" maxlength=(MAX_NAME_CHARS) placeholder="CS 101, fall 2026" value=(course); }
                    datalist id="courses" { @for c in form.courses { option value=(c) {} } }
                    br;
                    span.muted { "A student id names one student of one course: " code { "a01" } " of two batches of the same course gets one private link to both; " code { "a01" } " of another course is another student." }
                }
                p { label { "Submissions or zips " input type="file" name="modules" multiple required; } }
                p { label { "Roster (CSV) " input type="file" name="roster" accept=".csv"; } }
                button type="submit" { "Upload and check" }
            }
        }
    }
}

/// The form that uploads a problem bundle to `action` (a new problem, or a replacement).
pub fn bundle_form(who: &Instructor, action: &str, label: &str) -> Markup {
    html! {
        form method="post" action=(action) enctype="multipart/form-data" {
            (csrf_field(who))
            input type="file" name="bundle" accept=".zip" required;
            " "
            button type="submit" { (label) }
        }
    }
}

/// The form that adds a late submission to a batch.
pub fn late_form(who: &Instructor, batch: i64) -> Markup {
    html! {
        div.card #late {
            h3 { "Add a late submission" }
            p.muted { "A module or one source file; it replaces the student's earlier submission (kept in the history); run the analysis again to grade it." }
            form method="post" action={ "/batches/" (batch) "/late" } enctype="multipart/form-data" {
                (csrf_field(who))
                label { "Student id " input name="student" placeholder="from the file name"; }
                input type="file" name="module" accept=".wasm,.wat,.c,.cpp,.cc,.cxx,.rs,.py" required;
                " "
                button type="submit" { "Add" }
            }
        }
    }
}

/// The form that attaches a roster to a batch, or replaces its roster.
pub fn roster_form(who: &Instructor, batch: i64, has_roster: bool) -> Markup {
    html! {
        div.card #roster {
            h3 { @if has_roster { "Replace the roster" } @else { "Attach a roster" } }
            p.muted { "A CSV with an " code { "id" } " column, optionally " code { "cohort" } ", and any others (" code { "manual" } ", " code { "name" } ", " code { "email" } ", " code { "sis_user_id" } ", …). Grades do not change: cohorts and the roster's columns are read from it whenever a page, an export or the experiment report is made." }
            form method="post" action={ "/batches/" (batch) "/roster" } enctype="multipart/form-data" {
                (csrf_field(who))
                input type="file" name="roster" accept=".csv" required;
                " "
                button type="submit" { @if has_roster { "Replace" } @else { "Attach" } }
            }
        }
    }
}

/// The form that renames a batch.
pub fn rename_form(who: &Instructor, batch: &BatchRow, name: &str) -> Markup {
    html! {
        form method="post" action={ "/batches/" (batch.id) "/rename" } {
            (csrf_field(who))
            label { "Name " input name="name" required maxlength=(MAX_NAME_CHARS) value=(name); }
            button type="submit" { "Rename" }
        }
    }
}

/// The most seeds one stability check runs: each costs a whole analysis.
pub const MAX_STABILITY_SEEDS: u64 = 20;

/// The form that queues an analysis of a batch. Once one has finished (`done`), it asks
/// how to treat it: keep its suite (the default once `released`) or analyse in full.
/// `max_points` fills the maximum of points: the batch's latest, else its problem's. Past
/// the `deadline` of students' own hand-ins, it asks which hand-ins: each student's last by
/// the deadline (the default), or late ones too.
pub fn run_form(who: &Instructor, batch: i64, done: bool, released: bool, max_points: f64, deadline: Option<i64>) -> Markup {
    html! {
        div.card #run {
            h3 { "Run an analysis" }
            form method="post" action={ "/batches/" (batch) "/analyses" } {
                (csrf_field(who))
                label { "Points out of " input name="max_points" type="number" min="0.01" max=(MAX_POINTS) step="any" value=(max_points) style="width:6em"; }
                label { "Seed " input name="seed" type="number" min="0" value="1" style="width:6em"; }
                label { "Stop searching once " input name="stable_after" type="number" min="1" placeholder="problem's default" style="width:10em"; " tests in a row find no new bug" }
                label { "A program may do at most " input name="fuel_factor" type="number" min="1" placeholder="problem's default" style="width:10em"; " times the model answer's work (counted in instructions) before it counts as too slow" }
                @if done {
                    fieldset {
                        legend { "Against the latest finished analysis" }
                        label { input type="radio" name="mode" value="frozen" checked[released];
                            " Keep its suite: run only the submissions that changed since; no other grade or test id moves" }
                        br;
                        label { input type="radio" name="mode" value="full" checked[!released];
                            " Analyse again in full: the suite may change, and with it other grades (each change is listed)" }
                    }
                }
                @if let Some(deadline) = deadline {
                    fieldset {
                        legend { "Students' hand-ins" }
                        label { input type="radio" name="hand_ins" value="by-deadline" checked;
                            " Each student's last hand-in by the deadline (" (super::layout::date(deadline)) ")" }
                        br;
                        label { input type="radio" name="hand_ins" value="all"; " Each student's last hand-in, late ones included" }
                    }
                }
                button type="submit" { "Run" }
            }
        }
    }
}

/// The form that adjusts one student's points, with the adjustments made so far (each
/// with its reason, which the student reads beside their points): of those who handed in
/// (`submissions`) or of the roster's who did not (`without_hand_in`, whose 0 it raises).
pub fn adjustment_form(
    who: &Instructor,
    batch: i64,
    submissions: &[SubmissionRow],
    without_hand_in: &[RosterRow],
    adjustments: &[(String, Adjustment)],
    max_points: f64,
) -> Markup {
    html! {
        div.card #adjustments {
            h3 { "Adjust a student's points" }
            p.muted { "Points added to (or, negative, taken from) what the program earned, kept between 0 and the maximum (" (max_points) " now). The adjustment stays with the batch: every analysis and re-run applies it, the student reads the reason beside their points, and the gradebook files carry it. Leave the points empty to remove one." }
            @if !adjustments.is_empty() {
                table {
                    tr { th { "Student" } th { "Points" } th { "Reason" } }
                    @for (student, a) in adjustments {
                        tr { td { (student) } td.num { (format!("{:+}", a.points)) } td { (a.reason) } }
                    }
                }
            }
            form method="post" action={ "/batches/" (batch) "/adjustments" } {
                (csrf_field(who))
                label { "Student " select name="student" required {
                    @for s in submissions { option value=(s.student) { (s.student) } }
                    @for r in without_hand_in { option value=(r.id) { (r.id) " (no hand-in)" } }
                } }
                label { "Points " input name="points" type="number" step="any" placeholder="+5 or -2.5" style="width:7em"; }
                label { "Reason " input name="reason" maxlength="500" placeholder="the student reads this" style="width:24em"; }
                button type="submit" { "Save" }
            }
        }
    }
}

/// The button that shows batch `batch`'s students analysis `analysis` instead of the one
/// they see ("release this re-run").
pub fn show_analysis_form(who: &Instructor, batch: i64, analysis: i64) -> Markup {
    html! {
        form method="post" action={ "/batches/" (batch) "/shown" } style="display:inline" {
            (csrf_field(who))
            input type="hidden" name="analysis" value=(analysis);
            button type="submit" { "Release analysis #" (analysis) " to students" }
        }
    }
}

/// The form that checks an analysis's stability with other seeds.
pub fn stability_form(who: &Instructor, analysis: i64) -> Markup {
    html! {
        form method="post" action={ "/analyses/" (analysis) "/stability" } {
            (csrf_field(who))
            label { "Other seeds " input name="seeds" type="number" min="2" max=(MAX_STABILITY_SEEDS) value="4" style="width:5em"; }
            button type="submit" { "Check stability" }
        }
    }
}

/// A hand-in window as a form sends it (and, for a new batch, its problem, name and course).
#[derive(Deserialize)]
pub struct WindowForm {
    pub csrf: Option<String>,
    /// `1` when students may hand in now.
    accepting: Option<String>,
    /// `YYYY-MM-DDTHH:MM` (a `datetime-local` field), empty for none.
    deadline: Option<String>,
    /// The browser's offset from UTC at the deadline, in minutes east (app.js sets it;
    /// without JavaScript the deadline is UTC).
    utc_offset: Option<String>,
    minutes_between: Option<String>,
    late: Option<String>,
    /// `1` when the class's analysis is queued at the deadline.
    analyse: Option<String>,
    pub problem: Option<String>,
    pub name: Option<String>,
    pub course: Option<String>,
}

impl WindowForm {
    /// Whether students may hand in, and the window, as sent.
    pub fn window(&self) -> Result<(bool, HandInWindow), AppError> {
        let minutes = match self.minutes_between.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            None => DEFAULT_MINUTES_BETWEEN,
            Some(text) => text.parse().map_err(|_| AppError::BadRequest(format!("the minutes between two hand-ins must be a whole number, not `{text}`")))?,
        };
        let late = self.late.as_deref().unwrap_or("mark");
        let late = LatePolicy::named(late).ok_or_else(|| AppError::BadRequest(format!("a late hand-in is `mark`ed or `refuse`d, not `{late}`")))?;
        let deadline = deadline_field(self.deadline.as_deref(), self.utc_offset.as_deref())?;
        let window = HandInWindow::new(deadline, minutes, late, self.analyse.as_deref() == Some("1")).map_err(AppError::BadRequest)?;
        Ok((self.accepting.as_deref() == Some("1"), window))
    }
}

/// A deadline typed as `YYYY-MM-DDTHH:MM` (seconds allowed) in a zone `utc_offset`
/// minutes east of UTC, as seconds since 1970 (UTC); empty: none.
fn deadline_field(text: Option<&str>, utc_offset: Option<&str>) -> Result<Option<i64>, AppError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
    let bad = || AppError::BadRequest(format!("the deadline must be a date and time such as 2026-12-18T23:59, not `{text}`"));
    let offset: i64 = match utc_offset.map(str::trim).filter(|o| !o.is_empty()) {
        None => 0,
        Some(o) => o.parse().ok().filter(|o: &i64| o.abs() <= 18 * 60).ok_or_else(bad)?,
    };
    let (day, time) = text.split_once(['T', ' ']).ok_or_else(bad)?;
    let numbers = |part: &str, sep: char| -> Option<Vec<i64>> { part.split(sep).map(|n| n.parse().ok()).collect() };
    let (Some(day), Some(time)) = (numbers(day, '-'), numbers(time, ':')) else { return Err(bad()) };
    let (&[year, month, date], &[hour, minute, ref rest @ ..]) = (&day[..], &time[..]) else { return Err(bad()) };
    let second = rest.first().copied().unwrap_or(0);
    let valid = (1970..=9999).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&date)
        && (0..24).contains(&hour)
        && (0..60).contains(&minute)
        && (0..60).contains(&second)
        && rest.len() <= 1;
    let days = super::super::days_from_civil(year, month, date).filter(|_| valid).ok_or_else(bad)?;
    Ok(Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset * 60))
}

/// The value of a `datetime-local` field for `seconds` (UTC; app.js shows it in the
/// browser's zone).
pub fn datetime_value(seconds: i64) -> String {
    let (year, month, day, rest) = super::super::civil(seconds);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}", rest / 3600, rest % 3600 / 60)
}

/// The hand-in window's fields of a form (`window`: as it is now, if it was ever set).
fn window_fields(window: Option<&WindowRow>) -> Markup {
    let (accepting, w) = window.map_or((true, HandInWindow::default()), |w| (w.accepting, w.window));
    html! {
        p { label { input type="checkbox" name="accepting" value="1" checked[accepting]; " Students may hand in now (through their private link, or from the LMS)" } }
        p {
            label { "Deadline " input type="datetime-local" name="deadline" data-utc value=(w.deadline.map(datetime_value).unwrap_or_default()); }
            input type="hidden" name="utc_offset" value="0";
            " " span.muted { "in your browser's time zone (UTC without JavaScript); empty for none" }
        }
        p { label { "A student may hand in again after " input type="number" name="minutes_between" min="1" max=(MAX_MINUTES_BETWEEN) value=(w.minutes_between) style="width:5em"; " minutes" }
            " " span.muted { "(each hand-in is built and run on the public tests at once)" } }
        fieldset {
            legend { "After the deadline, a hand-in is" }
            @for policy in [LatePolicy::Mark, LatePolicy::Refuse] {
                label { input type="radio" name="late" value=(policy.name()) checked[w.late == policy]; " " (policy.in_words()) } " "
            }
        }
        p { label { input type="checkbox" name="analyse" value="1" checked[w.analyse_at_deadline]; " Analyse the class at the deadline by itself (each student's last hand-in by the deadline)" } }
    }
}

/// The form that sets batch `batch`'s hand-in window.
pub fn window_form(who: &Instructor, batch: i64, window: Option<&WindowRow>) -> Markup {
    html! {
        form method="post" action={ "/batches/" (batch) "/hand-ins" } {
            (csrf_field(who))
            (window_fields(window))
            button type="submit" { "Save" }
        }
    }
}

/// The form that opens a new batch to students' hand-ins, with no file yet.
pub fn open_batch_form(who: &Instructor, problems: &[ProblemRow], courses: &[String]) -> Markup {
    html! {
        div.card #open-batch {
            h3 { "Open a batch for students to hand in" }
            p.muted { "Students hand in themselves, through their private link or from the LMS, each hand-in checked at once on the problem's public tests. You see who handed in on the batch's page." }
            form method="post" action="/batches/open" {
                (csrf_field(who))
                p { label { "Problem " select name="problem" required { @for p in problems { option value=(p.id) { (p.title) } } } } }
                p { label { "Batch name " input name="name" required placeholder="Assignment 1" maxlength=(MAX_NAME_CHARS); } }
                p { label { "Course " input name="course" required list="open-courses" maxlength=(MAX_NAME_CHARS) placeholder="CS 101, fall 2026"; }
                    datalist id="open-courses" { @for c in courses { option value=(c) {} } } }
                (window_fields(None))
                button type="submit" { "Open the batch" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, offset: &str, expected: Result<Option<i64>, &str>) {
        match (deadline_field(Some(text), Some(offset)), expected) {
            (Ok(got), Ok(expected)) => assert_eq!(got, expected, "{text} at {offset}"),
            (Err(AppError::BadRequest(why)), Err(words)) => assert!(why.contains(words), "{why}"),
            (got, expected) => panic!("{text}: {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn a_deadline_is_read_in_the_browsers_zone_to_the_second() {
        // 2026-12-18 23:59 UTC is 1_797_638_340.
        check("2026-12-18T23:59", "0", Ok(Some(1_797_638_340)));
        check("2026-12-18T23:59:30", "", Ok(Some(1_797_638_370)));
        // In Berlin (UTC+1 in December) the same wall time is an hour earlier.
        check("2026-12-18T23:59", "60", Ok(Some(1_797_638_340 - 3600)));
        check("2028-02-29 12:00", "-300", Ok(Some(1_835_438_400 + 300 * 60)));
        check("  ", "0", Ok(None));
        assert_eq!(datetime_value(1_797_638_340), "2026-12-18T23:59");
    }

    #[test]
    fn a_deadline_that_is_no_date_is_refused_by_name() {
        for (text, offset) in [
            ("2026-02-30T10:00", "0"),
            ("2026-13-01T10:00", "0"),
            ("tomorrow", "0"),
            ("2026-12-18T24:00", "0"),
            ("2026-12-18T23:59", "9999"),
            ("2026-12-18", "0"),
            ("2026-12-18T-5:-3", "0"),
        ] {
            check(text, offset, Err("the deadline must be a date and time such as"));
        }
    }
}
