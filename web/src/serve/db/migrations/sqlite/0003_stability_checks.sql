-- The analyses of a stability check: the same answers with other seeds, never
-- shown to students nor taken as a batch's latest.
ALTER TABLE analyses ADD COLUMN stability_of INTEGER REFERENCES analyses(id);
