package bpmnlite

import (
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// What the queries return: plain values, copies of the stored rows.
// Changing them changes nothing stored; the management calls do.

// Suspension states (the Suspension field of definitions, instances,
// tasks, jobs and job definitions).
const (
	SuspensionActive    = 1
	SuspensionSuspended = 2
)

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

// Job types (Job.Type, JobQuery.Type).
const (
	JobTypeMessage = "message" // an asynchronous continuation
	JobTypeTimer   = "timer"
)

// Incident types (Incident.Type).
const (
	IncidentFailedJob          = "failedJob"
	IncidentFailedExternalTask = "failedExternalTask"
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
	JobLogCreated   = "created"
	JobLogLocked    = "locked"
	JobLogFailed    = "failed"
	JobLogSucceeded = "succeeded"
	JobLogDeleted   = "deleted"
)

// Deployment is the result of a deployment: the stored deployment, the
// process definitions created (one new version per process key), the
// processes skipped as not executable, and parser warnings.
type Deployment struct {
	ID         string
	Name       string
	Source     string
	DeployTime time.Time
	// Definitions are the process definitions of the deployment.
	Definitions []*ProcessDefinition
	Skipped     []SkippedProcess
	Warnings    []Problem
	// Unchanged is set when SkipUnchanged found nothing new: the
	// deployment and definitions are the existing ones.
	Unchanged bool
}

// SkippedProcess is a process of a deployed file that is not executable.
type SkippedProcess = bpmn.SkippedProcess

// ProcessDefinition is a deployed version of a process.
type ProcessDefinition struct {
	ID           string // key:version:uuid
	Rev          int
	Key          string
	Version      int
	Name         string
	DeploymentID string
	ResourceName string
	Suspension   int
	HasStartForm bool
	VersionTag   string
	// HistoryTimeToLive is camunda:historyTimeToLive in days; nil: the
	// engine's default (Config.HistoryTimeToLive).
	HistoryTimeToLive *int
	// CandidateStarterGroups and CandidateStarterUsers are the process's
	// camunda:candidateStarterGroups and candidateStarterUsers, as written.
	CandidateStarterGroups string
	CandidateStarterUsers  string
}

// ExecutionRow is a process instance (the root execution, which runs the
// instance's path itself while there is no concurrency), a concurrent path
// (IsConcurrent), or the scope execution of an embedded subprocess, a
// multi-instance body or an activity with input/output mappings (IsScope).
type ExecutionRow struct {
	ID                  string
	Rev                 int
	ProcessInstanceID   string
	ParentID            string // "" for the process instance
	ProcessDefinitionID string
	ActivityID          string // where the path is; "" when nowhere or when a child execution runs in it
	ActivityInstanceID  string
	BusinessKey         string // on the process instance only
	SuperExecutionID    string // the calling call activity's execution
	IsActive            bool
	IsScope             bool
	IsConcurrent        bool
	IsEventScope        bool
	Suspension          int
	TransitionID        string
	StartTime           time.Time
	// RootProcessInstanceID is the top of the instance's call hierarchy
	// (itself unless a call activity started it); on the process instance only.
	RootProcessInstanceID string
}

// Task is an open user task.
type Task struct {
	ID                  string
	Rev                 int
	Name                string
	ExecutionID         string
	ProcessInstanceID   string
	ProcessDefinitionID string
	TaskDefinitionKey   string // the user task's activity id
	Assignee            string
	CandidateGroups     string // comma-separated
	CandidateUsers      string // comma-separated
	Priority            int
	CreateTime          time.Time
	DueDate             *time.Time
	Suspension          int
	FollowUpDate        *time.Time
	FormKey             string // camunda:formKey or camunda:formRef, as written
}

// Job is an asynchronous continuation or a timer.
type Job struct {
	ID                   string
	Rev                  int
	Type                 string // JobTypeMessage or JobTypeTimer
	LockOwner            string
	LockExpiration       *time.Time
	Exclusive            bool
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	JobDefinitionID      string
	DeploymentID         string
	ActivityID           string
	Retries              int
	ExceptionMessage     string
	ExceptionStack       string
	DueDate              *time.Time // nil: due at once
	Repeat               string     // a repeating timer's cycle as stored (Camunda's form: "R5/2026-11-27T10:00:00/PT1H")
	HandlerType          string
	HandlerConfig        string
	Priority             int64
	Suspension           int
	CreateTime           time.Time
	// FailedAttempts counts the runs that ended without a result because
	// the node running the job died or its lock expired.
	FailedAttempts int
	// FailedActivityID is the activity where the last failure happened: not
	// the job's own when the job ran several activities in its transaction.
	FailedActivityID string
	// RootProcessInstanceID is the top of the job's call hierarchy.
	RootProcessInstanceID string
}

// JobDefinition describes the jobs one activity creates (an asynchronous
// continuation before or after it, or its timer).
type JobDefinition struct {
	ID                   string
	Rev                  int
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	ActivityID           string
	JobType              string // JobTypeMessage or JobTypeTimer
	JobConfiguration     string // async-before, async-after, or the timer ("DATE: ...")
	OverridingPriority   *int64
	Suspension           int
}

// EventSubscription is an execution (or a start event) waiting for a
// message or signal.
type EventSubscription struct {
	ID                  string
	Rev                 int
	EventType           string // "message" or "signal"
	EventName           string
	ExecutionID         string
	ProcessInstanceID   string
	ActivityID          string
	ProcessDefinitionID string
	Configuration       string
	Created             time.Time
}

// ExternalTask is a service task waiting for an external worker.
type ExternalTask struct {
	ID                   string
	Rev                  int
	Topic                string
	WorkerID             string
	LockExpiration       *time.Time
	Retries              *int
	ErrorMessage         string
	ErrorDetails         string
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	ActivityID           string
	ActivityInstanceID   string
	Priority             int64
	Suspension           int
	BusinessKey          string
	CreateTime           time.Time
}

// Incident is an open incident: a job out of retries, and the incidents it
// caused in the calling process instances.
type Incident struct {
	ID                  string
	Rev                 int
	Type                string // IncidentFailedJob, IncidentFailedExternalTask
	Timestamp           time.Time
	Message             string
	ExecutionID         string
	ActivityID          string
	ProcessInstanceID   string
	ProcessDefinitionID string
	CauseIncidentID     string
	RootCauseIncidentID string
	Configuration       string // the job's or external task's id
	JobDefinitionID     string
	FailedActivityID    string // the activity where the failure happened
}

// HistoricProcessInstance is a process instance in history, running or ended.
type HistoricProcessInstance struct {
	ID                     string // the process instance id
	Rev                    int
	ProcessDefinitionID    string
	ProcessDefinitionKey   string
	BusinessKey            string
	StartTime              time.Time
	EndTime                *time.Time
	State                  string // StateActive, StateCompleted, ...
	StartActivityID        string
	EndActivityID          string
	DeleteReason           string
	SuperProcessInstanceID string
	RootProcessInstanceID  string
	// RemovalTime: when the history cleanup may remove the instance's
	// history (set when its root instance ends, if a time to live applies).
	RemovalTime *time.Time
}

// HistoricActivityInstance is one activity instance in history.
type HistoricActivityInstance struct {
	ID                       string
	Rev                      int
	ProcessInstanceID        string
	ProcessDefinitionID      string
	ExecutionID              string
	ActivityID               string
	ActivityName             string
	ActivityType             string
	ParentActivityInstanceID string
	StartTime                time.Time
	EndTime                  *time.Time
	Canceled                 bool
	CalledProcessInstanceID  string
	TaskID                   string
}

// JobLogEntry is one event of a job's life in history.
type JobLogEntry struct {
	ID                string
	JobID             string
	Event             string // JobLogCreated, JobLogLocked, ...
	Timestamp         time.Time
	LockOwner         string
	Retries           int
	Message           string
	JobDefinitionID   string
	ActivityID        string
	ProcessInstanceID string
	Priority          int64
	// ExecutionStart is when the run that failed or succeeded began.
	ExecutionStart *time.Time
}

// copies returns a copy of each stored row as a read model: the types have
// the same fields, so each row converts.
func copies[E, M any](rows []*E, convert func(E) M) []*M {
	out := make([]*M, len(rows))
	for i, r := range rows {
		m := convert(*r)
		out[i] = &m
	}
	return out
}

func deploymentOf(d *persistence.Deployment, defs []*persistence.ProcessDefinition) *Deployment {
	return &Deployment{
		ID: d.ID, Name: d.Name, Source: d.Source, DeployTime: d.DeployTime,
		Definitions: copies(defs, func(d persistence.ProcessDefinition) ProcessDefinition { return ProcessDefinition(d) }),
	}
}
