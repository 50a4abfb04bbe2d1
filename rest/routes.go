package rest

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/bpmnlite/bpmnlite"
)

// Version is the Camunda REST API version this server follows.
const Version = "7.20.0"

func (h *Handler) routes() {
	h.handle("GET /version", func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
		return nil
	})
	h.deploymentRoutes()
	h.instanceRoutes()
	h.externalTaskRoutes()
	h.moreRoutes()
	h.historyRoutes()
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NotFoundException", "no resource at "+r.Method+" "+r.URL.Path)
	})
}

func isNotFound(err error) bool { return errors.Is(err, bpmnlite.ErrNotFound) }

// page applies firstResult and maxResults.
func page[T any](r *http.Request, all []T) []T {
	q := r.URL.Query()
	first, _ := strconv.Atoi(q.Get("firstResult"))
	if first < 0 || first >= len(all) {
		if first > 0 {
			return nil
		}
		first = 0
	}
	all = all[first:]
	if max, err := strconv.Atoi(q.Get("maxResults")); err == nil && max >= 0 && max < len(all) {
		all = all[:max]
	}
	return all
}

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

func deploymentOut(d *bpmnlite.Deployment) deploymentDto {
	return deploymentDto{ID: d.ID, Name: optString(d.Name), Source: optString(d.Source), DeploymentTime: formatTime(d.DeployTime), Links: []any{}}
}

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
	h.handle("POST /message", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			MessageName       string                `json:"messageName"`
			BusinessKey       string                `json:"businessKey"`
			ProcessInstanceID string                `json:"processInstanceId"`
			ProcessVariables  map[string]TypedValue `json:"processVariables"`
			CorrelationKeys   map[string]TypedValue `json:"correlationKeys"`
			All               bool                  `json:"all"`
			ResultEnabled     bool                  `json:"resultEnabled"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.MessageName == "" {
			return badRequest("messageName is required")
		}
		vars, err := DecodeVariables(body.ProcessVariables)
		if err != nil {
			return err
		}
		keys, err := DecodeVariables(body.CorrelationKeys)
		if err != nil {
			return err
		}
		ids, err := h.eng.Correlate(r.Context(), bpmnlite.CorrelateRequest{MessageName: body.MessageName, BusinessKey: body.BusinessKey,
			ProcessInstanceID: body.ProcessInstanceID, Variables: vars, CorrelationKeys: keys, All: body.All})
		if err != nil {
			if errors.Is(err, bpmnlite.ErrNoMatch) {
				return badRequest("Cannot correlate message '%s': No process definition or execution matches the parameters", body.MessageName)
			}
			return err
		}
		if !body.ResultEnabled {
			return noContent(w)
		}
		out := []map[string]any{}
		for _, id := range ids {
			out = append(out, map[string]any{"resultType": "Execution", "execution": map[string]any{"id": id, "processInstanceId": id}})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("POST /condition", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables           map[string]TypedValue `json:"variables"`
			BusinessKey         string                `json:"businessKey"`
			ProcessDefinitionID string                `json:"processDefinitionId"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		ids, err := h.eng.EvaluateStartConditions(r.Context(), bpmnlite.ConditionEvaluation{Variables: vars,
			BusinessKey: body.BusinessKey, ProcessDefinitionID: body.ProcessDefinitionID})
		if errors.Is(err, bpmnlite.ErrNoConditionalStart) {
			return badRequest("No subscriptions were found during evaluation of the conditional start events.")
		}
		if err != nil {
			return err
		}
		out := []instanceDto{}
		for _, id := range ids {
			in, err := h.instance(r, id)
			if err != nil {
				return err
			}
			out = append(out, in)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("POST /signal", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name      string                `json:"name"`
			Variables map[string]TypedValue `json:"variables"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Name == "" {
			return badRequest("No signal name given")
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		if err := h.eng.Signal(r.Context(), body.Name, vars); err != nil {
			return err
		}
		return noContent(w)
	})
}
