//! Slices of the function-level Python classes `fixtures/cohorts/search` and
//! `fixtures/cohorts/dedup` (first-year hand-ins, each one's bugs written down in
//! `bugs.csv`), and of the search class translated to C (`fixtures/cohorts/search-c`),
//! graded as bugrank grades them: what it infers must agree with the bugs the hand-ins
//! were written with, and copies of one another fail the same tests.
//!
//! `search` and `dedup` are 167 and 159 hand-ins, their harness, reference and generator in Python; `search-c` is the
//! search hand-ins translated to C one by one, with the same generator (the class bench's `--functions-c`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use end_to_end::{grade_without_roster, root};
use grader::AnswerResult;

/// A hand-in's row of `bugs.csv`.
struct Written {
    bugs: String,
    /// Whether a bug changes the judged output (a wrong answer, a crash, a timeout, a build
    /// refusal); a style rule broken (`uses_sorted`) does not.
    output_bug: bool,
    copy_of: Option<String>,
}

fn cohort(name: &str) -> PathBuf {
    root().join("fixtures/cohorts").join(name)
}

fn written(name: &str) -> BTreeMap<String, Written> {
    let mut reader = csv::Reader::from_path(cohort(name).join("bugs.csv")).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            let written = Written { bugs: record[1].to_owned(), output_bug: &record[2] == "1", copy_of: Some(record[3].to_owned()).filter(|c| !c.is_empty()) };
            (record[0].to_owned(), written)
        })
        .collect()
}

/// Grades `ids` of the cohort `name` (seed 1): each answer's result by id.
fn graded(name: &str, ids: &[&str]) -> BTreeMap<String, AnswerResult> {
    let dir = tempfile::tempdir().unwrap();
    let extension = if name.ends_with("-c") { "c" } else { "py" };
    for id in ids {
        std::fs::copy(cohort(name).join("submissions").join(format!("{id}.{extension}")), dir.path().join(format!("{id}.{extension}"))).unwrap();
    }
    let (problem, submissions) = (cohort(name).display().to_string(), dir.path().display().to_string());
    let options = [("--problem", problem.as_str()), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "500")];
    grade_without_roster(&options).graded.analysis.answers.into_iter().map(|a| (a.id.clone(), a)).collect()
}

/// Every 12th hand-in, and every copy among them with its original: correct ones written
/// differently, style rules broken, most kinds of bug, build refusals.
fn check(name: &str) {
    let written = written(name);
    let mut ids: Vec<&str> = written.keys().map(String::as_str).step_by(12).collect();
    let copies: Vec<(&str, &str)> = written.iter().filter_map(|(id, w)| Some((id.as_str(), w.copy_of.as_deref()?))).take(3).collect();
    for (copy, original) in &copies {
        ids.extend([*copy, *original]);
    }
    ids.sort();
    ids.dedup();
    let graded = graded(name, &ids);
    for id in &ids {
        let (w, result) = (&written[*id], &graded[*id]);
        let not_built = result.build.as_ref().is_some_and(|b| b.error.is_some());
        let points = result.points.as_ref().expect("points");
        if w.output_bug {
            assert!(!result.failed.is_empty() || not_built, "{name}/{id} has {}, yet fails no test", w.bugs);
            assert!(points.points < points.max, "{name}/{id} has {}, yet has full points", w.bugs);
        } else {
            assert!(
                !not_built && result.failed.is_empty(),
                "{name}/{id} is right by its output ({}), yet fails {:?} {:?}",
                w.bugs,
                result.failed,
                result.build
            );
        }
        // A rule of the assignment broken costs all the points, whatever the output; a
        // hand-in right by its output and breaking none has them all.
        let breaks = result.build.as_ref().is_some_and(|b| !b.rules_broken.is_empty());
        assert_eq!(breaks, breaks_a_rule(w) && !not_built, "{name}/{id} ({}): {:?}", w.bugs, result.build);
        if breaks {
            assert_eq!((points.points, points.broken_rule.is_some()), (0.0, true), "{name}/{id}: {points:?}");
        } else if !w.output_bug {
            assert_eq!(points.points, points.max, "{name}/{id} is right by its output: full points");
        }
    }
    for (copy, original) in copies {
        assert_eq!(graded[copy].failed, graded[original].failed, "{name}: {copy} is a copy of {original}");
    }
}

