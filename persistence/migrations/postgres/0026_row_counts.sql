-- Counts kept as rows change, so that counting history's process instances
-- and the open user tasks costs the same at a million rows as at a
-- thousand. Each count table has the columns its filters' countable
-- conditions read (a column whose value only matters as set or not, such
-- as end_time, holds a stand-in), one row per change: +1 for a row as it
-- is now, -1 for a row as it was. Triggers write them, so every way a row
-- changes (commands, bulk deletes of the history cleanup) is counted; a
-- compaction merges them (persistence.CompactCounts). A count is the sum
-- of n over the rows its conditions select.
CREATE TABLE hist_process_instance_count (
    process_definition_id     text,
    process_definition_key    text,
    tenant_id                 text,
    state                     text,
    end_time                  timestamptz,
    super_process_instance_id text,
    n                         bigint NOT NULL
);
CREATE FUNCTION hist_process_instance_counted() RETURNS trigger LANGUAGE plpgsql
    -- the count table of the trigger's own schema, whoever changes the row
    SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO hist_process_instance_count VALUES (OLD.process_definition_id, OLD.process_definition_key, OLD.tenant_id, OLD.state,
            CASE WHEN OLD.end_time IS NULL THEN NULL ELSE 'epoch'::timestamptz END,
            CASE WHEN OLD.super_process_instance_id IS NULL THEN NULL ELSE '' END, -1);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO hist_process_instance_count VALUES (NEW.process_definition_id, NEW.process_definition_key, NEW.tenant_id, NEW.state,
            CASE WHEN NEW.end_time IS NULL THEN NULL ELSE 'epoch'::timestamptz END,
            CASE WHEN NEW.super_process_instance_id IS NULL THEN NULL ELSE '' END, 1);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER hist_process_instance_counted AFTER INSERT OR DELETE ON hist_process_instance
    FOR EACH ROW EXECUTE FUNCTION hist_process_instance_counted();
CREATE TRIGGER hist_process_instance_recounted AFTER UPDATE ON hist_process_instance FOR EACH ROW
    WHEN (OLD.process_definition_id IS DISTINCT FROM NEW.process_definition_id
       OR OLD.process_definition_key IS DISTINCT FROM NEW.process_definition_key
       OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
       OR OLD.state IS DISTINCT FROM NEW.state
       OR (OLD.end_time IS NULL) <> (NEW.end_time IS NULL)
       OR (OLD.super_process_instance_id IS NULL) <> (NEW.super_process_instance_id IS NULL))
    EXECUTE FUNCTION hist_process_instance_counted();
INSERT INTO hist_process_instance_count
    SELECT process_definition_id, process_definition_key, tenant_id, state,
        CASE WHEN end_time IS NULL THEN NULL ELSE 'epoch'::timestamptz END,
        CASE WHEN super_process_instance_id IS NULL THEN NULL ELSE '' END, count(*)
    FROM hist_process_instance GROUP BY 1, 2, 3, 4, 5, 6;

CREATE TABLE task_count (
    process_definition_id text,
    task_definition_key   text,
    assignee              text,
    candidate_groups      text,
    candidate_users       text,
    suspension            integer,
    tenant_id             text,
    n                     bigint NOT NULL
);
CREATE FUNCTION task_counted() RETURNS trigger LANGUAGE plpgsql
    -- the count table of the trigger's own schema, whoever changes the row
    SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO task_count VALUES (OLD.process_definition_id, OLD.task_definition_key, OLD.assignee,
            OLD.candidate_groups, OLD.candidate_users, OLD.suspension, OLD.tenant_id, -1);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO task_count VALUES (NEW.process_definition_id, NEW.task_definition_key, NEW.assignee,
            NEW.candidate_groups, NEW.candidate_users, NEW.suspension, NEW.tenant_id, 1);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER task_counted AFTER INSERT OR DELETE ON task FOR EACH ROW EXECUTE FUNCTION task_counted();
CREATE TRIGGER task_recounted AFTER UPDATE ON task FOR EACH ROW
    WHEN (OLD.process_definition_id IS DISTINCT FROM NEW.process_definition_id
       OR OLD.task_definition_key IS DISTINCT FROM NEW.task_definition_key
       OR OLD.assignee IS DISTINCT FROM NEW.assignee
       OR OLD.candidate_groups IS DISTINCT FROM NEW.candidate_groups
       OR OLD.candidate_users IS DISTINCT FROM NEW.candidate_users
       OR OLD.suspension IS DISTINCT FROM NEW.suspension
       OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
    EXECUTE FUNCTION task_counted();
INSERT INTO task_count
    SELECT process_definition_id, task_definition_key, assignee, candidate_groups, candidate_users, suspension, tenant_id, count(*)
    FROM task GROUP BY 1, 2, 3, 4, 5, 6, 7;
