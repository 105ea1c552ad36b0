//! Compiling sources in the sandbox: what a student gets, and what a hostile source cannot do
//! (read host files or the environment, read `/dev/zero` without end, expand a macro bomb).
//!
//! Each test needs the toolchain of its language and bubblewrap; without them it says so
//! and passes, except under `CI` (where `.ci/run` installs them), where it fails.

use std::time::Duration;

use toolchain::{Builder, Built, Failure, Language, Limits, Source};

/// A builder that can compile `language` here, without a cache.
fn builder(language: Language, limits: Limits) -> Option<Builder> {
    ready(Builder::new(None).with_limits(limits), language)
}

/// `builder` when it can compile `language` here.
fn ready(builder: Builder, language: Language) -> Option<Builder> {
    let missing = match builder.ready(language) {
        Ok(_) => return Some(builder),
        Err(missing) => missing.to_string(),
    };
    assert!(std::env::var_os("CI").is_none(), "under CI every toolchain must be installed: {missing}");
    eprintln!("skipped: {missing}");
    None
}

fn source(language: Language, name: &str, text: &str) -> Source {
    Source { language, files: vec![(name.to_owned(), text.as_bytes().to_vec())] }
}

fn build(language: Language, name: &str, text: &str) -> Option<Built> {
    Some(builder(language, Limits::default())?.build(&source(language, name, text)).unwrap())
}

fn module(built: Built) -> (Vec<u8>, String) {
    match built {
        Built::Module { wasm, warnings } => (wasm, warnings),
        Built::Failed { failure, message } => panic!("{failure:?}: {message}"),
    }
}

fn failure(built: Built) -> (Failure, String) {
    match built {
        Built::Failed { failure, message } => (failure, message),
        Built::Module { .. } => panic!("compiled"),
    }
}

#[test]
fn a_c_program_compiles_to_a_command_module_and_keeps_its_warnings() {
    let Some(built) = build(Language::C, "a01.c", "#include <stdio.h>\nint main(void) { int unused; puts(\"hi\"); return 0; }\n") else { return };
    let (wasm, warnings) = module(built);
    assert!(wasm.starts_with(b"\0asm"));
    assert!(warnings.contains("a01.c:2:") && warnings.contains("unused"), "{warnings}");
}

#[test]
fn a_rust_program_compiles_to_a_module() {
    let Some(built) = build(Language::Rust, "a02.rs", "fn main() { println!(\"hi\"); }\n") else { return };
    let (wasm, warnings) = module(built);
    assert!(wasm.starts_with(b"\0asm"));
    assert_eq!(warnings, "");
}

#[test]
fn a_cpp_program_with_the_standard_library_compiles_to_a_module() {
    let text = "#include <iostream>\n#include <vector>\nint main() { std::vector<int> v{1, 2}; std::cout << v.size() << std::endl; }\n";
    let Some(built) = build(Language::Cpp, "a06.cpp", text) else { return };
    assert!(module(built).0.starts_with(b"\0asm"));
}

#[test]
fn a_compile_error_is_a_result_naming_the_students_file_and_line() {
    let Some(built) = build(Language::C, "a03.c", "int main(void) {\n  return nope;\n}\n") else { return };
    let (kind, message) = failure(built);
    assert_eq!(kind, Failure::CompileError);
    assert!(message.starts_with("a03.c:2:"), "{message}");
    assert!(!message.contains("/src") && !message.contains("/tmp"), "no sandbox path: {message}");
}

#[test]
fn a_rust_compile_error_shows_no_path_of_the_toolchains_installation() {
    let Some(built) = build(Language::Rust, "a04.rs", "fn main() { let x: u32 = \"text\"; }\n") else { return };
    let (kind, message) = failure(built);
    assert_eq!(kind, Failure::CompileError);
    assert!(message.contains("a04.rs:1:") && message.contains("mismatched types"), "{message}");
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(home.is_empty() || !message.contains(&home), "{message}");
}

