package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The condition resource: conditional start events evaluated on demand.

// conditionRoutes: the evaluation of conditional start events.
func (h *Handler) conditionRoutes() {
	h.handle("POST /condition", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables           map[string]TypedValue `json:"variables"`
			BusinessKey         string                `json:"businessKey"`
			ProcessDefinitionID string                `json:"processDefinitionId"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		ids, err := h.eng.EvaluateStartConditions(r.Context(), bpmnlite.ConditionEvaluation{Variables: vars,
			BusinessKey: body.BusinessKey, ProcessDefinitionID: body.ProcessDefinitionID})
		if errors.Is(err, bpmnlite.ErrNoConditionalStart) {
			return badRequest("No subscriptions were found during evaluation of the conditional start events.")
		}
		if err != nil {
			return err
		}
		out := []object{}
		for _, id := range ids {
			p, err := h.instanceView(r, id, endedInstance(id, body.ProcessDefinitionID, body.BusinessKey))
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}
