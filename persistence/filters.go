package persistence

import (
	"fmt"
	"strings"
	"time"
)

// Filters of the public list queries: each turns into one Query; zero fields
// match all.

// conditions builds a WHERE clause with numbered arguments.
type conditions struct {
	terms []string
	args  []any
}

// eq adds "column = value" when value is set.
func (c *conditions) eq(column, value string) {
	if value != "" {
		c.arg(column+" = $%d", value)
	}
}

// arg adds a condition with one argument; format has one %d for its number.
func (c *conditions) arg(format string, v any) {
	c.args = append(c.args, v)
	c.terms = append(c.terms, fmt.Sprintf(format, len(c.args)))
}

func (c *conditions) term(t string) { c.terms = append(c.terms, t) }

// before and after add column < t and column > t when t is set.
func (c *conditions) before(column string, t *time.Time) {
	if t != nil {
		c.arg(column+" < $%d", t.UTC())
	}
}

func (c *conditions) after(column string, t *time.Time) {
	if t != nil {
		c.arg(column+" > $%d", t.UTC())
	}
}

func query[T Entity](c *conditions, order string) Query[T] {
	s := ""
	if len(c.terms) > 0 {
		s = "WHERE " + strings.Join(c.terms, " AND ")
	}
	if order != "" {
		s += " ORDER BY " + order
	}
	return newQuery[T](s, c.args...)
}

// DefinitionFilter selects process definitions, by key and version.
type DefinitionFilter struct {
	ID, Key, DeploymentID string
	Version               int // 0: any
	LatestOnly            bool
	VersionTag            string // camunda:versionTag
}

func (f DefinitionFilter) Query() Query[*ProcessDefinition] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("key", f.Key)
	if f.Version > 0 {
		c.arg("version = $%d", f.Version)
	}
	c.eq("deployment_id", f.DeploymentID)
	c.eq("version_tag", f.VersionTag)
	if f.LatestOnly {
		c.term("version = (SELECT MAX(d2.version) FROM process_definition d2 WHERE d2.key = process_definition.key)")
	}
	return query[*ProcessDefinition](c, "key, version")
}

// TaskFilter selects user tasks, oldest first.
type TaskFilter struct {
	ID, ProcessInstanceID, TaskDefinitionKey, Assignee string
	// CandidateGroup and CandidateUser match one entry of the
	// comma-separated candidate groups or users, exactly.
	CandidateGroup, CandidateUser string
	// DueBefore, DueAfter, FollowUpBefore, FollowUpAfter: strictly before
	// or after the time; WithoutDueDate: tasks without one.
	DueBefore, DueAfter, FollowUpBefore, FollowUpAfter *time.Time
	WithoutDueDate                                     bool
	// Priority matches exactly; MinPriority and MaxPriority bound it.
	Priority, MinPriority, MaxPriority *int
}

func (f TaskFilter) Query() Query[*Task] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	c.eq("task_definition_key", f.TaskDefinitionKey)
	c.eq("assignee", f.Assignee)
	if f.CandidateGroup != "" {
		c.arg("(',' || candidate_groups || ',') LIKE $%d ESCAPE '\\'", "%,"+escapeLike(f.CandidateGroup)+",%")
	}
	if f.CandidateUser != "" {
		c.arg("(',' || candidate_users || ',') LIKE $%d ESCAPE '\\'", "%,"+escapeLike(f.CandidateUser)+",%")
	}
	c.before("due_date", f.DueBefore)
	c.after("due_date", f.DueAfter)
	c.before("follow_up_date", f.FollowUpBefore)
	c.after("follow_up_date", f.FollowUpAfter)
	if f.WithoutDueDate {
		c.term("due_date IS NULL")
	}
	if f.Priority != nil {
		c.arg("priority = $%d", *f.Priority)
	}
	if f.MinPriority != nil {
		c.arg("priority >= $%d", *f.MinPriority)
	}
	if f.MaxPriority != nil {
		c.arg("priority <= $%d", *f.MaxPriority)
	}
	return query[*Task](c, "create_time, id")
}

// HistoricTaskFilter selects user tasks in history, in the order they
// were created.
type HistoricTaskFilter struct {
	ID, ProcessInstanceID, ProcessDefinitionKey, TaskDefinitionKey, Assignee string
	// Finished: ended tasks; Unfinished: open ones.
	Finished, Unfinished bool
	// DeleteReason: TaskCompleted or TaskDeleted.
	DeleteReason string
}

func (f HistoricTaskFilter) Query() Query[*HistoricTask] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	c.eq("process_definition_key", f.ProcessDefinitionKey)
	c.eq("task_definition_key", f.TaskDefinitionKey)
	c.eq("assignee", f.Assignee)
	c.eq("delete_reason", f.DeleteReason)
	if f.Finished {
		c.term("end_time IS NOT NULL")
	}
	if f.Unfinished {
		c.term("end_time IS NULL")
	}
	return query[*HistoricTask](c, "start_time, id")
}

