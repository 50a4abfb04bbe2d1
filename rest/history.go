package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The history resources: process instances, activity instances, user
// tasks and incidents, and the history cleanup.

// historicInstanceJSON, historicActivityJSON, historicTaskJSON and
// historicIncidentJSON are the history's rows as Camunda's REST API shows
// them.
var (
	historicInstanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id businessKey? processDefinitionId processDefinitionKey
	startTime endTime durationInMillis=duration() startActivityId endActivityId? deleteReason? superProcessInstanceId? state tenantId?`)
	historicActivityJSON = newShape[bpmnlite.HistoricActivityInstance](`id parentActivityInstanceId activityId activityName? activityType
	processDefinitionId processInstanceId executionId taskId? calledProcessInstanceId? startTime endTime durationInMillis=duration()
	canceled tenantId:null`)
	historicTaskJSON = newShape[bpmnlite.HistoricTask](`id processDefinitionKey processDefinitionId processInstanceId executionId
	activityInstanceId name? deleteReason? assignee? startTime endTime duration() taskDefinitionKey priority due=DueDate
	followUp=FollowUpDate tenantId? removalTime:null rootProcessInstanceId:null`)
	historicIncidentJSON = newShape[bpmnlite.HistoricIncident](incidentMembers + " createTime endTime open() deleted() resolved()")
)

// historyRoutes: process instances, activity instances, user tasks and
// incidents in history, and the history cleanup.
func (h *Handler) historyRoutes() {
	listRoutes(h, "/history/process-instance", "param", bpmnlite.ProcessInstanceQuery{}, h.eng.ProcessInstances, historicInstanceJSON)
	listRoutes(h, "/history/activity-instance", "param", bpmnlite.HistoricActivityQuery{}, h.eng.HistoricActivityInstances, historicActivityJSON)
	listRoutes(h, "/history/task", "param", bpmnlite.HistoricTaskQuery{}, h.eng.HistoricTasks, historicTaskJSON)
	listRoutes(h, "/history/incident", "param", bpmnlite.HistoricIncidentQuery{}, h.eng.HistoricIncidents, historicIncidentJSON)
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
}
