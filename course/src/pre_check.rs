//! A student's hand-in checked at once, before the deadline: whether it builds (the
//! compiler's message and warnings, the assignment's rules it breaks) and how it does on
//! the course's tests the problem makes public (`[pre_check] public`), each failed one
//! shown in full. Never on anything else: not on a generated input, not on a course's test
//! that is not public, and never against a classmate, so that what a student learns here is
//! what the instructor chose to show, and the class's analysis stays the grade.
//!
//! A [`PreChecker`] holds one problem, loaded once, and its calibration, measured at its
//! first hand-in that runs tests: each test's budget is then the one the analysis gives
//! the program there (the problem's own, whoever hands in).

use std::sync::{Arc, OnceLock};

use grader::{BugList, Calibration};
use serde::{Deserialize, Serialize};

use crate::grade_batch::Tools;
use crate::hand_in::{Handed, Loaded, ModuleSource, SharedBytes};
use crate::problem_dir::ProblemDir;

/// What a pre-check found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreCheck {
    /// The hand-in's results on the public tests as a bug list: `build` says how it was
    /// built (its `error` when it did not build: then nothing ran), `suite_size` how many
    /// public tests ran, `bugs` those it fails.
    pub list: BugList,
    /// The course's tests that are not public: the analysis runs them, and its generated
    /// inputs, at the deadline.
    pub hidden_tests: usize,
    /// Public tests not run: the model answer cannot run them (a fault of the problem,
    /// which its check reports; the student is told to tell the instructor).
    #[serde(default)]
    pub unusable: usize,
}

/// The most bytes of an input or an output a pre-check keeps, each: public tests are
/// examples, and a program that prints megabytes on one needs only its start shown (the
/// report is kept for every hand-in).
pub const SHOWN_BYTES: usize = 16 << 10;

/// `text` cut to [`SHOWN_BYTES`] at a character's boundary, saying how much was left out.
fn shown(mut text: String) -> String {
    if text.len() > SHOWN_BYTES {
        let cut = (0..=SHOWN_BYTES).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let left = text.len() - cut;
        text.truncate(cut);
        text.push_str(&format!("… ({left} more bytes not shown)"));
    }
    text
}

impl PreCheck {
    /// Whether the hand-in built (a module handed in builds by definition).
    pub fn built(&self) -> bool {
        self.list.compile_error().is_none()
    }
}

/// A problem ready to pre-check hand-ins.
pub struct PreChecker {
    pub problem: ProblemDir,
    calibration: OnceLock<Calibration>,
}

impl PreChecker {
    pub fn new(problem: ProblemDir) -> PreChecker {
        PreChecker { problem, calibration: OnceLock::new() }
    }

    /// Checks the hand-in `file` whose stored bytes (a module, or sources as one bundle:
    /// [`Handed::stored`]) are `bytes`. `Err` only when this machine cannot check it (no
    /// toolchain for its language): not the student's fault.
    pub fn check(&self, tools: &Tools, file: &str, bytes: Vec<u8>) -> Result<PreCheck, String> {
        let problem = &self.problem;
        let public = problem.public_tests();
        let hidden_tests = problem.fixed.len() - public.len();
        let handed = Handed::Module(ModuleSource::Bytes(SharedBytes(Arc::new(bytes))));
        let list = match crate::load::load(&tools.sandbox, &tools.builder, &problem.accepted, file, &handed, None)? {
            Loaded::NotBuilt(build) => BugList { build: Some(build), ..empty_list(public.len()) },
            Loaded::Program(program, build) => {
                let graded = problem.problem();
                let mut list = match public.is_empty() {
                    true => empty_list(0),
                    false => {
                        let calibration = self.calibration.get_or_init(|| grader::calibrate(&graded, &problem.executor(&tools.sandbox, [])));
                        grader::on_tests(&graded, calibration, &public, 1, &problem.executor(&tools.sandbox, [&program]))
                    }
                };
                list.build = build;
                list
            }
        };
        let unusable = if list.compile_error().is_some() { 0 } else { public.len() - list.suite_size };
        let mut list = BugList { answer: file.to_owned(), ..list };
        for bug in &mut list.bugs {
            for text in [&mut bug.input, &mut bug.expected, &mut bug.got.detail] {
                *text = shown(std::mem::take(text));
            }
            bug.got.output = bug.got.output.take().map(shown);
        }
        Ok(PreCheck { list, hidden_tests, unusable })
    }
}

