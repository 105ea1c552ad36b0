//! A course's grading work, without its edges: problems ([`problem_dir`], [`bundle`],
//! [`problem_check`], and judges' packages: [`import`], read by [`own_files`]), batches ([`batch`]: its hand-ins found by [`hand_ins`] in a directory or [`zips`], each a [`hand_in`]), rosters ([`roster`]),
//! students' sources and their builds ([`load`]), students handing in themselves ([`hand_in_window`], [`pre_check`]), the grader's executor on the sandbox
//! ([`executor`]) and its rounds of runs made by other workers too ([`rounds`]), the one pipeline that grades a batch ([`grade_batch`](mod@grade_batch)) and the files a
//! graded batch is written as ([`outputs`], [`exports`]).
//!
//! The command line and the service both grade through [`grade_batch`](fn@grade_batch) and only present
//! or store what it returns. This crate knows no command line (clap), no HTTP (actix) and
//! no database (SQL): it reads problem directories and batches it is pointed at, and
//! returns files as bytes for its callers to write.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use course::{Class, Settings, Stage, Tools, grade_batch};
//! use course::problem_dir::ProblemDir;
//! use course::hand_ins::{hand_ins, read_batch_dir};
//!
//! let tools = Tools { sandbox: sandbox::Sandbox::new()?, builder: toolchain::Builder::new(None) };
//! let dir = std::path::Path::new("../fixtures/problems/interval-sets");
//! let problem = ProblemDir::load(&tools.sandbox, &tools.builder, dir)?;
//! // Two hand-ins of the fixture class, as modules.
//! let files = read_batch_dir(&dir.join("submissions"))?
//!     .into_iter()
//!     .filter(|(name, _)| name == "a01.wasm" || name == "a05.wasm")
//!     .collect();
//! let class = Class { hand_ins: hand_ins(files, false), ..Class::default() };
//! let settings = Settings { stable_after: Some(200), ..Settings::seed(1) };
//! let pool = rayon::ThreadPoolBuilder::new().build()?;
//! let graded = grade_batch(&tools, &problem, class, &settings, &pool, &AtomicBool::new(false), &|_: Stage| {})?;
//! assert_eq!(graded.analysis.answers.len(), 2);
//! let files = graded.files()?;
//! assert_eq!(files.last().unwrap().0, "analysis.json");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod batch;
pub mod bundle;
pub mod error;
pub mod executor;
pub mod exports;
pub mod grade_batch;
pub mod hand_in;
pub mod hand_in_window;
pub mod hand_ins;
pub mod import;
pub mod intake;
pub mod load;
pub mod outputs;
pub mod own_files;
pub mod pre_check;
pub mod problem_check;
pub mod problem_dir;
pub mod roster;
pub mod rounds;
pub mod rules;
pub mod zips;

pub use error::{CourseError, CourseResult};
pub use grade_batch::{BATCH_COMPILE_SECONDS, Class, Graded, Previous, Settings, Stage, Tools, grade_batch};
