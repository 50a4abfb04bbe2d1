package persistence

import (
	"strconv"
	"strings"
)

// Column conventions, the same on both backends:
//   - every string column except id is written as NULL when empty and read
//     back as "" when NULL, so optional references are NULL in the database
//     (and required ones, declared NOT NULL, fail loudly when left empty);
//   - empty or nil []byte is NULL and reads back as nil;
//   - a nil pointer is NULL; a non-pointer time.Time is never NULL;
//   - times are microsecond precision, read back in UTC.

// Flush order levels (Table.Order).
const (
	orderDeployment = 10 * (iota + 1)
	orderResource
	orderProcessDefinition
	orderJobDefinition
	orderExecution
	orderRuntime // variables, tasks, subscriptions, external tasks, jobs, incidents
	orderHistory
)

func newTable(name, entity string, order int, immutable bool, newFn func() Entity, cols ...string) *Table {
	return &Table{Name: name, EntityName: entity, Columns: cols, Order: order, Immutable: immutable, New: newFn}
}

// The engine's tables.
var (
	DeploymentTable = newTable("deployment", "Deployment", orderDeployment, true,
		func() Entity { return new(Deployment) },
		"id", "name", "source", "deploy_time")
	ResourceTable = newTable("resource", "Resource", orderResource, true,
		func() Entity { return new(Resource) },
		"id", "deployment_id", "name", "bytes", "hash")
	ProcessDefinitionTable = newTable("process_definition", "ProcessDefinition", orderProcessDefinition, false,
		func() Entity { return new(ProcessDefinition) },
		"id", "rev", "key", "version", "name", "deployment_id", "resource_name", "suspension",
		"has_start_form", "version_tag", "history_time_to_live", "candidate_starter_groups", "candidate_starter_users")
	JobDefinitionTable = newTable("job_definition", "JobDefinition", orderJobDefinition, false,
		func() Entity { return new(JobDefinition) },
		"id", "rev", "process_definition_id", "process_definition_key", "activity_id", "job_type",
		"job_configuration", "overriding_priority", "suspension")
	ExecutionTable = newTable("execution", "Execution", orderExecution, false,
		func() Entity { return new(Execution) },
		"id", "rev", "process_instance_id", "parent_id", "process_definition_id", "activity_id",
		"activity_instance_id", "business_key", "super_execution_id", "is_active", "is_scope",
		"is_concurrent", "is_event_scope", "suspension", "transition_id", "start_time",
		"root_process_instance_id")
	// VariableTable: the value columns are suffixed _value because text,
	// long, double and time are type names in SQL.
	VariableTable = newTable("variable", "Variable", orderRuntime, false,
		func() Entity { return new(Variable) },
		"id", "rev", "name", "type", "execution_id", "process_instance_id", "task_id",
		"text_value", "long_value", "double_value", "time_value", "bytes_value")
	TaskTable = newTable("task", "Task", orderRuntime, false,
		func() Entity { return new(Task) },
		"id", "rev", "name", "execution_id", "process_instance_id", "process_definition_id",
		"task_definition_key", "assignee", "candidate_groups", "candidate_users", "priority",
		"create_time", "due_date", "suspension", "follow_up_date", "form_key")
	EventSubscriptionTable = newTable("event_subscription", "EventSubscription", orderRuntime, false,
		func() Entity { return new(EventSubscription) },
		"id", "rev", "event_type", "event_name", "execution_id", "process_instance_id", "activity_id",
		"process_definition_id", "configuration", "created")
	ExternalTaskTable = newTable("external_task", "ExternalTask", orderRuntime, false,
		func() Entity { return new(ExternalTask) },
		"id", "rev", "topic", "worker_id", "lock_expiration", "retries", "error_message",
		"error_details", "execution_id", "process_instance_id", "process_definition_id",
		"process_definition_key", "activity_id", "activity_instance_id", "priority", "suspension",
		"business_key", "create_time")
	JobTable = newTable("job", "Job", orderRuntime, false,
		func() Entity { return new(Job) },
		"id", "rev", "type", "lock_owner", "lock_expiration", "exclusive", "execution_id",
		"process_instance_id", "process_definition_id", "process_definition_key",
		"job_definition_id", "deployment_id", "activity_id", "retries", "exception_message",
		"exception_stack", "due_date", "repeat", "handler_type", "handler_config", "priority",
		"suspension", "create_time", "failed_attempts", "failed_activity_id", "root_process_instance_id")
	IncidentTable = newTable("incident", "Incident", orderRuntime, false,
		func() Entity { return new(Incident) },
		"id", "rev", "type", "timestamp", "message", "execution_id", "activity_id",
		"process_instance_id", "process_definition_id", "cause_incident_id",
		"root_cause_incident_id", "configuration", "job_definition_id", "failed_activity_id")
	HistoricProcessInstanceTable = newTable("hist_process_instance", "HistoricProcessInstance", orderHistory, false,
		func() Entity { return new(HistoricProcessInstance) },
		"id", "rev", "process_definition_id", "process_definition_key", "business_key",
		"start_time", "end_time", "state", "start_activity_id", "end_activity_id",
		"delete_reason", "super_process_instance_id", "root_process_instance_id", "removal_time")
	HistoricTaskTable = newTable("hist_task", "HistoricTask", orderHistory, false,
		func() Entity { return new(HistoricTask) },
		"id", "rev", "name", "execution_id", "process_instance_id", "process_definition_id",
		"process_definition_key", "task_definition_key", "activity_instance_id", "assignee",
		"priority", "due_date", "follow_up_date", "start_time", "end_time", "delete_reason")
	HistoricIncidentTable = newTable("hist_incident", "HistoricIncident", orderHistory, false,
		func() Entity { return new(HistoricIncident) },
		"id", "rev", "type", "create_time", "end_time", "state", "message", "execution_id",
		"activity_id", "failed_activity_id", "process_instance_id", "process_definition_id",
		"cause_incident_id", "root_cause_incident_id", "configuration", "job_definition_id")
	HistoricVariableTable = newTable("hist_variable", "HistoricVariable", orderHistory, false,
		func() Entity { return new(HistoricVariable) },
		"id", "rev", "name", "type", "execution_id", "process_instance_id", "task_id",
		"text_value", "long_value", "double_value", "time_value", "bytes_value")
	HistoricActivityInstanceTable = newTable("hist_activity_instance", "HistoricActivityInstance", orderHistory, false,
		func() Entity { return new(HistoricActivityInstance) },
		"id", "rev", "process_instance_id", "process_definition_id", "execution_id",
		"activity_id", "activity_name", "activity_type", "parent_activity_instance_id",
		"start_time", "end_time", "canceled", "called_process_instance_id", "task_id")
	JobExecutorTable = newTable("job_executor", "JobExecutorInfo", orderHistory, true,
		func() Entity { return new(JobExecutorInfo) },
		"id", "deployment_aware", "deployments", "priority_min", "priority_max", "pool_size", "queue_size", "inflight", "heartbeat")
	JobLogTable = newTable("job_log", "JobLogEntry", orderHistory, true,
		func() Entity { return new(JobLogEntry) },
		"id", "job_id", "event", "timestamp", "lock_owner", "retries", "message",
		"job_definition_id", "activity_id", "process_instance_id", "priority", "execution_start")
)

