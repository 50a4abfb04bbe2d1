-- The default orders of the largest lists (history's process instances,
-- open user tasks), so that a page of them reads its rows from an index
-- instead of sorting the table.
CREATE INDEX hist_process_instance_start ON hist_process_instance (start_time, id);
CREATE INDEX task_create ON task (create_time, id);
