package bpmnlite

import (
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// What the queries return: plain values, copies of the stored rows. The
// read models are the stored row types themselves (aliases of the
// persistence types, whose fields they document), except Deployment, which
// carries the deployment's outcome besides its row. Changing them changes
// nothing stored; the management calls do.

// Suspension states (the Suspension field of definitions, instances,
// tasks, jobs and job definitions).
const (
	SuspensionActive    = 1
	SuspensionSuspended = 2
)

// Incident states in history (HistoricIncident.State).
const (
	IncidentOpen     = persistence.IncidentOpen
	IncidentResolved = persistence.IncidentResolved
	IncidentDeleted  = persistence.IncidentDeleted
)

// Why a historic task ended (HistoricTask.DeleteReason).
const (
	TaskCompleted = persistence.TaskCompleted
	TaskDeleted   = persistence.TaskDeleted
)

// HistoricIncident is an incident in history: open, resolved or deleted.
type HistoricIncident = persistence.HistoricIncident

// HistoricTask is a user task in history, open or ended.
type HistoricTask = persistence.HistoricTask

// Job log events (JobLogEntry.Event).
const (
	JobLogCreated   = persistence.JobLogCreated   // "created"
	JobLogLocked    = persistence.JobLogLocked    // "locked"
	JobLogFailed    = persistence.JobLogFailed    // "failed"
	JobLogSucceeded = persistence.JobLogSucceeded // "succeeded"
	JobLogDeleted   = persistence.JobLogDeleted   // "deleted"
)

// Deployment is the result of a deployment: the stored deployment, the
// process definitions created (one new version per process key), the
// processes skipped as not executable, and parser warnings.
type Deployment struct {
	ID         string
	Name       string
	Source     string
	DeployTime time.Time
	// TenantID: the tenant the deployment was made for ("": none).
	TenantID string
	// Definitions are the process definitions of the deployment.
	Definitions []*ProcessDefinition
	// DecisionDefinitions and DecisionRequirementsDefinitions are those of
	// the deployment's DMN files (a requirements definition for each file
	// of more than one decision).
	DecisionDefinitions             []*DecisionDefinition
	DecisionRequirementsDefinitions []*DecisionRequirementsDefinition
	Skipped                         []SkippedProcess
	Warnings                        []Problem
	// Unchanged is set when SkipUnchanged found nothing new: the
	// deployment and definitions are the existing ones.
	Unchanged bool

	// FormDefinitions are the Camunda Forms (.form resources) deployed.
	FormDefinitions []*FormDefinition
}

// SkippedProcess is a process of a deployed file that is not executable.
type SkippedProcess = bpmn.SkippedProcess

// ProcessDefinition is a deployed version of a process.
type ProcessDefinition = persistence.ProcessDefinition

// JobDefinition describes the jobs one activity creates (an asynchronous
// continuation before or after it, or its timer).
type JobDefinition = persistence.JobDefinition

// ExecutionRow is a process instance (the root execution, which runs the
// instance's path itself while there is no concurrency), a concurrent path
// (IsConcurrent), or the scope execution of an embedded subprocess, a
// multi-instance body or an activity with input/output mappings (IsScope).
type ExecutionRow = persistence.Execution

// Task is an open user task.
type Task = persistence.Task

// Job types (Job.Type, JobQuery.Type).
const (
	JobTypeMessage = "message" // an asynchronous continuation
	JobTypeTimer   = "timer"
)

// Job is an asynchronous continuation or a timer.
type Job = persistence.Job

// EventSubscription is an execution (or a start event) waiting for a
// message or signal.
type EventSubscription = persistence.EventSubscription

// ExternalTask is a service task waiting for an external worker.
type ExternalTask = persistence.ExternalTask

// Incident types (Incident.Type).
const (
	IncidentFailedJob          = "failedJob"
	IncidentFailedExternalTask = "failedExternalTask"
)

// Incident is an open incident: a job out of retries, and the incidents it
// caused in the calling process instances.
type Incident = persistence.Incident

// Process instance states in history (HistoricProcessInstance.State).
const (
	StateActive    = "ACTIVE"
	StateCompleted = "COMPLETED"
	// StateInternallyTerminated: ended by the process itself (a terminate
	// end event, a cancelled call activity).
	StateInternallyTerminated = "INTERNALLY_TERMINATED"
	// StateExternallyTerminated: deleted through the API.
	StateExternallyTerminated = "EXTERNALLY_TERMINATED"
)

// HistoricProcessInstance is a process instance in history, running or ended.
type HistoricProcessInstance = persistence.HistoricProcessInstance

// HistoricActivityInstance is one activity instance in history.
type HistoricActivityInstance = persistence.HistoricActivityInstance

// JobLogEntry is one event of a job's life in history.
type JobLogEntry = persistence.JobLogEntry

// copies returns a copy of each stored row in its public form (convert;
// the row itself where the public type is an alias of the stored one), so
// that changing what a query returned changes nothing stored or cached.
func copies[E, M any](rows []*E, convert func(E) M) []*M {
	out := make([]*M, len(rows))
	for i, r := range rows {
		m := convert(*r)
		out[i] = &m
	}
	return out
}

// deploymentOf is the public form of a stored deployment, without its
// definitions: the one place that lists the fields the two share.
func deploymentOf(d persistence.Deployment) Deployment {
	return Deployment{ID: d.ID, Name: d.Name, Source: d.Source, DeployTime: d.DeployTime, TenantID: d.TenantID}
}
