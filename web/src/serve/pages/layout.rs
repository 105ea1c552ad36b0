//! The pages' frame and the pieces several pages share. maud escapes every value, so
//! nothing a student or a module name contains can become markup.
//!
//! The frame has light and dark schemes and fits 360 px wide and up. The shared pieces: bug lists, empty and blank
//! text said in words, code listings with line numbers and the compiler's messages under their lines, Markdown
//! statements with raw HTML shown as text, the sortable tables' filter. `static/app.js` is the only script (live
//! progress, sortable and filterable tables with their state in the address, confirmations).

use actix_web::HttpResponse;
use grader::BugList;
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::super::auth::Instructor;

const STYLE: &str = "
:root{color-scheme:light dark}
body{font-family:system-ui,sans-serif;margin:0;color:#1d232a;background:#fafbfc}
header{background:#243447;color:#fff;padding:.6em 1.2em;display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center}
header a{color:#fff;text-decoration:none}header .brand{font-weight:700;margin-right:1em}
header form{margin-left:auto}main{padding:1em 1.5em;max-width:1400px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eef1f4}td.num{text-align:right}code,pre{background:#f0f2f4;padding:0 .2em;white-space:pre-wrap;overflow-wrap:anywhere}
.ok{color:#1a7f37}.bad{color:#cf222e}.muted{color:#57606a}.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.8em 1em;margin:.8em 0}
progress{width:30em;height:1.2em}details{margin:.3em 0}summary{cursor:pointer}
.diagram{overflow-x:auto;border:1px solid #d0d7de;background:#fff}
pre.compiler{padding:.6em;overflow:auto;max-height:30em;word-break:normal;overflow-wrap:anywhere}
button,input[type=submit]{padding:.3em .9em;cursor:pointer}label{margin-right:1em}
.card table{width:100%}.card td{overflow-wrap:anywhere}
tr.first-difference td{background:#ffebe9;font-weight:600}table.calls td:first-child{text-align:right;white-space:nowrap}
table.source{border:0;font-size:.92em}table.source td{border:0;padding:0 .5em}table.source code{background:none;white-space:pre-wrap}
td.ln{text-align:right;color:#57606a;user-select:none;width:3em}td.ln a{color:inherit;text-decoration:none}tr.message td{background:#fff8c5}
tr:target td{background:#ddf4ff}
@media (max-width:600px){main{padding:.6em .7em}td,th{padding:.2em .35em}progress{width:100%}}
@media (prefers-color-scheme:dark){
body{background:#0d1117;color:#e6edf3}a{color:#6cb6ff}a:visited{color:#c297ff}
.card{background:#161b22;border-color:#30363d}td,th{border-color:#30363d}th{background:#21262d}
tr.first-difference td{background:#3d1d20}code,pre{background:#262c36}.ok{color:#3fb950}.bad{color:#ff7b72}.muted{color:#9198a1}
.diagram{border-color:#30363d}
}
";

/// A whole HTML page; `who` is the instructor logged in, if any (students get no menu).
pub fn page(title: &str, who: Option<&Instructor>, body: Markup) -> HttpResponse {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · bugrank" }
                style { (PreEscaped(STYLE)) }
                script src="/static/app.js" defer {}
            }
            body {
                header {
                    span.brand { "bugrank" }
                    @if let Some(who) = who {
                        a href="/problems" { "Problems" }
                        a href="/batches" { "Batches" }
                        a href="/students" { "Students" }
                        a href="/experiment" { "Experiment report" }
                        a href="/lti/platforms" { "LMS" }
                        form method="post" action="/logout" {
                            (csrf_field(who))
                            span.muted style="color:#cbd5e1" { (who.login) " " }
                            button type="submit" { "Log out" }
                        }
                    }
                }
                main { h1 { (title) } (body) }
            }
        }
    };
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(markup.into_string())
}

/// The hidden field every instructor form carries.
pub fn csrf_field(who: &Instructor) -> Markup {
    html! { input type="hidden" name="csrf" value=(who.csrf); }
}

/// A one-button form posting to `action`.
pub fn button(who: &Instructor, action: &str, label: &str) -> Markup {
    html! { form method="post" action=(action) style="display:inline" { (csrf_field(who)) button type="submit" { (label) } } }
}

/// The search field that filters the rows of the sortable table `table` (see app.js).
pub fn table_filter(table: &str, what: &str) -> Markup {
    html! { p { label { "Filter " (what) " " input type="search" data-filter=(table) placeholder="any text of a row"; } } }
}

/// A one-button form posting to `action` once the instructor confirms `question` (asked by
/// the page script; without scripts the form posts at once).
pub fn confirm_button(who: &Instructor, action: &str, label: &str, question: &str) -> Markup {
    html! { form method="post" action=(action) style="display:inline" data-confirm=(question) { (csrf_field(who)) button type="submit" { (label) } } }
}

/// The page script (`static/app.js`): the only script a page runs, served from the site
/// so that the Content-Security-Policy can forbid inline scripts.
pub const APP_JS: &str = include_str!("static/app.js");

/// The headers every response carries. The policy allows scripts from the site only (no
/// inline script, so injected markup cannot run), inline styles (the pages' own), images
/// from the site and `data:` (diagrams), and nothing else; no page may be framed
/// (clickjacking), content types are not sniffed, and no Referer leaves a page (a
/// student's link holds their token).
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
];

/// True for a link target a statement may use: `http`, `https`, `mailto`, or a relative
/// one (no scheme). Browsers ignore white space and control characters inside a scheme
/// (`java\tscript:`), so they are dropped before looking.
pub fn safe_link(target: &str) -> bool {
    let plain: String = target.chars().filter(|c| !c.is_ascii_whitespace() && !c.is_control()).collect();
    match plain.find([':', '/', '?', '#']) {
        Some(at) if plain[at..].starts_with(':') => {
            let scheme = plain[..at].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// Markdown (a problem statement) as HTML, with GitHub's tables. Raw HTML in the source is
/// shown as text, and a link or image with another target than [`safe_link`] allows points
/// nowhere (`#`).
pub fn markdown(source: &str) -> Markup {
    use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};
    let events = Parser::new_ext(source, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) if !safe_link(&dest_url) => {
            Event::Start(Tag::Link { link_type, dest_url: CowStr::Borrowed("#"), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) if !safe_link(&dest_url) => {
            Event::Start(Tag::Image { link_type, dest_url: CowStr::Borrowed("#"), title, id })
        }
        other => other,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    PreEscaped(out)
}

/// One answer's bug list: each failed test with the input, what was expected, what the
/// program did (and the checker's reason), the inputs of the same shape it also fails and
/// a similar input it passes. A program that fails every test the same way is shown its
/// first failure only; an explanation several tests share (a time limit's) is given once.
pub fn bug_list(list: &BugList) -> Markup {
    tests_list(list, false)
}

/// A hand-in's run on the problem's public tests (a pre-check, `course::pre_check`), drawn
/// as a bug list is: each failed test with its input, the expected output and the
/// program's.
pub fn public_tests_list(list: &BugList) -> Markup {
    tests_list(list, true)
}

/// A bug list of the class's suite, or (`public`) of the public tests alone.
fn tests_list(list: &BugList, public: bool) -> Markup {
    let alike = list.fails_all_alike();
    let shown = if alike { &list.bugs[..1] } else { &list.bugs[..] };
    let words = present::output_words(list);
    // The first test that gave each long explanation: later ones refer to it.
    let mut explained: Vec<(&str, &str)> = Vec::new();
    let earlier_of: Vec<Option<&str>> = shown
        .iter()
        .map(|bug| {
            let earlier = explained.iter().find(|(detail, _)| *detail == bug.got.detail && detail.len() > LONG_EXPLANATION).map(|(_, test)| *test);
            if earlier.is_none() {
                explained.push((bug.got.detail.as_str(), bug.test.as_str()));
            }
            earlier
        })
        .collect();
    html! {
        @if let Some(error) = list.compile_error() {
            p { "Your program " strong.bad { (list.headline()) } ". The compiler said:" }
            pre.compiler { (error) }
        } @else if public {
            p { "Your program " strong.bad[!list.bugs.is_empty()] { "passes " (list.passed) " of the " (list.suite_size) " public tests" } ". "
                @if !list.bugs.is_empty() { "Each one it fails is below, with its input, the expected output and yours." } }
        } @else {
        p { "Your program " strong { (list.headline()) } ". "
            @if list.bugs.is_empty() { span.ok { "No bug found." } }
            @else { "Each test stands for one bug found among the class's programs; several failed tests may have one cause in yours." } }
        }
        @if let Some(build) = list.build.as_ref().filter(|b| b.error.is_none() && !b.warnings.is_empty()) {
            @if let Some(said) = present::uninitialised_in_words(&build.warnings).filter(|_| !list.bugs.is_empty()) { p.bad { (said) } }
            details { summary { "The compiler's warnings (" (build.warnings.lines().count()) " lines)" } pre.compiler { (build.warnings) } }
        }
        @if let Some(build) = list.build.as_ref().filter(|b| !b.rules_broken.is_empty()) {
            div.rules-broken {
                p.bad { "It breaks the assignment's rules, which no output shows:" }
                ul { @for rule in &build.rules_broken { li { "it " (rule.in_words()) @if !rule.code.is_empty() { ": " code { (rule.code) } } } } }
            }
        }
        @if !list.course_tests_failed.is_empty() && !public {
            p { "Of the course's own tests, it fails "
                @for (i, name) in list.course_tests_failed.iter().enumerate() { @if i > 0 { ", " } code { (name) } } "." }
        }
        @if alike { p { "It fails every test the same way; here is the first." } }
        @for (bug, earlier) in shown.iter().zip(&earlier_of) {
            div.card {
                strong { "Test " (bug.test) } @if let Some(name) = bug.course_test.as_ref().filter(|name| **name != bug.test) { " (the course's test " code { (name) } ")" } " · " span.bad { (bug.got.summary()) }
                @let calls = present::calls_of(list, bug);
                @if let Some(calls) = &calls {
                    p { "The calls in order, with what the model answer and yours gave (the first difference marked):" }
                    table.calls {
                        tr { th { "#" } th { "Call" } th { "Expected" } th { "Yours" } }
                        @for line in calls {
                            @match line {
                                present::CallLine::Call { number, call, expected, got, first_difference } => {
                                    tr.first-difference[*first_difference] {
                                        td { @if *first_difference { "→ " } (number) }
                                        td { code { (call) } }
                                        td { code { (expected) } }
                                        td { @match got { Some(got) => { code { (got) } }, None => { em { "nothing: its output ended" } } } }
                                    }
                                }
                                present::CallLine::Folded(n) => { tr { td { "…" } td colspan="3" { span.muted { (n) " calls not shown" } } } }
                            }
                        }
                    }
                }
                // A table of every call gives the input and both outputs already: on a
                // phone the student reads it once (the input as the harness reads it stays
                // one tap away).
                @let every_call = present::shows_every_call(calls.as_deref());
                @if every_call { details.raw-input { summary { "The input as the harness reads it" } (visible_text(&bug.input)) } }
                table {
                    @if !every_call {
                        tr { th { "Input" } td { (visible_text(&bug.input)) } }
                        tr { th { (words.expected_heading) } td { (visible_text(&bug.expected)) } }
                    }
                    @if !(every_call && bug.got.kind == grader::FailureKind::Wrong) {
                        tr { th { "Your program" } td {
                            @match earlier {
                                Some(first) => { "The same as on test " (first) " above." }
                                None => {
                                    @if bug.got.kind == grader::FailureKind::Wrong { (visible_text(&bug.got.detail)) } @else { (bug.got.detail) }
                                    @if let Some(hint) = words.timeout_hint.filter(|_| bug.got.kind == grader::FailureKind::Timeout) { p { (with_code(hint)) } }
                                }
                            }
                        } }
                    }
                    @if let (Some(said), Some(output), false) = (words.until_stopped, &bug.got.output, bug.got.kind == grader::FailureKind::Wrong) {
                        tr { th { (said) } td { (visible_text(output)) } }
                    }
                    @if let Some(reason) = &bug.got.reason {
                        tr { th { "Why it is wrong" } td { (with_code(reason)) } }
                    } @else if bug.got.kind == grader::FailureKind::Wrong && calls.is_none() {
                        @if let Some(difference) = present::first_line_difference(&bug.expected, &bug.got.detail) {
                            tr { th { "Where it differs" } td { (with_code(&difference)) } }
                        }
                    }
                    @if let Some(general) = &bug.generalized {
                        tr { th { "It also fails" } td { "every input like " code { (general) } ", whatever stands at " code { (grader::ANY) } } }
                    }
                    @if let Some(contrast) = &bug.contrast {
                        tr { th { "But it passes" } td { "this similar input: " (visible_text(&contrast.input)) ", " (words.contrast) " " (visible_text(&contrast.expected)) } }
                    }
                }
            }
        }
    }
}

/// The harness files of the problem in `dir` (`interface.h`, `harness.c`, `harness.rs`...),
/// as `(name, text)`: what students of a function-level assignment write against.
pub fn harness_files(dir: &std::path::Path) -> Vec<(String, String)> {
    toolchain::Harness::ALL_FILES.iter().filter_map(|name| Some((name.to_string(), std::fs::read_to_string(dir.join(name)).ok()?))).collect()
}

/// [`harness_files`] shown: each file's name and text.
pub fn harness_listing(files: &[(String, String)]) -> Markup {
    html! {
        @if !files.is_empty() {
            p { "Your file defines the functions the course's harness calls; the harness reads each test and writes the output that is judged:" }
            @for (name, text) in files {
                h3 { code { (name) } }
                pre { code { (text) } }
            }
        }
    }
}

/// An explanation longer than this many bytes is given once per bug list.
const LONG_EXPLANATION: usize = 80;

/// A program's input or output as a reader can see it: empty text says it is empty, and
/// text of white space alone shows each space, tab and line break.
pub fn visible_text(text: &str) -> Markup {
    if text.is_empty() {
        return html! { em { "nothing (empty)" } };
    }
    if text.trim().is_empty() {
        let shown: String = text
            .chars()
            .map(|c| match c {
                ' ' => '␠',
                '\t' => '⇥',
                '\n' => '⏎',
                '\r' => '␍',
                other => other,
            })
            .collect();
        return html! { code { (shown) } " " span.muted { "(white space only: ␠ a space, ⏎ a line break, ⇥ a tab)" } };
    }
    match present::shown_start(text) {
        (whole, 0) => html! { code { (whole) } },
        (start, left_out) => html! { code { (start) } " " span.muted { "(… and " (left_out) " more characters, not shown)" } },
    }
}

/// The compiler's messages about line `line` of `file` (clang's and rustc's
/// `file:line:column: kind: text`, with the lines that follow each, up to the next).
fn messages_at<'a>(messages: &'a str, file: &str, line: usize) -> Vec<&'a str> {
    let at = format!("{file}:{line}:");
    let rustc = format!("--> {file}:{line}:");
    messages.lines().filter(|l| l.starts_with(&at) || l.trim_start().starts_with(&rustc)).collect()
}

/// A student's handed-in sources, each file with line numbers (each line's anchor is
/// `<file>-L<n>`) and the compiler's `messages` under the lines they name; a module
/// handed in as it is (no source) is said to be one.
pub fn source_listing(bytes: &[u8], messages: &str) -> Markup {
    let Some(source) = toolchain::Source::from_bytes(bytes) else {
        return html! { p.muted { "A compiled module of " (bytes.len()) " bytes was handed in: there is no source to show." } };
    };
    html! {
        @if !messages.trim().is_empty() {
            details { summary { "All the compiler's messages (" (messages.lines().count()) " lines)" } pre.compiler { (messages) } }
        }
        @for (name, text) in &source.files {
            @let text = String::from_utf8_lossy(text);
            h3 id=(name) { code { (name) } " " span.muted { "(" (text.lines().count()) " lines)" } }
            table.source {
                @for (i, line) in text.lines().enumerate() {
                    @let n = i + 1;
                    tr id={ (name) "-L" (n) } {
                        td.ln { a href={ "#" (name) "-L" (n) } { (n) } }
                        td { code { (line) } }
                    }
                    @for message in messages_at(messages, name, n) {
                        tr.message { td.ln {} td { code.bad { (message) } } }
                    }
                }
            }
        }
    }
}

/// A message as a reader sees it: what it quotes between backticks (a file, a column,
/// a value) in code type, without the backticks.
pub fn with_code(message: &str) -> Markup {
    if message.matches('`').count() % 2 == 1 {
        return html! { (message) };
    }
    html! {
        @for (i, part) in message.split('`').enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

/// How often the page of a check still running reloads itself (a bundle's, a hand-in's),
/// in seconds.
pub const CHECK_PAGE_RELOAD_SECONDS: u32 = 2;

/// Makes `response`, the page of a check still running, reload itself at `path` after
/// [`CHECK_PAGE_RELOAD_SECONDS`]. Pitfall: a path, never the address with its fragment
/// (`#hand-in-N`): a browser takes a reload of that for a move within the page, and never
/// reloads.
pub fn reload_while_checking(response: &mut actix_web::HttpResponse, path: &str) {
    let refresh = format!("{CHECK_PAGE_RELOAD_SECONDS}; url={path}");
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&refresh) {
        response.headers_mut().insert(actix_web::http::header::REFRESH, value);
    }
}

/// A date for people: `2026-11-22 14:03 UTC`.
pub fn date(seconds: i64) -> String {
    let (year, month, day, rest) = super::super::civil(seconds);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rest / 3600, rest % 3600 / 60)
}

/// The most ids a sentence names before "and N more".
const IDS_NAMED: usize = 20;

/// `ids` for a sentence: the first [`IDS_NAMED`], then how many more.
pub(super) fn first_ids(ids: &[String]) -> String {
    let named = ids[..ids.len().min(IDS_NAMED)].join(", ");
    match ids.len().saturating_sub(IDS_NAMED) {
        0 => named,
        more => format!("{named} and {more} more"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_parts_of_a_message_are_code_and_lose_their_backticks() {
        let check = |message: &str, html: &str| assert_eq!(with_code(message).into_string(), html);
        check("the header must name `id` and `cohort`", "the header must name <code>id</code> and <code>cohort</code>");
        check("an odd ` stays", "an odd ` stays");
        check("`<b>` is escaped", "<code>&lt;b&gt;</code> is escaped");
    }

    #[test]
    fn empty_and_blank_text_is_said_to_be_so() {
        assert_eq!(visible_text("").into_string(), "<em>nothing (empty)</em>");
        assert!(visible_text("\n").into_string().starts_with("<code>⏎</code>"));
        assert!(visible_text(" \t\n").into_string().starts_with("<code>␠⇥⏎</code>"));
        assert_eq!(visible_text("3 4\n").into_string(), "<code>3 4\n</code>");
    }

    #[test]
    fn a_long_explanation_given_again_refers_to_the_first_test_that_gave_it() {
        use grader::{Behaviour, BugList, BugReport, FailureKind};
        let long = "x".repeat(LONG_EXPLANATION + 1);
        let report = |test: &str, kind: FailureKind, detail: &str| BugReport {
            test: test.into(),
            input: "1".into(),
            expected: "ok".into(),
            got: Behaviour { kind, detail: detail.into(), reason: None, output: None },
            generalized: None,
            contrast: None,
            course_test: None,
        };
        let bugs = vec![report("t1", FailureKind::Crash, &long), report("t2", FailureKind::Wrong, "2"), report("t3", FailureKind::Crash, &long)];
        let list = BugList { answer: "a1".into(), passed: 0, suite_size: 3, bugs, build: None, points: None, course_tests_failed: Vec::new(), dialogue: false };
        let html = bug_list(&list).into_string();
        assert_eq!(html.matches(&long).count(), 1, "shown once: {html}");
        assert_eq!(html.matches("The same as on test t1 above.").count(), 1, "{html}");
    }

    #[test]
    fn a_card_of_a_dialogue_names_both_dialogues_and_says_where_a_stalled_one_stopped() {
        use grader::{Behaviour, BugList, BugReport, FailureKind};
        let stalled = BugReport {
            test: "t1".into(),
            input: "10 7\n".into(),
            expected: "<10\n>dig 5\n<right\n>dig 8\n<left\n>dig 6\n<right\n>dig 7\n<found\n".into(),
            got: Behaviour { kind: FailureKind::Timeout, detail: "ran out of time".into(), reason: None, output: Some("<10\n>dig 5\n<right\n".into()) },
            generalized: None,
            contrast: None,
            course_test: None,
        };
        let list = BugList {
            answer: "a1".into(),
            passed: 0,
            suite_size: 1,
            bugs: vec![stalled],
            build: None,
            points: None,
            course_tests_failed: Vec::new(),
            dialogue: true,
        };
        let html = bug_list(&list).into_string();
        for said in
            ["<th>The model answer's dialogue</th>", "<th>Your program's dialogue, up to where it stopped</th>", "<code>fflush(stdout)</code>", "&gt;dig 5"]
        {
            assert!(html.contains(said), "{said} in {html}");
        }
        assert!(!html.contains(">Expected<"), "{html}");
    }

    #[test]
    fn a_warning_is_shown_under_the_line_it_names() {
        let source =
            toolchain::Source { language: toolchain::Language::C, files: vec![("a01.c".into(), b"int main() {\n  int x;\n  return x;\n}\n".to_vec())] };
        let html = source_listing(&source.to_bytes(), "a01.c:3:10: warning: variable 'x' is uninitialized when used here\n").into_string();
        let line3 = html.find("id=\"a01.c-L3\"").unwrap();
        let warning = html.rfind("a01.c:3:10: warning").unwrap();
        let line4 = html.find("id=\"a01.c-L4\"").unwrap();
        assert!(line3 < warning && warning < line4, "{html}");
        assert!(source_listing(b"\0asm\x01\0\0\0", "").into_string().contains("no source to show"));
    }

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(1_795_356_180), "2026-11-22 14:03 UTC");
        assert_eq!(date(951_782_400), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn markdown_shows_raw_html_as_text() {
        let html = markdown("# Title\n\n<script>alert(1)</script>\n\nSome *emphasis*, <b>inline</b>.").into_string();
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("<em>emphasis</em>") && html.contains("&lt;b&gt;inline"), "{html}");
    }

    #[test]
    fn a_statement_table_is_a_table() {
        let html = markdown("| Input | Output |\n| ----- | ------ |\n| `3 -1 7` | `7` |\n").into_string();
        assert!(html.contains("<table>") && html.contains("<th>Input</th>") && html.contains("<td><code>3 -1 7</code></td>"), "{html}");
        assert!(!html.contains("| ---"), "{html}");
    }

    fn check_link(markdown_source: &str, live: bool) {
        let html = markdown(markdown_source).into_string();
        // A live link or image points somewhere else than `#`; text is no link at all.
        let points = |attribute: &str| html.contains(&format!("{attribute}=\"")) && !html.contains(&format!("{attribute}=\"#\""));
        assert_eq!(points("href") || points("src"), live, "{markdown_source}: {html}");
    }

    #[test]
    fn a_statement_links_only_to_the_web_mail_or_its_own_site() {
        for source in ["[x](https://example.org/a)", "[x](http://example.org)", "[x](mailto:t@example.org)", "[x](/problems/1)", "[x](notes.html#part)"] {
            check_link(source, true);
        }
        for source in [
            "[x](javascript:alert(1))",
            "[x](JavaScript:alert(1))",
            "[x](java\tscript:alert(1))",
            "<javascript:alert(1)>",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "[x](data:text/html,<script>alert(1)</script>)",
            "![x](data:image/svg+xml,<svg onload=alert(1)>)",
            "[x](vbscript:msgbox)",
        ] {
            check_link(source, false);
        }
    }
}
