package bpmnlite

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The query types are the persistence filters: each field is declared
// once, with its SQL condition and its REST parameter (persistence/filters.go).

// ErrInvalidQuery is a query that cannot run: a sort key its type does not
// know, a value that is no query type.
var ErrInvalidQuery = persistence.ErrInvalidQuery

// Page selects which rows of a list come back, and in which order: the
// query types embed it. Its Sort keys are those SortKeys lists.
type Page = persistence.Page

// SortKey is one sorting criterion of a list.
type SortKey = persistence.SortKey

// SortKeys are the keys a query type sorts by (Camunda's sortBy values),
// in order; none for a type without a Page.
func SortKeys(query any) []string {
	return slices.Sorted(maps.Keys(persistence.SortKeys(query)))
}

// Count is the number of rows query selects, its Page aside: query is a
// value of one of the query types (TaskQuery, JobQuery, ...).
func (e *Engine) Count(ctx context.Context, query any) (int, error) {
	return persistence.CountFilter(ctx, e.db, query, e.Now())
}

// DefinitionQuery filters process definitions; empty fields match all.
type DefinitionQuery = persistence.DefinitionFilter

// DeploymentQuery filters deployments; zero fields match all.
type DeploymentQuery = persistence.DeploymentFilter

// Deployments lists deployments, oldest first (without their definitions).
func (e *Engine) Deployments(ctx context.Context, q DeploymentQuery) ([]*Deployment, error) {
	rows, err := persistence.List(ctx, e.db, q.Query())
	return copies(rows, deploymentOf), err
}

// ProcessDefinitions lists process definitions by key and version.
func (e *Engine) ProcessDefinitions(ctx context.Context, q DefinitionQuery) ([]*ProcessDefinition, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// TaskQuery filters user tasks; empty fields match all.
type TaskQuery = persistence.TaskFilter

// Tasks lists open user tasks, oldest first.
func (e *Engine) Tasks(ctx context.Context, q TaskQuery) ([]*Task, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// HistoricTaskQuery filters user tasks in history; zero fields match all.
type HistoricTaskQuery = persistence.HistoricTaskFilter

// HistoricTasks lists user tasks, open and ended, from history (written
// unless Config.History.Level is HistoryNone), oldest first.
func (e *Engine) HistoricTasks(ctx context.Context, q HistoricTaskQuery) ([]*HistoricTask, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// ExecutionQuery filters executions; empty fields match all.
type ExecutionQuery = persistence.ExecutionFilter

// Executions lists executions: the process instances (which run their path
// themselves while it has no concurrency), their concurrent paths and the
// scope executions of subprocesses, multi-instance bodies and activities
// with input/output mappings. As in Camunda, an execution with a child
// execution is at no activity (ActivityID ""): the process instance or
// path that entered a subprocess, a multi-instance body or an activity
// with input/output mappings, the body's scope, a scope with concurrent
// paths. So ActivityID finds the executions that are at the activity:
// the one running an input/output-mapped task, each inner instance of a
// multi-instance one, the paths waiting at a parallel join.
func (e *Engine) Executions(ctx context.Context, q ExecutionQuery) ([]*ExecutionRow, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// InstanceQuery filters running process instances; zero fields match all.
type InstanceQuery = persistence.InstanceFilter

// Instances lists running process instances (their root executions),
// oldest first, from the runtime tables: whatever the history level.
func (e *Engine) Instances(ctx context.Context, q InstanceQuery) ([]*ExecutionRow, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// HistoricActivityQuery filters activity instances in history; zero
// fields match all.
type HistoricActivityQuery = persistence.HistoricActivityFilter

// HistoricActivityInstances lists activity instances from history, in the
// order they started.
func (e *Engine) HistoricActivityInstances(ctx context.Context, q HistoricActivityQuery) ([]*HistoricActivityInstance, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// ActivityHistory lists the activity instances of a process instance in the
// order they started: the path it took.
func (e *Engine) ActivityHistory(ctx context.Context, processInstanceID string) ([]*HistoricActivityInstance, error) {
	return persistence.List(ctx, e.db, persistence.ActivityInstancesOf(processInstanceID))
}

// JobQuery filters jobs; zero fields match all.
// Executable and Locked are judged at the engine clock's time.
type JobQuery = persistence.JobFilter

// Jobs lists jobs (asynchronous continuations and timers), oldest first.
func (e *Engine) Jobs(ctx context.Context, q JobQuery) ([]*Job, error) {
	return persistence.List(ctx, e.db, q.At(e.Now()))
}

// JobDefinitions lists the job definitions of a process definition (all
// when empty), optionally of one activity.
func (e *Engine) JobDefinitions(ctx context.Context, processDefinitionID, activityID string) ([]*JobDefinition, error) {
	return persistence.List(ctx, e.db, persistence.JobDefinitionFilter{ProcessDefinitionID: processDefinitionID, ActivityID: activityID}.Query())
}

// EventSubscriptions lists message and signal subscriptions of a process
// instance (or all, with "").
func (e *Engine) EventSubscriptions(ctx context.Context, processInstanceID string) ([]*EventSubscription, error) {
	return persistence.List(ctx, e.db, persistence.SubscriptionFilter{ProcessInstanceID: processInstanceID}.Query())
}

// ExternalTaskQuery filters external tasks; zero fields match all.
// Locked and NotLocked are judged at the engine clock's time.
type ExternalTaskQuery = persistence.ExternalTaskFilter

// ExternalTasks lists external tasks, oldest first.
func (e *Engine) ExternalTasks(ctx context.Context, q ExternalTaskQuery) ([]*ExternalTask, error) {
	return persistence.List(ctx, e.db, q.At(e.Now()))
}

// IncidentQuery filters incidents; empty fields match all.
type IncidentQuery = persistence.IncidentFilter

// Incidents lists open incidents, oldest first.
func (e *Engine) Incidents(ctx context.Context, q IncidentQuery) ([]*Incident, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// HistoricIncidentQuery filters incidents in history; empty fields match all.
type HistoricIncidentQuery = persistence.HistoricIncidentFilter

// HistoricIncidents lists incidents, open and ended, from history (written
// unless Config.History.Level is HistoryNone), oldest first.
func (e *Engine) HistoricIncidents(ctx context.Context, q HistoricIncidentQuery) ([]*HistoricIncident, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// JobLogQuery filters the job log; empty fields match all. ProcessInstanceID
// finds the instance's jobs by their creation entries: the entries of a job
// created while history was off are not found by instance.
type JobLogQuery = persistence.JobLogFilter

// JobLog lists job events (created, locked, failed, succeeded, deleted) in
// the order they happened. It is written when history is on.
func (e *Engine) JobLog(ctx context.Context, q JobLogQuery) ([]*JobLogEntry, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// JobExecutorInfo is a running job executor's report: what it acquires
// (deployments when deployment-aware, a priority range) and how busy it is.
type JobExecutorInfo = persistence.JobExecutorInfo

// JobExecutors lists the job executors on this database that reported in
// the last 30 seconds (executors report every JobExecutorConfig.ReportInterval).
func (e *Engine) JobExecutors(ctx context.Context) ([]*JobExecutorInfo, error) {
	return persistence.List(ctx, e.db, persistence.LiveJobExecutors(e.Now().Add(-30*time.Second).UTC()))
}
