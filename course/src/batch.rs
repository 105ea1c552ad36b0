//! A batch of submissions loaded: bad input never stops it: every file that cannot be used
//! is listed as [`Rejected`] with the reason, and the rest is graded. Sources that do not
//! compile are not rejected: the student is [`NotBuilt`], a result.

use std::path::Path;

use grader::Build;
use rayon::prelude::*;
use sandbox::{Program, Role, Sandbox};
use serde::Serialize;
use toolchain::Builder;

use crate::error::CourseResult;
use crate::hand_in::{HandIn, Handed, Loaded};
use crate::hand_ins::{natural_cmp, read_hand_ins};

/// A file of the batch that is not graded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    pub file: String,
    pub reason: String,
    /// The student the file was for, when known.
    #[serde(skip)]
    pub id: Option<String>,
}

/// One submission that loaded (`P`: its program, or `()` when only checked).
pub struct Submission<P = Program> {
    /// The module's or source file's name without its extension, or the folder's name.
    pub id: String,
    /// The file it came from (a path, inside a zip), or the folder followed by `/`.
    pub file: String,
    pub program: P,
    /// How the program was built from sources (`None`: a module handed in as it is).
    pub build: Option<Build>,
}

/// A student whose sources did not compile: a result (they fail every test), not a
/// rejection.
pub struct NotBuilt {
    pub id: String,
    pub file: String,
    /// What the compiler said ([`Build::error`]).
    pub build: Build,
}

pub struct Batch<P = Program> {
    /// Sorted by id.
    pub submissions: Vec<Submission<P>>,
    /// Sorted by id.
    pub not_built: Vec<NotBuilt>,
    pub rejected: Vec<Rejected>,
    /// The files of hand-ins not loaded at all: the batch's compile time ran out, or
    /// grading was cancelled, before they were reached. Empty unless grading stops early.
    pub not_reached: Vec<String>,
}

impl Batch {
    /// Loads every module and source of a directory or a zip ([`read_hand_ins`]),
    /// compiling the sources with `builder`.
    pub fn load(sandbox: &Sandbox, builder: &Builder, problem: &crate::problem_dir::ProblemDir, path: &Path) -> CourseResult<Batch> {
        Ok(Batch::from_hand_ins(sandbox, builder, &problem.accepted, &read_hand_ins(path, &problem.toml.languages)?))
    }

    /// Compiles (or builds, then compiles) each hand-in ([`crate::load::load`]), with the
    /// problem's harnesses if any, as the problem `accepted` them. Of two giving the same id, the first by file name is
    /// taken.
    pub fn from_hand_ins(sandbox: &Sandbox, builder: &Builder, accepted: &crate::problem_dir::Accepted, hand_ins: &[HandIn]) -> Batch {
        Batch::of(hand_ins, |file, handed| Some(crate::load::load(sandbox, builder, accepted, file, handed, None)))
    }
}

impl Batch<()> {
    /// [`Batch::from_hand_ins`] without compiling ([`Sandbox::check`]; sources are checked
    /// for a toolchain and a sandbox to build them): what would load and what would be
    /// rejected, in milliseconds per module (an upload of 1,000 is checked in seconds; the
    /// analysis compiles them).
    pub fn checked(sandbox: &Sandbox, builder: &Builder, hand_ins: &[HandIn]) -> Batch<()> {
        let check = |file: &str, handed: &Handed| -> Result<Loaded<()>, String> {
            match handed {
                Handed::Module(source) => sandbox.check(file, &source.read()?, Role::Answer).map_err(|e| e.to_string())?,
                Handed::Sources(files) => {
                    let source = crate::load::read(files)?;
                    builder.ready(source.language).map_err(|e| format!("{file}: {e}"))?;
                }
            }
            Ok(Loaded::Program((), None))
        };
        Batch::of(hand_ins, |file, handed| Some(check(file, handed)))
    }
}

/// A hand-in loaded, or why not.
type Tried<P> = Result<Loaded<P>, String>;

impl<P: Send> Batch<P> {
    /// Loads each hand-in with `load`, in parallel (compiling is the slow part), and sorts
    /// out what came of them. `load` gives `None` for a hand-in it did not reach (the
    /// batch's compile time ran out, or grading was cancelled): see [`Batch::not_reached`].
    pub(crate) fn of(hand_ins: &[HandIn], load: impl Fn(&str, &Handed) -> Option<Result<Loaded<P>, String>> + Sync) -> Batch<P> {
        let mut hand_ins: Vec<&HandIn> = hand_ins.iter().collect();
        hand_ins.sort_by(|a, b| a.file.cmp(&b.file));
        let loaded: Vec<(&HandIn, Option<Tried<P>>)> = hand_ins
            .into_par_iter()
            .map(|hand_in| {
                let loaded = match &hand_in.what {
                    Ok(handed) => load(&hand_in.file, handed),
                    Err(reason) => Some(Err(reason.clone())),
                };
                (hand_in, loaded)
            })
            .collect();
        let mut batch = Batch { submissions: Vec::new(), not_built: Vec::new(), rejected: Vec::new(), not_reached: Vec::new() };
        for (hand_in, loaded) in loaded {
            let file = hand_in.file.clone();
            let Some(loaded) = loaded else {
                batch.not_reached.push(file);
                continue;
            };
            let Some(id) = hand_in.id.clone() else {
                if let Err(reason) = loaded {
                    batch.rejected.push(Rejected { file, reason, id: None });
                }
                continue;
            };
            let taken = batch.submissions.iter().any(|s| s.id == id) || batch.not_built.iter().any(|s| s.id == id);
            match loaded {
                Err(reason) => batch.rejected.push(Rejected { file, reason, id: Some(id) }),
                // (The model answer's id in the correctness order and every output.)
                Ok(_) if id == grader::REFERENCE_ID => batch.rejected.push(Rejected {
                    reason: format!("{file}: the id `{id}` is the model answer's in every result; name the file after its student"),
                    file,
                    id: Some(id),
                }),
                Ok(_) if taken => batch.rejected.push(Rejected { reason: format!("{file}: another file already gives submission `{id}`"), file, id: Some(id) }),
                Ok(Loaded::Program(program, build)) => batch.submissions.push(Submission { id, file, program, build }),
                Ok(Loaded::NotBuilt(build)) => batch.not_built.push(NotBuilt { id, file, build }),
            }
        }
        batch.submissions.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        batch.not_built.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        batch
    }
}
