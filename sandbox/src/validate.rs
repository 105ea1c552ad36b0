//! What a module may import and must export, and the shape it may have: before a module is compiled, one
//! validating pass (`check_before_compiling`, wasmparser; a `.wat` module is made binary first) refuses forbidden
//! imports and modules over the shape limits here, which bound one compile.

use wasmtime::{ExternType, Module};

use crate::SandboxError;

/// What a module is for: it decides which imports are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A submission, a reference or a checker: WASI preview 1 only.
    Answer,
    /// A test-case generator: WASI preview 1 plus [`GENERATOR_IMPORTS`].
    Generator,
    /// An output validator of the judges' protocol: WASI preview 1, whose
    /// [`FILE_IMPORTS`] open the files it is given in memory ([`crate::Files`],
    /// [`crate::Sandbox::run_with_files`]).
    Validator,
}

/// The WASI preview 1 functions a program may import. Everything a Rust or C program needs
/// for stdin, stdout, stderr, arguments, environment, clocks and randomness is here; the
/// calls of files and folders are [`NO_FILE_IMPORTS`]; sockets are not (there is no
/// network, and a module that wants one is better rejected with a clear message at upload
/// than failing at run time).
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

/// The WASI preview 1 functions of files and folders any program may import besides
/// [`ALLOWED_WASI_IMPORTS`]: a program finds no files with them (a run has no file system:
/// no directory is open, so every path names nothing and every other descriptor is not
/// open), and fails as it would on a judge's machine without the file, where
/// refusing the module would fail a correct program whose file code never runs
/// (`if (argc > 1) freopen(argv[1], "r", stdin);`). A validator's [`FILE_IMPORTS`] see its
/// own files. The toolchain notes such a program's build (`toolchain::OPENS_FILES`).
pub const NO_FILE_IMPORTS: &[&str] = &[
    "fd_allocate",
    "fd_fdstat_set_rights",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_pread",
    "fd_pwrite",
    "fd_readdir",
    "fd_renumber",
    "path_create_directory",
    "path_filestat_get",
    "path_filestat_set_times",
    "path_link",
    "path_open",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
];

/// The WASI preview 1 functions of files that open a validator's own (see `files.rs`):
/// opening a file by its path and reading a path's status; for any other program they are
/// [`NO_FILE_IMPORTS`] and find nothing.
pub const FILE_IMPORTS: &[&str] = &["path_open", "path_filestat_get"];

/// The host functions a generator imports from module `bugrank`:
/// `choice(max: i64) -> i64` returns a value in `0..=max` (0 is the simplest), and
/// `size() -> i32` returns the current size hint.
pub const GENERATOR_IMPORTS: &[&str] = &["choice", "size"];

/// The host function a problem's harness (`bugrank_harness.h`, `bugrank_harness.rs`)
/// writes its results with, from module `bugrank`: `output(data: i32, len: i32) -> i32`
/// (0, or 21 `EFAULT` for bytes outside memory). A program that imports it is judged on
/// what it writes there; its stdout is then its code's own prints, kept apart and not
/// judged (see [`crate::Run::printed`]). Any program may import it: a hand-in built
/// with a harness is one program, and a student who wrote there on purpose would gain
/// nothing the harness's own lines do not show.
pub const HARNESS_IMPORTS: &[&str] = &["output"];

const WASI: &str = "wasi_snapshot_preview1";

/// The most functions a module may define: a large Rust program has some thousands; a
/// million is a compile bomb (70 s and 5.5 GB to compile).
pub const MAX_FUNCTIONS: u32 = 100_000;

/// The most bytes of code one function may have, and the most locals it may declare:
/// generous for generated code, far below what makes the compiler take seconds per function.
pub const MAX_FUNCTION_BODY_BYTES: usize = 1 << 20;
pub const MAX_LOCALS: u64 = 50_000;

/// The most locals all functions of a module may declare together. The compiler gives
/// each local a variable and zeroes it, so locals cost compile time even in a function
/// without code, and a count of them costs a byte to declare: 100,000 functions of 50,000
/// locals each (a 1.3 MB module) took 756 s and 679 MB to compile. Real modules declare
/// far fewer (the fixture programs some 700, a large Rust or C program some hundred
/// thousand); the largest module this admits compiles in seconds.
pub const MAX_MODULE_LOCALS: u64 = 10_000_000;

/// The deepest a function's operand stack and its nesting of blocks may get. Code from
/// LLVM (Rust, C, C++) keeps a handful of values on the stack and nests a block per case of
/// its largest `switch`; a stack hundreds of thousands deep is a register-allocation bomb
/// (4 functions 2.5 million deep took 41 s and 4.8 GB to compile).
pub const MAX_OPERAND_DEPTH: u32 = 10_000;
pub const MAX_BLOCK_DEPTH: u32 = 10_000;

/// Whether `role` may import `field` from `module`; the error names the import and why.
fn allowed(name: &str, module: &str, field: &str, role: Role) -> Result<(), SandboxError> {
    let allowed = match module {
        WASI => ALLOWED_WASI_IMPORTS.contains(&field) || NO_FILE_IMPORTS.contains(&field),
        "bugrank" => HARNESS_IMPORTS.contains(&field) || (role == Role::Generator && GENERATOR_IMPORTS.contains(&field)),
        _ => false,
    };
    if allowed {
        return Ok(());
    }
    let hint = match module {
        WASI if field.starts_with("sock_") => " (there is no network in the sandbox)",
        "bugrank" => " (only generators may ask the host for choices; other programs may only write a harness's output)",
        WASI => "",
        _ => " (only WASI preview 1 imports are available)",
    };
    Err(SandboxError::ForbiddenImport { name: name.to_owned(), module: module.to_owned(), field: field.to_owned(), hint })
}