var allTables = []*Table{
	DeploymentTable, ResourceTable, ProcessDefinitionTable, JobDefinitionTable, ExecutionTable,
	VariableTable, TaskTable, EventSubscriptionTable, ExternalTaskTable, JobTable, IncidentTable,
	HistoricProcessInstanceTable, HistoricActivityInstanceTable, HistoricVariableTable, HistoricTaskTable,
	HistoricIncidentTable, JobExecutorTable, JobLogTable,
}

// Tables returns every table of the schema in flush (insert) order.
func Tables() []*Table {
	return append([]*Table(nil), allTables...)
}

// tableSQL holds a table's generated statements, built once.
type tableSQL struct {
	insert, update, delete, get, selectPrefix string
	columnList                                string
}

func (t *Table) statements() *tableSQL {
	t.sqlOnce.Do(func() {
		cols := strings.Join(t.Columns, ", ")
		var b strings.Builder
		b.WriteString("INSERT INTO " + t.Name + " (" + cols + ") VALUES (")
		for i := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i+1))
		}
		b.WriteString(")")
		s := tableSQL{
			insert:       b.String(),
			get:          "SELECT " + cols + " FROM " + t.Name + " WHERE id = $1",
			selectPrefix: "SELECT " + cols + " FROM " + t.Name + " ",
			columnList:   cols,
		}
		if t.Immutable {
			s.delete = "DELETE FROM " + t.Name + " WHERE id = $1"
		} else {
			// Update binds Values() as they are: $1 is id, $2 the revision read.
			b.Reset()
			b.WriteString("UPDATE " + t.Name + " SET ")
			for i, c := range t.Columns[2:] {
				b.WriteString(c + " = $" + strconv.Itoa(i+3) + ", ")
			}
			b.WriteString("rev = rev + 1 WHERE id = $1 AND rev = $2")
			s.update = b.String()
			s.delete = "DELETE FROM " + t.Name + " WHERE id = $1 AND rev = $2"
		}
		t.sql = s
	})
	return &t.sql
}

