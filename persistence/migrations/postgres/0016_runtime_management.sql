-- An operator's note on an incident (Camunda's incident annotation), on
-- the open incident and its history record.
ALTER TABLE incident ADD COLUMN annotation TEXT;
ALTER TABLE hist_incident ADD COLUMN annotation TEXT;
-- Camunda's job type of a job definition's jobs (its handler's name):
-- asynchronous continuations', and timers' where a job tells it.
ALTER TABLE job_definition ADD COLUMN handler_type TEXT;
UPDATE job_definition SET handler_type = 'async-continuation' WHERE job_type = 'message';
UPDATE job_definition SET handler_type = (SELECT CASE WHEN j.handler_type = 'timer-event-based-gateway' THEN 'timer-intermediate-transition' ELSE j.handler_type END
  FROM job j WHERE j.job_definition_id = job_definition.id LIMIT 1) WHERE job_type = 'timer';
-- The deployment of a job definition's process definition.
ALTER TABLE job_definition ADD COLUMN deployment_id TEXT;
UPDATE job_definition SET deployment_id = (SELECT pd.deployment_id FROM process_definition pd WHERE pd.id = job_definition.process_definition_id);
