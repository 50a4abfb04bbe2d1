package persistence

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

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

// HistoricDetail is a value a variable was given, kept as history (at
// history level full): Camunda's historic variable update. Its value
// columns are a Variable's (see Value).
type HistoricDetail struct {
	ID                   string // the detail's own
	Rev                  int
	Name                 string
	Type                 string
	ExecutionID          string
	ProcessInstanceID    string
	TaskID               string
	Text                 string    `db:"text_value"`
	Long                 int64     `db:"long_value"`
	Double               float64   `db:"double_value"`
	ValueTime            time.Time `db:"time_value"`
	Bytes                []byte    `db:"bytes_value"`
	VariableInstanceID   string    // the variable's id
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	ActivityInstanceID   string // of the variable's execution when set
	Time                 time.Time
	Revision             int  // the variable's writes before this one
	Initial              bool // set as the process instance started
	// FormField: a value submitted with a form (Camunda's historic form
	// field: Name its field id, Text its value), not a variable update.
	FormField bool
}

var HistoricDetailTable = newTable[HistoricDetail]("hist_detail", orderHistory)

func (e *HistoricDetail) row() (*Table, addr) { return HistoricDetailTable, addr(e) }

// DetailOf is the detail of the value variable r was just given.
func DetailOf(id string, r *Variable, at time.Time) *HistoricDetail {
	return &HistoricDetail{ID: id, Rev: 1, Name: r.Name, Type: r.Type, ExecutionID: r.ExecutionID,
		ProcessInstanceID: r.ProcessInstanceID, TaskID: r.TaskID, Text: r.Text, Long: r.Long, Double: r.Double,
		ValueTime: r.Time, Bytes: r.Bytes, VariableInstanceID: r.ID, Time: at}
}

// Value is the detail's value as a variable of its name holds it.
func (d *HistoricDetail) Value() *Variable {
	return &Variable{ID: d.VariableInstanceID, Name: d.Name, Type: d.Type, ExecutionID: d.ExecutionID,
		ProcessInstanceID: d.ProcessInstanceID, TaskID: d.TaskID, Text: d.Text, Long: d.Long, Double: d.Double,
		Time: d.ValueTime, Bytes: d.Bytes}
}

// RemoveHistoricVariables deletes the variables history keeps of a process
// instance, and their updates.
func RemoveHistoricVariables(processInstanceID string) []Write {
	return []Write{newWrite("DELETE FROM hist_variable WHERE process_instance_id = $1", processInstanceID),
		newWrite("DELETE FROM hist_detail WHERE process_instance_id = $1", processInstanceID)}
}

// MarkSuspended shows the running instances among rows that are
// suspended as StateSuspended, as Camunda's history does: one read per
// 500 rows listed, not a subquery for every row sorted.
func MarkSuspended(ctx context.Context, db DB, rows []*HistoricProcessInstance) error {
	byID := map[string]*HistoricProcessInstance{}
	for _, h := range rows {
		if h.State == StateActive {
			byID[h.ID] = h
		}
	}
	ids := slices.Sorted(maps.Keys(byID))
	for chunk := range slices.Chunk(ids, 500) {
		ps, args := make([]string, len(chunk)), make([]any, len(chunk))
		for i, id := range chunk {
			ps[i], args[i] = "$"+strconv.Itoa(i+1), id
		}
		err := readRows(ctx, db, "SELECT id FROM execution WHERE suspension = 2 AND id IN ("+strings.Join(ps, ", ")+")", args, func(r Rows) error {
			var id string
			if err := r.Scan(&id); err != nil {
				return err
			}
			byID[id].State = StateSuspended
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
