//! Embeds the demo problems (those of `fixtures/problems` named in `DEMO`: settings,
//! statement, modules, roster, the cohort's modules, a Python cohort's sources; for a
//! function-level problem its harnesses, its reference's source and its cohort's sources,
//! which bugrank builds with the harness) in the binary, so that `bugrank serve` and
//! `bugrank demo` have their demo data from any directory. Writes
//! `$OUT_DIR/demo_files.rs`: `DEMO_FILES`, each file's path under the problems folder and
//! its bytes, in a fixed order.

use std::path::{Path, PathBuf};

/// The fixture problems that are demo data: the paper's three and a function-level one
/// (the others are test fixtures).
const DEMO: [&str; 4] = ["anonymizer", "cryptarithm", "interval-sets", "lru-cache"];

/// The harness files; a problem with one of them is a function-level problem. (The list of
/// `toolchain::Harness::ALL_FILES`, which a build script cannot use without building the
/// crate for the host.)
const HARNESS: [&str; 5] = ["harness.c", "harness.cpp", "interface.h", "harness.rs", "harness.py"];

fn main() {
    let problems = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems");
    println!("cargo:rerun-if-changed={}", problems.display());
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&problems).map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.join("problem.toml").is_file() && DEMO.iter().any(|name| d.ends_with(name))) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        println!("cargo:rerun-if-changed={}", dir.display());
        let harnessed = HARNESS.iter().any(|file| dir.join(file).is_file());
        let reference_sources: &[&str] = if harnessed { &["reference.c", "reference.cpp", "reference.rs"] } else { &[] };
        let program_files = ["problem.toml", "statement.md", "reference.wasm", "reference.py", "generator.wasm", "checker.wasm", "roster.csv"];
        for file in program_files.iter().chain(reference_sources).chain(&HARNESS) {
            if dir.join(file).is_file() {
                files.push((format!("{name}/{file}"), dir.join(file)));
            }
        }
        // The cohort's modules (its sources, for a function-level problem), and a Python
        // cohort's sources where there is one.
        let cohort_extensions: &[&str] = if harnessed { &["c", "cpp", "rs", "py"] } else { &["wasm"] };
        for (folder, extensions) in [("submissions", cohort_extensions), ("submissions-python", &["py"][..])] {
            // Only a path that exists: cargo takes a missing one as changed, and would run
            // this script and rebuild the binary on every build (a folder made later is
            // seen through the problem's folder above, which cargo scans whole).
            if dir.join(folder).is_dir() {
                println!("cargo:rerun-if-changed={}", dir.join(folder).display());
            }
            let mut cohort: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
                .map(|entries| {
                    entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|e| extensions.iter().any(|x| e == *x))).collect()
                })
                .unwrap_or_default();
            cohort.sort();
            for file in cohort {
                files.push((format!("{name}/{folder}/{}", file.file_name().unwrap().to_string_lossy()), file));
            }
        }
    }
    let mut out = String::from("/// The demo problems, as `(path under the problems folder, bytes)`.\npub const DEMO_FILES: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        let path = path.canonicalize().unwrap();
        out.push_str(&format!("    ({name:?}, include_bytes!({:?})),\n", path.display().to_string()));
    }
    out.push_str("];\n");
    std::fs::write(Path::new(&std::env::var("OUT_DIR").unwrap()).join("demo_files.rs"), out).unwrap();
}
