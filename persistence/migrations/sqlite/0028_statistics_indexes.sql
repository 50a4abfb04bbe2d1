-- Indexes for the cockpit's definition page (issue 26).
-- execution_parent holds child executions only: the statistics' rule "no
-- child execution runs in it" (Camunda's) then probes a small index, and a
-- process instance's root execution (parent_id NULL) adds no entry to it
-- when it starts. Lookups by parent_id = ? use it as before.
DROP INDEX execution_parent;
CREATE INDEX execution_parent ON execution (parent_id) WHERE parent_id IS NOT NULL;
-- Process instances (root executions) by definition: the definition
-- page's instance count and the dashboard's per-definition counts read
-- this index alone, and the instance list (sorted by id, Camunda's
-- instanceId) reads its first page from it. A start adds the entry it no
-- longer adds to execution_parent.
CREATE INDEX execution_instance_definition ON execution (process_definition_id, id) WHERE parent_id IS NULL;
-- The heat map (mean durations per activity) and the historic activity
-- statistics read the activity instances of one definition. Only columns
-- an activity instance never changes after its insert, as on PostgreSQL:
-- a covering index (with the times) halved the heat map's time but was
-- rewritten at every activity's end, and an execution index by activity
-- at every step of every job; both cost starts and jobs more than the
-- cockpit gained (docs/benchmarks.md, sixth session).
CREATE INDEX hist_activity_instance_definition ON hist_activity_instance (process_definition_id, activity_id);
