-- Issue 49: bugrank as an LTI 1.3 tool. The tool's RSA keys (PKCS#1 DER): the newest signs
-- what bugrank sends a platform, and every one is published at /lti/jwks.
CREATE TABLE lti_keys (
    kid TEXT PRIMARY KEY,
    private_der BLOB NOT NULL,
    created INTEGER NOT NULL
);
-- The platforms (LMSs) instructors registered; a launch from any other is refused.
-- `deployment_ids`: the deployments accepted, one per line.
CREATE TABLE lti_platforms (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    auth_url TEXT NOT NULL,
    token_url TEXT NOT NULL,
    jwks_url TEXT NOT NULL,
    deployment_ids TEXT NOT NULL,
    created INTEGER NOT NULL,
    UNIQUE (issuer, client_id)
);
-- A login in flight (OIDC's third-party initiated login): the state's hash, the nonce the
-- platform's id_token must carry, until when. Taken (deleted) by the launch: used once.
CREATE TABLE lti_states (
    state_hash TEXT PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    nonce TEXT NOT NULL,
    expires INTEGER NOT NULL
);
-- An LMS's course (its context) and the bugrank course it is.
CREATE TABLE lti_contexts (
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    context_id TEXT NOT NULL,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    PRIMARY KEY (platform_id, context_id)
);
-- The people a platform launched, by their id there (`sub`): the instructor account of
-- one who came as an instructor, and the student each is in a course they came to learn in.
CREATE TABLE lti_people (
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    sub TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    instructor_id INTEGER REFERENCES instructors(id),
    PRIMARY KEY (platform_id, sub)
);
CREATE TABLE lti_students (
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    sub TEXT NOT NULL,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    student TEXT NOT NULL,
    PRIMARY KEY (platform_id, sub, course_id),
    UNIQUE (course_id, student)
);