/// A bug list of no run, of a suite of `tests` tests.
fn empty_list(tests: usize) -> BugList {
    BugList {
        answer: String::new(),
        passed: 0,
        suite_size: tests,
        bugs: Vec::new(),
        build: None,
        points: None,
        course_tests_failed: Vec::new(),
        dialogue: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interval sets problem with two public tests and a hidden one, in a folder of
    /// its own.
    fn problem(tools: &Tools) -> (tempfile::TempDir, PreChecker) {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets");
        let dir = tempfile::tempdir().unwrap();
        for file in ["problem.toml", "generator.wasm", "reference.wasm", "reference.py"] {
            std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
        }
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        for (name, input) in [("sample-1", "insert 1 [(0,0),(2,2)]\n"), ("sample-2", "empty\n"), ("secret-1", "member 3 [(3,3)]\n")] {
            std::fs::write(dir.path().join(format!("tests/{name}.in")), input).unwrap();
        }
        let problem = ProblemDir::load(&tools.sandbox, &tools.builder, dir.path()).unwrap();
        (dir, PreChecker::new(problem))
    }

    /// The stored bytes of a Python hand-in `file` with `source`.
    fn python(file: &str, source: &str) -> Vec<u8> {
        Handed::Sources(vec![(file.to_owned(), ModuleSource::Bytes(SharedBytes(Arc::new(source.as_bytes().to_vec()))))]).stored().unwrap()
    }

    #[test]
    fn a_hand_in_is_run_on_the_public_tests_only_and_each_failure_is_shown_in_full() {
        let tools = Tools { sandbox: sandbox::Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) };
        let (_dir, checker) = problem(&tools);
        let a01 =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets/submissions-python/a01.py"))
                .unwrap();
        let checked = checker.check(&tools, "a01.py", python("a01.py", &a01)).unwrap();
        assert!(checked.built());
        assert_eq!((checked.list.suite_size, checked.list.passed, checked.hidden_tests), (2, 1, 1));
        let bug = &checked.list.bugs[0];
        assert_eq!(
            (bug.test.as_str(), bug.input.trim(), bug.expected.trim(), bug.got.detail.trim()),
            ("sample-1", "insert 1 [(0,0),(2,2)]", "[(0,2)]", "[(0,1),(2,2)]")
        );
        assert!(!serde_json::to_string(&checked).unwrap().contains("member 3"), "the hidden test is nowhere in the pre-check");
        assert_eq!(checked.unusable, 0);
    }

    #[test]
    fn a_hand_in_that_does_not_build_runs_nothing_and_says_why() {
        let tools = Tools { sandbox: sandbox::Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) };
        let (_dir, checker) = problem(&tools);
        let checked = checker.check(&tools, "b.py", python("b.py", "def main(:\n    print(1)\n")).unwrap();
        assert!(!checked.built());
        assert!(checked.list.compile_error().unwrap().contains("SyntaxError"), "{:?}", checked.list.build);
        assert_eq!((checked.list.suite_size, checked.list.passed, checked.list.bugs.len()), (2, 0, 0));
        assert!(checked.list.headline().contains("fails all 2 tests"), "{}", checked.list.headline());
    }
}

#[cfg(test)]
mod shown {
    #[test]
    fn a_long_output_is_cut_at_a_characters_boundary_saying_how_much_was_left_out() {
        let long = "é".repeat(super::SHOWN_BYTES);
        let cut = super::shown(long.clone());
        assert!(cut.starts_with(&"é".repeat(super::SHOWN_BYTES / 2)), "whole characters kept");
        assert!(cut.ends_with(&format!("… ({} more bytes not shown)", long.len() - super::SHOWN_BYTES)), "{}", &cut[cut.len() - 60..]);
        assert_eq!(super::shown("short".to_owned()), "short");
    }
}
