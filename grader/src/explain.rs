//! A student's bug list: each suite test an answer fails, what it did, which parts of the
//! input do not matter (a generalized counterexample, in the spirit of SmartCheck and
//! Hypothesis's explain phase), and the closest input it gets right (a contrasting
//! example, in the spirit of FindExamples).
//!
//! A bug list is about one answer only: it is computed from the reference, the generator
//! and that answer's program, and never mentions another answer.
//!
//! Each bug also says the checker's reason for a wrong output, and for a timeout its limit in plain words (relative
//! to the model answer, never "fuel") and whether ten times that would have been enough ([`SLOWNESS_PROBE`]), so that
//! a verdict near the limit shows.

use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Calibration};
use crate::generate::{ChoiceSequence, ChoiceSource, Rng, TestCase};
use crate::oracle::{Execution, Failure, FailureKind, RunOutcome};
use crate::points::Points;
use crate::problem::{Executor, Problem};
use crate::result::{Analysis, Build};
use crate::run::{budget, judge_answer, run_answer, run_reference};

/// Random redraws of one choice while the rest stay fixed. A part is shown as "any value"
/// only when every redraw still fails; 20 agreeing redraws make a coincidence unlikely.
pub const REDRAWS: usize = 20;

/// The fewest different values a part must have taken in the redraws (or all it can take,
/// when fewer) to be shown as "any value". A choice may pick a branch rather than a value
/// (in the LRU cache's generator, whether a key is one already put or a new one), and then
/// its redraws give the part two or three values only, all failing, while others pass:
/// `get ‹any›` was said of a hand-in that `get 2` does not fail.
pub const MIN_VALUES_SEEN: usize = 4;

/// Candidate neighbours tried when looking for a contrasting example.
pub const CONTRAST_CANDIDATES: usize = 300;

/// What stands for a part of the input that can be anything.
pub const ANY: &str = "‹any›";

/// An answer that ran out of time is run once more with this many times its budget (but
/// at most [`SLOWNESS_PROBE_FUEL`]), to tell the student how much time it needed, and
/// then whether its answer would be right, or that it does not finish at all: an endless
/// loop, or a search that grows much faster than the model answer's.
pub const SLOWNESS_PROBE: u64 = 10;

/// The most fuel that one such extra run may use: about a tenth of a second, so that the
/// bug lists of a class of 300 with a few timeouts each cost minutes, not an hour. A
/// budget already this large is not probed.
pub const SLOWNESS_PROBE_FUEL: u64 = 100_000_000;

/// What the program did on a failed test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Behaviour {
    pub kind: FailureKind,
    /// Its output (for `wrong`), or the crash message, or what limit it hit.
    pub detail: String,
    /// For a wrong output judged by the problem's checker, the checker's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a run that crashed or hit a limit: what it had written before (`None` when
    /// nothing), so that a command sequence shows the call it stopped at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl Behaviour {
    /// What went wrong, in a few words a student understands: "wrong output", "crashed", ...
    /// (why an output is wrong, the checker's or the comparison's reason, is `reason`).
    pub fn summary(&self) -> &'static str {
        match self.kind {
            FailureKind::Wrong => "wrong output",
            FailureKind::Crash => "crashed",
            FailureKind::Timeout => "took too long",
            FailureKind::Memory => "ran out of memory",
            FailureKind::Output => "wrote too much output",
        }
    }
}

/// A passing input close to a failing one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contrast {
    pub input: String,
    pub expected: String,
}

/// One inferred bug of one answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BugReport {
    pub test: String,
    pub input: String,
    pub expected: String,
    pub got: Behaviour,
    /// The input with the parts that can be anything replaced by [`ANY`], when there are.
    pub generalized: Option<String>,
    pub contrast: Option<Contrast>,
    /// The name of the course's test this is ([`crate::SuiteTest::course_test`]): it is
    /// shown as the course wrote it, neither generalized nor contrasted (no generator
    /// made it, so there is nothing to redraw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub course_test: Option<String>,
}

