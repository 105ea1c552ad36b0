-- A student id means one student of one course. Every batch belongs to a course,
-- and a student's private link to one course's released batches only: `a01` of two
-- courses are two students with two links. Batches and links from before courses
-- existed are kept together in one course, so every issued link still shows the same.
CREATE TABLE courses (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created INTEGER NOT NULL
);
INSERT INTO courses (id, name, created)
    SELECT 1, 'Course', CAST(strftime('%s', 'now') AS INTEGER)
    WHERE EXISTS (SELECT 1 FROM batches) OR EXISTS (SELECT 1 FROM students);
ALTER TABLE batches ADD COLUMN course_id INTEGER REFERENCES courses(id);
UPDATE batches SET course_id = 1;
CREATE TABLE course_students (
    course_id INTEGER NOT NULL REFERENCES courses(id),
    student TEXT NOT NULL,
    token TEXT UNIQUE,
    issued INTEGER,
    PRIMARY KEY (course_id, student)
);
INSERT INTO course_students (course_id, student, token, issued) SELECT 1, id, token, issued FROM students;
DROP TABLE students;
