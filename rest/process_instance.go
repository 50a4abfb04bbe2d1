package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process instance resource: queries, deletion and variables.

// instanceJSON is a running process instance as Camunda's REST API shows
// it; endedInstanceJSON one that has ended, from history.
var (
	instanceJSON = newShape[bpmnlite.ExecutionRow](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended:false suspended() tenantId:null links:[]`)
	endedInstanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended:true suspended:false tenantId:null links:[]`)
)

// runningInstance is process instance id, if it runs.
func (h *Handler) runningInstance(r *http.Request, id string) (*bpmnlite.ExecutionRow, error) {
	ps, err := h.eng.Instances(r.Context(), bpmnlite.InstanceQuery{IDs: []string{id}})
	return first(ps, err, "Process instance with id "+id+" does not exist")
}

// endedInstance is an ended instance history keeps nothing of, as far as
// the command that ran it knows it.
func endedInstance(id, definitionID, businessKey string) object {
	return endedInstanceJSON.of(&bpmnlite.HistoricProcessInstance{ID: id, ProcessDefinitionID: definitionID, BusinessKey: businessKey})
}

// instanceView is process instance id as a command that started or moved
// it answers: running, or ended (from history, or with what the caller
// knows of it where history keeps nothing).
func (h *Handler) instanceView(r *http.Request, id string, ended object) (object, error) {
	p, err := h.runningInstance(r, id)
	if err == nil {
		return instanceJSON.of(p), nil
	}
	var nf *notFound
	if !errors.As(err, &nf) {
		return nil, err
	}
	hs, err := h.eng.ProcessInstances(r.Context(), bpmnlite.ProcessInstanceQuery{ID: id})
	if err != nil || len(hs) == 0 {
		return ended, err
	}
	return endedInstanceJSON.of(hs[0]), nil
}

func (h *Handler) instanceRoutes() {
	// Camunda's runtime query: the unfinished instances, some parameters
	// named otherwise than in history (runtimeParam).
	listRoutes(h, "/process-instance", "param", bpmnlite.InstanceQuery{}, h.eng.Instances, instanceJSON)
	h.handle("GET /process-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.runningInstance(r, r.PathValue("id"))
		if err != nil {
			return err
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
