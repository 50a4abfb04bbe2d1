package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The process definition resource: queries, statistics, the deployed
// model and forms, starting instances, suspension, history time to live
// and deletion; each operation on one definition by id, by key (the
// latest version of no tenant) and by key and tenant, as Camunda names
// them.

// definitionMembers are a process definition's members in Camunda's REST
// API.
const definitionMembers = `id key category? description? name?
	version resource=ResourceName deploymentId diagram=DiagramResourceName? suspended() tenantId? versionTag? historyTimeToLive startableInTasklist`

var (
	// definitionJSON is a process definition as Camunda's REST API shows it.
	definitionJSON = newShape[bpmnlite.ProcessDefinition](definitionMembers)
	// calledDefinitionJSON is a definition a call activity calls.
	calledDefinitionJSON = newShape[bpmnlite.CalledProcessDefinition](definitionMembers +
		" calledFromActivityIds=CalledFromActivityIDs callingProcessDefinitionId=CallingProcessDefinitionID")
)

// definitionRef is one way a path names a process definition.
type definitionRef struct {
	prefix string // the path up to the definition
	find   func(h *Handler, r *http.Request) (*bpmnlite.ProcessDefinition, error)
	// all are the definitions a deletion by this path deletes.
	all func(h *Handler, r *http.Request) ([]*bpmnlite.ProcessDefinition, error)
}

var definitionRefs = []definitionRef{
	{"/process-definition/{id}", definitionByID, func(h *Handler, r *http.Request) ([]*bpmnlite.ProcessDefinition, error) {
		id := r.PathValue("id")
		pd, err := h.eng.ProcessDefinition(r.Context(), id)
		if isNotFound(err) {
			return nil, &notFound{"No process definition found with id '" + id + "': processDefinition is null"}
		}
		return []*bpmnlite.ProcessDefinition{pd}, err
	}},
	{"/process-definition/key/{key}", latestByKey, allOfKey},
	{"/process-definition/key/{key}/tenant-id/{tenantId}", latestByKey, allOfKey},
}

func definitionByID(h *Handler, r *http.Request) (*bpmnlite.ProcessDefinition, error) {
	id := r.PathValue("id")
	pd, err := h.eng.ProcessDefinition(r.Context(), id)
	if isNotFound(err) {
		return nil, &notFound{"No matching definition with id " + id}
	}
	return pd, err
}

// keyQuery selects the definitions of the path's key: of its tenant, or
// of no tenant when it names none (as Camunda's paths by key).
func keyQuery(r *http.Request) (q bpmnlite.DefinitionQuery, which string) {
	q.Key = r.PathValue("key")
	if tenant := r.PathValue("tenantId"); tenant != "" {
		q.TenantIDIn = []string{tenant}
		return q, "tenant-id: " + tenant
	}
	q.WithoutTenantID = true
	return q, "no tenant-id"
}

func latestByKey(h *Handler, r *http.Request) (*bpmnlite.ProcessDefinition, error) {
	q, which := keyQuery(r)
	q.LatestOnly = true
	pds, err := h.eng.ProcessDefinitions(r.Context(), q)
	return first(pds, err, fmt.Sprintf("No matching process definition with key: %s and %s", q.Key, which))
}

// allOfKey are the definitions of the path's key: of its tenant, or of
// every tenant when it names none (Camunda's deletion by key).
func allOfKey(h *Handler, r *http.Request) ([]*bpmnlite.ProcessDefinition, error) {
	q, _ := keyQuery(r)
	q.WithoutTenantID = false
	pds, err := h.eng.ProcessDefinitions(r.Context(), q)
	if err == nil && len(pds) == 0 {
		return nil, &notFound{"No process definition found with key '" + q.Key + "': processDefinitions is empty"}
	}
	return pds, err
}

