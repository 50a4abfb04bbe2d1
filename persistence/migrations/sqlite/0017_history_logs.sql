-- The job log as Camunda's history shows it: each entry carries the job's
-- execution, definition, deployment, due date, the activity where it
-- failed and, on a failure entry, the stack trace.
ALTER TABLE job_log ADD COLUMN execution_id TEXT;
ALTER TABLE job_log ADD COLUMN process_definition_id TEXT;
ALTER TABLE job_log ADD COLUMN process_definition_key TEXT;
ALTER TABLE job_log ADD COLUMN deployment_id TEXT;
ALTER TABLE job_log ADD COLUMN root_process_instance_id TEXT;
ALTER TABLE job_log ADD COLUMN job_due_date INTEGER;
ALTER TABLE job_log ADD COLUMN failed_activity_id TEXT;
ALTER TABLE job_log ADD COLUMN exception_stack TEXT;
ALTER TABLE job_log ADD COLUMN job_definition_type TEXT;
ALTER TABLE job_log ADD COLUMN job_definition_configuration TEXT;

-- The external task log: an entry when an external task is created, fails,
-- succeeds or is deleted, as Camunda's ACT_HI_EXT_TASK_LOG.
CREATE TABLE external_task_log (
    id                     TEXT PRIMARY KEY,
    external_task_id       TEXT NOT NULL,
    event                  TEXT NOT NULL,
    timestamp              INTEGER NOT NULL,
    topic                  TEXT,
    worker_id              TEXT,
    priority               INTEGER NOT NULL,
    retries                INTEGER,
    error_message          TEXT,
    error_details          TEXT,
    activity_id            TEXT,
    activity_instance_id   TEXT,
    execution_id           TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    process_definition_key TEXT
) STRICT;
CREATE INDEX external_task_log_task ON external_task_log (external_task_id);
CREATE INDEX external_task_log_process_instance ON external_task_log (process_instance_id);

-- The values variables were given (Camunda's historic variable updates).
CREATE TABLE hist_detail (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    name                   TEXT NOT NULL,
    type                   TEXT NOT NULL,
    execution_id           TEXT,
    process_instance_id    TEXT,
    task_id                TEXT,
    text_value             TEXT,
    long_value             INTEGER NOT NULL,
    double_value           REAL NOT NULL,
    time_value             INTEGER NOT NULL,
    bytes_value            BLOB,
    variable_instance_id   TEXT,
    process_definition_id  TEXT,
    process_definition_key TEXT,
    activity_instance_id   TEXT,
    time                   INTEGER NOT NULL,
    revision               INTEGER NOT NULL,
    initial                INTEGER NOT NULL
) STRICT;
CREATE INDEX hist_detail_process_instance ON hist_detail (process_instance_id);

-- A historic task's candidates as it was created, for the history's
-- candidate filters.
ALTER TABLE hist_task ADD COLUMN candidate_groups TEXT;
ALTER TABLE hist_task ADD COLUMN candidate_users TEXT;

-- A historic process instance's definition name and version, as Camunda's
-- history shows and sorts them; instances before this migration take
-- their definition's, while it is deployed.
ALTER TABLE hist_process_instance ADD COLUMN process_definition_name TEXT;
ALTER TABLE hist_process_instance ADD COLUMN process_definition_version INTEGER NOT NULL DEFAULT 0;
UPDATE hist_process_instance SET
    process_definition_name = (SELECT name FROM process_definition WHERE process_definition.id = hist_process_instance.process_definition_id),
    process_definition_version = COALESCE((SELECT version FROM process_definition WHERE process_definition.id = hist_process_instance.process_definition_id), 0);

-- A failed job's incident names the job log entry of the failure that
-- raised it (Camunda's history configuration).
ALTER TABLE hist_incident ADD COLUMN history_configuration TEXT;
