//! Function-level assignments on the fixtures: the LRU cache's cohort (C and Rust hand-ins
//! of functions, called by the problem's harnesses), and interval sets as a C API graded
//! as the program-level cohort with the same bugs is.
//!
//! Both problems hold harnesses and no module of their reference or hand-ins: bugrank builds each with the harness
//! when it loads them, and `fixtures/build.sh` builds only their generators. `fixtures/problems/lru-cache` has
//! harnesses in C and Rust, 13 hand-ins, and is demo data; `fixtures/problems/interval-sets-api` is the paper's
//! problem as a C API, its generator a link to interval sets', the C cohort's bugs as function files.

use std::path::{Path, PathBuf};

use end_to_end::{can_build, grade, root, verdicts};
use toolchain::Language;

fn problem(name: &str) -> PathBuf {
    root().join("fixtures/problems").join(name)
}

/// `bugrank grade` of `dir`'s cohort and roster with seed 1 and `options`.
fn graded(dir: &Path, options: &[(&str, &str)]) -> grader::Analysis {
    let (problem, submissions, roster) =
        (dir.display().to_string(), dir.join("submissions").display().to_string(), dir.join("roster.csv").display().to_string());
    let mut all = vec![("--problem", problem.as_str()), ("--submissions", submissions.as_str()), ("--roster", roster.as_str()), ("--seed", "1")];
    all.extend_from_slice(options);
    grade(&all).graded.analysis
}

#[test]
fn the_lru_cohort_fails_where_its_bugs_are_and_nowhere_else() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    let dir = problem("lru-cache");
    let analysis = graded(&dir, &[("--stable-after", "2000")]);
    let mut hand_ins: Vec<PathBuf> = std::fs::read_dir(dir.join("submissions")).unwrap().map(|e| e.unwrap().path()).collect();
    hand_ins.sort();
    assert!(hand_ins.len() >= 10, "a cohort of about 12: {hand_ins:?}");
    for path in hand_ins {
        let id = path.file_stem().unwrap().to_string_lossy().into_owned();
        let header: String = std::fs::read_to_string(&path).unwrap().lines().take(3).collect::<Vec<_>>().join("\n");
        let answer = analysis.answers.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("{id} is graded"));
        assert!(answer.build.as_ref().is_some_and(|b| b.error.is_none()), "{id} builds with its harness: {:?}", answer.build);
        let correct = header.to_lowercase().contains("correct") && !header.contains("BUG");
        assert_eq!(answer.failed.is_empty(), correct, "{id} ({header}) failed {:?}", answer.failed);
        // A bug found is never worth full points, even one the grading sample misses (a
        // hit that does not refresh recency: a02, a09, a13).
        let points = answer.points.as_ref().unwrap();
        assert_eq!(points.points == points.max, correct, "{id} ({header}) has {} of {} points", points.points, points.max);
    }
    // Every failing sequence is shrunk to a few calls.
    for test in &analysis.suite {
        assert!(test.input.lines().count() <= 12, "{} is not shrunk: {:?}", test.id, test.input);
    }
}

#[test]
fn the_lru_grading_sample_draws_command_sequences_up_to_the_generators_forty() {
    use grader::{ChoiceSource, Executor, GRADING_SAMPLE_INPUTS, GRADING_SEED};
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    // The generator's `Many::new(40)`: the sample draws every size up to the largest, where
    // a plain collection may reach its maximum (it stopped at 26 commands before), so that
    // the evictions after hits of long sequences are in it, as in the search.
    let tools = end_to_end::tools();
    let dir = course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, &problem("lru-cache")).unwrap();
    let executor = dir.executor(&tools.sandbox, []);
    let commands: Vec<usize> = (0..GRADING_SAMPLE_INPUTS)
        .map(|index| executor.generate(ChoiceSource::for_random_test(GRADING_SEED, index)).0.unwrap())
        .map(|input| String::from_utf8(input).unwrap().lines().count() - 1)
        .collect();
    let (longest, past_26) = (commands.iter().max().unwrap(), commands.iter().filter(|n| **n > 26).count());
    assert!((30..=40).contains(longest) && past_26 >= 5, "the longest {longest}; {past_26} longer than 26");
}

