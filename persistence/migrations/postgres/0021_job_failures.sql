-- How many runs of a job failed: a job's spans name the attempt they are.
ALTER TABLE job ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
