-- Kept counts: the number of historic process instances per definition,
-- tenant and state, and of open user tasks per definition, tenant and task
-- definition key, so that a count over those dimensions reads a few rows
-- instead of every matching one (see persistence/counts.go). The engine's
-- own flush adds a delta row for every change of those rows, in the same
-- transaction; a periodic merge folds the deltas into the totals. A count
-- reads totals plus pending deltas: exact at its snapshot.
-- kind: 'hpi' (hist_process_instance, sub = state) or 'task' (task,
-- sub = task_definition_key). '' stands for NULL in every dimension.
-- count_delta has no key: rows are only inserted, and the merge deletes
-- the rows it summed.
CREATE TABLE count_total (
    kind           TEXT NOT NULL,
    definition_key TEXT NOT NULL,
    definition_id  TEXT NOT NULL,
    tenant_id      TEXT NOT NULL,
    sub            TEXT NOT NULL,
    total          INTEGER NOT NULL,
    PRIMARY KEY (kind, definition_key, definition_id, tenant_id, sub)
);

CREATE TABLE count_delta (
    kind           TEXT NOT NULL,
    definition_key TEXT NOT NULL,
    definition_id  TEXT NOT NULL,
    tenant_id      TEXT NOT NULL,
    sub            TEXT NOT NULL,
    delta          INTEGER NOT NULL
);

INSERT INTO count_total (kind, definition_key, definition_id, tenant_id, sub, total)
SELECT 'hpi', COALESCE(process_definition_key, ''), COALESCE(process_definition_id, ''), COALESCE(tenant_id, ''), state, count(*)
FROM hist_process_instance GROUP BY 2, 3, 4, 5;

INSERT INTO count_total (kind, definition_key, definition_id, tenant_id, sub, total)
SELECT 'task', '', COALESCE(process_definition_id, ''), COALESCE(tenant_id, ''), COALESCE(task_definition_key, ''), count(*)
FROM task GROUP BY 3, 4, 5;
