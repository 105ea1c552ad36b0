-- Issue 49: students hand in themselves. A batch open to them has a window: whether it is
-- open (`accepting`), the deadline (seconds since 1970, UTC; NULL: none), the least minutes between two
-- hand-ins of a student, what a late hand-in gets ('mark' or 'refuse'), and whether the
-- class's analysis is queued at the deadline by itself. `deadline_claimed`: a process of the
-- service has queued the analysis of this deadline (or found nothing to analyse), once;
-- `deadline_analysis`: the analysis it queued.
CREATE TABLE hand_in_windows (
    batch_id INTEGER PRIMARY KEY REFERENCES batches(id),
    accepting BOOLEAN NOT NULL,
    deadline INTEGER,
    minutes_between INTEGER NOT NULL,
    late_policy TEXT NOT NULL,
    analyse_at_deadline BOOLEAN NOT NULL,
    deadline_claimed BOOLEAN NOT NULL DEFAULT FALSE,
    deadline_analysis INTEGER
);
-- Every hand-in a student made themselves, with its pre-check: 'queued' until checked,
-- then 'done' with the report (JSON: course::pre_check::PreCheck), or 'failed' with why it
-- could not be checked here. The latest by `created` starts a student's wait. `claimed`:
-- when a process began its pre-check (a lease: one that ended no pre-check in time is
-- taken again by any process).
CREATE TABLE hand_in_checks (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    student TEXT NOT NULL,
    file TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    late BOOLEAN NOT NULL,
    created INTEGER NOT NULL,
    status TEXT NOT NULL,
    report TEXT,
    claimed INTEGER
);
CREATE INDEX hand_in_checks_by_student ON hand_in_checks(batch_id, student, created);
CREATE INDEX hand_in_checks_queued ON hand_in_checks(id) WHERE status = 'queued';
