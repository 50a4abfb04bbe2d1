-- Tenancy, minimally: the tenant a deployment was made for, carried to its
-- process definitions and to what they create (instances, tasks, jobs,
-- external tasks, their history). NULL: no tenant.
ALTER TABLE deployment ADD COLUMN tenant_id text;
ALTER TABLE process_definition ADD COLUMN tenant_id text;
-- camunda:isStartableInTasklist
ALTER TABLE process_definition ADD COLUMN startable_in_tasklist boolean NOT NULL DEFAULT true;
-- the process's diagram image deployed beside its model
ALTER TABLE process_definition ADD COLUMN diagram_resource_name text;
-- the model's targetNamespace (Camunda's category)
ALTER TABLE process_definition ADD COLUMN category text;
-- the process's documentation (Camunda's description)
ALTER TABLE process_definition ADD COLUMN description text;
ALTER TABLE execution ADD COLUMN tenant_id text;
ALTER TABLE hist_process_instance ADD COLUMN tenant_id text;
ALTER TABLE task ADD COLUMN tenant_id text;
ALTER TABLE hist_task ADD COLUMN tenant_id text;
ALTER TABLE job ADD COLUMN tenant_id text;
ALTER TABLE external_task ADD COLUMN tenant_id text;

-- Versions count per key and tenant: two tenants each have version 1 of a key.
ALTER TABLE process_definition DROP CONSTRAINT process_definition_key_version_key;
-- Serves lookups by key (and latest version by key and tenant).
CREATE UNIQUE INDEX process_definition_key_tenant_version ON process_definition (key, COALESCE(tenant_id, ''), version);
