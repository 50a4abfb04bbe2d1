package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The job resource.

// jobJSON is a job as Camunda's REST API shows it.
var jobJSON = newShape[bpmnlite.Job](`id jobDefinitionId? processInstanceId? processDefinitionId? processDefinitionKey?
	executionId? exceptionMessage? failedActivityId? retries dueDate suspended() priority tenantId? createTime batchId:null`)

// jobRoutes: jobs: queries, retries, due dates, priorities, suspension,
// stack traces, execution and deletion by hand.
func (h *Handler) jobRoutes() {
	listRoutes(h, "/job", "param", bpmnlite.JobQuery{}, h.eng.Jobs, jobJSON)
	byIDRoute(h, "/job", func(ctx context.Context, id string) ([]*bpmnlite.Job, error) {
		return h.eng.Jobs(ctx, bpmnlite.JobQuery{ID: id})
	},
		jobJSON, func(id string) string { return "Job with id " + id + " does not exist" })
	h.handle("PUT /job/{id}/retries", func(w http.ResponseWriter, r *http.Request) error {
		var body retriesBody
		if err := readJSON(r, &body); err != nil {
			return err
		}
		retries, err := body.retries()
		if err != nil {
			return err
		}
		if body.DueDate != nil {
			return badRequest("bpmnlite does not support the member dueDate of a retries update (Camunda's REST API has it; bpmnlite refuses it rather than ignore it): set it with PUT /job/{id}/duedate")
		}
		return h.jobChange(w, r, h.eng.SetJobRetries(r.Context(), r.PathValue("id"), retries))
	})
	h.handle("POST /job/{id}/execute", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.ExecuteJob(r.Context(), r.PathValue("id")); err != nil {
			if isNotFound(err) {
				return h.jobError(r, err)
			}
			return &serverError{typ: "RestException", msg: err.Error()}
		}
		return noContent(w)
	})
	h.handle("PUT /job/{id}/duedate", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			DueDate *string `json:"duedate"`
			Cascade bool    `json:"cascade"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		var due *time.Time
		if body.DueDate != nil {
			t, err := parseTime(*body.DueDate)
			if err != nil {
				return badRequest("duedate: %v", err)
			}
			due = &t
		}
		return h.jobChange(w, r, h.eng.SetJobDueDateCascade(r.Context(), r.PathValue("id"), due, body.Cascade))
	})
	h.handle("POST /job/{id}/duedate/recalculate", func(w http.ResponseWriter, r *http.Request) error {
		creationDateBased := true // Camunda's default
		if s := r.URL.Query().Get("creationDateBased"); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return badRequest("query parameter creationDateBased: %q is not a boolean", s)
			}
			creationDateBased = b
		}
		return h.jobChange(w, r, h.eng.RecalculateJobDueDate(r.Context(), r.PathValue("id"), creationDateBased))
	}, "creationDateBased")
	h.handle("PUT /job/{id}/priority", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Priority *int64 `json:"priority"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Priority == nil {
			return badRequest("Priority for job '%s' cannot be null.", r.PathValue("id"))
		}
		return h.jobChange(w, r, h.eng.SetJobPriority(r.Context(), r.PathValue("id"), *body.Priority))
	})
	h.handle("PUT /job/{id}/suspended", func(w http.ResponseWriter, r *http.Request) error {
		var body map[string]json.RawMessage
		if err := readJSON(r, &body); err != nil {
			return err
		}
		suspend, err := suspension(body, jobSelectors, nil)
		if err != nil {
			return err
		}
		change := h.eng.ActivateJob
		if suspend {
			change = h.eng.SuspendJob
		}
		return h.jobChange(w, r, change(r.Context(), r.PathValue("id")))
	})
	h.handle("PUT /job/suspended", func(w http.ResponseWriter, r *http.Request) error {
		var body map[string]json.RawMessage
		if err := readJSON(r, &body); err != nil {
			return err
		}
		var q bpmnlite.JobQuery
		suspend, err := suspension(body, jobSelectors, map[string]*string{"jobDefinitionId": &q.JobDefinitionID,
			"processInstanceId": &q.ProcessInstanceID, "processDefinitionId": &q.ProcessDefinitionID, "processDefinitionKey": &q.ProcessDefinitionKey})
		if err != nil {
			return err
		}
		change := h.eng.ActivateJobs
		if suspend {
			change = h.eng.SuspendJobs
		}
		if err := change(r.Context(), q); err != nil {
			return err
		}
		return noContent(w)
	})
	h.handle("GET /job/{id}/stacktrace", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		js, err := h.eng.Jobs(r.Context(), bpmnlite.JobQuery{ID: id})
		j, err := first(js, err, "No job found with id "+id)
		if err != nil {
			return err
		}
		if j.ExceptionStack == "" {
			return noContent(w) // Camunda's null stack trace
		}
		w.Header().Set("Content-Type", "text/plain")
		_, err = w.Write([]byte(j.ExceptionStack))
		return err
	})
	h.handle("DELETE /job/{id}", func(w http.ResponseWriter, r *http.Request) error {
		err := h.eng.DeleteJob(r.Context(), r.PathValue("id"))
		if errors.Is(err, bpmnlite.ErrJobLocked) {
			return &serverError{typ: "RestException", msg: err.Error()}
		}
		return h.jobChange(w, r, err)
	})
}

