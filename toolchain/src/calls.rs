//! The library functions a C or C++ hand-in's own code calls, for an assignment's rules
//! ("without `qsort`", "do not use `std::sort`", "no `strlen`"): no output shows them.
//! Each of the hand-in's own files is compiled alone to an object, unoptimised
//! ([`FLAGS`]: nothing inlined, folded or turned into a builtin), and the objects'
//! function symbols are read: the functions its code calls and does not define (`qsort`,
//! `strlen`: the C library's) and the standard library's templates it instantiates
//! (`std::sort`, `std::basic_string::length`), each by its name as a source writes it
//! ([`library_name`]). A function the hand-in defines itself, outside `std` (its own
//! `sort`), is its own and never counted as the library's: it is among those it
//! defines, and those that call themselves (for a rule that requires recursion).
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

/// What a hand-in's compiled code calls and defines, for an assignment's rules: see the
/// module's documentation. Each list sorted, each name once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calls {
    /// The library functions it calls or instantiates ([`library_name`]).
    pub library: Vec<String>,
    /// The functions it defines itself (outside `std`), by their qualified names
    /// (`search`, `Stack::push`).
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
        let object = Object::read(&bytes).map_err(|e| format!("the compiler's object cannot be read: {e}"))?;
        for (symbol, defined) in &object.functions {
            match library_name(symbol, *defined) {
                Some(name) => calls.library.push(name),
                None => calls.defined.extend(own_name(symbol)),
            }
        }
        calls.recursive.extend(object.recursive.iter().filter_map(|symbol| own_name(symbol)));
    }
    for list in [&mut calls.library, &mut calls.defined, &mut calls.recursive] {
        list.sort();
        list.dedup();
    }
    Ok(calls)
}

/// The name of a function a hand-in defines, as its source writes it (`Stack::push`);
/// `None` for a symbol that does not demangle.
fn own_name(symbol: &str) -> Option<String> {
    match symbol.starts_with("_Z") {
        true => Some(plain(&demangled(symbol)?)),
        false => Some(symbol.to_owned()),
    }
}

/// `symbol` demangled without its parameters and return type.
fn demangled(symbol: &str) -> Option<String> {
    let options = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    cpp_demangle::Symbol::new(symbol).ok()?.demangle_with_options(&options).ok()
}

/// The library function a function symbol of a hand-in's object names, as a source writes
/// it: its qualified name without template arguments, parameters, ABI tags or libc++'s
/// versioned namespace (`std::__2::sort[abi:v160006]<int*>` is `std::sort`); `None` for a
/// function the object `defined` outside `std` (the hand-in's own), and for a symbol that
/// does not demangle.
pub fn library_name(symbol: &str, defined: bool) -> Option<String> {
    let name = own_name(symbol)?;
    (!defined || name.starts_with("std::")).then_some(name)
}

/// A demangled name without what a source does not write: template arguments (`<...>`),
/// ABI tags (`[abi:...]`), a parameter list left by a member's qualifiers (`() const`),
/// and libc++'s inline namespaces (`std::__2::`).
fn plain(demangled: &str) -> String {
    let mut name = String::new();
    let mut depth = 0usize;
    let mut chars = demangled.chars().peekable();
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
    let parts: Vec<&str> =
        name.trim().split("::").filter(|part| !(part.starts_with("__") && part[2..].chars().all(|c| c.is_ascii_digit()) && part.len() > 2)).collect();
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
    }
}
