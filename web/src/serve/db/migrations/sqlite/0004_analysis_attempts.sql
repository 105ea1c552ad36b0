-- How many times an analysis was started, to give up on one that never ends.
ALTER TABLE analyses ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
