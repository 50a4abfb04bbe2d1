package rest

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The execution resource: queries, and events delivered to one execution.

// executionJSON is an execution as Camunda's REST API shows it.
var executionJSON = newShape[bpmnlite.ExecutionRow](`id processInstanceId ended:false tenantId?`)

// executionRoutes: executions: queries, message subscriptions and their
// triggers, signals (Camunda's trigger of a waiting execution).
func (h *Handler) executionRoutes() {
	listRoutes(h, "/execution", "param", bpmnlite.ExecutionQuery{}, h.eng.Executions, executionJSON)
	byIDRoute(h, "/execution", func(ctx context.Context, id string) ([]*bpmnlite.ExecutionRow, error) {
		return h.eng.Executions(ctx, bpmnlite.ExecutionQuery{ID: id})
	}, executionJSON, func(id string) string { return "Execution with id " + id + " does not exist" })
	h.handle("GET /execution/{id}/messageSubscriptions/{messageName}", func(w http.ResponseWriter, r *http.Request) error {
		id, name := r.PathValue("id"), r.PathValue("messageName")
		subs, err := h.eng.FindEventSubscriptions(r.Context(), bpmnlite.EventSubscriptionQuery{
			ExecutionID: id, EventName: name, EventType: "message"})
		s, err := first(subs, err, "Message event subscription for execution "+id+" named "+name+" does not exist")
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, eventSubscriptionJSON.of(s))
		return nil
	})
	h.handle("POST /execution/{id}/messageSubscriptions/{messageName}/trigger", func(w http.ResponseWriter, r *http.Request) error {
		id, name := r.PathValue("id"), r.PathValue("messageName")
		vars, err := readTriggerVariables(r)
		if err != nil {
			return err
		}
		if err := h.eng.DeliverMessage(r.Context(), id, name, vars); err != nil {
			return executionFailure(err, "Cannot trigger message "+name+" for execution "+id+": ")
		}
		return noContent(w)
	})
	h.handle("POST /execution/{id}/signal", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		vars, err := readTriggerVariables(r)
		if err != nil {
			return err
		}
		if err := h.eng.Trigger(r.Context(), id, vars); err != nil {
			return executionFailure(err, "Cannot signal execution "+id+": ")
		}
		return noContent(w)
	})
}

// readTriggerVariables reads Camunda's ExecutionTriggerDto: {"variables": {...}}.
func readTriggerVariables(r *http.Request) (map[string]any, error) {
	var body struct {
		Variables map[string]TypedValue `json:"variables"`
	}
	if err := readJSON(r, &body); err != nil {
		return nil, err
	}
	return DecodeVariables(body.Variables)
}

// executionFailure is a failed delivery to an execution: an unknown
// execution 404, bad variables 400, the rest Camunda's 500 RestException,
// its message after prefix.
func executionFailure(err error, prefix string) error {
	switch {
	case isNotFound(err):
		return &notFound{prefix + err.Error()}
	case isRequestVariable(err), errors.Is(err, bpmnlite.ErrOptimisticLock):
		return err
	}
	return &serverError{typ: "RestException", msg: prefix + strings.TrimSuffix(err.Error(), ": "+bpmnlite.ErrNoSubscription.Error())}
}
