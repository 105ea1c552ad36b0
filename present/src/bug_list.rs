//! A student's bug list as Markdown: the page a student reads, and the file they download.
//! Inputs and outputs are code blocks; a failing command sequence is a table of its calls
//! (`in_words.rs`'s `calls_in_order`, which the service's bug list page
//! draws too).

use std::fmt::Write;

use grader::{ANY, BugList, FailureKind};

use crate::in_words::{CallLine, calls_of, first_line_difference, output_words, points_in_words, shown_start, shows_every_call, uninitialised_in_words};

/// A student's bug list as Markdown. Inputs and outputs are shown quoted, with escapes,
/// so that white space and newlines are visible.
pub fn bug_list_markdown(list: &BugList) -> String {
    let mut md = String::new();
    writeln!(md, "# Bug list: {}\n", list.answer).unwrap();
    if let Some(points) = &list.points {
        writeln!(md, "Your program earned {}\n", points_in_words(points)).unwrap();
    }
    if let Some(error) = list.compile_error() {
        writeln!(md, "Your program {}. The compiler said:\n\n{}", list.headline(), fenced(error)).unwrap();
        return md;
    }
    writeln!(
        md,
        "Your program {}. Each test stands for one bug found among the class's programs; \
         several failed tests may have one cause in yours.\n",
        list.headline()
    )
    .unwrap();
    if let Some(build) = list.build.as_ref().filter(|b| !b.rules_broken.is_empty()) {
        writeln!(md, "It breaks the assignment's rules, which no output shows:\n").unwrap();
        for rule in &build.rules_broken {
            writeln!(md, "- it {}", rule.said()).unwrap();
        }
        writeln!(md).unwrap();
    }
    if !list.course_tests_failed.is_empty() {
        let names: Vec<String> = list.course_tests_failed.iter().map(|name| format!("`{name}`")).collect();
        writeln!(md, "Of the course's own tests, it fails {}.\n", names.join(", ")).unwrap();
    }
    if let Some(build) = list.build.as_ref().filter(|b| !b.warnings.is_empty()) {
        writeln!(md, "The compiler warned:\n\n{}", fenced(&build.warnings)).unwrap();
        if let Some(said) = uninitialised_in_words(&build.warnings).filter(|_| !list.bugs.is_empty()) {
            writeln!(md, "{said}\n").unwrap();
        }
    }
    let shown = if list.fails_all_alike() {
        writeln!(md, "It fails every test the same way; here is the first.\n").unwrap();
        &list.bugs[..1]
    } else {
        &list.bugs[..]
    };
    let words = output_words(list);
    // A long explanation (a time limit's) is given once; later tests refer to the first.
    let mut explained: Vec<(&str, &str)> = Vec::new();
    for bug in shown {
        match &bug.course_test {
            Some(name) => writeln!(md, "## Test {} (the course's test `{name}`): {}\n", bug.test, bug.got.summary()).unwrap(),
            None => writeln!(md, "## Test {}: {}\n", bug.test, bug.got.summary()).unwrap(),
        }
        let calls = calls_of(list, bug);
        if let Some(calls) = &calls {
            writeln!(md, "The calls in order, with what the model answer and yours gave (→ marks the first difference):\n\n{}", calls_table(calls)).unwrap();
        }
        writeln!(md, "Input:\n\n{}", text_block(&bug.input)).unwrap();
        // A table of every call shows every result: the outputs are given whole only when
        // it is folded.
        let whole_table = shows_every_call(calls.as_deref());
        if !whole_table {
            writeln!(md, "{}:\n\n{}", words.expected, text_block(&bug.expected)).unwrap();
        }
        match bug.got.kind {
            FailureKind::Wrong if whole_table => {}
            FailureKind::Wrong => writeln!(md, "{}:\n\n{}", words.yours, text_block(&bug.got.detail)).unwrap(),
            FailureKind::Crash => writeln!(md, "Your program crashed:\n\n{}", text_block(&bug.got.detail)).unwrap(),
            _ => match explained.iter().find(|(detail, _)| *detail == bug.got.detail && bug.got.kind == FailureKind::Timeout) {
                Some((_, first)) => writeln!(md, "Your program ran out of time, as on test {first} above.\n").unwrap(),
                None => {
                    writeln!(md, "Your program {}.\n", bug.got.detail).unwrap();
                    if let Some(hint) = words.timeout_hint.filter(|_| bug.got.kind == FailureKind::Timeout) {
                        writeln!(md, "{hint}\n").unwrap();
                    }
                    explained.push((&bug.got.detail, &bug.test));
                }
            },
        }
        if let (Some(said), Some(output), false) = (words.until_stopped, &bug.got.output, bug.got.kind == FailureKind::Wrong) {
            writeln!(md, "{said}:\n\n{}", text_block(output)).unwrap();
        }
        match &bug.got.reason {
            Some(reason) => writeln!(md, "Why it is wrong: {reason}\n").unwrap(),
            None if bug.got.kind == FailureKind::Wrong && calls.is_none() => {
                if let Some(difference) = first_line_difference(&bug.expected, &bug.got.detail) {
                    writeln!(md, "Where it differs: {difference}.\n").unwrap();
                }
            }
            None => {}
        }
        if let Some(general) = &bug.generalized {
            writeln!(md, "It also fails every input like this one, whatever stands at {ANY}:\n\n{}", text_block(general)).unwrap();
        }
        if let Some(contrast) = &bug.contrast {
            writeln!(md, "But it gets this similar input right:\n\n{}\n{}:\n\n{}", text_block(&contrast.input), words.contrast, text_block(&contrast.expected))
                .unwrap();
        }
    }
    md
}

