//! The grader's [`Executor`], backed by the sandbox: with the problem's [`ExitStatus`] (zero, or any), how a run
//! ended in a student's words, and the checker's framing. Its rounds of runs, and the bug lists, go to
//! [`crate::rounds::RunsElsewhere`] when `Settings::elsewhere` gives one.
//!
//! The grader compares every program in the reference's units: a Python program judged against a compiled reference
//! gets its budget scaled by the Python reference's fuel over the reference's on each input
//! ([`SandboxExecutor::fuel_scale`]), or by [`PYTHON_FUEL_FACTOR`] without one, and its fuel is divided back. A
//! program's run that did not ask for its input (`Run::read_input`: a hand-in whose import fails, one that loops before
//! it reads) is kept ([`InputFree`]) and is the program's run on every later input whose limits give the same run, so
//! it is run once, not once per test.

use grader::{CheckerVerdict, ChoiceSource, Execution, Executor, RunOutcome};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use sandbox::{Choices, Files, Interaction, Limits, Outcome, Program, Run, Sandbox, Speaker};

/// The line a Rust panic adds after its message.
const RUST_BACKTRACE_NOTE: &str = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";

/// How much of a crashing program's stderr is kept in its crash message: its head (where a
/// traceback or a panic says what happened first) and its tail (the exception's line),
/// the middle cut out (`cut_middle`).
const CRASH_MESSAGE_CHARS: usize = 300;

/// Of [`CRASH_MESSAGE_CHARS`], at most this much is the head of stderr.
const CRASH_MESSAGE_HEAD_CHARS: usize = 100;

/// A problem's policy on exit statuses (`exit_status` in `problem.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitStatus {
    /// Only 0 is success; a program that returns another status fails the test.
    #[default]
    Zero,
    /// Any status: the output alone is judged (a trap or a limit still fails).
    Any,
}

/// How many times the fuel of a C, C++ or Rust reference a Python program gets on the same
/// input, for a problem without a Python reference (`reference.py`), whose own runs then
/// set the ratio input by input. CPython runs each line of Python as tens to hundreds of
/// wasm instructions where compiled code runs a few. Measured on interval sets (`cargo
/// bench -p web --bench languages`, 1,000 inputs): each of the 18 Python answers that
/// finish needs 5.8 to 77.7 times the fuel of its Rust or C twin (the same algorithm, the
/// same bug) on the same input, medians 14.7 to 32.3; reference.py 19.5 to 56.3 times
/// reference.rs's. About 1.6 times the worst ratio, so that a correct Python answer is not
/// judged out of time where the same algorithm in C passes; a program too slow by design is
/// still far too slow. (Kattis gives languages time multipliers in the same spirit.)
pub const PYTHON_FUEL_FACTOR: u64 = 128;

/// Runs a problem's generator, its reference (program 0) and answer programs (1 and up).
pub struct SandboxExecutor<'a> {
    pub sandbox: &'a Sandbox,
    pub generator: &'a Program,
    /// Index 0 is the reference.
    pub programs: Vec<&'a Program>,
    /// The problem's checker, for problems whose oracle is a checker or a validator.
    pub checker: Option<&'a Program>,
    /// How the checker is asked.
    pub protocol: Protocol<'a>,
    /// The problem's input validator and its arguments, where it has one: an input is valid
    /// when it accepts it with one of them (see [`Executor::validate_input`]).
    pub input_validator: Option<(&'a Program, Vec<&'a [String]>)>,
    /// The problem's Python reference (`reference.py`) beside a compiled one: what sets a
    /// Python answer's fuel on each input (see [`SandboxExecutor::fuel_scale`]).
    pub python_reference: &'a PythonReference,
    /// Memory and output limits; the fuel here is the generator's.
    pub limits: Limits,
    /// Whether a non-zero exit status fails a run (the problem's `exit_status`).
    pub exit_status: ExitStatus,
    /// Once set, no program is run any more: every run ends at once as a timeout, so that
    /// a cancelled analysis reaches its next progress report, and stops, within the runs
    /// already in flight.
    pub cancel: Option<&'a AtomicBool>,
    /// Counts every run of a program or of the generator, when given: a problem check's
    /// progress.
    pub runs_made: Option<&'a AtomicU64>,
    /// Runs that went the same way whatever the input: each program's is run once.
    pub input_free: InputFree,
    /// Where rounds of runs may be made besides this process's pool, and the digest of
    /// these programs there ([`SandboxExecutor::programs_digest`]). Default none.
    pub elsewhere: Option<(&'a dyn crate::rounds::RunsElsewhere, [u8; 32])>,
}

/// The runs of programs that ended without asking for their input (a hand-in whose
/// import fails, a program that crashes or loops before it reads): such a program does
/// the same on every input ([`Run::read_input`]), so it is run once, not once per test, and
/// every later run within limits that give the same run is that run. A large class has a
/// few such hand-ins, and one that loops before it reads costs its whole budget on every
/// input.
#[derive(Default)]
pub struct InputFree {
    /// By program: the limits of its run that did not ask for its input, and that run.
    runs: Mutex<HashMap<usize, (Limits, Run)>>,
    spared: AtomicU64,
}

