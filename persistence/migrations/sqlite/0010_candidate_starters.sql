-- camunda:candidateStarterGroups and candidateStarterUsers of a process,
-- comma-separated as written.
ALTER TABLE process_definition ADD COLUMN candidate_starter_groups TEXT;
ALTER TABLE process_definition ADD COLUMN candidate_starter_users TEXT;
