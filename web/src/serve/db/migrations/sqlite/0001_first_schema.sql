-- The first schema.
CREATE TABLE instructors (
    id INTEGER PRIMARY KEY,
    login TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    instructor_id INTEGER NOT NULL REFERENCES instructors(id),
    csrf TEXT NOT NULL,
    expires INTEGER NOT NULL
);
CREATE TABLE problems (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    dir TEXT NOT NULL,
    builtin INTEGER NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    problem_id INTEGER NOT NULL REFERENCES problems(id),
    name TEXT NOT NULL,
    released INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    student TEXT NOT NULL,
    file TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    late INTEGER NOT NULL,
    superseded INTEGER NOT NULL DEFAULT 0,
    uploaded INTEGER NOT NULL
);
CREATE UNIQUE INDEX one_current_submission ON submissions(batch_id, student) WHERE superseded = 0;
CREATE TABLE roster (
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    student TEXT NOT NULL,
    cohort TEXT NOT NULL,
    manual REAL,
    extra TEXT NOT NULL,
    PRIMARY KEY (batch_id, student)
);
CREATE TABLE students (
    id TEXT PRIMARY KEY,
    token TEXT UNIQUE,
    issued INTEGER
);
CREATE TABLE uploads (
    id INTEGER PRIMARY KEY,
    problem_id INTEGER NOT NULL REFERENCES problems(id),
    batch_id INTEGER REFERENCES batches(id),
    report TEXT NOT NULL,
    status TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE analyses (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    problem_dir TEXT NOT NULL,
    seed INTEGER NOT NULL,
    stable_after INTEGER,
    fuel_factor INTEGER,
    status TEXT NOT NULL,
    progress TEXT,
    error TEXT,
    previous_id INTEGER REFERENCES analyses(id),
    created INTEGER NOT NULL,
    started INTEGER,
    finished INTEGER
);
CREATE TABLE analysis_answers (
    analysis_id INTEGER NOT NULL REFERENCES analyses(id),
    student TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    cohort TEXT,
    PRIMARY KEY (analysis_id, student)
);
CREATE TABLE bug_lists (
    analysis_id INTEGER NOT NULL REFERENCES analyses(id),
    student TEXT NOT NULL,
    list TEXT NOT NULL,
    PRIMARY KEY (analysis_id, student)
);
