//! `cargo bench -p toolchain --bench build [-- N]`: a class of N (default 300) C students
//! and N Rust students, each a distinct source (a fixture submission with the student's
//! number in a comment), built in the sandbox on all cores, cold (empty cache) and again
//! (every build found in the cache). Prints seconds, per-source milliseconds and the ratio.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use toolchain::{Builder, Built, Language, Source};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems")
}

/// The fixture submissions in `language`, sorted.
fn originals(language: Language) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for problem in ["anonymizer", "cryptarithm", "interval-sets"] {
        for entry in std::fs::read_dir(fixtures().join(problem).join("submissions")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if Language::of_file(&name) == Some(language) {
                files.push((format!("{problem}-{name}"), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// `n` distinct students' sources in `language`.
fn class(language: Language, n: usize) -> Vec<Source> {
    let originals = originals(language);
    assert!(!originals.is_empty(), "fixture sources in {language}");
    (0..n)
        .map(|i| {
            let (name, text) = &originals[i % originals.len()];
            let mut text = text.clone();
            text.extend(format!("\n/* student {i:04}, from {name} */\n").as_bytes());
            Source { language, files: vec![(format!("s{i:04}.{}", language.extension()), text)] }
        })
        .collect()
}

/// Builds every source on all cores; returns seconds and how many gave a module.
fn build_all(builder: &Builder, class: &[Source]) -> (f64, usize) {
    let started = Instant::now();
    let modules = class.par_iter().filter(|source| matches!(builder.build(source).expect("this machine can build"), Built::Module { .. })).count();
    (started.elapsed().as_secs_f64(), modules)
}

fn main() {
    let n: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(300);
    println!("{n} students per language, {} threads", rayon::current_num_threads());
    println!("{:<6} {:>9} {:>10} {:>9} {:>10} {:>8} {:>8}", "", "cold s", "ms/source", "cached s", "ms/source", "ratio", "modules");
    for language in [Language::C, Language::Rust] {
        let cache = tempfile::tempdir().unwrap();
        let builder = Builder::new(Some(cache.path().to_owned()));
        if let Err(missing) = builder.ready(language) {
            println!("{:<6} skipped: {missing}", language.name());
            continue;
        }
        let class = class(language, n);
        let (cold, modules) = build_all(&builder, &class);
        let (cached, again) = build_all(&builder, &class);
        assert_eq!(modules, again, "the cache gives the same results");
        let ms = |s: f64| 1000.0 * s / n as f64;
        println!("{:<6} {cold:>9.2} {:>10.1} {cached:>9.3} {:>10.2} {:>7.0}x {modules:>8}", language.name(), ms(cold), ms(cached), cold / cached);
    }
}
