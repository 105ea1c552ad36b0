//! The rules an assignment sets beyond output ([`crate::problem_dir::RulesToml`]): the
//! constructs a hand-in must not use ("without `sort`"), found in its sources by their
//! syntax, since no run can show them. Python's are checked by the syntax tree
//! (`toolchain/guest/bugrank_rules.py`), run by bugrank's CPython in the sandbox: the
//! student's sources never reach a parser of the host. Each use is a [`grader::RuleBroken`]
//! of the hand-in's `Build`, which `grade_batch::add_builds` charges to its points
//! (`Points::breaking_rule`); a model answer that breaks its own rule is refused when the
//! problem loads.

use std::path::Path;
use std::sync::Arc;

use grader::RuleBroken;

use crate::error::{CourseError, CourseResult};
use sandbox::{Interpreter, Limits, Outcome, Sandbox};

/// The fuel the check of one hand-in may use. Parsing and walking a first-year hand-in of
/// a few hundred lines costs a few million; this bounds a pathological one (a file of tens
/// of thousands of lines still fits), so that the check always ends.
pub const RULES_CHECK_FUEL: u64 = 2_000_000_000;

/// The memory the check may use: the syntax tree of a large file takes some tens of MB.
pub const RULES_CHECK_MEMORY_BYTES: usize = 256 << 20;

/// Where the Python `source` breaks the rules `forbidden` (names whose calls are
/// forbidden, and `import M`), in the order of the source; none when there are no rules.
///
/// `Ok(Err)` with the reason when the check cannot finish on this source (past its fuel
/// or memory): the hand-in is then not graded, as a source that does not compile is not,
/// since what it must not do cannot be told. `Err` is bugrank's own fault (its checker
/// does not start), never the hand-in's. Pitfall: call it once the source compiled; a
/// syntax error is the compile's to report.
pub fn python_rules_broken(
    sandbox: &Sandbox,
    python: &Arc<Interpreter>,
    forbidden: &[String],
    source: &[u8],
) -> Result<Result<Vec<RuleBroken>, String>, String> {
    if forbidden.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let checker = sandbox
        .load_interpreted(python, "bugrank_rules.py", toolchain::guest::PYTHON_RULES.as_bytes())
        .map_err(|e| format!("bugrank's check of the assignment's rules cannot start: {e}"))?
        .map_err(|message| format!("bugrank's check of the assignment's rules does not compile: {message}"))?;
    let mut input = forbidden.join("\n").into_bytes();
    input.extend_from_slice(b"\n--\n");
    input.extend_from_slice(source);
    let limits = Limits { fuel: RULES_CHECK_FUEL, memory_bytes: RULES_CHECK_MEMORY_BYTES, output_bytes: 1 << 20, ..Limits::default() };
    let run = sandbox.run(&checker, &input, &limits).map_err(|e| format!("bugrank's check of the assignment's rules failed: {e}"))?;
    if run.outcome != Outcome::Exited(0) {
        let said = String::from_utf8_lossy(&run.stderr);
        return Ok(Err(format!("its sources could not be checked against the assignment's rules ({:?}): {}", run.outcome, said.trim())));
    }
    let found: Result<Vec<RuleBroken>, String> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).map_err(|e| format!("bugrank's check of the assignment's rules wrote `{line}`: {e}")))
        .collect();
    found.map(Ok)
}

/// Checks that the model answer at `path` (its `source`) obeys the rules it sets its
/// students, `forbidden`, with bugrank's CPython `python` ([`crate::load::python`]): a
/// problem whose reference breaks one is refused, naming the line.
pub fn reference_obeys(sandbox: &Sandbox, python: &Arc<Interpreter>, path: &Path, source: &[u8], forbidden: &[String]) -> CourseResult<()> {
    let broken = python_rules_broken(sandbox, python, forbidden, source)
        .map_err(CourseError::Problem)?
        .map_err(|why| CourseError::Problem(format!("{}: {why}", path.display())))?;
    match broken.first() {
        None => Ok(()),
        Some(rule) => Err(CourseError::Problem(format!(
            "{}: the model answer breaks the rule it sets ([rules.python] forbid in problem.toml): it {}: `{}`",
            path.display(),
            rule.in_words(),
            rule.code
        ))),
    }
}