// nullStr maps "" to NULL.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullBytes maps empty bytes to NULL.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// Deployment

func (*Deployment) Table() *Table      { return DeploymentTable }
func (e *Deployment) EntityID() string { return e.ID }
func (*Deployment) Revision() int      { return 1 }
func (*Deployment) SetRevision(int)    {}
func (e *Deployment) Values() []any {
	return []any{e.ID, nullStr(e.Name), nullStr(e.Source), e.DeployTime}
}
func (e *Deployment) Targets() []any {
	return []any{&e.ID, &e.Name, &e.Source, &e.DeployTime}
}

// Resource

func (*Resource) Table() *Table      { return ResourceTable }
func (e *Resource) EntityID() string { return e.ID }
func (*Resource) Revision() int      { return 1 }
func (*Resource) SetRevision(int)    {}
func (e *Resource) Values() []any {
	return []any{e.ID, nullStr(e.DeploymentID), nullStr(e.Name), nullBytes(e.Bytes), nullStr(e.Hash)}
}
func (e *Resource) Targets() []any {
	return []any{&e.ID, &e.DeploymentID, &e.Name, &e.Bytes, &e.Hash}
}

// ProcessDefinition

func (*ProcessDefinition) Table() *Table       { return ProcessDefinitionTable }
func (e *ProcessDefinition) EntityID() string  { return e.ID }
func (e *ProcessDefinition) Revision() int     { return e.Rev }
func (e *ProcessDefinition) SetRevision(r int) { e.Rev = r }
func (e *ProcessDefinition) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Key), e.Version, nullStr(e.Name), nullStr(e.DeploymentID),
		nullStr(e.ResourceName), e.Suspension, e.HasStartForm, nullStr(e.VersionTag), e.HistoryTimeToLive,
		nullStr(e.CandidateStarterGroups), nullStr(e.CandidateStarterUsers)}
}
func (e *ProcessDefinition) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Key, &e.Version, &e.Name, &e.DeploymentID,
		&e.ResourceName, &e.Suspension, &e.HasStartForm, &e.VersionTag, &e.HistoryTimeToLive,
		&e.CandidateStarterGroups, &e.CandidateStarterUsers}
}

// JobDefinition

