-- A finished process instance's variables as they were at its end, so
-- that they can be read after it (its runtime variables are gone).
CREATE TABLE hist_variable (
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
CREATE INDEX hist_variable_process_instance ON hist_variable (process_instance_id);
