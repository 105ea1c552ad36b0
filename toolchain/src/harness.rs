//! Function-level assignments: a problem's harness, built with each program.
//!
//! In such an assignment a hand-in is the file that defines the functions the assignment
//! asks for, with no `main`: the problem's harness is the program. It reads the generated
//! input, calls the functions and writes what they return through `bugrank.output` (with
//! `bugrank_harness.h` or `bugrank_harness.rs`, shipped here), so that the student's own
//! prints are never judged. Every program of the problem, its reference included, is built
//! as the harness plus one such file ([`crate::Builder::build_harnessed`]), with the same
//! flags; C and C++ files are compiled with `BUGRANK_HARNESS` defined, Rust with the cfg
//! `bugrank_harness`, so that a `main` kept for the student's own tests can stay out.
//!
//! Per language, a harness is:
//!
//! - C: `harness.c` and `interface.h` (the functions' declarations); C++: `harness.cpp`
//!   and `interface.h`. A hand-in's own copies of these files are replaced by the
//!   problem's.
//! - Rust: `harness.rs`, the crate's root, declaring `mod answer;` and calling
//!   `answer::…`; the hand-in (one `.rs` file, whatever its name) is that module's
//!   content: built first as a crate of its own ([`RUST_CRATE`]), which the module
//!   re-exports, so that nothing of the harness's crate (its library's `write`, `outln!`)
//!   can be named from it; its `pub` items are what the harness sees.
//! - Python: `harness.py`, run as `__main__`, importing the hand-in (one `.py` file) as
//!   `answer` and writing with `bugrank_harness.out` (built into bugrank's CPython, which
//!   compiles them together: see `sandbox`'s `interpreter.rs`). Not built here.
//!
//! A hand-in that lacks something the harness calls is a build failure that says so in
//! plain words before the compiler's or linker's own message; a `main` it keeps for its
//! own tests is left out, with a warning.
//!
//! Only the harness writes the judged output and ends the run. A C or C++ hand-in's own
//! files are compiled to objects of their own first, which [`check_objects`] reads before
//! the link: one that imports bugrank's output (as `bh_printf` does: a hand-in that writes
//! the answers itself could leave every function wrong and still pass) or has a
//! constructor (code that runs before the harness's `main`) is a build failure that says
//! which. A C++ global's initialisation (`std::map<int, int> memo;`) is the compiler's,
//! not a constructor the student wrote, and stays allowed; it cannot write the output
//! either. A Rust hand-in's tokens are read first (`rust_reaching_out`); a Python one is
//! guarded at run time (`toolchain/python/bugrank_python.c`'s `gen_guard`: a write to the
//! judged output is taken only from the harness's frames).
//!
//! The harnesses' guest libraries are `guest/bugrank_harness.h`, `.rs` and `.py` ([`C_LIBRARY`],
//! [`RUST_LIBRARY`], [`PYTHON_LIBRARY`]); in bugrank's CPython the Python one's `out` is
//! `_bugrank_gen.out`, the same function in C, since a harness calls it once a line.

use crate::Language;

/// The C and C++ harnesses' library: `bh_printf` and `bh_write`.
pub const C_LIBRARY: (&str, &str) = ("bugrank_harness.h", include_str!("../guest/bugrank_harness.h"));

/// The Rust harnesses' library, the module `bugrank_harness`: `outln!`, `write`.
pub const RUST_LIBRARY: (&str, &str) = ("bugrank_harness.rs", include_str!("../guest/bugrank_harness.rs"));

/// The Python harnesses' library, the module `bugrank_harness` (`out`, `write`), built into
/// bugrank's CPython: a copy beside a harness is for the author's native runs.
pub const PYTHON_LIBRARY: (&str, &str) = ("bugrank_harness.py", include_str!("../guest/bugrank_harness.py"));

/// Where a C or C++ build with a harness puts the hand-in's own objects (in the build's
/// hidden folder, which no hand-in's file can take), for [`check_objects`].
pub(crate) const HAND_IN_OBJECTS: &str = ".bugrank/objects";

/// What a C or C++ hand-in's `main` is renamed to in its object: a function like any
/// other, which nothing calls (C++ mangles it: `_Z20bugrank_hand_in_mainv`).
pub(crate) const RENAMED_MAIN: &str = "bugrank_hand_in_main";

