package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The process definition resource: queries and starting instances.

type definitionDto struct {
	ID                  string  `json:"id"`
	Key                 string  `json:"key"`
	Category            string  `json:"category"`
	Description         *string `json:"description"`
	Name                *string `json:"name"`
	Version             int     `json:"version"`
	Resource            string  `json:"resource"`
	DeploymentID        string  `json:"deploymentId"`
	Diagram             *string `json:"diagram"`
	Suspended           bool    `json:"suspended"`
	TenantID            *string `json:"tenantId"`
	VersionTag          *string `json:"versionTag"`
	StartableInTasklist bool    `json:"startableInTasklist"`
}

func definitionOut(d *bpmnlite.ProcessDefinition) definitionDto {
	return definitionDto{ID: d.ID, Key: d.Key, Category: "http://bpmn.io/schema/bpmn", Name: optString(d.Name),
		Version: d.Version, Resource: d.ResourceName, DeploymentID: d.DeploymentID, Suspended: d.Suspension == 2,
		VersionTag: optString(d.VersionTag), StartableInTasklist: true}
}

// definitionRoutes: process definitions, and starting instances of them.
func (h *Handler) definitionRoutes() {
	h.handle("GET /process-definition", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		ds, err := h.eng.ProcessDefinitions(r.Context(), bpmnlite.DefinitionQuery{ID: q.Get("processDefinitionId"),
			Key: q.Get("key"), DeploymentID: q.Get("deploymentId"), LatestOnly: q.Get("latestVersion") == "true"})
		if err != nil {
			return err
		}
		out := []definitionDto{}
		for _, d := range page(r, ds) {
			out = append(out, definitionOut(d))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
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
	out, err := h.instance(r, id)
	if err != nil {
		return err
	}
	if body.WithVariablesInReturn {
		vars, err := h.eng.Variables(r.Context(), id)
		if err == nil {
			writeJSON(w, http.StatusOK, struct {
				instanceDto
				Variables map[string]TypedValue `json:"variables"`
			}{out, EncodeVariables(vars)})
			return nil
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
