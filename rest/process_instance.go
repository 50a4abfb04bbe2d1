package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process instance resource: queries and deletion (its variables:
// variable_resources.go).

// instanceJSON is a process instance as Camunda's REST API shows it, read
// from history.
var instanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended() suspended=stateSuspended() tenantId:null links:[]`)

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
}
