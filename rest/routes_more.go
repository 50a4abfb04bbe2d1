package rest

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Tasks, jobs, incidents and history.

type taskDto struct {
	ID                  string  `json:"id"`
	Name                *string `json:"name"`
	Assignee            *string `json:"assignee"`
	Created             string  `json:"created"`
	Due                 *string `json:"due"`
	FollowUp            *string `json:"followUp"`
	FormKey             *string `json:"formKey"`
	ExecutionID         string  `json:"executionId"`
	ProcessDefinitionID string  `json:"processDefinitionId"`
	ProcessInstanceID   string  `json:"processInstanceId"`
	TaskDefinitionKey   string  `json:"taskDefinitionKey"`
	Priority            int     `json:"priority"`
	Suspended           bool    `json:"suspended"`
	TenantID            *string `json:"tenantId"`
}

type jobDto struct {
	ID                   string  `json:"id"`
	JobDefinitionID      *string `json:"jobDefinitionId"`
	ProcessInstanceID    *string `json:"processInstanceId"`
	ProcessDefinitionID  string  `json:"processDefinitionId"`
	ProcessDefinitionKey string  `json:"processDefinitionKey"`
	ExecutionID          *string `json:"executionId"`
	ExceptionMessage     *string `json:"exceptionMessage"`
	FailedActivityID     *string `json:"failedActivityId"`
	Retries              int     `json:"retries"`
	DueDate              *string `json:"dueDate"`
	Suspended            bool    `json:"suspended"`
	Priority             int64   `json:"priority"`
	TenantID             *string `json:"tenantId"`
	CreateTime           string  `json:"createTime"`
}

type incidentDto struct {
	incidentFields
	IncidentTimestamp string `json:"incidentTimestamp"`
}

// incidentFields are the fields of Camunda's runtime and historic incidents.
type incidentFields struct {
	ID                  string  `json:"id"`
	ProcessDefinitionID string  `json:"processDefinitionId"`
	ProcessInstanceID   string  `json:"processInstanceId"`
	ExecutionID         string  `json:"executionId"`
	IncidentType        string  `json:"incidentType"`
	ActivityID          string  `json:"activityId"`
	FailedActivityID    *string `json:"failedActivityId"`
	CauseIncidentID     string  `json:"causeIncidentId"`
	RootCauseIncidentID string  `json:"rootCauseIncidentId"`
	Configuration       string  `json:"configuration"`
	IncidentMessage     *string `json:"incidentMessage"`
	JobDefinitionID     *string `json:"jobDefinitionId"`
	TenantID            *string `json:"tenantId"`
}

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

func jobOut(j *bpmnlite.Job) jobDto {
	return jobDto{ID: j.ID, JobDefinitionID: optString(j.JobDefinitionID), ProcessInstanceID: optString(j.ProcessInstanceID),
		ProcessDefinitionID: j.ProcessDefinitionID, ProcessDefinitionKey: j.ProcessDefinitionKey, ExecutionID: optString(j.ExecutionID),
		ExceptionMessage: optString(j.ExceptionMessage), FailedActivityID: optString(j.FailedActivityID), Retries: j.Retries,
		DueDate: formatTimePtr(j.DueDate), Suspended: j.Suspension == 2, Priority: j.Priority, CreateTime: formatTime(j.CreateTime)}
}

func duration(start time.Time, end *time.Time) *int64 {
	if end == nil {
		return nil
	}
	ms := end.Sub(start).Milliseconds()
	return &ms
}

