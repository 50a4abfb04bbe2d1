package bpmnlite

import (
	"context"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// The history as Camunda's history service has it: process instances with
// every filter of Camunda's HistoricProcessInstanceQuery, and the deletion
// of ended instances' history.

// HistoricProcessInstanceQuery filters process instances in history as
// Camunda's HistoricProcessInstanceQuery does; zero fields match all. At
// most one of its states (Active, Suspended, Completed, ...) may be set.
type HistoricProcessInstanceQuery = persistence.HistoricProcessInstanceFilter

// StateSuspended is the state history shows for a running process instance
// that is suspended.
const StateSuspended = persistence.StateSuspended

// HistoricProcessInstances lists process instances, running and ended,
// from history, in the order they started; a suspended running instance
// shows the state StateSuspended.
func (e *Engine) HistoricProcessInstances(ctx context.Context, q HistoricProcessInstanceQuery) ([]*HistoricProcessInstance, error) {
	rows, err := persistence.List(ctx, e.db, q.Query())
	if err != nil {
		return nil, err
	}
	return rows, persistence.MarkSuspended(ctx, e.db, rows)
}

// ErrStillRunning: the history of a running process instance cannot be
// deleted.
var ErrStillRunning = runtime.ErrStillRunning

// DeleteHistoricProcessInstance removes the history of an ended process
// instance (its activity instances, tasks, variables, incidents and job
// log with it). A missing instance is an ErrNotFound unless ifExists; a
// running one is an ErrStillRunning.
func (e *Engine) DeleteHistoricProcessInstance(ctx context.Context, id string, ifExists bool) error {
	return e.rt.DeleteHistoricProcessInstance(ctx, id, ifExists)
}

// DeleteHistoricVariables removes the variables history keeps of a process
// instance; a missing instance is an ErrNotFound.
func (e *Engine) DeleteHistoricVariables(ctx context.Context, processInstanceID string) error {
	return e.rt.DeleteHistoricVariables(ctx, processInstanceID)
}

// ExternalTaskLogEntry is one event of an external task's life in history:
// created, failed (a worker's failure, with its error), succeeded or
// deleted (with its activity or instance, or by a BPMN error).
type ExternalTaskLogEntry = persistence.ExternalTaskLogEntry

// External task log events (ExternalTaskLogEntry.Event).
const (
	ExternalTaskLogCreated   = persistence.ExternalTaskLogCreated
	ExternalTaskLogFailed    = persistence.ExternalTaskLogFailed
	ExternalTaskLogSucceeded = persistence.ExternalTaskLogSucceeded
	ExternalTaskLogDeleted   = persistence.ExternalTaskLogDeleted
)

// ExternalTaskLogQuery filters the external task log; zero fields match
// all.
type ExternalTaskLogQuery = persistence.ExternalTaskLogFilter

// ExternalTaskLog lists external task events in the order they happened.
// It is written at history level HistoryFull.
func (e *Engine) ExternalTaskLog(ctx context.Context, q ExternalTaskLogQuery) ([]*ExternalTaskLogEntry, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// CleanableReportQuery selects the process definitions of the cleanable
// process instance report; zero fields select all.
type CleanableReportQuery = persistence.CleanableReportFilter

// CleanableReportRow is one process definition in the cleanable process
// instance report: its finished instances, and those whose history the
// cleanup may remove now.
type CleanableReportRow = persistence.CleanableReportRow

// CleanableProcessInstanceReport counts, per process definition q selects,
// the finished process instances and those whose removal time has come.
func (e *Engine) CleanableProcessInstanceReport(ctx context.Context, q CleanableReportQuery) ([]*CleanableReportRow, error) {
	return persistence.CleanableReport(ctx, e.db, q, e.Now())
}

// HistoricActivityStatisticsQuery asks for the statistics of a process
// definition's activities in history.
type HistoricActivityStatisticsQuery = persistence.HistoricActivityStatisticsQuery

// HistoricActivityStatistics is what history holds of one activity: its
// running, finished and canceled instances and its incidents by state.
type HistoricActivityStatistics = persistence.HistoricActivityStatistics

// HistoricActivityStatistics lists, per activity of a process definition
// that history has instances (or incidents) of, what q asks for.
func (e *Engine) HistoricActivityStatistics(ctx context.Context, q HistoricActivityStatisticsQuery) ([]*HistoricActivityStatistics, error) {
	return persistence.HistoricActivityStatisticsOf(ctx, e.db, q)
}

// ActivityDuration is how many instances of one activity finished and
// their mean duration.
type ActivityDuration = persistence.ActivityDuration

// ActivityDurations lists, per activity of process definition
// definitionID that history has finished instances of (canceled ones
// among them), how many finished and their mean duration, by activity id.
// Nothing below history level HistoryActivity.
func (e *Engine) ActivityDurations(ctx context.Context, definitionID string) ([]*ActivityDuration, error) {
	return persistence.ActivityDurations(ctx, e.db, definitionID)
}

// HistoricDetail is a value a variable was given, kept as history at
// history level HistoryFull (Camunda's historic variable update); its
// value is DetailValue's. One with FormField is a text value submitted
// with a form (Camunda's historic form field: Name the field, Text the
// value).
type HistoricDetail = persistence.HistoricDetail

// HistoricDetailQuery filters historic details; zero fields match all.
type HistoricDetailQuery = persistence.HistoricDetailFilter

// HistoricDetails lists the values variables were given, in the order they
// were given.
func (e *Engine) HistoricDetails(ctx context.Context, q HistoricDetailQuery) ([]*HistoricDetail, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// DetailValue is the value a historic detail records.
func DetailValue(d *HistoricDetail) (any, error) { return runtime.DecodeVariable(d.Value()) }

// DurationReportRow is one period of a duration report: the shortest,
// longest and average duration in milliseconds.
type DurationReportRow = persistence.DurationReportRow

// Period units of duration reports.
const (
	PeriodMonth   = persistence.PeriodMonth
	PeriodQuarter = persistence.PeriodQuarter
)

// InstanceDurationQuery selects the finished process instances of the
// process instance duration report.
type InstanceDurationQuery = persistence.InstanceDurationFilter

// ProcessInstanceDurationReport reports the durations of the finished
// process instances q selects by the month or quarter (unit, of any year,
// in UTC) they started in.
func (e *Engine) ProcessInstanceDurationReport(ctx context.Context, q InstanceDurationQuery, unit string) ([]*DurationReportRow, error) {
	return persistence.InstanceDurationReport(ctx, e.db, q, unit)
}

// TaskReportQuery selects the completed user tasks of the task reports.
type TaskReportQuery = persistence.TaskReportFilter

// TaskCountRow is one group of the task count report.
type TaskCountRow = persistence.TaskCountRow

// TaskDurationReport reports the durations of the completed user tasks q
// selects by the month or quarter (unit) they were completed in.
func (e *Engine) TaskDurationReport(ctx context.Context, q TaskReportQuery, unit string) ([]*DurationReportRow, error) {
	return persistence.TaskDurationReport(ctx, e.db, q, unit)
}

// TaskCountReport counts the completed user tasks q selects by task name
// and process definition, or by process definition alone (byDefinition);
// each group names its key's latest definition.
func (e *Engine) TaskCountReport(ctx context.Context, q TaskReportQuery, byDefinition bool) ([]*TaskCountRow, error) {
	return persistence.TaskCountReport(ctx, e.db, q, byDefinition)
}
