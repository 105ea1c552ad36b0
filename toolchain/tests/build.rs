//! Compiling sources in the sandbox: what a student gets, and what a hostile source cannot do.
//!
//! Each test needs the toolchain of its language and bubblewrap; without them it says so
//! and passes, except under `CI` (where `.ci/run` installs them), where it fails.

use std::time::Duration;

use toolchain::{Builder, Built, Failure, Language, Limits, Source};

/// A builder that can compile `language` here, without a cache.
fn builder(language: Language, limits: Limits) -> Option<Builder> {
    let builder = Builder::new(None).with_limits(limits);
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

#[test]
fn the_hosts_environment_is_not_visible_to_the_compiler() {
    let text = "const ENV: &str = include_str!(\"/proc/self/environ\");\nfn main() { print!(\"{ENV}\"); }\n";
    let Some(builder) = builder(Language::Rust, Limits::default()) else { return };
    // The test's own environment (the host's) holds this; the sandbox starts empty.
    // SAFETY: set before any thread of this test reads the environment.
    unsafe { std::env::set_var("BUGRANK_TEST_SECRET", "s3cr3t-e9b1") };
    let built = builder.build(&source(Language::Rust, "env.rs", text)).unwrap();
    let bytes = match built {
        Built::Module { wasm, warnings } => [wasm, warnings.into_bytes()].concat(),
        Built::Failed { message, .. } => message.into_bytes(),
    };
    assert!(!String::from_utf8_lossy(&bytes).contains("s3cr3t-e9b1"));
}

#[test]
fn reading_dev_zero_is_stopped_by_the_memory_limit() {
    let limits = Limits { memory_bytes: 512 << 20, time: Duration::from_secs(30), ..Limits::default() };
    // clang reads a device as an empty file: bounded, whatever it makes of it.
    if let Some(builder) = builder(Language::C, limits.clone()) {
        let started = std::time::Instant::now();
        builder.build(&source(Language::C, "zero.c", "#include \"/dev/zero\"\nint main(void) { return 0; }\n")).unwrap();
        assert!(started.elapsed() < Duration::from_secs(30));
    }
    // rustc reads it to its end, which never comes.
    let Some(builder) = builder(Language::Rust, limits) else { return };
    let text = "static ZERO: &[u8] = include_bytes!(\"/dev/zero\");\nfn main() { print!(\"{}\", ZERO.len()); }\n";
    let (kind, message) = failure(builder.build(&source(Language::Rust, "zero.rs", text)).unwrap());
    assert_eq!(kind, Failure::MemoryLimit, "{message}");
    assert!(message.starts_with("the compiler "), "{message}");
}

#[test]
fn a_macro_bomb_is_stopped_by_a_limit_in_seconds() {
    // A40 expands to 2^40 tokens.
    let mut bomb = String::from("#define A0 +1\n");
    for i in 1..=40 {
        bomb.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    bomb.push_str("int y = 0 A40;\nint main(void) { return 0; }\n");
    let limits = Limits { time: Duration::from_secs(3), ..Limits::default() };
    let Some(builder) = builder(Language::C, limits) else { return };
    let started = std::time::Instant::now();
    let (kind, message) = failure(builder.build(&source(Language::C, "bomb.c", &bomb)).unwrap());
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(matches!(kind, Failure::TimeLimit | Failure::MemoryLimit), "{kind:?}: {message}");
    assert!(message.starts_with("the compiler "), "{message}");
}

#[test]
fn a_source_is_compiled_once_and_then_found_in_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let Some(_) = builder(Language::C, Limits::default()) else { return };
    let builder = Builder::new(Some(cache.path().to_owned()));
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
