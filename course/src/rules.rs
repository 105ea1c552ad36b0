//! The rules an assignment sets beyond output ([`RulesToml`]): the
//! constructs a hand-in must not use ("without `sort`"), found in its sources, since no
//! run can show them. Python's are checked by the syntax tree
//! (`toolchain/guest/bugrank_rules.py`), run by bugrank's CPython in the sandbox: the
//! student's sources never reach a parser of the host. C's, C++'s and Rust's by the
//! library functions the hand-in's compiled code calls (`toolchain::calls`, built in the
//! build sandbox), each use then found in its text for its line. Each use is a
//! [`grader::RuleBroken`] of the hand-in's `Build`, which `grade_batch::add_builds` charges
//! to its points (`Points::breaking_rule`); a model answer that breaks its own rule is
//! refused when the problem loads.

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use grader::RuleBroken;

use crate::error::{CourseError, CourseResult};
use sandbox::{Interpreter, Limits, Outcome, Sandbox};
use toolchain::{BuildOptions, Builder, Harness, Language, Source};

/// `[rules]` of `problem.toml`: constructs a hand-in must not use, by language, checked in
/// its sources (no output shows them). What breaking one costs is `[grading] rule_cost`
/// (default: all the points).
///
/// ```toml
/// [rules.python]
/// # Calls of these names (`sorted(xs)`, `xs.sort()`, `key=sorted`), and imports.
/// forbid = ["sort", "sorted", "import bisect"]
///
/// [rules.c]
/// # Calls of the C library's functions.
/// forbid = ["qsort", "strlen"]
///
/// [rules.cpp]
/// # The standard library's functions: a name alone is any of that name (`sort`,
/// # `std::ranges::sort`, a member `length`), a qualified one that one (`std::sort`).
/// forbid = ["sort", "std::stable_sort", "qsort"]
/// # What a hand-in must have: a function of its own that calls itself, a class.
/// require = ["recursion", "class Stack"]
/// ```
///
/// Python's are found by the syntax tree; C's, C++'s and Rust's by the library functions
/// the hand-in's compiled code calls (see `toolchain::calls`: `[rules.rust] forbid =
/// ["sort"]` finds `v.sort()`, `alloc::slice::sort`). A name the hand-in defines itself is
/// its own (a function `sorted` or `sort` it wrote, a variable `sort`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesToml {
    #[serde(default)]
    pub python: LanguageRules,
    #[serde(default)]
    pub c: LanguageRules,
    #[serde(default)]
    pub cpp: LanguageRules,
    #[serde(default)]
    pub rust: LanguageRules,
}

/// One language's rules (see [`RulesToml`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageRules {
    /// Names whose calls are forbidden, and (Python) `import M` for a module.
    #[serde(default)]
    pub forbid: Vec<String>,
    /// Constructs a hand-in must have: `recursion` (a function of its own that calls
    /// itself), `def f` (a function it defines), `class C` (a class it defines; in C++, one
    /// whose member functions it defines), `import M` (Python) or a name it must call.
    #[serde(default)]
    pub require: Vec<String>,
}

impl RulesToml {
    /// What a hand-in in `language` must not use (`forbid`).
    pub fn forbidden(&self, language: Language) -> &[String] {
        &self.of(language).forbid
    }

    /// What a hand-in in `language` must have (`require`).
    pub fn required(&self, language: Language) -> &[String] {
        &self.of(language).require
    }

    /// `language`'s rules.
    fn of(&self, language: Language) -> &LanguageRules {
        match language {
            Language::Python => &self.python,
            Language::C => &self.c,
            Language::Cpp => &self.cpp,
            Language::Rust => &self.rust,
        }
    }