// definitionOp is an operation on one process definition: the path after
// the definition's, its handler and the query parameters it honours.
type definitionOp struct {
	method, suffix string
	fn             func(h *Handler, w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error
	accepts        []string
}

var definitionOps = []definitionOp{
	{"GET", "", func(h *Handler, w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
		writeJSON(w, http.StatusOK, definitionJSON.of(pd))
		return nil
	}, nil},
	{"GET", "/xml", func(h *Handler, w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
		b, err := h.eng.ProcessModel(r.Context(), pd.ID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, object{{"id", pd.ID}, {"bpmn20Xml", string(b)}})
		return nil
	}, nil},
	{"GET", "/diagram", (*Handler).definitionDiagram, nil},
	{"GET", "/statistics", (*Handler).activityStatistics, []string{"failedJobs", "incidents", "incidentsForType"}},
	{"GET", "/startForm", (*Handler).startForm, nil},
	{"GET", "/deployed-start-form", (*Handler).deployedStartForm, nil},
	{"GET", "/form-variables", (*Handler).startFormVariables, []string{"variableNames", "deserializeValues"}},
	{"GET", "/rendered-form", func(h *Handler, w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
		html, err := h.eng.RenderedStartForm(r.Context(), pd.ID)
		if err != nil {
			return err
		}
		return writeRenderedForm(w, html, "No matching rendered start form for process definition with the id "+pd.ID+" found.")
	}, nil},
	{"POST", "/start", (*Handler).start, nil},
	{"POST", "/submit-form", (*Handler).submitForm, nil},
	{"PUT", "/suspended", (*Handler).suspendDefinition, nil},
	{"PUT", "/history-time-to-live", func(h *Handler, w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
		return putHistoryTimeToLive(w, r, func(ctx context.Context, days *int) error { return h.eng.SetHistoryTimeToLive(ctx, pd.ID, days) })
	}, nil},
}

// definitionRoutes: process definitions, and starting instances of them.
func (h *Handler) definitionRoutes() {
	listRoutes(h, "/process-definition", "param", bpmnlite.DefinitionQuery{}, h.eng.ProcessDefinitions, definitionJSON)
	h.handle("GET /process-definition/statistics", h.definitionStatistics, "failedJobs", "incidents", "incidentsForType", "rootIncidents")
	h.handle("PUT /process-definition/suspended", h.suspendDefinitionsByKey)
	// GET /process-definition/key/{key} and GET /process-definition/{id}/xml
	// (and the other GETs below an id) overlap: the mux cannot hold both,
	// so one pattern takes them and dispatches.
	byIDGets := map[string]http.HandlerFunc{}
	var byKeyGet http.HandlerFunc
	for _, ref := range definitionRefs {
		for _, op := range definitionOps {
			pattern := op.method + " " + ref.prefix + op.suffix
			fn := func(w http.ResponseWriter, r *http.Request) error {
				if err := bufferBody(r); err != nil {
					return err // a body too large: refused before anything else
				}
				pd, err := ref.find(h, r)
				if err != nil {
					return err
				}
				return op.fn(h, w, r, pd)
			}
			switch {
			case op.method == "GET" && ref.prefix == "/process-definition/{id}" && op.suffix != "":
				byIDGets[strings.TrimPrefix(op.suffix, "/")] = h.operation(pattern, fn, op.accepts...)
			case op.method == "GET" && ref.prefix == "/process-definition/key/{key}" && op.suffix == "":
				byKeyGet = h.operation(pattern, fn, op.accepts...)
			default:
				h.handle(pattern, fn, op.accepts...)
			}
		}
		h.handle("DELETE "+ref.prefix, func(w http.ResponseWriter, r *http.Request) error {
			return h.deleteDefinitions(w, r, ref)
		}, "cascade", "skipCustomListeners", "skipIoMappings")
	}
	byIDGets["static-called-process-definitions"] = h.operation("GET /process-definition/{id}/static-called-process-definitions", func(w http.ResponseWriter, r *http.Request) error {
		pd, err := definitionByID(h, r)
		if err != nil {
			return err
		}
		called, err := h.eng.StaticCalledProcessDefinitions(r.Context(), pd.ID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, calledDefinitionJSON.list(called))
		return nil
	})
	h.handle("POST /process-definition/{id}/restart", h.restart)
	h.mux.HandleFunc("GET "+h.opt.BasePath+"/process-definition/{id}/{sub}", func(w http.ResponseWriter, r *http.Request) {
		sub := r.PathValue("sub")
		if r.PathValue("id") == "key" {
			r.SetPathValue("key", sub)
			byKeyGet(w, r)
			return
		}
		if get := byIDGets[sub]; get != nil {
			get(w, r)
			return
		}
		h.notServed(w, r)
	})
}

// bufferBody reads r's body (within the handler's bound) before the
// definition is looked up, to answer a body too large as such.
func bufferBody(r *http.Request) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

func (h *Handler) deleteDefinitions(w http.ResponseWriter, r *http.Request, ref definitionRef) error {
	cascade, err := deleteFlags(r)
	if err != nil {
		return err
	}
	pds, err := ref.all(h, r)
	if err != nil {
		return err
	}
	if err := h.eng.DeleteProcessDefinitions(r.Context(), definitionIDs(pds), cascade); err != nil {
		return engineError(err)
	}
	return noContent(w)
}

// statisticsOptions reads Camunda's statistics parameters (rootIncidents
// where allowed), refusing the combinations Camunda refuses.
func statisticsOptions(r *http.Request, allowRoot bool) (bpmnlite.StatisticsOptions, error) {
	var opt bpmnlite.StatisticsOptions
	q := r.URL.Query() // a copy
	if !allowRoot {
		delete(q, "rootIncidents") // not the operation's: ignored, as Camunda
	}
	set := func(name string) bool { _, ok := q[name]; return ok }
	pairs := [][2]string{{"incidents", "incidentsForType"}, {"incidents", "rootIncidents"}, {"rootIncidents", "incidentsForType"}}
	for _, p := range pairs {
		if set(p[0]) && set(p[1]) {
			return opt, badRequest("Only one of the query parameter %s or %s can be set.", p[0], p[1])
		}
	}
	for name, dst := range map[string]*bool{"failedJobs": &opt.FailedJobs, "incidents": &opt.Incidents, "rootIncidents": &opt.RootIncidents} {
		switch v := q.Get(name); v {
		case "", "false":
		case "true":
			*dst = true
		default:
			return opt, badRequest("Cannot set query parameter '%s' to value '%s'", name, v)
		}
	}
	opt.IncidentType = q.Get("incidentsForType")
	return opt, nil
}

// statisticsJSON is one row of statistics as Camunda's StatisticsResultDto
// (class names the subtype, as Jackson writes it).
func statisticsJSON(class string, s *bpmnlite.Statistics) object {
	incidents := make([]object, len(s.Incidents))
	for i, c := range s.Incidents {
		incidents[i] = object{{"incidentType", c.Type}, {"incidentCount", c.Count}}
	}
	return object{{"@class", "org.camunda.bpm.engine.rest.dto.repository." + class}, {"id", s.ID},
		{"instances", s.Instances}, {"failedJobs", s.FailedJobs}, {"incidents", incidents}}
}

func (h *Handler) definitionStatistics(w http.ResponseWriter, r *http.Request) error {
	opt, err := statisticsOptions(r, true)
	if err != nil {
		return err
	}
	stats, err := h.eng.ProcessDefinitionStatistics(r.Context(), opt)
	if err != nil {
		return err
	}
	out := make([]object, len(stats))
	for i, s := range stats {
		out[i] = append(statisticsJSON("ProcessDefinitionStatisticsResultDto", &s.Statistics), member[any]{"definition", definitionJSON.of(s.Definition)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) activityStatistics(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	opt, err := statisticsOptions(r, false)
	if err != nil {
		return err
	}
	stats, err := h.eng.ActivityStatistics(r.Context(), pd.ID, opt)
	if err != nil {
		return err
	}
	out := make([]object, len(stats))
	for i, s := range stats {
		out[i] = statisticsJSON("ActivityStatisticsResultDto", s)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// definitionDiagram answers with the diagram image deployed with the
// definition's model, or 204 when there is none, as Camunda.
func (h *Handler) definitionDiagram(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	return h.diagram(w, r, pd.DeploymentID, pd.DiagramResourceName)
}

// diagramMediaType is Camunda's content type of a diagram file.
func diagramMediaType(name string) string {
	switch strings.ToLower(name[strings.LastIndex(name, ".")+1:]) {
	case "png":
		return "image/png"
	case "svg":
		return "image/svg+xml"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "gif":
		return "image/gif"
	}
	return "application/octet-stream"
}

// startForm answers Camunda's FormDto of the definition's start event.
func (h *Handler) startForm(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	f, err := h.eng.StartForm(r.Context(), pd.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, formJSON(f, "process-definition/"+pd.ID))
	return nil
}

// deployedStartForm answers with the deployed form the start event's
// camunda:formKey names ("embedded:deployment:x.html",
// "camunda-forms:deployment:x.form", "deployment:x") or its
// camunda:formRef resolves to, as Camunda.
func (h *Handler) deployedStartForm(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	name, content, err := h.eng.StartDeployedForm(r.Context(), pd.ID)
	switch {
	case isNotFound(err):
		return &notFound{err.Error()}
	case errors.Is(err, bpmnlite.ErrNotValid):
		return badRequest("%v", err)
	case err != nil:
		return err
	}
	return writeForm(w, name, content)
}

// startFormVariables answers the start form's fields (camunda:formData)
// with their default values, typed as the form shows them, as Camunda's
// start form variables (variableNames: only these).
func (h *Handler) startFormVariables(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	deserialize, err := boolParam(r, "deserializeValues")
	if err != nil {
		return err
	}
	vars, err := h.eng.StartFormVariables(r.Context(), pd.ID, variableNamesParam(r))
	if errors.As(err, new(*bpmnlite.FormFieldError)) {
		return badRequest("%v", err)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, encodeInstances(vars, deserialize))
	return nil
}

// startBody is Camunda's StartProcessInstanceDto.
type startBody struct {
	Variables             map[string]TypedValue `json:"variables"`
	BusinessKey           string                `json:"businessKey"`
	CaseInstanceID        string                `json:"caseInstanceId"`
	StartInstructions     []startInstruction    `json:"startInstructions"`
	SkipCustomListeners   bool                  `json:"skipCustomListeners"`
	SkipIoMappings        bool                  `json:"skipIoMappings"`
	WithVariablesInReturn bool                  `json:"withVariablesInReturn"`
}

// startInstruction is one of Camunda's start instructions: bpmnlite
// starts before activities.
type startInstruction struct {
	Type       string                     `json:"type"`
	ActivityID string                     `json:"activityId"`
	Variables  map[string]triggerVariable `json:"variables"`
	// members of other instruction types, refused when set
	TransitionID               string `json:"transitionId"`
	AncestorActivityInstanceID string `json:"ancestorActivityInstanceId"`
}

// triggerVariable is a variable of a start instruction: local to the
// execution entering the activity, or the instance's.
type triggerVariable struct {
	TypedValue
	Local bool `json:"local"`
}

func (h *Handler) start(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	var body startBody
	if err := readJSON(r, &body); err != nil {
		return err
	}
	switch {
	case body.CaseInstanceID != "":
		return badRequest("bpmnlite has no CMMN case instances: caseInstanceId is not supported")
	case body.SkipCustomListeners:
		return badRequest("bpmnlite does not support skipCustomListeners=true: the listeners of the started instance run")
	case body.SkipIoMappings:
		return badRequest("bpmnlite does not support skipIoMappings=true: the mappings of the started instance run")
	}
	req := bpmnlite.StartRequest{DefinitionID: pd.ID, BusinessKey: body.BusinessKey}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	instructions, instanceVars, err := decodeInstructions("startInstructions", body.StartInstructions)
	if err != nil {
		return err
	}
	req.Variables, req.Instructions = vars, instructions
	if len(instanceVars) > 0 {
		if req.Variables == nil {
			req.Variables = map[string]any{}
		}
		maps.Copy(req.Variables, instanceVars)
	}
	return h.startInstance(w, r, req, body.WithVariablesInReturn)
}

// decodeInstructions reads Camunda's instructions (member name) as start
// instructions: their local variables the instructions', the others the
// instance's (instanceVars).
func decodeInstructions(name string, ins []startInstruction) (out []bpmnlite.StartInstruction, instanceVars map[string]any, err error) {
	global := map[string]TypedValue{}
	for i, in := range ins {
		switch {
		case in.Type != "startBeforeActivity":
			return nil, nil, badRequest("%s[%d]: bpmnlite supports the type startBeforeActivity only, not %q", name, i, in.Type)
		case in.ActivityID == "":
			return nil, nil, badRequest("%s[%d]: 'activityId' must be set", name, i)
		case in.TransitionID != "" || in.AncestorActivityInstanceID != "":
			return nil, nil, badRequest("%s[%d]: transitionId and ancestorActivityInstanceId do not apply to startBeforeActivity", name, i)
		}
		local := map[string]TypedValue{}
		splitVariables(in.Variables, global, local)
		lv, err := DecodeVariables(local)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, bpmnlite.StartInstruction{ActivityID: in.ActivityID, Variables: lv})
	}
	instanceVars, err = DecodeVariables(global)
	return out, instanceVars, err
}

// restart restarts ended instances of the definition, as Camunda's
// POST /process-definition/{id}/restart.
func (h *Handler) restart(w http.ResponseWriter, r *http.Request) error {
	def, req, err := h.readRestart(r)
	if err != nil {
		return err
	}
	_, err = h.eng.RestartProcessInstances(r.Context(), def, req)
	switch {
	case isNotFound(err):
		return badRequest("Historic process instance cannot be found: historicProcessInstanceId is null")
	case errors.Is(err, bpmnlite.ErrCannotRestart):
		return &conflict{"ProcessEngineException", strings.TrimPrefix(err.Error(), bpmnlite.ErrCannotRestart.Error()+": ")}
	}
	return modified(w, "", err)
}

// readRestart reads a RestartProcessInstanceDto: the definition's id (of
// the path) and the request.
func (h *Handler) readRestart(r *http.Request) (string, bpmnlite.RestartRequest, error) {
	var body struct {
		ProcessInstanceIDs           []string                   `json:"processInstanceIds"`
		HistoricProcessInstanceQuery map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
		Instructions                 []modificationInstruction  `json:"instructions"`
		InitialVariables             bool                       `json:"initialVariables"`
		SkipCustomListeners          bool                       `json:"skipCustomListeners"`
		SkipIoMappings               bool                       `json:"skipIoMappings"`
		WithoutBusinessKey           bool                       `json:"withoutBusinessKey"`
	}
	var req bpmnlite.RestartRequest
	if err := readJSON(r, &body); err != nil {
		return "", req, err
	}
	switch {
	case len(body.Instructions) == 0:
		return "", req, badRequest("Restart instructions cannot be empty: instructions is empty")
	case len(body.ProcessInstanceIDs) == 0 && body.HistoricProcessInstanceQuery == nil:
		return "", req, badRequest("Process instance ids cannot be empty: Process instance ids is empty")
	}
	pd, err := definitionByID(h, r)
	if err != nil {
		return "", req, err
	}
	req = bpmnlite.RestartRequest{ProcessInstanceIDs: body.ProcessInstanceIDs, InitialVariables: body.InitialVariables,
		SkipCustomListeners: body.SkipCustomListeners, SkipIoMappings: body.SkipIoMappings, WithoutBusinessKey: body.WithoutBusinessKey}
	for i, in := range body.Instructions {
		ins, err := in.decode(i, false)
		if err != nil {
			return "", req, err
		}
		req.Instructions = append(req.Instructions, ins)
	}
	if body.HistoricProcessInstanceQuery != nil {
		req.HistoricProcessInstanceQuery = &bpmnlite.HistoricProcessInstanceQuery{}
		if err := bindJSONQuery(body.HistoricProcessInstanceQuery, req.HistoricProcessInstanceQuery, "/history/process-instance"); err != nil {
			return "", req, err
		}
	}
	return pd.ID, req, nil
}

// submitForm starts an instance with the form's variables and business
// key, as Camunda's start form submission: the form fields' constraints
// are checked and their values converted to their types.
func (h *Handler) submitForm(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	var body struct {
		Variables   map[string]TypedValue `json:"variables"`
		BusinessKey string                `json:"businessKey"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	req := bpmnlite.StartRequest{DefinitionID: pd.ID, BusinessKey: body.BusinessKey}
	id, err := h.eng.SubmitStartForm(r.Context(), pd.ID, body.BusinessKey, vars)
	if errors.As(err, new(*bpmnlite.FormFieldError)) {
		return &requestError{msg: "Cannot instantiate process definition " + pd.ID + ": " + err.Error(), typ: "RestException"}
	}
	return h.answerStart(w, r, req, id, err, false)
}

func (h *Handler) startInstance(w http.ResponseWriter, r *http.Request, req bpmnlite.StartRequest, withVariables bool) error {
	id, err := h.eng.Start(r.Context(), req)
	return h.answerStart(w, r, req, id, err, withVariables)
}

// answerStart answers the start of instance id (err: its failure) that
// req asked for, as Camunda's ProcessInstanceWithVariablesDto.
func (h *Handler) answerStart(w http.ResponseWriter, r *http.Request, req bpmnlite.StartRequest, id string, err error, withVariables bool) error {
	switch {
	case isNotFound(err):
		return &notFound{"Cannot instantiate process definition " + req.DefinitionID + ": " + err.Error()}
	case err != nil && !isRequestVariable(err):
		// the engine's refusal (a suspended definition) or failure, as
		// Camunda reports a ProcessEngineException of a start
		return &serverError{"RestException", "Cannot instantiate process definition " + req.DefinitionID + ": " + err.Error()}
	case err != nil:
		return err
	}
	// The definition is resolved before the start: req.DefinitionID is set.
	out, err := h.instanceView(r, id, endedInstance(id, req.DefinitionID, req.BusinessKey))
	if err != nil {
		return err
	}
	if withVariables {
		vars, err := h.typedVariables(r.Context(), id)
		if err != nil {
			return err
		}
		out = append(out, member[any]{"variables", vars})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// suspensionBody is Camunda's ProcessDefinitionSuspensionStateDto.
type suspensionBody struct {
	Suspended                        bool    `json:"suspended"`
	IncludeProcessInstances          bool    `json:"includeProcessInstances"`
	ExecutionDate                    *string `json:"executionDate"`
	ProcessDefinitionID              string  `json:"processDefinitionId"`
	ProcessDefinitionKey             string  `json:"processDefinitionKey"`
	ProcessDefinitionTenantID        string  `json:"processDefinitionTenantId"`
	ProcessDefinitionWithoutTenantID bool    `json:"processDefinitionWithoutTenantId"`
}

func readSuspension(r *http.Request) (suspensionBody, error) {
	var body suspensionBody
	if err := readJSON(r, &body); err != nil {
		return body, err
	}
	if body.ExecutionDate != nil {
		return body, badRequest("bpmnlite does not support executionDate: it suspends and activates at once")
	}
	return body, nil
}

func (h *Handler) suspendDefinition(w http.ResponseWriter, r *http.Request, pd *bpmnlite.ProcessDefinition) error {
	body, err := readSuspension(r)
	if err != nil {
		return err
	}
	if err := h.setSuspended(r, []*bpmnlite.ProcessDefinition{pd}, body); err != nil {
		return err
	}
	return noContent(w)
}

// suspendDefinitionsByKey suspends or activates every version of a key
// (of a tenant, of none, or of all when neither is given), as Camunda's
// PUT /process-definition/suspended.
func (h *Handler) suspendDefinitionsByKey(w http.ResponseWriter, r *http.Request) error {
	body, err := readSuspension(r)
	switch {
	case err != nil:
		return err
	case body.ProcessDefinitionID != "":
		return badRequest("Only processDefinitionKey can be set to update the suspension state.")
	case body.ProcessDefinitionKey == "":
		return badRequest("Could not update the suspension state of Process Definitions due to: Either processDefinitionId or processDefinitionKey can be set to update the suspension state.")
	}
	q := bpmnlite.DefinitionQuery{Key: body.ProcessDefinitionKey}
	if body.ProcessDefinitionTenantID != "" {
		q.TenantIDIn = []string{body.ProcessDefinitionTenantID}
	}
	q.WithoutTenantID = body.ProcessDefinitionWithoutTenantID
	pds, err := h.eng.ProcessDefinitions(r.Context(), q)
	if err != nil {
		return err
	}
	// none of the key: nothing changes, as Camunda's update by key
	if err := h.setSuspended(r, pds, body); err != nil {
		return err
	}
	return noContent(w)
}

func (h *Handler) setSuspended(r *http.Request, pds []*bpmnlite.ProcessDefinition, body suspensionBody) error {
	return h.eng.SuspendProcessDefinitions(r.Context(), definitionIDs(pds), body.Suspended, body.IncludeProcessInstances)
}

func definitionIDs(pds []*bpmnlite.ProcessDefinition) []string {
	ids := make([]string, len(pds))
	for i, pd := range pds {
		ids[i] = pd.ID
	}
	return ids
}
