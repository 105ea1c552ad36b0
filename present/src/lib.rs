//! Results drawn for people, one way for every place they are shown: the command line's
//! files (`report.html`, `order.svg`, `order.dot`, bug lists in Markdown) and the
//! service's pages use these same functions, so that a fix to a drawing is made once.
//!
//! Everything here is a pure function of [`grader`]'s results (an [`grader::Analysis`],
//! a [`grader::ProblemReport`], a [`grader::BugList`]) to text: no I/O, no running of
//! programs, no statistics of its own. `grader` does not know this crate.
//!
//! ```
//! use grader::{Behaviour, BugList, BugReport, FailureKind};
//!
//! let bug = BugReport {
//!     test: "t1".into(),
//!     input: "member 1 [(0,2)]".into(),
//!     expected: "true\n".into(),
//!     got: Behaviour { kind: FailureKind::Wrong, detail: "false\n".into(), reason: None, output: None },
//!     generalized: None,
//!     contrast: None,
//!     course_test: None,
//! };
//! let list = BugList { answer: "a01".into(), passed: 18, suite_size: 19, bugs: vec![bug], build: None, points: None, course_tests_failed: Vec::new(), dialogue: false };
//! let markdown = present::bug_list_markdown(&list);
//! assert!(markdown.starts_with("# Bug list: a01\n"));
//! assert!(markdown.contains("Input:\n\n```text\nmember 1 [(0,2)]\n```"));
//! ```

mod analysis_page;
mod bug_list;
mod diagram;
mod experiment_page;
mod html;
mod in_words;

pub use analysis_page::{Ranking, analysis_html, course_tests_in_words, list_or_none, ranking_table_html, suite_table_html};
pub use bug_list::bug_list_markdown;
pub use diagram::{ANSWERS_PER_NODE, Arrow, Layout, NodeBox, layout, one_line, order_dot, order_svg, order_table_html, overlaps};
pub use experiment_page::{cohort_plot_svg, experiment_html, experiment_section};
pub use html::{escape_html, page_head};
pub use in_words::{
    CallLine, MAX_SHOWN_CHARS, OutputWords, calls_of, first_line_difference, input_in_words, kind_in_words, kinds_in_words, output_words, points_in_words,
    shown_start, shows_every_call, uninitialised_in_words,
};
