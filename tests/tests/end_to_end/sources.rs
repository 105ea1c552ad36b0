//! A class hands in sources: each is built in the sandbox and graded as its module would
//! be; a compile error is a result (last place, the compiler's message), not a rejection.

use std::path::Path;

use end_to_end::{Written, can_build, grade_without_roster, parse_args, root, tools};
use toolchain::Language;
use web::cli::bugs::{BugsArgs, run_bugs};

fn anonymizer() -> std::path::PathBuf {
    root().join("fixtures/problems/anonymizer")
}

/// The anonymizer cohort as sources: its Rust and C files, one of them again as a
/// student's folder (`folder/main.c` with a header), and one that does not compile.
fn source_batch(dir: &Path) {
    sources_only(&anonymizer(), dir);
    std::fs::write(dir.join("broken.c"), "int main(void) { return 0 }\n").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    std::fs::copy(anonymizer().join("submissions/a09.c"), dir.join("folder/main.c")).unwrap();
    std::fs::write(dir.join("folder/unused.h"), "#define UNUSED 1\n").unwrap();
}

fn grade(submissions: &Path) -> Written {
    let (problem, submissions) = (anonymizer().display().to_string(), submissions.display().to_string());
    grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", "2000")])
}

fn row<'a>(run: &'a Written, id: &str) -> &'a grader::AnswerResult {
    run.graded.analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id} is graded"))
}

#[test]
fn a_class_of_sources_is_graded_as_its_modules_are_and_a_compile_error_ranks_last_with_its_message() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    source_batch(dir.path());
    let sources = grade(dir.path());
    let modules = grade(&anonymizer().join("submissions"));

    let inputs = |run: &Written| run.graded.analysis.suite.iter().map(|t| t.input.clone()).collect::<Vec<_>>();
    assert_eq!(inputs(&sources), inputs(&modules), "the same suite");
    for module in &modules.graded.analysis.answers {
        let source = row(&sources, &module.id);
        assert_eq!((source.passed, &source.failed), (module.passed, &module.failed), "{} as a source", module.id);
        assert!(module.build.is_none(), "a module has no build record");
    }
    assert_eq!(row(&sources, "folder").failed, row(&sources, "a09").failed, "a folder is a submission");
    let (a01, a09) = (row(&sources, "a01").build.as_ref().unwrap(), row(&sources, "a09").build.as_ref().unwrap());
    assert_eq!((a01.language.as_str(), a09.language.as_str()), ("Rust", "C"));
    assert!(a01.toolchain.starts_with("rustc ") && a09.toolchain.contains("clang"), "{} / {}", a01.toolchain, a09.toolchain);
    assert_eq!(a01.sources.len(), 64, "a SHA-256 of the sources");

    let broken = row(&sources, "broken");
    let ran = sources.graded.analysis.answers.len() - 1;
    assert_eq!((broken.passed, broken.percent, broken.rank), (0, 0.0, ran + 1), "below every answer that ran");
    assert_eq!(broken.failed.len(), sources.graded.analysis.scored_tests());
    let error = broken.build.as_ref().unwrap().error.as_deref().unwrap();
    assert!(error.contains("broken.c:1:") && error.contains("expected ';'"), "{error}");
    assert!(!error.contains("/src/") && !error.contains("/tmp/"), "no path of the build sandbox: {error}");
    assert!(sources.graded.rejected.is_empty(), "nothing rejected: {:?}", sources.graded.rejected);

    let scores = &sources.files["scores.csv"];
    assert!(scores.lines().next().unwrap().ends_with(",language,compiled"), "{scores}");
    assert!(scores.lines().any(|l| l.starts_with("broken,") && l.ends_with(",C,no")), "{scores}");
    assert!(scores.lines().any(|l| l.starts_with("a01,") && l.ends_with(",Rust,yes")), "{scores}");

    // Graded again against its own suite, nothing changed: no grade change is reported,
    // not even for the hand-in that did not compile (then and now).
    let previous = dir.path().join("previous.json");
    std::fs::write(&previous, &sources.files["analysis.json"]).unwrap();
    let (problem, batch) = (anonymizer().display().to_string(), dir.path().display().to_string());
    let again = grade_without_roster(&[
        ("--problem", &problem),
        ("--submissions", &batch),
        ("--stable-after", "2000"),
        ("--suite-from", &previous.display().to_string()),
    ]);
    let rerun = again.graded.analysis.rerun.as_ref().unwrap();
    assert_eq!((rerun.changed.len(), rerun.grade_changes.len()), (0, 0), "{rerun:?}");
    assert_eq!(row(&again, "broken").rank, broken.rank);

    // The student's bug list is the compiler's message.
    let analysis = dir.path().join("analysis.json");
    std::fs::write(&analysis, &sources.files["analysis.json"]).unwrap();
    let argv = [
        "bugs",
        "--problem",
        &anonymizer().display().to_string(),
        "--submissions",
        &dir.path().display().to_string(),
        "--analysis",
        &analysis.display().to_string(),
        "--answer",
        "broken",
    ];
    let lists = run_bugs(tools(), &parse_args::<BugsArgs, _>(&argv)).unwrap();
    let markdown = present::bug_list_markdown(&lists[0]);
    assert!(markdown.contains("did not compile, and so fails all") && markdown.contains("```text\nbroken.c:1:"), "{markdown}");
}

/// A copy of a fixture cohort's source files, without its modules.
fn sources_only(problem: &Path, dir: &Path) {
    for entry in std::fs::read_dir(problem.join("submissions")).unwrap() {
        let path = entry.unwrap().path();
        if Language::of_file(&path.display().to_string()).is_some() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// Issue 15's proof: built with the fixed flags of `toolchain::Language::flags`, each
/// cohort's sources are graded exactly as the committed modules are (the modules were built
/// by fixtures/build.sh with the same optimisation, on the toolchain it records). The
/// anonymizer is checked above; cryptarithm is the one whose slow answers sit near their
/// time budget, so a build optimised differently would move its suite.
#[test]
fn the_interval_sets_and_cryptarithm_cohorts_graded_from_their_sources_give_the_suite_scores_and_order_of_their_modules() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    for (name, stable_after) in [("interval-sets", "500"), ("cryptarithm", "1000")] {
        let problem = root().join("fixtures/problems").join(name);
        let dir = tempfile::tempdir().unwrap();
        sources_only(&problem, dir.path());
        let grade = |submissions: &Path| {
            let (problem, submissions) = (problem.display().to_string(), submissions.display().to_string());
            grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--stable-after", stable_after)])
        };
        let (sources, modules) = (grade(dir.path()), grade(&problem.join("submissions")));
        let suite = |run: &Written| run.graded.analysis.suite.iter().map(|t| (t.input.clone(), t.failing.clone())).collect::<Vec<_>>();
        assert_eq!(suite(&sources), suite(&modules), "{name}: the same suite");
        let scores = |run: &Written| run.graded.analysis.answers.iter().map(|a| (a.id.clone(), a.passed, a.failed.clone(), a.rank)).collect::<Vec<_>>();
        assert_eq!(scores(&sources), scores(&modules), "{name}: the same scores");
        assert_eq!(sources.files["order.dot"], modules.files["order.dot"], "{name}: the same order");
        assert!(sources.graded.analysis.answers.iter().all(|a| a.build.as_ref().is_some_and(|b| b.error.is_none())));
    }
}
