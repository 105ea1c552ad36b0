//! No crate's modules import each other in a circle: each crate reads top-down, and a
//! module can be understood from the ones below it. A module's references are its
//! `crate::`, `super::` and `self::` paths (comments left out); one from module A to module
//! B counts between the two children of their lowest common ancestor that hold them, and a
//! module naming its own ancestor or descendant does not count (a parent declares its
//! children).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file under `dir`, sorted.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Every `.rs` file under `src` by module path (`serve/db/mod.rs` is `serve::db`).
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    for path in rust_files(src) {
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut module: Module = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            module.pop();
        }
        found.insert(module, path);
    }
    found
}

/// Rust source without its comments (doc comments included: a doc link is not an import).
pub(crate) fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
        } else if rest.starts_with('"') {
            // A string may hold `//` (a URL): skip it whole.
            let bytes = rest.as_bytes();
            let mut i = 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            rest = rest.get(i + 1..).unwrap_or("");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths starting with `crate`, `super` or `self` in `code`, a `{...}` group after
/// one expanded one level (`crate::a::{b, c::d}` is `crate::a::b` and `crate::a::c::d`).
pub(crate) fn paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !is_ident(chars[i - 1]);
        let word: String = chars[i..].iter().take_while(|c| is_ident(**c)).collect();
        if !starts_word || word.is_empty() {
            i += 1;
            continue;
        }
        i += word.chars().count();
        if !matches!(word.as_str(), "crate" | "super" | "self") {
            continue;
        }
        let mut path = vec![word];
        loop {
            if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                i += 2;
                let next: String = chars[i..].iter().take_while(|c| is_ident(**c)).collect();
                if !next.is_empty() {
                    i += next.chars().count();
                    path.push(next);
                    continue;
                }
                if chars.get(i) == Some(&'{') {
                    let close = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |p| i + p);
                    let group: String = chars[i + 1..close].iter().collect();
                    for item in group.split(',') {
                        let item = item.split(" as ").next().unwrap().trim();
                        if !item.is_empty() {
                            let mut full = path.clone();
                            full.extend(item.split("::").map(|s| s.trim().to_owned()));
                            found.push(full);
                        }
                    }
                    i = close;
                }
            }
            break;
        }
        found.push(path);
    }
    found
}

/// The module a path names, seen from `from`: its longest prefix that is a module.
fn target(from: &Module, path: &[String], known: &BTreeSet<Module>) -> Module {
    let (mut module, mut rest): (Module, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        _ => (from.clone(), path),
    };
    while let Some(first) = rest.first().filter(|p| *p == "super" || *p == "self") {
        if first == "super" {
            module.pop();
        }
        rest = &rest[1..];
    }
    for part in rest {
        let mut deeper = module.clone();
        deeper.push(part.clone());
        if !known.contains(&deeper) {
            break;
        }
        module = deeper;
    }
    module
}

/// The import edges between sibling modules of the crate at `src`.
fn edges(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules(src);
    let known: BTreeSet<Module> = modules.keys().cloned().collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in &modules {
        for path in paths(&without_comments(&std::fs::read_to_string(file).unwrap())) {
            let to = target(module, &path, &known);
            let common = module.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == module.len() || common == to.len() {
                continue;
            }
            edges.entry(module[..=common].to_vec()).or_default().insert(to[..=common].to_vec());
        }
    }
    edges
}

/// The circles among `edges`: strongly connected components of more than one module.
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    let reaches = |from: &Module| -> BTreeSet<Module> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut circles: BTreeSet<Vec<String>> = BTreeSet::new();
    for module in edges.keys() {
        let from = reaches(module);
        let mut circle: Vec<String> = from.iter().filter(|m| *m != module && reaches(m).contains(module)).map(|m| m.join("::")).collect();
        if !circle.is_empty() {
            circle.push(module.join("::"));
            circle.sort();
            circles.insert(circle);
        }
    }
    circles.into_iter().collect()
}

fn check(krate: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src");
    assert_eq!(circles(&edges(&src)), Vec::<Vec<String>>::new(), "{krate}: modules that import each other in a circle");
}

#[test]
fn no_module_of_any_crate_of_the_workspace_imports_itself_through_others() {
    for krate in ["grader", "present", "course", "web", "sandbox", "toolchain"] {
        check(krate);
    }
}

#[test]
fn the_check_finds_a_circle_of_two_modules_and_one_through_a_group_import() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a; mod b; mod c; mod d;");
    write("a.rs", "use crate::b::Thing; // crate::d in a comment is no import\nconst URL: &str = \"http://crate::d\";");
    write("b.rs", "pub fn f() { super::a::g() }");
    write("c/mod.rs", "mod inner; use crate::{d::One, a};");
    write("c/inner.rs", "use super::super::d::Two; use super::Parent;");
    write("d.rs", "use crate::c::inner::X;");
    let found = circles(&edges(dir.path()));
    assert_eq!(found, [vec!["a".to_owned(), "b".to_owned()], vec!["c".to_owned(), "d".to_owned()]]);
}
