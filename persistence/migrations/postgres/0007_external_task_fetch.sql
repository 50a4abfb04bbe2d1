-- Fetch and lock reads a topic's tasks in the order it hands them out
-- (highest priority first, then oldest: ids are time-ordered) and stops at
-- its limit; with the old index on (topic, lock_expiration) it sorted
-- every fetchable task of the topic at each fetch.
DROP INDEX IF EXISTS external_task_topic;
CREATE INDEX external_task_fetch ON external_task (topic, priority DESC, id);
-- A backlog arriving at once reaches the planner's statistics sooner.
ALTER TABLE external_task SET (autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 500);
