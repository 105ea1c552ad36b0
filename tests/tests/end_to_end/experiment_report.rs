//! `bugrank report`: the paper's experiment table from its own scores, and a report from
//! fresh analyses.

use end_to_end::{grade, parse_args, problem_dir, root};
use web::cli::report::{ReportArgs, run_report, write_report};

fn report(argv: &[&str]) -> (tempfile::TempDir, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let mut full = vec!["report", "--cohorts", "quickcheck,hunit", "--out"];
    let out_path = out.path().display().to_string();
    full.push(&out_path);
    full.extend_from_slice(argv);
    let args: ReportArgs = parse_args(&full);
    write_report(&args.out, &run_report(&args).unwrap()).unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap()).unwrap();
    (out, json)
}

fn close(value: &serde_json::Value, expected: f64) -> bool {
    (value.as_f64().unwrap() - expected).abs() < 0.00005
}

#[test]
fn the_papers_figure_3_5_scores_give_the_papers_welch_table() {
    let scores = root().join("tests/data/paper-figure-3-5-scores.csv").display().to_string();
    let (out, json) = report(&["--scores", &scores]);
    let problems = json["problems"].as_array().unwrap();
    let names: Vec<&str> = problems.iter().map(|p| p["problem"].as_str().unwrap()).collect();
    assert_eq!(names, ["anon", "intset", "crypto"]);
    for (problem, paper_p) in problems.iter().zip([0.2390, 0.9846, 0.5065]) {
        assert!(close(&problem["welch"]["p_df_truncated"], paper_p), "{}", problem["welch"]);
    }
    assert!(close(&problems[0]["welch"]["p"], 0.2382));
    assert!((problems[0]["spearman"].as_f64().unwrap() - 0.779).abs() < 0.0005);
    assert_eq!(problems[1]["spearman"], serde_json::Value::Null, "no manual grades for intset");
    assert_eq!(problems[0]["cohorts"][0]["name"], "quickcheck");
    assert_eq!(problems[0]["cohorts"][0]["n"], 7);

    let summary = std::fs::read_to_string(out.path().join("summary.csv")).unwrap();
    assert!(summary.starts_with("problem,group,n,mean,sd,t,df,p,p_df_truncated,ci95_low,ci95_high,hedges_g,"));
    assert_eq!(summary.lines().count(), 1 + 3 * 3);
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3, "one plot per problem");
    assert!(html.contains("0.2390"));

    // A cohort against itself is refused with the reason.
    let args: ReportArgs = parse_args(&["report", "--cohorts", "hunit,hunit", "--scores", &scores]);
    let error = run_report(&args).unwrap_err().to_string();
    assert!(error.contains("names `hunit` twice"), "{error}");
}

#[test]
fn a_report_from_an_analysis_takes_cohorts_and_manual_grades_from_the_roster() {
    let run = grade(&[("--stable-after", "500")]);
    let dir = tempfile::tempdir().unwrap();
    let analysis = dir.path().join("analysis.json");
    std::fs::write(&analysis, &run.files["analysis.json"]).unwrap();
    let roster = problem_dir().join("roster.csv").display().to_string();
    let (_out, json) = report(&["--analysis", &analysis.display().to_string(), "--roster", &roster]);
    let problem = &json["problems"][0];
    assert_eq!(problem["problem"], "interval-sets");
    let n: u64 = problem["cohorts"].as_array().unwrap().iter().map(|c| c["n"].as_u64().unwrap()).sum();
    assert_eq!(n, problem["all"]["n"].as_u64().unwrap());
    assert!(problem["spearman"].is_number(), "the roster has manual grades");
    assert_eq!(problem["manual"].as_array().unwrap().len() as u64, n);
}