/// Before compiling a binary module: its imports, and the structural ceilings above, read
/// and validated in one pass without compiling anything. Bytes that do not parse or
/// validate are left for the engine's validator, which names the problem: the one here accepts
/// every proposal wasmparser knows, so whatever the compiler would accept is checked.
/// Returns the module's types when it validated, for [`check_uncompiled`].
pub(crate) fn check_before_compiling(name: &str, bytes: &[u8], role: Role) -> Result<Option<wasmparser::types::Types>, SandboxError> {
    let too_large = |reason: String| SandboxError::Invalid { name: name.to_owned(), reason };
    let mut validator = wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all());
    let mut allocations = wasmparser::FuncValidatorAllocations::default();
    let mut types = None;
    let mut module_locals = 0u64;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else { return Ok(None) };
        match &payload {
            wasmparser::Payload::ImportSection(imports) => {
                for import in imports.clone().into_imports() {
                    let Ok(import) = import else { return Ok(None) };
                    allowed(name, import.module, import.name, role)?;
                }
            }
            wasmparser::Payload::FunctionSection(functions) if functions.count() > MAX_FUNCTIONS => {
                return Err(too_large(format!("it defines {} functions, more than {MAX_FUNCTIONS}", functions.count())));
            }
            wasmparser::Payload::CodeSectionEntry(body) => {
                if body.range().len() > MAX_FUNCTION_BODY_BYTES {
                    return Err(too_large(format!("a function has {} bytes of code, more than {MAX_FUNCTION_BODY_BYTES}", body.range().len())));
                }
                let Ok(locals) = body.get_locals_reader() else { return Ok(None) };
                let mut declared = 0u64;
                for local in locals {
                    let Ok((count, _)) = local else { return Ok(None) };
                    declared += u64::from(count);
                    if declared > MAX_LOCALS {
                        return Err(too_large(format!("a function declares more than {MAX_LOCALS} locals")));
                    }
                }
                module_locals += declared;
                if module_locals > MAX_MODULE_LOCALS {
                    return Err(too_large(format!("its functions declare more than {MAX_MODULE_LOCALS} locals in all")));
                }
            }
            _ => {}
        }
        match validator.payload(&payload) {
            Err(_) => return Ok(None),
            Ok(wasmparser::ValidPayload::Func(function, body)) => {
                let mut function = function.into_validator(std::mem::take(&mut allocations));
                let mut reader = body.get_binary_reader();
                if function.read_locals(&mut reader).is_err() {
                    return Ok(None);
                }
                while !reader.eof() {
                    let offset = reader.original_position();
                    if !matches!(reader.visit_operator(&mut function.visitor(offset)), Ok(Ok(()))) {
                        return Ok(None);
                    }
                    if function.operand_stack_height() > MAX_OPERAND_DEPTH {
                        return Err(too_large(format!("a function's operand stack gets deeper than {MAX_OPERAND_DEPTH} values")));
                    }
                    if function.control_stack_height() > MAX_BLOCK_DEPTH {
                        return Err(too_large(format!("a function nests blocks deeper than {MAX_BLOCK_DEPTH}")));
                    }
                }
                allocations = function.into_allocations();
            }
            Ok(wasmparser::ValidPayload::End(end)) => types = Some(end),
            Ok(_) => {}
        }
    }
    Ok(types)
}

pub(crate) fn check(name: &str, module: &Module, role: Role) -> Result<(), SandboxError> {
    for import in module.imports() {
        allowed(name, import.module(), import.name(), role)?;
    }
    command(
        name,
        match module.get_export("_start") {
            Some(ExternType::Func(func)) => Start::Function { params: func.params().len(), results: func.results().len() },
            Some(_) => Start::Other,
            None => Start::Missing,
        },
    )
}

/// What a module exports as `_start`.
pub(crate) enum Start {
    Missing,
    Other,
    Function { params: usize, results: usize },
}

/// A program is a command: it exports `_start`, a function without parameters and results.
fn command(name: &str, start: Start) -> Result<(), SandboxError> {
    let reason = match start {
        Start::Function { params: 0, results: 0 } => return Ok(()),
        Start::Function { .. } | Start::Other => "`_start` is not a function without parameters and results",
        Start::Missing => "it exports no `_start` function (a library or a reactor, not a program)",
    };
    Err(SandboxError::NotACommand { name: name.to_owned(), reason: reason.to_owned() })
}

/// [`check`] on a binary module that is not compiled; the module must be valid. `types`
/// are what [`check_before_compiling`] found (it validates them again only when that
/// validation did not finish).
pub(crate) fn check_uncompiled(name: &str, binary: &[u8], types: Option<wasmparser::types::Types>) -> Result<(), SandboxError> {
    let invalid = |e: wasmparser::BinaryReaderError| SandboxError::Invalid { name: name.to_owned(), reason: e.to_string() };
    let types = match types {
        Some(types) => types,
        None => wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all()).validate_all(binary).map_err(invalid)?,
    };
    let types = types.as_ref();
    let start = types.core_exports().into_iter().flatten().find(|(export, _)| *export == "_start");
    command(
        name,
        match start {
            Some((_, wasmparser::types::EntityType::Func(id) | wasmparser::types::EntityType::FuncExact(id))) => {
                let function = types[id].unwrap_func();
                Start::Function { params: function.params().len(), results: function.results().len() }
            }
            Some(_) => Start::Other,
            None => Start::Missing,
        },
    )
}
