-- Camunda Forms (.form resources), versioned by their id per tenant, as
-- Camunda's ACT_RE_CAMFORMDEF; a user task's camunda:formRef as it was
-- evaluated when the task was created; and the values submitted with
-- forms kept in history (Camunda's historic form fields).
CREATE TABLE form_definition (
    id            TEXT PRIMARY KEY,
    key           TEXT NOT NULL,
    version       INTEGER NOT NULL,
    deployment_id TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    tenant_id     TEXT
) STRICT;
-- Lookups by key (latest or a version) and by deployment.
CREATE INDEX form_definition_key ON form_definition (key, version);
CREATE INDEX form_definition_deployment ON form_definition (deployment_id);
ALTER TABLE task ADD COLUMN form_ref TEXT;
ALTER TABLE task ADD COLUMN form_ref_binding TEXT;
ALTER TABLE task ADD COLUMN form_ref_version INTEGER;
ALTER TABLE hist_detail ADD COLUMN form_field INTEGER NOT NULL DEFAULT 0;