/// What `interface.h` is called: C and C++ hand-ins include it.
pub const INTERFACE: &str = "interface.h";

/// The module a Rust harness declares for the hand-in (`mod answer;`).
pub const RUST_MODULE: &str = "answer.rs";

/// A problem's harness for one language: its files (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harness {
    pub language: Language,
    pub files: Vec<(String, Vec<u8>)>,
}

impl Harness {
    /// The files a harness in `language` is made of, its `main` first.
    pub fn file_names(language: Language) -> &'static [&'static str] {
        match language {
            Language::C => &["harness.c", INTERFACE],
            Language::Cpp => &["harness.cpp", INTERFACE],
            Language::Rust => &["harness.rs"],
            Language::Python => &["harness.py"],
        }
    }

    /// The file names of every harness a problem directory may hold.
    pub const ALL_FILES: [&'static str; 5] = ["harness.c", "harness.cpp", INTERFACE, "harness.rs", "harness.py"];

    /// The library the harness is built with.
    fn library(&self) -> (&'static str, &'static str) {
        match self.language {
            Language::Rust => RUST_LIBRARY,
            _ => C_LIBRARY,
        }
    }
}

/// The crate a Rust hand-in is built as (from [`RUST_HAND_IN`]), before the harness.
pub(crate) const RUST_CRATE: &str = "hand_in";

/// The file a Rust hand-in is written to in a build with the harness.
pub(crate) const RUST_HAND_IN: &str = "hand_in.rs";

/// The harness's module `answer` (`answer.rs`) in a Rust build: the hand-in's crate.
const RUST_SHIM: &str = "//! The hand-in, built as a crate of its own.\npub use ::hand_in::*;\n";

/// What a hand-in built with a harness is made of: the sources to compile and the name of
/// the student's file, when it was renamed (a Rust hand-in becomes [`RUST_HAND_IN`]).
pub(crate) struct Combined {
    pub(crate) source: crate::Source,
    pub(crate) renamed: Option<String>,
}

/// The hand-in `source` with `harness`: the harness's files and library replace any
/// copies among the student's. `Err` says why they cannot be built together, in words
/// (a Rust hand-in that reaches for the host: [`rust_reaching_out`]).
pub(crate) fn combine(source: &crate::Source, harness: &Harness) -> Result<Combined, String> {
    if source.language != harness.language {
        return Err(format!("the harness is in {}, the hand-in in {}", harness.language, source.language));
    }
    let (library, text) = harness.library();
    let course: Vec<&str> = harness.files.iter().map(|(name, _)| name.as_str()).chain([library]).collect();
    let mut files: Vec<(String, Vec<u8>)> = source.files.iter().filter(|(name, _)| !course.contains(&name.as_str())).cloned().collect();
    let mut renamed = None;
    if source.language == Language::Rust {
        let own: Vec<&(String, Vec<u8>)> = files.iter().filter(|(name, _)| name.ends_with(".rs")).collect();
        let [(name, bytes)] = own.as_slice() else {
            return Err(format!("in this assignment a Rust hand-in is one .rs file that defines what the harness calls (found {})", own.len()));
        };
        if let Some(refused) = rust_reaching_out(&String::from_utf8_lossy(bytes)) {
            return Err(refused);
        }
        renamed = Some(name.clone());
        files = vec![(RUST_HAND_IN.to_owned(), bytes.clone()), (RUST_MODULE.to_owned(), RUST_SHIM.as_bytes().to_vec())];
    }
    files.extend(harness.files.iter().cloned());
    files.push((library.to_owned(), text.as_bytes().to_vec()));
    Ok(Combined { source: crate::Source { language: source.language, files }, renamed })
}

