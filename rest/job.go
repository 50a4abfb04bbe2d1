package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The job resource.

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

func jobOut(j *bpmnlite.Job) jobDto {
	return jobDto{ID: j.ID, JobDefinitionID: optString(j.JobDefinitionID), ProcessInstanceID: optString(j.ProcessInstanceID),
		ProcessDefinitionID: j.ProcessDefinitionID, ProcessDefinitionKey: j.ProcessDefinitionKey, ExecutionID: optString(j.ExecutionID),
		ExceptionMessage: optString(j.ExceptionMessage), FailedActivityID: optString(j.FailedActivityID), Retries: j.Retries,
		DueDate: formatTimePtr(j.DueDate), Suspended: j.Suspension == 2, Priority: j.Priority, CreateTime: formatTime(j.CreateTime)}
}

// jobRoutes: jobs: queries, retries and execution by hand.
func (h *Handler) jobRoutes() {
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
}