// HistoricIncidentFilter selects incidents in history, in the order they
// were raised.
type HistoricIncidentFilter struct {
	IncidentFilter
	// State: IncidentOpen, IncidentResolved or IncidentDeleted.
	State string
}

func (f HistoricIncidentFilter) Query() Query[*HistoricIncident] {
	c := f.conditions()
	c.eq("state", f.State)
	return query[*HistoricIncident](c, "create_time, id")
}

// escapeLike makes s match itself only in a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// ExecutionFilter selects executions, in the order they started, as
// Camunda shows them: an execution with a child execution is at no
// activity (see executionHasChild).
type ExecutionFilter struct {
	ID, ProcessInstanceID, ActivityID, ProcessDefinitionID string
}

// executionHasChild holds for an execution some child runs in: a path
// waiting at a subprocess, a multi-instance body or an activity with
// input/output mappings, a body's scope execution, a scope execution with
// concurrent paths. Camunda clears such an execution's activity; the
// runtime keeps the activity on a waiting path, as it leaves the activity
// from there when the child ends, and these queries derive Camunda's view
// from the tree: no second copy of the position to keep in step. Event
// scope children (kept for compensation) do not count, as in Camunda.
const executionHasChild = "EXISTS (SELECT 1 FROM execution ch WHERE ch.parent_id = execution.id AND NOT ch.is_event_scope)"

// shownExecutionColumns is the execution table's column list with the
// activity as Camunda shows it.
var shownExecutionColumns = func() string {
	cols := make([]string, len(ExecutionTable.Columns))
	for i, col := range ExecutionTable.Columns {
		cols[i] = col
		if col == "activity_id" {
			cols[i] = "CASE WHEN " + executionHasChild + " THEN NULL ELSE activity_id END"
		}
	}
	return strings.Join(cols, ", ")
}()

func (f ExecutionFilter) Query() Query[*Execution] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	if f.ActivityID != "" {
		c.arg("activity_id = $%d AND NOT "+executionHasChild, f.ActivityID)
	}
	c.eq("process_definition_id", f.ProcessDefinitionID)
	q := query[*Execution](c, "start_time, id")
	q.columns = shownExecutionColumns
	return q
}

// HistoricInstanceFilter selects process instances in history, in the
// order they started.
type HistoricInstanceFilter struct {
	ID, ProcessDefinitionKey, ProcessDefinitionID, BusinessKey, State string
}

func (f HistoricInstanceFilter) Query() Query[*HistoricProcessInstance] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_definition_key", f.ProcessDefinitionKey)
	c.eq("process_definition_id", f.ProcessDefinitionID)
	c.eq("business_key", f.BusinessKey)
	c.eq("state", f.State)
	return query[*HistoricProcessInstance](c, "start_time, id")
}

// ActivityInstancesOf are the activity instances of a process instance in
// the order they started: the path it took.
func ActivityInstancesOf(processInstanceID string) Query[*HistoricActivityInstance] {
	c := &conditions{}
	c.eq("process_instance_id", processInstanceID)
	return query[*HistoricActivityInstance](c, "start_time, id")
}

// JobFilter selects jobs, oldest first.
type JobFilter struct {
	ID, ProcessInstanceID, ProcessDefinitionID, ProcessDefinitionKey string
	RootProcessInstanceID                                            string
	ActivityID, JobDefinitionID, Type                                string
	DueBefore, DueAfter                                              *time.Time
	WithException, WithRetriesLeft, NoRetriesLeft                    bool
	// DueAt, when set, keeps the jobs that could run at that time: retries
	// left, due, active.
	DueAt *time.Time
	// LockedAt, when set, keeps the jobs whose lock still holds at that time.
	LockedAt          *time.Time
	Suspended, Active bool
	PriorityMin       *int64
	PriorityMax       *int64
	// DueFirst orders by due date, then creation: the order in
	// which a test runs jobs by hand.
	DueFirst bool
}

