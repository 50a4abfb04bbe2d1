-- Each running job executor reports what it serves and how busy it is, so
-- that a job's diagnosis (bpmnlite jobs explain) can say whether any
-- executor takes it. Rows older than a few heartbeats are executors gone.
CREATE TABLE job_executor (
    id               TEXT PRIMARY KEY,
    deployment_aware INTEGER NOT NULL,
    deployments      TEXT,
    priority_min     INTEGER,
    priority_max     INTEGER,
    pool_size        INTEGER NOT NULL,
    queue_size       INTEGER NOT NULL,
    inflight         INTEGER NOT NULL,
    heartbeat        INTEGER NOT NULL
) STRICT;
