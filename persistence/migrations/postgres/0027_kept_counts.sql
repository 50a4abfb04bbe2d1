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
    kind           text NOT NULL,
    definition_key text NOT NULL,
    definition_id  text NOT NULL,
    tenant_id      text NOT NULL,
    sub            text NOT NULL,
    total          bigint NOT NULL,
    PRIMARY KEY (kind, definition_key, definition_id, tenant_id, sub)
);

CREATE TABLE count_delta (
    kind           text NOT NULL,
    definition_key text NOT NULL,
    definition_id  text NOT NULL,
    tenant_id      text NOT NULL,
    sub            text NOT NULL,
    delta          bigint NOT NULL
);

INSERT INTO count_total (kind, definition_key, definition_id, tenant_id, sub, total)
SELECT 'hpi', COALESCE(process_definition_key, ''), COALESCE(process_definition_id, ''), COALESCE(tenant_id, ''), state, count(*)
FROM hist_process_instance GROUP BY 2, 3, 4, 5;

INSERT INTO count_total (kind, definition_key, definition_id, tenant_id, sub, total)
SELECT 'task', '', COALESCE(process_definition_id, ''), COALESCE(tenant_id, ''), COALESCE(task_definition_key, ''), count(*)
FROM task GROUP BY 3, 4, 5;

-- count_delta takes a few rows per transaction and loses them to the next
-- merge: it stays small but collects dead rows, which every count scans
-- until they are vacuumed. So it is vacuumed after a thousand dead rows
-- (not a fifth of its live ones, which are few), without pausing; and a
-- count never plans parallel workers for it (launching them costs more
-- than the scan: a count planned on a moment's bloat took milliseconds).
ALTER TABLE count_delta SET (parallel_workers = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_cost_delay = 0);
