-- Issue 49 (as SQLite's 0015): a deep linking request in flight (an instructor choosing in bugrank what a new
-- LMS link opens): where the answer goes, the platform's data to give back, until when.
-- Taken (deleted) by the answer: used once.
CREATE TABLE lti_deep_links (
    token_hash TEXT PRIMARY KEY,
    platform_id BIGINT NOT NULL REFERENCES lti_platforms(id),
    deployment_id TEXT NOT NULL,
    course_id BIGINT REFERENCES courses(id),
    return_url TEXT NOT NULL,
    data TEXT,
    expires BIGINT NOT NULL
);
