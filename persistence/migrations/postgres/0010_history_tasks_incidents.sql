-- User tasks: follow-up date and form key beside the due date.
ALTER TABLE task ADD COLUMN follow_up_date timestamptz;
ALTER TABLE task ADD COLUMN form_key text;

-- A definition's camunda:historyTimeToLive in days (NULL: the engine's default).
ALTER TABLE process_definition ADD COLUMN history_time_to_live integer;

-- When a root instance ends, its whole hierarchy gets the time its history
-- may be removed (its end plus the root definition's time to live); the
-- history cleanup job removes what is due.
ALTER TABLE hist_process_instance ADD COLUMN root_process_instance_id text;
ALTER TABLE hist_process_instance ADD COLUMN removal_time timestamptz;
CREATE INDEX hist_process_instance_root ON hist_process_instance (root_process_instance_id);
CREATE INDEX hist_process_instance_removal ON hist_process_instance (removal_time) WHERE removal_time IS NOT NULL;

-- User tasks, open and ended.
CREATE TABLE hist_task (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    name                   text,
    execution_id           text,
    process_instance_id    text NOT NULL,
    process_definition_id  text NOT NULL,
    process_definition_key text,
    task_definition_key    text NOT NULL,
    activity_instance_id   text,
    assignee               text,
    priority               integer NOT NULL,
    due_date               timestamptz,
    follow_up_date         timestamptz,
    start_time             timestamptz NOT NULL,
    end_time               timestamptz,
    delete_reason          text
);
CREATE INDEX hist_task_process_instance ON hist_task (process_instance_id);

-- Incidents, open and ended (resolved or deleted).
CREATE TABLE hist_incident (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    type                   text NOT NULL,
    create_time            timestamptz NOT NULL,
    end_time               timestamptz,
    state                  text NOT NULL,
    message                text,
    execution_id           text,
    activity_id            text,
    failed_activity_id     text,
    process_instance_id    text,
    process_definition_id  text,
    cause_incident_id      text,
    root_cause_incident_id text,
    configuration          text,
    job_definition_id      text
);
CREATE INDEX hist_incident_process_instance ON hist_incident (process_instance_id);
