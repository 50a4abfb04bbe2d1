package rest

import (
	"context"
	"io"
	"net/http"
	"reflect"

	"github.com/bpmnlite/bpmnlite"
)

// The job log and the external task log in history.

// withLogFlags is spec with the members that tell a log entry's event, as
// Camunda's, computed from its Event.
func withLogFlags(spec string) string {
	for name, event := range map[string]string{"logCreated": "created", "logFailed": "failed", "logSucceeded": "succeeded", "logDeleted": "deleted"} {
		computed[name] = computedMember{[]string{"Event"}, func(f []reflect.Value) any { return f[0].String() == event }}
	}
	return spec + " creationLog=logCreated() failureLog=logFailed() successLog=logSucceeded() deletionLog=logDeleted()"
}

// jobLogJSON and externalTaskLogJSON are the log entries as Camunda's REST
// API shows them.
var (
	jobLogJSON = newShape[bpmnlite.JobLogEntry](withLogFlags(`id timestamp removalTime:null jobId jobDueDate jobRetries=Retries
	jobPriority=Priority jobExceptionMessage=Message? failedActivityId? jobDefinitionId? jobDefinitionType?
	jobDefinitionConfiguration? activityId? executionId? processInstanceId? processDefinitionId? processDefinitionKey?
	deploymentId? rootProcessInstanceId? tenantId:null hostname:null`))
	externalTaskLogJSON = newShape[bpmnlite.ExternalTaskLogEntry](withLogFlags(`id timestamp removalTime:null externalTaskId topicName=Topic
	workerId? priority retries errorMessage? activityId? activityInstanceId? executionId? processInstanceId?
	processDefinitionId? processDefinitionKey? tenantId:null rootProcessInstanceId:null`))
)

func (h *Handler) historyLogRoutes() {
	jobLog := func(ctx context.Context, q bpmnlite.JobLogQuery) ([]*bpmnlite.JobLogEntry, error) {
		q.SkipLocked = true // not in Camunda's log
		return h.eng.JobLog(ctx, q)
	}
	jobLogByID := func(ctx context.Context, id string) ([]*bpmnlite.JobLogEntry, error) {
		return jobLog(ctx, bpmnlite.JobLogQuery{ID: id})
	}
	listRoutes(h, "/history/job-log", "param", bpmnlite.JobLogQuery{SkipLocked: true}, jobLog, jobLogJSON)
	byIDRoute(h, "/history/job-log", jobLogByID, jobLogJSON, func(id string) string { return "Historic job log with id " + id + " does not exist" })
	textRoute(h, "/history/job-log/{id}/stacktrace", jobLogByID, func(l *bpmnlite.JobLogEntry) string { return l.ExceptionStack },
		func(id string) string { return "No historic job log found with id " + id + ": historicJobLog is null" })

	taskLogByID := func(ctx context.Context, id string) ([]*bpmnlite.ExternalTaskLogEntry, error) {
		return h.eng.ExternalTaskLog(ctx, bpmnlite.ExternalTaskLogQuery{ID: id})
	}
	listRoutes(h, "/history/external-task-log", "param", bpmnlite.ExternalTaskLogQuery{}, h.eng.ExternalTaskLog, externalTaskLogJSON)
	byIDRoute(h, "/history/external-task-log", taskLogByID, externalTaskLogJSON, func(id string) string { return "Historic external task log with id " + id + " does not exist" })
	textRoute(h, "/history/external-task-log/{id}/error-details", taskLogByID, func(l *bpmnlite.ExternalTaskLogEntry) string { return l.ErrorDetails },
		func(id string) string {
			return "No historic external task log found with id " + id + ": historicExternalTaskLog is null"
		})
}

// textRoute registers GET path: the text of the row find gives for the
// path's id, as text/plain; 204 when it has none (Camunda's null), 404
// with the message missing makes when there is no such row.
func textRoute[T any](h *Handler, path string, find func(ctx context.Context, id string) ([]*T, error), text func(*T) string, missing func(id string) string) {
	h.handle("GET "+path, func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		rows, err := find(r.Context(), id)
		x, err := first(rows, err, missing(id))
		if err != nil {
			return err
		}
		s := text(x)
		if s == "" {
			return noContent(w)
		}
		w.Header().Set("Content-Type", "text/plain")
		_, err = io.WriteString(w, s)
		return err
	})
}
