package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The job definition resource.

// jobDefinitionJSON is a job definition as Camunda's REST API shows it.
var jobDefinitionJSON = newShape[bpmnlite.JobDefinition](`id processDefinitionId? processDefinitionKey? jobType=HandlerType? jobConfiguration
	activityId? suspended() overridingJobPriority=OverridingPriority tenantId:null deploymentId?`)

// jobDefinitionRoutes: job definitions: queries, suspension, retries of
// their failed jobs, overriding priorities.
func (h *Handler) jobDefinitionRoutes() {
	listRoutes(h, "/job-definition", "param", bpmnlite.JobDefinitionQuery{}, h.eng.FindJobDefinitions, jobDefinitionJSON)
	missing := func(id string) string { return "Job Definition with id " + id + " does not exist" }
	byIDRoute(h, "/job-definition", func(ctx context.Context, id string) ([]*bpmnlite.JobDefinition, error) {
		return h.eng.FindJobDefinitions(ctx, bpmnlite.JobDefinitionQuery{ID: id})
	}, jobDefinitionJSON, missing)
	change := func(w http.ResponseWriter, r *http.Request, err error) error {
		if isNotFound(err) {
			return &notFound{missing(r.PathValue("id"))}
		}
		if err != nil {
			return err
		}
		return noContent(w)
	}
	// suspensionOf reads a suspension body: the state, includeJobs and the
	// selectors (nil: none, the definition in the path).
	suspensionOf := func(r *http.Request, selectors map[string]*string) (suspend, includeJobs bool, err error) {
		var body map[string]json.RawMessage
		if err := readJSON(r, &body); err != nil {
			return false, false, err
		}
		if raw, ok := body["includeJobs"]; ok && json.Unmarshal(raw, &includeJobs) != nil {
			return false, false, badRequest("includeJobs: want true or false")
		}
		suspend, err = suspension(body, "jobDefinitionId, processDefinitionId or processDefinitionKey", selectors)
		return suspend, includeJobs, err
	}
	h.handle("PUT /job-definition/{id}/suspended", func(w http.ResponseWriter, r *http.Request) error {
		suspend, includeJobs, err := suspensionOf(r, nil)
		if err != nil {
			return err
		}
		apply := h.eng.ActivateJobDefinition
		if suspend {
			apply = h.eng.SuspendJobDefinition
		}
		return change(w, r, apply(r.Context(), r.PathValue("id"), includeJobs))
	})
	h.handle("PUT /job-definition/suspended", func(w http.ResponseWriter, r *http.Request) error {
		var q bpmnlite.JobDefinitionQuery
		suspend, includeJobs, err := suspensionOf(r, map[string]*string{"jobDefinitionId": &q.ID,
			"processDefinitionId": &q.ProcessDefinitionID, "processDefinitionKey": &q.ProcessDefinitionKey})
		if err != nil {
			return err
		}
		apply := h.eng.ActivateJobDefinitions
		if suspend {
			apply = h.eng.SuspendJobDefinitions
		}
		return change(w, r, apply(r.Context(), q, includeJobs))
	})
	h.handle("PUT /job-definition/{id}/retries", func(w http.ResponseWriter, r *http.Request) error {
		retries, err := readRetries(r)
		if err != nil {
			return err
		}
		return change(w, r, h.eng.SetJobRetriesByDefinition(r.Context(), r.PathValue("id"), retries))
	})
	h.handle("PUT /job-definition/{id}/jobPriority", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Priority    *int64 `json:"priority"`
			IncludeJobs bool   `json:"includeJobs"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		id := r.PathValue("id")
		if body.Priority == nil {
			if body.IncludeJobs {
				return badRequest("Cannot reset priority for job definition %s with includeJobs=true", id)
			}
			return change(w, r, h.eng.ClearOverridingJobPriority(r.Context(), id))
		}
		return change(w, r, h.eng.SetOverridingJobPriority(r.Context(), id, *body.Priority, body.IncludeJobs))
	})
}