/// An answer's score and bugs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BugList {
    pub answer: String,
    pub passed: usize,
    pub suite_size: usize,
    pub bugs: Vec<BugReport>,
    /// How the program was built from sources ([`crate::AnswerResult::build`]): the
    /// compiler's warnings, or why it did not compile (then `bugs` is empty: nothing ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
    /// The program's points on the fixed scale ([`crate::AnswerResult::points`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Points>,
    /// The course's own tests it fails, by name ([`crate::AnswerResult::course_tests_failed`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub course_tests_failed: Vec<String>,
    /// Whether the outputs are dialogues with the problem's interactor
    /// ([`crate::Oracle::Interactive`]): each bug's `expected` is the model answer's
    /// dialogue on its input and the program's output its own, as judges write them (`>`
    /// before what the program wrote, `<` before what it was sent). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dialogue: bool,
}

impl BugList {
    /// True when the program fails every test, each the same way (one crash message, one
    /// exhausted limit, one output whatever the input): then its first failure tells the
    /// whole story, and a list of identical failures would only hide it.
    pub fn fails_all_alike(&self) -> bool {
        self.passed == 0 && self.bugs.len() > 1 && self.bugs.iter().all(|b| b.got == self.bugs[0].got)
    }

    /// Why the program was not built (the compiler's message), when it was not: then it
    /// failed every test without running.
    pub fn compile_error(&self) -> Option<&str> {
        self.build.as_ref()?.error.as_deref()
    }

    /// "fails 3 of 28 tests": the failed tests are not necessarily distinct bugs of this
    /// program (one mistake can fail several tests, each standing for a different
    /// combination of bugs in the class).
    pub fn headline(&self) -> String {
        let failed = self.bugs.len();
        if let Some(why) = self.build.as_ref().and_then(Build::not_built_in_words) {
            return format!("{why}, and so fails all {} tests", self.suite_size);
        }
        match failed {
            0 => format!("passes all {} tests", self.suite_size),
            _ if failed == self.suite_size => format!("fails all {} tests", self.suite_size),
            _ => format!("fails {failed} of {} tests", self.suite_size),
        }
    }
}

/// The bug list of answer `answer_id` of `analysis`, whose program is `program`. The
/// randomness of the redraws comes from the analysis seed, so a bug list is reproducible.
pub fn bug_list(problem: &Problem, analysis: &Analysis, answer_id: &str, program: usize, executor: &dyn Executor) -> Option<BugList> {
    let answer = analysis.answers.iter().find(|a| a.id == answer_id)?;
    let list = |bugs| BugList {
        answer: answer.id.clone(),
        passed: answer.passed,
        suite_size: analysis.scored_tests(),
        bugs,
        build: answer.build.clone(),
        points: answer.points.clone(),
        course_tests_failed: answer.course_tests_failed.clone(),
        dialogue: problem.oracle == crate::Oracle::Interactive,
    };
    if answer.not_built() {
        // Nothing to run: the compiler's message is the whole story.
        return Some(list(Vec::new()));
    }
    // The budgets the analysis graded with, whatever problem.toml says now.
    let problem = &Problem { fuel: analysis.fuel, ..problem.clone() };
    let explainer = Explainer { problem, calibration: &analysis.calibration, executor, program };
    let bugs = analysis
        .suite
        .iter()
        .enumerate()
        .filter(|(_, t)| answer.failed.contains(&t.id))
        .map(|(index, test)| {
            let case = TestCase { size: test.size, choices: test.choices.clone() };
            // The failing run, replayed once and shared by the three explanations; a
            // course's test is run as it is written.
            let original = match &test.course_test {
                Some(name) => {
                    let written = problem.fixed.iter().find(|fixed| fixed.name == *name);
                    let input = written.map_or_else(|| test.input.clone().into_bytes(), |fixed| fixed.input.clone());
                    explainer.trial_of(input).map(|trial| (trial, ChoiceSource::replay(&case)))
                }
                None => explainer.trial(ChoiceSource::replay(&case)),
            };
            let generated = original.as_ref().filter(|_| test.course_test.is_none());
            let got = original.as_ref().and_then(|(trial, _)| explainer.behaviour(trial)).unwrap_or(Behaviour {
                kind: answer.outcomes[&test.id],
                detail: "(not reproduced)".to_owned(),
                reason: None,
                output: None,
            });
            let mut rng = Rng::for_test(analysis.seed ^ 0xB06_1157, index as u64);
            BugReport {
                test: test.id.clone(),
                input: test.input.clone(),
                expected: test.expected.clone(),
                got,
                generalized: generated.and_then(|(trial, source)| explainer.generalize(&case, trial, source, &mut rng)),
                contrast: generated.and_then(|(trial, _)| explainer.contrast(&case, trial)),
                course_test: test.course_test.clone(),
            }
        })
        .collect();
    Some(list(bugs))
}