    /// The rules, checked: Python's each a name or `import` and a module's dotted name;
    /// C's, C++'s and Rust's each a function's name, qualified or not (`sort`,
    /// `std::sort`, `slice::sort`).
    pub(crate) fn checked(self) -> Result<RulesToml, String> {
        let identifier =
            |name: &str| name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        for rule in &self.python.forbid {
            let name = rule.strip_prefix("import ").map_or(rule.as_str(), str::trim);
            if !name.split('.').all(identifier) || (!rule.starts_with("import ") && name.contains('.')) {
                return Err(format!("[rules.python] forbid: `{rule}` is neither a name (`sorted`) nor `import` and a module (`import bisect`)"));
            }
        }
        for (language, rules) in [("c", &self.c), ("cpp", &self.cpp), ("rust", &self.rust)] {
            if let Some(rule) = rules.forbid.iter().find(|rule| !rule.split("::").all(identifier)) {
                return Err(format!("[rules.{language}] forbid: `{rule}` is not a function's name (`qsort`, or qualified: `std::sort`)"));
            }
        }
        // A requirement: `recursion`, `def f`, `class C`, (Python) `import M`, or a name.
        for (language, rules, imports) in [("python", &self.python, true), ("c", &self.c, false), ("cpp", &self.cpp, false), ("rust", &self.rust, false)] {
            for rule in &rules.require {
                let name = |name: &str| name.split(if imports { "." } else { "::" }).all(identifier);
                let fine = match rule.split_once(' ') {
                    Some(("def" | "class", what)) => name(what.trim()),
                    Some(("import", module)) => imports && module.trim().split('.').all(identifier),
                    Some(_) => false,
                    None => rule == "recursion" || name(rule),
                };
                if !fine {
                    return Err(format!(
                        "[rules.{language}] require: `{rule}` is neither `recursion`, `def` and a function's name, `class` and a class's{}, nor a name to call",
                        if imports { ", `import` and a module" } else { "" }
                    ));
                }
            }
        }
        Ok(self)
    }
}

/// The fuel the check of one hand-in may use. Parsing and walking a first-year hand-in of
/// a few hundred lines costs a few million; this bounds a pathological one (a file of tens
/// of thousands of lines still fits), so that the check always ends.
pub const RULES_CHECK_FUEL: u64 = 2_000_000_000;

/// The memory the check may use: the syntax tree of a large file takes some tens of MB.
pub const RULES_CHECK_MEMORY_BYTES: usize = 256 << 20;

