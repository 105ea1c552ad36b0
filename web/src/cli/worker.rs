//! `bugrank worker`: a process that only runs analyses, beside `bugrank serve` processes
//! that share its PostgreSQL database.

use std::path::PathBuf;
use std::sync::Arc;

use crate::serve::db::sql;
use crate::serve::{App, MAX_UPLOAD_BYTES, store, worker};

#[derive(clap::Args)]
pub struct WorkerArgs {
    /// The PostgreSQL database the `bugrank serve` processes use (see `serve --database`).
    #[arg(long, env = "BUGRANK_DATABASE")]
    pub database: String,
    /// This worker's own folder: modules, problems and compiled code fetched from the
    /// database are kept there, so that the next analysis of a batch starts at once.
    #[arg(long, default_value = "worker-data")]
    pub data: PathBuf,
    /// Analyses run at the same time, sharing the cores alike, beside an express worker for
    /// batches of at most 60 hand-ins.
    #[arg(long, default_value_t = worker::ANALYSES_AT_ONCE)]
    pub workers: usize,
    /// Threads per analysis (default: one per core). The result does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The least milliseconds of work of one shard of an analysis's rounds that other
    /// processes' idle workers may make (see `serve --shard-ms`).
    #[arg(long, default_value_t = crate::serve::SHARD_WORK.as_millis() as u64)]
    pub shard_ms: u64,
}

/// `bugrank worker`: runs queued analyses of the shared database, `--workers` at a time,
/// for ever (until killed: an analysis it was running is taken over by another worker when
/// its lease runs out).
pub fn worker_command(args: &WorkerArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.database.starts_with("postgres://") || args.database.starts_with("postgresql://") || args.database.contains("host="),
        "bugrank worker takes analyses from a PostgreSQL database (--database postgres://...); with SQLite, `bugrank serve` runs them itself"
    );
    let lock = store::lock_data(&args.data)?;
    let mut app = App::open(&args.data, Some(&args.database), MAX_UPLOAD_BYTES)?;
    app.lock = Some(lock);
    app.shard_work = std::time::Duration::from_millis(args.shard_ms.max(1));
    let workers = worker::start(Arc::new(app), args.workers.max(1), args.threads)?;
    println!("bugrank worker (pid {}) takes analyses from {}", std::process::id(), sql::redacted(&args.database));
    for worker in workers {
        worker.join().map_err(|_| anyhow::anyhow!("the worker thread panicked"))?;
    }
    Ok(())
}