impl InputFree {
    /// The run `program` makes within `limits`, if an earlier run that did not ask for its
    /// input tells it, with the same memory and output limits: for a run that ended within
    /// its fuel, any fuel above what it used (with no more, it may run out first); for one
    /// that ran out of fuel, the same fuel, or any less if it wrote nothing at all (it then
    /// runs out sooner, having written nothing either); with more it may get further.
    fn get(&self, program: usize, limits: &Limits) -> Option<Run> {
        let runs = self.runs.lock().expect("the input-free runs are never poisoned");
        let (ran, run) = runs.get(&program)?;
        let same_bounds = ran.memory_bytes == limits.memory_bytes && ran.output_bytes == limits.output_bytes;
        let silent = run.stdout.is_empty() && run.printed.is_empty() && run.stderr.is_empty();
        let same_end = match run.outcome {
            Outcome::Timeout if silent => limits.fuel <= ran.fuel,
            Outcome::Timeout => limits.fuel == ran.fuel,
            _ => run.fuel_used < limits.fuel,
        };
        (same_bounds && same_end).then(|| {
            self.spared.fetch_add(1, Ordering::Relaxed);
            // (A time-out kept used all its fuel: one with less uses all of that.)
            Run { fuel_used: run.fuel_used.min(limits.fuel), ..run.clone() }
        })
    }

    /// Keeps `run` of `program` within `limits` if it did not ask for its input, in place of
    /// one kept with less fuel (which tells less). A time-out is kept only when it used all
    /// its fuel: one the wall clock ended (a busy machine) says nothing of another run.
    fn keep(&self, program: usize, limits: Limits, run: &Run) {
        let by_the_clock = run.outcome == Outcome::Timeout && run.fuel_used < limits.fuel;
        if !run.read_input && !by_the_clock {
            let mut runs = self.runs.lock().expect("the input-free runs are never poisoned");
            if runs.get(&program).is_none_or(|(kept, _)| kept.fuel < limits.fuel) {
                runs.insert(program, (limits, run.clone()));
            }
        }
    }

    /// How many runs were not made because an earlier one told them.
    pub fn spared(&self) -> u64 {
        self.spared.load(Ordering::Relaxed)
    }
}