/// Whether a hand-in was written with a construct its assignment forbids (the search
/// class's statement forbids sort, sorted and bisect, the C class's qsort and bsearch;
/// `problem.toml` says so).
fn breaks_a_rule(written: &Written) -> bool {
    written.bugs.split(';').any(|bug| bug == "uses_sorted" || bug == "uses_bisect")
}

/// Checks every hand-in of the cohort `name` against its rules: exactly those written with
/// a forbidden construct (`bugs.csv`) break one, each at the line that uses it, as
/// written; `lines` are (hand-in, a line that must be among its broken rules', a word of
/// that line's code).
fn rules_found_in_exactly_the_hand_ins_written_against_them(name: &str, lines: &[(&str, u32, &str)]) {
    let dir = cohort(name);
    let toml = course::problem_dir::ProblemToml::read(&dir).unwrap();
    let accepted = course::problem_dir::accepted(&dir, &toml).unwrap();
    let tools = end_to_end::tools();
    let (mut found, mut all) = (0, Vec::new());
    for (id, w) in written(name) {
        let language = if name.ends_with("-c") { toolchain::Language::C } else { toolchain::Language::Python };
        let file = format!("{id}.{}", language.extension());
        let source = toolchain::Source { language, files: vec![(file.clone(), std::fs::read(dir.join("submissions").join(&file)).unwrap())] };
        let loaded = course::load::build(&tools.sandbox, &tools.builder, &accepted, &file, &source, None).unwrap();
        let broken = match &loaded {
            course::hand_in::Loaded::Program(_, build) => build.as_ref().map(|b| b.rules_broken.clone()).unwrap_or_default(),
            course::hand_in::Loaded::NotBuilt(build) => build.rules_broken.clone(),
        };
        // (A hand-in refused at its build is not checked: it never ran.)
        if matches!(loaded, course::hand_in::Loaded::Program(..)) {
            assert_eq!(!broken.is_empty(), breaks_a_rule(&w), "{name}/{id} ({}): {broken:?}", w.bugs);
        }
        found += usize::from(!broken.is_empty());
        for rule in &broken {
            let text = std::fs::read_to_string(dir.join("submissions").join(&file)).unwrap();
            assert_eq!(text.lines().nth(rule.line as usize - 1).unwrap().trim(), rule.code, "{name}/{id}: the line as written");
        }
        all.extend(broken.into_iter().map(|b| (id.clone(), b.line, b.code)));
    }
    assert!(found >= 8, "{found} hand-ins break a rule: {all:?}");
    for (id, line, word) in lines {
        assert!(all.iter().any(|(i, l, code)| i == id && l == line && code.contains(word)), "{name}/{id} line {line} ({word}) in {all:?}");
    }
}

#[test]
fn the_search_classs_forbidden_sort_sorted_and_bisect_are_found_in_exactly_the_hand_ins_written_with_them() {
    rules_found_in_exactly_the_hand_ins_written_against_them("search", &[("s078", 1, "bisect"), ("s018", 3, "sort")]);
}

#[test]
fn the_c_search_classs_forbidden_qsort_and_bsearch_are_found_in_exactly_the_hand_ins_written_with_them() {
    if !end_to_end::can_build(&[toolchain::Language::C]) {
        return;
    }
    // Found by the functions each hand-in's compiled code calls, not by its text: s148's
    // own function `bisect_left` is its own.
    rules_found_in_exactly_the_hand_ins_written_against_them("search-c", &[("s018", 12, "qsort"), ("s078", 12, "bsearch")]);
}

#[test]
fn a_model_answer_that_breaks_the_rule_it_sets_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["problem.toml", "statement.md", "generator.py", "harness.py"] {
        std::fs::copy(cohort("search").join(file), dir.path().join(file)).unwrap();
    }
    let reference = "def search(x, seq):\n    ordered = sorted(seq)\n    return ordered.index(x) if x in ordered else -1\n";
    std::fs::write(dir.path().join("reference.py"), reference).unwrap();
    let tools = end_to_end::tools();
    let error = course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, dir.path()).err().expect("refused").to_string();
    assert!(error.contains("the model answer breaks the rule it sets") && error.contains("uses `sorted` (line 2): `ordered = sorted(seq)`"), "{error}");
    // Obeyed, it loads.
    std::fs::copy(cohort("search").join("reference.py"), dir.path().join("reference.py")).unwrap();
    assert!(course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, dir.path()).is_ok());
}

