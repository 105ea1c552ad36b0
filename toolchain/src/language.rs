//! The languages students hand in, and the one fixed way each is compiled.

use serde::{Deserialize, Serialize};

/// A source language. Each has one compiler command line, the same for every student and
/// shown on the problem page ([`Language::flags`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// C17, clang with wasi-libc.
    C,
    /// C++17, clang++ with libc++ for wasm32; exceptions for a source that uses them
    /// ([`crate::exceptions`]).
    Cpp,
    /// Rust 2021, one file, rustc for `wasm32-wasip1`.
    Rust,
    /// Python 3.13, one file, run by bugrank's CPython for WebAssembly ([`crate::python`]):
    /// compiled to bytecode once, in the sandbox, not by a compiler of the host.
    Python,
}

/// The name of the module every compile writes, in the build directory.
pub(crate) const OUTPUT: &str = "main.wasm";

impl Language {
    pub const ALL: [Language; 4] = [Language::C, Language::Cpp, Language::Rust, Language::Python];

    /// The language of a source file by its extension (`None`: not a source file).
    pub fn of_file(name: &str) -> Option<Language> {
        let extension = name.rsplit_once('.')?.1;
        match extension {
            "c" => Some(Language::C),
            "cpp" | "cc" | "cxx" => Some(Language::Cpp),
            "rs" => Some(Language::Rust),
            "py" => Some(Language::Python),
            _ => None,
        }
    }

    /// Whether `name` is a file this language's compile reads besides the sources given on
    /// the command line (headers, included by the sources).
    pub fn is_header(self, name: &str) -> bool {
        match self {
            Language::C => name.ends_with(".h"),
            Language::Cpp => [".h", ".hpp", ".hh", ".hxx"].iter().any(|e| name.ends_with(e)),
            Language::Rust | Language::Python => false,
        }
    }

    /// The extension of its source files (the first, where there are several).
    pub fn extension(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rs",
            Language::Python => "py",
        }
    }

    /// The name people know it by.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Rust => "Rust",
            Language::Python => "Python",
        }
    }

    /// The compiler's flags, without the source files and the output: the same for every
    /// submission (a submission cannot choose its flags).
    ///
    /// Rust is optimised as `cargo build --release` does (`opt-level=3`), in one codegen
    /// unit as `fixtures/build.sh` builds the committed modules: an answer's fuel, and so
    /// whether a slow answer fits its time budget, depends on the optimisation, and with
    /// `-O` (`opt-level=2`) the cryptarithm cohort built from its sources got another suite
    /// than from its modules.
    ///
    /// Every program gets a stack of [`STACK_BYTES`] (8 MiB, as Linux gives a process),
    /// placed first in memory so that overflowing it traps instead of overwriting data,
    /// with its pointer exported (`__stack_pointer`) so that the sandbox can tell a stack
    /// overflow from any other bad access. C and C++ also get WASI's signal emulation
    /// (`signal` and `raise` work; no signal arrives from outside) and bugrank's
    /// compatibility file (`gets`, `alarm`, `<bits/stdc++.h>`: see [`crate::compat`]), and
    /// `clock()` and `times()` with wasi-libc's emulation of the process's clocks (without
    /// it a program that calls `clock()` did not compile; the sandbox's clocks count the
    /// run's instructions).
    /// Their local variables start as every byte 0xFF (`-ftrivial-auto-var-init=pattern`):
    /// a read before a value is given is the same wrong value on every machine, where
    /// `-O2` could otherwise fold it into a right answer and hide the bug. A function with
    /// a local array checks a canary before it returns (`-fstack-protector-strong`, as
    /// Ubuntu's GCC builds every program): writing past the array is a crash, "stack
    /// smashing detected", instead of a silent change of the locals beside it. A loop is
    /// not assumed to end (`-fno-finite-loops`): clang would otherwise make C++'s
    /// `while (true) {}` a trap, a crash where GCC's build, the judges', runs out of time
    /// (problemtools' `guess_tle_after_correct.cc`). Nor is a loop replaced by the value
    /// it ends with (`-mllvm -replexitval=never`): clang computes `for (x = 0;; ++x) if
    /// (a - b == x || b - a == x) break;` in one step, where GCC's build runs the loop, so
    /// a judges' too-slow linear search (problemtools' `different_linear_search.cc`) passed.
    ///
    /// Python has no compiler flags: its sources are compiled to bytecode by the
    /// interpreter itself, the same way for everyone ([`crate::python`]).
    pub fn flags(self) -> &'static [&'static str] {
        // C and C++ share every flag but their standard (and C++'s exceptions, off unless a
        // source uses them: see `crate::exceptions`).
        macro_rules! c_family_flags {
            ($($own:literal),*) => {
                &[
                    "--target=wasm32-wasi",
                    "--sysroot=/usr",
                    $($own,)*
                    "-O2",
                    "-Wall",
                    "-ftrivial-auto-var-init=pattern",
                    "-fstack-protector-strong",
                    "-fno-finite-loops",
                    "-mllvm",
                    "-replexitval=never",
                    "-D_WASI_EMULATED_SIGNAL",
                    "-D_WASI_EMULATED_PROCESS_CLOCKS",
                    "-mmutable-globals",
                    "-Wl,-z,stack-size=8388608",
                    "-Wl,--stack-first",
                    "-Wl,--export=__stack_pointer",
                    "-Wl,--strip-all",
                    "-lm",
                    "-lwasi-emulated-signal",
                    "-lwasi-emulated-process-clocks",
                ]
            };
        }
        match self {
            Language::C => c_family_flags!("-std=c17"),
            Language::Cpp => c_family_flags!("-std=c++17", "-fno-exceptions"),
            Language::Rust => &[
                "--edition=2021",
                "--target=wasm32-wasip1",
                "-Copt-level=3",
                "-Ccodegen-units=1",
                "-Cpanic=abort",
                "-Cstrip=symbols",
                "-Ctarget-feature=+mutable-globals",
                "-Clink-arg=-zstack-size=8388608",
                "-Clink-arg=--export=__stack_pointer",
                "--crate-type=bin",
                "--crate-name=answer",
            ],
            Language::Python => &[],
        }
    }
}