func (*JobDefinition) Table() *Table       { return JobDefinitionTable }
func (e *JobDefinition) EntityID() string  { return e.ID }
func (e *JobDefinition) Revision() int     { return e.Rev }
func (e *JobDefinition) SetRevision(r int) { e.Rev = r }
func (e *JobDefinition) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.ProcessDefinitionID), nullStr(e.ProcessDefinitionKey),
		nullStr(e.ActivityID), nullStr(e.JobType), nullStr(e.JobConfiguration), e.OverridingPriority,
		e.Suspension}
}
func (e *JobDefinition) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.ProcessDefinitionID, &e.ProcessDefinitionKey,
		&e.ActivityID, &e.JobType, &e.JobConfiguration, &e.OverridingPriority,
		&e.Suspension}
}

// Execution

func (*Execution) Table() *Table       { return ExecutionTable }
func (e *Execution) EntityID() string  { return e.ID }
func (e *Execution) Revision() int     { return e.Rev }
func (e *Execution) SetRevision(r int) { e.Rev = r }
func (e *Execution) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.ProcessInstanceID), nullStr(e.ParentID),
		nullStr(e.ProcessDefinitionID), nullStr(e.ActivityID), nullStr(e.ActivityInstanceID),
		nullStr(e.BusinessKey), nullStr(e.SuperExecutionID), e.IsActive, e.IsScope,
		e.IsConcurrent, e.IsEventScope, e.Suspension, nullStr(e.TransitionID), e.StartTime,
		nullStr(e.RootProcessInstanceID)}
}
func (e *Execution) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.ProcessInstanceID, &e.ParentID,
		&e.ProcessDefinitionID, &e.ActivityID, &e.ActivityInstanceID,
		&e.BusinessKey, &e.SuperExecutionID, &e.IsActive, &e.IsScope,
		&e.IsConcurrent, &e.IsEventScope, &e.Suspension, &e.TransitionID, &e.StartTime,
		&e.RootProcessInstanceID}
}

// Variable

func (*Variable) Table() *Table { return VariableTable }

// HistoricVariable: a Variable row kept in history.

func (*HistoricVariable) Table() *Table { return HistoricVariableTable }
func (e *Variable) EntityID() string    { return e.ID }
func (e *Variable) Revision() int       { return e.Rev }
func (e *Variable) SetRevision(r int)   { e.Rev = r }
func (e *Variable) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Name), nullStr(e.Type), nullStr(e.ExecutionID),
		nullStr(e.ProcessInstanceID), nullStr(e.TaskID), nullStr(e.Text), e.Long, e.Double,
		e.Time, nullBytes(e.Bytes)}
}
func (e *Variable) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Name, &e.Type, &e.ExecutionID,
		&e.ProcessInstanceID, &e.TaskID, &e.Text, &e.Long, &e.Double,
		&e.Time, &e.Bytes}
}

// Task

func (*Task) Table() *Table       { return TaskTable }
func (e *Task) EntityID() string  { return e.ID }
func (e *Task) Revision() int     { return e.Rev }
func (e *Task) SetRevision(r int) { e.Rev = r }
func (e *Task) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Name), nullStr(e.ExecutionID), nullStr(e.ProcessInstanceID),
		nullStr(e.ProcessDefinitionID), nullStr(e.TaskDefinitionKey), nullStr(e.Assignee),
		nullStr(e.CandidateGroups), nullStr(e.CandidateUsers), e.Priority, e.CreateTime,
		e.DueDate, e.Suspension, e.FollowUpDate, nullStr(e.FormKey)}
}
func (e *Task) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Name, &e.ExecutionID, &e.ProcessInstanceID,
		&e.ProcessDefinitionID, &e.TaskDefinitionKey, &e.Assignee,
		&e.CandidateGroups, &e.CandidateUsers, &e.Priority, &e.CreateTime,
		&e.DueDate, &e.Suspension, &e.FollowUpDate, &e.FormKey}
}

// EventSubscription

