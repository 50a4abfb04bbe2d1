-- Batches (Camunda's ACT_RU_BATCH and ACT_HI_BATCH): a batch runs one
-- operation over many items as jobs (a seed job creating execution jobs,
-- and a monitor job) of three job definitions of its own, which belong
-- to no process definition. SQLite cannot drop a NOT NULL, so the job
-- definition table is rebuilt.
CREATE TABLE job_definition_rebuilt (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    process_definition_id  TEXT,
    process_definition_key TEXT,
    activity_id            TEXT,
    job_type               TEXT NOT NULL,
    job_configuration      TEXT,
    overriding_priority    INTEGER,
    suspension             INTEGER NOT NULL,
    handler_type           TEXT,
    deployment_id          TEXT
) STRICT;
INSERT INTO job_definition_rebuilt (id, rev, process_definition_id, process_definition_key, activity_id, job_type,
    job_configuration, overriding_priority, suspension, handler_type, deployment_id)
  SELECT id, rev, process_definition_id, process_definition_key, activity_id, job_type,
    job_configuration, overriding_priority, suspension, handler_type, deployment_id FROM job_definition;
DROP TABLE job_definition;
ALTER TABLE job_definition_rebuilt RENAME TO job_definition;
CREATE INDEX job_definition_process_definition ON job_definition (process_definition_id);

CREATE TABLE batch (
    id                        TEXT PRIMARY KEY,
    rev                       INTEGER NOT NULL,
    type                      TEXT NOT NULL,
    total_jobs                INTEGER NOT NULL,
    jobs_created              INTEGER NOT NULL,
    batch_jobs_per_seed       INTEGER NOT NULL,
    invocations_per_batch_job INTEGER NOT NULL,
    seed_job_definition_id    TEXT,
    monitor_job_definition_id TEXT,
    batch_job_definition_id   TEXT,
    suspension                INTEGER NOT NULL,
    configuration             TEXT,
    tenant_id                 TEXT,
    create_user_id            TEXT,
    start_time                INTEGER NOT NULL,
    execution_start_time      INTEGER
) STRICT;

CREATE TABLE hist_batch (
    id                        TEXT PRIMARY KEY,
    rev                       INTEGER NOT NULL,
    type                      TEXT NOT NULL,
    total_jobs                INTEGER NOT NULL,
    batch_jobs_per_seed       INTEGER NOT NULL,
    invocations_per_batch_job INTEGER NOT NULL,
    seed_job_definition_id    TEXT,
    monitor_job_definition_id TEXT,
    batch_job_definition_id   TEXT,
    tenant_id                 TEXT,
    create_user_id            TEXT,
    start_time                INTEGER NOT NULL,
    end_time                  INTEGER,
    removal_time              INTEGER,
    execution_start_time      INTEGER
) STRICT;

-- A batch's progress counts its jobs by job definition. Jobs of no
-- process definition are few (batch jobs and the history cleanup), so
-- this partial index costs the jobs of processes nothing.
CREATE INDEX job_detached ON job (job_definition_id) WHERE process_definition_id IS NULL;
