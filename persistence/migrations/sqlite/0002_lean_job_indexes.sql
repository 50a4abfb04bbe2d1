-- Every job row is inserted, locked and deleted, and each index on job is
-- written at each step. These three served only management calls and the
-- removal of a scope's jobs, which now finds them through the process
-- instance. Timer start jobs, which have no process instance, keep a small
-- partial index for redeployment.
DROP INDEX job_execution;
DROP INDEX job_job_definition;
DROP INDEX job_process_definition;
CREATE INDEX job_timer_start ON job (process_definition_id) WHERE process_instance_id IS NULL;

-- The job log is append-only and read by job or by process instance, never
-- by its own id: its primary key index was the largest written on the job
-- path. SQLite cannot drop a constraint, so the table is rebuilt.
CREATE TABLE job_log_rebuilt (
    id                  TEXT NOT NULL,
    job_id              TEXT NOT NULL,
    event               TEXT NOT NULL,
    timestamp           INTEGER NOT NULL,
    lock_owner          TEXT,
    retries             INTEGER NOT NULL,
    message             TEXT,
    job_definition_id   TEXT,
    activity_id         TEXT,
    process_instance_id TEXT,
    priority            INTEGER NOT NULL,
    execution_start     INTEGER
) STRICT;
INSERT INTO job_log_rebuilt SELECT * FROM job_log;
DROP TABLE job_log;
ALTER TABLE job_log_rebuilt RENAME TO job_log;
CREATE INDEX job_log_job ON job_log (job_id);
CREATE INDEX job_log_process_instance ON job_log (process_instance_id);
