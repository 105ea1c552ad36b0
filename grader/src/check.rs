//! Is a problem ready to grade a class? What `bugrank check-problem` checks before an
//! author hands a problem to students: the generator, the reference, the checker and a
//! correct and a buggy example, on the inputs an analysis's time budget is measured on and
//! on the course's own tests.
//!
//! [`check_problem`] gives a [`ProblemCheck`]: the generator writes and replays every input, all-zero choices give an
//! input the reference handles (a shorter generated one is pointed out), the reference fits its fuel, the checker
//! accepts it, and the [`Example`]s pass or fail as their names say; with samples and the reference's [`Cost`].

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::budget::{CALIBRATION_INPUTS, CALIBRATION_SEED, Calibration};
use crate::generate::{ChoiceSource, TestCase};
use crate::oracle::{CheckerVerdict, FailureKind, Oracle};
use crate::problem::{Executor, Problem, WrittenTest};
use crate::run::{judge_answer, run_reference};
use crate::testing::check_test;

/// Sample inputs shown with the reference's outputs: enough to see what the generator
/// makes, few enough to read.
pub const SAMPLES: usize = 6;

/// Failures of one program (the generator, the reference, the checker, an example) after
/// which it is not run on the remaining inputs: enough to see that it is broken and how,
/// while a program that loops on every input costs a few runs at its fuel limit, not
/// 1,000 (a looping generator took 11 minutes of a service's check before this).
pub const MAX_FAILURES: usize = 10;

/// What a sample shows as the reference's output on an input it was not run on.
const NOT_RUN: &str = "not run: the check stopped after the reference failed too often";

/// An example's failed run as a check lists it: the input as shown, the failure in words,
/// and its kind (`None` when the checker itself failed).
type ExampleFailure = (String, String, Option<FailureKind>);

/// `run` on every item, in parallel, until [`MAX_FAILURES`] results were `failed`; the
/// items after that are not run (`None`).
fn until_failures<I: Sync, T: Send>(items: &[I], failed: impl Fn(&T) -> bool + Sync, run: impl Fn(&I) -> T + Sync) -> Vec<Option<T>> {
    let failures = std::sync::atomic::AtomicUsize::new(0);
    items
        .par_iter()
        .map(|item| {
            if failures.load(std::sync::atomic::Ordering::Relaxed) >= MAX_FAILURES {
                return None;
            }
            let result = run(item);
            if failed(&result) {
                failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Some(result)
        })
        .collect()
}

/// A correct example within [`CLOSE_TO_BUDGET`] of its budget is said to be (a correct
/// program written differently, twice as slow, would run out of time there).
const CLOSE_TO_BUDGET: f64 = 0.5;

/// The words that say a correct example's closest run to its budget was within
/// [`CLOSE_TO_BUDGET`] of it (its share of the budget, and the input), or nothing.
fn close_to_budget(closest: Option<(f64, &String)>) -> String {
    match closest {
        Some((share, shown)) if share > CLOSE_TO_BUDGET => format!(
            "; warning: it uses {:.0}% of its budget on {shown}: a correct program twice as slow would run out of time (raise limits.fuel_factor or hardest_factor, or set fuel_limit)",
            share * 100.0
        ),
        _ => String::new(),
    }
}

/// The words that say a check stopped early, when `not_run` runs were skipped.
fn stopped(not_run: usize) -> String {
    if not_run > 0 { format!(" (the check stopped there: {not_run} not run)") } else { String::new() }
}

/// Longest sample input or output shown, in characters (the rest is cut with `…`).
const SAMPLE_CHARS: usize = 200;

/// An example submission checked with the problem, and what it should do.
#[derive(Clone, Debug)]
pub struct Example {
    pub id: String,
    /// Its program number for the [`Executor`] (the reference is 0).
    pub program: usize,
    pub expect: Expect,
}

/// What an example submission should do on the check's inputs (the generated ones and the
/// course's tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Pass every input: a correct example.
    Pass,
    /// Fail some input: a buggy example. With a checker, the checker must reject it on
    /// one (an example that only crashes would pass a checker that accepts everything).
    Fail,
    /// Fail some input in this way: a judge package's `wrong_answer` (a wrong output),
    /// `time_limit_exceeded` (a timeout) or `run_time_error` (a crash) submission.
    FailAs(FailureKind),
    /// Never fail but by running out of time: a judge package's `slow_accepted`
    /// submission, right on every input it finishes, whose speed the judges do not hold
    /// it to.
    PassOrTimeout,
}

