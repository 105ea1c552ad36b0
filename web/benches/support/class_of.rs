//! A class of N distinct submissions for the benches, built reproducibly from the
//! interval-sets fixture cohort (or its Python twin, [`python_class`]): submission `i` is the cohort's module `i mod 19` with a
//! custom section naming `i` appended, so no two modules are byte-identical (nothing is
//! shared through the compiled-module cache) while every one behaves as its original. The
//! roster puts them in two cohorts.

use std::path::{Path, PathBuf};

pub fn problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets")
}

/// The bytes of the files of the problem's `folder` ending in `.extension`, in name order.
fn cohort(folder: &str, extension: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(problem().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The class's modules as `(file name, bytes)`, and its roster (CSV).
pub fn class(n: usize) -> (Vec<(String, Vec<u8>)>, String) {
    let modules = cohort("submissions", "wasm");
    let mut roster = String::from("id,cohort\n");
    let class = (0..n)
        .map(|i| {
            let id = format!("s{i:04}");
            let mut bytes = modules[i % modules.len()].clone();
            // A custom section (id 0): name "bugrank-class", payload the submission's number.
            let name = b"bugrank-class";
            let payload = i.to_string().into_bytes();
            bytes.push(0);
            bytes.push((1 + name.len() + payload.len()) as u8);
            bytes.push(name.len() as u8);
            bytes.extend_from_slice(name);
            bytes.extend_from_slice(&payload);
            roster.push_str(&format!("{id},{}\n", if i % 2 == 0 { "quickcheck" } else { "hunit" }));
            (format!("{id}.wasm"), bytes)
        })
        .collect();
    (class, roster)
}

/// The same class in Python: submission `i` is the Python cohort's answer `i mod 19`
/// (`submissions-python/`) with a comment naming `i` appended, and named `s<i>.py`, so
/// that no two compile to the same program (a program's file name is in its code). The
/// roster is [`class`]'s.
pub fn python_class(n: usize) -> (Vec<(String, Vec<u8>)>, String) {
    let sources = cohort("submissions-python", "py");
    let (modules, roster) = class(n);
    let class = modules
        .into_iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let mut source = sources[i % sources.len()].clone();
            source.extend_from_slice(format!("\n# submission {i}\n").as_bytes());
            (name.replace(".wasm", ".py"), source)
        })
        .collect();
    (class, roster)
}
