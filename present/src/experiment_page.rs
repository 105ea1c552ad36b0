//! The experiment report drawn: the cohorts' plot and the tables of Paper III's section
//! 4 (the numbers are [`grader::compare`]'s).

use std::fmt::Write;

use grader::ProblemReport;
use plotters::prelude::*;

use crate::html::{escape_html as escape, page_head};

fn number(value: Option<f64>, decimals: usize) -> String {
    value.filter(|v| v.is_finite()).map_or_else(|| "–".to_owned(), |v| format!("{v:.decimals$}"))
}

/// A dot plot of both cohorts' scores: one column per cohort, one dot per answer (equal
/// scores side by side), and the cohort mean as a bar.
pub fn cohort_plot_svg(report: &ProblemReport) -> String {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (420, 300)).into_drawing_area();
        draw_cohorts(&area, report).expect("drawing into a string cannot fail");
    }
    svg
}

fn draw_cohorts<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, report: &ProblemReport) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let top = report.scores.iter().map(|r| r.score).fold(1.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{}: scores by cohort", report.problem), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .build_cartesian_2d(-0.5f64..1.5f64, 0f64..top * 1.08)?;
    let names: Vec<String> = report.cohorts.iter().map(|c| c.name.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2)
        .x_label_formatter(&|x| names.get(x.round() as usize).filter(|_| (x - x.round()).abs() < 0.01).cloned().unwrap_or_default())
        .y_desc("score (tests passed)")
        .draw()?;
    let colours = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
    for (column, cohort) in report.cohorts.iter().enumerate() {
        let mut scores: Vec<f64> = report.scores.iter().filter(|r| r.cohort == cohort.name).map(|r| r.score).collect();
        scores.sort_by(f64::total_cmp);
        let dots = scores.chunk_by(|a, b| a == b).flat_map(|same| {
            let n = same.len() as f64;
            same.iter().enumerate().map(move |(i, &s)| (column as f64 + (i as f64 - (n - 1.0) / 2.0) * 0.07, s))
        });
        chart.draw_series(dots.map(|p| Circle::new(p, 5, colours[column].filled())))?;
        if cohort.n > 0 {
            let x = column as f64;
            chart.draw_series(std::iter::once(PathElement::new(vec![(x - 0.3, cohort.mean), (x + 0.3, cohort.mean)], colours[column].stroke_width(2))))?;
        }
    }
    area.present()
}

/// The whole report as one self-contained HTML page.
pub fn experiment_html(reports: &[ProblemReport]) -> String {
    let mut html = page_head("bugrank experiment report");
    html.push_str("<h1>Experiment report</h1>\n");
    html.push_str(&experiment_section(reports));
    html.push_str("</body></html>\n");
    html
}

/// The tables, plots and correlations of an experiment, without the page around them.
pub fn experiment_section(reports: &[ProblemReport]) -> String {
    let mut html = String::new();
    if let Some(first) = reports.first() {
        let names: Vec<String> = first.cohorts.iter().map(|c| escape(&c.name)).collect();
        writeln!(
            html,
            "<p class=\"note\">Cohorts compared: <b>{}</b> against <b>{}</b>; differences are the first minus the second. \
             Welch's t-test does not assume equal variances; the paper's tool truncated the degrees of freedom to a \
             whole number, so both p-values are given. Mann–Whitney's U is a check that does not assume normal scores.</p>",
            names[0], names[1]
        )
        .unwrap();
    }
    html.push_str("<table><caption>Scores (mean (sd)) and Welch's t-test</caption><tr><th></th>");
    for r in reports {
        write!(html, "<th>{}</th>", escape(&r.problem)).unwrap();
    }
    html.push_str("</tr>\n");
    let row = |html: &mut String, label: String, cell: &dyn Fn(&ProblemReport) -> String| {
        write!(html, "<tr><td>{label}</td>").unwrap();
        reports.iter().for_each(|r| write!(html, "<td>{}</td>", cell(r)).unwrap());
        html.push_str("</tr>\n");
    };
    let mean_sd = |n: usize, mean: f64, sd: f64| format!("{} ({}) n={n}", number(Some(mean), 2), number(Some(sd), 2));
    row(&mut html, "All".into(), &|r| mean_sd(r.all.n, r.all.mean, r.all.sd));
    for c in 0..reports.first().map_or(0, |r| r.cohorts.len()) {
        let name = escape(&reports[0].cohorts[c].name);
        row(&mut html, name, &|r| mean_sd(r.cohorts[c].n, r.cohorts[c].mean, r.cohorts[c].sd));
    }
    row(&mut html, "t (Welch df)".into(), &|r| r.welch.map_or("–".into(), |w| format!("{} ({})", number(Some(w.t), 4), number(Some(w.df), 2))));
    row(&mut html, "p".into(), &|r| number(r.welch.map(|w| w.p), 4));
    row(&mut html, "p, df truncated (as the paper)".into(), &|r| number(r.welch.map(|w| w.p_df_truncated), 4));
    row(&mut html, "95% CI of the difference".into(), &|r| {
        r.mean_diff_ci95.map_or("–".into(), |[lo, hi]| format!("[{}, {}]", number(Some(lo), 2), number(Some(hi), 2)))
    });
    row(&mut html, "Hedges' g".into(), &|r| number(r.hedges_g, 2));
    row(&mut html, "Mann–Whitney U (p)".into(), &|r| r.mann_whitney.map_or("–".into(), |m| format!("{} ({})", number(Some(m.u), 1), number(Some(m.p), 4))));
    row(&mut html, "Spearman's ρ, auto vs manual".into(), &|r| number(r.spearman, 3));
    row(&mut html, "Kendall's τ-b, auto vs manual".into(), &|r| number(r.kendall, 3));
    html.push_str("</table>\n");
    for r in reports {
        writeln!(html, "<h2>{}</h2>\n{}", escape(&r.problem), cohort_plot_svg(r)).unwrap();
        if !r.manual.is_empty() {
            html.push_str("<table><caption>Automatic against manual grades</caption><tr><th>answer</th><th>auto</th><th>manual</th><th>auto rank</th><th>manual rank</th></tr>\n");
            for m in &r.manual {
                writeln!(html, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", escape(&m.id), m.auto, m.manual, m.auto_rank, m.manual_rank)
                    .unwrap();
            }
            html.push_str("</table>\n");
        }
    }
    html
}