impl SandboxExecutor<'_> {
    /// How a program's `run` within `limits` ended, as the grader sees it: by the
    /// problem's exit-status policy, a crash said in plain words.
    fn run_outcome(&self, run: &Run, limits: &Limits) -> RunOutcome {
        match &run.outcome {
            Outcome::Exited(0) => RunOutcome::Success,
            Outcome::Exited(_) if self.exit_status == ExitStatus::Any => RunOutcome::Success,
            Outcome::Timeout => RunOutcome::Timeout,
            // (Python's MemoryError is running out of memory, whether or not the limit
            // was reached: the allocation asked for may not even fit in 4 GiB.)
            Outcome::OutOfMemory => RunOutcome::Memory,
            Outcome::Uncaught(line) if line == "MemoryError" || line.starts_with("MemoryError:") => RunOutcome::Memory,
            Outcome::OutputLimit => RunOutcome::Output,
            crash @ (Outcome::Exited(_) | Outcome::Trap(_) | Outcome::StackOverflow | Outcome::Uncaught(_)) => {
                RunOutcome::Crash(crash_message(crash, &run.stderr, limits))
            }
        }
    }

    /// Program `program` on `input` within `limits` talking with the problem's
    /// `interactor` (the judges' protocol: [`Protocol::Interactive`]), judged as judges
    /// judge it: the interactor's verdict when it came before the program's end (a wrong
    /// answer, then a loop, is a wrong answer), else the program's failure if it failed
    /// (it ended first: a stall, a crash, a time-out), else the interactor's verdict. The
    /// execution's output is the dialogue ([`transcript`]); its fuel, the program's, in
    /// units of `scale` (see [`SandboxExecutor::fuel_scale`]).
    fn interact(&self, program: &Program, (interactor, files): (&Program, Files), limits: &Limits, scale: u64) -> Execution {
        self.count_run();
        let done = self
            .sandbox
            .interact(program, limits, interactor, files, &self.judges_limits())
            .unwrap_or_else(|error| panic!("the sandbox failed to run a program with the interactor: {error}"));
        let judged = match self.judges_verdict(&done.interactor, "interactor") {
            Ok(CheckerVerdict::Accept) => None,
            Ok(CheckerVerdict::Reject(reason)) => Some(RunOutcome::Rejected(reason)),
            Err(failure) => Some(RunOutcome::InteractorFailed(failure)),
        };
        let own = self.run_outcome(&done.program, limits);
        let outcome = match judged {
            Some(judged) if !done.interactor_saw_end => judged,
            _ if own != RunOutcome::Success => own,
            judged => judged.unwrap_or(RunOutcome::Success),
        };
        Execution { outcome, stdout: transcript(&done), fuel_used: done.program.fuel_used.div_ceil(scale) }
    }

    /// An interactive problem's interactor and its files on `input` (its arguments, the
    /// input and the answer file: a course's test's expected output on that test's
    /// input, else empty); `None` for any other problem.
    fn interactor(&self, input: &[u8]) -> Option<(&Program, Files)> {
        let (Protocol::Interactive { flags, tests }, Some(interactor)) = (self.protocol, self.checker) else { return None };
        let answer = tests.iter().find(|test| test.input == input).and_then(|test| test.expected.as_deref()).unwrap_or_default();
        Some((interactor, validator_files(input, answer, flags)))
    }

    /// A judges' validator's or interactor's verdict from its `run` (exit status 42
    /// accepts, 43 rejects with `judgemessage.txt` as the reason); `Err` says how it
    /// failed, naming it as `what`.
    fn judges_verdict(&self, run: &Run, what: &str) -> Result<CheckerVerdict, String> {
        match run.outcome {
            Outcome::Exited(VALIDATOR_ACCEPTS) => Ok(CheckerVerdict::Accept),
            Outcome::Exited(VALIDATOR_REJECTS) => Ok(CheckerVerdict::Reject(feedback(&run.written, JUDGE_MESSAGE_FILE).unwrap_or_default())),
            Outcome::Exited(status) => Err(format!(
                "the {what} exited with status {status}, not {VALIDATOR_ACCEPTS} (accepted) or {VALIDATOR_REJECTS} (wrong answer){}",
                feedback(&run.written, JUDGE_ERROR_FILE).map(|error| format!(": {error}")).unwrap_or_default()
            )),
            ref outcome => Err(format!("the {what} {}", crash_message(outcome, &run.stderr, &self.judges_limits()))),
        }
    }

    /// A testlib checker's verdict from its `run`: exit status 0 accepts; 1 (wrong
    /// answer), 2 (presentation error) and 8 (unexpected end of the output) reject, with
    /// what it wrote on stderr as the reason (testlib's `quitf` message, e.g. "wrong answer
    /// expected 6, found 10"); `Err` for any other (3 is testlib's `_fail`, the checker's
    /// own failure; 7 gives points, which bugrank does not grade) or a crash.
    fn testlib_verdict(&self, run: &Run) -> Result<CheckerVerdict, String> {
        let said = cut_middle(String::from_utf8_lossy(&run.stderr).trim());
        match run.outcome {
            Outcome::Exited(0) => Ok(CheckerVerdict::Accept),
            Outcome::Exited(1 | 2 | 8) => Ok(CheckerVerdict::Reject(said)),
            Outcome::Exited(status) => Err(format!(
                "the testlib checker exited with status {status}, not 0 (ok), 1 (wrong answer), 2 (presentation error) or 8 (unexpected end of file){}",
                if said.is_empty() { String::new() } else { format!(": {said}") }
            )),
            ref outcome => Err(format!("the testlib checker {}", crash_message(outcome, &run.stderr, &self.judges_limits()))),
        }
    }

    /// The limits of a run of a judges' program (a validator of inputs or outputs, an
    /// interactor): the problem's memory and output limits, and [`JUDGES_PROGRAM_FUEL`].
    fn judges_limits(&self) -> Limits {
        Limits { fuel: JUDGES_PROGRAM_FUEL, ..self.limits }
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    fn count_run(&self) {
        if let Some(runs) = self.runs_made {
            runs.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many units of fuel `program` gets for each unit of its budget (the grader's
    /// budgets are in the reference's fuel): 1, but for a Python program judged against a
    /// compiled reference, which gets the Python reference's fuel on `input` divided by the
    /// reference's (rounded up), or [`PYTHON_FUEL_FACTOR`] without a Python reference (or
    /// where it fails). The run's fuel is divided back, so the grader, and a student's
    /// bug list, compare it with the reference's as for any program.
    pub fn fuel_scale(&self, program: usize, input: &[u8]) -> u64 {
        if self.programs[program].interpreter().is_none() || self.programs[0].interpreter().is_some() {
            return 1;
        }
        let Some(Ok(python)) = self.python_reference.program(self.sandbox) else { return PYTHON_FUEL_FACTOR };
        if let Some(ratio) = self.python_reference.ratio(input) {
            return ratio;
        }
        let limits = Limits { fuel: self.limits.fuel, ..self.limits };
        // (An interactive problem's programs are measured in their dialogues.)
        let fuel = |program: &Program, fuel: u64| match self.interactor(input) {
            Some(interactor) => {
                let done = self.interact(program, interactor, &Limits { fuel, ..limits }, 1);
                (done.outcome == RunOutcome::Success).then_some(done.fuel_used.max(1))
            }
            None => match self.sandbox.run(program, input, &Limits { fuel, ..limits }) {
                Ok(run) if run.outcome.is_success() => Some(run.fuel_used.max(1)),
                _ => None,
            },
        };
        let ratio = match (fuel(self.programs[0], limits.fuel), fuel(python, limits.fuel.saturating_mul(PYTHON_FUEL_FACTOR))) {
            (Some(reference), Some(python)) => python.div_ceil(reference).max(1),
            _ => PYTHON_FUEL_FACTOR,
        };
        self.python_reference.keep_ratio(input, ratio);
        ratio
    }
}

impl SandboxExecutor<'_> {
    /// SHA-256 of what this executor runs: the generator, every program in order (the
    /// reference first) and the checker. Two processes whose executors have the same
    /// digest make the same run of program `p` on an input.
    pub fn programs_digest(&self) -> [u8; 32] {
        use sha2::Digest;
        let mut digest = sha2::Sha256::new();
        for program in std::iter::once(self.generator).chain(self.programs.iter().copied()).chain(self.checker) {
            digest.update(program.hash());
        }
        digest.finalize().into()
    }
}

/// A problem's `reference.py` beside a compiled reference, compiled the first time a
/// Python answer needs it (a class without Python pays nothing: not even the interpreter's
/// snapshot), and its fuel over the reference's, by input: each input is measured once,
/// whatever the number of Python answers run on it. Forgets the ratios beyond
/// [`PythonReference::MAX_INPUTS`] (a long search's inputs are seen once or twice each).
#[derive(Debug, Default)]
pub struct PythonReference {
    path: Option<std::path::PathBuf>,
    /// The problem's Python harness, which a function-level problem's `reference.py` is
    /// run by.
    harness: Option<toolchain::Harness>,
    program: std::sync::OnceLock<Result<Program, String>>,
    ratios: std::sync::Mutex<std::collections::HashMap<Vec<u8>, u64>>,
}

impl PythonReference {
    const MAX_INPUTS: usize = 10_000;

    /// The Python reference at `path` (`None`: the problem has none), run by `harness` in
    /// a function-level problem.
    pub fn at(path: Option<std::path::PathBuf>, harness: Option<toolchain::Harness>) -> PythonReference {
        PythonReference { path, harness, ..PythonReference::default() }
    }

    /// Whether the problem has one.
    pub fn is_present(&self) -> bool {
        self.path.is_some()
    }

    /// The program, compiled on first use: `None` without one, `Err` with the reason it
    /// cannot be used (it does not compile, say).
    pub fn program(&self, sandbox: &Sandbox) -> Option<Result<&Program, &str>> {
        let path = self.path.as_ref()?;
        let program = self.program.get_or_init(|| crate::load::python_program(sandbox, path, self.harness.as_ref()).map_err(|e| format!("{e:#}")));
        Some(program.as_ref().map_err(String::as_str))
    }

    fn ratio(&self, input: &[u8]) -> Option<u64> {
        self.ratios.lock().expect("ratios poisoned").get(input).copied()
    }

    fn keep_ratio(&self, input: &[u8], ratio: u64) {
        let mut ratios = self.ratios.lock().expect("ratios poisoned");
        if ratios.len() >= Self::MAX_INPUTS {
            ratios.clear();
        }
        ratios.insert(input.to_vec(), ratio);
    }
}

/// Lends the grader's choice source to the sandbox's generator host functions.
struct Recorder(ChoiceSource);

impl Choices for Recorder {
    fn choice(&mut self, max: u64) -> Option<u64> {
        self.0.choice(max)
    }
    fn size(&self) -> u32 {
        self.0.size()
    }
}

impl Executor for SandboxExecutor<'_> {
    fn generate(&self, choices: ChoiceSource) -> (Result<Vec<u8>, String>, ChoiceSource) {
        self.count_run();
        // Generators still run after a cancel: they are quick, and the search relies on a
        // replayed test giving its input again.
        match self.sandbox.generate(self.generator, Recorder(choices), &self.limits) {
            Ok((run, Recorder(choices))) => {
                let result = match run.outcome {
                    Outcome::Exited(0) => Ok(run.stdout),
                    outcome => Err(crash_message(&outcome, &run.stderr, &self.limits)),
                };
                (result, choices)
            }
            Err(error) => panic!("the sandbox failed to run the generator: {error}"),
        }
    }

    fn run_all(&self, runs: &[grader::RunRequest<'_>]) -> Vec<Execution> {
        match self.elsewhere {
            Some((elsewhere, programs)) if !self.cancelled() => elsewhere.run_all(&programs, runs, &|here| grader::run_here(self, here)),
            _ => grader::run_here(self, runs),
        }
    }

    fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
        if self.cancelled() {
            return Execution { outcome: RunOutcome::Timeout, stdout: Vec::new(), fuel_used: fuel };
        }
        self.count_run();
        let scale = self.fuel_scale(program, input);
        let limits = Limits { fuel: fuel.saturating_mul(scale), ..self.limits };
        if let Some(interactor) = self.interactor(input) {
            return self.interact(self.programs[program], interactor, &limits, scale);
        }
        let run = self.input_free.get(program, &limits).unwrap_or_else(|| {
            let run = self.sandbox.run(self.programs[program], input, &limits).unwrap_or_else(|error| panic!("the sandbox failed to run a program: {error}"));
            self.input_free.keep(program, limits, &run);
            run
        });
        Execution { outcome: self.run_outcome(&run, &limits), stdout: run.stdout, fuel_used: run.fuel_used.div_ceil(scale) }
    }

    fn check(&self, input: &[u8], expected: &[u8], actual: &[u8]) -> Result<CheckerVerdict, String> {
        self.check_counted(input, expected, actual).map(|(verdict, _)| verdict)
    }

    /// The judges' protocol for input validators: `validator FLAGS... < input`, exit
    /// status 42 for a valid input and any other (43, or a failed `assert` of a Python one:
    /// problemtools reads them alike) for an invalid one, whose reason is its
    /// `judgemessage.txt`, else its stderr's end (a Python one's uncaught exception). A
    /// validator that crashes, loops or runs out of memory has failed, which is the
    /// problem's error. With several lists of flags (test groups'), an input is valid when
    /// one accepts it; refused by all, the reason is the first's.
    fn validate_input(&self, input: &[u8]) -> Option<Result<(), String>> {
        let (validator, flag_sets) = self.input_validator.as_ref()?;
        let mut first_refusal = None;
        for flags in flag_sets {
            self.count_run();
            let files = Files { args: flags.to_vec(), read: Vec::new(), directory: VALIDATOR_FEEDBACK.to_owned() };
            let run = match self.sandbox.run_with_files(validator, input, files, &self.judges_limits()) {
                Ok(run) => run,
                Err(error) => return Some(Err(error.to_string())),
            };
            let reason = match run.outcome {
                Outcome::Exited(VALIDATOR_ACCEPTS) => return Some(Ok(())),
                Outcome::Exited(status) => feedback(&run.written, JUDGE_MESSAGE_FILE)
                    .or_else(|| Some(cut_middle(String::from_utf8_lossy(&run.stderr).trim())).filter(|said| !said.is_empty()))
                    .unwrap_or_else(|| format!("the input validator exited with {status}, saying nothing")),
                Outcome::Uncaught(line) => feedback(&run.written, JUDGE_MESSAGE_FILE).unwrap_or(line),
                outcome => return Some(Err(format!("the input validator failed: {}", crash_message(&outcome, &run.stderr, &self.judges_limits())))),
            };
            let reason = match flag_sets.len() {
                1 => reason,
                _ => format!("refused with each test group's flags; with `{}`: {reason}", flags.join(" ")),
            };
            first_refusal.get_or_insert(reason);
        }
        Some(Err(first_refusal.unwrap_or_else(|| "the input validator has no flags to run with".to_owned())))
    }

    fn check_counted(&self, input: &[u8], expected: &[u8], actual: &[u8]) -> Result<(CheckerVerdict, Option<(u64, u64)>), String> {
        let checker = self.checker.ok_or("the problem has no checker.wasm")?;
        self.count_run();
        let run = match self.protocol {
            Protocol::Bugrank => self.sandbox.run(checker, &checker_input(input, expected, actual), &self.limits),
            Protocol::Judges(flags) => self.sandbox.run_with_files(checker, actual, validator_files(input, expected, flags), &self.judges_limits()),
            Protocol::Testlib => self.sandbox.run_with_files(checker, b"", testlib_files(input, expected, actual), &self.judges_limits()),
            Protocol::Interactive { .. } => return Err("an interactive problem's runs are judged by its interactor as they run".to_owned()),
        };
        let run = run.map_err(|error| error.to_string())?;
        match (self.protocol, &run.outcome) {
            (Protocol::Bugrank, Outcome::Exited(0)) => parse_checker_output(&run.stdout).map(|verdict| (verdict, Some((run.fuel_used, self.limits.fuel)))),
            (Protocol::Judges(_), _) => self.judges_verdict(&run, "validator").map(|verdict| (verdict, Some((run.fuel_used, JUDGES_PROGRAM_FUEL)))),
            (Protocol::Testlib, _) => self.testlib_verdict(&run).map(|verdict| (verdict, Some((run.fuel_used, JUDGES_PROGRAM_FUEL)))),
            (_, outcome) => Err(crash_message(outcome, &run.stderr, &self.limits)),
        }
    }
}

/// How a problem's checker is asked (`problem.toml`'s `oracle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol<'a> {
    /// bugrank's (`oracle = "checker"`): the input, the reference's output and the
    /// answer's framed on stdin ([`checker_input`]), `accept` or `reject: reason` on stdout.
    Bugrank,
    /// The judges' (`oracle = "validator"`: problemtools, Kattis, DOMjudge):
    /// `validator INPUT ANSWER FEEDBACK_DIR FLAGS... < OUTPUT`, with the reference's output
    /// as the judges' answer ([`validator_files`]); exit status 42 accepts, 43 rejects with
    /// `judgemessage.txt` as the reason, and any other ends as the validator's failure.
    Judges(&'a [String]),
    /// The judges' interactive protocol (`oracle = "interactive"`): the checker is the
    /// interactor, run beside every program as `interactor INPUT ANSWER FEEDBACK_DIR
    /// FLAGS...` with the program's stdout as its stdin and its stdout as the program's
    /// stdin (`Sandbox::interact`); its exit status judges the dialogue as a validator's
    /// does ([`SandboxExecutor::judges_verdict`]). Its judges' answer file is the course's
    /// test's expected output (`tests/NAME.out`, a package's `.ans`) on that test's input,
    /// else empty: a generated input has none.
    Interactive { flags: &'a [String], tests: &'a [grader::WrittenTest] },
    /// A testlib.h checker's (`[validator] protocol = "testlib"`, `registerTestlibCmd`):
    /// `checker INPUT OUTPUT ANSWER` with the answer's output as a file and nothing on
    /// stdin ([`testlib_files`]); exit status 0 accepts, 1, 2 and 8 reject with its stderr
    /// as the reason, any other is its failure (`SandboxExecutor::testlib_verdict`).
    Testlib,
}

/// A dialogue as judges write one (problemtools' `.interaction` files): each line the
/// program wrote after `>`, each line it was sent after `<`, in the program's order; then
/// what the interactor wrote that the program never read. A line cut by the other side's
/// turn is ended there.
pub fn transcript(interaction: &Interaction) -> Vec<u8> {
    let read: usize = interaction.dialogue.iter().filter(|(who, _)| *who == Speaker::Interactor).map(|(_, said)| said.len()).sum();
    let unread = interaction.interactor.stdout.get(read..).unwrap_or_default();
    let turns = interaction.dialogue.iter().map(|(who, said)| (*who, said.as_slice())).chain((!unread.is_empty()).then_some((Speaker::Interactor, unread)));
    let mut text = Vec::new();
    for (who, said) in turns {
        let mark = if who == Speaker::Program { b'>' } else { b'<' };
        for line in said.split_inclusive(|&b| b == b'\n') {
            text.push(mark);
            text.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                text.push(b'\n');
            }
        }
    }
    text
}