/// How C and C++ local variables start before they are given a value (`uninitialised_locals`
/// in `problem.toml`): clang's `-ftrivial-auto-var-init`, the one flag a problem may choose.
/// (Not `zero`: Debian's clang 14 takes it only with a flag that says it is for benchmarks.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Locals {
    /// Every byte 0xFF (the default): a read before a value is given is the same wrong value
    /// on every machine (an int reads as -1), so the bug shows, and the bug list names it.
    #[default]
    Pattern,
    /// Left as the compiler makes them: with `-O2` a read before a value may be folded into
    /// any value, the right answer included, and differ from one compiler to another.
    Uninitialized,
}

impl Locals {
    pub const ALL: [Locals; 2] = [Locals::Pattern, Locals::Uninitialized];

    /// Its compiler flag.
    pub fn flag(self) -> &'static str {
        match self {
            Locals::Pattern => "-ftrivial-auto-var-init=pattern",
            Locals::Uninitialized => "-ftrivial-auto-var-init=uninitialized",
        }
    }
}

/// What a problem chooses of how its hand-ins are built (`problem.toml`): everything else
/// is [`Language::flags`], the same for every problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BuildOptions {
    /// How C and C++ locals start. Default [`Locals::Pattern`].
    pub locals: Locals,
    /// The stack of a C, C++ or Rust program, in its memory (its local variables). Default
    /// [`STACK_BYTES`]; a judge's problem gets its memory limit (`limits.stack_mib`).
    /// Python's is the interpreter's own.
    pub stack_bytes: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { locals: Locals::Pattern, stack_bytes: STACK_BYTES }
    }
}

impl Language {
    /// [`Language::flags`] with `options`: C and C++ locals started as they say, the stack
    /// their size.
    pub fn flags_for(self, options: &BuildOptions) -> Vec<String> {
        let default_stack = STACK_BYTES.to_string();
        self.flags()
            .iter()
            .map(|&flag| match flag {
                _ if flag == Locals::Pattern.flag() => options.locals.flag().to_owned(),
                _ if flag.ends_with(&format!("stack-size={default_stack}")) => flag.replace(&default_stack, &options.stack_bytes.to_string()),
                _ => flag.to_owned(),
            })
            .collect()
    }
}

/// The stack every program built from sources gets by default: 8 MiB, as Linux gives a
/// process (a correct program with `char line[100000]` as a local must run as it does
/// natively). A problem may give more ([`BuildOptions::stack_bytes`]).
pub const STACK_BYTES: u32 = 8 << 20;

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(file: &str, expected: Option<Language>) {
        assert_eq!(Language::of_file(file), expected, "{file}");
    }

    #[test]
    fn a_sources_language_is_named_by_its_extension() {
        check("a01.c", Some(Language::C));
        check("a01.cpp", Some(Language::Cpp));
        check("a01.cc", Some(Language::Cpp));
        check("a01.cxx", Some(Language::Cpp));
        check("a01.rs", Some(Language::Rust));
        check("a01.py", Some(Language::Python));
        check("a01.wasm", None);
        check("a01.h", None);
        check("Makefile", None);
    }
}