#[test]
fn interval_sets_as_a_c_api_are_graded_to_the_same_suite_ranking_and_points_as_the_program_cohort() {
    if !can_build(&[Language::C]) {
        return;
    }
    let (api, programs) =
        (graded(&problem("interval-sets-api"), &[("--stable-after", "500")]), graded(&problem("interval-sets"), &[("--stable-after", "500")]));
    assert!(api.answers.iter().all(|a| a.build.as_ref().is_some_and(|b| b.language == "C" && b.error.is_none())), "every hand-in builds with the harness");
    assert!(programs.suite.len() >= 10, "a suite worth comparing: {}", programs.suite.len());
    assert_eq!(verdicts(&api), verdicts(&programs));
    assert_eq!(api.order.classes, programs.order.classes, "the same partial order");
}

#[test]
fn a_bug_that_needs_eleven_pushes_shrinks_to_eleven_pushes_after_the_init() {
    if !can_build(&[Language::C]) {
        return;
    }
    // The bounded stack of `new-problem --functions`, its capacities up to 20, and a
    // hand-in that refuses an eleventh value whatever the capacity.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("stack");
    web::cli::new_problem::new_problem(&dir, "stack", web::cli::new_problem::AuthorLanguage::C, true).unwrap();
    let generator = std::fs::read_to_string(dir.join("generator.c")).unwrap().replace("1 + bg_choice(4)", "1 + bg_choice(19)");
    std::fs::write(dir.join("generator.c"), generator).unwrap();
    let reference = std::fs::read_to_string(dir.join("reference.c")).unwrap();
    std::fs::write(dir.join("submissions/buggy.c"), reference.replace("if (count == capacity) return 0;", "if (count == capacity || count == 10) return 0;"))
        .unwrap();
    let (problem, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let analysis = end_to_end::grade_without_roster(&[("--problem", &problem), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "2000")])
        .graded
        .analysis;
    let suite: Vec<&str> = analysis.suite.iter().map(|t| t.input.as_str()).collect();
    assert_eq!(suite, [format!("init 11\n{}", "push 0\n".repeat(11))], "the smallest capacity and the fewest calls that show it");
}

#[test]
fn what_a_bug_list_says_any_value_may_stand_for_fails_for_every_small_value() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    use grader::Executor;
    let dir = problem("lru-cache");
    let root = tempfile::tempdir().unwrap();
    let analysis = root.path().join("analysis.json");
    let (problem_arg, submissions) = (dir.display().to_string(), dir.join("submissions").display().to_string());
    let run = end_to_end::grade_without_roster(&[("--problem", &problem_arg), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "2000")]);
    std::fs::write(&analysis, &run.files["analysis.json"]).unwrap();
    let argv = ["bugs", "--problem", &problem_arg, "--submissions", &submissions, "--analysis", &analysis.display().to_string()];
    let lists = web::cli::bugs::run_bugs(end_to_end::tools(), &end_to_end::parse_args::<web::cli::bugs::BugsArgs, _>(&argv)).unwrap();
    let problem_dir = course::problem_dir::ProblemDir::load(end_to_end::sandbox(), &end_to_end::tools().builder, &dir).unwrap();
    let batch = course::batch::Batch::load(end_to_end::sandbox(), &end_to_end::tools().builder, &problem_dir, &dir.join("submissions")).unwrap();
    let mut claims = 0;
    for list in &lists {
        let program = &batch.submissions.iter().find(|s| s.id == list.answer).unwrap().program;
        let executor = problem_dir.executor(end_to_end::sandbox(), [program]);
        for bug in &list.bugs {
            let Some(general) = &bug.generalized else { continue };
            claims += 1;
            for value in 0..=9 {
                let input = general.replace(grader::ANY, &value.to_string());
                let expected = executor.run(0, input.as_bytes(), 1_000_000_000).stdout;
                let got = executor.run(1, input.as_bytes(), 1_000_000_000);
                assert!(
                    got.stdout != expected || got.outcome != grader::RunOutcome::Success,
                    "{}: {general:?} is said to fail whatever stands at {}, but passes {input:?}",
                    list.answer,
                    grader::ANY
                );
            }
        }
    }
    assert!(claims > 0, "some bug lists generalize");
}
