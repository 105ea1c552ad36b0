//! The experiment report over analyses: two cohorts compared per problem (Welch's t-test
//! and the rest), as a page and as files.

use actix_web::{HttpRequest, HttpResponse, web};
use grader::{ProblemReport, compare};
use maud::{PreEscaped, html};
use serde::{Deserialize, Serialize};

use super::super::auth::Instructor;
use super::super::db::BatchRow;
use super::super::{App, AppError, Page};
use course::outputs::{main_cohorts, score_rows};
use course::roster::RosterRow;

use super::{AppData, respond};
#[derive(Deserialize)]
pub(super) struct ExperimentQuery {
    /// Comma-separated batch ids.
    batches: Option<String>,
    first: Option<String>,
    second: Option<String>,
}

#[derive(Serialize)]
struct ExperimentView {
    /// Batches with a finished analysis, to choose from.
    choices: Vec<BatchRow>,
    chosen: Vec<i64>,
    cohorts: Vec<String>,
    first: Option<String>,
    second: Option<String>,
    reports: Vec<ProblemReport>,
    /// Why no report could be made, when one was asked for.
    problem: Option<String>,
}

/// The experiment report the query asks for: each chosen batch's latest finished analysis,
/// two cohorts compared (by default the first batch's two largest).
fn experiment_view(app: &App, query: &ExperimentQuery) -> Result<ExperimentView, AppError> {
    let mut choices = Vec::new();
    let mut scored = Vec::new();
    let (latest, rosters) = (app.db.latest_analyses()?, app.db.rosters()?);
    for batch in app.db.batches()? {
        if let Some(done) = latest.get(&batch.id).and_then(|(_, done)| *done) {
            let analysis = app.analysis(done)?;
            let roster: Vec<RosterRow> = rosters.iter().filter(|(_, of, _)| *of == batch.id).map(|(_, _, row)| row.clone()).collect();
            // Each column names its batch: two batches of one problem must not look alike.
            let label = format!("{} (#{}, {})", batch.name, batch.id, analysis.problem);
            scored.push((batch.id, label, score_rows(&analysis, &roster)));
            choices.push(batch);
        }
    }
    let chosen: Vec<i64> = match &query.batches {
        Some(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        None => choices.iter().map(|b| b.id).collect(),
    };
    let rows: Vec<_> = scored.iter().filter(|(id, _, _)| chosen.contains(id)).collect();
    let mut cohorts: Vec<String> = rows.iter().flat_map(|(_, _, r)| r.iter().map(|r| r.cohort.clone())).collect();
    cohorts.sort();
    cohorts.dedup();
    let defaults = rows.first().and_then(|(_, _, r)| main_cohorts(r));
    let first = query.first.clone().or_else(|| defaults.as_ref().map(|d| d.0.clone()));
    let second = query.second.clone().or_else(|| defaults.as_ref().map(|d| d.1.clone()));
    let mut reports = Vec::new();
    let mut problem = None;
    match (&first, &second) {
        (Some(first), Some(second)) if first == second => {
            problem = Some(format!("choose two different cohorts: `{first}` against itself says nothing"));
        }
        (Some(first), Some(second)) => {
            for (_, name, rows) in &rows {
                let report = compare(name, rows, first, second);
                if let Some(empty) = report.cohorts.iter().find(|c| c.n == 0) {
                    problem = Some(format!("{name}: no answer in cohort `{}`", empty.name));
                } else {
                    reports.push(report);
                }
            }
        }
        _ if !rows.is_empty() => problem = Some("choose two cohorts to compare".to_owned()),
        _ => {}
    }
    Ok(ExperimentView { choices, chosen, cohorts, first, second, reports, problem })
}

/// The query string of `view`'s report, for its download links.
fn experiment_query(v: &ExperimentView) -> String {
    let batches = v.chosen.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",");
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("batches", &batches);
    for (key, value) in [("first", &v.first), ("second", &v.second)] {
        if let Some(value) = value {
            query.append_pair(key, value);
        }
    }
    query.finish()
}

pub(super) async fn experiment_page(app: AppData, req: HttpRequest, who: Instructor, query: web::Query<ExperimentQuery>) -> Page {
    let view = experiment_view(&app, &query)?;
    respond(&req, Some(&who), "Experiment report", &view, |v| {
        html! {
            form method="get" action="/experiment" #experiment {
                p { "Batches (each batch's latest finished analysis): " }
                @for b in &v.choices {
                    label { input type="checkbox" class="batch" value=(b.id) checked[v.chosen.contains(&b.id)]; " " (b.name) " (#" (b.id) ", " (b.course) ")" }
                }
                input type="hidden" name="batches" value=(v.chosen.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(","));
                p {
                    label { "Compare " select name="first" { @for c in &v.cohorts { option selected[v.first.as_ref() == Some(c)] { (c) } } } }
                    label { "with " select name="second" { @for c in &v.cohorts { option selected[v.second.as_ref() == Some(c)] { (c) } } } }
                    button type="submit" { "Compare" }
                }
            }
            @if let Some(problem) = &v.problem { p.bad role="alert" { (problem) } }
            @if !v.reports.is_empty() {
                @let query = experiment_query(v);
                p { "Download: "
                    a href={ "/experiment/report.html?" (query) } { "this report (HTML, self-contained)" } " · "
                    a href={ "/experiment/summary.csv?" (query) } { "its statistics (CSV)" } " · "
                    a href={ "/experiment/manual.csv?" (query) } { "automatic against manual grades (CSV)" } }
                (PreEscaped(present::experiment_section(&v.reports)))
            }
        }
    })
}

/// The experiment report's downloads: the page on its own, and its tables as CSV (the same
/// files `bugrank report` writes).
pub(super) async fn experiment_file(app: AppData, _who: Instructor, path: web::Path<String>, query: web::Query<ExperimentQuery>) -> Page {
    let file = path.into_inner();
    let view = experiment_view(&app, &query)?;
    if let Some(problem) = view.problem.filter(|_| view.reports.is_empty()) {
        return Err(AppError::BadRequest(problem));
    }
    let Some((_, body)) = course::outputs::experiment_files(&view.reports)?.into_iter().find(|(name, _)| *name == file) else {
        return Err(AppError::NotFound);
    };
    let content_type = match file.rsplit('.').next() {
        Some("html") => "text/html",
        Some("csv") => "text/csv",
        _ => "application/json",
    };
    Ok(HttpResponse::Ok()
        .content_type(format!("{content_type}; charset=utf-8"))
        .insert_header(("Content-Disposition", format!("attachment; filename=\"experiment-{file}\"")))
        .body(body))
}
