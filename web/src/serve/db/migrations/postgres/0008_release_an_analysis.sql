-- Issue 47 (as SQLite's 0012): releasing publishes one analysis. `shown_analysis` is the analysis a released
-- batch's students see (no foreign key: a batch's analyses are deleted before it); a later
-- one waits for the instructor unless `release_reruns` says it goes out as it finishes. A
-- batch released before this saw its latest finished analysis: that one stays shown.
ALTER TABLE batches ADD COLUMN shown_analysis BIGINT;
ALTER TABLE batches ADD COLUMN release_reruns BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE batches SET shown_analysis =
    (SELECT max(a.id) FROM analyses a WHERE a.batch_id = batches.id AND a.status = 'done' AND a.stability_of IS NULL)
    WHERE released = TRUE;
