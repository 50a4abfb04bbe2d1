-- User tasks as Camunda's task resource has them: a description, an
-- owner and a delegation state (delegate/resolve), a parent task, when it
-- was last updated, and the activity instance of the user task. Standalone
-- tasks (created by the API) belong to no process: their history rows
-- have no instance, definition or task definition key.
ALTER TABLE task ADD COLUMN description text;
ALTER TABLE task ADD COLUMN owner text;
ALTER TABLE task ADD COLUMN delegation_state text;
ALTER TABLE task ADD COLUMN parent_task_id text;
ALTER TABLE task ADD COLUMN last_updated timestamptz;
ALTER TABLE task ADD COLUMN activity_instance_id text;
UPDATE task SET activity_instance_id = (SELECT e.activity_instance_id FROM execution e WHERE e.id = task.execution_id);
CREATE INDEX task_parent ON task (parent_task_id) WHERE parent_task_id IS NOT NULL;

ALTER TABLE hist_task ADD COLUMN description text;
ALTER TABLE hist_task ADD COLUMN owner text;
ALTER TABLE hist_task ADD COLUMN parent_task_id text;
ALTER TABLE hist_task ALTER COLUMN process_instance_id DROP NOT NULL;
ALTER TABLE hist_task ALTER COLUMN process_definition_id DROP NOT NULL;
ALTER TABLE hist_task ALTER COLUMN task_definition_key DROP NOT NULL;

-- Comments and attachments of tasks, kept as history (they outlive the
-- task, as Camunda's do).
CREATE TABLE task_comment (
    id                       text PRIMARY KEY,
    rev                      integer NOT NULL,
    task_id                  text,
    process_instance_id      text,
    root_process_instance_id text,
    user_id                  text,
    create_time              timestamptz NOT NULL,
    message                  text
);
CREATE INDEX task_comment_task ON task_comment (task_id);
CREATE INDEX task_comment_process_instance ON task_comment (process_instance_id);

CREATE TABLE task_attachment (
    id                       text PRIMARY KEY,
    rev                      integer NOT NULL,
    task_id                  text,
    process_instance_id      text,
    root_process_instance_id text,
    name                     text,
    description              text,
    type                     text,
    url                      text,
    content                  bytea,
    create_time              timestamptz NOT NULL
);
CREATE INDEX task_attachment_task ON task_attachment (task_id);
CREATE INDEX task_attachment_process_instance ON task_attachment (process_instance_id);

-- SQLite's instr, so that one SQL text splits comma-separated candidate
-- lists on both backends.
CREATE OR REPLACE FUNCTION instr(s text, sub text) RETURNS integer AS $$ SELECT strpos(s, sub) $$ LANGUAGE sql IMMUTABLE;
