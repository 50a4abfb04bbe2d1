-- The waits a process instance keeps apart from its executions' own:
-- conditional events, evaluated when its variables change, and the
-- compensation handlers of its completed activities.
CREATE INDEX event_subscription_instance ON event_subscription (process_instance_id) WHERE event_type IN ('conditional', 'compensate');
