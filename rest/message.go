package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The message resource: correlation.

// messageRoutes: message correlation.
func (h *Handler) messageRoutes() {
	h.handle("POST /message", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			MessageName       string                `json:"messageName"`
			BusinessKey       string                `json:"businessKey"`
			ProcessInstanceID string                `json:"processInstanceId"`
			ProcessVariables  map[string]TypedValue `json:"processVariables"`
			CorrelationKeys   map[string]TypedValue `json:"correlationKeys"`
			All               bool                  `json:"all"`
			ResultEnabled     bool                  `json:"resultEnabled"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.MessageName == "" {
			return badRequest("messageName is required")
		}
		vars, err := DecodeVariables(body.ProcessVariables)
		if err != nil {
			return err
		}
		keys, err := DecodeVariables(body.CorrelationKeys)
		if err != nil {
			return err
		}
		ids, err := h.eng.Correlate(r.Context(), bpmnlite.CorrelateRequest{MessageName: body.MessageName, BusinessKey: body.BusinessKey,
			ProcessInstanceID: body.ProcessInstanceID, Variables: vars, CorrelationKeys: keys, All: body.All})
		if err != nil {
			if errors.Is(err, bpmnlite.ErrNoMatch) {
				return badRequest("Cannot correlate message '%s': No process definition or execution matches the parameters", body.MessageName)
			}
			return err
		}
		if !body.ResultEnabled {
			return noContent(w)
		}
		out := []map[string]any{}
		for _, id := range ids {
			out = append(out, map[string]any{"resultType": "Execution", "execution": map[string]any{"id": id, "processInstanceId": id}})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}
