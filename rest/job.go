package rest

import (
	"context"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The job resource.

// jobJSON is a job as Camunda's REST API shows it.
var jobJSON = newShape[bpmnlite.Job](`id jobDefinitionId? processInstanceId? processDefinitionId processDefinitionKey
	executionId? exceptionMessage? failedActivityId? retries dueDate suspended() priority tenantId? createTime`)

// jobRoutes: jobs: queries, retries and execution by hand.
func (h *Handler) jobRoutes() {
	listRoutes(h, "/job", "param", bpmnlite.JobQuery{}, h.eng.Jobs, jobJSON)
	byIDRoute(h, "/job", func(ctx context.Context, id string) ([]*bpmnlite.Job, error) {
		return h.eng.Jobs(ctx, bpmnlite.JobQuery{ID: id})
	},
		jobJSON, func(id string) string { return "Job with id " + id + " does not exist" })
	jobError := func(r *http.Request, err error) error {
		if isNotFound(err) {
			return &notFound{"Job with id " + r.PathValue("id") + " does not exist"}
		}
		return err
	}
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