#[test]
fn a_c_model_answer_that_breaks_the_rule_it_sets_is_refused_with_its_line() {
    if !end_to_end::can_build(&[toolchain::Language::C]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in ["problem.toml", "statement.md", "generator.py", "harness.c", "interface.h"] {
        std::fs::copy(cohort("search-c").join(file), dir.path().join(file)).unwrap();
    }
    let reference = "#include <stdlib.h>\n#include \"interface.h\"\n\nstatic int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\nint search(int x, const int *seq, int n) {\n    const int *found = bsearch(&x, seq, n, sizeof *seq, cmp);\n    return found ? (int)(found - seq) : -1;\n}\n";
    std::fs::write(dir.path().join("reference.c"), reference).unwrap();
    let tools = end_to_end::tools();
    let error = course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, dir.path()).err().expect("refused").to_string();
    assert!(
        error.contains("([rules.c] in problem.toml)") && error.contains("uses `bsearch` (line 7): `const int *found = bsearch(&x, seq, n, sizeof *seq, cmp);`"),
        "{error}"
    );
    // Obeyed, it loads.
    std::fs::copy(cohort("search-c").join("reference.c"), dir.path().join("reference.c")).unwrap();
    assert!(course::problem_dir::ProblemDir::load(&tools.sandbox, &tools.builder, dir.path()).is_ok());
}

#[test]
fn a_slice_of_a_python_class_searching_a_sorted_sequence_is_graded_as_its_bugs_say() {
    check("search");
}

#[test]
fn a_slice_of_a_python_class_removing_duplicates_is_graded_as_its_bugs_say() {
    check("dedup");
}

#[test]
fn a_slice_of_the_search_class_translated_to_c_is_graded_as_its_bugs_say() {
    if !end_to_end::can_build(&[toolchain::Language::C]) {
        return;
    }
    check("search-c");
}

#[test]
fn a_resubmission_that_differs_only_in_comments_runs_as_the_first_and_keeps_its_own_messages() {
    // s010 is s006 with its comments taken out (bugs.csv): the same code, other lines.
    let grade = |ids: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        for id in ids {
            std::fs::copy(cohort("search").join("submissions").join(format!("{id}.py")), dir.path().join(format!("{id}.py"))).unwrap();
        }
        let (problem, submissions) = (cohort("search").display().to_string(), dir.path().display().to_string());
        grade_without_roster(&[("--problem", problem.as_str()), ("--submissions", &submissions), ("--seed", "1"), ("--stable-after", "200")]).graded
    };
    let (alone, both) = (grade(&["s006"]), grade(&["s006", "s010"]));
    assert_eq!(both.copies, 1);
    assert_eq!(both.analysis.executions, alone.analysis.executions, "the copy adds no run to the search");
    assert_eq!(both.analysis.suite.len(), alone.analysis.suite.len());
    let row = |id: &str| both.analysis.answers.iter().find(|a| a.id == id).unwrap().clone();
    let (original, copy) = (row("s006"), row("s010"));
    assert!(!original.failed.is_empty());
    assert_eq!((&copy.failed, &copy.outcomes, &copy.points), (&original.failed, &original.outcomes, &original.points));
    // Its crashes are told by its own program: its file, its lines, never the other's.
    let messages = |row: &AnswerResult| row.failures.values().filter_map(|f| f.failure.reason.clone()).collect::<Vec<_>>().join("\n");
    let (said_original, said_copy) = (messages(&original), messages(&copy));
    assert!(said_copy.contains("s010.py") && !said_copy.contains("s006.py"), "{said_copy}");
    assert!(said_original.contains("s006.py") && !said_original.contains("s010.py"), "{said_original}");
    assert_ne!(said_copy, said_original.replace("s006.py", "s010.py"), "the copy's lines are its own (one comment line less)");
}
