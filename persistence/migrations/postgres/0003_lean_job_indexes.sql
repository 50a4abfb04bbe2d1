-- Every job row is inserted, then locked by an update that changes indexed
-- columns (so it adds an entry to every index of the table), then deleted:
-- each index on job costs two insertions per job. These three served only
-- management calls and the removal of a scope's jobs, which now finds them
-- through the process instance. Timer start jobs, which have no process
-- instance, keep a small partial index for redeployment.
DROP INDEX job_execution;
DROP INDEX job_job_definition;
DROP INDEX job_process_definition;
CREATE INDEX job_timer_start ON job (process_definition_id) WHERE process_instance_id IS NULL;

-- The job log is append-only and read by job or by process instance, never
-- by its own id: three entries per job made its primary key the largest
-- index written on the job path.
ALTER TABLE job_log DROP CONSTRAINT job_log_pkey;