// jobChange answers a change of job {id}: 204, or its error with an
// unknown job worded as Camunda words it (404).
func (h *Handler) jobChange(w http.ResponseWriter, r *http.Request, err error) error {
	switch {
	case isNotFound(err):
		return h.jobError(r, err)
	case errors.Is(err, bpmnlite.ErrInvalidArgument):
		return invalidArgument(err)
	case err != nil:
		return err
	}
	return noContent(w)
}

func (h *Handler) jobError(r *http.Request, err error) error {
	if isNotFound(err) {
		return &notFound{"Job with id " + r.PathValue("id") + " does not exist"}
	}
	return err
}

// suspension is a suspension state body: {"suspended": bool} and at
// most one of the selectors named (string members), which it sets; more
// than one is Camunda's 400, naming the selectors of the resource (names).
func suspension(body map[string]json.RawMessage, names string, selectors map[string]*string) (bool, error) {
	var suspended bool
	if raw, ok := body["suspended"]; ok {
		if err := json.Unmarshal(raw, &suspended); err != nil {
			return false, badRequest("suspended: want true or false: %v", err)
		}
	}
	for _, unsupported := range []string{"executionDate", "processDefinitionTenantId", "processDefinitionWithoutTenantId"} {
		if raw, ok := body[unsupported]; ok && string(raw) != "null" && string(raw) != "false" && string(raw) != `""` {
			return false, badRequest("bpmnlite does not support the member %s of a suspension update (Camunda's REST API has it; bpmnlite refuses it rather than ignore it)", unsupported)
		}
	}
	given := 0
	for name, dst := range selectors {
		raw, ok := body[name]
		if !ok || string(raw) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return false, badRequest("%s: want a string: %v", name, err)
		}
		given++
	}
	switch {
	case given > 1:
		return false, badRequest("Only one of %s should be set to update the suspension state.", names)
	case given == 0 && selectors != nil:
		return false, badRequest("Either %s should be set to update the suspension state.", names)
	}
	return suspended, nil
}

// jobSelectors are the selectors of a job suspension update.
const jobSelectors = "jobId, jobDefinitionId, processInstanceId, processDefinitionId or processDefinitionKey"

// retriesBody is Camunda's JobRetriesDto: the retries to set, and a due
// date.
type retriesBody struct {
	Retries *int            `json:"retries"`
	DueDate json.RawMessage `json:"dueDate"`
}

// retries are the retries asked for: required, not negative.
func (b retriesBody) retries() (int, error) {
	if b.Retries == nil || *b.Retries < 0 {
		return 0, badRequest("retries are required and must not be negative")
	}
	return *b.Retries, nil
}