/// A validator's exit status for an accepted output, and for a wrong answer (the judges'
/// protocol).
pub const VALIDATOR_ACCEPTS: i32 = 42;
pub const VALIDATOR_REJECTS: i32 = 43;

/// The largest `limits.reference_fuel` a problem may set: some 30 s of the reference on
/// one input (the sandbox's wall clock stops a run there anyway), so that a bundle cannot
/// make its check, or an analysis's calibration, run for hours.
pub const MAX_REFERENCE_FUEL: u64 = 10_000_000_000;

/// The fuel of a run of a judges' program (an input or output validator, an interactor):
/// problemtools gives them a minute (`validation_time`), longer than the sandbox's wall
/// clock lets a run go, so as much as a reference may ever have, [`MAX_REFERENCE_FUEL`].
/// (The problem's `reference_fuel`, which they had before, 1 billion by default, stopped
/// a Python input validator's regular expressions and `int`s over a 1 MB input, which
/// took 1.0003 billion.)
pub const JUDGES_PROGRAM_FUEL: u64 = MAX_REFERENCE_FUEL;

/// Where a validator's run finds its files (absolute paths in the sandbox).
const VALIDATOR_INPUT: &str = "/judge/input";
const VALIDATOR_ANSWER: &str = "/judge/answer";
const VALIDATOR_FEEDBACK: &str = "/judge/feedback";

