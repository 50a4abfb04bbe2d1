package rest

import (
	"net/http"
)

// The signal resource.

// signalRoutes: signals thrown from outside.
func (h *Handler) signalRoutes() {
	h.handle("POST /signal", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name      string                `json:"name"`
			Variables map[string]TypedValue `json:"variables"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Name == "" {
			return badRequest("No signal name given")
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		if err := h.eng.Signal(r.Context(), body.Name, vars); err != nil {
			return err
		}
		return noContent(w)
	})
}
