-- The job log as Camunda's history shows it: each entry carries the job's
-- execution, definition, deployment, due date, the activity where it
-- failed and, on a failure entry, the stack trace.
ALTER TABLE job_log ADD COLUMN execution_id text;
ALTER TABLE job_log ADD COLUMN process_definition_id text;
ALTER TABLE job_log ADD COLUMN process_definition_key text;
ALTER TABLE job_log ADD COLUMN deployment_id text;
ALTER TABLE job_log ADD COLUMN root_process_instance_id text;
ALTER TABLE job_log ADD COLUMN job_due_date timestamptz;
ALTER TABLE job_log ADD COLUMN failed_activity_id text;
ALTER TABLE job_log ADD COLUMN exception_stack text;
ALTER TABLE job_log ADD COLUMN job_definition_type text;
ALTER TABLE job_log ADD COLUMN job_definition_configuration text;

-- The external task log: an entry when an external task is created, fails,
-- succeeds or is deleted, as Camunda's ACT_HI_EXT_TASK_LOG.
CREATE TABLE external_task_log (
    id                     text PRIMARY KEY,
    external_task_id       text NOT NULL,
    event                  text NOT NULL,
    timestamp              timestamptz NOT NULL,
    topic                  text,
    worker_id              text,
    priority               bigint NOT NULL,
    retries                integer,
    error_message          text,
    error_details          text,
    activity_id            text,
    activity_instance_id   text,
    execution_id           text,
    process_instance_id    text,
    process_definition_id  text,
    process_definition_key text
);
CREATE INDEX external_task_log_task ON external_task_log (external_task_id);
CREATE INDEX external_task_log_process_instance ON external_task_log (process_instance_id);

-- The values variables were given (Camunda's historic variable updates).
CREATE TABLE hist_detail (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    name                   text NOT NULL,
    type                   text NOT NULL,
    execution_id           text,
    process_instance_id    text,
    task_id                text,
    text_value             text,
    long_value             bigint NOT NULL,
    double_value           double precision NOT NULL,
    time_value             timestamptz NOT NULL,
    bytes_value            bytea,
    variable_instance_id   text,
    process_definition_id  text,
    process_definition_key text,
    activity_instance_id   text,
    time                   timestamptz NOT NULL,
    revision               integer NOT NULL,
    initial                boolean NOT NULL
);
CREATE INDEX hist_detail_process_instance ON hist_detail (process_instance_id);

-- A historic task's candidates as it was created, for the history's
-- candidate filters.
ALTER TABLE hist_task ADD COLUMN candidate_groups text;
ALTER TABLE hist_task ADD COLUMN candidate_users text;

-- A historic process instance's definition name and version, as Camunda's
-- history shows and sorts them; instances before this migration take
-- their definition's, while it is deployed.
ALTER TABLE hist_process_instance ADD COLUMN process_definition_name text;
ALTER TABLE hist_process_instance ADD COLUMN process_definition_version integer NOT NULL DEFAULT 0;
UPDATE hist_process_instance SET
    process_definition_name = (SELECT name FROM process_definition WHERE process_definition.id = hist_process_instance.process_definition_id),
    process_definition_version = COALESCE((SELECT version FROM process_definition WHERE process_definition.id = hist_process_instance.process_definition_id), 0);

-- A failed job's incident names the job log entry of the failure that
-- raised it (Camunda's history configuration).
ALTER TABLE hist_incident ADD COLUMN history_configuration text;
