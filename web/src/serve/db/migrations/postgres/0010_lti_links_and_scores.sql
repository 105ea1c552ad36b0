-- Issue 49 (as SQLite's 0014): an LMS's links to bugrank (a resource link: an assignment or a page of the LMS
-- that launches it), recorded at each launch with the services the platform offers there
-- (Assignment and Grade Services' line items, Names and Role Provisioning's memberships),
-- and the batch an instructor bound it to: the batch whose released points go to the
-- link's line item. `sync_error`: why the last sending of grades failed, if it did.
CREATE TABLE lti_links (
    platform_id BIGINT NOT NULL REFERENCES lti_platforms(id),
    link_id TEXT NOT NULL,
    course_id BIGINT NOT NULL REFERENCES courses(id),
    title TEXT NOT NULL,
    batch_id BIGINT,
    lineitems_url TEXT,
    lineitem_url TEXT,
    memberships_url TEXT,
    sync_error TEXT,
    PRIMARY KEY (platform_id, link_id)
);
-- The grade last posted to a link's line item for a student (NULL: none), so that only
-- changed grades are posted again.
CREATE TABLE lti_scores (
    platform_id BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    sub TEXT NOT NULL,
    points DOUBLE PRECISION,
    posted BIGINT NOT NULL,
    PRIMARY KEY (platform_id, link_id, sub)
);