#[test]
fn a_host_file_cannot_be_included_and_its_content_appears_nowhere() {
    let secret_dir = tempfile::tempdir().unwrap();
    let secret = secret_dir.path().join("secret.h");
    std::fs::write(&secret, "int secret_value_7f3a = 42;\n").unwrap();
    for target in [secret.display().to_string(), "/etc/passwd".to_owned(), "/root/.bashrc".to_owned()] {
        let text = format!("#include \"{target}\"\nint main(void) {{ return 0; }}\n");
        let Some(built) = build(Language::C, "x.c", &text) else { return };
        let (kind, message) = failure(built);
        assert_eq!(kind, Failure::CompileError, "{target}");
        assert!(message.contains("file not found"), "{message}");
        assert!(!message.contains("secret_value_7f3a") && !message.contains("root:x:0"), "{message}");
    }
}

/// What the isolation test sets in its child's environment, and the start of the name
/// of the child's temporary directory (where the builder makes its build directories).
const SECRET: (&str, &str) = ("BUGRANK_TEST_SECRET", "s3cr3t-e9b1");
const HOST_TMP: &str = "host-tmp-5d2c";

/// Sources reading the host's processes (the jail's first process is bubblewrap's, holding
/// its environment and command line), the compiler's own environment and mount table, in
/// every way a compile reads a file, and Rust's compile-time environment.
const SNOOPS: [(Language, &str, &str); 12] = [
    (Language::C, "env1.c", "#include \"/proc/1/environ\"\nint main(void) { return 0; }\n"),
    (Language::C, "env.c", "#include \"/proc/self/environ\"\nint main(void) { return 0; }\n"),
    (Language::C, "cmdline.c", "#include \"/proc/1/cmdline\"\nint main(void) { return 0; }\n"),
    (Language::C, "mounts.c", "#include \"/proc/self/mountinfo\"\nint main(void) { return 0; }\n"),
    (Language::Rust, "env1.rs", "static E: &[u8] = include_bytes!(\"/proc/1/environ\");\nfn main() { print!(\"{E:?}\"); }\n"),
    (Language::Rust, "env.rs", "const E: &str = include_str!(\"/proc/self/environ\");\nfn main() { print!(\"{E}\"); }\n"),
    (Language::Rust, "cmdline.rs", "#[path = \"/proc/1/cmdline\"]\nmod x;\nfn main() {}\n"),
    (Language::Rust, "cmdline1.rs", "static C: &[u8] = include_bytes!(\"/proc/1/cmdline\");\nfn main() { print!(\"{C:?}\"); }\n"),
    (Language::Rust, "mounts.rs", "const M: &str = include_str!(\"/proc/self/mountinfo\");\nfn main() { print!(\"{M}\"); }\n"),
    (Language::Rust, "mounts1.rs", "#[path = \"/proc/self/mountinfo\"]\nmod x;\nfn main() {}\n"),
    (Language::Rust, "optenv.rs", "fn main() { print!(\"{:?}\", option_env!(\"BUGRANK_TEST_SECRET\")); }\n"),
    (Language::Rust, "env2.rs", "fn main() { print!(\"{}\", env!(\"BUGRANK_TEST_SECRET\")); }\n"),
];

