-- The W3C traceparent of the step that created an external task, so that
-- the worker that takes it can continue that trace.
ALTER TABLE external_task ADD COLUMN trace_parent TEXT;
