-- SQLite's 9 (the maximum of points of an analysis; instructors' adjustments).
ALTER TABLE analyses ADD COLUMN max_points DOUBLE PRECISION;
CREATE TABLE adjustments (
    batch_id BIGINT NOT NULL REFERENCES batches(id),
    student TEXT NOT NULL,
    points DOUBLE PRECISION NOT NULL,
    reason TEXT NOT NULL,
    made BIGINT NOT NULL,
    PRIMARY KEY (batch_id, student)
);