func (f JobFilter) Query() Query[*Job] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	c.eq("root_process_instance_id", f.RootProcessInstanceID)
	c.eq("process_definition_id", f.ProcessDefinitionID)
	c.eq("process_definition_key", f.ProcessDefinitionKey)
	c.eq("activity_id", f.ActivityID)
	c.eq("job_definition_id", f.JobDefinitionID)
	c.eq("type", f.Type)
	if f.DueBefore != nil {
		c.arg("due_date < $%d", f.DueBefore.UTC())
	}
	if f.DueAfter != nil {
		c.arg("due_date > $%d", f.DueAfter.UTC())
	}
	if f.WithException {
		c.term("exception_message IS NOT NULL")
	}
	if f.WithRetriesLeft {
		c.term("retries > 0")
	}
	if f.NoRetriesLeft {
		c.term("retries = 0")
	}
	if f.DueAt != nil {
		c.term("retries > 0")
		c.arg("(due_date IS NULL OR due_date <= $%d)", f.DueAt.UTC())
		c.arg("suspension = $%d", Active)
	}
	if f.LockedAt != nil {
		c.arg("lock_owner IS NOT NULL AND lock_expiration > $%d", f.LockedAt.UTC())
	}
	if f.Suspended {
		c.arg("suspension = $%d", Suspended)
	}
	if f.Active {
		c.arg("suspension = $%d", Active)
	}
	if f.PriorityMin != nil {
		c.arg("priority >= $%d", *f.PriorityMin)
	}
	if f.PriorityMax != nil {
		c.arg("priority <= $%d", *f.PriorityMax)
	}
	order := "create_time, id"
	if f.DueFirst {
		order = "due_date, create_time, id"
	}
	return query[*Job](c, order)
}

// JobDefinitionFilter selects job definitions.
type JobDefinitionFilter struct {
	ProcessDefinitionID, ActivityID string
}

func (f JobDefinitionFilter) Query() Query[*JobDefinition] {
	c := &conditions{}
	c.eq("process_definition_id", f.ProcessDefinitionID)
	c.eq("activity_id", f.ActivityID)
	return query[*JobDefinition](c, "activity_id, job_configuration")
}

// SubscriptionFilter selects message and signal subscriptions, oldest first.
type SubscriptionFilter struct {
	ProcessInstanceID string
}

func (f SubscriptionFilter) Query() Query[*EventSubscription] {
	c := &conditions{}
	c.eq("process_instance_id", f.ProcessInstanceID)
	return query[*EventSubscription](c, "created, id")
}

// ExternalTaskFilter selects external tasks, oldest first.
type ExternalTaskFilter struct {
	ID, Topic, WorkerID, ProcessInstanceID, ProcessDefinitionID, ActivityID string
	// Locked and NotLocked select tasks whose lock holds, or does not, at Now.
	Locked, NotLocked bool
	Now               time.Time
	// WithRetriesLeft: retries unset or above 0; NoRetriesLeft: 0.
	WithRetriesLeft, NoRetriesLeft bool
	Suspended, Active              bool
}

func (f ExternalTaskFilter) Query() Query[*ExternalTask] {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("topic", f.Topic)
	c.eq("worker_id", f.WorkerID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	c.eq("process_definition_id", f.ProcessDefinitionID)
	c.eq("activity_id", f.ActivityID)
	if f.Locked {
		c.arg("lock_expiration > $%d", f.Now)
	}
	if f.NotLocked {
		c.arg("(lock_expiration IS NULL OR lock_expiration <= $%d)", f.Now)
	}
	if f.WithRetriesLeft {
		c.term("(retries IS NULL OR retries > 0)")
	}
	if f.NoRetriesLeft {
		c.term("retries = 0")
	}
	if f.Suspended {
		c.term("suspension = 2")
	}
	if f.Active {
		c.term("suspension = 1")
	}
	return query[*ExternalTask](c, "create_time, id")
}

// IncidentFilter selects open incidents, oldest first.
type IncidentFilter struct {
	ID, ProcessInstanceID, ProcessDefinitionID, ActivityID, Type string
	Configuration, JobDefinitionID                               string
}

func (f IncidentFilter) Query() Query[*Incident] {
	return query[*Incident](f.conditions(), "timestamp, id")
}

// conditions are the filter's, on the columns incident and hist_incident share.
func (f IncidentFilter) conditions() *conditions {
	c := &conditions{}
	c.eq("id", f.ID)
	c.eq("process_instance_id", f.ProcessInstanceID)
	c.eq("process_definition_id", f.ProcessDefinitionID)
	c.eq("activity_id", f.ActivityID)
	c.eq("type", f.Type)
	c.eq("configuration", f.Configuration)
	c.eq("job_definition_id", f.JobDefinitionID)
	return c
}

// JobLogFilter selects job log entries in the order they were written.
type JobLogFilter struct {
	JobID, ProcessInstanceID, JobDefinitionID, Event string
}

func (f JobLogFilter) Query() Query[*JobLogEntry] {
	c := &conditions{}
	c.eq("job_id", f.JobID)
	if f.ProcessInstanceID != "" {
		// Only creation entries are indexed by process instance
		// (job_log_created_process_instance); the literal lets SQLite use
		// that partial index.
		c.arg("job_id IN (SELECT job_id FROM job_log WHERE process_instance_id = $%d AND event = '"+JobLogCreated+"')", f.ProcessInstanceID)
	}
	c.eq("job_definition_id", f.JobDefinitionID)
	c.eq("event", f.Event)
	return query[*JobLogEntry](c, "timestamp, id")
}
