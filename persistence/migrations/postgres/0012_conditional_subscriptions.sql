-- Conditional events: a variable change of a process instance evaluates the
-- conditional subscriptions of that instance.
CREATE INDEX event_subscription_conditional ON event_subscription (process_instance_id) WHERE event_type = 'conditional';
