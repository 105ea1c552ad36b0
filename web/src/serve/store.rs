//! The service's files under `--data`: modules by content hash, problem directories, and
//! each finished analysis's outputs. Files are written to a temporary name and renamed,
//! so a crash leaves either the whole file or none. What each student handed in is kept by
//! its SHA-256: a module, or a bundle of sources. Built sources are kept in `<data>/builds`,
//! compiled modules in `<data>/compiled` (the builder's and the sandbox's caches).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub struct Store {
    root: PathBuf,
}

/// Takes the data directory for this process: a second `bugrank serve` (or worker) on the same
/// directory would requeue the first one's running analyses and write beside it. The lock
/// (on `<data>/serve.lock`) lasts as long as the returned file is open; the operating
/// system releases it when the process ends, however it ends.
pub fn lock_data(root: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let path = root.join("serve.lock");
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).with_context(|| format!("cannot open {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another bugrank process (serve or worker) is using {} (it holds {}): stop it first, or give another --data",
            root.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
    }
}

pub use course::hand_in::{hex, sha256_hex};

/// Writes `bytes` to `path` through a temporary file in the same folder, synced to disk
/// before it takes the name.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("a stored file has a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

impl Store {
    pub fn open(root: &Path) -> anyhow::Result<Store> {
        for sub in ["modules", "problems", "analyses"] {
            let dir = root.join(sub);
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(Store { root: root.to_owned() })
    }

    pub fn database_path(&self) -> PathBuf {
        self.root.join("bugrank.sqlite")
    }

    /// Stores a module under its hash and returns the hash; storing twice is harmless.
    pub fn put_module(&self, bytes: &[u8]) -> anyhow::Result<String> {
        let hash = sha256_hex(bytes);
        let path = self.module_path(&hash);
        if !path.exists() {
            write_atomically(&path, bytes)?;
        }
        Ok(hash)
    }

    pub fn module(&self, hash: &str) -> anyhow::Result<Vec<u8>> {
        let path = self.module_path(hash);
        std::fs::read(&path).with_context(|| format!("module {hash} is missing from the store ({})", path.display()))
    }

    /// Deletes a stored module; one already gone is no error.
    pub fn remove_module(&self, hash: &str) -> anyhow::Result<()> {
        remove_file(&self.module_path(hash))
    }

    fn module_path(&self, hash: &str) -> PathBuf {
        self.root.join(Store::module_name(hash))
    }

    /// A new, empty folder for a problem named `name`: `problems/<random>/<name>`, so that
    /// the folder's name, which analyses report, stays the problem's, and two processes
    /// on two machines sharing one database never pick the same folder.
    pub fn new_problem_dir(&self, name: &str) -> anyhow::Result<PathBuf> {
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        // A bundle named `.zip` has no name: its folder still needs one.
        let safe = if safe.is_empty() { "problem".to_owned() } else { safe };
        let problems = self.root.join("problems");
        // A new folder of a random name (tempfile retries one that exists), kept.
        let parent = tempfile::Builder::new()
            .prefix("")
            .rand_bytes(12)
            .tempdir_in(&problems)
            .with_context(|| format!("cannot create a folder in {}", problems.display()))?
            .keep();
        let dir = parent.join(safe);
        std::fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir)
    }

    /// How the store names `path` (a file or folder under the data folder): relative to
    /// it, so that every process finds it under its own `--data`.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned()
    }

    /// The path here of what the store names `stored`: relative to the data folder, or
    /// absolute (problems stored before names were relative).
    pub fn resolve(&self, stored: &str) -> PathBuf {
        self.root.join(stored)
    }

    /// What the store calls module `hash`'s file.
    pub fn module_name(hash: &str) -> String {
        format!("modules/{hash}.wasm")
    }

    /// The folder of analysis `id`'s outputs.
    pub fn analysis_dir(&self, id: i64) -> PathBuf {
        self.root.join("analyses").join(id.to_string())
    }
}

/// Deletes a file; one already gone is no error.
pub fn remove_file(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).with_context(|| format!("cannot delete {}", path.display())),
        _ => Ok(()),
    }
}
