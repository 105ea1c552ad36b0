-- Issue 29: the maximum of points an analysis grades on (NULL: its problem's), and each
-- student's adjustment of points, made by the instructor on the batch's page: kept by the
-- batch, so every analysis of it (a re-run included) applies it.
ALTER TABLE analyses ADD COLUMN max_points REAL;
CREATE TABLE adjustments (
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    student TEXT NOT NULL,
    points REAL NOT NULL,
    reason TEXT NOT NULL,
    made INTEGER NOT NULL,
    PRIMARY KEY (batch_id, student)
);
