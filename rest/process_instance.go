package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process instance resource: queries, deletion and variables.

// instanceJSON is a process instance as Camunda's REST API shows it, read
// from history.
var instanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended() suspended=stateSuspended() tenantId? links:[]`)

// instance is process instance id, from history.
func (h *Handler) instance(r *http.Request, id string) (*bpmnlite.HistoricProcessInstance, error) {
	hs, err := h.eng.ProcessInstances(r.Context(), bpmnlite.ProcessInstanceQuery{ID: id})
	return first(hs, err, "Process instance with id "+id+" does not exist")
}

func (h *Handler) instanceRoutes() {
	// Camunda's runtime query: the unfinished instances, some parameters
	// named otherwise than in history (runtimeParam).
	listRoutes(h, "/process-instance", "runtimeParam", bpmnlite.ProcessInstanceQuery{Unfinished: true}, h.eng.ProcessInstances, instanceJSON)
	h.handle("GET /process-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.instance(r, r.PathValue("id"))
		if err != nil {
			return err
		}
		if p.EndTime != nil {
			return &notFound{"Process instance with id " + p.ID + " does not exist"}
		}
		writeJSON(w, http.StatusOK, instanceJSON.of(p))
		return nil
	})
	h.handle("DELETE /process-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := h.eng.DeleteProcessInstance(r.Context(), id, r.URL.Query().Get("deleteReason")); err != nil {
			if isNotFound(err) {
				return &notFound{"Process instance with id " + id + " does not exist"}
			}
			return err
		}
		return noContent(w)
	})
	h.handle("GET /process-instance/{id}/variables", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		vars, err := h.eng.Variables(r.Context(), id)
		if err != nil {
			if isNotFound(err) {
				return &notFound{"process instance " + id + " doesn't exist"}
			}
			return err
		}
		writeJSON(w, http.StatusOK, EncodeVariables(vars))
		return nil
	})
	h.handle("POST /process-instance/{id}/variables", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Modifications map[string]TypedValue `json:"modifications"`
			Deletions     []string              `json:"deletions"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if len(body.Deletions) > 0 {
			return badRequest("deleting variables is not supported yet")
		}
		vars, err := DecodeVariables(body.Modifications)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		if err := h.eng.SetVariables(r.Context(), id, vars); err != nil {
			if isNotFound(err) {
				return &notFound{"Cannot modify variables for process instance " + id + ": it does not exist"}
			}
			return err
		}
		return noContent(w)
	})
}