#[test]
fn nothing_of_the_hosts_environment_processes_or_paths_reaches_a_module_or_a_message() {
    // The builder runs in a child of this test with a secret in its environment (the
    // service's database password, say) and its build directories in a temporary
    // directory of a known name: no thread of this one sets its environment.
    if std::env::var_os(SECRET.0).is_none() {
        let tmp = tempfile::Builder::new().prefix(HOST_TMP).tempdir().unwrap();
        let test = "nothing_of_the_hosts_environment_processes_or_paths_reaches_a_module_or_a_message";
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture"])
            .env(SECRET.0, SECRET.1)
            .env("TMPDIR", tmp.path())
            .output()
            .unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&child.stdout), String::from_utf8_lossy(&child.stderr));
        assert!(child.status.success() && said.contains("1 passed"), "{said}");
        return;
    }
    let tmp = std::env::temp_dir().display().to_string();
    assert!(tmp.contains(HOST_TMP), "{tmp}");
    for (language, name, text) in SNOOPS {
        let Some(builder) = builder(language, Limits::default()) else { continue };
        // The host's paths: the build directory's (under `tmp`), the toolchain's.
        let mut host: Vec<String> = vec![SECRET.1.to_owned(), tmp.clone(), "unshare".to_owned(), "bwrap".to_owned(), "newroot".to_owned()];
        let toolchain = builder.toolchains().get(language).unwrap();
        host.extend(toolchain.mounts.iter().map(|mount| mount.host.display().to_string()));
        // As a student's program, and as a problem's generator (built with the guest
        // library, a Rust one in two runs).
        let source = source(language, name, text);
        for built in [builder.build(&source), builder.build_generator(&source)] {
            let shown = match built.unwrap() {
                Built::Module { wasm, warnings } => [wasm, warnings.into_bytes()].concat(),
                Built::Failed { message, .. } => message.into_bytes(),
            };
            let shown = String::from_utf8_lossy(&shown);
            for secret in &host {
                assert!(!shown.contains(secret.as_str()), "{name} shows {secret}: {shown}");
            }
        }
    }
}

/// A Rust program including `/dev/zero`: rustc reads it to its end, which never comes.
const RUST_ZERO: &str = "static ZERO: &[u8] = include_bytes!(\"/dev/zero\");\nfn main() { print!(\"{}\", ZERO.len()); }\n";

/// A C program whose `A40` expands to 2^40 tokens.
fn macro_bomb() -> String {
    let mut bomb = String::from("#define A0 +1\n");
    for i in 1..=40 {
        bomb.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    bomb.push_str("int y = 0 A40;\nint main(void) { return 0; }\n");
    bomb
}

#[test]
fn reading_dev_zero_is_stopped_by_the_memory_limit() {
    let limits = Limits { memory_bytes: 512 << 20, time: Duration::from_secs(30), ..Limits::default() };
    // clang reads a device as an empty file: bounded, whatever it makes of it.
    if let Some(builder) = builder(Language::C, limits.clone()) {
        let built = builder.build(&source(Language::C, "zero.c", "#include \"/dev/zero\"\nint main(void) { return 0; }\n")).unwrap();
        assert!(!matches!(built, Built::Failed { failure: Failure::TimeLimit, .. }), "not read for ever: {built:?}");
    }
    let Some(builder) = builder(Language::Rust, limits) else { return };
    let (kind, message) = failure(builder.build(&source(Language::Rust, "zero.rs", RUST_ZERO)).unwrap());
    assert_eq!(kind, Failure::MemoryLimit, "{message}");
    assert!(message.starts_with("the compiler "), "{message}");
}

#[test]
fn a_macro_bomb_is_stopped_by_a_limit_in_seconds() {
    let limits = Limits { time: Duration::from_secs(3), ..Limits::default() };
    let Some(builder) = builder(Language::C, limits) else { return };
    let started = std::time::Instant::now();
    let (kind, message) = failure(builder.build(&source(Language::C, "bomb.c", &macro_bomb())).unwrap());
    // Stopped by this limit, not the default one (the margin is for a busy machine).
    let default = Duration::from_secs(toolchain::COMPILE_SECONDS);
    assert!(started.elapsed() < default / 2, "{:?}", started.elapsed());
    assert!(matches!(kind, Failure::TimeLimit | Failure::MemoryLimit), "{kind:?}: {message}");
    assert!(message.starts_with("the compiler "), "{message}");
}

#[test]
fn a_compile_asked_to_stop_is_killed_at_once_and_not_kept() {
    let cache = tempfile::tempdir().unwrap();
    let Some(builder) = ready(Builder::new(Some(cache.path().to_owned())), Language::C) else { return };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let bomb = source(Language::C, "bomb.c", &macro_bomb());
    let started = std::time::Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(500));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        builder.build_or_stop(&bomb, &stop)
    });
    assert!(matches!(result, Err(toolchain::ToolchainError::Stopped)), "{result:?}");
    // At once: long before the limit (the margin is for a busy machine).
    let limit = Duration::from_secs(toolchain::COMPILE_SECONDS);
    assert!(started.elapsed() < limit / 4, "stopped after {:?}, not at the {limit:?} limit", started.elapsed());
    assert!(kept(cache.path()).is_empty(), "a stopped compile is no verdict on the source");
    assert!(matches!(builder.build_or_stop(&bomb, &stop), Err(toolchain::ToolchainError::Stopped)), "nothing starts once stopped");
}

