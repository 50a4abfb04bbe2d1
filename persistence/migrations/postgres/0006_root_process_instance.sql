-- The top of a process instance's call hierarchy, on the process instance's
-- execution and on each job: exclusive jobs can then be acquired per
-- hierarchy (the job executor's AcquireExclusiveOverProcessHierarchies).
-- Instances started before this migration count as their own roots.
ALTER TABLE execution ADD COLUMN root_process_instance_id text;
ALTER TABLE job ADD COLUMN root_process_instance_id text;
UPDATE execution SET root_process_instance_id = id WHERE parent_id IS NULL;
UPDATE job SET root_process_instance_id = process_instance_id WHERE process_instance_id IS NOT NULL;
