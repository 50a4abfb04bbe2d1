package persistence

import "time"

// External task log events, as Camunda's external task log has them.
const (
	ExternalTaskLogCreated   = "created"
	ExternalTaskLogFailed    = "failed"
	ExternalTaskLogSucceeded = "succeeded"
	ExternalTaskLogDeleted   = "deleted"
)

// ExternalTaskLogEntry is one event in an external task's life, kept as
// history: its creation, a worker's failure, its completion, its deletion
// (the public bpmnlite.ExternalTaskLogEntry).
type ExternalTaskLogEntry struct {
	ID                   string
	ExternalTaskID       string
	Event                string // ExternalTaskLogCreated, ...
	Timestamp            time.Time
	Topic                string
	WorkerID             string
	Priority             int64
	Retries              *int
	ErrorMessage         string
	ErrorDetails         string
	ActivityID           string
	ActivityInstanceID   string
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
}

var ExternalTaskLogTable = newTable[ExternalTaskLogEntry]("external_task_log", orderHistory)

func (e *ExternalTaskLogEntry) row() (*Table, addr) { return ExternalTaskLogTable, addr(e) }

// ExternalTaskLogOf is the entry of task's event at now; only a failure
// entry carries the error, as in Camunda.
func ExternalTaskLogOf(id string, task *ExternalTask, event string, now time.Time) *ExternalTaskLogEntry {
	l := &ExternalTaskLogEntry{
		ID: id, ExternalTaskID: task.ID, Event: event, Timestamp: now, Topic: task.Topic, WorkerID: task.WorkerID,
		Priority: task.Priority, Retries: task.Retries, ActivityID: task.ActivityID,
		ActivityInstanceID: task.ActivityInstanceID, ExecutionID: task.ExecutionID,
		ProcessInstanceID: task.ProcessInstanceID, ProcessDefinitionID: task.ProcessDefinitionID,
		ProcessDefinitionKey: task.ProcessDefinitionKey,
	}
	if event == ExternalTaskLogFailed {
		l.ErrorMessage, l.ErrorDetails = task.ErrorMessage, task.ErrorDetails
	}
	return l
}