/// How answer `program` does on the course's `tests` that students may see (a student's
/// pre-check of a hand-in, before any analysis): a bug list whose suite is those tests
/// (their names as test ids), each failed one with the input, the model answer's output
/// and what the program did, judged with the budget an analysis gives it there. Nothing
/// of a class is in it: no generated input, no other answer. A test the model answer
/// cannot run is left out (a problem's check reports it). Pitfall: `calibration` must be
/// the problem's ([`crate::calibrate`]), or budgets differ from the analysis's.
pub fn on_tests(problem: &Problem, calibration: &Calibration, tests: &[&crate::WrittenTest], program: usize, executor: &dyn Executor) -> BugList {
    use rayon::prelude::*;
    let explainer = Explainer { problem, calibration, executor, program };
    let trials: Vec<(&&crate::WrittenTest, Trial)> = tests.par_iter().filter_map(|test| Some((test, explainer.trial_of(test.input.clone())?))).collect();
    let bugs: Vec<BugReport> = trials
        .iter()
        .filter_map(|(test, trial)| {
            Some(BugReport {
                test: test.name.clone(),
                input: trial.input.clone(),
                expected: String::from_utf8_lossy(&trial.reference.stdout).into_owned(),
                got: explainer.behaviour(trial)?,
                generalized: None,
                contrast: None,
                course_test: Some(test.name.clone()),
            })
        })
        .collect();
    BugList {
        answer: String::new(),
        passed: trials.len() - bugs.len(),
        suite_size: trials.len(),
        course_tests_failed: bugs.iter().map(|b| b.test.clone()).collect(),
        bugs,
        build: None,
        points: None,
        dialogue: problem.oracle == crate::Oracle::Interactive,
    }
}

struct Explainer<'a> {
    problem: &'a Problem,
    calibration: &'a Calibration,
    executor: &'a dyn Executor,
    program: usize,
}

/// One replayed input and how the answer fared on it.
struct Trial {
    /// The input as the generator wrote it, and as text.
    bytes: Vec<u8>,
    input: String,
    /// The reference's run: its output is the expected one.
    reference: Execution,
    budget: Budget,
    answer: Execution,
    failure: Option<Failure>,
}

