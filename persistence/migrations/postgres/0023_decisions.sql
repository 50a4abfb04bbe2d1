-- Decisions (DMN): the deployed decision requirements graphs and
-- decisions, versioned by key and tenant as process definitions are, and
-- the history of their evaluations with their inputs and outputs.
CREATE TABLE decision_requirements_definition (
    id                    text PRIMARY KEY,
    rev                   integer NOT NULL,
    key                   text NOT NULL,
    version               integer NOT NULL,
    name                  text,
    category              text,
    deployment_id         text NOT NULL,
    resource_name         text,
    diagram_resource_name text,
    tenant_id             text
);
CREATE INDEX decision_requirements_definition_key ON decision_requirements_definition (key, version);
CREATE INDEX decision_requirements_definition_deployment ON decision_requirements_definition (deployment_id);

CREATE TABLE decision_definition (
    id                                   text PRIMARY KEY,
    rev                                  integer NOT NULL,
    key                                  text NOT NULL,
    version                              integer NOT NULL,
    name                                 text,
    category                             text,
    deployment_id                        text NOT NULL,
    resource_name                        text,
    diagram_resource_name                text,
    decision_requirements_definition_id  text,
    decision_requirements_definition_key text,
    version_tag                          text,
    history_time_to_live                 integer,
    tenant_id                            text
);
-- Lookups by key and the latest version of a key.
CREATE INDEX decision_definition_key ON decision_definition (key, version);
CREATE INDEX decision_definition_deployment ON decision_definition (deployment_id);

CREATE TABLE hist_decision_instance (
    id                                   text PRIMARY KEY,
    rev                                  integer NOT NULL,
    decision_definition_id               text NOT NULL,
    decision_definition_key              text NOT NULL,
    decision_definition_name             text,
    evaluation_time                      timestamptz NOT NULL,
    process_definition_id                text,
    process_definition_key               text,
    process_instance_id                  text,
    root_process_instance_id             text,
    execution_id                         text,
    activity_id                          text,
    activity_instance_id                 text,
    collect_result_value                 double precision NOT NULL,
    has_collect_result                   boolean NOT NULL,
    root_decision_instance_id            text,
    decision_requirements_definition_id  text,
    decision_requirements_definition_key text,
    tenant_id                            text,
    removal_time                         timestamptz
);
CREATE INDEX hist_decision_instance_process_instance ON hist_decision_instance (process_instance_id);
CREATE INDEX hist_decision_instance_definition ON hist_decision_instance (decision_definition_id);
-- The history cleanup's scan of decisions evaluated outside processes.
CREATE INDEX hist_decision_instance_removal ON hist_decision_instance (removal_time);

CREATE TABLE hist_decision_input (
    id                   text PRIMARY KEY,
    rev                  integer NOT NULL,
    name                 text,
    type                 text NOT NULL,
    execution_id         text,
    process_instance_id  text,
    task_id              text,
    text_value           text,
    long_value           bigint NOT NULL,
    double_value         double precision NOT NULL,
    time_value           timestamptz NOT NULL,
    bytes_value          bytea,
    value_type           text,
    value_info           text,
    decision_instance_id text NOT NULL,
    clause_id            text,
    create_time          timestamptz NOT NULL
);
CREATE INDEX hist_decision_input_instance ON hist_decision_input (decision_instance_id);
CREATE TABLE hist_decision_output (
    id                   text PRIMARY KEY,
    rev                  integer NOT NULL,
    name                 text,
    type                 text NOT NULL,
    execution_id         text,
    process_instance_id  text,
    task_id              text,
    text_value           text,
    long_value           bigint NOT NULL,
    double_value         double precision NOT NULL,
    time_value           timestamptz NOT NULL,
    bytes_value          bytea,
    value_type           text,
    value_info           text,
    decision_instance_id text NOT NULL,
    clause_id            text,
    clause_name          text,
    rule_id              text,
    rule_order           integer NOT NULL,
    create_time          timestamptz NOT NULL
);
CREATE INDEX hist_decision_output_instance ON hist_decision_output (decision_instance_id);