#[test]
fn a_source_is_compiled_once_and_then_found_in_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let Some(builder) = ready(Builder::new(Some(cache.path().to_owned())), Language::C) else { return };
    let program = source(Language::C, "a05.c", "int main(void) { return 0; }\n");
    let first = builder.build(&program).unwrap();
    module(first.clone());
    let key = builder.key(&program).unwrap();
    // What the cache holds is what a second build gives, without compiling.
    let marker = Built::Failed { failure: Failure::CompileError, message: "from the cache".into() };
    std::fs::write(toolchain::cache_entry(cache.path(), &key), serde_json::to_vec(&marker).unwrap()).unwrap();
    assert_eq!(builder.build(&program).unwrap(), marker);
    let other = source(Language::C, "a05.c", "int main(void) { return 1; }\n");
    assert_ne!(builder.key(&other).unwrap(), key, "other bytes, another key");
}

#[test]
fn a_source_named_like_a_compiler_option_compiles_as_a_file() {
    let c = "int main(void) { return 0; }\n";
    let rust = "fn main() {}\n";
    let cpp = "int main() { return 0; }\n";
    for (language, name, text) in [
        (Language::C, "-o.c", c),
        (Language::C, "-include.c", c),
        (Language::C, "-E.c", c),
        (Language::Cpp, "-v.cpp", cpp),
        (Language::Rust, "--help.rs", rust),
        (Language::Rust, "-L.rs", rust),
    ] {
        let Some(built) = build(language, name, text) else { continue };
        assert!(module(built).0.starts_with(b"\0asm"), "{name}");
    }
    // Its messages name it as the student did.
    let Some(built) = build(Language::C, "-E.c", "int main(void) {\n  return nope;\n}\n") else { return };
    let (_, message) = failure(built);
    assert!(message.starts_with("-E.c:2:"), "{message}");
}

/// The builds kept in `cache`, by file name.
fn kept(cache: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache)
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".json")).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn the_cache_forgets_the_least_recently_used_builds_beyond_its_bytes() {
    let cache = tempfile::tempdir().unwrap();
    let Some(unbounded) = ready(Builder::new(Some(cache.path().to_owned())), Language::C) else { return };
    let program = |n: u8| source(Language::C, "a.c", &format!("int main(void) {{ return {n}; }}\n"));
    let entry = |builder: &Builder, n: u8| toolchain::cache_entry(cache.path(), &builder.key(&program(n)).unwrap());
    // One build's bytes (the three are of the same size but for a byte or two).
    module(unbounded.build(&program(1)).unwrap());
    let bytes = std::fs::metadata(entry(&unbounded, 1)).unwrap().len();
    let builder = Builder::new(Some(cache.path().to_owned())).with_cache_bytes(bytes * 5 / 2);
    let pause = || std::thread::sleep(Duration::from_millis(50)); // apart in modification time
    pause();
    module(builder.build(&program(2)).unwrap());
    pause();
    module(builder.build(&program(1)).unwrap()); // found: now more recently used than 2
    pause();
    module(builder.build(&program(3)).unwrap());
    assert!(entry(&builder, 1).exists() && entry(&builder, 3).exists());
    assert!(!entry(&builder, 2).exists(), "the least recently used is forgotten: {:?}", kept(cache.path()));
    assert_eq!(kept(cache.path()).len(), 2);
}