/// What [`check_problem`] found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProblemCheck {
    /// The generated inputs every check ran on: those the time budget is measured on.
    pub inputs: u64,
    pub checks: Vec<Check>,
    /// The all-zero input first, then the first generated inputs, with the reference's
    /// output on each.
    pub samples: Vec<Sample>,
    /// The reference's fuel over the inputs it handled.
    pub cost: Cost,
    /// The checker's fuel over its checks of the reference's outputs, when the problem has
    /// a checker (and the executor counts its fuel). Its limit is the reference's.
    #[serde(default)]
    pub checker_cost: Option<Cost>,
}

/// One check: what is expected, whether it holds, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub what: String,
    pub passed: bool,
    pub detail: String,
}

/// An input and the reference's output on it (cut to a readable length).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub input: String,
    pub output: String,
}

/// The distribution of the reference's fuel, to set `reference_fuel` and the answers'
/// budget from (an answer gets at least `fuel_floor`, and `fuel_factor` times these).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    pub min: u64,
    pub median: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
    /// The reference's fuel limit on one input (`limits.reference_fuel`).
    pub limit: u64,
}

impl Cost {
    /// The distribution of `fuel` (in any order) under `limit`; all 0 for no run.
    fn of(mut fuel: Vec<u64>, limit: u64) -> Cost {
        fuel.sort_unstable();
        let at = |q: f64| fuel.get(((fuel.len().max(1) - 1) as f64 * q).round() as usize).copied().unwrap_or(0);
        Cost { min: at(0.0), median: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1.0), limit }
    }
}

impl ProblemCheck {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }
}

/// One generated input, as the checks see it.
struct Generated {
    test: TestCase,
    input: Result<Vec<u8>, String>,
}