/// Where the Python `source` breaks the rules `forbidden` (names whose calls are
/// forbidden, and `import M`), in the order of the source, then each of `required` it
/// does not meet (`recursion`, `def f`, `class C`, `import M`, a name to call); none when
/// there are no rules.
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
    required: &[String],
    source: &[u8],
) -> Result<Result<Vec<RuleBroken>, String>, String> {
    if forbidden.is_empty() && required.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let checker = sandbox
        .load_interpreted(python, "bugrank_rules.py", toolchain::guest::PYTHON_RULES.as_bytes())
        .map_err(|e| format!("bugrank's check of the assignment's rules cannot start: {e}"))?
        .map_err(|message| format!("bugrank's check of the assignment's rules does not compile: {message}"))?;
    let rules: Vec<String> = forbidden.iter().cloned().chain(required.iter().map(|rule| format!("require {rule}"))).collect();
    let mut input = rules.join("\n").into_bytes();
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

/// Where the C, C++ or Rust `source` breaks the rules `forbidden` (functions' names, `sort`
/// or `std::sort`: see [`RulesToml`]), built with the problem's `harness`
/// and `options`: each forbidden function its compiled code calls
/// ([`Builder::library_calls`]), at every line of its sources that calls that name (a
/// word followed by `(` or `<`, outside comments and strings), else at the first that
/// names it, in the order of the sources; then each of `required` its code does not meet
/// (`recursion`: a function of its own that calls itself; `def f`: a function it defines;
/// `class C`: a class whose member functions it defines; a library function it calls).
/// None when there are no rules. `Ok(Err)` and `Err` as [`python_rules_broken`]'s.
pub fn compiled_rules_broken(
    builder: &Builder,
    source: &Source,
    harness: Option<&Harness>,
    options: &BuildOptions,
    forbidden: &[String],
    required: &[String],
) -> Result<Result<Vec<RuleBroken>, String>, String> {
    if forbidden.is_empty() && required.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let calls = match builder.library_calls(source, harness, options).map_err(|e| format!("bugrank's check of the assignment's rules failed: {e}"))? {
        Ok(calls) => calls,
        Err(why) => return Ok(Err(format!("its sources could not be checked against the assignment's rules: {why}"))),
    };
    let last = |name: &str| name.rsplit("::").next().unwrap_or(name).to_owned();
    // A name alone is any function of that name; a qualified one, that path's end.
    let named = |names: &[String], wanted: &str| {
        names.iter().any(|name| match wanted.contains("::") {
            true => name == wanted || name.ends_with(&format!("::{wanted}")),
            false => last(name) == wanted,
        })
    };
    let texts: Vec<Vec<u8>> = source.files.iter().map(|(_, text)| code_only(text)).collect();
    let mut broken = Vec::new();
    for rule in forbidden {
        let called = named(&calls.library, rule);
        if !called {
            continue;
        }
        let word = last(rule);
        let uses: Vec<(usize, u32)> =
            texts.iter().enumerate().flat_map(|(file, text)| lines_naming(text, &word, true).into_iter().map(move |line| (file, line))).collect();
        let uses = match uses.is_empty() {
            true => texts.iter().enumerate().find_map(|(file, text)| lines_naming(text, &word, false).first().map(|line| (file, *line))).into_iter().collect(),
            false => uses,
        };
        if uses.is_empty() {
            // Called, and written nowhere in the hand-in's own text (through a macro of a
            // header it does not hold): said at its first line.
            broken.push((
                0,
                RuleBroken { rule: rule.clone(), line: 1, code: format!("(`{word}` is called, through code not written in the sources)"), required: false },
            ));
        }
        for (file, line) in uses {
            let text = String::from_utf8_lossy(&source.files[file].1);
            let code = text.lines().nth(line as usize - 1).unwrap_or_default().trim().to_owned();
            broken.push((file, RuleBroken { rule: rule.clone(), line, code, required: false }));
        }
    }
    broken.sort_by_key(|(file, rule)| (*file, rule.line));
    let lacking = required.iter().filter(|rule| {
        let met = match rule.split_once(' ') {
            _ if rule.as_str() == "recursion" => !calls.recursive.is_empty(),
            Some(("def", function)) => named(&calls.defined, function.trim()),
            Some(("class", class)) => {
                calls.defined.iter().any(|name| name.rsplit_once("::").is_some_and(|(owner, _)| owner.split("::").any(|part| part == class.trim())))
            }
            _ => named(&calls.library, rule),
        };
        !met
    });
    let lacking = lacking.map(|rule| RuleBroken { rule: rule.clone(), line: 0, code: String::new(), required: true });
    Ok(Ok(broken.into_iter().map(|(_, rule)| rule).chain(lacking).collect()))
}

/// C or C++ `text` with its comments and the insides of its string and character literals
/// blanked (line breaks kept), so that a name is found only in code.
fn code_only(text: &[u8]) -> Vec<u8> {
    let mut code = text.to_vec();
    let mut at = 0;
    while at < code.len() {
        let blank_until = |code: &mut Vec<u8>, from: usize, end: usize| {
            for byte in &mut code[from..end] {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
        };
        match (code[at], code.get(at + 1)) {
            (b'/', Some(b'/')) => {
                let end = code[at..].iter().position(|b| *b == b'\n').map_or(code.len(), |n| at + n);
                blank_until(&mut code, at, end);
                at = end;
            }
            (b'/', Some(b'*')) => {
                let end = code[at + 2..].windows(2).position(|w| w == b"*/").map_or(code.len(), |n| at + 2 + n + 2);
                blank_until(&mut code, at, end);
                at = end;
            }
            (quote @ (b'"' | b'\''), _) => {
                let mut end = at + 1;
                while end < code.len() && code[end] != quote && code[end] != b'\n' {
                    end += if code[end] == b'\\' { 2 } else { 1 };
                }
                let end = end.min(code.len());
                blank_until(&mut code, at + 1, end);
                at = end + 1;
            }
            _ => at += 1,
        }
    }
    code
}

/// The lines (from 1) of `code` that name `word` as a word; with `called`, only where it
/// is called: followed by `(` or `<` (a template's arguments).
fn lines_naming(code: &[u8], word: &str, called: bool) -> Vec<u32> {
    let identifier = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut lines = Vec::new();
    for (number, line) in code.split(|byte| *byte == b'\n').enumerate() {
        let found = line.windows(word.len()).enumerate().any(|(at, window)| {
            let before = at.checked_sub(1).map(|i| line[i]);
            let after = line[at + word.len()..].iter().find(|byte| !byte.is_ascii_whitespace());
            window == word.as_bytes()
                && !before.is_some_and(identifier)
                && !line.get(at + word.len()).copied().is_some_and(identifier)
                && (!called || after.is_some_and(|byte| matches!(byte, b'(' | b'<')))
        });
        if found {
            lines.push(number as u32 + 1);
        }
    }
    lines
}

/// Checks that the model answer at `path`, in `language`, obeys the rules it sets its
/// students, given where it breaks them (`broken`, from [`python_rules_broken`] or
/// [`compiled_rules_broken`]): a problem whose reference breaks one is refused, naming the
/// line.
pub fn reference_obeys(path: &Path, language: Language, broken: Result<Vec<RuleBroken>, String>) -> CourseResult<()> {
    let broken = broken.map_err(|why| CourseError::Problem(format!("{}: {why}", path.display())))?;
    // (problem.toml's name of the language, as in `languages`.)
    let key = match language {
        Language::Python => "python",
        Language::C => "c",
        Language::Cpp => "cpp",
        Language::Rust => "rust",
    };
    match broken.first() {
        None => Ok(()),
        Some(rule) => Err(CourseError::Problem(format!(
            "{}: the model answer breaks the rule it sets ([rules.{}] in problem.toml): it {}",
            path.display(),
            key,
            rule.said()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_forbid_and_require_python_names_and_imports_and_functions_of_c_cpp_and_rust() {
        let check = |text: &str, expected: Option<&str>| {
            let refused = toml::from_str::<RulesToml>(text).unwrap().checked().err();
            match (expected, &refused) {
                (None, None) => {}
                (Some(words), Some(said)) if said.contains(words) => {}
                _ => panic!("{text}: expected {expected:?}, got {refused:?}"),
            }
        };
        check("[python]\nforbid = [\"sort\", \"import bisect\", \"import os.path\"]", None);
        check("[python]\nforbid = [\"xs.sort\"]", Some("`xs.sort` is neither a name"));
        check("[c]\nforbid = [\"qsort\", \"strlen\"]\n[cpp]\nforbid = [\"sort\", \"std::sort\", \"std::ranges::sort\"]", None);
        check("[cpp]\nforbid = [\"#include <algorithm>\"]", Some("[rules.cpp] forbid: `#include <algorithm>` is not a function's name"));
        check("[cpp]\nforbid = [\"std::\"]", Some("is not a function's name"));
        check("[rust]\nforbid = [\"sort\", \"slice::sort_unstable\"]\nrequire = [\"recursion\", \"class Stack\"]", None);
        check("[rust]\nforbid = [\".sort()\"]", Some("[rules.rust] forbid: `.sort()` is not a function's name"));
        // Requirements.
        check("[python]\nrequire = [\"recursion\", \"def search\", \"class Stack\", \"import heapq\", \"heappush\"]", None);
        check("[c]\nrequire = [\"recursion\", \"def fact\", \"malloc\"]\n[cpp]\nrequire = [\"class Stack\", \"def Stack::push\"]", None);
        check("[c]\nrequire = [\"import stdio\"]", Some("[rules.c] require: `import stdio` is neither `recursion`"));
        check("[python]\nrequire = [\"use recursion\"]", Some("[rules.python] require: `use recursion` is neither"));
    }
}
