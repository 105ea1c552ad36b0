//! The one error type of the crate.

/// Why a problem, a batch or a roster cannot be used, or why grading a batch stopped.
/// A student's program that crashes, loops or does not compile is a result, never this.
#[derive(Debug, thiserror::Error)]
pub enum CourseError {
    /// A file or directory that cannot be read or written; `what` says which and what was
    /// being done ("cannot read reference.wasm").
    #[error("{what}: {error}")]
    Io { what: String, error: std::io::Error },
    /// A problem directory that cannot be used: the message names the file and why.
    #[error("{0}")]
    Problem(String),
    /// A batch, a zip or a roster that cannot be used as a whole: the message names it.
    #[error("{0}")]
    Batch(String),
    /// Nothing of the batch can be graded: none loaded, or its compile time ran out.
    #[error("{0}")]
    NothingGraded(String),
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
    #[error(transparent)]
    Grader(#[from] grader::GraderError),
    /// Writing an output file (JSON, CSV) failed: a bug, or memory ran out.
    #[error("cannot write {file}: {reason}")]
    Output { file: &'static str, reason: String },
}

impl CourseError {
    /// An [`CourseError::Io`] for doing `what`.
    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CourseError {
        let what = what.into();
        move |error| CourseError::Io { what, error }
    }
}

/// Results of this crate.
pub type CourseResult<T> = Result<T, CourseError>;
