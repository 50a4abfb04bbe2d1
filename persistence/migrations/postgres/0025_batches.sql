-- Batches (Camunda's ACT_RU_BATCH and ACT_HI_BATCH): a batch runs one
-- operation over many items as jobs (a seed job creating execution jobs,
-- and a monitor job) of three job definitions of its own, which belong
-- to no process definition.
ALTER TABLE job_definition ALTER COLUMN process_definition_id DROP NOT NULL;

CREATE TABLE batch (
    id                        text PRIMARY KEY,
    rev                       integer NOT NULL,
    type                      text NOT NULL,
    total_jobs                integer NOT NULL,
    jobs_created              integer NOT NULL,
    batch_jobs_per_seed       integer NOT NULL,
    invocations_per_batch_job integer NOT NULL,
    seed_job_definition_id    text,
    monitor_job_definition_id text,
    batch_job_definition_id   text,
    suspension                integer NOT NULL,
    configuration             text,
    tenant_id                 text,
    create_user_id            text,
    start_time                timestamptz NOT NULL,
    execution_start_time      timestamptz
);

CREATE TABLE hist_batch (
    id                        text PRIMARY KEY,
    rev                       integer NOT NULL,
    type                      text NOT NULL,
    total_jobs                integer NOT NULL,
    batch_jobs_per_seed       integer NOT NULL,
    invocations_per_batch_job integer NOT NULL,
    seed_job_definition_id    text,
    monitor_job_definition_id text,
    batch_job_definition_id   text,
    tenant_id                 text,
    create_user_id            text,
    start_time                timestamptz NOT NULL,
    end_time                  timestamptz,
    removal_time              timestamptz,
    execution_start_time      timestamptz
);

-- A batch's progress counts its jobs by job definition. Jobs of no
-- process definition are few (batch jobs and the history cleanup), so
-- this partial index costs the jobs of processes nothing.
CREATE INDEX job_detached ON job (job_definition_id) WHERE process_definition_id IS NULL;
