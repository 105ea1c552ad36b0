//! Opening a store: each engine's schema as numbered SQL files under `migrations/`, applied
//! in order when the store is opened (never edited once released: a change is a new file).
//! One SQL file a step, named for what it does (`migrations/sqlite/`, `migrations/postgres/`),
//! embedded in the order of their numbers: SQLite's counted by `user_version`, PostgreSQL's
//! by `bugrank_schema` under an advisory lock. Both end at the same tables, columns and
//! indexes (PostgreSQL adds `files`, `bugrank_schema`, and `run_rounds`/`run_shards`), which
//! `web/tests/service_postgres/schemas.rs` checks.

use std::path::Path;
use std::sync::Mutex;

use super::Db;
use super::sql::{Backend, DbError, DbResult, Postgres, args};

/// SQLite's schema, one migration per file of `migrations/sqlite/`, in the order of their
/// numbers; `PRAGMA user_version` counts those applied. Never edit a file once released:
/// add a new one.
pub(super) const SQLITE_MIGRATIONS: &[&str] = &[
    include_str!("migrations/sqlite/0001_first_schema.sql"),
    include_str!("migrations/sqlite/0002_analysis_reruns.sql"),
    include_str!("migrations/sqlite/0003_stability_checks.sql"),
    include_str!("migrations/sqlite/0004_analysis_attempts.sql"),
    include_str!("migrations/sqlite/0005_courses.sql"),
    include_str!("migrations/sqlite/0006_analysis_leases.sql"),
    include_str!("migrations/sqlite/0007_problem_checks.sql"),
    include_str!("migrations/sqlite/0008_indexes_by_module_queue_and_batch.sql"),
    include_str!("migrations/sqlite/0009_points_and_adjustments.sql"),
    include_str!("migrations/sqlite/0010_no_hand_in.sql"),
    include_str!("migrations/sqlite/0011_roster_students.sql"),
    include_str!("migrations/sqlite/0012_release_an_analysis.sql"),
    include_str!("migrations/sqlite/0013_lti_tool.sql"),
    include_str!("migrations/sqlite/0014_lti_links_and_scores.sql"),
    include_str!("migrations/sqlite/0015_lti_deep_links.sql"),
    include_str!("migrations/sqlite/0016_lti_instructors_approved.sql"),
    include_str!("migrations/sqlite/0017_hand_ins_by_students.sql"),
];

/// PostgreSQL's schema, one migration per file of `migrations/postgres/`, in the order of
/// their numbers; the `bugrank_schema` table counts those applied. Never edit a file once
/// released: add a new one. The first is SQLite's schema after its fifth migration; from
/// there both grow together. Flags are booleans (SQLite keeps them as 0 and 1: the
/// queries write TRUE and FALSE, which both read).
const POSTGRES_MIGRATIONS: &[&str] = &[
    include_str!("migrations/postgres/0001_schema_of_sqlite_1_to_5.sql"),
    include_str!("migrations/postgres/0002_leases_and_files.sql"),
    include_str!("migrations/postgres/0003_problem_checks.sql"),
    include_str!("migrations/postgres/0004_points_and_adjustments.sql"),
    include_str!("migrations/postgres/0005_no_hand_in.sql"),
    include_str!("migrations/postgres/0006_run_shards.sql"),
    include_str!("migrations/postgres/0007_roster_students.sql"),
    include_str!("migrations/postgres/0008_release_an_analysis.sql"),
    include_str!("migrations/postgres/0009_lti_tool.sql"),
    include_str!("migrations/postgres/0010_lti_links_and_scores.sql"),
    include_str!("migrations/postgres/0011_lti_deep_links.sql"),
    include_str!("migrations/postgres/0012_lti_instructors_approved.sql"),
    include_str!("migrations/postgres/0013_hand_ins_by_students.sql"),
];

/// The key of the advisory lock under which PostgreSQL's migrations run: two processes
/// starting at once on a new database migrate it once. [`Db::exclusively`] takes the next.
pub(super) const MIGRATION_LOCK: i64 = 0x0062_7567_7261_6e6b; // "bugrank" in ASCII

impl Db {
    /// Opens (creating if needed) the SQLite store at `path` and applies pending
    /// migrations.
    pub fn open(path: &Path) -> DbResult<Db> {
        let mut conn = rusqlite::Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let applied: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        for (i, migration) in SQLITE_MIGRATIONS.iter().enumerate().skip(applied) {
            let tx = conn.transaction()?;
            tx.execute_batch(migration)?;
            tx.pragma_update(None, "user_version", i + 1)?;
            tx.commit()?;
        }
        Ok(Db(Backend::Sqlite(Mutex::new(conn))))
    }

    /// Connects to the PostgreSQL database at `url` and applies pending migrations (one
    /// process at a time: others starting at once wait for it).
    pub fn connect(url: &str) -> DbResult<Db> {
        let db = Db(Backend::Postgres(Box::new(Postgres::connect(url)?)));
        db.0.transaction(|conn| {
            conn.execute("SELECT pg_advisory_xact_lock(?1)", args![MIGRATION_LOCK])?;
            conn.batch("CREATE TABLE IF NOT EXISTS bugrank_schema (version BIGINT NOT NULL)")?;
            let applied = conn.query_opt("SELECT version FROM bugrank_schema", &[])?.map(|r| r.int(0)).transpose()?;
            if applied.is_none() {
                conn.execute("INSERT INTO bugrank_schema (version) VALUES (0)", &[])?;
            }
            let applied = applied.unwrap_or(0);
            let known = POSTGRES_MIGRATIONS.len() as i64;
            if applied > known {
                return Err(DbError::Newer { found: applied, known });
            }
            for migration in &POSTGRES_MIGRATIONS[applied as usize..] {
                conn.batch(migration)?;
            }
            conn.execute("UPDATE bugrank_schema SET version = ?1", args![known])?;
            Ok(())
        })?;
        Ok(db)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_the_files_of_each_engines_folder_in_the_order_of_their_numbers() {
        for (engine, embedded) in [("sqlite", SQLITE_MIGRATIONS), ("postgres", POSTGRES_MIGRATIONS)] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/serve/db/migrations").join(engine);
            let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            files.sort();
            for (i, file) in files.iter().enumerate() {
                assert!(file.starts_with(&format!("{:04}_", i + 1)) && file.ends_with(".sql"), "{engine}: {file} is not numbered {:04}", i + 1);
            }
            let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(dir.join(f)).unwrap()).collect();
            assert_eq!(texts, embedded, "{engine}: every file of {} is embedded, in order", dir.display());
        }
    }
}