#[test]
fn a_limit_reached_is_not_kept_as_the_sources_verdict() {
    let cache = tempfile::tempdir().unwrap();
    let limits = Limits { time: Duration::from_secs(2), memory_bytes: 512 << 20, ..Limits::default() };
    let bomb = macro_bomb();
    for (language, name, text) in [(Language::C, "bomb.c", bomb.as_str()), (Language::Rust, "zero.rs", RUST_ZERO)] {
        let Some(builder) = ready(Builder::new(Some(cache.path().to_owned())).with_limits(limits.clone()), language) else { continue };
        let (kind, message) = failure(builder.build(&source(language, name, text)).unwrap());
        assert!(matches!(kind, Failure::TimeLimit | Failure::MemoryLimit), "{kind:?}: {message}");
        assert_eq!(kept(cache.path()), Vec::<String>::new(), "{name}: {kind:?}");
    }
    // A compile error is the sources' verdict, and kept.
    let Some(builder) = ready(Builder::new(Some(cache.path().to_owned())).with_limits(limits), Language::C) else { return };
    failure(builder.build(&source(Language::C, "a.c", "int main(void) { return nope; }\n")).unwrap());
    assert_eq!(kept(cache.path()).len(), 1);
}

#[test]
fn a_module_names_its_source_files_as_the_student_did_not_by_their_sandbox_path() {
    for (language, name, text) in [
        (Language::C, "where.c", "#include <stdio.h>\nint main(void) { puts(__FILE__); return 0; }\n"),
        (Language::Rust, "where.rs", "fn main() { println!(\"{}\", file!()); let v: Vec<u8> = Vec::new(); println!(\"{}\", v[1]); }\n"),
    ] {
        let Some(built) = build(language, name, text) else { continue };
        let wasm = String::from_utf8_lossy(&module(built).0).into_owned();
        assert!(wasm.contains(name) && !wasm.contains(&format!("/src/{name}")), "{name}");
    }
}

#[test]
fn a_compile_error_gcc_would_not_give_says_so_in_words() {
    let Some(built) = build(
        Language::Cpp,
        "main.cpp",
        "#include <cmath>\n#include <cstdio>\nconstexpr double R = std::sqrt(2.0);\nint main() {\n    printf(\"%f\\n\", R);\n}\n",
    ) else {
        return;
    };
    let (failure, message) = failure(built);
    assert_eq!(failure, Failure::CompileError);
    assert!(message.contains("main.cpp:3:"), "the compiler's own lines first: {message}");
    assert!(message.contains("GCC accepts this: it computes `sqrt` at compile time, as an extension."), "{message}");
}

#[test]
fn a_forgotten_source_leaves_no_build_of_any_stack_or_start_of_locals() {
    let cache = tempfile::tempdir().unwrap();
    let Some(builder) = ready(Builder::new(Some(cache.path().to_owned())), Language::C) else { return };
    let program = source(Language::C, "a.c", "int main(void) { return 0; }\n");
    let other = source(Language::C, "b.c", "int main(void) { return 1; }\n");
    let judges = toolchain::BuildOptions { stack_bytes: 64 << 20, ..Default::default() };
    let unset = toolchain::BuildOptions { locals: toolchain::Locals::Uninitialized, ..judges };
    for options in [toolchain::BuildOptions::default(), judges, unset] {
        module(builder.build_for(&program, None, &options, None).unwrap());
    }
    module(builder.build(&other).unwrap());
    assert_eq!(kept(cache.path()).len(), 4, "{:?}", kept(cache.path()));
    assert!(kept(cache.path()).iter().any(|name| name.contains("-stack67108864")), "another stack's build is kept under its own key");
    assert!(matches!(builder.forget(&program), Some(Built::Module { .. })));
    assert_eq!(kept(cache.path()), [format!("{}.json", builder.key(&other).unwrap())], "only the other source's build is left");
}