func (*EventSubscription) Table() *Table       { return EventSubscriptionTable }
func (e *EventSubscription) EntityID() string  { return e.ID }
func (e *EventSubscription) Revision() int     { return e.Rev }
func (e *EventSubscription) SetRevision(r int) { e.Rev = r }
func (e *EventSubscription) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.EventType), nullStr(e.EventName), nullStr(e.ExecutionID),
		nullStr(e.ProcessInstanceID), nullStr(e.ActivityID), nullStr(e.ProcessDefinitionID),
		nullStr(e.Configuration), e.Created}
}
func (e *EventSubscription) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.EventType, &e.EventName, &e.ExecutionID,
		&e.ProcessInstanceID, &e.ActivityID, &e.ProcessDefinitionID,
		&e.Configuration, &e.Created}
}

// ExternalTask

func (*ExternalTask) Table() *Table       { return ExternalTaskTable }
func (e *ExternalTask) EntityID() string  { return e.ID }
func (e *ExternalTask) Revision() int     { return e.Rev }
func (e *ExternalTask) SetRevision(r int) { e.Rev = r }
func (e *ExternalTask) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Topic), nullStr(e.WorkerID), e.LockExpiration, e.Retries,
		nullStr(e.ErrorMessage), nullStr(e.ErrorDetails), nullStr(e.ExecutionID),
		nullStr(e.ProcessInstanceID), nullStr(e.ProcessDefinitionID),
		nullStr(e.ProcessDefinitionKey), nullStr(e.ActivityID), nullStr(e.ActivityInstanceID),
		e.Priority, e.Suspension, nullStr(e.BusinessKey), e.CreateTime}
}
func (e *ExternalTask) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Topic, &e.WorkerID, &e.LockExpiration, &e.Retries,
		&e.ErrorMessage, &e.ErrorDetails, &e.ExecutionID,
		&e.ProcessInstanceID, &e.ProcessDefinitionID,
		&e.ProcessDefinitionKey, &e.ActivityID, &e.ActivityInstanceID,
		&e.Priority, &e.Suspension, &e.BusinessKey, &e.CreateTime}
}

// Job

func (*Job) Table() *Table       { return JobTable }
func (e *Job) EntityID() string  { return e.ID }
func (e *Job) Revision() int     { return e.Rev }
func (e *Job) SetRevision(r int) { e.Rev = r }
func (e *Job) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Type), nullStr(e.LockOwner), e.LockExpiration, e.Exclusive,
		nullStr(e.ExecutionID), nullStr(e.ProcessInstanceID), nullStr(e.ProcessDefinitionID),
		nullStr(e.ProcessDefinitionKey), nullStr(e.JobDefinitionID), nullStr(e.DeploymentID),
		nullStr(e.ActivityID), e.Retries, nullStr(e.ExceptionMessage), nullStr(e.ExceptionStack),
		e.DueDate, nullStr(e.Repeat), nullStr(e.HandlerType), nullStr(e.HandlerConfig), e.Priority,
		e.Suspension, e.CreateTime, e.FailedAttempts, nullStr(e.FailedActivityID), nullStr(e.RootProcessInstanceID)}
}
func (e *Job) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Type, &e.LockOwner, &e.LockExpiration, &e.Exclusive,
		&e.ExecutionID, &e.ProcessInstanceID, &e.ProcessDefinitionID,
		&e.ProcessDefinitionKey, &e.JobDefinitionID, &e.DeploymentID,
		&e.ActivityID, &e.Retries, &e.ExceptionMessage, &e.ExceptionStack,
		&e.DueDate, &e.Repeat, &e.HandlerType, &e.HandlerConfig, &e.Priority,
		&e.Suspension, &e.CreateTime, &e.FailedAttempts, &e.FailedActivityID, &e.RootProcessInstanceID}
}

// Incident

