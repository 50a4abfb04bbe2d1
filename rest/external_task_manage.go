package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The external task resource's management beyond single tasks: topic
// names and retries of many tasks at once.

func (h *Handler) externalTaskManageRoutes() {
	h.handle("GET /external-task/topic-names", func(w http.ResponseWriter, r *http.Request) error {
		var q bpmnlite.ExternalTaskQuery
		for name, dst := range map[string]*bool{"withLockedTasks": &q.Locked, "withUnlockedTasks": &q.NotLocked, "withRetriesLeft": &q.WithRetriesLeft} {
			if s := r.URL.Query().Get(name); s != "" {
				b, err := strconv.ParseBool(s)
				if err != nil {
					return badRequest("query parameter %s: %q is not a boolean", name, s)
				}
				*dst = b
			}
		}
		topics, err := h.eng.ExternalTaskTopicNames(r.Context(), q)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, append([]string{}, topics...))
		return nil
	}, "withLockedTasks", "withUnlockedTasks", "withRetriesLeft")
	h.handle("PUT /external-task/retries", h.setExternalTasksRetries)
}

// setExternalTasksRetries sets the retries of the external tasks named
// (externalTaskIds), of process instances (processInstanceIds) and of an
// external task query (externalTaskQuery, as POST /external-task takes
// it), in one transaction.
func (h *Handler) setExternalTasksRetries(w http.ResponseWriter, r *http.Request) error {
	req, err := readExternalTaskRetries(r)
	if err != nil {
		return err
	}
	if req.InstanceQuery != nil || req.HistoricQuery != nil {
		return badRequest("bpmnlite does not support processInstanceQuery and historicProcessInstanceQuery in a retries update (Camunda's REST API has them; bpmnlite refuses them rather than ignore them): use processInstanceIds, or POST /external-task/retries-async")
	}
	ids := append([]string{}, req.IDs...)
	var queries []bpmnlite.ExternalTaskQuery
	if len(req.ProcessInstanceIDs) > 0 {
		queries = append(queries, bpmnlite.ExternalTaskQuery{ProcessInstanceIDs: req.ProcessInstanceIDs})
	}
	if req.Query != nil {
		queries = append(queries, *req.Query)
	}
	for _, q := range queries {
		tasks, err := h.eng.ExternalTasks(r.Context(), q)
		if err != nil {
			return err
		}
		ids = append(ids, taskIDs(tasks)...)
	}
	if len(ids) == 0 {
		return badRequest("externalTaskIds is empty")
	}
	if err := h.eng.SetExternalTasksRetries(r.Context(), ids, req.Retries); err != nil {
		if isNotFound(err) {
			return &notFound{strings.TrimSuffix(err.Error(), ": "+bpmnlite.ErrNotFound.Error())}
		}
		return err
	}
	return noContent(w)
}

// readExternalTaskRetries reads the body of a retries update of many
// external tasks (PUT /external-task/retries, POST
// /external-task/retries-async).
func readExternalTaskRetries(r *http.Request) (bpmnlite.ExternalTaskRetriesRequest, error) {
	var body struct {
		Retries                      *int                       `json:"retries"`
		ExternalTaskIDs              []string                   `json:"externalTaskIds"`
		ProcessInstanceIDs           []string                   `json:"processInstanceIds"`
		ExternalTaskQuery            map[string]json.RawMessage `json:"externalTaskQuery"`
		ProcessInstanceQuery         map[string]json.RawMessage `json:"processInstanceQuery"`
		HistoricProcessInstanceQuery map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
	}
	var req bpmnlite.ExternalTaskRetriesRequest
	if err := readJSON(r, &body); err != nil {
		return req, err
	}
	switch {
	case body.Retries == nil:
		return req, badRequest("The number of retries cannot be null.")
	case *body.Retries < 0:
		return req, badRequest("The number of retries cannot be negative.")
	}
	req = bpmnlite.ExternalTaskRetriesRequest{IDs: body.ExternalTaskIDs, ProcessInstanceIDs: body.ProcessInstanceIDs, Retries: *body.Retries}
	var err error
	if req.Query, err = nestedQuery[bpmnlite.ExternalTaskQuery](body.ExternalTaskQuery, "/external-task"); err != nil {
		return req, err
	}
	req.InstanceQuery, req.HistoricQuery, err = instanceQueries(body.ProcessInstanceQuery, body.HistoricProcessInstanceQuery)
	return req, err
}

func taskIDs(tasks []*bpmnlite.ExternalTask) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}
