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
-- No index of history's activity instances by definition on SQLite (the
-- heat map reads the table): every activity instance inserted would
-- maintain it, and it cost starts of ten activities a fifth of their rate
-- (a covering one, rewritten at each activity's end, a third), more than
-- the heat map, which reads every ended instance of the definition, gained
-- (docs/benchmarks.md, sixth session). PostgreSQL's costs no measurable
-- start rate and has it.
