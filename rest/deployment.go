package rest

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The deployment resource: create (multipart), redeploy, list, get,
// delete, and the deployed files.

// deploymentJSON is a deployment as Camunda's REST API shows it.
var deploymentJSON = newShape[bpmnlite.Deployment](`id name? source? deploymentTime=DeployTime tenantId? links:[]`)

// deploymentResourceJSON is one file of a deployment.
var deploymentResourceJSON = newShape[bpmnlite.DeploymentResource](`id name deploymentId`)

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
		return h.deploy(w, r, req)
	})
	listRoutes(h, "/deployment", "param", bpmnlite.DeploymentQuery{}, h.eng.Deployments, deploymentJSON)
	h.handle("GET /deployment/registered", func(w http.ResponseWriter, r *http.Request) error {
		// bpmnlite has no process applications: none registers a
		// deployment, as Camunda answers without one.
		writeJSON(w, http.StatusOK, []string{})
		return nil
	})
	h.handle("GET /deployment/{id}", func(w http.ResponseWriter, r *http.Request) error {
		d, err := h.deployment(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, deploymentJSON.of(d))
		return nil
	})
	h.handle("DELETE /deployment/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		cascade, err := deleteFlags(r)
		if err != nil {
			return err
		}
		if err := h.eng.DeleteDeployment(r.Context(), id, cascade); err != nil {
			if isNotFound(err) {
				return &notFound{"Deployment with id '" + id + "' do not exist"}
			}
			return engineError(err)
		}
		return noContent(w)
	}, "cascade", "skipCustomListeners", "skipIoMappings")
	h.handle("POST /deployment/{id}/redeploy", h.redeploy)
	h.handle("GET /deployment/{id}/resources", func(w http.ResponseWriter, r *http.Request) error {
		rs, err := h.deploymentResources(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, deploymentResourceJSON.list(rs))
		return nil
	})
	h.handle("GET /deployment/{id}/resources/{resourceId}", func(w http.ResponseWriter, r *http.Request) error {
		res, err := h.deploymentResource(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, deploymentResourceJSON.of(res))
		return nil
	})
	h.handle("GET /deployment/{id}/resources/{resourceId}/data", func(w http.ResponseWriter, r *http.Request) error {
		res, err := h.deploymentResource(r)
		if err != nil {
			return err
		}
		writeFile(w, path.Base(strings.ReplaceAll(res.Name, `\`, "/")), resourceMediaType(res.Name), res.Bytes)
		return nil
	})
}

// deploy deploys req and answers with the deployment and what it deployed.
func (h *Handler) deploy(w http.ResponseWriter, r *http.Request, req bpmnlite.DeployRequest) error {
	d, err := h.eng.Deploy(r.Context(), req)
	if err != nil {
		return badRequest("%v", err)
	}
	out := append(deploymentJSON.of(d), member[any]{"deployedProcessDefinitions", nil},
		member[any]{"deployedCaseDefinitions", nil}, member[any]{"deployedDecisionDefinitions", nil},
		member[any]{"deployedDecisionRequirementsDefinitions", nil})
	// null when nothing of the kind was deployed (duplicate filtering
	// deployed nothing, or only other files), as Camunda
	if !d.Unchanged && len(d.Definitions) > 0 {
		defs := map[string]object{}
		for _, pd := range d.Definitions {
			defs[pd.ID] = definitionJSON.of(pd)
		}
		out.set("deployedProcessDefinitions", defs)
	}
	if !d.Unchanged && len(d.DecisionDefinitions) > 0 {
		defs := map[string]object{}
		for _, dd := range d.DecisionDefinitions {
			defs[dd.ID] = decisionDefinitionJSON.of(dd)
		}
		out.set("deployedDecisionDefinitions", defs)
	}
	if !d.Unchanged && len(d.DecisionRequirementsDefinitions) > 0 {
		defs := map[string]object{}
		for _, drd := range d.DecisionRequirementsDefinitions {
			defs[drd.ID] = decisionRequirementsJSON.of(drd)
		}
		out.set("deployedDecisionRequirementsDefinitions", defs)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redeploy deploys again the files of a deployment (all, or those named
// by id or name), under its name and tenant, as Camunda's redeploy.
func (h *Handler) redeploy(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ResourceIDs   []string `json:"resourceIds"`
		ResourceNames []string `json:"resourceNames"`
		Source        string   `json:"source"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	id := r.PathValue("id")
	d, err := h.eng.Deployment(r.Context(), id)
	switch {
	case isNotFound(err):
		return &notFound{"Cannot redeploy deployment '" + id + "': Deployment with id '" + id + "' does not exist"}
	case err != nil:
		return err
	}
	rs, err := h.eng.DeploymentResources(r.Context(), id)
	if err != nil {
		return err
	}
	req := bpmnlite.DeployRequest{Name: d.Name, Source: body.Source, TenantID: d.TenantID}
	all := len(body.ResourceIDs) == 0 && len(body.ResourceNames) == 0
	for _, res := range rs {
		if all || slices.Contains(body.ResourceIDs, res.ID) || slices.Contains(body.ResourceNames, res.Name) {
			req.Resources = append(req.Resources, bpmnlite.Resource{Name: res.Name, Bytes: res.Bytes})
		}
	}
	if missing := missingResources(rs, body.ResourceIDs, body.ResourceNames); len(missing) > 0 {
		return &notFound{fmt.Sprintf("Cannot redeploy deployment '%s': The deployment with id '%s' does not contain the following resources: [%s]", id, id, strings.Join(missing, ", "))}
	}
	release, err := h.deploys.admit(r.Context())
	if err != nil {
		return err
	}
	defer release()
	return h.deploy(w, r, req)
}

// missingResources are the ids and names asked for that no resource of
// rs has.
func missingResources(rs []*bpmnlite.DeploymentResource, ids, names []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.ContainsFunc(rs, func(r *bpmnlite.DeploymentResource) bool { return r.ID == id }) {
			out = append(out, id)
		}
	}
	for _, name := range names {
		if !slices.ContainsFunc(rs, func(r *bpmnlite.DeploymentResource) bool { return r.Name == name }) {
			out = append(out, name)
		}
	}
	return out
}

// deployment is the deployment the path names, or a 404.
func (h *Handler) deployment(r *http.Request) (*bpmnlite.Deployment, error) {
	id := r.PathValue("id")
	d, err := h.eng.Deployment(r.Context(), id)
	if isNotFound(err) {
		return nil, &notFound{"Deployment with id '" + id + "' does not exist"}
	}
	return d, err
}

// deploymentResources are the files of the deployment the path names, or
// a 404.
func (h *Handler) deploymentResources(r *http.Request) ([]*bpmnlite.DeploymentResource, error) {
	id := r.PathValue("id")
	rs, err := h.eng.DeploymentResources(r.Context(), id)
	if isNotFound(err) || err == nil && len(rs) == 0 {
		return nil, &notFound{"Deployment resources for deployment id '" + id + "' do not exist."}
	}
	return rs, err
}

// deploymentResource is the file the path names, or a 404.
func (h *Handler) deploymentResource(r *http.Request) (*bpmnlite.DeploymentResource, error) {
	rs, err := h.deploymentResources(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("resourceId")
	for _, res := range rs {
		if res.ID == id {
			return res, nil
		}
	}
	return nil, &notFound{"Deployment resource with resource id '" + id + "' for deployment id '" + r.PathValue("id") + "' does not exist."}
}

// resourceMediaTypes are the content types of deployed files by extension,
// Camunda's; others are application/octet-stream.
var resourceMediaTypes = map[string]string{
	"bpmn": "application/xml", "cmmn": "application/xml", "dmn": "application/xml", "xml": "application/xml",
	"json": "application/json",
	"gif":  "image/gif", "jpeg": "image/jpeg", "jpe": "image/jpeg", "jpg": "image/jpeg", "png": "image/png",
	"svg": "image/svg+xml", "tiff": "image/tiff", "tif": "image/tiff",
	"groovy": "text/plain", "java": "text/plain", "js": "text/plain", "php": "text/plain", "py": "text/plain",
	"rb": "text/plain", "txt": "text/plain",
	"html": "text/html",
}

func resourceMediaType(name string) string {
	if i := strings.LastIndex(name, "."); i >= 0 {
		if t, ok := resourceMediaTypes[name[i+1:]]; ok {
			return t
		}
	}
	return "application/octet-stream"
}

// writeFile answers with a file's bytes, as an attachment named name.
func writeFile(w http.ResponseWriter, name, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// deleteFlags reads the flags of Camunda's deletions of deployments and
// definitions: cascade is honoured; skipCustomListeners and
// skipIoMappings are refused when set, as bpmnlite runs a deleted
// instance's end listeners and mappings as Camunda does by default.
func deleteFlags(r *http.Request) (cascade bool, err error) {
	q := r.URL.Query()
	for _, name := range []string{"skipCustomListeners", "skipIoMappings"} {
		if q.Get(name) == "true" {
			return false, badRequest("bpmnlite does not support %s=true: the end listeners and output mappings of deleted instances run", name)
		}
	}
	return q.Get("cascade") == "true", nil
}

// engineError is an engine's refusal of a change Camunda answers with a
// ProcessEngineException (500): deleting without cascade what has running
// instances.
func engineError(err error) error {
	if errors.Is(err, bpmnlite.ErrHasInstances) {
		return &conflict{"ProcessEngineException", err.Error()}
	}
	return err
}
