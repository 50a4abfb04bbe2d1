-- The engine's schema, version 1. Columns follow the entity fields in
-- persistence/tables.go (same names on both backends). There are no foreign
-- keys: the engine owns referential integrity and flushes in dependency
-- order, and rows of one table (executions, incidents) may reference each
-- other in any order within a flush.

CREATE TABLE deployment (
    id          text PRIMARY KEY,
    name        text,
    source      text,
    deploy_time timestamptz NOT NULL
);

CREATE TABLE resource (
    id            text PRIMARY KEY,
    deployment_id text NOT NULL,
    name          text NOT NULL,
    bytes         bytea,
    hash          text
);
CREATE INDEX resource_deployment ON resource (deployment_id);

CREATE TABLE process_definition (
    id             text PRIMARY KEY,
    rev            integer NOT NULL,
    key            text NOT NULL,
    version        integer NOT NULL,
    name           text,
    deployment_id  text NOT NULL,
    resource_name  text,
    suspension     integer NOT NULL,
    has_start_form boolean NOT NULL,
    version_tag    text,
    UNIQUE (key, version)
);
-- The unique index serves lookups by key (and latest version by key).
CREATE INDEX process_definition_deployment ON process_definition (deployment_id);

CREATE TABLE job_definition (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    process_definition_id  text NOT NULL,
    process_definition_key text,
    activity_id            text,
    job_type               text NOT NULL,
    job_configuration      text,
    overriding_priority    bigint,
    suspension             integer NOT NULL
);
CREATE INDEX job_definition_process_definition ON job_definition (process_definition_id);

CREATE TABLE execution (
    id                    text PRIMARY KEY,
    rev                   integer NOT NULL,
    process_instance_id   text NOT NULL,
    parent_id             text,
    process_definition_id text NOT NULL,
    activity_id           text,
    activity_instance_id  text,
    business_key          text,
    super_execution_id    text,
    is_active             boolean NOT NULL,
    is_scope              boolean NOT NULL,
    is_concurrent         boolean NOT NULL,
    is_event_scope        boolean NOT NULL,
    suspension            integer NOT NULL,
    transition_id         text,
    start_time            timestamptz NOT NULL
);
CREATE INDEX execution_process_instance ON execution (process_instance_id);
CREATE INDEX execution_parent ON execution (parent_id);
CREATE INDEX execution_super_execution ON execution (super_execution_id);
CREATE INDEX execution_process_definition ON execution (process_definition_id);
CREATE INDEX execution_business_key ON execution (business_key);

CREATE TABLE variable (
    id                  text PRIMARY KEY,
    rev                 integer NOT NULL,
    name                text NOT NULL,
    type                text NOT NULL,
    execution_id        text,
    process_instance_id text,
    task_id             text,
    text_value          text,
    long_value          bigint NOT NULL,
    double_value        double precision NOT NULL,
    time_value          timestamptz NOT NULL,
    bytes_value         bytea
);
CREATE INDEX variable_execution ON variable (execution_id);
CREATE INDEX variable_process_instance ON variable (process_instance_id);
CREATE INDEX variable_task ON variable (task_id);

CREATE TABLE task (
    id                    text PRIMARY KEY,
    rev                   integer NOT NULL,
    name                  text,
    execution_id          text,
    process_instance_id   text,
    process_definition_id text,
    task_definition_key   text,
    assignee              text,
    candidate_groups      text,
    candidate_users       text,
    priority              integer NOT NULL,
    create_time           timestamptz NOT NULL,
    due_date              timestamptz,
    suspension            integer NOT NULL
);
CREATE INDEX task_process_instance ON task (process_instance_id);
CREATE INDEX task_execution ON task (execution_id);

CREATE TABLE event_subscription (
    id                    text PRIMARY KEY,
    rev                   integer NOT NULL,
    event_type            text NOT NULL,
    event_name            text,
    execution_id          text,
    process_instance_id   text,
    activity_id           text,
    process_definition_id text,
    configuration         text,
    created               timestamptz NOT NULL
);
CREATE INDEX event_subscription_event ON event_subscription (event_type, event_name);
CREATE INDEX event_subscription_execution ON event_subscription (execution_id);
CREATE INDEX event_subscription_process_definition ON event_subscription (process_definition_id);