/// A failed build of a hand-in with its harness, said in plain words first when the cause
/// is the hand-in's shape (a `main`, or something the harness calls that it lacks), then
/// the compiler's message. `student` is the hand-in's file name for messages that speak
/// of the hand-in's crate ([`RUST_HAND_IN`]).
pub(crate) fn explain(language: Language, message: &str, student: Option<&str>) -> String {
    let message = match student {
        Some(name) => message.replace(RUST_HAND_IN, name),
        None => message.to_owned(),
    };
    let mut said = Vec::new();
    if defines_main(language, &message) {
        said.push(main_in_words(language));
    }
    if language == Language::Rust && (message.contains("`bugrank_harness`") || message.contains("`outln`")) {
        said.push(
            "Your file uses the harness's own library (`bugrank_harness`, `outln!`): in this assignment only the course's harness writes \
             the judged output, from what your functions return. Return your results; use println! for messages of your own, which are \
             shown to you and never judged."
                .to_owned(),
        );
    }
    let missing = missing_names(&message);
    if !missing.is_empty() {
        let names = missing.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
        let what = match language {
            Language::Rust => "which the harness calls",
            _ => "which the assignment's interface (interface.h) declares and the harness calls",
        };
        said.push(format!("Your file does not define {names}, {what}."));
    }
    if said.is_empty() {
        return message;
    }
    format!("{}\n\nThe compiler said:\n{message}", said.join(" "))
}

/// Whether a build's messages say the hand-in defines `main`: rustc's warning that the
/// module's `main` is never used (a `main` in a module is no error, but it never runs), or
/// [`check_objects`]'s that a C or C++ file's was left out.
fn defines_main(language: Language, messages: &str) -> bool {
    match language {
        Language::Rust => messages.contains("function `main` is never used"),
        _ => messages.contains(MAIN_LEFT_OUT),
    }
}

/// What [`check_objects`] says of a C or C++ hand-in that defines `main`.
const MAIN_LEFT_OUT: &str = "warning: your file's `main` is left out";

/// Reads a C or C++ hand-in's own objects (the `.o` files in `dir`, see
/// [`HAND_IN_OBJECTS`]): `Ok` with the warnings to add (a `main` left out), or `Err` with
/// why the hand-in is refused, in words: it imports the output only the harness writes, or
/// it has a constructor.
pub(crate) fn check_objects(dir: &std::path::Path) -> Result<String, String> {
    let mut objects: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("the build's objects cannot be read: {e}"))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "o"))
        .collect();
    objects.sort();
    let mut warnings = String::new();
    for path in objects {
        let bytes = std::fs::read(&path).map_err(|e| format!("the build's objects cannot be read: {e}"))?;
        let object = Object::read(&bytes).map_err(|e| format!("the compiler's object cannot be read: {e}"))?;
        if let Some(import) = object.imports.iter().find(|(module, _)| module == "bugrank") {
            return Err(format!(
                "Your file writes the judged output itself (it calls `{}` of bugrank, as `bh_printf` and `bh_write` do): in this assignment only the \
                 course's harness writes it, from what your functions return. Return your results; use printf for messages of your own, which \
                 are shown to you and never judged.",
                import.1
            ));
        }
        if let Some(constructor) = object.constructors.iter().find(|name| !name.starts_with("_GLOBAL__sub_I_")) {
            return Err(format!(
                "Your file runs code of its own before the harness starts (`{constructor}`, a constructor): in this assignment the course's \
                 harness is the program, and it calls your functions. Remove the constructor attribute."
            ));
        }
        if object.defines_main {
            warnings.push_str(&format!("{MAIN_LEFT_OUT} ({RENAMED_MAIN} in the build).\n"));
        }
    }
    Ok(warnings)
}

/// What [`check_objects`] reads of a WebAssembly object file (clang's `-c` output): its
/// imports, its constructors' names (the linking section's init functions) and whether
/// it defines the renamed `main`.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Object {
    pub(crate) imports: Vec<(String, String)>,
    constructors: Vec<String>,
    defines_main: bool,
    /// Its function symbols: each name, and whether the object defines it.
    pub(crate) functions: Vec<(String, bool)>,
    /// The calls its functions make, as (the caller's symbol, the callee's symbol): each
    /// `call` or `return_call` in a body, once.
    pub(crate) calls: Vec<(String, String)>,
}

impl Object {
    /// The object's imports, constructors, `main` and function symbols, without its calls
    /// (left empty: reading them walks every instruction).
    pub(crate) fn read(bytes: &[u8]) -> wasmparser::Result<Object> {
        Object::read_calls(bytes, false)
    }

