package bpmnlite

import (
	"context"
	"slices"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// The management API for what Camunda's REST API manages at runtime: job
// definitions, event subscriptions, incidents, executions, jobs by query
// (other queries in query.go; single jobs and suspension in management.go).

// TimeBound is one bound of a time filter (JobQuery.DueDates,
// JobQuery.CreateTimes): strictly after or before a time.
type TimeBound = persistence.TimeBound

var (
	// ErrNoSubscription: the execution waits for no such message or signal.
	ErrNoSubscription = runtime.ErrNoSubscription
	// ErrInvalidArgument: a management call's argument does not fit what
	// it manages (an incident on an execution at no activity, a due date
	// recalculated for a job that is no timer, ...).
	ErrInvalidArgument = runtime.ErrInvalidArgument
)

// JobDefinitionQuery filters job definitions; zero fields match all.
type JobDefinitionQuery = persistence.JobDefinitionFilter

// FindJobDefinitions lists the job definitions q selects.
func (e *Engine) FindJobDefinitions(ctx context.Context, q JobDefinitionQuery) ([]*JobDefinition, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// EventSubscriptionQuery filters event subscriptions; zero fields match all.
type EventSubscriptionQuery = persistence.SubscriptionFilter

// FindEventSubscriptions lists the event subscriptions q selects, oldest
// first.
func (e *Engine) FindEventSubscriptions(ctx context.Context, q EventSubscriptionQuery) ([]*EventSubscription, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// Correlation is one delivery of a message (see CorrelateWithResult).
type Correlation = runtime.Correlation

// CorrelateWithResult is Correlate, telling for each delivery the
// execution that received the message, or the instance its message start
// event started.
func (e *Engine) CorrelateWithResult(ctx context.Context, req CorrelateRequest) ([]Correlation, error) {
	return e.rt.CorrelateWithResult(ctx, nil, req)
}

// DeliverMessage delivers message name to one execution that waits for
// it (Camunda's messageEventReceived): ErrNoSubscription when it does not.
func (e *Engine) DeliverMessage(ctx context.Context, executionID, name string, vars map[string]any) error {
	return e.rt.DeliverToExecution(ctx, nil, persistence.SubscriptionMessage, name, executionID, vars)
}

// SignalExecution delivers signal name to one execution that waits for it,
// and to no other: ErrNoSubscription when it does not wait.
func (e *Engine) SignalExecution(ctx context.Context, executionID, name string, vars map[string]any) error {
	return e.rt.DeliverToExecution(ctx, nil, persistence.SubscriptionSignal, name, executionID, vars)
}

// CreateIncident raises an incident of a type of the caller's (not
// failedJob or failedExternalTask) on an execution at an activity, as
// Camunda's createIncident; it stays open until ResolveIncident or the end
// of its instance.
func (e *Engine) CreateIncident(ctx context.Context, executionID, incidentType, configuration, message string) (*Incident, error) {
	return e.rt.CreateIncident(ctx, executionID, incidentType, configuration, message)
}

// SetIncidentAnnotation sets an open incident's annotation ("" clears it),
// in history too.
func (e *Engine) SetIncidentAnnotation(ctx context.Context, incidentID, annotation string) error {
	return e.rt.SetIncidentAnnotation(ctx, incidentID, annotation)
}

// SuspendJobs suspends the jobs q selects; ActivateJobs activates them.
func (e *Engine) SuspendJobs(ctx context.Context, q JobQuery) error {
	return e.rt.SuspendJobs(ctx, q, true)
}

// ActivateJobs activates the jobs q selects.
func (e *Engine) ActivateJobs(ctx context.Context, q JobQuery) error {
	return e.rt.SuspendJobs(ctx, q, false)
}

// SuspendJobDefinitions suspends the job definitions q selects (and with
// includeJobs their jobs).
func (e *Engine) SuspendJobDefinitions(ctx context.Context, q JobDefinitionQuery, includeJobs bool) error {
	return e.rt.SuspendJobDefinitions(ctx, q, true, includeJobs)
}

// ActivateJobDefinitions activates the job definitions q selects (and
// with includeJobs their jobs).
func (e *Engine) ActivateJobDefinitions(ctx context.Context, q JobDefinitionQuery, includeJobs bool) error {
	return e.rt.SuspendJobDefinitions(ctx, q, false, includeJobs)
}

// SetJobDueDateCascade sets when a job becomes due (nil: at once); cascade
// moves the later runs of a repeating timer by as much, as Camunda's
// cascade does (only a cycle with a start date, as timers store them,
// moves: others are ErrInvalidArgument).
func (e *Engine) SetJobDueDateCascade(ctx context.Context, jobID string, due *time.Time, cascade bool) error {
	return e.rt.SetJobDueDateCascade(ctx, jobID, due, cascade)
}

// RecalculateJobDueDate computes a timer job's due date again from its
// timer definition, from its creation time (creationDateBased) or now.
func (e *Engine) RecalculateJobDueDate(ctx context.Context, jobID string, creationDateBased bool) error {
	return e.rt.RecalculateJobDueDate(ctx, jobID, creationDateBased)
}

// SetExternalTasksRetries sets the retries of several external tasks at
// once: all, or none when one does not exist.
func (e *Engine) SetExternalTasksRetries(ctx context.Context, ids []string, retries int) error {
	return e.rt.SetExternalTasksRetries(ctx, ids, retries)
}

// ExternalTaskTopicNames are the topics of the external tasks q selects,
// sorted, each once.
func (e *Engine) ExternalTaskTopicNames(ctx context.Context, q ExternalTaskQuery) ([]string, error) {
	tasks, err := e.ExternalTasks(ctx, q)
	if err != nil {
		return nil, err
	}
	topics := make([]string, len(tasks))
	for i, t := range tasks {
		topics[i] = t.Topic
	}
	slices.Sort(topics)
	return slices.Compact(topics), nil
}
