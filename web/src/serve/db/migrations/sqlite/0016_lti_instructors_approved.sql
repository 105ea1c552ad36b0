-- Issue 49: a person a platform launches as an instructor waits for a bugrank instructor's
-- approval (their account is made then): an instructor's role in any course of an LMS is
-- not enough to see every course of bugrank. `wants_instructor`: they asked.
ALTER TABLE lti_people ADD COLUMN wants_instructor BOOLEAN NOT NULL DEFAULT FALSE;
