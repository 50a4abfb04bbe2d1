-- Tenancy, minimally: the tenant a deployment was made for, carried to its
-- process definitions and to what they create (instances, tasks, jobs,
-- external tasks, their history). NULL: no tenant.
ALTER TABLE deployment ADD COLUMN tenant_id TEXT;
ALTER TABLE execution ADD COLUMN tenant_id TEXT;
ALTER TABLE hist_process_instance ADD COLUMN tenant_id TEXT;
ALTER TABLE task ADD COLUMN tenant_id TEXT;
ALTER TABLE hist_task ADD COLUMN tenant_id TEXT;
ALTER TABLE job ADD COLUMN tenant_id TEXT;
ALTER TABLE external_task ADD COLUMN tenant_id TEXT;

-- Versions count per key and tenant: two tenants each have version 1 of a
-- key. SQLite cannot drop the table's UNIQUE (key, version), so the table
-- is made again with the key's uniqueness per tenant, and with
-- startable_in_tasklist (camunda:isStartableInTasklist; true for the
-- definitions deployed before), the name of the process's diagram image
-- deployed beside its model, the model's targetNamespace (Camunda's
-- category) and the process's documentation (its description), unknown
-- for the definitions deployed before.
CREATE TABLE process_definition_tenanted (
    id                       TEXT PRIMARY KEY,
    rev                      INTEGER NOT NULL,
    key                      TEXT NOT NULL,
    version                  INTEGER NOT NULL,
    name                     TEXT,
    deployment_id            TEXT NOT NULL,
    resource_name            TEXT,
    suspension               INTEGER NOT NULL,
    has_start_form           INTEGER NOT NULL,
    version_tag              TEXT,
    history_time_to_live     INTEGER,
    candidate_starter_groups TEXT,
    candidate_starter_users  TEXT,
    tenant_id                TEXT,
    startable_in_tasklist    INTEGER NOT NULL DEFAULT 1,
    diagram_resource_name    TEXT,
    category                 TEXT,
    description              TEXT
) STRICT;
INSERT INTO process_definition_tenanted (id, rev, key, version, name, deployment_id, resource_name, suspension,
    has_start_form, version_tag, history_time_to_live, candidate_starter_groups, candidate_starter_users)
SELECT id, rev, key, version, name, deployment_id, resource_name, suspension,
    has_start_form, version_tag, history_time_to_live, candidate_starter_groups, candidate_starter_users
FROM process_definition;
DROP TABLE process_definition;
ALTER TABLE process_definition_tenanted RENAME TO process_definition;
-- Serves lookups by key (and latest version by key and tenant).
CREATE UNIQUE INDEX process_definition_key_tenant_version ON process_definition (key, COALESCE(tenant_id, ''), version);
CREATE INDEX process_definition_deployment ON process_definition (deployment_id);
