-- Decisions (DMN): the deployed decision requirements graphs and
-- decisions, versioned by key and tenant as process definitions are, and
-- the history of their evaluations with their inputs and outputs.
CREATE TABLE decision_requirements_definition (
    id                    TEXT PRIMARY KEY,
    rev                   INTEGER NOT NULL,
    key                   TEXT NOT NULL,
    version               INTEGER NOT NULL,
    name                  TEXT,
    category              TEXT,
    deployment_id         TEXT NOT NULL,
    resource_name         TEXT,
    diagram_resource_name TEXT,
    tenant_id             TEXT
) STRICT;
CREATE INDEX decision_requirements_definition_key ON decision_requirements_definition (key, version);
CREATE INDEX decision_requirements_definition_deployment ON decision_requirements_definition (deployment_id);

CREATE TABLE decision_definition (
    id                                   TEXT PRIMARY KEY,
    rev                                  INTEGER NOT NULL,
    key                                  TEXT NOT NULL,
    version                              INTEGER NOT NULL,
    name                                 TEXT,
    category                             TEXT,
    deployment_id                        TEXT NOT NULL,
    resource_name                        TEXT,
    diagram_resource_name                TEXT,
    decision_requirements_definition_id  TEXT,
    decision_requirements_definition_key TEXT,
    version_tag                          TEXT,
    history_time_to_live                 INTEGER,
    tenant_id                            TEXT
) STRICT;
-- Lookups by key and the latest version of a key.
CREATE INDEX decision_definition_key ON decision_definition (key, version);
CREATE INDEX decision_definition_deployment ON decision_definition (deployment_id);

CREATE TABLE hist_decision_instance (
    id                                   TEXT PRIMARY KEY,
    rev                                  INTEGER NOT NULL,
    decision_definition_id               TEXT NOT NULL,
    decision_definition_key              TEXT NOT NULL,
    decision_definition_name             TEXT,
    evaluation_time                      INTEGER NOT NULL,
    process_definition_id                TEXT,
    process_definition_key               TEXT,
    process_instance_id                  TEXT,
    root_process_instance_id             TEXT,
    execution_id                         TEXT,
    activity_id                          TEXT,
    activity_instance_id                 TEXT,
    collect_result_value                 REAL NOT NULL,
    has_collect_result                   INTEGER NOT NULL,
    root_decision_instance_id            TEXT,
    decision_requirements_definition_id  TEXT,
    decision_requirements_definition_key TEXT,
    tenant_id                            TEXT,
    removal_time                         INTEGER
) STRICT;
CREATE INDEX hist_decision_instance_process_instance ON hist_decision_instance (process_instance_id);
CREATE INDEX hist_decision_instance_definition ON hist_decision_instance (decision_definition_id);
-- The history cleanup's scan of decisions evaluated outside processes.
CREATE INDEX hist_decision_instance_removal ON hist_decision_instance (removal_time);

CREATE TABLE hist_decision_input (
    id                   TEXT PRIMARY KEY,
    rev                  INTEGER NOT NULL,
    name                 TEXT,
    type                 TEXT NOT NULL,
    execution_id         TEXT,
    process_instance_id  TEXT,
    task_id              TEXT,
    text_value           TEXT,
    long_value           INTEGER NOT NULL,
    double_value         REAL NOT NULL,
    time_value           INTEGER NOT NULL,
    bytes_value          BLOB,
    value_type           TEXT,
    value_info           TEXT,
    decision_instance_id TEXT NOT NULL,
    clause_id            TEXT,
    create_time          INTEGER NOT NULL
) STRICT;
CREATE INDEX hist_decision_input_instance ON hist_decision_input (decision_instance_id);
CREATE TABLE hist_decision_output (
    id                   TEXT PRIMARY KEY,
    rev                  INTEGER NOT NULL,
    name                 TEXT,
    type                 TEXT NOT NULL,
    execution_id         TEXT,
    process_instance_id  TEXT,
    task_id              TEXT,
    text_value           TEXT,
    long_value           INTEGER NOT NULL,
    double_value         REAL NOT NULL,
    time_value           INTEGER NOT NULL,
    bytes_value          BLOB,
    value_type           TEXT,
    value_info           TEXT,
    decision_instance_id TEXT NOT NULL,
    clause_id            TEXT,
    clause_name          TEXT,
    rule_id              TEXT,
    rule_order           INTEGER NOT NULL,
    create_time          INTEGER NOT NULL
) STRICT;
CREATE INDEX hist_decision_output_instance ON hist_decision_output (decision_instance_id);
