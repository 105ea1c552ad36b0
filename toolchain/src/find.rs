//! Which compilers this machine has: found, never assumed. [`Toolchains::find`] gives each language's compiler and
//! version, or what installs it; the host directories it needs, shown in the jail at fixed paths ([`crate::Mount`]);
//! and the environment variables it is given ([`Toolchain::env`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::jail::{Mount, which};
use crate::language::Language;

/// A compiler found for one language.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub language: Language,
    /// The compiler, on this machine.
    pub program: PathBuf,
    /// The compiler's version line (and the libraries' package versions where known): part
    /// of every cache key, and recorded in `analysis.json`.
    pub version: String,
    /// Host directories the compiler needs besides `/usr`, and where the sandbox shows
    /// them (Rust's sysroot, as [`RUST_SYSROOT`]).
    pub mounts: Vec<Mount>,
    /// Environment variables the compiler needs besides [`crate::JAIL_ENV`], named here:
    /// the sandbox inherits none.
    pub env: Vec<(&'static str, String)>,
}

/// Where the sandbox shows Rust's sysroot (the host's is in a home directory, under
/// rustup).
pub const RUST_SYSROOT: &str = "/toolchain/rust";

impl Toolchain {
    /// The compiler's path inside the sandbox.
    pub fn program_in_jail(&self) -> PathBuf {
        self.mounts
            .iter()
            .find_map(|mount| Some(Path::new(mount.jail).join(self.program.strip_prefix(&mount.host).ok()?)))
            .unwrap_or_else(|| self.program.clone())
    }
}

/// Why a language cannot be compiled here, and what installs it.
#[derive(Clone, Debug)]
pub struct Missing {
    pub language: Language,
    pub reason: String,
    pub install: &'static str,
}

/// Each language's compiler, or why there is none.
#[derive(Clone, Debug)]
pub struct Toolchains {
    pub languages: BTreeMap<Language, Result<Toolchain, Missing>>,
}

/// Where Debian's wasm32 libraries are (wasi-libc, libc++).
const WASI_LIB: &str = "/usr/lib/wasm32-wasi";

impl Toolchains {
    /// Looks for every language's compiler and libraries.
    pub fn find() -> Toolchains {
        Toolchains { languages: Language::ALL.into_iter().map(|language| (language, find(language))).collect() }
    }

    /// The toolchain of `language`, or why there is none.
    pub fn get(&self, language: Language) -> Result<&Toolchain, &Missing> {
        self.languages[&language].as_ref()
    }
}

fn find(language: Language) -> Result<Toolchain, Missing> {
    let missing = |reason: String, install: &'static str| Missing { language, reason, install };
    match language {
        Language::C | Language::Cpp => {
            let (name, install) = match language {
                Language::C => ("clang", "apt-get install clang lld wasi-libc libclang-rt-dev-wasm32"),
                _ => ("clang++", "apt-get install clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32"),
            };
            let program = which(name).ok_or_else(|| missing(format!("`{name}` is not installed"), install))?;
            let version = first_line(&program, &["--version"]).ok_or_else(|| missing(format!("`{name} --version` fails"), install))?;
            let needs: &[(&str, &str)] = match language {
                Language::C => &[("libc.a", "wasi-libc")],
                _ => &[("libc.a", "wasi-libc"), ("libc++.a", "libc++ for wasm32"), ("libc++abi.a", "libc++abi for wasm32")],
            };
            for (file, what) in needs {
                if !Path::new(WASI_LIB).join(file).is_file() {
                    return Err(missing(format!("{what} is not installed ({WASI_LIB}/{file})"), install));
                }
            }
            let builtins = first_line(&program, &["--target=wasm32-wasi", "-print-libgcc-file-name"]);
            if !builtins.as_deref().is_some_and(|path| Path::new(path).is_file()) {
                return Err(missing("the compiler-rt builtins for wasm32 are not installed".into(), install));
            }
            if which("wasm-ld").is_none() {
                return Err(missing("the WebAssembly linker `wasm-ld` (lld) is not installed".into(), install));
            }
            let packages: &[&str] = match language {
                Language::C => &["wasi-libc"],
                _ => &["wasi-libc", "libc++-dev-wasm32"],
            };
            Ok(Toolchain { language, program, version: with_packages(version, packages), mounts: Vec::new(), env: Vec::new() })
        }
        // Inside bugrank: nothing to find, nothing the sandbox of compilers runs.
        Language::Python => {
            Ok(Toolchain { language, program: PathBuf::from("python.wasm"), version: crate::python::VERSION.to_owned(), mounts: Vec::new(), env: Vec::new() })
        }
        Language::Rust => {
            let install = "install rustup, then: rustup target add wasm32-wasip1";
            let rustc = which("rustc").ok_or_else(|| missing("`rustc` is not installed".into(), install))?;
            let sysroot = first_line(&rustc, &["--print", "sysroot"]).ok_or_else(|| missing("`rustc --print sysroot` fails".into(), install))?;
            let sysroot = PathBuf::from(sysroot);
            let program = sysroot.join("bin/rustc");
            let version = first_line(&program, &["-V"]).ok_or_else(|| missing(format!("`{} -V` fails", program.display()), install))?;
            let std = sysroot.join("lib/rustlib/wasm32-wasip1/lib");
            let has_std = std::fs::read_dir(&std).is_ok_and(|files| files.flatten().any(|f| f.file_name().to_string_lossy().starts_with("libstd-")));
            if !has_std {
                return Err(missing("the wasm32-wasip1 target is not installed".into(), "rustup target add wasm32-wasip1"));
            }
            // Without `/proc` the dynamic loader cannot resolve rustc's `$ORIGIN/../lib`
            // (it reads `/proc/self/exe`): the library path is named instead. rustc finds
            // its sysroot from where that library was loaded.
            let env = vec![("LD_LIBRARY_PATH", format!("{RUST_SYSROOT}/lib"))];
            Ok(Toolchain { language, program, version, mounts: vec![Mount { host: sysroot, jail: RUST_SYSROOT }], env })
        }
    }
}

/// The first line `program args` prints, if it succeeds.
fn first_line(program: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or("").trim().to_owned())
}

/// `version` with the Debian package versions of `packages`, where dpkg knows them.
fn with_packages(version: String, packages: &[&str]) -> String {
    packages.iter().fold(version, |version, package| match Command::new("dpkg-query").args(["-W", "-f=${Version}", package]).output() {
        Ok(output) if output.status.success() => format!("{version}; {package} {}", String::from_utf8_lossy(&output.stdout).trim()),
        _ => version,
    })
}