/// The calls of [`calls_of`] as a Markdown table.
fn calls_table(calls: &[CallLine]) -> String {
    let cell = |text: &str| if text.is_empty() { "(empty)".to_owned() } else { format!("`{}`", text.replace('`', "'").replace('|', "\\|")) };
    let mut table = String::from("| # | Call | Expected | Yours |\n|---:|---|---|---|\n");
    for line in calls {
        match line {
            CallLine::Call { number, call, expected, got, first_difference } => {
                let mark = if *first_difference { "→ " } else { "" };
                let got = got.as_deref().map_or("(nothing: its output ended)".to_owned(), cell);
                writeln!(table, "| {mark}{number} | {} | {} | {got} |", cell(call), cell(expected)).unwrap();
            }
            CallLine::Folded(n) => writeln!(table, "| … | {n} calls not shown | | |").unwrap(),
        }
    }
    table
}

/// A program's input or output as a Markdown code block. A code block cannot show an
/// empty text, spaces at either end, carriage returns or tabs for sure, so such a text is
/// also given exactly, as a quoted string.
fn text_block(text: &str) -> String {
    let (text, left_out) = shown_start(text);
    if left_out > 0 {
        return format!("{}(… and {left_out} more characters, not shown)\n", fenced(text));
    }
    let shown = text.strip_suffix('\n').unwrap_or(text);
    let unclear = shown.is_empty()
        || shown.starts_with(char::is_whitespace)
        || shown.ends_with(char::is_whitespace)
        || shown.chars().any(|c| c.is_control() && c != '\n');
    let exactly = if unclear { format!("(exactly: `{text:?}`)\n") } else { String::new() };
    format!("{}{exactly}", fenced(shown))
}