/// The feedback files whose text a student or an author is shown: the reason of a wrong
/// answer, and a judge error's.
const JUDGE_MESSAGE_FILE: &str = "judgemessage.txt";
const JUDGE_ERROR_FILE: &str = "judgeerror.txt";

/// A validator's arguments and files for judging `actual` on `input` against the
/// reference's `expected`: what [`Protocol::Judges`] gives it.
fn validator_files(input: &[u8], expected: &[u8], flags: &[String]) -> Files {
    let mut args = vec![VALIDATOR_INPUT.to_owned(), VALIDATOR_ANSWER.to_owned(), format!("{VALIDATOR_FEEDBACK}/")];
    args.extend(flags.iter().cloned());
    Files {
        args,
        read: vec![(VALIDATOR_INPUT.to_owned(), input.to_vec()), (VALIDATOR_ANSWER.to_owned(), expected.to_vec())],
        directory: VALIDATOR_FEEDBACK.to_owned(),
    }
}

/// Where a testlib checker's run finds the output it judges.
const TESTLIB_OUTPUT: &str = "/judge/output";

/// A testlib checker's arguments and files for judging `actual` on `input` against the
/// reference's `expected`: what [`Protocol::Testlib`] gives it.
fn testlib_files(input: &[u8], expected: &[u8], actual: &[u8]) -> Files {
    let read = [(VALIDATOR_INPUT, input), (TESTLIB_OUTPUT, actual), (VALIDATOR_ANSWER, expected)];
    Files {
        args: read.iter().map(|(name, _)| (*name).to_owned()).collect(),
        read: read.iter().map(|(name, bytes)| ((*name).to_owned(), bytes.to_vec())).collect(),
        directory: VALIDATOR_FEEDBACK.to_owned(),
    }
}

