package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process instance resource: queries, deletion and variables.

type instanceDto struct {
	ID             string  `json:"id"`
	DefinitionID   string  `json:"definitionId"`
	BusinessKey    *string `json:"businessKey"`
	CaseInstanceID *string `json:"caseInstanceId"`
	Ended          bool    `json:"ended"`
	Suspended      bool    `json:"suspended"`
	TenantID       *string `json:"tenantId"`
	Links          []any   `json:"links"`
}

// instance describes process instance id; an ended one has ended set.
func (h *Handler) instance(r *http.Request, id string) (instanceDto, error) {
	hs, err := h.eng.ProcessInstances(r.Context(), bpmnlite.ProcessInstanceQuery{ID: id})
	if err != nil {
		return instanceDto{}, err
	}
	if len(hs) == 0 {
		return instanceDto{}, &notFound{"Process instance with id " + id + " does not exist"}
	}
	p := hs[0]
	return instanceDto{ID: p.ID, DefinitionID: p.ProcessDefinitionID, BusinessKey: optString(p.BusinessKey),
		Ended: p.EndTime != nil, Suspended: p.State == "SUSPENDED", Links: []any{}}, nil
}

func (h *Handler) instanceRoutes() {
	list := func(r *http.Request) ([]instanceDto, error) {
		q := r.URL.Query()
		hs, err := h.eng.ProcessInstances(r.Context(), bpmnlite.ProcessInstanceQuery{ID: q.Get("processInstanceIds"),
			ProcessDefinitionKey: q.Get("processDefinitionKey"), ProcessDefinitionID: q.Get("processDefinitionId"),
			BusinessKey: q.Get("businessKey")})
		if err != nil {
			return nil, err
		}
		out := []instanceDto{}
		for _, p := range hs {
			if p.EndTime == nil {
				out = append(out, instanceDto{ID: p.ID, DefinitionID: p.ProcessDefinitionID, BusinessKey: optString(p.BusinessKey),
					Suspended: p.State == "SUSPENDED", Links: []any{}})
			}
		}
		return out, nil
	}
	h.handle("GET /process-instance", func(w http.ResponseWriter, r *http.Request) error {
		out, err := list(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /process-instance/count", func(w http.ResponseWriter, r *http.Request) error {
		out, err := list(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(out)})
		return nil
	})
	h.handle("GET /process-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		out, err := h.instance(r, r.PathValue("id"))
		if err != nil {
			return err
		}
		if out.Ended {
			return &notFound{"Process instance with id " + out.ID + " does not exist"}
		}
		writeJSON(w, http.StatusOK, out)
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