/// `text` as a Markdown code block, fenced by more backticks than it holds in a row.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader::{Behaviour, BugReport, Contrast};

    fn list(input: &str, expected: &str, got: &str) -> BugList {
        let bug = BugReport {
            test: "t07".into(),
            input: input.into(),
            expected: expected.into(),
            got: Behaviour { kind: FailureKind::Wrong, detail: got.into(), reason: None, output: None },
            generalized: None,
            contrast: Some(Contrast { input: "delete 1 []".into(), expected: "[]\n".into() }),
            course_test: None,
        };
        BugList {
            answer: "a01".into(),
            passed: 18,
            suite_size: 19,
            bugs: vec![bug],
            build: None,
            points: None,
            course_tests_failed: Vec::new(),
            dialogue: false,
        }
    }

    #[test]
    fn a_command_sequence_that_crashes_shows_its_calls_up_to_the_one_it_stopped_at() {
        let mut list = list("init 1\npush 5\npop\npop\n", "ok\nok\n5\nempty\n", "");
        list.bugs[0].got = Behaviour {
            kind: FailureKind::Crash,
            detail: "crashed: it read memory outside what it was given".into(),
            reason: None,
            output: Some("ok\nok\n5\n".into()),
        };
        let md = bug_list_markdown(&list);
        assert!(md.contains("| → 4 | `pop` | `empty` | (nothing: its output ended) |"), "{md}");
        assert!(md.contains("Your program crashed:"), "{md}");
    }

    #[test]
    fn a_long_input_is_shown_by_its_start_and_the_count_of_what_is_left_out() {
        let long = format!("20000\n{}\n", vec!["-797"; 5000].join(" "));
        let md = bug_list_markdown(&list(&long, "-3.38\n", "-4\n"));
        assert!(md.contains("(… and ") && md.contains(" more characters, not shown)"), "{md}");
        assert!(md.len() < 6_000, "{} bytes", md.len());
    }

    #[test]
    fn a_broken_rule_is_listed_with_its_line_and_the_points_say_what_it_cost() {
        let mut list = list("1000\n", "1000\n", "1001\n");
        let rule = grader::RuleBroken { rule: "sort".into(), line: 6, code: "xs.sort()".into(), required: false };
        list.build = Some(grader::Build {
            language: "Python".into(),
            toolchain: String::new(),
            sources: String::new(),
            warnings: String::new(),
            error: None,
            rules_broken: vec![rule.clone()],
        });
        let policy = grader::GradingPolicy::default();
        list.points = Some(grader::Points::of(&policy, 1000, grader::FailureCounts::default()).breaking_rule(&policy, &rule.in_words()));
        let md = bug_list_markdown(&list);
        assert!(md.contains("It breaks the assignment's rules, which no output shows:\n\n- it uses `sort` (line 6): `xs.sort()`\n"), "{md}");
        assert!(md.contains("Your program earned 0 of 100 points: right on all 1000 inputs it was graded on. Its sources break a rule of the assignment, whatever they print: it uses `sort` (line 6), which costs points."), "{md}");
        // A construct required and missing: no line, no code.
        let lacking = grader::RuleBroken { rule: "recursion".into(), line: 0, code: String::new(), required: true };
        list.build.as_mut().unwrap().rules_broken = vec![lacking.clone()];
        list.points = Some(grader::Points::of(&policy, 1000, grader::FailureCounts::default()).breaking_rule(&policy, &lacking.in_words()));
        let md = bug_list_markdown(&list);
        assert!(md.contains("which no output shows:\n\n- it uses no recursion (the assignment requires it)\n"), "{md}");
        assert!(md.contains("whatever they print: it uses no recursion (the assignment requires it), which costs points."), "{md}");
    }

    #[test]
    fn a_course_test_is_named_in_its_heading_and_the_course_tests_failed_are_listed_first() {
        let mut list = list("1000\n", "1000\n", "1001\n");
        list.bugs[0].course_test = Some("big".into());
        list.course_tests_failed = vec!["big".into(), "secret-02".into()];
        let md = bug_list_markdown(&list);
        assert!(md.contains("Of the course's own tests, it fails `big`, `secret-02`.\n"), "{md}");
        assert!(md.contains("## Test t07 (the course's test `big`): wrong output\n"), "{md}");
    }

    #[test]
    fn a_failing_command_sequence_reads_as_its_calls_with_the_first_difference_marked() {
        let md = bug_list_markdown(&list("init 2\nput 1 10\nget 1\n", "ok\nok\n10\n", "ok\nok\n-1\n"));
        assert!(md.contains("| # | Call | Expected | Yours |\n|---:|---|---|---|\n| 1 | `init 2` | `ok` | `ok` |\n"), "{md}");
        assert!(md.contains("| → 3 | `get 1` | `10` | `-1` |"), "{md}");
        assert!(md.contains("Input:\n\n```text\ninit 2\nput 1 10\nget 1\n```"), "the input stays whole, to run again: {md}");
        assert!(!md.contains("Expected output:") && !md.contains("Where it differs"), "the table says it all: {md}");
    }

    #[test]
    fn a_bug_list_in_markdown_shows_inputs_and_outputs_as_code_blocks() {
        let md = bug_list_markdown(&list("delete 1 [(0,2)]", "[]\n", "[(0,2)]\n"));
        assert!(md.contains("## Test t07: wrong output\n"), "{md}");
        assert!(md.contains("Input:\n\n```text\ndelete 1 [(0,2)]\n```\n"), "{md}");
        assert!(md.contains("Expected output:\n\n```text\n[]\n```\n"), "{md}");
        assert!(md.contains("Your program's output:\n\n```text\n[(0,2)]\n```\n"), "{md}");
        assert!(md.contains("similar input right:\n\n```text\ndelete 1 []\n```\n"), "{md}");
        assert!(!md.contains("\\n") && !md.contains("exactly"), "no escaped strings where a block says it all: {md}");
    }

    #[test]
    fn a_text_a_code_block_cannot_show_for_sure_is_also_given_exactly() {
        let md = bug_list_markdown(&list(" ", "\r\n", "x\ty"));
        assert!(md.contains("(exactly: `\" \"`)"), "{md}");
        assert!(md.contains("(exactly: `\"\\r\\n\"`)"), "{md}");
        assert!(md.contains("(exactly: `\"x\\ty\"`)"), "{md}");
    }

    #[test]
    fn a_bug_list_starts_with_the_points_and_how_they_were_found() {
        let mut with_points = list("delete 1 [(0,2)]", "[]\n", "[(0,2)]\n");
        let counts = grader::FailureCounts { wrong: 12, ..Default::default() };
        with_points.points = Some(grader::Points::of(&grader::GradingPolicy::default(), 1000, counts));
        let md = bug_list_markdown(&with_points);
        assert!(md.starts_with("# Bug list: a01\n\nYour program earned 88.92 of 100 points: it failed 12 of the 1000 inputs it was graded on (a wrong output on 12 inputs): any failure costs 10 points, and the rest goes by the share passed.\n\n"), "{md}");
    }
}
