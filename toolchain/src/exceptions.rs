//! C++ exceptions, for a source that uses them: `try`, `throw` and `catch` as GCC and every
//! judge compile them, an exception thrown by the standard library (`vector::at`,
//! `map::at`) caught by its type, and one that nobody catches a crash that names it, as
//! natively: "libc++abi: terminating due to uncaught exception of type std::logic_error:
//! seven".
//!
//! A C++ source that names `try`, `throw` or `catch` ([`uses_exceptions`]) is compiled
//! with [`FLAG`] (WebAssembly's exception instructions) instead of `-fno-exceptions`, and
//! linked with two files written beside its sources:
//!
//! - [`RUNTIME`] (`toolchain/exceptions/cxxabi.o`): libc++abi and libunwind's WebAssembly
//!   unwinder, which throw and catch (`__cxa_throw`, the personality routine). Debian's
//!   wasm32 libc++abi is built without exceptions; this is LLVM 19's, from Debian's own
//!   source, built with them by `toolchain/exceptions/build.sh`, which gives the same bytes
//!   again (a test checks where the source and clang-19 are at hand). One object, not an
//!   archive: its definitions come first, before the libc++abi inside Debian's `libc++.a`.
//! - [`START`] (`toolchain/exceptions/start.cpp`): `main`'s caller, through
//!   `-Wl,--wrap=__original_main` ([`FLAGS`]), which catches what leaves `main` and lets
//!   `std::terminate` say what it was, then abort.
//!
//! Every other C++ program is built exactly as before (`-fno-exceptions`): exceptions add
//! cleanup code around every call that may throw, which costs fuel, and a program's fuel
//! depends on its own source alone. The sandbox turns the compiler's (legacy) exception
//! instructions into the standard ones wasmtime runs (`sandbox/src/exnref.rs`).
//!
//! Debian's `libc++.a` is compiled without exceptions, so its own code aborts where it
//! should throw. A build with exceptions therefore compiles `std::string`'s members with
//! the program (`substr`, `at`, ... throw `std::out_of_range`) and links GCC's `std::stoi`
//! and kin from [`START`] in place of libc++'s (`std::invalid_argument` with the
//! function's name as `what()`, as judges' GCC gives): see [`FLAGS`]. What still does not
//! throw: `new` when the memory limit refuses it (the run ends out of memory, no
//! `std::bad_alloc`), and the rest of `libc++.a`'s compiled code (`std::regex`'s errors,
//! the streams' `exceptions()`); the headers' code (`vector::at`, `std::optional::value`,
//! a student's own `throw`) throws.
//!
//! ```
//! use toolchain::exceptions::uses_exceptions;
//! assert!(uses_exceptions(b"try { v.at(9); } catch (const std::out_of_range&) {}"));
//! assert!(!uses_exceptions(b"int tries = 0; // retry, catcher, throwaway"));
//! ```

/// The compiler's flag for exceptions, in place of `-fno-exceptions`.
pub const FLAG: &str = "-fwasm-exceptions";

/// The flag that leaves [`FLAG`] out.
pub const NO_EXCEPTIONS: &str = "-fno-exceptions";

/// The flags of a build with exceptions besides [`FLAG`]: [`START`]'s function is the
/// caller of `main`, and its `std::stoi` and kin are linked in place of libc++'s, which
/// abort where they should throw; libc++'s `std::string` is compiled with the program
/// (not taken from `libc++.a`, built without exceptions), so that `at`, `substr` and the
/// rest throw `std::out_of_range` as GCC's do.
pub const FLAGS: &[&str] = &[
    "-Wl,--wrap=__original_main",
    "-D_LIBCPP_DISABLE_EXTERN_TEMPLATE",
    "-Wl,--wrap=_ZNSt3__24stoiERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi",
    "-Wl,--wrap=_ZNSt3__24stolERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi",
    "-Wl,--wrap=_ZNSt3__25stoulERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi",
    "-Wl,--wrap=_ZNSt3__25stollERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi",
    "-Wl,--wrap=_ZNSt3__26stoullERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi",
    "-Wl,--wrap=_ZNSt3__24stofERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm",
    "-Wl,--wrap=_ZNSt3__24stodERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm",
    "-Wl,--wrap=_ZNSt3__25stoldERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm",
];

/// libc++abi and libunwind's unwinder built with exceptions (`toolchain/exceptions/build.sh`).
pub const RUNTIME: &[u8] = include_bytes!("../exceptions/cxxabi.o");

/// `main`'s caller, which reports an exception nobody caught.
pub const START: &str = include_str!("../exceptions/start.cpp");

/// Where [`RUNTIME`] and [`START`] are written, under the build's [`crate::compat::DIR`].
const FILES: [&str; 2] = ["exceptions/cxxabi.o", "exceptions/start.cpp"];

/// Whether a C++ file names `try`, `throw` or `catch` as a word (in code, a comment or a
/// string alike: such a source is built with exceptions, and runs the same).
pub fn uses_exceptions(text: &[u8]) -> bool {
    let word = |at: usize, len: usize| {
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text.get(at + len).copied();
        let part = |byte: Option<u8>| byte.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        !part(before) && !part(after)
    };
    [&b"try"[..], b"throw", b"catch"].iter().any(|name| text.windows(name.len()).enumerate().any(|(at, window)| window == *name && word(at, name.len())))
}

/// The files a build with exceptions gets, as (path under [`crate::compat::DIR`], bytes).
pub fn files() -> [(&'static str, &'static [u8]); 2] {
    [(FILES[0], RUNTIME), (FILES[1], START.as_bytes())]
}

/// The compiler's inputs that link them, for a build whose directory is `dir` in the
/// sandbox.
pub fn inputs(dir: &str) -> Vec<String> {
    FILES.iter().map(|file| format!("{dir}/{}/{file}", crate::compat::DIR)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_uses_exceptions_when_it_names_try_throw_or_catch_as_words() {
        let check = |text: &str, expected: bool| assert_eq!(uses_exceptions(text.as_bytes()), expected, "{text}");
        check("try {", true);
        check("throw 1;", true);
        check("}catch(...)", true);
        check("if (x) throw std::runtime_error(\"no\");", true);
        check("int tries, retry, catcher, rethrown, try_2;", false);
        check("std::exception e; noexcept", false);
    }
}
