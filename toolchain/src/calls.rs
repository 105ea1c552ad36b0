//! What a C, C++ or Rust hand-in's own code calls, for an assignment's rules ("without
//! `qsort`", "do not use `std::sort`", "use recursion"): no output shows it. Each of the
//! hand-in's own files is compiled alone to an object, unoptimised ([`FLAGS`],
//! [`RUST_FLAGS`]: nothing inlined, folded or turned into a builtin), and the objects'
//! calls and function symbols are read: the library functions the hand-in's own functions
//! call, whether the C library's (`qsort`, `strlen`: not defined in the object) or the
//! standard libraries' templates and generics it instantiates (`std::sort`,
//! `std::basic_string::length`; Rust's `alloc::slice::sort` for `v.sort()`), each by its
//! name as a source writes it ([`library_name`]), but not what those call in turn; the
//! functions it defines itself (its own `sort` is never the library's); and those of
//! them that call themselves.
//!
//! ```
//! use toolchain::calls::library_name;
//! assert_eq!(library_name("qsort", false).as_deref(), Some("qsort"));
//! assert_eq!(library_name("sort", true), None, "the hand-in's own sort");
//! // void std::__2::sort<int*>(int*, int*), instantiated from the header:
//! let sort = "_ZNSt3__24sortIPiEEvT_S2_";
//! assert_eq!(library_name(sort, true).as_deref(), Some("std::sort"));
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::harness::Object;

/// The compiler's flags of the objects read, after a build's own: unoptimised, so that a
/// call of the library stays a call (at `-O2` clang inlines `std::sort` and turns
/// `strlen("abc")` into 3), and no C library function is taken for a builtin.
pub const FLAGS: [&str; 3] = ["-O0", "-fno-builtin", "-fno-inline"];

/// rustc's flags of the object read, after a build's own: one object, unoptimised.
pub const RUST_FLAGS: [&str; 2] = ["--emit=obj", "-Copt-level=0"];

/// What a hand-in's compiled code calls and defines, for an assignment's rules: see the
/// module's documentation. Each list sorted, each name once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calls {
    /// The library functions its own functions call ([`library_name`]).
    pub library: Vec<String>,
    /// The functions it defines itself (outside the standard libraries), by their
    /// qualified names (`search`, `Stack::push`, Rust's `answer::fact`).
    pub defined: Vec<String>,
    /// Those of its own functions that call themselves (recursion, direct).
    pub recursive: Vec<String>,
}

/// The [`Calls`] of the objects in `dir`; `Err` names an object that cannot be read.
pub(crate) fn read(dir: &Path) -> Result<Calls, String> {
    let mut calls = Calls::default();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("the build's objects cannot be read: {e}"))?;
    for path in entries.flatten().map(|entry| entry.path()).filter(|path| path.extension().is_some_and(|e| e == "o")) {
        let bytes = std::fs::read(&path).map_err(|e| format!("the build's objects cannot be read: {e}"))?;
        let object = Object::read_calls(&bytes, true).map_err(|e| format!("the compiler's object cannot be read: {e}"))?;
        let defined_here: std::collections::HashSet<&str> = object.functions.iter().filter(|(_, defined)| *defined).map(|(name, _)| name.as_str()).collect();
        let defined = |symbol: &str| defined_here.contains(symbol);
        let own = |symbol: &str| defined(symbol) && library_name(symbol, true).is_none();
        calls.defined.extend(object.functions.iter().filter(|(symbol, _)| own(symbol)).filter_map(|(symbol, _)| source_name(symbol)));
        // What the hand-in's own functions call: not what the library's call in turn
        // (std::stable_sort's own helpers, Rust's slice::sort_by's).
        for (caller, callee) in object.calls.iter().filter(|(caller, _)| own(caller)) {
            if caller == callee {
                calls.recursive.extend(source_name(caller));
            }
            calls.library.extend(library_name(callee, defined(callee)));
        }
    }
    for list in [&mut calls.library, &mut calls.defined, &mut calls.recursive] {
        list.sort();
        list.dedup();
    }
    Ok(calls)
}

