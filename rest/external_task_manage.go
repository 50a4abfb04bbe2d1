package rest

import (
	"encoding/json"
	"net/http"
	"reflect"
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
	h.handle("POST /external-task/retries-async", func(w http.ResponseWriter, r *http.Request) error {
		return errNoBatches("POST /external-task/retries-async", "PUT /external-task/retries, which sets them at once")
	})
}

// setExternalTasksRetries sets the retries of the external tasks named
// (externalTaskIds), of process instances (processInstanceIds) and of an
// external task query (externalTaskQuery, as POST /external-task takes
// it), in one transaction.
func (h *Handler) setExternalTasksRetries(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Retries                      *int                       `json:"retries"`
		ExternalTaskIDs              []string                   `json:"externalTaskIds"`
		ProcessInstanceIDs           []string                   `json:"processInstanceIds"`
		ExternalTaskQuery            map[string]json.RawMessage `json:"externalTaskQuery"`
		ProcessInstanceQuery         json.RawMessage            `json:"processInstanceQuery"`
		HistoricProcessInstanceQuery json.RawMessage            `json:"historicProcessInstanceQuery"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	switch {
	case body.ProcessInstanceQuery != nil || body.HistoricProcessInstanceQuery != nil:
		return badRequest("bpmnlite does not support processInstanceQuery and historicProcessInstanceQuery in a retries update (Camunda's REST API has them; bpmnlite refuses them rather than ignore them): use processInstanceIds")
	case body.Retries == nil:
		return badRequest("The number of retries cannot be null.")
	case *body.Retries < 0:
		return badRequest("The number of retries cannot be negative.")
	}
	ids := append([]string{}, body.ExternalTaskIDs...)
	if len(body.ProcessInstanceIDs) > 0 {
		tasks, err := h.eng.ExternalTasks(r.Context(), bpmnlite.ExternalTaskQuery{ProcessInstanceIDs: body.ProcessInstanceIDs})
		if err != nil {
			return err
		}
		ids = append(ids, taskIDs(tasks)...)
	}
	if body.ExternalTaskQuery != nil {
		getOp := camundaAPI[opKey("GET", "/external-task")]
		params, err := jsonQuery(body.ExternalTaskQuery, getOp, queryParams(reflect.TypeFor[bpmnlite.ExternalTaskQuery](), "param"))
		if err != nil {
			return err
		}
		var q bpmnlite.ExternalTaskQuery
		if err := bindQuery(params, &q, "param", getOp); err != nil {
			return err
		}
		tasks, err := h.eng.ExternalTasks(r.Context(), q)
		if err != nil {
			return err
		}
		ids = append(ids, taskIDs(tasks)...)
	}
	if len(ids) == 0 {
		return badRequest("externalTaskIds is empty")
	}
	if err := h.eng.SetExternalTasksRetries(r.Context(), ids, *body.Retries); err != nil {
		if isNotFound(err) {
			return &notFound{strings.TrimSuffix(err.Error(), ": "+bpmnlite.ErrNotFound.Error())}
		}
		return err
	}
	return noContent(w)
}

func taskIDs(tasks []*bpmnlite.ExternalTask) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}
