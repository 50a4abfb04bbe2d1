-- The job log is found by process instance through each job's creation
-- entry, and the job's other entries through job_log_job. Indexing every
-- entry by process instance wrote three entries per job onto random pages
-- (instances interleave); this index takes one, and dropping the other two
-- raised the job executor's throughput on SQLite by about 15 %.
DROP INDEX job_log_process_instance;
CREATE INDEX job_log_created_process_instance ON job_log (process_instance_id) WHERE event = 'created';
