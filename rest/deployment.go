package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The deployment resource: create (multipart), list, delete.

// deploymentJSON is a deployment as Camunda's REST API shows it; its
// definitions are set when it is created.
var deploymentJSON = newShape[bpmnlite.Deployment](`id name? source? deploymentTime=DeployTime tenantId:null links:[]
	deployedProcessDefinitions:null`)

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
		out := deploymentJSON.of(d)
		if !d.Unchanged { // null when duplicate filtering deployed nothing, as Camunda
			defs := map[string]object{}
			for _, pd := range d.Definitions {
				defs[pd.ID] = definitionJSON.of(pd)
			}
			out.set("deployedProcessDefinitions", defs)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	listRoutes(h, "/deployment", "param", bpmnlite.DeploymentQuery{}, h.eng.Deployments, deploymentJSON)
	h.handle("DELETE /deployment/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := h.eng.DeleteDeployment(r.Context(), id, r.URL.Query().Get("cascade") == "true"); err != nil {
			if isNotFound(err) {
				return &notFound{"Deployment with id '" + id + "' do not exist"}
			}
			return err
		}
		return noContent(w)
	}, "cascade")
}
