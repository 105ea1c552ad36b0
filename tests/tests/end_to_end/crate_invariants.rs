//! The invariants ARCHITECTURE.md states of each crate, checked on the sources: what a
//! crate must not know (its dependencies and the names its code uses, comments left out)
//! and that no page module of the service uses another.

use std::path::{Path, PathBuf};

use crate::module_circles::{paths, rust_files, without_comments};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, with its code (comments left out).
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    rust_files(dir).into_iter().map(|path| (path.clone(), without_comments(&std::fs::read_to_string(&path).unwrap()))).collect()
}

/// The names of a crate's `[dependencies]` (not its dev- or build-dependencies).
fn dependencies(krate: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace().join(krate).join("Cargo.toml")).unwrap();
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            names.push(line.split(['=', '.', ' ']).next().unwrap().to_owned());
        }
    }
    names
}

/// Fails naming every place where `krate`'s code (`src/`) uses one of `words` (as the
/// start of a path or a macro), or its dependencies one of `crates`.
fn check_does_not_know(krate: &str, crates: &[&str], words: &[&str]) {
    let depended: Vec<String> = dependencies(krate).into_iter().filter(|name| crates.contains(&name.as_str())).collect();
    assert!(depended.is_empty(), "{krate} depends on {depended:?}");
    let mut found = Vec::new();
    for (path, code) in sources(&workspace().join(krate).join("src")) {
        for (number, line) in code.lines().enumerate() {
            for word in words {
                let at_word_start = line.match_indices(word).any(|(i, _)| !line[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
                if at_word_start {
                    found.push(format!("{}:{}: {word}", path.strip_prefix(workspace()).unwrap_or(&path).display(), number + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{krate} uses what it must not know:\n{}", found.join("\n"));
}

/// What doing I/O takes in Rust's standard library: files, sockets, processes, the
/// environment, the standard streams.
const IO: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "std::io::stdin",
    "std::io::stdout",
    "std::io::stderr",
    "println!",
    "eprintln!",
    "print!",
    "eprint!",
    "File::",
    "dbg!",
];

#[test]
fn only_the_sandbox_crate_knows_wasmtime() {
    for krate in ["grader", "present", "course", "toolchain", "web"] {
        check_does_not_know(krate, &["wasmtime", "wasmtime-wasi", "wasi-common", "cranelift-codegen"], &["wasmtime", "wasmtime_wasi"]);
    }
}

#[test]
fn the_grader_is_pure_no_io_no_wasmtime_no_actix_no_sql() {
    let mut words = IO.to_vec();
    words.extend(["wasmtime", "actix_web", "rusqlite", "postgres", "sandbox::", "course::"]);
    check_does_not_know("grader", &["wasmtime", "actix-web", "rusqlite", "postgres", "sandbox", "course", "web"], &words);
}

#[test]
fn present_draws_results_without_io_runs_or_the_service() {
    let mut words = IO.to_vec();
    words.extend(["sandbox::", "course::", "actix_web", "rusqlite", "postgres"]);
    check_does_not_know("present", &["sandbox", "course", "web", "actix-web", "rusqlite", "postgres"], &words);
}

#[test]
fn course_knows_no_command_line_no_service_and_no_sql() {
    check_does_not_know("course", &["clap", "actix-web", "rusqlite", "postgres", "web"], &["clap::", "actix_web", "rusqlite", "postgres::", "web::"]);
}

/// The modules of `pages/` that every page shares; the others are pages.
const SHARED_PAGE_MODULES: &[&str] = &["mod", "layout", "forms"];

#[test]
fn no_page_module_of_the_service_uses_another() {
    let pages = workspace().join("web/src/serve/pages");
    let page_names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| !SHARED_PAGE_MODULES.contains(&name.as_str()))
        .collect();
    assert!(page_names.len() >= 8, "the pages were not found: {page_names:?}");
    let mut found = Vec::new();
    for name in &page_names {
        let code = without_comments(&std::fs::read_to_string(pages.join(format!("{name}.rs"))).unwrap());
        for path in paths(&code) {
            // `super::other` from a page, or `crate::serve::pages::other` from anywhere.
            let other = match path.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["super", other, ..] => Some(other.to_string()),
                ["crate", "serve", "pages", other, ..] => Some(other.to_string()),
                _ => None,
            };
            if other.is_some_and(|other| &other != name && page_names.contains(&other)) {
                found.push(format!("{name}.rs uses {}", path.join("::")));
            }
        }
    }
    assert!(found.is_empty(), "page modules that use another:\n{}", found.join("\n"));
}