/// Checks `problem` on [`CALIBRATION_INPUTS`] generated inputs (those its time budget is
/// measured on), with `examples` as answers. Runs in parallel; the result depends only
/// on the programs.
pub fn check_problem(problem: &Problem, executor: &dyn Executor, examples: &[Example]) -> ProblemCheck {
    let indices: Vec<u64> = (0..CALIBRATION_INPUTS).collect();
    let runs = until_failures(
        &indices,
        |g: &Generated| g.input.is_err(),
        |&index| {
            let (input, choices) = executor.generate(ChoiceSource::for_random_test(CALIBRATION_SEED, index));
            Generated { test: choices.into_test_case(), input }
        },
    );
    let generator_not_run = runs.iter().filter(|g| g.is_none()).count();
    let generated: Vec<Generated> = runs.into_iter().flatten().collect();
    let mut checks = Vec::new();

    let failed: Vec<(&Generated, &String)> = generated.iter().filter_map(|g| Some((g, g.input.as_ref().err()?))).collect();
    checks.push(Check {
        what: "the generator writes an input for every sequence of choices".into(),
        passed: failed.is_empty(),
        detail: match failed.first() {
            None => format!("{} of {} runs wrote an input", generated.len(), generated.len()),
            Some((g, reason)) => {
                format!("{} of {} runs failed{}; with the choices {:?}: {reason}", failed.len(), generated.len(), stopped(generator_not_run), g.test.choices.0)
            }
        },
    });

    let replays: Vec<&Generated> = generated.par_iter().filter(|g| g.input.is_ok() && executor.generate(ChoiceSource::replay(&g.test)).0 != g.input).collect();
    checks.push(Check {
        what: "the generator replays: the same choices give the same input".into(),
        passed: replays.is_empty(),
        detail: match replays.first() {
            None => format!("{} inputs replayed byte for byte (shrinking depends on it)", generated.len() - failed.len()),
            Some(g) => format!(
                "{} inputs came out differently when replayed, first with the choices {:?}: the sandbox freezes clocks and random bytes, so does the generator read memory it did not set, or the executor misbehave?",
                replays.len(),
                g.test.choices.0
            ),
        },
    });

    let inputs: Vec<&Vec<u8>> = generated.iter().filter_map(|g| g.input.as_ref().ok()).collect();
    // "Simpler" is shortlex on choices (`ChoiceSequence`): all zeros is the simplest input
    // by definition, where every shrink ends. It must be an input the reference handles;
    // a shorter generated input is pointed out (the author may want choice 0 to be the
    // simplest option there), not failed: interval-sets makes `member 0 []` its simplest
    // on purpose (Paper III, Figure 3.1), though `empty` is shorter.
    let zero = executor.generate(ChoiceSource::replay(&TestCase { size: 0, choices: Default::default() })).0;
    let zero_reference = zero.as_ref().ok().map(|input| run_reference(problem, executor, input).map_err(|e| e.to_string()));
    checks.push(Check {
        what: "all-zero choices give the simplest input, which the reference handles".into(),
        passed: matches!(zero_reference, Some(Ok(_))),
        detail: match (&zero, &zero_reference) {
            (Err(reason), _) => format!("the generator failed: {reason}"),
            (Ok(zero), Some(Err(reason))) => format!("{}: {reason}", shown(zero)),
            (Ok(zero), _) => match inputs.iter().filter(|input| input.len() < zero.len()).min_by_key(|input| input.len()) {
                None => format!("{} (no generated input is shorter)", shown(zero)),
                Some(shorter) => format!(
                    "{}; shrinking ends there. Shorter inputs are generated too, such as {}: if that one is simpler, make it choice 0",
                    shown(zero),
                    shown(shorter)
                ),
            },
        },
    });

    // A program that fails again and again (a loop runs to its fuel on every input) is
    // not run on the rest: the check's answer is known, and it must not take hours.
    let runs = until_failures(&inputs, Result::is_err, |input| run_reference(problem, executor, input).map_err(|e| e.to_string()));
    let not_run = runs.iter().filter(|r| r.is_none()).count();
    let reference_failures: Vec<(usize, &String)> = runs.iter().enumerate().filter_map(|(i, r)| Some((i, r.as_ref()?.as_ref().err()?))).collect();
    checks.push(Check {
        what: format!("the reference handles the {} generated inputs within its fuel", inputs.len()),
        passed: reference_failures.is_empty() && not_run == 0 && !inputs.is_empty(),
        detail: match reference_failures.first() {
            None => format!(
                "{} of {} inputs, at most {} fuel of {}",
                inputs.len(),
                inputs.len(),
                runs.iter().flatten().flatten().map(|r| r.fuel_used).max().unwrap_or(0),
                problem.fuel.reference
            ),
            Some((i, reason)) => {
                format!("{} of {} inputs fail{}; on {}: {reason}", reference_failures.len(), inputs.len(), stopped(not_run), shown(inputs[*i]))
            }
        },
    });

    let handled: Vec<(&Vec<u8>, &crate::oracle::Execution)> =
        inputs.iter().zip(&runs).filter_map(|(input, r)| Some((*input, r.as_ref()?.as_ref().ok()?))).collect();
    let mut checker_cost = None;
    if problem.oracle == Oracle::Checker {
        let verdicts = until_failures(
            &handled,
            |(failure, _): &(Option<(&Vec<u8>, String)>, _)| failure.is_some(),
            |(input, reference)| match executor.check_counted(input, &reference.stdout, &reference.stdout) {
                Ok((CheckerVerdict::Accept, fuel)) => (None, fuel),
                Ok((CheckerVerdict::Reject(reason), fuel)) => (Some((*input, format!("rejected: {reason}"))), fuel),
                Err(reason) => (Some((*input, format!("failed: {reason}"))), None),
            },
        );
        let not_run = verdicts.iter().filter(|v| v.is_none()).count();
        let (fuel, limits): (Vec<u64>, Vec<u64>) = verdicts.iter().flatten().filter_map(|(_, fuel)| *fuel).unzip();
        checker_cost = limits.first().map(|&limit| Cost::of(fuel, limit));
        let rejected: Vec<(&Vec<u8>, String)> = verdicts.into_iter().flatten().filter_map(|(failure, _)| failure).collect();
        checks.push(Check {
            what: "the checker accepts the reference's outputs".into(),
            passed: rejected.is_empty(),
            detail: match rejected.first() {
                None => format!("{} of {} outputs accepted", handled.len(), handled.len()),
                Some((input, why)) => {
                    format!("{} of {} outputs not accepted{}; on {} the checker {why}", rejected.len(), handled.len(), stopped(not_run), shown(input))
                }
            },
        });
    }

    // The course's tests: each one the reference runs, and agrees with where it gives an
    // expected output. The examples run on them too: a judge package's submissions were
    // judged on them.
    let course: Vec<(&WrittenTest, Result<crate::oracle::Execution, String>)> =
        problem.fixed.par_iter().map(|test| (test, check_test(problem, executor, test))).collect();
    if !course.is_empty() {
        let invalid: Vec<(&str, &String)> = course.iter().filter_map(|(test, run)| Some((test.name.as_str(), run.as_ref().err()?))).collect();
        let with_output = problem.fixed.iter().filter(|test| test.expected.is_some()).count();
        checks.push(Check {
            what: format!("the reference agrees with the course's {} test{}", course.len(), if course.len() == 1 { "" } else { "s" }),
            passed: invalid.is_empty(),
            detail: match invalid.first() {
                None => format!("it runs all {}, and gives the expected output of the {with_output} that have one", course.len()),
                Some((name, why)) => format!("{} of {} cannot be used; `{name}`: {why}", invalid.len(), course.len()),
            },
        });
    }
    // The input validator, where the problem has one: every input the generator writes
    // and every course's test must be valid.
    let all_inputs: Vec<(String, &Vec<u8>)> = inputs
        .iter()
        .map(|input| (shown(input), *input))
        .chain(problem.fixed.iter().map(|test| (format!("the course's test `{}`", test.name), &test.input)))
        .collect();
    let validity = until_failures(&all_inputs, |valid: &Option<Result<(), String>>| matches!(valid, Some(Err(_))), |(_, input)| executor.validate_input(input));
    if validity.iter().any(|valid| matches!(valid, Some(Some(_)))) {
        let not_run = validity.iter().filter(|valid| valid.is_none()).count();
        let refused: Vec<(&String, &String)> =
            all_inputs.iter().zip(&validity).filter_map(|((shown, _), valid)| Some((shown, valid.as_ref()?.as_ref()?.as_ref().err()?))).collect();
        checks.push(Check {
            what: format!("the input validator accepts the {} generated inputs and the course's {} tests", inputs.len(), problem.fixed.len()),
            passed: refused.is_empty(),
            detail: match refused.first() {
                None => format!("{} of {} inputs valid", all_inputs.len(), all_inputs.len()),
                Some((shown, why)) => format!("{} of {} inputs refused{}; {shown}: {why}", refused.len(), all_inputs.len(), stopped(not_run)),
            },
        });
    }

    let mut cases: Vec<(String, &Vec<u8>, &crate::oracle::Execution)> = handled.iter().map(|&(input, run)| (shown(input), input, run)).collect();
    cases.extend(course.iter().filter_map(|(test, run)| Some((format!("the course's test `{}`", test.name), &test.input, run.as_ref().ok()?))));

    let calibration = Calibration::from_costs(handled.iter().map(|(input, r)| (input.len(), r.fuel_used)).collect());
    for example in examples {
        // With a checker, a buggy example must be rejected by it somewhere: one that only
        // crashes or runs out of time would pass a checker that accepts everything.
        let checked = problem.oracle == Oracle::Checker;
        let wanted = match example.expect {
            Expect::Pass | Expect::PassOrTimeout => None,
            Expect::Fail if checked => Some(FailureKind::Wrong),
            Expect::Fail => None,
            Expect::FailAs(kind) => Some(kind),
        };
        // The runs stop after enough failures of the kind wanted, or of timeouts (each one
        // costs the whole budget): other failures are quick, and the kind wanted may come later.
        let stops = |(judged, _): &(Option<ExampleFailure>, f64)| match (judged, wanted) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some((_, _, kind)), Some(wanted)) => *kind == Some(wanted) || *kind == Some(FailureKind::Timeout),
        };
        // Each run's failure, if it failed, and the share of its budget it used.
        let judged = until_failures(&cases, stops, |(shown, input, reference)| {
            let fuel = problem.fuel.budget(reference.fuel_used, calibration.class(input.len())).fair;
            let run = executor.run(example.program, input, fuel);
            let share = run.fuel_used as f64 / fuel.max(1) as f64;
            let failure = match judge_answer(problem, executor, input, reference, &run) {
                Ok(None) => None,
                // The kind in lower case; the checker's or the crash's reason as written.
                Ok(Some(failure)) => {
                    let kind = format!("{:?}", failure.kind).to_lowercase();
                    Some((shown.clone(), format!("{kind}{}", failure.reason.map(|r| format!(": {r}")).unwrap_or_default()), Some(failure.kind)))
                }
                Err(reason) => Some((shown.clone(), format!("the checker failed: {reason}"), None)),
            };
            (failure, share)
        });
        let not_run = judged.iter().filter(|j| j.is_none()).count();
        // The most of its budget a passing run used, and where (the first such input).
        let closest = cases.iter().zip(&judged).filter_map(|((shown, _, _), judged)| match judged {
            Some((None, share)) => Some((*share, shown)),
            _ => None,
        });
        let closest = closest.fold(None, |most: Option<(f64, &String)>, (share, shown)| match most {
            Some((top, _)) if top >= share => most,
            _ => Some((share, shown)),
        });
        let failures: Vec<ExampleFailure> = judged.into_iter().flatten().filter_map(|(failure, _)| failure).collect();
        let total = cases.len();
        let first = failures.first().map(|(shown, why, _)| format!("{}; first on {shown}: {why}", stopped(not_run))).unwrap_or_default();
        let as_wanted = failures.iter().filter(|(_, _, kind)| wanted.is_none() || *kind == wanted).count();
        let timeouts = failures.iter().filter(|(_, _, kind)| *kind == Some(FailureKind::Timeout)).count();
        let never_shown = || format!("passes all {total} inputs: neither the generator nor the course's tests make an input that shows its bug");
        checks.push(match example.expect {
            Expect::Pass => Check {
                what: format!("the correct example `{}` passes every input", example.id),
                passed: failures.is_empty(),
                detail: format!("fails {} of {total} inputs{first}{}", failures.len(), close_to_budget(closest)),
            },
            Expect::Fail => Check {
                what: match checked {
                    false => format!("the buggy example `{}` fails some input", example.id),
                    true => format!("the buggy example `{}` fails some input, rejected by the checker", example.id),
                },
                passed: as_wanted > 0,
                detail: if failures.is_empty() {
                    never_shown()
                } else if checked && as_wanted == 0 {
                    format!("fails {} of {total} inputs{first}, but the checker rejects none of its outputs: it may accept wrong answers", failures.len())
                } else if checked {
                    format!("fails {} of {total} inputs, the checker rejecting {as_wanted}{first}", failures.len())
                } else {
                    format!("fails {} of {total} inputs{first}", failures.len())
                },
            },
            Expect::PassOrTimeout => Check {
                what: format!("the correct example `{}` fails no input but by running out of time", example.id),
                passed: timeouts == failures.len(),
                detail: match failures.iter().find(|(_, _, kind)| *kind != Some(FailureKind::Timeout)) {
                    Some((shown, why, _)) => format!("fails {} of {total} inputs{}; first not by time on {shown}: {why}", failures.len(), stopped(not_run)),
                    None => format!("runs out of time on {timeouts} of {total} inputs{first}, and gives no wrong output"),
                },
            },
            Expect::FailAs(kind) => Check {
                what: format!("the example `{}` fails some input by {}", example.id, kind.by()),
                passed: as_wanted > 0,
                detail: if failures.is_empty() {
                    never_shown()
                } else {
                    format!("fails {} of {total} inputs, {as_wanted} of them by {}{first}", failures.len(), kind.by())
                },
            },
        });
    }

    let mut samples: Vec<Sample> = Vec::new();
    let zero_run = zero.as_ref().ok().zip(zero_reference);
    let reference_runs = runs.iter().map(|r| r.clone().unwrap_or_else(|| Err(NOT_RUN.to_owned())));
    for (input, reference) in zero_run.into_iter().chain(inputs.iter().copied().zip(reference_runs)) {
        if samples.len() == SAMPLES {
            break;
        }
        let input = shown_text(input);
        if samples.iter().all(|s| s.input != input) {
            let output = match reference {
                Ok(run) => shown_text(&run.stdout),
                Err(reason) => format!("({reason})"),
            };
            samples.push(Sample { input, output });
        }
    }

    let cost = Cost::of(handled.iter().map(|(_, r)| r.fuel_used).collect(), problem.fuel.reference);
    ProblemCheck { inputs: (generated.len() + generator_not_run) as u64, checks, samples, cost, checker_cost }
}

