-- User tasks as Camunda's task resource has them: a description, an
-- owner and a delegation state (delegate/resolve), a parent task, when it
-- was last updated, and the activity instance of the user task. Standalone
-- tasks (created by the API) belong to no process: their history rows
-- have no instance, definition or task definition key.
ALTER TABLE task ADD COLUMN description TEXT;
ALTER TABLE task ADD COLUMN owner TEXT;
ALTER TABLE task ADD COLUMN delegation_state TEXT;
ALTER TABLE task ADD COLUMN parent_task_id TEXT;
ALTER TABLE task ADD COLUMN last_updated INTEGER;
ALTER TABLE task ADD COLUMN activity_instance_id TEXT;
UPDATE task SET activity_instance_id = (SELECT e.activity_instance_id FROM execution e WHERE e.id = task.execution_id);
CREATE INDEX task_parent ON task (parent_task_id) WHERE parent_task_id IS NOT NULL;

ALTER TABLE hist_task ADD COLUMN description TEXT;
ALTER TABLE hist_task ADD COLUMN owner TEXT;
ALTER TABLE hist_task ADD COLUMN parent_task_id TEXT;
-- SQLite's documented way to drop NOT NULL constraints in place: edit the
-- table's definition (whatever columns later migrations added stay), then
-- make this connection read the schema again; the table made and dropped
-- changes the schema version, so that other connections read it too.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(replace(replace(sql,
        'process_instance_id    TEXT NOT NULL', 'process_instance_id    TEXT'),
        'process_definition_id  TEXT NOT NULL', 'process_definition_id  TEXT'),
        'task_definition_key    TEXT NOT NULL', 'task_definition_key    TEXT')
    WHERE type = 'table' AND name = 'hist_task';
PRAGMA writable_schema = RESET;
CREATE TABLE bpmnlite_schema_changed (x INTEGER);
DROP TABLE bpmnlite_schema_changed;

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