/// The name of a function as its source writes it (`Stack::push`, Rust's
/// `alloc::slice::sort`); `None` for a symbol that does not demangle.
fn source_name(symbol: &str) -> Option<String> {
    if let Ok(rust) = rustc_demangle::try_demangle(symbol) {
        // (`{:#}` leaves the hash out.)
        return Some(plain(&format!("{rust:#}")));
    }
    match symbol.starts_with("_Z") {
        true => Some(plain(&demangled(symbol)?)),
        false => Some(symbol.to_owned()),
    }
}

/// `symbol` demangled as C++ without its parameters and return type.
fn demangled(symbol: &str) -> Option<String> {
    let options = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    cpp_demangle::Symbol::new(symbol).ok()?.demangle_with_options(&options).ok()
}

/// The library function a function symbol of a hand-in's object names, as a source writes
/// it: its qualified name without template arguments, parameters, ABI tags or libc++'s
/// versioned namespace (`std::__2::sort[abi:v160006]<int*>` is `std::sort`); `None` for a
/// function the object `defined` outside the standard libraries ([`LIBRARIES`]: the
/// hand-in's own), and for a symbol that does not demangle.
pub fn library_name(symbol: &str, defined: bool) -> Option<String> {
    let name = source_name(symbol)?;
    (!defined || LIBRARIES.iter().any(|library| name.starts_with(library))).then_some(name)
}

/// The paths of the standard libraries, whose code a hand-in's object holds when it
/// instantiates their templates (C++) or generics (Rust).
const LIBRARIES: [&str; 4] = ["std::", "core::", "alloc::", "__gnu_cxx::"];

/// A demangled name without what a source does not write: template arguments (`<...>`),
/// ABI tags (`[abi:...]`), a parameter list left by a member's qualifiers (`() const`),
/// and libc++'s inline namespaces (`std::__2::`).
fn plain(demangled: &str) -> String {
    let mut name = String::new();
    let mut depth = 0usize;
    let mut chars = demangled.chars();
    while let Some(c) = chars.next() {
        match c {
            '<' if !name.ends_with("operator") && !name.ends_with("operator<") => depth += 1,
            '>' if depth > 0 => depth -= 1,
            '[' if depth == 0 => {
                for skipped in chars.by_ref() {
                    if skipped == ']' {
                        break;
                    }
                }
            }
            '(' if depth == 0 => break,
            _ if depth == 0 => name.push(c),
            _ => {}
        }
    }
    let inline_namespace = |part: &str| part.len() > 2 && part.starts_with("__") && part[2..].chars().all(|c| c.is_ascii_digit());
    // (An empty part is where a Rust `<impl [T]>` was.)
    let parts: Vec<&str> = name.trim().split("::").filter(|part| !part.is_empty() && !inline_namespace(part)).collect();
    parts.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_is_named_as_a_source_writes_it() {
        let check = |demangled: &str, expected: &str| assert_eq!(plain(demangled), expected, "{demangled}");
        check("std::__2::sort<std::__2::__wrap_iter<int*> >", "std::sort");
        check("std::__2::basic_string<char, std::__2::char_traits<char>, std::__2::allocator<char> >::length() const", "std::basic_string::length");
        check("std::__2::vector<int, std::__2::allocator<int> >::push_back[abi:v160006](int const&)", "std::vector::push_back");
        check("std::__2::operator<<[abi:v160006]<std::__2::char_traits<char> >", "std::operator<<");
        check("qsort", "qsort");
        // Rust's, demangled by rustc-demangle: `<impl [T]>` is the type's, left out.
        check("alloc::slice::<impl [T]>::sort", "alloc::slice::sort");
    }

    #[test]
    fn a_rust_symbol_is_named_by_its_path() {
        assert_eq!(source_name("_ZN5alloc5slice29_$LT$impl$u20$$u5b$T$u5d$$GT$4sort17hc44719b19c9cdca4E").as_deref(), Some("alloc::slice::sort"));
        assert_eq!(library_name("_ZN6answer4fact17h2f62b7327c0dcedaE", true), None, "the hand-in's own fact");
    }
}