    /// [`Object::read`], and its calls too when `with_calls`.
    pub(crate) fn read_calls(bytes: &[u8], with_calls: bool) -> wasmparser::Result<Object> {
        use wasmparser::{KnownCustom, Linking, Payload, SymbolFlags, SymbolInfo, TypeRef};
        let mut object = Object::default();
        let mut function_imports: Vec<String> = Vec::new();
        let mut symbols: Vec<Option<String>> = Vec::new();
        let mut init_symbols: Vec<u32> = Vec::new();
        // The function indices of the symbols, and the calls by index (caller, callee).
        let mut function_symbols: Vec<(u32, String)> = Vec::new();
        let mut calls: std::collections::BTreeSet<(u32, u32)> = std::collections::BTreeSet::new();
        let mut body_index = 0u32;
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            match payload? {
                Payload::CodeSectionEntry(body) if with_calls => {
                    let own = function_imports.len() as u32 + body_index;
                    body_index += 1;
                    let mut operators = body.get_operators_reader()?;
                    while !operators.eof() {
                        if let wasmparser::Operator::Call { function_index } | wasmparser::Operator::ReturnCall { function_index } = operators.read()? {
                            calls.insert((own, function_index));
                        }
                    }
                }
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        let import = import?;
                        if matches!(import.ty, TypeRef::Func(_)) {
                            function_imports.push(import.name.to_owned());
                        }
                        object.imports.push((import.module.to_owned(), import.name.to_owned()));
                    }
                }
                Payload::CustomSection(section) => {
                    let KnownCustom::Linking(linking) = section.as_known() else { continue };
                    for subsection in linking.subsections() {
                        match subsection? {
                            Linking::SymbolTable(table) => {
                                for symbol in table {
                                    let name = match symbol? {
                                        SymbolInfo::Func { flags, index, name } => {
                                            let name = name.map(str::to_owned).or_else(|| function_imports.get(index as usize).cloned());
                                            let defined = !flags.contains(SymbolFlags::UNDEFINED);
                                            if defined && name.as_deref().is_some_and(|name| name.contains(RENAMED_MAIN)) {
                                                object.defines_main = true;
                                            }
                                            object.functions.extend(name.clone().map(|name| (name, defined)));
                                            if let Some(name) = &name {
                                                function_symbols.push((index, name.clone()));
                                            }
                                            name
                                        }
                                        SymbolInfo::Data { name, .. } => Some(name.to_owned()),
                                        _ => None,
                                    };
                                    symbols.push(name);
                                }
                            }
                            Linking::InitFuncs(functions) => {
                                for function in functions {
                                    init_symbols.push(function?.symbol_index);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        let by_index: std::collections::HashMap<u32, &String> = function_symbols.iter().map(|(index, name)| (*index, name)).collect();
        let named = |index: u32| by_index.get(&index).map(|name| (*name).clone());
        object.calls = calls.into_iter().filter_map(|(caller, callee)| Some((named(caller)?, named(callee)?))).collect();
        object.constructors = init_symbols.iter().map(|&i| symbols.get(i as usize).cloned().flatten().unwrap_or_else(|| format!("function {i}"))).collect();
        Ok(object)
    }
}

/// What a hand-in with a `main` is told.
fn main_in_words(language: Language) -> String {
    let keep = match language {
        Language::Rust => "put it under `#[cfg(not(bugrank_harness))]`",
        _ => "keep it between `#ifndef BUGRANK_HARNESS` and `#endif`",
    };
    format!(
        "Your file defines `main`, which is left out: in this assignment the course's harness is the program, which reads the tests and \
         calls your functions. To keep it for your own tests without this warning, {keep}."
    )
}

/// The names a build's messages say are missing: the linker's undefined symbols (C, C++),
/// rustc's items not found in the module `answer` (Rust), in the order first named.
fn missing_names(messages: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: String| {
        if !names.contains(&name) {
            names.push(name);
        }
    };
    for line in messages.lines() {
        if let Some(rest) = line.split("undefined symbol: ").nth(1) {
            add(rest.trim().to_owned());
        }
        // rustc: "cannot find function `insert` in module `answer`",
        // "no function or associated item named `len` found for struct `Lru` in the current scope".
        if let Some(rest) = line.split("cannot find ").nth(1).filter(|rest| rest.contains("in module `answer`"))
            && let Some(name) = between_backticks(rest)
        {
            add(name);
        }
        if let Some(rest) = line.split("no function or associated item named ").nth(1) {
            let mut quoted = rest.split('`').skip(1).step_by(2);
            if let (Some(item), Some(owner)) = (quoted.next(), quoted.next()) {
                add(format!("{owner}::{item}"));
            }
        }
        if let Some(rest) = line.split("no method named ").nth(1)
            && let Some(name) = between_backticks(rest)
        {
            add(format!("the method {name}"));
        }
    }
    names
}

/// Why a Rust hand-in is refused before it is built, if it is: it declares functions of
/// the host (`extern` blocks or functions with an ABI: the harness's output is such an
/// import), links or exports by hand (`#[link]`, `#[no_mangle]`, ...), or takes another
/// file in (`include!`, `#[path]`: the harness's files are beside it). Read as Rust's
/// tokens, comments and literals set aside, so a macro that would write any of these
/// holds them in the source too. None of it is needed to write the functions of an
/// assignment.
fn rust_reaching_out(source: &str) -> Option<String> {
    let tokens = rust_tokens(source);
    let said = |what: &str| {
        Some(format!(
            "Your file {what}, which a hand-in of this assignment may not: your functions return their results to the course's harness, \
             which alone writes the judged output."
        ))
    };
    for (i, token) in tokens.iter().enumerate() {
        let next = |k: usize| tokens.get(i + k).map(String::as_str).unwrap_or("");
        match token.as_str() {
            "extern" if next(1) == "{" || next(1).starts_with('"') => return said("declares functions of the host (`extern`)"),
            "include" | "include_str" | "include_bytes" if next(1) == "!" => return said(&format!("takes in another file (`{token}!`)")),
            "#" => {
                let at = if next(1) == "!" { 2 } else { 1 };
                if next(at) != "[" {
                    continue;
                }
                let name = if next(at + 1) == "unsafe" && next(at + 2) == "(" { next(at + 3) } else { next(at + 1) };
                if ["link", "link_name", "no_mangle", "export_name", "link_section", "path", "used"].contains(&name) {
                    return said(&format!("has the attribute `#[{name}]`"));
                }
            }
            _ => {}
        }
    }
    None
}

/// Rust's tokens in `source`, roughly: identifiers and keywords, literals (a string keeps
/// its opening quote), and each punctuation character alone; comments (nested block
/// comments too) and white space left out.
fn rust_tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest = |k: usize| chars.get(i + k).copied().unwrap_or('\0');
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && rest(1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && rest(1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' || (c == 'b' || c == 'c') && rest(1) == '"' {
            // A string: up to the closing quote, escapes skipped.
            let start = i;
            i += if c == '"' { 1 } else { 2 };
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            tokens.push(format!("\"{}", chars[start..i.min(chars.len())].iter().collect::<String>()));
        } else if (c == 'r' || (c == 'b' || c == 'c') && rest(1) == 'r') && {
            let at = if c == 'r' { 1 } else { 2 };
            let mut k = at;
            while chars.get(i + k) == Some(&'#') {
                k += 1;
            }
            chars.get(i + k) == Some(&'"') && (k > at || chars.get(i + at) == Some(&'"'))
        } {
            // A raw string: r"…", r#"…"#, …
            let at = if c == 'r' { 1 } else { 2 };
            let hashes = chars[i + at..].iter().take_while(|&&h| h == '#').count();
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let body_start = i + at + hashes + 1;
            let text: String = chars[body_start..].iter().collect();
            let length = text.find(&close).map_or(chars.len() - body_start, |end| text[..end].chars().count());
            i = (body_start + length + close.chars().count()).min(chars.len());
            tokens.push("\"raw".to_owned());
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or a lifetime ('a).
            if rest(1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if rest(2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            tokens.push("'".to_owned());
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// The first text between backticks in `text`.
fn between_backticks(text: &str) -> Option<String> {
    text.split('`').nth(1).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(language: Language, message: &str, expected: &[&str]) {
        let said = explain(language, message, Some("lru.rs"));
        for words in expected {
            assert!(said.contains(words), "{said:?} lacks {words:?}");
        }
        assert!(said.ends_with(&message.replace(RUST_HAND_IN, "lru.rs")), "the compiler's own message comes last: {said:?}");
    }

    #[test]
    fn a_c_main_left_out_is_said_in_words() {
        check(
            Language::C,
            &format!("{MAIN_LEFT_OUT}: in this assignment the course's harness is the program"),
            &["Your file defines `main`, which is left out", "#ifndef BUGRANK_HARNESS", "The compiler said:"],
        );
    }

    #[test]
    fn functions_the_linker_misses_are_named_once_each() {
        check(
            Language::C,
            "wasm-ld: error: harness.o: undefined symbol: lru_put\nwasm-ld: error: harness.o: undefined symbol: lru_size\nwasm-ld: error: harness.o: undefined symbol: lru_put",
            &["Your file does not define `lru_put`, `lru_size`, which the assignment's interface (interface.h) declares"],
        );
    }

    #[test]
    fn rust_items_the_harness_cannot_find_are_named_as_the_student_wrote_them() {
        check(
            Language::Rust,
            "error[E0425]: cannot find function `member` in module `answer`\n --> harness.rs:12:30\nerror[E0599]: no function or associated item named `len` found for struct `Lru` in the current scope\n --> hand_in.rs:3:1",
            &["Your file does not define `member`, `Lru::len`, which the harness calls", "--> lru.rs:3:1"],
        );
    }

    #[test]
    fn a_rust_main_is_said_in_words() {
        check(Language::Rust, "warning: function `main` is never used\n --> hand_in.rs:40:4", &["Your file defines `main`", "#[cfg(not(bugrank_harness))]"]);
    }

    fn check_rust(source: &str, refused: Option<&str>) {
        match (rust_reaching_out(source), refused) {
            (None, None) => {}
            (Some(said), Some(words)) => assert!(said.contains(words), "{source}: {said}"),
            (said, words) => panic!("{source}: said {said:?}, expected {words:?}"),
        }
    }

    #[test]
    fn a_rust_hand_in_that_reaches_for_the_host_is_refused_and_one_that_only_mentions_it_is_not() {
        check_rust("#[link(wasm_import_module = \"bugrank\")]\nextern \"C\" { fn output(p: *const u8, n: usize) -> i32; }\n", Some("`#[link]`"));
        check_rust("extern \"C\" { fn output(p: *const u8, n: usize) -> i32; }\n", Some("declares functions of the host (`extern`)"));
        check_rust("macro_rules! m { () => { extern { fn f(); } } }\n", Some("(`extern`)"));
        check_rust("include!(\"bugrank_harness.rs\");\n", Some("`include!`"));
        check_rust("#[path = \"bugrank_harness.rs\"]\nmod h;\n", Some("`#[path]`"));
        check_rust("#[unsafe(no_mangle)]\npub fn main() {}\n", Some("`#[no_mangle]`"));
        check_rust(
            "// extern \"C\" { } in a comment, /* include!(x) /* nested */ */\nextern crate std;\nconst S: &str = \"extern {\";\n\
             const R: &str = r#\"#[link]\"#;\nfn f<'a>(x: &'a str) -> char { let _ = '{'; let _ = '\\''; x.chars().next().unwrap_or('#') }\n",
            None,
        );
    }

    #[test]
    fn other_failures_are_the_compilers_message_alone() {
        let message = "answer.c:3:5: error: use of undeclared identifier 'x'";
        assert_eq!(explain(Language::C, message, None), message);
    }

    #[test]
    fn a_hand_ins_copies_of_the_harness_files_are_replaced_and_a_rust_file_becomes_the_module_answer() {
        let harness = Harness { language: Language::Rust, files: vec![("harness.rs".into(), b"mod answer;".to_vec())] };
        let source =
            crate::Source { language: Language::Rust, files: vec![("lru.rs".into(), b"pub fn f() {}".to_vec()), ("harness.rs".into(), b"old".to_vec())] };
        let combined = combine(&source, &harness).unwrap();
        let names: Vec<&str> = combined.source.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["hand_in.rs", "answer.rs", "harness.rs", "bugrank_harness.rs"]);
        assert_eq!(combined.source.files[0].1, b"pub fn f() {}");
        assert_eq!(combined.source.files[2].1, b"mod answer;");
        assert_eq!(combined.renamed.as_deref(), Some("lru.rs"));
        let two = crate::Source { language: Language::Rust, files: vec![("a.rs".into(), vec![]), ("b.rs".into(), vec![])] };
        assert!(combine(&two, &harness).err().unwrap().contains("one .rs file"));
    }
}
