package rest

import (
	"errors"
	"net/http"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The history resources: process instances, activity instances, user
// tasks and incidents, and the history cleanup.

type historicInstanceDto struct {
	ID                     string  `json:"id"`
	BusinessKey            *string `json:"businessKey"`
	ProcessDefinitionID    string  `json:"processDefinitionId"`
	ProcessDefinitionKey   string  `json:"processDefinitionKey"`
	StartTime              string  `json:"startTime"`
	EndTime                *string `json:"endTime"`
	DurationInMillis       *int64  `json:"durationInMillis"`
	StartActivityID        string  `json:"startActivityId"`
	EndActivityID          *string `json:"endActivityId"`
	DeleteReason           *string `json:"deleteReason"`
	SuperProcessInstanceID *string `json:"superProcessInstanceId"`
	State                  string  `json:"state"`
	TenantID               *string `json:"tenantId"`
}

type historicActivityDto struct {
	ID                       string  `json:"id"`
	ParentActivityInstanceID string  `json:"parentActivityInstanceId"`
	ActivityID               string  `json:"activityId"`
	ActivityName             *string `json:"activityName"`
	ActivityType             string  `json:"activityType"`
	ProcessDefinitionID      string  `json:"processDefinitionId"`
	ProcessInstanceID        string  `json:"processInstanceId"`
	ExecutionID              string  `json:"executionId"`
	TaskID                   *string `json:"taskId"`
	CalledProcessInstanceID  *string `json:"calledProcessInstanceId"`
	StartTime                string  `json:"startTime"`
	EndTime                  *string `json:"endTime"`
	DurationInMillis         *int64  `json:"durationInMillis"`
	Canceled                 bool    `json:"canceled"`
	TenantID                 *string `json:"tenantId"`
}

type historicTaskDto struct {
	ID                    string  `json:"id"`
	ProcessDefinitionKey  string  `json:"processDefinitionKey"`
	ProcessDefinitionID   string  `json:"processDefinitionId"`
	ProcessInstanceID     string  `json:"processInstanceId"`
	ExecutionID           string  `json:"executionId"`
	ActivityInstanceID    string  `json:"activityInstanceId"`
	Name                  *string `json:"name"`
	DeleteReason          *string `json:"deleteReason"`
	Assignee              *string `json:"assignee"`
	StartTime             string  `json:"startTime"`
	EndTime               *string `json:"endTime"`
	Duration              *int64  `json:"duration"`
	TaskDefinitionKey     string  `json:"taskDefinitionKey"`
	Priority              int     `json:"priority"`
	Due                   *string `json:"due"`
	FollowUp              *string `json:"followUp"`
	TenantID              *string `json:"tenantId"`
	RemovalTime           *string `json:"removalTime"`
	RootProcessInstanceID *string `json:"rootProcessInstanceId"`
}

type historicIncidentDto struct {
	incidentFields
	CreateTime string  `json:"createTime"`
	EndTime    *string `json:"endTime"`
	Open       bool    `json:"open"`
	Deleted    bool    `json:"deleted"`
	Resolved   bool    `json:"resolved"`
}

func duration(start time.Time, end *time.Time) *int64 {
	if end == nil {
		return nil
	}
	ms := end.Sub(start).Milliseconds()
	return &ms
}

// historyRoutes: process instances, activity instances, user tasks and
// incidents in history, and the history cleanup.
func (h *Handler) historyRoutes() {
	h.handle("GET /history/process-instance", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		hs, err := h.eng.ProcessInstances(r.Context(), bpmnlite.ProcessInstanceQuery{ID: q.Get("processInstanceId"),
			ProcessDefinitionKey: q.Get("processDefinitionKey"), ProcessDefinitionID: q.Get("processDefinitionId"),
			BusinessKey: q.Get("processInstanceBusinessKey"), State: q.Get("state")})
		if err != nil {
			return err
		}
		out := []historicInstanceDto{}
		for _, p := range hs {
			if (q.Get("finished") == "true" && p.EndTime == nil) || (q.Get("unfinished") == "true" && p.EndTime != nil) {
				continue
			}
			out = append(out, historicInstanceDto{ID: p.ID, BusinessKey: optString(p.BusinessKey), ProcessDefinitionID: p.ProcessDefinitionID,
				ProcessDefinitionKey: p.ProcessDefinitionKey, StartTime: formatTime(p.StartTime), EndTime: formatTimePtr(p.EndTime),
				DurationInMillis: duration(p.StartTime, p.EndTime), StartActivityID: p.StartActivityID, EndActivityID: optString(p.EndActivityID),
				DeleteReason: optString(p.DeleteReason), SuperProcessInstanceID: optString(p.SuperProcessInstanceID), State: p.State})
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /history/activity-instance", func(w http.ResponseWriter, r *http.Request) error {
		pi := r.URL.Query().Get("processInstanceId")
		if pi == "" {
			return badRequest("processInstanceId is required")
		}
		hs, err := h.eng.ActivityHistory(r.Context(), pi)
		if err != nil {
			return err
		}
		activity := r.URL.Query().Get("activityId")
		out := []historicActivityDto{}
		for _, a := range hs {
			if activity != "" && a.ActivityID != activity {
				continue
			}
			out = append(out, historicActivityDto{ID: a.ID, ParentActivityInstanceID: a.ParentActivityInstanceID, ActivityID: a.ActivityID,
				ActivityName: optString(a.ActivityName), ActivityType: a.ActivityType, ProcessDefinitionID: a.ProcessDefinitionID,
				ProcessInstanceID: a.ProcessInstanceID, ExecutionID: a.ExecutionID, TaskID: optString(a.TaskID),
				CalledProcessInstanceID: optString(a.CalledProcessInstanceID), StartTime: formatTime(a.StartTime), EndTime: formatTimePtr(a.EndTime),
				DurationInMillis: duration(a.StartTime, a.EndTime), Canceled: a.Canceled})
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /history/task", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		ts, err := h.eng.HistoricTasks(r.Context(), bpmnlite.HistoricTaskQuery{ID: q.Get("taskId"),
			ProcessInstanceID: q.Get("processInstanceId"), ProcessDefinitionKey: q.Get("processDefinitionKey"),
			TaskDefinitionKey: q.Get("taskDefinitionKey"), Assignee: q.Get("taskAssignee"),
			Finished: q.Get("finished") == "true", Unfinished: q.Get("unfinished") == "true", DeleteReason: q.Get("taskDeleteReason")})
		if err != nil {
			return err
		}
		out := []historicTaskDto{}
		for _, t := range page(r, ts) {
			out = append(out, historicTaskDto{ID: t.ID, ProcessDefinitionKey: t.ProcessDefinitionKey, ProcessDefinitionID: t.ProcessDefinitionID,
				ProcessInstanceID: t.ProcessInstanceID, ExecutionID: t.ExecutionID, ActivityInstanceID: t.ActivityInstanceID,
				Name: optString(t.Name), DeleteReason: optString(t.DeleteReason), Assignee: optString(t.Assignee),
				StartTime: formatTime(t.StartTime), EndTime: formatTimePtr(t.EndTime), Duration: duration(t.StartTime, t.EndTime),
				TaskDefinitionKey: t.TaskDefinitionKey, Priority: t.Priority, Due: formatTimePtr(t.DueDate), FollowUp: formatTimePtr(t.FollowUpDate)})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("GET /history/incident", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		state := ""
		for _, s := range []string{bpmnlite.IncidentOpen, bpmnlite.IncidentResolved, bpmnlite.IncidentDeleted} {
			if q.Get(s) == "true" {
				state = s
			}
		}
		ins, err := h.eng.HistoricIncidents(r.Context(), bpmnlite.HistoricIncidentQuery{IncidentQuery: incidentQuery(q), State: state})
		if err != nil {
			return err
		}
		out := []historicIncidentDto{}
		for _, in := range page(r, ins) {
			fields := incidentFieldsOf(bpmnlite.Incident{ID: in.ID, Type: in.Type, Message: in.Message, ExecutionID: in.ExecutionID,
				ActivityID: in.ActivityID, ProcessInstanceID: in.ProcessInstanceID, ProcessDefinitionID: in.ProcessDefinitionID,
				CauseIncidentID: in.CauseIncidentID, RootCauseIncidentID: in.RootCauseIncidentID, Configuration: in.Configuration,
				JobDefinitionID: in.JobDefinitionID, FailedActivityID: in.FailedActivityID})
			out = append(out, historicIncidentDto{incidentFields: fields, CreateTime: formatTime(in.CreateTime), EndTime: formatTimePtr(in.EndTime),
				Open: in.State == bpmnlite.IncidentOpen, Deleted: in.State == bpmnlite.IncidentDeleted, Resolved: in.State == bpmnlite.IncidentResolved})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
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
		writeJSON(w, http.StatusOK, jobOut(js[0]))
		return nil
	})
}
