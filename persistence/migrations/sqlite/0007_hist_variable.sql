-- A finished process instance's variables as they were at its end, so
-- that they can be read after it (its runtime variables are gone).
CREATE TABLE hist_variable (
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
CREATE INDEX hist_variable_process_instance ON hist_variable (process_instance_id);