/// Bytes as text, cut to [`SAMPLE_CHARS`].
fn shown_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(SAMPLE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}

/// An input quoted in a sentence.
fn shown(bytes: &[u8]) -> String {
    format!("{:?}", shown_text(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{Execution, RunOutcome};

    /// Inputs are a number below 100; the reference doubles it. Program 1 doubles it too,
    /// program 2 is wrong for 7; `replays` says whether the generator is deterministic.
    struct Doubling {
        replays: bool,
        counter: std::sync::atomic::AtomicU64,
    }

    impl Executor for Doubling {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            let mut n = choices.choice(99).unwrap();
            if !self.replays {
                // Like a generator reading the clock: no two runs alike.
                n += self.counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            (Ok(n.to_string().into_bytes()), choices)
        }
        fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
            let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
            let answer = if program == 2 && n == 7 { 15 } else { 2 * n };
            // Program 3 is right, and slow on 42: three fifths of its budget.
            let fuel_used = if program == 3 && n == 42 { fuel * 3 / 5 } else { 100 + n };
            Execution { outcome: RunOutcome::Success, stdout: format!("{answer}\n").into_bytes(), fuel_used }
        }
    }

    fn check(replays: bool) -> ProblemCheck {
        let examples = [Example { id: "correct".into(), program: 1, expect: Expect::Pass }, Example { id: "buggy".into(), program: 2, expect: Expect::Fail }];
        check_problem(&Problem::default(), &Doubling { replays, counter: Default::default() }, &examples)
    }

    fn passed(check: &ProblemCheck) -> Vec<(&str, bool)> {
        check.checks.iter().map(|c| (c.what.as_str(), c.passed)).collect()
    }

    #[test]
    fn a_sound_problem_passes_every_check_and_shows_its_simplest_input_first() {
        let report = check(true);
        assert!(report.passed(), "{:#?}", report.checks);
        assert_eq!(report.checks.len(), 6, "no checker: five checks of the problem and one per example ({:?})", passed(&report));
        assert_eq!(report.samples[0], Sample { input: "0".into(), output: "0\n".into() });
        assert_eq!(report.samples.len(), SAMPLES);
        assert_eq!((report.cost.min, report.cost.max), (100, 199));
        assert!(report.checks[5].detail.starts_with("fails ") && report.checks[5].detail.contains("on \"7\""), "{}", report.checks[5].detail);
    }

    /// [`Doubling`] with an input validator that refuses inputs above `limit`.
    struct Validated {
        limit: u64,
        inner: Doubling,
    }

    impl Executor for Validated {
        fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            self.inner.generate(choices)
        }
        fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
            self.inner.run(program, input, fuel)
        }
        fn validate_input(&self, input: &[u8]) -> Option<Result<(), String>> {
            let n: u64 = std::str::from_utf8(input).unwrap().parse().unwrap();
            Some(if n <= self.limit { Ok(()) } else { Err(format!("{n} is more than {}", self.limit)) })
        }
    }

    #[test]
    fn an_input_validator_is_asked_of_every_input_and_one_it_refuses_fails_the_check() {
        let validated = |limit| check_problem(&Problem::default(), &Validated { limit, inner: Doubling { replays: true, counter: Default::default() } }, &[]);
        let report = validated(99);
        let valid = report.checks.iter().find(|c| c.what.starts_with("the input validator accepts")).expect("a check of the inputs");
        assert!(report.passed() && valid.detail == "1000 of 1000 inputs valid", "{valid:?}");
        let report = validated(97);
        let valid = report.checks.iter().find(|c| c.what.starts_with("the input validator accepts")).unwrap();
        assert!(!report.passed() && !valid.passed && valid.detail.contains("inputs refused") && valid.detail.contains("is more than 97"), "{valid:?}");
        assert_eq!(check(true).checks.iter().filter(|c| c.what.contains("input validator")).count(), 0, "none without a validator");
    }

    /// A program stuck in a loop: the generator (every run fails) when `generator`, else
    /// the reference (every run times out). Counts the looping program's runs.
    struct Looping {
        generator: bool,
        runs: std::sync::atomic::AtomicUsize,
    }

    impl Executor for Looping {
        fn generate(&self, mut choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            if self.generator {
                self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return (Err("out of fuel".into()), choices);
            }
            let n = choices.choice(99).unwrap();
            (Ok(n.to_string().into_bytes()), choices)
        }
        fn run(&self, _program: usize, _input: &[u8], fuel: u64) -> Execution {
            self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Execution { outcome: RunOutcome::Timeout, stdout: Vec::new(), fuel_used: fuel }
        }
    }

    /// Checks a problem whose generator or reference loops: the report, and how many runs
    /// of that program it took (a few, not one per input).
    fn looping(generator: bool) -> ProblemCheck {
        let looping = Looping { generator, runs: Default::default() };
        let report = check_problem(&Problem::default(), &looping, &[]);
        let runs = looping.runs.load(std::sync::atomic::Ordering::Relaxed);
        assert!(runs < MAX_FAILURES + 64, "{runs} runs of the looping program");
        assert!(!report.passed());
        report
    }

    #[test]
    fn a_reference_that_always_fails_is_run_a_few_times_not_on_every_input() {
        let report = looping(false);
        let reference = report.checks.iter().find(|c| c.what.starts_with("the reference handles")).unwrap();
        assert!(!reference.passed && reference.detail.contains("the check stopped there"), "{}", reference.detail);
    }

    #[test]
    fn a_generator_that_always_fails_is_run_a_few_times_not_for_every_input() {
        let report = looping(true);
        assert_eq!(report.inputs, CALIBRATION_INPUTS, "the inputs the check was to run on");
        let generator = &report.checks[0];
        assert!(!generator.passed && generator.detail.contains("the check stopped there"), "{}", generator.detail);
    }

    #[test]
    fn a_correct_example_within_twice_of_its_budget_passes_with_a_warning_that_names_the_input() {
        let examples =
            [Example { id: "correct".into(), program: 1, expect: Expect::Pass }, Example { id: "correct-slow".into(), program: 3, expect: Expect::Pass }];
        let report = check_problem(&Problem::default(), &Doubling { replays: true, counter: Default::default() }, &examples);
        assert!(report.passed(), "a warning, not a failure: {:#?}", report.checks);
        let detail = |id: &str| report.checks.iter().find(|c| c.what == format!("the correct example `{id}` passes every input")).unwrap().detail.clone();
        assert!(detail("correct-slow").ends_with("; warning: it uses 60% of its budget on \"42\": a correct program twice as slow would run out of time (raise limits.fuel_factor or hardest_factor, or set fuel_limit)"), "{}", detail("correct-slow"));
        assert!(!detail("correct").contains("warning"), "{}", detail("correct"));
    }

    /// [`Doubling`]'s programs, and program 4: right, but out of time on 13.
    struct Slow;

    impl Executor for Slow {
        fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
            Doubling { replays: true, counter: Default::default() }.generate(choices)
        }
        fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
            match (program, input) {
                (4, b"13") => Execution { outcome: RunOutcome::Timeout, stdout: Vec::new(), fuel_used: fuel },
                (4, _) => Doubling { replays: true, counter: Default::default() }.run(1, input, fuel),
                _ => Doubling { replays: true, counter: Default::default() }.run(program, input, fuel),
            }
        }
    }

    #[test]
    fn a_slow_correct_example_may_run_out_of_time_but_never_give_a_wrong_output() {
        let examples = [
            Example { id: "slowcorrect-13".into(), program: 4, expect: Expect::PassOrTimeout },
            Example { id: "slowcorrect-7".into(), program: 2, expect: Expect::PassOrTimeout },
        ];
        let report = check_problem(&Problem::default(), &Slow, &examples);
        let check =
            |id: &str| report.checks.iter().find(|c| c.what == format!("the correct example `{id}` fails no input but by running out of time")).unwrap();
        assert!(check("slowcorrect-13").passed, "{}", check("slowcorrect-13").detail);
        assert!(check("slowcorrect-13").detail.starts_with("runs out of time on 10 of 1000 inputs"), "{}", check("slowcorrect-13").detail);
        assert!(check("slowcorrect-13").detail.ends_with(", and gives no wrong output"), "{}", check("slowcorrect-13").detail);
        assert!(!check("slowcorrect-7").passed);
        assert!(check("slowcorrect-7").detail.contains("; first not by time on \"7\": wrong"), "{}", check("slowcorrect-7").detail);
    }

    #[test]
    fn a_generator_that_does_not_replay_is_found_out() {
        let report = check(false);
        let what: Vec<(&str, bool)> = passed(&report);
        assert_eq!(what[1], ("the generator replays: the same choices give the same input", false), "{what:?}");
        assert!(!report.passed());
    }

    #[test]
    fn the_course_tests_must_agree_with_the_reference_and_examples_run_on_them_too() {
        let seven = |expected: &str| WrittenTest { name: "seven".into(), input: b"7".to_vec(), expected: Some(expected.as_bytes().to_vec()) };
        let examples = [
            Example { id: "wrong-7".into(), program: 2, expect: Expect::FailAs(FailureKind::Wrong) },
            Example { id: "slow-7".into(), program: 2, expect: Expect::FailAs(FailureKind::Timeout) },
        ];
        let problem = Problem { fixed: vec![seven("14\n")], ..Problem::default() };
        let report = check_problem(&problem, &Doubling { replays: true, counter: Default::default() }, &examples);
        let what = passed(&report);
        assert!(what.contains(&("the reference agrees with the course's 1 test", true)), "{what:?}");
        assert!(what.contains(&("the example `wrong-7` fails some input by giving a wrong output", true)), "{what:?}");
        assert!(what.contains(&("the example `slow-7` fails some input by running out of time", false)), "{what:?}");
        let slow = report.checks.iter().find(|c| c.what.starts_with("the example `slow-7`")).unwrap();
        assert!(
            slow.detail.starts_with("fails 11 of 1001 inputs, 0 of them by running out of time; first on "),
            "{}: every 7 fails, and the course's test",
            slow.detail
        );

        let problem = Problem { fixed: vec![seven("15\n")], ..Problem::default() };
        let report = check_problem(&problem, &Doubling { replays: true, counter: Default::default() }, &[]);
        let course = report.checks.iter().find(|c| c.what.starts_with("the reference agrees")).unwrap();
        assert!(!course.passed);
        assert_eq!(course.detail, "1 of 1 cannot be used; `seven`: expects \"15\\n\", but the model answer gives \"14\\n\"");
    }
}
