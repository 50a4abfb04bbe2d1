-- User tasks: follow-up date and form key beside the due date.
ALTER TABLE task ADD COLUMN follow_up_date INTEGER;
ALTER TABLE task ADD COLUMN form_key TEXT;

-- A definition's camunda:historyTimeToLive in days (NULL: the engine's default).
ALTER TABLE process_definition ADD COLUMN history_time_to_live INTEGER;

-- When a root instance ends, its whole hierarchy gets the time its history
-- may be removed (its end plus the root definition's time to live); the
-- history cleanup job removes what is due.
ALTER TABLE hist_process_instance ADD COLUMN root_process_instance_id TEXT;
ALTER TABLE hist_process_instance ADD COLUMN removal_time INTEGER;
CREATE INDEX hist_process_instance_root ON hist_process_instance (root_process_instance_id);
CREATE INDEX hist_process_instance_removal ON hist_process_instance (removal_time) WHERE removal_time IS NOT NULL;

-- User tasks, open and ended.
CREATE TABLE hist_task (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    name                   TEXT,
    execution_id           TEXT,
    process_instance_id    TEXT NOT NULL,
    process_definition_id  TEXT NOT NULL,
    process_definition_key TEXT,
    task_definition_key    TEXT NOT NULL,
    activity_instance_id   TEXT,
    assignee               TEXT,
    priority               INTEGER NOT NULL,
    due_date               INTEGER,
    follow_up_date         INTEGER,
    start_time             INTEGER NOT NULL,
    end_time               INTEGER,
    delete_reason          TEXT
) STRICT;
CREATE INDEX hist_task_process_instance ON hist_task (process_instance_id);

-- Incidents, open and ended (resolved or deleted).
CREATE TABLE hist_incident (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    type                   TEXT NOT NULL,
    create_time            INTEGER NOT NULL,
    end_time               INTEGER,
    state                  TEXT NOT NULL,
    message                TEXT,
    execution_id           TEXT,
    activity_id            TEXT,
    failed_activity_id     TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    cause_incident_id      TEXT,
    root_cause_incident_id TEXT,
    configuration          TEXT,
    job_definition_id      TEXT
) STRICT;
CREATE INDEX hist_incident_process_instance ON hist_incident (process_instance_id);
