-- The Camunda type a variable was declared with where its stored value
-- alone does not tell it (Short, Object, Xml, File, ...; NULL: derived
-- from the value), and its valueInfo as JSON (objectTypeName,
-- serializationDataFormat, filename, mimeType, encoding).
ALTER TABLE variable ADD COLUMN value_type text;
ALTER TABLE variable ADD COLUMN value_info text;
ALTER TABLE hist_variable ADD COLUMN value_type text;
ALTER TABLE hist_variable ADD COLUMN value_info text;
-- A removed variable's history stays, DELETED (Camunda's state).
ALTER TABLE hist_variable ADD COLUMN state text NOT NULL DEFAULT 'CREATED';
ALTER TABLE hist_variable ADD COLUMN create_time timestamptz;
-- Variable history is now written as variables change (it was copied
-- when an instance ended): running instances' variables get theirs.
INSERT INTO hist_variable (id, rev, name, type, execution_id, process_instance_id, task_id,
    text_value, long_value, double_value, time_value, bytes_value, value_type, value_info)
SELECT id, rev, name, type, execution_id, process_instance_id, task_id,
    text_value, long_value, double_value, time_value, bytes_value, value_type, value_info
FROM variable WHERE id NOT IN (SELECT id FROM hist_variable);
