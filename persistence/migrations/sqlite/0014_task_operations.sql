-- User tasks as Camunda's task resource has them: a description, an
-- owner and a delegation state (delegate/resolve), a parent task, when it
-- was last updated, and the activity instance of the user task. Standalone
-- tasks (created by the API) belong to no process: their history rows
-- have no instance, definition or task definition key (SQLite drops a NOT
-- NULL only by rebuilding the table).
ALTER TABLE task ADD COLUMN description TEXT;
ALTER TABLE task ADD COLUMN owner TEXT;
ALTER TABLE task ADD COLUMN delegation_state TEXT;
ALTER TABLE task ADD COLUMN parent_task_id TEXT;
ALTER TABLE task ADD COLUMN last_updated INTEGER;
ALTER TABLE task ADD COLUMN activity_instance_id TEXT;
UPDATE task SET activity_instance_id = (SELECT e.activity_instance_id FROM execution e WHERE e.id = task.execution_id);
CREATE INDEX task_parent ON task (parent_task_id) WHERE parent_task_id IS NOT NULL;

CREATE TABLE hist_task_new (
    id                     TEXT PRIMARY KEY,
    rev                    INTEGER NOT NULL,
    name                   TEXT,
    execution_id           TEXT,
    process_instance_id    TEXT,
    process_definition_id  TEXT,
    process_definition_key TEXT,
    task_definition_key    TEXT,
    activity_instance_id   TEXT,
    assignee               TEXT,
    priority               INTEGER NOT NULL,
    due_date               INTEGER,
    follow_up_date         INTEGER,
    start_time             INTEGER NOT NULL,
    end_time               INTEGER,
    delete_reason          TEXT,
    description            TEXT,
    owner                  TEXT,
    parent_task_id         TEXT
) STRICT;
INSERT INTO hist_task_new (id, rev, name, execution_id, process_instance_id, process_definition_id, process_definition_key,
    task_definition_key, activity_instance_id, assignee, priority, due_date, follow_up_date, start_time, end_time, delete_reason)
SELECT id, rev, name, execution_id, process_instance_id, process_definition_id, process_definition_key,
    task_definition_key, activity_instance_id, assignee, priority, due_date, follow_up_date, start_time, end_time, delete_reason
FROM hist_task;
DROP TABLE hist_task;
ALTER TABLE hist_task_new RENAME TO hist_task;
CREATE INDEX hist_task_process_instance ON hist_task (process_instance_id);

-- Comments and attachments of tasks, kept as history (they outlive the
-- task, as Camunda's do).
CREATE TABLE task_comment (
    id                       TEXT PRIMARY KEY,
    rev                      INTEGER NOT NULL,
    task_id                  TEXT,
    process_instance_id      TEXT,
    root_process_instance_id TEXT,
    user_id                  TEXT,
    create_time              INTEGER NOT NULL,
    message                  TEXT
) STRICT;
CREATE INDEX task_comment_task ON task_comment (task_id);
CREATE INDEX task_comment_process_instance ON task_comment (process_instance_id);

CREATE TABLE task_attachment (
    id                       TEXT PRIMARY KEY,
    rev                      INTEGER NOT NULL,
    task_id                  TEXT,
    process_instance_id      TEXT,
    root_process_instance_id TEXT,
    name                     TEXT,
    description              TEXT,
    type                     TEXT,
    url                      TEXT,
    content                  BLOB,
    create_time              INTEGER NOT NULL
) STRICT;
CREATE INDEX task_attachment_task ON task_attachment (task_id);
CREATE INDEX task_attachment_process_instance ON task_attachment (process_instance_id);
