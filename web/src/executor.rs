//! The grader's [`Executor`], backed by the sandbox.

use grader::{ChoiceSource, Execution, Executor, RunOutcome};
use sandbox::{Choices, Limits, Outcome, Program, Sandbox};

/// How much of a crashing program's stderr is kept in its crash message.
const CRASH_MESSAGE_CHARS: usize = 300;

/// Runs a problem's generator, its reference (program 0) and answer programs (1 and up).
pub struct SandboxExecutor<'a> {
    pub sandbox: &'a Sandbox,
    pub generator: &'a Program,
    /// Index 0 is the reference.
    pub programs: Vec<&'a Program>,
    /// Memory and output limits; the fuel here is the generator's.
    pub limits: Limits,
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
        match self.sandbox.generate(self.generator, Recorder(choices), &self.limits) {
            Ok((run, Recorder(choices))) => {
                let result = match run.outcome {
                    Outcome::Exited(0) => Ok(run.stdout),
                    outcome => Err(crash_message(&outcome, &run.stderr)),
                };
                (result, choices)
            }
            Err(error) => panic!("the sandbox failed to run the generator: {error}"),
        }
    }

    fn run(&self, program: usize, input: &[u8], fuel: u64) -> Execution {
        let limits = Limits { fuel, ..self.limits };
        let run = self
            .sandbox
            .run(self.programs[program], input, &limits)
            .unwrap_or_else(|error| panic!("the sandbox failed to run a program: {error}"));
        let outcome = match &run.outcome {
            Outcome::Exited(0) => RunOutcome::Success,
            Outcome::Timeout => RunOutcome::Timeout,
            Outcome::OutOfMemory => RunOutcome::Memory,
            Outcome::OutputLimit => RunOutcome::Output,
            crash @ (Outcome::Exited(_) | Outcome::Trap(_) | Outcome::StackOverflow) => {
                RunOutcome::Crash(crash_message(crash, &run.stderr))
            }
        };
        Execution { outcome, stdout: run.stdout, fuel_used: run.fuel_used }
    }
}

/// What a student sees of a crash: the end of stderr (a panic message, say) and how it ended.
fn crash_message(outcome: &Outcome, stderr: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    let stderr = stderr.trim();
    let tail: String = {
        let chars: Vec<char> = stderr.chars().collect();
        chars[chars.len().saturating_sub(CRASH_MESSAGE_CHARS)..].iter().collect()
    };
    if tail.is_empty() { outcome.to_string() } else { format!("{outcome}; stderr: {tail}") }
}
