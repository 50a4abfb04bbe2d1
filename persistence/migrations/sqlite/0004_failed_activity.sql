-- The activity where a job's failure happened: a job can run several
-- activities in its transaction, and its incident names the one that failed.
ALTER TABLE job ADD COLUMN failed_activity_id TEXT;
ALTER TABLE incident ADD COLUMN failed_activity_id TEXT;
