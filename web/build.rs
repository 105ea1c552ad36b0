//! Embeds the demo problems (`fixtures/problems/*`: settings, statement, modules, roster,
//! the cohort's modules, a Python cohort's sources) in the binary, so that `bugrank serve` and `bugrank demo` have
//! their demo data from any directory. Writes `$OUT_DIR/demo_files.rs`: `DEMO_FILES`, each
//! file's path under the problems folder and its bytes, in a fixed order.

use std::path::{Path, PathBuf};

fn main() {
    let problems = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems");
    println!("cargo:rerun-if-changed={}", problems.display());
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&problems).map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.join("problem.toml").is_file()) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        println!("cargo:rerun-if-changed={}", dir.display());
        for file in ["problem.toml", "statement.md", "reference.wasm", "reference.py", "generator.wasm", "checker.wasm", "roster.csv"] {
            if dir.join(file).is_file() {
                files.push((format!("{name}/{file}"), dir.join(file)));
            }
        }
        // The cohort's modules, and a Python cohort's sources where there is one.
        for (folder, extension) in [("submissions", "wasm"), ("submissions-python", "py")] {
            println!("cargo:rerun-if-changed={}", dir.join(folder).display());
            let mut cohort: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
                .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|e| e == extension)).collect())
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
