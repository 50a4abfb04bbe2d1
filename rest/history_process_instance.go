package rest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/bpmnlite/bpmnlite"
)

// historicInstanceRoutes: process instances in history, listed with every
// filter Camunda's history has, one by id, and their history deleted.
func (h *Handler) historicInstanceRoutes() {
	const path = "/history/process-instance"
	listRoutes(h, path, "param", bpmnlite.HistoricProcessInstanceQuery{}, h.eng.HistoricProcessInstances, historicInstanceJSON)
	missing := func(id string) string { return "Historic process instance with id " + id + " does not exist" }
	byIDRoute(h, path, func(ctx context.Context, id string) ([]*bpmnlite.HistoricProcessInstance, error) {
		return h.eng.HistoricProcessInstances(ctx, bpmnlite.HistoricProcessInstanceQuery{ID: id})
	}, historicInstanceJSON, missing)
	// Camunda answers 404 for a running instance too (its engine refuses
	// to delete a running instance's history, which its REST layer
	// reports as missing).
	h.handle("DELETE "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		failIfNotExists := true
		if s := r.URL.Query().Get("failIfNotExists"); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return badRequest("query parameter failIfNotExists: %q is not a boolean", s)
			}
			failIfNotExists = b
		}
		id := r.PathValue("id")
		err := h.eng.DeleteHistoricProcessInstance(r.Context(), id, !failIfNotExists)
		if isNotFound(err) || errors.Is(err, bpmnlite.ErrStillRunning) {
			return &notFound{missing(id)}
		}
		if err != nil {
			return err
		}
		return noContent(w)
	}, "failIfNotExists")
	h.handle("DELETE "+path+"/{id}/variable-instances", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		err := h.eng.DeleteHistoricVariables(r.Context(), id)
		if isNotFound(err) {
			return &notFound{"No historic process instance found with id: " + id + ": instance is null"}
		}
		if err != nil {
			return err
		}
		return noContent(w)
	})
}