/// The text of the feedback file `name`, trimmed, if the validator wrote any.
fn feedback(written: &[(String, Vec<u8>)], name: &str) -> Option<String> {
    let (_, bytes) = written.iter().find(|(file, _)| file == name)?;
    let text = String::from_utf8_lossy(bytes).trim().to_owned();
    (!text.is_empty()).then(|| cut_middle(&text))
}

/// The checker's stdin: the test input, the reference's output and the answer's output,
/// each as its length in decimal, a newline, and the bytes.
pub fn checker_input(input: &[u8], expected: &[u8], actual: &[u8]) -> Vec<u8> {
    let mut framed = Vec::with_capacity(input.len() + expected.len() + actual.len() + 30);
    for part in [input, expected, actual] {
        framed.extend_from_slice(format!("{}\n", part.len()).as_bytes());
        framed.extend_from_slice(part);
    }
    framed
}

/// The checker's stdout: one line, `accept` or `reject` optionally followed by `: reason`.
pub fn parse_checker_output(stdout: &[u8]) -> Result<CheckerVerdict, String> {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().next().unwrap_or("").trim_end();
    if line == "accept" {
        return Ok(CheckerVerdict::Accept);
    }
    match line.strip_prefix("reject") {
        Some("") => Ok(CheckerVerdict::Reject(String::new())),
        Some(rest) if rest.starts_with(':') => Ok(CheckerVerdict::Reject(rest[1..].trim().to_owned())),
        _ => Err(format!("the checker wrote {line:?}, not `accept` or `reject: reason`")),
    }
}

