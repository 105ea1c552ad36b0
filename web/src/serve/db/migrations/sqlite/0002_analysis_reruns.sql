-- An analysis may re-run its batch's previous one, frozen or in full (NULL: afresh).
ALTER TABLE analyses ADD COLUMN rerun TEXT;