func (h *Handler) moreRoutes() {
	tasks := func(r *http.Request) ([]taskDto, error) {
		q := r.URL.Query()
		tq := bpmnlite.TaskQuery{ID: q.Get("taskId"), ProcessInstanceID: q.Get("processInstanceId"),
			TaskDefinitionKey: q.Get("taskDefinitionKey"), Assignee: q.Get("assignee"), CandidateGroup: q.Get("candidateGroup"),
			CandidateUser: q.Get("candidateUser"), WithoutDueDate: q.Get("withoutDueDate") == "true"}
		p := params{q: q}
		tq.DueBefore, tq.DueAfter = p.time("dueBefore"), p.time("dueAfter")
		tq.FollowUpBefore, tq.FollowUpAfter = p.time("followUpBefore"), p.time("followUpAfter")
		tq.Priority, tq.MinPriority, tq.MaxPriority = p.int("priority"), p.int("minPriority"), p.int("maxPriority")
		if p.err != nil {
			return nil, p.err
		}
		ts, err := h.eng.Tasks(r.Context(), tq)
		out := []taskDto{}
		for _, t := range ts {
			out = append(out, taskDto{ID: t.ID, Name: optString(t.Name), Assignee: optString(t.Assignee), Created: formatTime(t.CreateTime),
				Due: formatTimePtr(t.DueDate), FollowUp: formatTimePtr(t.FollowUpDate), FormKey: optString(t.FormKey),
				ExecutionID: t.ExecutionID, ProcessDefinitionID: t.ProcessDefinitionID,
				ProcessInstanceID: t.ProcessInstanceID, TaskDefinitionKey: t.TaskDefinitionKey, Priority: t.Priority, Suspended: t.Suspension == 2})
		}
		return out, err
	}
	h.handle("GET /task", func(w http.ResponseWriter, r *http.Request) error {
		out, err := tasks(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /task/count", func(w http.ResponseWriter, r *http.Request) error {
		out, err := tasks(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(out)})
		return nil
	})
	h.handle("GET /task/{id}", func(w http.ResponseWriter, r *http.Request) error {
		r.URL.RawQuery = "taskId=" + r.PathValue("id")
		out, err := tasks(r)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			return &notFound{"No matching task with id " + r.PathValue("id")}
		}
		writeJSON(w, http.StatusOK, out[0])
		return nil
	})
	taskError := func(r *http.Request, err error) error {
		if isNotFound(err) {
			return &notFound{"Cannot find task with id " + r.PathValue("id")}
		}
		return err
	}
	h.handle("POST /task/{id}/complete", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables map[string]TypedValue `json:"variables"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		if err := h.eng.CompleteTask(r.Context(), r.PathValue("id"), vars); err != nil {
			return taskError(r, err)
		}
		return noContent(w)
	})
	assign := func(claim bool) func(w http.ResponseWriter, r *http.Request) error {
		return func(w http.ResponseWriter, r *http.Request) error {
			var body struct {
				UserID string `json:"userId"`
			}
			if err := readJSON(r, &body); err != nil {
				return err
			}
			var err error
			if claim {
				err = h.eng.ClaimTask(r.Context(), r.PathValue("id"), body.UserID)
			} else {
				err = h.eng.SetTaskAssignee(r.Context(), r.PathValue("id"), body.UserID)
			}
			if errors.Is(err, bpmnlite.ErrTaskClaimed) {
				return &conflict{typ: "TaskAlreadyClaimedException", msg: err.Error()}
			}
			if err != nil {
				return taskError(r, err)
			}
			return noContent(w)
		}
	}
	h.handle("POST /task/{id}/claim", assign(true))
	h.handle("POST /task/{id}/assignee", assign(false))
	h.handle("POST /task/{id}/unclaim", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.SetTaskAssignee(r.Context(), r.PathValue("id"), ""); err != nil {
			return taskError(r, err)
		}
		return noContent(w)
	})

	jobs := func(r *http.Request) ([]jobDto, error) {
		q := r.URL.Query()
		jq := bpmnlite.JobQuery{ID: q.Get("jobId"), ProcessInstanceID: q.Get("processInstanceId"), ProcessDefinitionID: q.Get("processDefinitionId"),
			ProcessDefinitionKey: q.Get("processDefinitionKey"), ActivityID: q.Get("activityId"), JobDefinitionID: q.Get("jobDefinitionId"),
			WithException: q.Get("withException") == "true", WithRetriesLeft: q.Get("withRetriesLeft") == "true",
			NoRetriesLeft: q.Get("noRetriesLeft") == "true", Executable: q.Get("executable") == "true"}
		switch {
		case q.Get("timers") == "true":
			jq.Type = bpmnlite.JobTypeTimer
		case q.Get("messages") == "true":
			jq.Type = bpmnlite.JobTypeMessage
		}
		js, err := h.eng.Jobs(r.Context(), jq)
		out := []jobDto{}
		for _, j := range js {
			out = append(out, jobOut(j))
		}
		return out, err
	}
	h.handle("GET /job", func(w http.ResponseWriter, r *http.Request) error {
		out, err := jobs(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /job/count", func(w http.ResponseWriter, r *http.Request) error {
		out, err := jobs(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(out)})
		return nil
	})
	jobError := func(r *http.Request, err error) error {
		if isNotFound(err) {
			return &notFound{"Job with id " + r.PathValue("id") + " does not exist"}
		}
		return err
	}
	h.handle("GET /job/{id}", func(w http.ResponseWriter, r *http.Request) error {
		r.URL.RawQuery = "jobId=" + r.PathValue("id")
		out, err := jobs(r)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			return &notFound{"Job with id " + r.PathValue("id") + " does not exist"}
		}
		writeJSON(w, http.StatusOK, out[0])
		return nil
	})
	h.handle("PUT /job/{id}/retries", func(w http.ResponseWriter, r *http.Request) error {
		retries, err := readRetries(r)
		if err != nil {
			return err
		}
		if err := h.eng.SetJobRetries(r.Context(), r.PathValue("id"), retries); err != nil {
			return jobError(r, err)
		}
		return noContent(w)
	})
	h.handle("POST /job/{id}/execute", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.ExecuteJob(r.Context(), r.PathValue("id")); err != nil {
			if isNotFound(err) {
				return jobError(r, err)
			}
			return &serverError{typ: "RestException", msg: err.Error()}
		}
		return noContent(w)
	})

	h.handle("GET /incident", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		ins, err := h.eng.Incidents(r.Context(), incidentQuery(q))
		if err != nil {
			return err
		}
		out := []incidentDto{}
		for _, in := range page(r, ins) {
			out = append(out, incidentDto{incidentFieldsOf(*in), formatTime(in.Timestamp)})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})

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

func incidentFieldsOf(in bpmnlite.Incident) incidentFields {
	return incidentFields{ID: in.ID, ProcessDefinitionID: in.ProcessDefinitionID, ProcessInstanceID: in.ProcessInstanceID,
		ExecutionID: in.ExecutionID, IncidentType: in.Type, ActivityID: in.ActivityID,
		FailedActivityID: optString(in.FailedActivityID), CauseIncidentID: in.CauseIncidentID, RootCauseIncidentID: in.RootCauseIncidentID,
		Configuration: in.Configuration, IncidentMessage: optString(in.Message), JobDefinitionID: optString(in.JobDefinitionID)}
}

// historyRoutes: user tasks and incidents in history, and the history cleanup.
func (h *Handler) historyRoutes() {
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

// incidentQuery reads the parameters Camunda's incident queries share,
// runtime and history.
func incidentQuery(q url.Values) bpmnlite.IncidentQuery {
	return bpmnlite.IncidentQuery{ID: q.Get("incidentId"), ProcessInstanceID: q.Get("processInstanceId"),
		ProcessDefinitionID: q.Get("processDefinitionId"), ActivityID: q.Get("activityId"), Type: q.Get("incidentType"),
		Configuration: q.Get("configuration"), JobDefinitionID: q.Get("jobDefinitionId")}
}

// params reads typed query parameters, keeping the first error.
type params struct {
	q   url.Values
	err error
}

func (p *params) time(name string) *time.Time {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return nil
	}
	t, err := parseTime(v)
	if err != nil {
		p.err = badRequest("%s: %v", name, err)
		return nil
	}
	return &t
}

func (p *params) int(name string) *int {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		p.err = badRequest("%s: %q is not an integer", name, v)
		return nil
	}
	return &n
}

// conflict is a state conflict Camunda answers with 500 and its own type.
type conflict struct{ typ, msg string }

func (e *conflict) Error() string { return e.msg }

// serverError is a failure of the work a request ran (a job), 500.
type serverError struct{ typ, msg string }

func (e *serverError) Error() string { return e.msg }