/// What a student sees of a crash: the end of stderr (a panic message, say) and how it ended
/// (within `limits`: a stack overflow names the problem's stack).
fn crash_message(outcome: &Outcome, stderr: &[u8], limits: &Limits) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    // Rust's advice to set RUST_BACKTRACE is for the program's author at a terminal: in a
    // bug list it is noise (and nothing the student can set).
    let stderr = stderr.replace(RUST_BACKTRACE_NOTE, "");
    let kept = cut_middle(stderr.trim());
    let said = in_words(outcome, limits);
    if kept.is_empty() { said } else { format!("{said}; stderr: {kept}") }
}

/// `text` if it has at most [`CRASH_MESSAGE_CHARS`] characters; else its head (at most
/// [`CRASH_MESSAGE_HEAD_CHARS`], ending at a line's end where there is one) and its tail
/// (the rest of the characters, starting at a line's start where there is one), with " … "
/// between: a long traceback keeps its first line and the exception at its end.
fn cut_middle(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= CRASH_MESSAGE_CHARS {
        return text.to_owned();
    }
    let mut head = &chars[..CRASH_MESSAGE_HEAD_CHARS];
    if let Some(end) = head.iter().rposition(|&c| c == '\n') {
        head = &head[..end];
    }
    let mut tail = &chars[chars.len() - (CRASH_MESSAGE_CHARS - head.len())..];
    if let Some(start) = tail.iter().position(|&c| c == '\n') {
        tail = &tail[start + 1..];
    }
    format!("{} … {}", head.iter().collect::<String>().trim_end(), tail.iter().collect::<String>().trim_start())
}

