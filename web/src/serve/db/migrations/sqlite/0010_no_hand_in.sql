-- Issue 47: what the exports give the roster's students who handed in nothing, the
-- instructor's choice by batch: 'zero' (0 points) or 'empty' (an empty cell).
ALTER TABLE batches ADD COLUMN no_hand_in TEXT NOT NULL DEFAULT 'zero';
