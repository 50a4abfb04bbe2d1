package rest

import (
	"errors"
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The signal resource.

// signalRoutes: signals thrown from outside: to every execution and start
// event waiting, or to one execution (executionId).
func (h *Handler) signalRoutes() {
	h.handle("POST /signal", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name            string                `json:"name"`
			ExecutionID     string                `json:"executionId"`
			Variables       map[string]TypedValue `json:"variables"`
			TenantID        *string               `json:"tenantId"`
			WithoutTenantID bool                  `json:"withoutTenantId"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		switch {
		case body.Name == "":
			return badRequest("No signal name given")
		case body.TenantID != nil || body.WithoutTenantID:
			return badRequest("bpmnlite does not support the members tenantId and withoutTenantId of a signal (Camunda's REST API has them; bpmnlite refuses them rather than ignore them)")
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		if body.ExecutionID == "" {
			if err := h.eng.Signal(r.Context(), body.Name, vars); err != nil {
				return err
			}
			return noContent(w)
		}
		err = h.eng.SignalExecution(r.Context(), body.ExecutionID, body.Name, vars)
		switch {
		case isNotFound(err) && !errors.Is(err, bpmnlite.ErrNoSubscription):
			return &notFound{"Cannot find execution with id '" + body.ExecutionID + "'"}
		case errors.Is(err, bpmnlite.ErrNoSubscription):
			// Camunda's NotFoundException, answered 500 for compatibility.
			return &serverError{typ: "RestException", msg: strings.TrimSuffix(err.Error(), ": "+bpmnlite.ErrNoSubscription.Error())}
		case err != nil:
			return err
		}
		return noContent(w)
	})
}