/// How a run ended, as a student reads it: a program's exit status and the engine's traps
/// said in plain words (wasmtime's own message kept for a trap this does not know).
fn in_words(outcome: &Outcome, limits: &Limits) -> String {
    const TRAPS: [(&str, &str); 7] = [
        ("out of bounds memory access", "it read or wrote outside its memory (an index past the end of an array, or a bad pointer)"),
        ("integer divide by zero", "it divided an integer by zero"),
        ("integer overflow", "an integer division overflowed (the smallest integer divided by -1)"),
        ("`unreachable` instruction executed", "it aborted (a failed assert, a call to abort(), or a panic)"),
        ("invalid conversion to integer", "it converted a number too large for its integer type (or not a number) to an integer"),
        ("indirect call", "it called a function through a bad function pointer"),
        ("uninitialized element", "it called a function through a bad function pointer"),
    ];
    match outcome {
        Outcome::Exited(code) => format!("ended with exit status {code} instead of 0 (main returned {code}, or exit({code}) was called)"),
        // (A problem's own stack holds its local variables and its calls alike.)
        Outcome::StackOverflow if limits.stack_bytes != sandbox::MAX_WASM_STACK_BYTES => {
            format!("overflowed its stack: more than {} MiB of local variables and calls at once, or recursion too deep", limits.stack_bytes >> 20)
        }
        Outcome::StackOverflow => {
            format!("overflowed its stack: more than {} MiB of local variables at once, or recursion too deep", toolchain::STACK_BYTES >> 20)
        }
        Outcome::Trap(message) => match TRAPS.iter().find(|(engine, _)| message.contains(engine)) {
            Some((_, words)) => format!("crashed: {words}"),
            None => format!("crashed: {message}"),
        },
        Outcome::Uncaught(line) => format!("crashed: an exception was raised and not caught: {line}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_a_run_ended_is_said_in_plain_words() {
        let check = |outcome: Outcome, stderr: &str, expected: &str| assert_eq!(crash_message(&outcome, stderr.as_bytes(), &Limits::default()), expected);
        check(Outcome::Exited(1), "", "ended with exit status 1 instead of 0 (main returned 1, or exit(1) was called)");
        check(Outcome::Trap("wasm trap: integer divide by zero".into()), "", "crashed: it divided an integer by zero");
        check(
            Outcome::Trap("wasm trap: out of bounds memory access".into()),
            "",
            "crashed: it read or wrote outside its memory (an index past the end of an array, or a bad pointer)",
        );
        check(
            Outcome::Trap("wasm trap: wasm `unreachable` instruction executed".into()),
            "thread 'main' panicked at src/main.rs:3:5",
            "crashed: it aborted (a failed assert, a call to abort(), or a panic); stderr: thread 'main' panicked at src/main.rs:3:5",
        );
        check(Outcome::StackOverflow, "", "overflowed its stack: more than 8 MiB of local variables at once, or recursion too deep");
        let judges = Limits { stack_bytes: 256 << 20, ..Limits::default() };
        assert_eq!(
            crash_message(&Outcome::StackOverflow, b"", &judges),
            "overflowed its stack: more than 256 MiB of local variables and calls at once, or recursion too deep"
        );
        check(Outcome::Trap("something new".into()), "", "crashed: something new");
        check(
            Outcome::Uncaught("ZeroDivisionError: division by zero".into()),
            "Traceback (most recent call last):\n  File \"a01.py\", line 2, in <module>\n    print(1 // 0)\nZeroDivisionError: division by zero\n",
            "crashed: an exception was raised and not caught: ZeroDivisionError: division by zero; stderr: Traceback (most recent call last):\n  File \"a01.py\", line 2, in <module>\n    print(1 // 0)\nZeroDivisionError: division by zero",
        );
        check(
            Outcome::Trap("wasm trap: wasm `unreachable` instruction executed".into()),
            "thread 'main' panicked at a14.rs:22:5:\nnot yet implemented\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
            "crashed: it aborted (a failed assert, a call to abort(), or a panic); stderr: thread 'main' panicked at a14.rs:22:5:\nnot yet implemented",
        );
    }

    fn input_free(outcome: Outcome, stdout: &str, fuel_used: u64, read_input: bool) -> Run {
        Run { outcome, stdout: stdout.into(), printed: Vec::new(), stderr: Vec::new(), fuel_used, read_input, written: Vec::new() }
    }

    #[test]
    fn a_run_that_did_not_ask_for_its_input_tells_every_later_run_that_would_end_the_same() {
        let limits = |fuel| Limits { fuel, ..Limits::default() };
        let runs = InputFree::default();
        let crashed = input_free(Outcome::Uncaught("NameError: name 'x' is not defined".into()), "said", 5_000, false);
        runs.keep(1, limits(10_000), &crashed);
        assert_eq!(runs.get(1, &limits(20_000)), Some(crashed.clone()), "more fuel: the same crash");
        assert_eq!(runs.get(1, &limits(5_001)), Some(crashed.clone()));
        assert_eq!(runs.get(1, &limits(5_000)), None, "no more fuel than it used: it might run out");
        assert_eq!(runs.get(1, &Limits { memory_bytes: 1 << 20, ..limits(20_000) }), None, "other limits");
        assert_eq!(runs.get(2, &limits(20_000)), None, "another program");

        let silent_loop = input_free(Outcome::Timeout, "", 10_000, false);
        runs.keep(3, limits(10_000), &silent_loop);
        assert_eq!(runs.get(3, &limits(10_000)), Some(silent_loop.clone()));
        assert_eq!(runs.get(3, &limits(4_000)), Some(input_free(Outcome::Timeout, "", 4_000, false)), "less fuel: out of it sooner");
        assert_eq!(runs.get(3, &limits(20_000)), None, "with more fuel it may get further");
        runs.keep(3, limits(8_000), &input_free(Outcome::Timeout, "", 8_000, false));
        assert_eq!(runs.get(3, &limits(9_000)), Some(input_free(Outcome::Timeout, "", 9_000, false)), "the run with the most fuel is kept");

        let noisy_loop = input_free(Outcome::Timeout, "1\n2\n", 10_000, false);
        runs.keep(4, limits(10_000), &noisy_loop);
        assert_eq!(runs.get(4, &limits(10_000)), Some(noisy_loop));
        assert_eq!(runs.get(4, &limits(4_000)), None, "with less fuel it writes less: unknown how much");

        runs.keep(5, limits(10_000), &input_free(Outcome::Exited(0), "", 100, true));
        assert_eq!(runs.get(5, &limits(10_000)), None, "a run that read its input tells nothing of another input");
        runs.keep(6, limits(10_000), &input_free(Outcome::Timeout, "", 3_000, false));
        assert_eq!(runs.get(6, &limits(10_000)), None, "a time-out by the wall clock is not kept");
        assert_eq!(runs.spared(), 6);
    }

    #[test]
    fn a_long_stderr_keeps_its_head_and_its_tail_the_middle_cut() {
        let frames: String = (1..=40).map(|i| format!("  File \"a01.py\", line {i}, in f\n    return f(n - 1)\n")).collect();
        let traceback = format!("Traceback (most recent call last):\n{frames}RecursionError: maximum recursion depth exceeded");
        let kept = cut_middle(&traceback);
        assert!(kept.starts_with("Traceback (most recent call last):\n  File \"a01.py\", line 1, in f\n"), "{kept}");
        assert!(kept.ends_with("\nRecursionError: maximum recursion depth exceeded"), "{kept}");
        assert!(kept.contains(" … "), "{kept}");
        assert!(kept.chars().count() <= CRASH_MESSAGE_CHARS + 3, "{} chars", kept.chars().count());
        let one_line = "é".repeat(500);
        let kept = cut_middle(&one_line);
        assert_eq!(kept, format!("{} … {}", "é".repeat(CRASH_MESSAGE_HEAD_CHARS), "é".repeat(CRASH_MESSAGE_CHARS - CRASH_MESSAGE_HEAD_CHARS)));
        assert_eq!(cut_middle("short"), "short");
    }

    #[test]
    fn the_checker_gets_three_length_prefixed_parts() {
        assert_eq!(checker_input(b"b+b=c", b"b=1 c=2\n", b""), b"5\nb+b=c8\nb=1 c=2\n0\n");
    }

    fn check(stdout: &str, expected: Result<CheckerVerdict, String>) {
        assert_eq!(parse_checker_output(stdout.as_bytes()), expected, "{stdout:?}");
    }

    #[test]
    fn accept_and_reject_with_or_without_a_reason_are_understood() {
        check("accept\n", Ok(CheckerVerdict::Accept));
        check("reject: letters a and b both get 3\n", Ok(CheckerVerdict::Reject("letters a and b both get 3".into())));
        check("reject\n", Ok(CheckerVerdict::Reject(String::new())));
    }

    #[test]
    fn anything_else_is_a_checker_failure() {
        assert!(parse_checker_output(b"yes\n").unwrap_err().contains("\"yes\""));
        assert!(parse_checker_output(b"").is_err());
        assert!(parse_checker_output(b"rejected\n").is_err());
    }
}
