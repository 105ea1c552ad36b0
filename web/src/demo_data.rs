//! The demo problems built into the binary (`fixtures/problems/*`, embedded by
//! `build.rs`): `bugrank demo` grades them, and `bugrank serve` loads them on a first start.

use std::path::{Path, PathBuf};

use anyhow::Context;

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// The folder of demo problems: `given`, or the problems built into the binary
/// ([`DEMO_FILES`]) written into a temporary folder, kept while the returned guard lives.
pub fn demo_problems(given: Option<&Path>) -> anyhow::Result<(PathBuf, Option<tempfile::TempDir>)> {
    if let Some(dir) = given {
        return Ok((dir.to_owned(), None));
    }
    let temporary = tempfile::tempdir().context("cannot create a folder for the demo problems")?;
    for (name, bytes) in DEMO_FILES {
        let path = temporary.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a file of a problem"))?;
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok((temporary.path().to_owned(), Some(temporary)))
}

#[cfg(test)]
mod tests {
    /// Every path the build script asks cargo to watch exists: cargo takes a missing one
    /// as changed, and reran the script and rebuilt the binary on every build (ten
    /// minutes with the release profile). Read from the script's own output, which cargo
    /// keeps beside `OUT_DIR`.
    #[test]
    fn the_build_script_watches_only_paths_that_exist() {
        let output = std::path::Path::new(env!("OUT_DIR")).join("../output");
        let printed = std::fs::read_to_string(&output).unwrap_or_else(|e| panic!("{}: {e}", output.display()));
        let watched: Vec<&str> = printed.lines().filter_map(|line| line.strip_prefix("cargo:rerun-if-changed=")).collect();
        assert!(watched.len() > 4, "the demo problems are watched: {printed}");
        let missing: Vec<&&str> = watched.iter().filter(|path| !std::path::Path::new(path).exists()).collect();
        assert!(missing.is_empty(), "watched but missing (so always rebuilt): {missing:?}");
    }
}
