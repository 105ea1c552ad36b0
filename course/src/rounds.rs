//! An analysis's rounds of runs made by other workers too (issue 45.3).
//!
//! The grader hands its runs over in rounds ([`grader::Executor::run_all`]: every program
//! on a batch of new inputs, a group of programs on the grading sample). Runs are
//! deterministic, so any process that compiled the same class makes the same runs, and
//! the grader judges their executions wherever they were made: the analysis is the same,
//! byte for byte, whoever made which run. A caller that can share a round out (the
//! service, over PostgreSQL) gives [`grade_batch`](fn@crate::grade_batch) a
//! [`RunsElsewhere`]; runs, executions, hand-in places and bug lists travel as bytes (postcard): the runs as [`encode_runs`] writes them, coming back as
//! [`encode_executions`] writes theirs; a helper makes them with a
//! [`CompiledClass`](crate::grade_batch::CompiledClass) of the analysis's hand-ins. What
//! tells a helper that it runs the same programs as the analysis:
//! [`SandboxExecutor::programs_digest`](crate::executor::SandboxExecutor::programs_digest).
//!
//! This module knows no database (how shards reach other processes is the caller's), and
//! nothing of the pipeline: the executor and the pipeline use it.

use grader::{Execution, RunRequest};
use serde::{Deserialize, Serialize};

use crate::error::{CourseError, CourseResult};

/// Where some of an analysis's runs may be made besides this process's pool.
pub trait RunsElsewhere: Send + Sync + std::fmt::Debug {
    /// Makes `runs` of the class whose programs have the digest `programs`: those it does
    /// not send elsewhere with `here` (this process's pool), the others wherever it sends
    /// them. Their executions, in the order of `runs`. Must not fail: a run it cannot have
    /// made elsewhere it makes with `here`.
    fn run_all(&self, programs: &[u8; 32], runs: &[RunRequest<'_>], here: &(dyn Fn(&[RunRequest<'_>]) -> Vec<Execution> + Sync)) -> Vec<Execution>;

    /// Writes the bug lists of the hand-ins numbered `hand_ins` (their places among the
    /// class's compiled hand-ins) of `analysis` ([`encode_analysis`]), of the class whose
    /// programs have the digest `programs`: those it does not send elsewhere with `here`.
    /// Each list as JSON, in the order of `hand_ins`; must not fail, as
    /// [`RunsElsewhere::run_all`].
    fn bug_lists(&self, programs: &[u8; 32], analysis: &[u8], hand_ins: &[usize], here: &(dyn Fn(&[usize]) -> Vec<String> + Sync)) -> Vec<String>;
}

/// What every shard of a round of bug lists shares: the analysis, as JSON.
pub fn encode_analysis(analysis: &grader::Analysis) -> CourseResult<Vec<u8>> {
    serde_json::to_vec(analysis).map_err(|e| CourseError::Output { file: "analysis", reason: e.to_string() })
}

/// A shard of bug lists: the hand-ins' places, for a helper.
pub fn encode_hand_ins(hand_ins: &[usize]) -> Vec<u8> {
    postcard::to_stdvec(&hand_ins.iter().map(|&i| i as u32).collect::<Vec<u32>>()).expect("places encode")
}

/// What [`encode_hand_ins`] wrote.
pub fn decode_hand_ins(bytes: &[u8]) -> CourseResult<Vec<usize>> {
    let places: Vec<u32> = postcard::from_bytes(bytes).map_err(|e| CourseError::Batch(format!("a shard of bug lists cannot be read: {e}")))?;
    Ok(places.into_iter().map(|p| p as usize).collect())
}

/// Bug lists as they travel back.
pub fn encode_bug_lists(lists: &[String]) -> Vec<u8> {
    postcard::to_stdvec(lists).expect("bug lists encode")
}

/// What [`encode_bug_lists`] wrote.
pub fn decode_bug_lists(bytes: &[u8]) -> CourseResult<Vec<String>> {
    postcard::from_bytes(bytes).map_err(|e| CourseError::Batch(format!("the bug lists of a shard cannot be read: {e}")))
}

/// A run as it travels.
#[derive(Serialize, Deserialize)]
struct SentRun {
    program: u32,
    fuel: u64,
    input: Vec<u8>,
}

/// `runs` as bytes, for a helper ([`decode_runs`]).
pub fn encode_runs(runs: &[RunRequest<'_>]) -> Vec<u8> {
    let sent: Vec<SentRun> = runs.iter().map(|r| SentRun { program: r.program as u32, fuel: r.fuel, input: r.input.to_vec() }).collect();
    postcard::to_stdvec(&sent).expect("runs encode")
}

/// What [`encode_runs`] wrote: `(program, input, fuel)` of each run.
pub fn decode_runs(bytes: &[u8]) -> CourseResult<Vec<(usize, Vec<u8>, u64)>> {
    let sent: Vec<SentRun> = postcard::from_bytes(bytes).map_err(|e| CourseError::Batch(format!("a shard of runs cannot be read: {e}")))?;
    Ok(sent.into_iter().map(|r| (r.program as usize, r.input, r.fuel)).collect())
}

/// `executions` as bytes, for the analysis that asked for them ([`decode_executions`]).
pub fn encode_executions(executions: &[Execution]) -> Vec<u8> {
    postcard::to_stdvec(executions).expect("executions encode")
}

/// What [`encode_executions`] wrote.
pub fn decode_executions(bytes: &[u8]) -> CourseResult<Vec<Execution>> {
    postcard::from_bytes(bytes).map_err(|e| CourseError::Batch(format!("the results of a shard cannot be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader::RunOutcome;

    #[test]
    fn runs_and_executions_come_back_as_they_were_sent() {
        let runs = [RunRequest { program: 3, input: b"5 1 2\n", fuel: 700_000 }, RunRequest { program: 0, input: b"", fuel: 1 }];
        let decoded = decode_runs(&encode_runs(&runs)).unwrap();
        assert_eq!(decoded, [(3, b"5 1 2\n".to_vec(), 700_000), (0, Vec::new(), 1)]);
        let executions = [
            Execution { outcome: RunOutcome::Success, stdout: b"-1\n".to_vec(), fuel_used: 330_501 },
            Execution { outcome: RunOutcome::Crash("IndexError: tuple index out of range".into()), stdout: Vec::new(), fuel_used: 12 },
            Execution { outcome: RunOutcome::Timeout, stdout: b"partial".to_vec(), fuel_used: 6_600_000 },
            Execution { outcome: RunOutcome::Memory, stdout: Vec::new(), fuel_used: 0 },
            Execution { outcome: RunOutcome::Output, stdout: vec![b'x'; 1000], fuel_used: 5 },
            Execution { outcome: RunOutcome::Rejected("Guess 11: too many".into()), stdout: b">500\n<lower\n".to_vec(), fuel_used: 9 },
            Execution { outcome: RunOutcome::InteractorFailed("the interactor crashed".into()), stdout: Vec::new(), fuel_used: 9 },
        ];
        assert_eq!(decode_executions(&encode_executions(&executions)).unwrap(), executions);
        assert!(decode_runs(b"\xff\xff").is_err(), "garbage is an error, not a panic");
    }
}