func (*Incident) Table() *Table       { return IncidentTable }
func (e *Incident) EntityID() string  { return e.ID }
func (e *Incident) Revision() int     { return e.Rev }
func (e *Incident) SetRevision(r int) { e.Rev = r }
func (e *Incident) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Type), e.Timestamp, nullStr(e.Message),
		nullStr(e.ExecutionID), nullStr(e.ActivityID), nullStr(e.ProcessInstanceID),
		nullStr(e.ProcessDefinitionID), nullStr(e.CauseIncidentID),
		nullStr(e.RootCauseIncidentID), nullStr(e.Configuration), nullStr(e.JobDefinitionID),
		nullStr(e.FailedActivityID)}
}
func (e *Incident) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Type, &e.Timestamp, &e.Message,
		&e.ExecutionID, &e.ActivityID, &e.ProcessInstanceID,
		&e.ProcessDefinitionID, &e.CauseIncidentID,
		&e.RootCauseIncidentID, &e.Configuration, &e.JobDefinitionID, &e.FailedActivityID}
}

// HistoricProcessInstance

func (*HistoricProcessInstance) Table() *Table       { return HistoricProcessInstanceTable }
func (e *HistoricProcessInstance) EntityID() string  { return e.ID }
func (e *HistoricProcessInstance) Revision() int     { return e.Rev }
func (e *HistoricProcessInstance) SetRevision(r int) { e.Rev = r }
func (e *HistoricProcessInstance) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.ProcessDefinitionID), nullStr(e.ProcessDefinitionKey),
		nullStr(e.BusinessKey), e.StartTime, e.EndTime, nullStr(e.State),
		nullStr(e.StartActivityID), nullStr(e.EndActivityID), nullStr(e.DeleteReason),
		nullStr(e.SuperProcessInstanceID), nullStr(e.RootProcessInstanceID), e.RemovalTime}
}
func (e *HistoricProcessInstance) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.ProcessDefinitionID, &e.ProcessDefinitionKey,
		&e.BusinessKey, &e.StartTime, &e.EndTime, &e.State,
		&e.StartActivityID, &e.EndActivityID, &e.DeleteReason,
		&e.SuperProcessInstanceID, &e.RootProcessInstanceID, &e.RemovalTime}
}

// HistoricTask

func (*HistoricTask) Table() *Table       { return HistoricTaskTable }
func (e *HistoricTask) EntityID() string  { return e.ID }
func (e *HistoricTask) Revision() int     { return e.Rev }
func (e *HistoricTask) SetRevision(r int) { e.Rev = r }
func (e *HistoricTask) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Name), nullStr(e.ExecutionID), nullStr(e.ProcessInstanceID),
		nullStr(e.ProcessDefinitionID), nullStr(e.ProcessDefinitionKey), nullStr(e.TaskDefinitionKey),
		nullStr(e.ActivityInstanceID), nullStr(e.Assignee), e.Priority, e.DueDate, e.FollowUpDate,
		e.StartTime, e.EndTime, nullStr(e.DeleteReason)}
}
func (e *HistoricTask) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Name, &e.ExecutionID, &e.ProcessInstanceID,
		&e.ProcessDefinitionID, &e.ProcessDefinitionKey, &e.TaskDefinitionKey,
		&e.ActivityInstanceID, &e.Assignee, &e.Priority, &e.DueDate, &e.FollowUpDate,
		&e.StartTime, &e.EndTime, &e.DeleteReason}
}

// HistoricIncident

