-- The meters engines report (Camunda's metrics): what a counter grew by
-- since the reporter's previous report, summed and bucketed by queries.
CREATE TABLE meter_log (
    id        TEXT PRIMARY KEY,
    name      TEXT NOT NULL,
    reporter  TEXT,
    value     BIGINT NOT NULL,
    timestamp INTEGER NOT NULL
);
CREATE INDEX meter_log_name_time ON meter_log (name, timestamp);
