-- The engine's schema, version 1, for SQLite: the PostgreSQL schema with
-- SQLite's types in STRICT tables. Times are INTEGER microseconds since the
-- Unix epoch (UTC), booleans INTEGER 0/1. Columns follow the entity fields in
-- persistence/tables.go (same names on both backends). There are no foreign
-- keys: the engine owns referential integrity and flushes in dependency
-- order, and rows of one table (executions, incidents) may reference each
-- other in any order within a flush.

CREATE TABLE deployment (
    id          TEXT PRIMARY KEY,
    name        TEXT,
    source      TEXT,
    deploy_time INTEGER NOT NULL
) STRICT;

CREATE TABLE resource (
    id            TEXT PRIMARY KEY,
    deployment_id TEXT NOT NULL,
    name          TEXT NOT NULL,
    bytes         BLOB,
    hash          TEXT
) STRICT;
CREATE INDEX resource_deployment ON resource (deployment_id);

CREATE TABLE process_definition (
    id             TEXT PRIMARY KEY,
    rev            INTEGER NOT NULL,
    key            TEXT NOT NULL,
    version        INTEGER NOT NULL,
    name           TEXT,
    deployment_id  TEXT NOT NULL,
    resource_name  TEXT,
    suspension     INTEGER NOT NULL,
    has_start_form INTEGER NOT NULL,
    version_tag    TEXT,
    UNIQUE (key, version)
) STRICT;
-- The unique index serves lookups by key (and latest version by key).
CREATE INDEX process_definition_deployment ON process_definition (deployment_id);

CREATE TABLE job_definition (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    process_definition_id  TEXT NOT NULL,
    process_definition_key TEXT,
    activity_id            TEXT,
    job_type               TEXT NOT NULL,
    job_configuration      TEXT,
    overriding_priority    INTEGER,
    suspension             INTEGER NOT NULL
) STRICT;
CREATE INDEX job_definition_process_definition ON job_definition (process_definition_id);

CREATE TABLE execution (
    id                    TEXT PRIMARY KEY,
    rev                   INTEGER NOT NULL,
    process_instance_id   TEXT NOT NULL,
    parent_id             TEXT,
    process_definition_id TEXT NOT NULL,
    activity_id           TEXT,
    activity_instance_id  TEXT,
    business_key          TEXT,
    super_execution_id    TEXT,
    is_active             INTEGER NOT NULL,
    is_scope              INTEGER NOT NULL,
    is_concurrent         INTEGER NOT NULL,
    is_event_scope        INTEGER NOT NULL,
    suspension            INTEGER NOT NULL,
    transition_id         TEXT,
    start_time            INTEGER NOT NULL
) STRICT;
CREATE INDEX execution_process_instance ON execution (process_instance_id);
CREATE INDEX execution_parent ON execution (parent_id);
CREATE INDEX execution_super_execution ON execution (super_execution_id);
CREATE INDEX execution_process_definition ON execution (process_definition_id);
CREATE INDEX execution_business_key ON execution (business_key);

CREATE TABLE variable (
    id                  TEXT PRIMARY KEY,
    rev                 INTEGER NOT NULL,
    name                TEXT NOT NULL,
    type                TEXT NOT NULL,
    execution_id        TEXT,
    process_instance_id TEXT,
    task_id             TEXT,
    text_value          TEXT,
    long_value          INTEGER NOT NULL,
    double_value        REAL NOT NULL,
    time_value          INTEGER NOT NULL,
    bytes_value         BLOB
) STRICT;
CREATE INDEX variable_execution ON variable (execution_id);
CREATE INDEX variable_process_instance ON variable (process_instance_id);
CREATE INDEX variable_task ON variable (task_id);

CREATE TABLE task (
    id                    TEXT PRIMARY KEY,
    rev                   INTEGER NOT NULL,
    name                  TEXT,
    execution_id          TEXT,
    process_instance_id   TEXT,
    process_definition_id TEXT,
    task_definition_key   TEXT,
    assignee              TEXT,
    candidate_groups      TEXT,
    candidate_users       TEXT,
    priority              INTEGER NOT NULL,
    create_time           INTEGER NOT NULL,
    due_date              INTEGER,
    suspension            INTEGER NOT NULL
) STRICT;
CREATE INDEX task_process_instance ON task (process_instance_id);
CREATE INDEX task_execution ON task (execution_id);

CREATE TABLE event_subscription (
    id                    TEXT PRIMARY KEY,
    rev                   INTEGER NOT NULL,
    event_type            TEXT NOT NULL,
    event_name            TEXT,
    execution_id          TEXT,
    process_instance_id   TEXT,
    activity_id           TEXT,
    process_definition_id TEXT,
    configuration         TEXT,
    created               INTEGER NOT NULL
) STRICT;
CREATE INDEX event_subscription_event ON event_subscription (event_type, event_name);
CREATE INDEX event_subscription_execution ON event_subscription (execution_id);
CREATE INDEX event_subscription_process_definition ON event_subscription (process_definition_id);

