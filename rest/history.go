package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The history resources: process instances, activity instances, user
// tasks and incidents, and the history cleanup; the logs
// (history_logs.go), details (history_detail.go) and reports
// (history_reports.go) have files of their own.

// historicInstanceJSON, historicActivityJSON, historicTaskJSON and
// historicIncidentJSON are the history's rows as Camunda's REST API shows
// them.
var (
	historicInstanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id businessKey? processDefinitionId processDefinitionKey
	processDefinitionName? processDefinitionVersion startUserId:null
	startTime endTime durationInMillis=duration() startActivityId endActivityId? deleteReason? superProcessInstanceId? state tenantId?
	removalTime rootProcessInstanceId? superCaseInstanceId:null caseInstanceId:null restartedProcessInstanceId?`)
	historicActivityJSON = newShape[bpmnlite.HistoricActivityInstance](`id parentActivityInstanceId activityId activityName? activityType
	processDefinitionId processInstanceId executionId taskId? calledProcessInstanceId? startTime endTime durationInMillis=duration()
	canceled calledCaseInstanceId:null tenantId:null`)
	historicTaskJSON = newShape[bpmnlite.HistoricTask](`id processDefinitionKey? processDefinitionId? processInstanceId? executionId?
	activityInstanceId? name? deleteReason? assignee? startTime endTime duration() taskDefinitionKey? priority due=DueDate
	followUp=FollowUpDate tenantId? removalTime:null rootProcessInstanceId:null caseDefinitionKey:null caseDefinitionId:null
	caseInstanceId:null caseExecutionId:null description? owner? parentTaskId?`)
	historicIncidentJSON = newShape[bpmnlite.HistoricIncident](incidentMembers + ` createTime endTime historyConfiguration?
	removalTime:null rootProcessInstanceId:null open() deleted() resolved()`)
)

// historyRoutes: every history resource bpmnlite serves.
func (h *Handler) historyRoutes() {
	h.historicInstanceRoutes()
	listRoutes(h, "/history/activity-instance", "param", bpmnlite.HistoricActivityQuery{}, h.eng.HistoricActivityInstances, historicActivityJSON)
	byIDRoute(h, "/history/activity-instance", func(ctx context.Context, id string) ([]*bpmnlite.HistoricActivityInstance, error) {
		return h.eng.HistoricActivityInstances(ctx, bpmnlite.HistoricActivityQuery{ID: id})
	}, historicActivityJSON, func(id string) string { return "Historic activity instance with id '" + id + "' does not exist" })
	listRoutes(h, "/history/task", "param", bpmnlite.HistoricTaskQuery{}, h.eng.HistoricTasks, historicTaskJSON)
	listRoutes(h, "/history/incident", "param", bpmnlite.HistoricIncidentQuery{}, h.eng.HistoricIncidents, historicIncidentJSON)
	h.historyLogRoutes()
	h.historyReportRoutes()
	h.historicDetailRoutes()
	// Camunda's cleanUpHistoryAsync: the cleanup job, due at once unless
	// immediatelyDue=false.
	h.handle("POST /history/cleanup", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.ScheduleHistoryCleanup(r.Context(), r.URL.Query().Get("immediatelyDue") != "false"); err != nil {
			return err
		}
		js, err := h.eng.Jobs(r.Context(), bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID})
		if err != nil || len(js) == 0 {
			return errors.Join(err, errors.New("the history cleanup job is missing"))
		}
		writeJSON(w, http.StatusOK, jobJSON.of(js[0]))
		return nil
	}, "immediatelyDue")
	// The one cleanup job, alone and as a list (Camunda may run several),
	// 404 while there is none; Camunda's RestException.
	cleanupJob := func(w http.ResponseWriter, r *http.Request, answer func(*bpmnlite.Job) any, missing string) error {
		js, err := h.eng.Jobs(r.Context(), bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID})
		if err != nil {
			return err
		}
		if len(js) == 0 {
			writeError(w, http.StatusNotFound, "RestException", missing)
			return nil
		}
		writeJSON(w, http.StatusOK, answer(js[0]))
		return nil
	}
	h.handle("GET /history/cleanup/job", func(w http.ResponseWriter, r *http.Request) error {
		return cleanupJob(w, r, func(j *bpmnlite.Job) any { return jobJSON.of(j) }, "History cleanup job does not exist")
	})
	h.handle("GET /history/cleanup/jobs", func(w http.ResponseWriter, r *http.Request) error {
		return cleanupJob(w, r, func(j *bpmnlite.Job) any { return jobJSON.list([]*bpmnlite.Job{j}) }, "History cleanup jobs are empty")
	})
	// bpmnlite's cleanup has no batch window: it runs whenever its job is
	// due, and is always enabled.
	h.handle("GET /history/cleanup/configuration", func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, map[string]any{"batchWindowStartTime": nil, "batchWindowEndTime": nil, "enabled": true})
		return nil
	})
}
