package bpmnlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// Rows the queries return. They are the stored entities: read them, do not
// modify them.
type (
	ProcessDefinition        = persistence.ProcessDefinition
	ExecutionRow             = persistence.Execution
	Task                     = persistence.Task
	Job                      = persistence.Job
	JobDefinition            = persistence.JobDefinition
	EventSubscription        = persistence.EventSubscription
	ExternalTask             = persistence.ExternalTask
	Incident                 = persistence.Incident
	HistoricProcessInstance  = persistence.HistoricProcessInstance
	HistoricActivityInstance = persistence.HistoricActivityInstance
)

// where builds a WHERE clause with numbered arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) eq(col string, v string) {
	if v != "" {
		w.args = append(w.args, v)
		w.conds = append(w.conds, fmt.Sprintf("%s = $%d", col, len(w.args)))
	}
}

func (w *where) cond(c string) { w.conds = append(w.conds, c) }

// arg adds a condition with one argument; format has one %d for its number.
func (w *where) arg(format string, v any) {
	w.args = append(w.args, v)
	w.conds = append(w.conds, fmt.Sprintf(format, len(w.args)))
}

func (w *where) sql(order string) string {
	s := ""
	if len(w.conds) > 0 {
		s = "WHERE " + strings.Join(w.conds, " AND ")
	}
	if order != "" {
		s += " ORDER BY " + order
	}
	return s
}

func query[T persistence.Entity](ctx context.Context, e *Engine, w *where, order string) ([]T, error) {
	var out []T
	err := e.read(ctx, func(t persistence.Tx) error {
		var err error
		out, err = persistence.SelectAs[T](ctx, t, w.sql(order), w.args...)
		return err
	})
	return out, err
}

// DefinitionQuery filters process definitions; empty fields match all.
type DefinitionQuery struct {
	ID, Key, DeploymentID string
	LatestOnly            bool
}

// ProcessDefinitions lists process definitions by key and version.
func (e *Engine) ProcessDefinitions(ctx context.Context, q DefinitionQuery) ([]*ProcessDefinition, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("key", q.Key)
	w.eq("deployment_id", q.DeploymentID)
	if q.LatestOnly {
		w.cond("version = (SELECT MAX(d2.version) FROM process_definition d2 WHERE d2.key = process_definition.key)")
	}
	return query[*ProcessDefinition](ctx, e, w, "key, version")
}

// TaskQuery filters user tasks; empty fields match all.
type TaskQuery struct {
	ID, ProcessInstanceID, TaskDefinitionKey, Assignee, CandidateGroup string
}

// Tasks lists open user tasks, oldest first.
func (e *Engine) Tasks(ctx context.Context, q TaskQuery) ([]*Task, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("process_instance_id", q.ProcessInstanceID)
	w.eq("task_definition_key", q.TaskDefinitionKey)
	w.eq("assignee", q.Assignee)
	if q.CandidateGroup != "" {
		w.args = append(w.args, "%,"+q.CandidateGroup+",%")
		w.cond(fmt.Sprintf("(',' || candidate_groups || ',') LIKE $%d", len(w.args)))
	}
	return query[*Task](ctx, e, w, "create_time, id")
}

// ExecutionQuery filters executions; empty fields match all.
type ExecutionQuery struct {
	ID, ProcessInstanceID, ActivityID, ProcessDefinitionID string
}

// Executions lists executions: the process instances (root executions,
// with no activity) and the paths inside them (at ActivityID).
func (e *Engine) Executions(ctx context.Context, q ExecutionQuery) ([]*ExecutionRow, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("process_instance_id", q.ProcessInstanceID)
	w.eq("activity_id", q.ActivityID)
	w.eq("process_definition_id", q.ProcessDefinitionID)
	return query[*ExecutionRow](ctx, e, w, "start_time, id")
}

// ProcessInstanceQuery filters process instances in history; empty fields
// match all.
type ProcessInstanceQuery struct {
	ID, ProcessDefinitionKey, ProcessDefinitionID, BusinessKey string
	// State: "" for all, or persistence.StateActive, StateCompleted, ...
	State string
}

// ProcessInstances lists process instances, running and ended, from history.
func (e *Engine) ProcessInstances(ctx context.Context, q ProcessInstanceQuery) ([]*HistoricProcessInstance, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("process_definition_key", q.ProcessDefinitionKey)
	w.eq("process_definition_id", q.ProcessDefinitionID)
	w.eq("business_key", q.BusinessKey)
	w.eq("state", q.State)
	return query[*HistoricProcessInstance](ctx, e, w, "start_time, id")
}

// ActivityHistory lists the activity instances of a process instance in the
// order they started: the path it took.
func (e *Engine) ActivityHistory(ctx context.Context, processInstanceID string) ([]*HistoricActivityInstance, error) {
	w := &where{}
	w.eq("process_instance_id", processInstanceID)
	return query[*HistoricActivityInstance](ctx, e, w, "start_time, id")
}

// JobQuery filters jobs; zero fields match all.
type JobQuery struct {
	ID, ProcessInstanceID, ProcessDefinitionID, ProcessDefinitionKey string
	ActivityID, JobDefinitionID                                      string
	Type                                                             string // "message" (async) or "timer"
	DueBefore, DueAfter                                              *time.Time
	WithException                                                    bool // jobs that failed at least once
	WithRetriesLeft                                                  bool
	NoRetriesLeft                                                    bool
	// Executable: retries left, due at the engine clock's time, active.
	Executable  bool
	Locked      bool // held by a job executor (lock not expired)
	Suspended   bool
	Active      bool
	PriorityMin *int64
	PriorityMax *int64
}

