-- An uploaded problem bundle is checked outside the request that brought it
-- (building and running its programs may take minutes): its check, until it makes
-- (or replaces) a problem or is refused.
CREATE TABLE problem_checks (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    name TEXT NOT NULL,
    dir TEXT NOT NULL,
    replaces INTEGER REFERENCES problems(id),
    status TEXT NOT NULL,
    error TEXT,
    problem_id INTEGER REFERENCES problems(id),
    created INTEGER NOT NULL
);
CREATE INDEX problem_checks_checking ON problem_checks(status);
