package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process definition resource: queries and starting instances.

// definitionJSON is a process definition as Camunda's REST API shows it.
var definitionJSON = newShape[bpmnlite.ProcessDefinition](`id key category:"http://bpmn.io/schema/bpmn" description:null name?
	version resource=ResourceName deploymentId diagram:null suspended() tenantId:null versionTag? startableInTasklist:true`)

// definitionRoutes: process definitions, and starting instances of them.
func (h *Handler) definitionRoutes() {
	listRoutes(h, "/process-definition", "param", bpmnlite.DefinitionQuery{}, h.eng.ProcessDefinitions, definitionJSON)
	h.handle("POST /process-definition/key/{key}/start", func(w http.ResponseWriter, r *http.Request) error {
		return h.start(w, r, bpmnlite.StartRequest{Key: r.PathValue("key")})
	})
	h.handle("POST /process-definition/{id}/start", func(w http.ResponseWriter, r *http.Request) error {
		return h.start(w, r, bpmnlite.StartRequest{DefinitionID: r.PathValue("id")})
	})
}

func (h *Handler) start(w http.ResponseWriter, r *http.Request, req bpmnlite.StartRequest) error {
	var body struct {
		Variables             map[string]TypedValue `json:"variables"`
		BusinessKey           string                `json:"businessKey"`
		WithVariablesInReturn bool                  `json:"withVariablesInReturn"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	req.Variables, req.BusinessKey = vars, body.BusinessKey
	id, err := h.eng.Start(r.Context(), req)
	if err != nil {
		if isNotFound(err) {
			return &notFound{"No matching process definition: " + err.Error()}
		}
		return err
	}
	defID := req.DefinitionID
	if defID == "" { // the version started, unless one was deployed since
		defs, err := h.eng.ProcessDefinitions(r.Context(), bpmnlite.DefinitionQuery{Key: req.Key, LatestOnly: true})
		if err == nil && len(defs) == 1 {
			defID = defs[0].ID
		}
	}
	out, err := h.instanceView(r, id, endedInstance(id, defID, req.BusinessKey))
	if err != nil {
		return err
	}
	if body.WithVariablesInReturn {
		if vars, err := h.eng.Variables(r.Context(), id); err == nil {
			out = append(out, member[any]{"variables", EncodeVariables(vars)})
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
