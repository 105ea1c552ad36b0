//! A class of N distinct submissions for the benches, built reproducibly from the
//! interval-sets fixture cohort (or its Python twin, [`python_class`]): submission `i` is the cohort's module `i mod 19` with a
//! custom section naming `i` appended, so no two modules are byte-identical (nothing is
//! shared through the compiled-module cache) while every one behaves as its original. The
//! roster puts them in two cohorts.

use std::path::{Path, PathBuf};

pub fn problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems/interval-sets")
}

/// The function-level Python class `fixtures/cohorts/search` (167 first-year hand-ins of
/// `search(x, seq)`, graded with its harness).
pub fn functions_problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cohorts/search")
}

/// The bytes of the files of the problem's `folder` ending in `.extension`, in name order.
fn cohort(folder: &str, extension: &str) -> Vec<Vec<u8>> {
    files_of(&problem().join(folder), extension)
}

/// The bytes of the files of `dir` ending in `.extension`, in name order.
fn files_of(dir: &Path, extension: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == extension)).collect();
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
/// (`submissions-python/`) with a line `_submission = i` appended, and named `s<i>.py`:
/// a constant of its own, so that no two have the same code and each one runs (copies
/// that differ only in comments or file name run once: `Program::same_code`). The roster
/// is [`class`]'s.
pub fn python_class(n: usize) -> (Vec<(String, Vec<u8>)>, String) {
    numbered_sources(&cohort("submissions-python", "py"), n, "py", python_numbered)
}

/// A function-level Python class of `n` ([`functions_problem`]): submission `i` is the
/// search cohort's hand-in `i mod 167` with `_submission = i` appended, as
/// [`python_class`]'s; the roster is [`class`]'s.
pub fn function_class(n: usize) -> (Vec<(String, Vec<u8>)>, String) {
    numbered_sources(&files_of(&functions_problem().join("submissions"), "py"), n, "py", python_numbered)
}

/// The C twin of [`functions_problem`], `fixtures/cohorts/search-c` (the same 167 hand-ins
/// translated to C, the same generator).
pub fn functions_c_problem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cohorts/search-c")
}

/// [`function_class`] in C ([`functions_c_problem`]): submission `i` is the C cohort's
/// hand-in `i mod 167` with its `search` renamed (a `#define` before it) and called by a
/// `search` appended after it that first stores `i` in a volatile variable: C's
/// `_submission = i`, which the linker keeps (an unused constant it drops, and a
/// constructor is refused in a hand-in), so that no two modules are the same and every
/// one runs (copies run once). A hand-in that does not define `search` or does not
/// compile still does not. The roster is [`class`]'s.
pub fn function_c_class(n: usize) -> (Vec<(String, Vec<u8>)>, String) {
    numbered_sources(&files_of(&functions_c_problem().join("submissions"), "c"), n, "c", |i, source| {
        let mut marked = b"#define search bugrank_submitted_search\n".to_vec();
        marked.extend_from_slice(source);
        marked.extend_from_slice(
            format!(
                "\n#undef search\nint bugrank_submitted_search(int x, const int *seq, int n);\n\
                 int search(int x, const int *seq, int n) {{ volatile int submission = {i}; (void)submission; return bugrank_submitted_search(x, seq, n); }}\n"
            )
            .as_bytes(),
        );
        marked
    })
}

/// `n` sources named `s<i>.<extension>`, source `i` being `sources[i mod len]` marked
/// with its number by `mark(i, source)`, and [`class`]'s roster.
fn numbered_sources(sources: &[Vec<u8>], n: usize, extension: &str, mark: impl Fn(usize, &[u8]) -> Vec<u8>) -> (Vec<(String, Vec<u8>)>, String) {
    let (modules, roster) = class(n);
    let class =
        modules.into_iter().enumerate().map(|(i, (name, _))| (name.replace(".wasm", &format!(".{extension}")), mark(i, &sources[i % sources.len()]))).collect();
    (class, roster)
}

/// A Python source with a line `_submission = i` appended: a constant of its own.
fn python_numbered(i: usize, source: &[u8]) -> Vec<u8> {
    [source, format!("\n_submission = {i}\n").as_bytes()].concat()
}
