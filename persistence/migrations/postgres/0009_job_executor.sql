-- Each running job executor reports what it serves and how busy it is, so
-- that a job's diagnosis (bpmnlite jobs explain) can say whether any
-- executor takes it. Rows older than a few heartbeats are executors gone.
CREATE TABLE job_executor (
    id               text PRIMARY KEY,
    deployment_aware boolean NOT NULL,
    deployments      text,
    priority_min     bigint,
    priority_max     bigint,
    pool_size        integer NOT NULL,
    queue_size       integer NOT NULL,
    inflight         integer NOT NULL,
    heartbeat        timestamptz NOT NULL
);