// Jobs lists jobs (asynchronous continuations and timers), oldest first.
func (e *Engine) Jobs(ctx context.Context, q JobQuery) ([]*Job, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("process_instance_id", q.ProcessInstanceID)
	w.eq("process_definition_id", q.ProcessDefinitionID)
	w.eq("process_definition_key", q.ProcessDefinitionKey)
	w.eq("activity_id", q.ActivityID)
	w.eq("job_definition_id", q.JobDefinitionID)
	w.eq("type", q.Type)
	if q.DueBefore != nil {
		w.arg("due_date < $%d", q.DueBefore.UTC())
	}
	if q.DueAfter != nil {
		w.arg("due_date > $%d", q.DueAfter.UTC())
	}
	if q.WithException {
		w.cond("exception_message IS NOT NULL")
	}
	if q.WithRetriesLeft {
		w.cond("retries > 0")
	}
	if q.NoRetriesLeft {
		w.cond("retries = 0")
	}
	if q.Executable {
		w.cond("retries > 0")
		w.arg("(due_date IS NULL OR due_date <= $%d)", e.Now().UTC())
		w.arg("suspension = $%d", persistence.Active)
	}
	if q.Locked {
		w.arg("lock_owner IS NOT NULL AND lock_expiration > $%d", e.Now().UTC())
	}
	if q.Suspended {
		w.arg("suspension = $%d", persistence.Suspended)
	}
	if q.Active {
		w.arg("suspension = $%d", persistence.Active)
	}
	if q.PriorityMin != nil {
		w.arg("priority >= $%d", *q.PriorityMin)
	}
	if q.PriorityMax != nil {
		w.arg("priority <= $%d", *q.PriorityMax)
	}
	return query[*Job](ctx, e, w, "create_time, id")
}

// JobDefinitions lists the job definitions of a process definition (all
// when empty), optionally of one activity.
func (e *Engine) JobDefinitions(ctx context.Context, processDefinitionID, activityID string) ([]*JobDefinition, error) {
	w := &where{}
	w.eq("process_definition_id", processDefinitionID)
	w.eq("activity_id", activityID)
	return query[*JobDefinition](ctx, e, w, "activity_id, job_configuration")
}

// EventSubscriptions lists message and signal subscriptions of a process
// instance (or all, with "").
func (e *Engine) EventSubscriptions(ctx context.Context, processInstanceID string) ([]*EventSubscription, error) {
	w := &where{}
	w.eq("process_instance_id", processInstanceID)
	return query[*EventSubscription](ctx, e, w, "created, id")
}

// ExternalTasks lists external tasks of a process instance (or all), or of a topic.
func (e *Engine) ExternalTasks(ctx context.Context, processInstanceID, topic string) ([]*ExternalTask, error) {
	w := &where{}
	w.eq("process_instance_id", processInstanceID)
	w.eq("topic", topic)
	return query[*ExternalTask](ctx, e, w, "create_time, id")
}

// IncidentQuery filters incidents; empty fields match all.
type IncidentQuery struct {
	ID, ProcessInstanceID, ProcessDefinitionID, ActivityID, Type string
	// Configuration is the failed job's (or external task's) id.
	Configuration   string
	JobDefinitionID string
}

// Incidents lists open incidents, oldest first.
func (e *Engine) Incidents(ctx context.Context, q IncidentQuery) ([]*Incident, error) {
	w := &where{}
	w.eq("id", q.ID)
	w.eq("process_instance_id", q.ProcessInstanceID)
	w.eq("process_definition_id", q.ProcessDefinitionID)
	w.eq("activity_id", q.ActivityID)
	w.eq("type", q.Type)
	w.eq("configuration", q.Configuration)
	w.eq("job_definition_id", q.JobDefinitionID)
	return query[*Incident](ctx, e, w, "timestamp, id")
}

// JobLogEntry is one event of a job's life in history.
type JobLogEntry = persistence.JobLogEntry

// JobLogQuery filters the job log; empty fields match all. ProcessInstanceID
// finds the instance's jobs by their creation entries: the entries of a job
// created while history was off are not found by instance.
type JobLogQuery struct {
	JobID, ProcessInstanceID, JobDefinitionID, Event string
}

// JobLog lists job events (created, locked, failed, succeeded, deleted) in
// the order they happened. It is written when history is on.
func (e *Engine) JobLog(ctx context.Context, q JobLogQuery) ([]*JobLogEntry, error) {
	w := &where{}
	w.eq("job_id", q.JobID)
	if q.ProcessInstanceID != "" {
		// Only creation entries are indexed by process instance
		// (job_log_created_process_instance); the literal lets SQLite use
		// that partial index.
		w.arg("job_id IN (SELECT job_id FROM job_log WHERE process_instance_id = $%d AND event = '"+persistence.JobLogCreated+"')", q.ProcessInstanceID)
	}
	w.eq("job_definition_id", q.JobDefinitionID)
	w.eq("event", q.Event)
	return query[*JobLogEntry](ctx, e, w, "timestamp, id")
}
