package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The deployment resource: create (multipart), list, delete.

type deploymentDto struct {
	ID                         string                   `json:"id"`
	Name                       *string                  `json:"name"`
	Source                     *string                  `json:"source"`
	DeploymentTime             string                   `json:"deploymentTime"`
	TenantID                   *string                  `json:"tenantId"`
	Links                      []any                    `json:"links"`
	DeployedProcessDefinitions map[string]definitionDto `json:"deployedProcessDefinitions"`
}

func (h *Handler) deploymentRoutes() {
	h.handle("POST /deployment/create", func(w http.ResponseWriter, r *http.Request) error {
		release, err := h.deploys.admit(r.Context())
		if err != nil {
			return err
		}
		defer release()
		req, err := h.deploys.readDeployment(w, r)
		if err != nil {
			return err
		}
		d, err := h.eng.Deploy(r.Context(), req)
		if err != nil {
			return badRequest("%v", err)
		}
		out := deploymentOut(d)
		if !d.Unchanged { // null when duplicate filtering deployed nothing, as Camunda
			out.DeployedProcessDefinitions = map[string]definitionDto{}
			for _, pd := range d.Definitions {
				out.DeployedProcessDefinitions[pd.ID] = definitionOut(pd)
			}
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("GET /deployment", func(w http.ResponseWriter, r *http.Request) error {
		ds, err := h.eng.Deployments(r.Context())
		if err != nil {
			return err
		}
		out := []deploymentDto{}
		for _, d := range page(r, ds) {
			out = append(out, deploymentOut(d))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("DELETE /deployment/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := h.eng.DeleteDeployment(r.Context(), id, r.URL.Query().Get("cascade") == "true"); err != nil {
			if isNotFound(err) {
				return &notFound{"Deployment with id '" + id + "' do not exist"}
			}
			return err
		}
		return noContent(w)
	})
}

func deploymentOut(d *bpmnlite.Deployment) deploymentDto {
	return deploymentDto{ID: d.ID, Name: optString(d.Name), Source: optString(d.Source), DeploymentTime: formatTime(d.DeployTime), Links: []any{}}
}
