-- An operator's note on an incident (Camunda's incident annotation), on
-- the open incident and its history record.
ALTER TABLE incident ADD COLUMN annotation TEXT;
ALTER TABLE hist_incident ADD COLUMN annotation TEXT;