CREATE TABLE external_task (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    topic                  text NOT NULL,
    worker_id              text,
    lock_expiration        timestamptz,
    retries                integer,
    error_message          text,
    error_details          text,
    execution_id           text,
    process_instance_id    text,
    process_definition_id  text,
    process_definition_key text,
    activity_id            text,
    activity_instance_id   text,
    priority               bigint NOT NULL,
    suspension             integer NOT NULL,
    business_key           text,
    create_time            timestamptz NOT NULL
);
CREATE INDEX external_task_process_instance ON external_task (process_instance_id);
CREATE INDEX external_task_execution ON external_task (execution_id);
-- Fetch-and-lock looks for unlocked or expired tasks of a topic.
CREATE INDEX external_task_topic ON external_task (topic, lock_expiration);

CREATE TABLE job (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    type                   text NOT NULL,
    lock_owner             text,
    lock_expiration        timestamptz,
    exclusive              boolean NOT NULL,
    execution_id           text,
    process_instance_id    text,
    process_definition_id  text,
    process_definition_key text,
    job_definition_id      text,
    deployment_id          text,
    activity_id            text,
    retries                integer NOT NULL,
    exception_message      text,
    exception_stack        text,
    due_date               timestamptz,
    repeat                 text,
    handler_type           text NOT NULL,
    handler_config         text,
    priority               bigint NOT NULL,
    suspension             integer NOT NULL,
    create_time            timestamptz NOT NULL,
    failed_attempts        integer NOT NULL
);
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
-- COALESCE(due_date, '-infinity'), the expression AcquireJobs uses, so that
-- "due" is one range condition that counts NULL as due at once. One index
-- per acquisition ordering:
--   job_acquire_due       no ordering, or by due date;
--   job_acquire_priority  by priority (highest first), then due date;
--   job_acquire_timer     timers first ('timer' > 'message'), then due date.
-- Jobs whose lock expired are found through job_lock_expiration, which holds
-- only locked jobs: few, bounded by the executors' queues.
CREATE INDEX job_acquire_due ON job ((COALESCE(due_date, '-infinity'::timestamptz)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_acquire_priority ON job (priority DESC, (COALESCE(due_date, '-infinity'::timestamptz)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_acquire_timer ON job (type DESC, (COALESCE(due_date, '-infinity'::timestamptz)))
    WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1;
CREATE INDEX job_lock_expiration ON job (lock_expiration) WHERE lock_owner IS NOT NULL;

CREATE TABLE incident (
    id                     text PRIMARY KEY,
    rev                    integer NOT NULL,
    type                   text NOT NULL,
    timestamp              timestamptz NOT NULL,
    message                text,
    execution_id           text,
    activity_id            text,
    process_instance_id    text,
    process_definition_id  text,
    cause_incident_id      text,
    root_cause_incident_id text,
    configuration          text,
    job_definition_id      text
);
CREATE INDEX incident_process_instance ON incident (process_instance_id);
CREATE INDEX incident_configuration ON incident (configuration);

CREATE TABLE hist_process_instance (
    id                        text PRIMARY KEY,
    rev                       integer NOT NULL,
    process_definition_id     text NOT NULL,
    process_definition_key    text,
    business_key              text,
    start_time                timestamptz NOT NULL,
    end_time                  timestamptz,
    state                     text NOT NULL,
    start_activity_id         text,
    end_activity_id           text,
    delete_reason             text,
    super_process_instance_id text
);
CREATE INDEX hist_process_instance_definition ON hist_process_instance (process_definition_id);

CREATE TABLE hist_activity_instance (
    id                          text PRIMARY KEY,
    rev                         integer NOT NULL,
    process_instance_id         text NOT NULL,
    process_definition_id       text,
    execution_id                text,
    activity_id                 text NOT NULL,
    activity_name               text,
    activity_type               text,
    parent_activity_instance_id text,
    start_time                  timestamptz NOT NULL,
    end_time                    timestamptz,
    canceled                    boolean NOT NULL,
    called_process_instance_id  text,
    task_id                     text
);
CREATE INDEX hist_activity_instance_process_instance ON hist_activity_instance (process_instance_id);

CREATE TABLE job_log (
    id                  text PRIMARY KEY,
    job_id              text NOT NULL,
    event               text NOT NULL,
    timestamp           timestamptz NOT NULL,
    lock_owner          text,
    retries             integer NOT NULL,
    message             text,
    job_definition_id   text,
    activity_id         text,
    process_instance_id text,
    priority            bigint NOT NULL,
    execution_start     timestamptz
);
CREATE INDEX job_log_job ON job_log (job_id);
CREATE INDEX job_log_process_instance ON job_log (process_instance_id);
