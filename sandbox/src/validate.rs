//! What a module may import and must export.

use wasmtime::{ExternType, Module};

use crate::SandboxError;

/// What a module is for: it decides which imports are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A submission, a reference or a checker: WASI preview 1 only.
    Answer,
    /// A test-case generator: WASI preview 1 plus [`GENERATOR_IMPORTS`].
    Generator,
}

/// The WASI preview 1 functions a program may import. Everything a Rust or C program needs
/// for stdin, stdout, stderr, arguments, environment, clocks and randomness is here; files,
/// directories and sockets are not (there are none in the sandbox, and a module that wants
/// them is better rejected with a clear message at upload than failing at run time).
pub const ALLOWED_WASI_IMPORTS: &[&str] = &[
    "args_get",
    "args_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "environ_get",
    "environ_sizes_get",
    "fd_advise",
    "fd_close",
    "fd_datasync",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_filestat_get",
    "fd_prestat_dir_name",
    "fd_prestat_get",
    "fd_read",
    "fd_seek",
    "fd_sync",
    "fd_tell",
    "fd_write",
    "poll_oneoff",
    "proc_exit",
    "random_get",
    "sched_yield",
];

/// The host functions a generator imports from module `bugrank`:
/// `choice(max: i64) -> i64` returns a value in `0..=max` (0 is the simplest), and
/// `size() -> i32` returns the current size hint.
pub const GENERATOR_IMPORTS: &[&str] = &["choice", "size"];

const WASI: &str = "wasi_snapshot_preview1";

pub(crate) fn check(name: &str, module: &Module, role: Role) -> Result<(), SandboxError> {
    for import in module.imports() {
        let allowed = match import.module() {
            WASI => ALLOWED_WASI_IMPORTS.contains(&import.name()),
            "bugrank" => role == Role::Generator && GENERATOR_IMPORTS.contains(&import.name()),
            _ => false,
        };
        if !allowed {
            let hint = match import.module() {
                WASI if import.name().starts_with("path_") || import.name() == "fd_readdir" => {
                    " (there is no file system in the sandbox)"
                }
                WASI if import.name().starts_with("sock_") => " (there is no network in the sandbox)",
                "bugrank" => " (only generators may ask the host for choices)",
                WASI => "",
                _ => " (only WASI preview 1 imports are available)",
            };
            return Err(SandboxError::ForbiddenImport {
                name: name.to_owned(),
                module: import.module().to_owned(),
                field: import.name().to_owned(),
                hint,
            });
        }
    }
    match module.get_export("_start") {
        Some(ExternType::Func(func)) if func.params().len() == 0 && func.results().len() == 0 => {
            Ok(())
        }
        Some(_) => Err(SandboxError::NotACommand {
            name: name.to_owned(),
            reason: "`_start` is not a function without parameters and results".to_owned(),
        }),
        None => Err(SandboxError::NotACommand {
            name: name.to_owned(),
            reason: "it exports no `_start` function (a library or a reactor, not a program)"
                .to_owned(),
        }),
    }
}