impl Explainer<'_> {
    /// Replays `source` and judges the answer; `None` when the input is unusable.
    fn trial(&self, source: ChoiceSource) -> Option<(Trial, ChoiceSource)> {
        let (input, source) = self.executor.generate(source);
        Some((self.trial_of(input.ok()?)?, source))
    }

    /// Judges the answer on `input`; `None` when the input is unusable.
    fn trial_of(&self, input: Vec<u8>) -> Option<Trial> {
        let reference = run_reference(self.problem, self.executor, &input).ok()?;
        let budget = budget(self.problem, self.calibration, &input, &reference);
        let (answer, verdict) = run_answer(self.problem, self.executor, &input, &reference, self.program, budget.fair);
        let trial = Trial { input: String::from_utf8_lossy(&input).into_owned(), reference, budget, answer, failure: verdict.ok()?, bytes: input };
        Some(trial)
    }

    fn behaviour(&self, trial: &Trial) -> Option<Behaviour> {
        let Failure { kind, reason } = trial.failure.clone()?;
        let detail = match &trial.answer.outcome {
            RunOutcome::Success | RunOutcome::Rejected(_) | RunOutcome::InteractorFailed(_) => String::from_utf8_lossy(&trial.answer.stdout).into_owned(),
            RunOutcome::Crash(message) => message.clone(),
            RunOutcome::Timeout => self.slowness(trial),
            RunOutcome::Memory => "ran out of memory".to_owned(),
            RunOutcome::Output => "wrote more output than allowed".to_owned(),
        };
        // A crash's reason is its message, already the detail.
        let reason = reason.filter(|_| kind == FailureKind::Wrong);
        let output = (kind != FailureKind::Wrong && !trial.answer.stdout.is_empty()).then(|| String::from_utf8_lossy(&trial.answer.stdout).into_owned());
        Some(Behaviour { kind, detail, reason, output })
    }

    /// Why a run that ran out of time did, in plain words: what the time limit was on
    /// this input, and how much time the answer needed (see [`SLOWNESS_PROBE`]), both
    /// relative to the model answer.
    fn slowness(&self, trial: &Trial) -> String {
        let fuel = self.problem.fuel;
        let Budget { fair, hardest, .. } = trial.budget;
        let on_this = trial.reference.fuel_used;
        // The time unit students are told about: the model answer on the hardest inputs
        // of this size, or on this input when that is larger.
        let (unit, unit_words) = if hardest >= on_this && hardest > 0 {
            (hardest, "the model answer needs on the hardest inputs of this size")
        } else {
            (on_this.max(1), "the model answer needs on this input")
        };
        let limit = if fair == fuel.floor {
            "the least time any program gets, ample for starting and reading an input this small".to_owned()
        } else if fair == hardest.saturating_mul(fuel.hardest_factor) {
            format!("{} times the time the model answer needs on the hardest inputs of this size", fuel.hardest_factor)
        } else {
            format!("{} times the time the model answer needs on this input", fuel.factor)
        };
        let said = format!("ran out of time; the limit here is {limit}");
        let probe = fair.saturating_mul(SLOWNESS_PROBE).min(SLOWNESS_PROBE_FUEL.max(fair));
        if probe == fair {
            return said;
        }
        let longer = self.executor.run(self.program, &trial.bytes, probe);
        if longer.outcome != RunOutcome::Success {
            let times = probe as f64 / unit as f64;
            return format!(
                "{said}. Given {} times as long it still does not finish (more than {} times the time {unit_words}): \
                 an endless loop, or a search that grows much faster than the model answer's",
                probe / fair,
                about(times)
            );
        }
        let then = match judge_answer(self.problem, self.executor, &trial.bytes, &trial.reference, &longer) {
            Ok(None) => ", and its answer is then right",
            Ok(Some(_)) => ", but its answer is then wrong too",
            Err(_) => "",
        };
        format!(
            "{said}. It needed about {} times the time {unit_words} ({:.1} times the limit){then}",
            about(longer.fuel_used as f64 / unit as f64),
            longer.fuel_used as f64 / fair as f64
        )
    }

    /// Redraws each choice at random, the others fixed. Where every redraw still fails
    /// and changes the same single token of the input (a number, a word, a symbol), giving
    /// it at least [`MIN_VALUES_SEEN`] values, and the input still fails with that choice
    /// and those kept before redrawn together, that token is shown as [`ANY`]. A choice
    /// whose redraws reshape the input (add an interval, change the command) is not a
    /// "part" and is left as it is.
    fn generalize(&self, test: &TestCase, original: &Trial, source: &ChoiceSource, rng: &mut Rng) -> Option<String> {
        let maxima = source.maxima();
        let tokens = tokens(&original.input);
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut kept: Vec<usize> = Vec::new();
        for (i, &max) in maxima.iter().enumerate() {
            if max == 0 {
                continue;
            }
            let mut span: Option<(usize, usize)> = None;
            let mut all_fail = true;
            let mut values: Vec<String> = Vec::new();
            for _ in 0..REDRAWS {
                let mut choices = test.choices.0.clone();
                choices[i] = rng.below_or_equal(max);
                let redrawn = TestCase { size: test.size, choices: ChoiceSequence(choices) };
                match self.trial(ChoiceSource::replay(&redrawn)) {
                    Some((trial, _)) if trial.failure.is_some() => {
                        let Some(diff) = differing_span(&original.input, &trial.input) else { continue };
                        let token = tokens.iter().copied().find(|&(s, e)| s <= diff.0 && diff.1 <= e && diff.0 < diff.1);
                        match (token, span) {
                            (Some(token), None) => span = Some(token),
                            (Some(token), Some(seen)) if token == seen => {}
                            _ => {
                                all_fail = false;
                                break;
                            }
                        }
                        let value = trial.input.get(diff.0..).unwrap_or("").split(char::is_whitespace).next().unwrap_or("").to_owned();
                        if !values.contains(&value) {
                            values.push(value);
                        }
                    }
                    _ => {
                        all_fail = false;
                        break;
                    }
                }
            }
            // (The original's value counts too: redraws that give it again change nothing.)
            let seen = values.len() + 1;
            let possible = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
            let enough = seen >= MIN_VALUES_SEEN.min(possible);
            if let (true, true, Some(span)) = (all_fail, enough, span) {
                // Each part alone can be anything; together they must be too: kept only if
                // the input still fails with it and every part kept before all redrawn at
                // once (all at 0, all at their largest, and at random).
                let mut together = kept.clone();
                together.push(i);
                if together.len() == 1 || self.fails_whatever(test, &together, maxima, rng) {
                    kept.push(i);
                    spans.push(span);
                }
            }
        }
        if spans.is_empty() {
            return None;
        }
        // Several choices may make one token (a sign and a magnitude): replace each once,
        // from the right so that offsets stay valid.
        spans.sort_unstable();
        spans.dedup();
        let mut text = original.input.clone();
        for (start, end) in spans.into_iter().rev() {
            text.replace_range(start..end, ANY);
        }
        Some(text)
    }

    /// Whether `test` still fails with its choices at `indices` all redrawn at once: all 0,
    /// all at their `maxima`, and [`REDRAWS`] times at random.
    fn fails_whatever(&self, test: &TestCase, indices: &[usize], maxima: &[u64], rng: &mut Rng) -> bool {
        (0..REDRAWS + 2).all(|round| {
            let mut choices = test.choices.0.clone();
            for &i in indices {
                choices[i] = match round {
                    0 => 0,
                    1 => maxima[i],
                    _ => rng.below_or_equal(maxima[i]),
                };
            }
            let redrawn = TestCase { size: test.size, choices: ChoiceSequence(choices) };
            matches!(self.trial(ChoiceSource::replay(&redrawn)), Some((trial, _)) if trial.failure.is_some())
        })
    }

    /// The passing input closest to the failing one among small edits of its choices:
    /// each choice one up or down or zeroed, or a short span deleted. Closest means: the
    /// same first word if one passes (the same command: for `delete 1 [(0,2)]`, `delete 1
    /// []` before `member 1 [(0,2)]`, which says nothing about deleting), then the least
    /// edit distance between the inputs, then the simplest choices.
    fn contrast(&self, test: &TestCase, original: &Trial) -> Option<Contrast> {
        let choices = &test.choices.0;
        let mut candidates: Vec<Vec<u64>> = Vec::new();
        for i in 0..choices.len() {
            for value in [choices[i].wrapping_sub(1), choices[i] + 1, 0] {
                if value != choices[i] && value != u64::MAX {
                    let mut edited = choices.clone();
                    edited[i] = value;
                    candidates.push(edited);
                }
            }
            for k in 1..=3.min(choices.len() - i) {
                let mut edited = choices.clone();
                edited.drain(i..i + k);
                candidates.push(edited);
            }
        }
        candidates.truncate(CONTRAST_CANDIDATES);
        candidates
            .into_iter()
            .filter_map(|choices| {
                let candidate = TestCase { size: test.size, choices: ChoiceSequence(choices) };
                let (trial, source) = self.trial(ChoiceSource::replay(&candidate))?;
                let passed = trial.failure.is_none() && trial.input != original.input;
                let other_command = first_word(&trial.input) != first_word(&original.input);
                passed.then(|| ((other_command, edit_distance(&original.input, &trial.input)), source.into_test_case().choices, trial))
            })
            .min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)))
            .map(|(_, _, trial)| Contrast { expected: String::from_utf8_lossy(&trial.reference.stdout).into_owned(), input: trial.input })
    }
}

