//! End-to-end tests of the whole system: bugrank on the fixture problems, with the real
//! sandbox. One test binary, each file a module: a binary per file linked the whole
//! stack (wasmtime, the service) once per file.

mod anonymizer_mutants;
mod as_written;
mod authoring;
mod bad_input;
mod bug_lists;
mod crate_invariants;
mod experiment_report;
mod fair_verdicts;
mod fixtures_current;
mod functions;
mod import;
mod interval_sets;
mod module_circles;
mod problems;
mod python_cohorts;
mod scores_cohort;
mod sources;
mod student_tests;
mod validators;
