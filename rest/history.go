package rest

import (
	"errors"
	"net/http"
	"slices"

	"github.com/bpmnlite/bpmnlite"
)

// The history resources: process instances, activity instances, user
// tasks and incidents, and the history cleanup.

// historicInstanceJSON, historicActivityJSON, historicTaskJSON and
// historicIncidentJSON are the history's rows as Camunda's REST API shows
// them.
var (
	historicInstanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id businessKey? processDefinitionId processDefinitionKey
	startTime endTime durationInMillis=duration() startActivityId endActivityId? deleteReason? superProcessInstanceId? state tenantId:null`)
	historicActivityJSON = newShape[bpmnlite.HistoricActivityInstance](`id parentActivityInstanceId activityId activityName? activityType
	processDefinitionId processInstanceId executionId taskId? calledProcessInstanceId? startTime endTime durationInMillis=duration()
	canceled tenantId:null`)
	historicTaskJSON = newShape[bpmnlite.HistoricTask](`id processDefinitionKey processDefinitionId processInstanceId executionId
	activityInstanceId name? deleteReason? assignee? startTime endTime duration() taskDefinitionKey priority due=DueDate
	followUp=FollowUpDate tenantId:null removalTime:null rootProcessInstanceId:null`)
	historicIncidentJSON = newShape[bpmnlite.HistoricIncident](incidentMembers + " createTime endTime open() deleted() resolved()")
)

// historyRoutes: process instances, activity instances, user tasks and
// incidents in history, and the history cleanup.
func (h *Handler) historyRoutes() {
	listRoutes(h, "/history/process-instance", query("param", bpmnlite.ProcessInstanceQuery{}, h.eng.ProcessInstances),
		historicInstanceJSON, nullPastEnd)
	listRoutes(h, "/history/activity-instance", func(r *http.Request) ([]*bpmnlite.HistoricActivityInstance, error) {
		pi := r.URL.Query().Get("processInstanceId")
		if pi == "" {
			return nil, badRequest("processInstanceId is required")
		}
		hs, err := h.eng.ActivityHistory(r.Context(), pi)
		if activity := r.URL.Query().Get("activityId"); activity != "" {
			hs = slices.DeleteFunc(hs, func(a *bpmnlite.HistoricActivityInstance) bool { return a.ActivityID != activity })
		}
		return hs, err
	}, historicActivityJSON, nullPastEnd)
	listRoutes(h, "/history/task", query("param", bpmnlite.HistoricTaskQuery{}, h.eng.HistoricTasks), historicTaskJSON, 0)
	listRoutes(h, "/history/incident", query("param", bpmnlite.HistoricIncidentQuery{}, h.eng.HistoricIncidents), historicIncidentJSON, 0)
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
	})
}
