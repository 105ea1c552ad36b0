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
