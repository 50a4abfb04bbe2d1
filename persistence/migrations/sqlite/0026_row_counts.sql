-- Counts kept as rows change (see the PostgreSQL migration of the same
-- number): one row per change, +1 for a row as it is now, -1 for a row as
-- it was, written by triggers and merged by a compaction.
CREATE TABLE hist_process_instance_count (
    process_definition_id     TEXT,
    process_definition_key    TEXT,
    tenant_id                 TEXT,
    state                     TEXT,
    end_time                  INTEGER,
    super_process_instance_id TEXT,
    n                         INTEGER NOT NULL
) STRICT;
CREATE TRIGGER hist_process_instance_counted_insert AFTER INSERT ON hist_process_instance BEGIN
    INSERT INTO hist_process_instance_count VALUES (NEW.process_definition_id, NEW.process_definition_key, NEW.tenant_id, NEW.state,
        CASE WHEN NEW.end_time IS NULL THEN NULL ELSE 0 END, CASE WHEN NEW.super_process_instance_id IS NULL THEN NULL ELSE '' END, 1);
END;
CREATE TRIGGER hist_process_instance_counted_delete AFTER DELETE ON hist_process_instance BEGIN
    INSERT INTO hist_process_instance_count VALUES (OLD.process_definition_id, OLD.process_definition_key, OLD.tenant_id, OLD.state,
        CASE WHEN OLD.end_time IS NULL THEN NULL ELSE 0 END, CASE WHEN OLD.super_process_instance_id IS NULL THEN NULL ELSE '' END, -1);
END;
CREATE TRIGGER hist_process_instance_counted_update AFTER UPDATE ON hist_process_instance
    WHEN OLD.process_definition_id IS NOT NEW.process_definition_id
      OR OLD.process_definition_key IS NOT NEW.process_definition_key
      OR OLD.tenant_id IS NOT NEW.tenant_id
      OR OLD.state IS NOT NEW.state
      OR (OLD.end_time IS NULL) <> (NEW.end_time IS NULL)
      OR (OLD.super_process_instance_id IS NULL) <> (NEW.super_process_instance_id IS NULL)
BEGIN
    INSERT INTO hist_process_instance_count VALUES (OLD.process_definition_id, OLD.process_definition_key, OLD.tenant_id, OLD.state,
        CASE WHEN OLD.end_time IS NULL THEN NULL ELSE 0 END, CASE WHEN OLD.super_process_instance_id IS NULL THEN NULL ELSE '' END, -1);
    INSERT INTO hist_process_instance_count VALUES (NEW.process_definition_id, NEW.process_definition_key, NEW.tenant_id, NEW.state,
        CASE WHEN NEW.end_time IS NULL THEN NULL ELSE 0 END, CASE WHEN NEW.super_process_instance_id IS NULL THEN NULL ELSE '' END, 1);
END;
INSERT INTO hist_process_instance_count
    SELECT process_definition_id, process_definition_key, tenant_id, state,
        CASE WHEN end_time IS NULL THEN NULL ELSE 0 END, CASE WHEN super_process_instance_id IS NULL THEN NULL ELSE '' END, count(*)
    FROM hist_process_instance GROUP BY 1, 2, 3, 4, 5, 6;

CREATE TABLE task_count (
    process_definition_id TEXT,
    task_definition_key   TEXT,
    assignee              TEXT,
    candidate_groups      TEXT,
    candidate_users       TEXT,
    suspension            INTEGER,
    tenant_id             TEXT,
    n                     INTEGER NOT NULL
) STRICT;
CREATE TRIGGER task_counted_insert AFTER INSERT ON task BEGIN
    INSERT INTO task_count VALUES (NEW.process_definition_id, NEW.task_definition_key, NEW.assignee,
        NEW.candidate_groups, NEW.candidate_users, NEW.suspension, NEW.tenant_id, 1);
END;
CREATE TRIGGER task_counted_delete AFTER DELETE ON task BEGIN
    INSERT INTO task_count VALUES (OLD.process_definition_id, OLD.task_definition_key, OLD.assignee,
        OLD.candidate_groups, OLD.candidate_users, OLD.suspension, OLD.tenant_id, -1);
END;
CREATE TRIGGER task_counted_update AFTER UPDATE ON task
    WHEN OLD.process_definition_id IS NOT NEW.process_definition_id
      OR OLD.task_definition_key IS NOT NEW.task_definition_key
      OR OLD.assignee IS NOT NEW.assignee
      OR OLD.candidate_groups IS NOT NEW.candidate_groups
      OR OLD.candidate_users IS NOT NEW.candidate_users
      OR OLD.suspension IS NOT NEW.suspension
      OR OLD.tenant_id IS NOT NEW.tenant_id
BEGIN
    INSERT INTO task_count VALUES (OLD.process_definition_id, OLD.task_definition_key, OLD.assignee,
        OLD.candidate_groups, OLD.candidate_users, OLD.suspension, OLD.tenant_id, -1);
    INSERT INTO task_count VALUES (NEW.process_definition_id, NEW.task_definition_key, NEW.assignee,
        NEW.candidate_groups, NEW.candidate_users, NEW.suspension, NEW.tenant_id, 1);
END;
INSERT INTO task_count
    SELECT process_definition_id, task_definition_key, assignee, candidate_groups, candidate_users, suspension, tenant_id, count(*)
    FROM task GROUP BY 1, 2, 3, 4, 5, 6, 7;