/// A ratio as people say it: one decimal below ten, whole numbers above.
fn about(times: f64) -> String {
    if times < 10.0 { format!("{times:.1}") } else { format!("{}", times.round() as u64) }
}

/// The byte range of `original` that differs from `other` (common prefix and suffix
/// removed), on character boundaries; `None` when they are equal.
fn differing_span(original: &str, other: &str) -> Option<(usize, usize)> {
    if original == other {
        return None;
    }
    let prefix: usize = original.chars().zip(other.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
    let suffix: usize =
        original[prefix..].chars().rev().zip(other[prefix.min(other.len())..].chars().rev()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
    Some((prefix, original.len() - suffix))
}

/// The tokens of an input, as byte ranges: runs of letters, digits and `-` (so that `-12`
/// and `ab1` are one token each), and every other character on its own.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let word = |c: char| c.is_alphanumeric() || c == '-';
    let mut tokens: Vec<(usize, usize)> = Vec::new();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        match tokens.last_mut() {
            Some(last) if word(c) && last.1 == i && text[last.0..i].chars().all(word) => last.1 = end,
            _ => tokens.push((i, end)),
        }
    }
    tokens
}

/// Levenshtein distance between two strings, by characters.
/// The first word of an input: its command, in a problem whose inputs start with one.
fn first_word(input: &str) -> Option<&str> {
    input.split_whitespace().next()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::FuelPolicy;

    fn list_failing(passed: usize, got: &[(FailureKind, &str)]) -> BugList {
        let bugs = got
            .iter()
            .enumerate()
            .map(|(i, &(kind, detail))| BugReport {
                test: format!("t{i}"),
                input: i.to_string(),
                expected: "ok".into(),
                got: Behaviour { kind, detail: detail.into(), reason: None, output: None },
                generalized: None,
                contrast: None,
                course_test: None,
            })
            .collect();
        BugList {
            answer: "a1".into(),
            passed,
            suite_size: passed + got.len(),
            bugs,
            build: None,
            points: None,
            course_tests_failed: Vec::new(),
            dialogue: false,
        }
    }

    #[test]
    fn a_program_that_fails_every_test_the_same_way_is_shown_its_first_failure_only() {
        let crash = (FailureKind::Crash, "unreachable");
        assert!(list_failing(0, &[crash, crash, crash]).fails_all_alike());
        let same_output = (FailureKind::Wrong, "no solution");
        assert!(list_failing(0, &[same_output, same_output]).fails_all_alike());
        assert!(!list_failing(0, &[(FailureKind::Wrong, "1"), (FailureKind::Wrong, "2")]).fails_all_alike());
        assert!(!list_failing(1, &[crash, crash]).fails_all_alike(), "it passes a test");
        assert!(!list_failing(0, &[crash]).fails_all_alike(), "one failure is shown anyway");
    }

    #[test]
    fn the_headline_counts_failed_tests_not_bugs() {
        assert_eq!(list_failing(25, &[(FailureKind::Wrong, "1"); 3]).headline(), "fails 3 of 28 tests");
        assert_eq!(list_failing(0, &[(FailureKind::Crash, "x"); 19]).headline(), "fails all 19 tests");
        assert_eq!(list_failing(28, &[]).headline(), "passes all 28 tests");
    }

    /// Every program prints `ok`: the reference after 1 unit of fuel, program 1 after 1,500,
    /// and program 2 never.
    struct Slow;
    impl Executor for Slow {
        fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            (Ok(b"x".to_vec()), choices)
        }
        fn run(&self, program: usize, _input: &[u8], fuel: u64) -> Execution {
            let needs = [1, 1_500].get(program).copied().unwrap_or(u64::MAX);
            let outcome = if fuel >= needs { RunOutcome::Success } else { RunOutcome::Timeout };
            Execution { outcome, stdout: b"ok\n".to_vec(), fuel_used: needs.min(fuel) }
        }
    }

    /// The inputs of this size cost the reference at most 100 on the hardest ones.
    fn check_slowness(program: usize, floor: u64, expected: &str) {
        let fuel = FuelPolicy { factor: 20, floor, hardest_factor: 10, reference: 1_000_000, limit: 0 };
        let problem = Problem { fuel, ..Problem::default() };
        let calibration = Calibration::from_costs(vec![(1, 100)]);
        let explainer = Explainer { problem: &problem, calibration: &calibration, executor: &Slow, program };
        let (trial, _) = explainer.trial(ChoiceSource::replay(&TestCase { size: 0, choices: ChoiceSequence(Vec::new()) })).unwrap();
        assert_eq!(trial.failure.as_ref().map(|f| f.kind), Some(FailureKind::Timeout));
        assert_eq!(explainer.behaviour(&trial).unwrap().detail, expected);
    }

    #[test]
    fn a_timeout_says_in_plain_words_how_much_time_the_answer_needed() {
        check_slowness(
            1,
            50,
            "ran out of time; the limit here is 10 times the time the model answer needs on the hardest inputs of \
             this size. It needed about 15 times the time the model answer needs on the hardest inputs of this size \
             (1.5 times the limit), and its answer is then right",
        );
    }

    #[test]
    fn a_timeout_says_when_ten_times_the_time_is_not_enough_either() {
        check_slowness(
            2,
            50,
            "ran out of time; the limit here is 10 times the time the model answer needs on the hardest inputs of \
             this size. Given 10 times as long it still does not finish (more than 100 times the time the model \
             answer needs on the hardest inputs of this size): an endless loop, or a search that grows much faster \
             than the model answer's",
        );
    }

    #[test]
    fn the_extra_run_for_a_timeout_never_takes_more_than_its_fuel_cap() {
        check_slowness(
            2,
            20_000_000,
            "ran out of time; the limit here is the least time any program gets, ample for starting and reading an \
             input this small. Given 5 times as long it still does not finish (more than 1000000 times the time the \
             model answer needs on the hardest inputs of this size): an endless loop, or a search that grows much \
             faster than the model answer's",
        );
        check_slowness(
            2,
            SLOWNESS_PROBE_FUEL,
            "ran out of time; the limit here is the least time any program gets, ample for starting and reading an \
             input this small",
        );
    }

    #[test]
    fn no_fuel_jargon_reaches_a_student() {
        let problem = Problem::default();
        let calibration = Calibration::from_costs(vec![(1, 100)]);
        let explainer = Explainer { problem: &problem, calibration: &calibration, executor: &Slow, program: 2 };
        let case = TestCase { size: 0, choices: ChoiceSequence(Vec::new()) };
        let (trial, _) = explainer.trial(ChoiceSource::replay(&case)).unwrap();
        let detail = explainer.behaviour(&trial).unwrap().detail;
        assert!(detail.starts_with("ran out of time") && !detail.contains("fuel"), "{detail}");
    }

    #[test]
    fn the_differing_span_is_what_lies_between_the_common_prefix_and_suffix() {
        assert_eq!(differing_span("insert 0 []", "insert 17 []"), Some((7, 8)));
        assert_eq!(differing_span("insert 0 []", "insert 0 []"), None);
        assert_eq!(differing_span("a@a", "a@@a"), Some((2, 2)));
    }

    #[test]
    fn numbers_words_and_symbols_are_tokens() {
        let text = "insert -12 [(0,3)]";
        let words: Vec<&str> = tokens(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(words, ["insert", " ", "-12", " ", "[", "(", "0", ",", "3", ")", "]"]);
    }

    /// Inputs `<command> <n> <list>` from three choices; program 1 fails `delete` on a
    /// list that is not empty, and every other input it gets right.
    struct Commands;
    impl Executor for Commands {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            let command = ["member", "insert", "delete"][choices.choice(2).unwrap_or(0) as usize];
            let n = choices.choice(9).unwrap_or(0);
            let list = ["[]", "[(0,2)]"][choices.choice(1).unwrap_or(0) as usize];
            (Ok(format!("{command} {n} {list}").into_bytes()), choices)
        }
        fn run(&self, program: usize, input: &[u8], _fuel: u64) -> Execution {
            let wrong = program == 1 && input.starts_with(b"delete") && !input.ends_with(b"[]");
            Execution { outcome: RunOutcome::Success, stdout: if wrong { b"no\n".to_vec() } else { b"ok\n".to_vec() }, fuel_used: 1 }
        }
    }

    #[test]
    fn the_close_passing_input_keeps_the_command_of_the_failing_one() {
        let problem = Problem::default();
        let calibration = Calibration::from_costs(vec![(1, 1)]);
        let explainer = Explainer { problem: &problem, calibration: &calibration, executor: &Commands, program: 1 };
        let failing = TestCase { size: 0, choices: ChoiceSequence(vec![2, 1, 1]) };
        let (trial, _) = explainer.trial(ChoiceSource::replay(&failing)).unwrap();
        assert_eq!(trial.input, "delete 1 [(0,2)]");
        assert!(trial.failure.is_some());
        // `member 1 [(0,2)]` and `delete 1 []` are both 5 edits away; the command decides.
        assert_eq!(edit_distance("delete 1 [(0,2)]", "member 1 [(0,2)]"), edit_distance("delete 1 [(0,2)]", "delete 1 []"));
        let contrast = explainer.contrast(&failing, &trial).expect("some close input passes");
        assert_eq!(contrast.input, "delete 1 []");
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("a@a", "a@a"), 0);
    }
}