CREATE TABLE external_task (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    topic                  TEXT NOT NULL,
    worker_id              TEXT,
    lock_expiration        INTEGER,
    retries                INTEGER,
    error_message          TEXT,
    error_details          TEXT,
    execution_id           TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    process_definition_key TEXT,
    activity_id            TEXT,
    activity_instance_id   TEXT,
    priority               INTEGER NOT NULL,
    suspension             INTEGER NOT NULL,
    business_key           TEXT,
    create_time            INTEGER NOT NULL
) STRICT;
CREATE INDEX external_task_process_instance ON external_task (process_instance_id);
CREATE INDEX external_task_execution ON external_task (execution_id);
-- Fetch-and-lock looks for unlocked or expired tasks of a topic.
CREATE INDEX external_task_topic ON external_task (topic, lock_expiration);

CREATE TABLE job (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    type                   TEXT NOT NULL,
    lock_owner             TEXT,
    lock_expiration        INTEGER,
    exclusive              INTEGER NOT NULL,
    execution_id           TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    process_definition_key TEXT,
    job_definition_id      TEXT,
    deployment_id          TEXT,
    activity_id            TEXT,
    retries                INTEGER NOT NULL,
    exception_message      TEXT,
    exception_stack        TEXT,
    due_date               INTEGER,
    repeat                 TEXT,
    handler_type           TEXT NOT NULL,
    handler_config         TEXT,
    priority               INTEGER NOT NULL,
    suspension             INTEGER NOT NULL,
    create_time            INTEGER NOT NULL,
    failed_attempts        INTEGER NOT NULL
) STRICT;
CREATE INDEX job_process_instance ON job (process_instance_id);
CREATE INDEX job_execution ON job (execution_id);
CREATE INDEX job_job_definition ON job (job_definition_id);
CREATE INDEX job_process_definition ON job (process_definition_id);

-- Job acquisition (AcquireJobs). A job is acquirable when it has retries
-- left, is active, is due (a NULL due date means at once) and is not locked
-- or its lock has expired. The three acquisition indexes are partial: they
-- hold only unlocked jobs with retries left that are active, so they stay
-- small however many jobs are locked, failed for good or suspended, and an
-- ordered index scan stops after LIMIT rows. They key on
-- COALESCE(due_date, -9223372036854775808), the expression AcquireJobs uses,
-- so that "due" is one range condition that counts NULL as due at once (the
-- smallest integer). SQLite uses a partial or expression index only when the
-- query repeats its terms verbatim: keep them in step with acquire.go. One
-- index per acquisition ordering:
--   job_acquire_due       no ordering, or by due date;
--   job_acquire_priority  by priority (highest first), then due date;
--   job_acquire_timer     timers first ('timer' > 'message'), then due date.
-- Jobs whose lock expired are found through job_lock_expiration, which holds
-- only locked jobs: few, bounded by the executors' queues.
CREATE INDEX job_acquire_due ON job ((COALESCE(due_date, -9223372036854775808)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_acquire_priority ON job (priority DESC, (COALESCE(due_date, -9223372036854775808)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_acquire_timer ON job (type DESC, (COALESCE(due_date, -9223372036854775808)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_lock_expiration ON job (lock_expiration) WHERE lock_owner IS NOT NULL;

CREATE TABLE incident (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    type                   TEXT NOT NULL,
    timestamp              INTEGER NOT NULL,
    message                TEXT,
    execution_id           TEXT,
    activity_id            TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    cause_incident_id      TEXT,
    root_cause_incident_id TEXT,
    configuration          TEXT,
    job_definition_id      TEXT
) STRICT;
CREATE INDEX incident_process_instance ON incident (process_instance_id);
CREATE INDEX incident_configuration ON incident (configuration);

CREATE TABLE hist_process_instance (
    id                        TEXT PRIMARY KEY,
    rev                       INTEGER NOT NULL,
    process_definition_id     TEXT NOT NULL,
    process_definition_key    TEXT,
    business_key              TEXT,
    start_time                INTEGER NOT NULL,
    end_time                  INTEGER,
    state                     TEXT NOT NULL,
    start_activity_id         TEXT,
    end_activity_id           TEXT,
    delete_reason             TEXT,
    super_process_instance_id TEXT
) STRICT;
CREATE INDEX hist_process_instance_definition ON hist_process_instance (process_definition_id);

CREATE TABLE hist_activity_instance (
    id                          TEXT PRIMARY KEY,
    rev                         INTEGER NOT NULL,
    process_instance_id         TEXT NOT NULL,
    process_definition_id       TEXT,
    execution_id                TEXT,
    activity_id                 TEXT NOT NULL,
    activity_name               TEXT,
    activity_type               TEXT,
    parent_activity_instance_id TEXT,
    start_time                  INTEGER NOT NULL,
    end_time                    INTEGER,
    canceled                    INTEGER NOT NULL,
    called_process_instance_id  TEXT,
    task_id                     TEXT
) STRICT;
CREATE INDEX hist_activity_instance_process_instance ON hist_activity_instance (process_instance_id);

CREATE TABLE job_log (
    id                  TEXT PRIMARY KEY,
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
CREATE INDEX job_log_job ON job_log (job_id);
CREATE INDEX job_log_process_instance ON job_log (process_instance_id);
