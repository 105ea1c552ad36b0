//! bugrank's compatibility file for C and C++: what C on Linux has and WASI's C library
//! leaves out, built into every C and C++ program (hand-ins, references, generators) so
//! that code as students and judges write it builds and runs as natively:
//!
//! - `gets` (gone from C11 and from WASI): reads a line as it always did, and every use
//!   gets the compiler's warning, kept beside the results ("gets has no bound…");
//! - `alarm`: sets nothing and returns 0 (the sandbox's time limit ends a run; no signal
//!   ever arrives), and `signal`/`raise` are WASI's emulation;
//! - `<bits/stdc++.h>`: every standard header that libc++ builds on WASI (not `<thread>`,
//!   `<future>`, `<shared_mutex>`, `<filesystem>`, `<memory_resource>`, `<csetjmp>`);
//! - `<thread>`, which libc++ on WASI lacks: `std::this_thread` (`sleep_for`,
//!   `sleep_until`, `yield`) for programs that sleep without threads (a sleep passes on
//!   the run's wall clock, not its fuel: see the sandbox's clocks); `std::thread` itself
//!   does not build;
//! - `<syslog.h>`, which WASI lacks: its calls do nothing, as a program in a judge's
//!   sandbox has no system log either;
//! - `std::ios_base::sync_with_stdio(false)`: `std::cin` reads through a buffer of its own
//!   from then on, as with GCC's libstdc++ (libc++'s does nothing, and its `std::cin`
//!   reading numbers is twice as slow without it).
//!
//! The files are written into a build's directory under [`DIR`] (a hidden folder, so no
//! hand-in's file can take its place: file names may not start with a dot), the header
//! included first (`-include`) and the source compiled with the program; the files are hashed
//! into the build's cache key.
//!
//! ```
//! assert!(toolchain::compat::HEADER.contains("#define gets(s) bugrank_gets(s)"));
//! assert!(toolchain::compat::BITS_STDCXX.contains("#include <vector>"));
//! ```

use crate::Language;

/// The folder of a build's directory the files are written to.
pub const DIR: &str = ".bugrank";

/// `compat.h`, included before every C and C++ source.
pub const HEADER: &str = include_str!("../compat/compat.h");

/// `compat.c`: the definitions, in code that is both C and C++.
pub const SOURCE: &str = include_str!("../compat/compat.c");

/// `<bits/stdc++.h>`.
pub const BITS_STDCXX: &str = include_str!("../compat/include/bits/stdc++.h");

/// `<thread>`: `std::this_thread` alone.
pub const THREAD: &str = include_str!("../compat/include/thread");

/// `<syslog.h>`, whose calls do nothing (a sandboxed program has no system log).
pub const SYSLOG: &str = include_str!("../compat/include/syslog.h");

/// The link flag that sends a C++ program's calls of `std::ios_base::sync_with_stdio`
/// (libc++'s, which does nothing) to `compat.c`'s, which gives `std::cin` a buffer of its
/// own once unsynchronised, as GCC's libstdc++ does.
pub const SYNC_WITH_STDIO: &str = "-Wl,--wrap=_ZNSt3__28ios_base15sync_with_stdioEb";

/// The files a build of `language` gets, as (path under [`DIR`], text): none for Rust.
pub fn files(language: Language) -> Vec<(&'static str, &'static str)> {
    match language {
        Language::C => vec![("compat.h", HEADER), ("compat.c", SOURCE), ("include/syslog.h", SYSLOG)],
        Language::Cpp => {
            vec![("compat.h", HEADER), ("compat.cpp", SOURCE), ("include/bits/stdc++.h", BITS_STDCXX), ("include/thread", THREAD), ("include/syslog.h", SYSLOG)]
        }
        Language::Rust | Language::Python => Vec::new(),
    }
}

/// The compiler's arguments that use the files, for a build whose directory is `dir` in
/// the sandbox: the header first, the include folder, the source with the program's.
pub fn arguments(language: Language, dir: &str) -> Vec<String> {
    match language {
        Language::C => {
            vec!["-include".into(), format!("{dir}/{DIR}/compat.h"), "-isystem".into(), format!("{dir}/{DIR}/include"), format!("{dir}/{DIR}/compat.c")]
        }
        Language::Cpp => vec![
            "-include".into(),
            format!("{dir}/{DIR}/compat.h"),
            "-isystem".into(),
            format!("{dir}/{DIR}/include"),
            format!("{dir}/{DIR}/compat.cpp"),
            SYNC_WITH_STDIO.into(),
        ],
        Language::Rust | Language::Python => Vec::new(),
    }
}
