-- SQLite's 6 (leases, holder, cancel through the store), and the files that SQLite
-- keeps under `--data` (modules, problem folders, analyses' outputs) as rows, by their
-- path under the data folder: no process needs another's file system.
ALTER TABLE analyses ADD COLUMN holder TEXT;
ALTER TABLE analyses ADD COLUMN lease_until BIGINT;
ALTER TABLE analyses ADD COLUMN cancel_requested BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE files (
    path TEXT PRIMARY KEY,
    bytes BYTEA NOT NULL
);
