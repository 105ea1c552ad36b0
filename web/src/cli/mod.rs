//! The command line: one file per command, each turning its arguments into calls of
//! `course` (or of the service, for `serve`, `worker` and `user`) and printing what
//! comes back. No rule of grading lives here.

pub mod bugs;
pub mod check_problem;
pub mod demo;
pub mod grade;
pub mod grade_tests;
pub mod import;
pub mod lti;
pub mod new_problem;
pub mod report;
pub mod serve;
pub mod stability;
pub mod toolchains;
pub mod user;
pub mod worker;

use std::path::PathBuf;

/// Where a command finds the service's store: `--data`, and `--database` for PostgreSQL.
#[derive(clap::Args)]
pub struct StoreArgs {
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// The database: a PostgreSQL URL (`postgres://user@host:port/name`; the password
    /// from `PGPASSWORD` or the URL) shared by every `bugrank serve` and `bugrank worker`
    /// of a deployment. Default: SQLite in `--data` (`bugrank.sqlite`), one process.
    #[arg(long, env = "BUGRANK_DATABASE")]
    pub database: Option<String>,
}

use course::Tools;
use sandbox::Sandbox;
use toolchain::Builder;

/// The tools of a command-line run, keeping compiled modules and built sources on disk so
/// that grading the same class again compiles nothing (a class of 1,000 takes minutes of
/// CPU to compile). The cache is `$BUGRANK_CACHE`, else `$XDG_CACHE_HOME/bugrank`, else
/// `~/.cache/bugrank`, with `compiled/` (machine code) and `builds/` (modules built from
/// sources); `BUGRANK_CACHE=off` turns it off.
///
/// Pitfall: the files are loaded as they are, so a directory that others may write to (not
/// owned by this user, or writable by its group or anyone) is not used: the run compiles
/// everything, and says why once.
pub fn cli_tools() -> anyhow::Result<Tools> {
    let sandbox = Sandbox::new()?;
    let Some(root) = cli_cache_dir() else { return Ok(Tools { sandbox, builder: Builder::new(None) }) };
    let (compiled, builds) = (root.join("compiled"), root.join("builds"));
    if let Err(why) = [&root, &compiled, &builds].into_iter().try_for_each(|dir| private_dir(dir)) {
        eprintln!("not keeping compiled modules in {}: {why}", root.display());
        return Ok(Tools { sandbox, builder: Builder::new(None) });
    }
    Ok(Tools { sandbox: sandbox.with_disk_cache(compiled)?, builder: Builder::new(Some(builds)) })
}

fn cli_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    match var("BUGRANK_CACHE") {
        Some(off) if off == "off" => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            var("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".cache"))).map(|cache| cache.join("bugrank"))
        }
    }
}

/// Creates `dir` (readable by this user alone) or checks that no one else may write to it.
fn private_dir(dir: &std::path::Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| e.to_string())?;
    let meta = std::fs::metadata(dir).map_err(|e| e.to_string())?;
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(format!("it belongs to user {}, not to this user ({me})", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!("others may write to it (mode {:o})", meta.mode() & 0o777));
    }
    Ok(())
}
