-- The instance a restarted process instance was restarted from, as
-- Camunda's ACT_HI_PROCINST.RESTARTED_PROC_INST_ID_.
ALTER TABLE hist_process_instance ADD COLUMN restarted_process_instance_id text;
