-- Issue 47 (as SQLite's 0011): the roster's students are the course's students, handed in
-- or not: each gets a private link, a row in links.csv and a letter (saying nothing was
-- received). Before, only students with a submission had a row here. (`reference` is the model answer's id, nobody's.)
INSERT INTO course_students (course_id, student)
    SELECT DISTINCT b.course_id, r.student FROM roster r JOIN batches b ON b.id = r.batch_id WHERE r.student <> 'reference'
    ON CONFLICT DO NOTHING;
