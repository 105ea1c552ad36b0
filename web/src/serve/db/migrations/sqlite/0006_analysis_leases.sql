-- A running analysis is held by one process (`holder`: machine and process) until
-- its lease ends, renewed by its heartbeat; a cancel is asked through the store.
ALTER TABLE analyses ADD COLUMN holder TEXT;
ALTER TABLE analyses ADD COLUMN lease_until INTEGER;
ALTER TABLE analyses ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
