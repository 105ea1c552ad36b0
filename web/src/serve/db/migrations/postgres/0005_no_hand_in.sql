-- SQLite's 10 (what the exports give the roster's students who handed in nothing).
ALTER TABLE batches ADD COLUMN no_hand_in TEXT NOT NULL DEFAULT 'zero';