func (*HistoricIncident) Table() *Table       { return HistoricIncidentTable }
func (e *HistoricIncident) EntityID() string  { return e.ID }
func (e *HistoricIncident) Revision() int     { return e.Rev }
func (e *HistoricIncident) SetRevision(r int) { e.Rev = r }
func (e *HistoricIncident) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.Type), e.CreateTime, e.EndTime, nullStr(e.State), nullStr(e.Message),
		nullStr(e.ExecutionID), nullStr(e.ActivityID), nullStr(e.FailedActivityID), nullStr(e.ProcessInstanceID),
		nullStr(e.ProcessDefinitionID), nullStr(e.CauseIncidentID), nullStr(e.RootCauseIncidentID),
		nullStr(e.Configuration), nullStr(e.JobDefinitionID)}
}
func (e *HistoricIncident) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.Type, &e.CreateTime, &e.EndTime, &e.State, &e.Message,
		&e.ExecutionID, &e.ActivityID, &e.FailedActivityID, &e.ProcessInstanceID,
		&e.ProcessDefinitionID, &e.CauseIncidentID, &e.RootCauseIncidentID,
		&e.Configuration, &e.JobDefinitionID}
}

// HistoricActivityInstance

func (*HistoricActivityInstance) Table() *Table       { return HistoricActivityInstanceTable }
func (e *HistoricActivityInstance) EntityID() string  { return e.ID }
func (e *HistoricActivityInstance) Revision() int     { return e.Rev }
func (e *HistoricActivityInstance) SetRevision(r int) { e.Rev = r }
func (e *HistoricActivityInstance) Values() []any {
	return []any{e.ID, e.Rev, nullStr(e.ProcessInstanceID), nullStr(e.ProcessDefinitionID),
		nullStr(e.ExecutionID), nullStr(e.ActivityID), nullStr(e.ActivityName),
		nullStr(e.ActivityType), nullStr(e.ParentActivityInstanceID), e.StartTime, e.EndTime,
		e.Canceled, nullStr(e.CalledProcessInstanceID), nullStr(e.TaskID)}
}
func (e *HistoricActivityInstance) Targets() []any {
	return []any{&e.ID, &e.Rev, &e.ProcessInstanceID, &e.ProcessDefinitionID,
		&e.ExecutionID, &e.ActivityID, &e.ActivityName,
		&e.ActivityType, &e.ParentActivityInstanceID, &e.StartTime, &e.EndTime,
		&e.Canceled, &e.CalledProcessInstanceID, &e.TaskID}
}

// JobLogEntry

func (*JobLogEntry) Table() *Table      { return JobLogTable }
func (e *JobLogEntry) EntityID() string { return e.ID }
func (*JobLogEntry) Revision() int      { return 1 }
func (*JobLogEntry) SetRevision(int)    {}
func (e *JobLogEntry) Values() []any {
	return []any{e.ID, nullStr(e.JobID), nullStr(e.Event), e.Timestamp, nullStr(e.LockOwner),
		e.Retries, nullStr(e.Message), nullStr(e.JobDefinitionID), nullStr(e.ActivityID),
		nullStr(e.ProcessInstanceID), e.Priority, e.ExecutionStart}
}
func (e *JobLogEntry) Targets() []any {
	return []any{&e.ID, &e.JobID, &e.Event, &e.Timestamp, &e.LockOwner,
		&e.Retries, &e.Message, &e.JobDefinitionID, &e.ActivityID,
		&e.ProcessInstanceID, &e.Priority, &e.ExecutionStart}
}

// JobExecutorInfo

func (*JobExecutorInfo) Table() *Table      { return JobExecutorTable }
func (e *JobExecutorInfo) EntityID() string { return e.ID }
func (*JobExecutorInfo) Revision() int      { return 1 }
func (*JobExecutorInfo) SetRevision(int)    {}
func (e *JobExecutorInfo) Values() []any {
	return []any{e.ID, e.DeploymentAware, nullStr(e.Deployments), e.PriorityMin, e.PriorityMax, e.PoolSize, e.QueueSize, e.Inflight, e.Heartbeat}
}
func (e *JobExecutorInfo) Targets() []any {
	return []any{&e.ID, &e.DeploymentAware, &e.Deployments, &e.PriorityMin, &e.PriorityMax, &e.PoolSize, &e.QueueSize, &e.Inflight, &e.Heartbeat}
}
