-- The indexes PostgreSQL's schema had from its first migration and SQLite's lacked:
-- modules by their SHA-256 (whether a deleted batch's modules are still used, which
-- scanned both tables once per module), the analysis queue by state, and a batch's
-- analyses.
CREATE INDEX submissions_by_module ON submissions(sha256);
CREATE INDEX analyses_queue ON analyses(status, id);
CREATE INDEX analyses_of_batch ON analyses(batch_id);
CREATE INDEX analysis_answers_by_module ON analysis_answers(sha256);
