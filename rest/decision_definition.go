package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The decision resources: decision definitions (queries, the model,
// evaluation, history time to live), decision requirements definitions,
// and the history of evaluations (/history/decision-instance).

var (
	decisionDefinitionJSON = newShape[bpmnlite.DecisionDefinition](`id key category? name? version resource=ResourceName deploymentId
		decisionRequirementsDefinitionId? decisionRequirementsDefinitionKey? tenantId? versionTag? historyTimeToLive`)
	decisionRequirementsJSON = newShape[bpmnlite.DecisionRequirementsDefinition](`id key name? category? version resource=ResourceName deploymentId tenantId?`)
)

var cleanableDecisionReportJSON = newShape[bpmnlite.CleanableDecisionReportRow](`decisionDefinitionId decisionDefinitionKey
	decisionDefinitionName? decisionDefinitionVersion historyTimeToLive finishedDecisionInstanceCount=Finished
	cleanableDecisionInstanceCount=Cleanable tenantId?`)

// refOp is an operation on one definition a path names (by id, by key, by
// key and tenant): the path after the definition's, its handler and the
// query parameters it honours.
type refOp[T any] struct {
	method, suffix string
	fn             func(h *Handler, w http.ResponseWriter, r *http.Request, x *T) error
	accepts        []string
}

// refRoutes registers ops below base/{id}, base/key/{key} and
// base/key/{key}/tenant-id/{tenantId}; find reads the definition a
// request's path names. GET base/key/{key} and the GETs below base/{id}
// overlap, which the mux cannot hold side by side: one pattern takes them
// and dispatches.
func refRoutes[T any](h *Handler, base string, find func(h *Handler, r *http.Request) (*T, error), ops []refOp[T]) {
	byIDGets := map[string]http.HandlerFunc{}
	var byKeyGet http.HandlerFunc
	for _, prefix := range []string{base + "/{id}", base + "/key/{key}", base + "/key/{key}/tenant-id/{tenantId}"} {
		for _, op := range ops {
			pattern := op.method + " " + prefix + op.suffix
			fn := func(w http.ResponseWriter, r *http.Request) error {
				x, err := find(h, r)
				if err != nil {
					return err
				}
				return op.fn(h, w, r, x)
			}
			switch {
			case op.method == "GET" && prefix == base+"/{id}" && op.suffix != "":
				byIDGets[strings.TrimPrefix(op.suffix, "/")] = h.operation(pattern, fn, op.accepts...)
			case op.method == "GET" && prefix == base+"/key/{key}" && op.suffix == "":
				byKeyGet = h.operation(pattern, fn, op.accepts...)
			default:
				h.handle(pattern, fn, op.accepts...)
			}
		}
	}
	h.mux.HandleFunc("GET "+h.opt.BasePath+base+"/{id}/{sub}", func(w http.ResponseWriter, r *http.Request) {
		sub := r.PathValue("sub")
		if r.PathValue("id") == "key" {
			r.SetPathValue("key", sub)
			r.SetPathValue("id", "")
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

// pathDefinition finds the definition a path names: by id, or the latest
// of its key of its tenant (of no tenant when it names none); list lists
// the definitions of a query, what names the kind in messages.
func pathDefinition[T any](r *http.Request, what string, byID func(ctx context.Context, id string) (*T, error),
	list func(ctx context.Context, key, tenant string) ([]*T, error)) (*T, error) {
	if id := r.PathValue("id"); id != "" {
		x, err := byID(r.Context(), id)
		if isNotFound(err) {
			return nil, &notFound{fmt.Sprintf("No matching %s with id %s", what, id)}
		}
		return x, err
	}
	key, tenant := r.PathValue("key"), r.PathValue("tenantId")
	which := "no tenant-id"
	if tenant != "" {
		which = "tenant-id: " + tenant
	}
	rows, err := list(r.Context(), key, tenant)
	return first(rows, err, fmt.Sprintf("No matching %s with key: %s and %s", what, key, which))
}

func decisionByPath(h *Handler, r *http.Request) (*bpmnlite.DecisionDefinition, error) {
	return pathDefinition(r, "decision definition", h.eng.DecisionDefinition,
		func(ctx context.Context, key, tenant string) ([]*bpmnlite.DecisionDefinition, error) {
			q := bpmnlite.DecisionDefinitionQuery{Key: key, LatestOnly: true}
			if tenant != "" {
				q.TenantIDIn = []string{tenant}
			} else {
				q.WithoutTenantID = true
			}
			return h.eng.DecisionDefinitions(ctx, q)
		})
}

func requirementsByPath(h *Handler, r *http.Request) (*bpmnlite.DecisionRequirementsDefinition, error) {
	return pathDefinition(r, "decision requirements definition", h.eng.DecisionRequirementsDefinition,
		func(ctx context.Context, key, tenant string) ([]*bpmnlite.DecisionRequirementsDefinition, error) {
			q := bpmnlite.DecisionRequirementsDefinitionQuery{Key: key, LatestOnly: true}
			if tenant != "" {
				q.TenantIDIn = []string{tenant}
			} else {
				q.WithoutTenantID = true
			}
			return h.eng.DecisionRequirementsDefinitions(ctx, q)
		})
}

// dmnXML answers a definition's DMN file, as Camunda's {"id", "dmnXml"}.
func (h *Handler) dmnXML(w http.ResponseWriter, r *http.Request, id, deploymentID, resource string) error {
	b, err := h.eng.DecisionModel(r.Context(), deploymentID, resource)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, object{{"id", id}, {"dmnXml", string(b)}})
	return nil
}

// diagram answers the image deployed beside a definition's model, or 204
// when there is none.
func (h *Handler) diagram(w http.ResponseWriter, r *http.Request, deploymentID, name string) error {
	if name == "" {
		return noContent(w)
	}
	rs, err := h.eng.DeploymentResources(r.Context(), deploymentID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(rs, func(res *bpmnlite.DeploymentResource) bool { return res.Name == name })
	if i < 0 {
		return noContent(w)
	}
	writeFile(w, name, diagramMediaType(name), rs[i].Bytes)
	return nil
}

var decisionOps = []refOp[bpmnlite.DecisionDefinition]{
	{"GET", "", func(h *Handler, w http.ResponseWriter, r *http.Request, dd *bpmnlite.DecisionDefinition) error {
		writeJSON(w, http.StatusOK, decisionDefinitionJSON.of(dd))
		return nil
	}, nil},
	{"GET", "/xml", func(h *Handler, w http.ResponseWriter, r *http.Request, dd *bpmnlite.DecisionDefinition) error {
		return h.dmnXML(w, r, dd.ID, dd.DeploymentID, dd.ResourceName)
	}, nil},
	{"GET", "/diagram", func(h *Handler, w http.ResponseWriter, r *http.Request, dd *bpmnlite.DecisionDefinition) error {
		return h.diagram(w, r, dd.DeploymentID, dd.DiagramResourceName)
	}, nil},
	{"POST", "/evaluate", (*Handler).evaluateDecision, nil},
	{"PUT", "/history-time-to-live", func(h *Handler, w http.ResponseWriter, r *http.Request, dd *bpmnlite.DecisionDefinition) error {
		return putHistoryTimeToLive(w, r, func(ctx context.Context, days *int) error {
			return h.eng.SetDecisionHistoryTimeToLive(ctx, dd.ID, days)
		})
	}, nil},
}

// putHistoryTimeToLive sets a definition's history time to live from a
// {"historyTimeToLive": days} body (null: the engine's default) with set;
// a negative number of days is a 400.
func putHistoryTimeToLive(w http.ResponseWriter, r *http.Request, set func(ctx context.Context, days *int) error) error {
	var body struct {
		HistoryTimeToLive *int `json:"historyTimeToLive"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.HistoryTimeToLive != nil && *body.HistoryTimeToLive < 0 {
		return badRequest("historyTimeToLive must not be negative: %d", *body.HistoryTimeToLive)
	}
	if err := set(r.Context(), body.HistoryTimeToLive); err != nil {
		return err
	}
	return noContent(w)
}

// evaluateDecision evaluates a decision with the body's variables and
// answers its result list, each result's entries as typed values.
func (h *Handler) evaluateDecision(w http.ResponseWriter, r *http.Request, dd *bpmnlite.DecisionDefinition) error {
	var body struct {
		Variables map[string]TypedValue `json:"variables"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	res, _, err := h.eng.EvaluateDecision(r.Context(), bpmnlite.DecisionSelector{ID: dd.ID}, vars)
	if err != nil {
		if isNotFound(err) {
			return err
		}
		return &serverError{"RestException", "Cannot evaluate decision " + dd.ID + ": " + err.Error()}
	}
	out := make([]map[string]TypedValue, len(res))
	for i, entries := range res {
		out[i] = EncodeVariables(entries.Map())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

var requirementsOps = []refOp[bpmnlite.DecisionRequirementsDefinition]{
	{"GET", "", func(h *Handler, w http.ResponseWriter, r *http.Request, d *bpmnlite.DecisionRequirementsDefinition) error {
		writeJSON(w, http.StatusOK, decisionRequirementsJSON.of(d))
		return nil
	}, nil},
	{"GET", "/xml", func(h *Handler, w http.ResponseWriter, r *http.Request, d *bpmnlite.DecisionRequirementsDefinition) error {
		return h.dmnXML(w, r, d.ID, d.DeploymentID, d.ResourceName)
	}, nil},
	{"GET", "/diagram", func(h *Handler, w http.ResponseWriter, r *http.Request, d *bpmnlite.DecisionRequirementsDefinition) error {
		return h.diagram(w, r, d.DeploymentID, d.DiagramResourceName)
	}, nil},
}

// historicDecisionQuery is the history query with Camunda's switches for
// the inputs and outputs.
type historicDecisionQuery struct {
	bpmnlite.HistoricDecisionInstanceQuery
	IncludeInputs                      bool `param:"includeInputs"`
	IncludeOutputs                     bool `param:"includeOutputs"`
	DisableBinaryFetching              bool `param:"disableBinaryFetching"`
	DisableCustomObjectDeserialization bool `param:"disableCustomObjectDeserialization"`
}

// decisionInstanceRow is an evaluation with its inputs and outputs when
// asked for (nil: left out of the JSON).
type decisionInstanceRow struct {
	*bpmnlite.HistoricDecisionInstance
	Inputs, Outputs *[]object
	Collect         *float64
}

var (
	decisionInstanceJSON = newShape[decisionInstanceRow](`id decisionDefinitionId decisionDefinitionKey decisionDefinitionName?
		evaluationTime removalTime processDefinitionId? processDefinitionKey? processInstanceId? rootProcessInstanceId?
		caseDefinitionId:null caseDefinitionKey:null caseInstanceId:null activityId? activityInstanceId? userId:null
		inputs=Inputs! outputs=Outputs! collectResultValue=Collect rootDecisionInstanceId? decisionRequirementsDefinitionId?
		decisionRequirementsDefinitionKey? tenantId?`)
	decisionValueJSON = newShape[decisionValueRow](`id decisionInstanceId clauseId? clauseName? errorMessage:null type=ValueType
		value=JSONValue valueInfo=JSONInfo createTime removalTime rootProcessInstanceId?`)
	decisionOutputJSON = newShape[decisionValueRow](`id decisionInstanceId clauseId? clauseName? ruleId? ruleOrder=Order variableName?
		errorMessage:null type=ValueType value=JSONValue valueInfo=JSONInfo createTime removalTime rootProcessInstanceId?`)
)

// decisionValueRow is an input or output with its value as JSON.
type decisionValueRow struct {
	*bpmnlite.HistoricDecisionValue
	ValueType string
	JSONValue json.RawMessage
	JSONInfo  map[string]any
	Order     *int
	// RemovalTime and RootProcessInstanceID: the evaluation's.
	RemovalTime           *time.Time
	RootProcessInstanceID string
}

func (h *Handler) decisionInstances(ctx context.Context, q historicDecisionQuery) ([]*decisionInstanceRow, error) {
	his, err := h.eng.HistoricDecisionInstances(ctx, q.HistoricDecisionInstanceQuery)
	if err != nil {
		return nil, err
	}
	rows := make([]*decisionInstanceRow, len(his))
	ids := make([]string, len(his))
	byID := map[string]*decisionInstanceRow{}
	for i, hi := range his {
		rows[i] = &decisionInstanceRow{HistoricDecisionInstance: hi}
		if hi.HasCollectResult {
			v := hi.CollectResultValue
			rows[i].Collect = &v
		}
		ids[i] = hi.ID
		byID[hi.ID] = rows[i]
	}
	attach := func(values []*bpmnlite.HistoricDecisionValue, s shape[decisionValueRow], field func(*decisionInstanceRow) **[]object, output bool) {
		for _, row := range rows {
			*field(row) = &[]object{}
		}
		for _, v := range values {
			tv := encodeInstance(v.Value, !q.DisableCustomObjectDeserialization)
			if q.DisableBinaryFetching && (tv.Type == "Bytes" || tv.Type == "File") {
				tv.Value = json.RawMessage("null")
			}
			in := byID[v.DecisionInstanceID]
			vr := &decisionValueRow{HistoricDecisionValue: v, ValueType: tv.Type, JSONValue: tv.Value, JSONInfo: tv.ValueInfo,
				RemovalTime: in.RemovalTime, RootProcessInstanceID: in.RootProcessInstanceID}
			if output {
				order := v.RuleOrder
				vr.Order = &order
			}
			list := *field(in)
			*list = append(*list, s.of(vr))
		}
	}
	if q.IncludeInputs {
		ins, err := h.eng.HistoricDecisionInputs(ctx, ids)
		if err != nil {
			return nil, err
		}
		attach(ins, decisionValueJSON, func(r *decisionInstanceRow) **[]object { return &r.Inputs }, false)
	}
	if q.IncludeOutputs {
		outs, err := h.eng.HistoricDecisionOutputs(ctx, ids)
		if err != nil {
			return nil, err
		}
		attach(outs, decisionOutputJSON, func(r *decisionInstanceRow) **[]object { return &r.Outputs }, true)
	}
	return rows, nil
}

// decisionRoutes: decision definitions, decision requirements definitions
// and the history of evaluations.
func (h *Handler) decisionRoutes() {
	listRoutes(h, "/decision-definition", "param", bpmnlite.DecisionDefinitionQuery{}, h.eng.DecisionDefinitions, decisionDefinitionJSON)
	refRoutes(h, "/decision-definition", decisionByPath, decisionOps)
	listRoutes(h, "/decision-requirements-definition", "param", bpmnlite.DecisionRequirementsDefinitionQuery{}, h.eng.DecisionRequirementsDefinitions, decisionRequirementsJSON)
	refRoutes(h, "/decision-requirements-definition", requirementsByPath, requirementsOps)
	listRoutes(h, "/history/decision-instance", "param", historicDecisionQuery{}, h.decisionInstances, decisionInstanceJSON)
	h.handle("GET /history/decision-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		q := historicDecisionQuery{}
		if err := bindQuery(r.URL.Query(), &q, "param", nil); err != nil {
			return err
		}
		id := r.PathValue("id")
		q.HistoricDecisionInstanceQuery = bpmnlite.HistoricDecisionInstanceQuery{ID: id}
		rows, err := h.decisionInstances(r.Context(), q)
		row, err := first(rows, err, "Historic decision instance with id '"+id+"' does not exist")
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, decisionInstanceJSON.of(row))
		return nil
	}, "includeInputs", "includeOutputs", "disableBinaryFetching", "disableCustomObjectDeserialization")
	listRoutes(h, "/history/decision-definition/cleanable-decision-instance-report", "param", bpmnlite.CleanableDecisionReportQuery{},
		h.eng.CleanableDecisionInstanceReport, cleanableDecisionReportJSON)
	h.handle("GET /history/decision-requirements-definition/{id}/statistics", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		stats, err := h.eng.DecisionStatistics(r.Context(), id, r.URL.Query().Get("decisionInstanceId"))
		if isNotFound(err) {
			return &notFound{"No matching decision requirements definition with id " + id}
		}
		if err != nil {
			return err
		}
		out := []object{}
		for _, s := range stats {
			out = append(out, object{{"decisionDefinitionKey", s.DecisionDefinitionKey}, {"evaluations", s.Evaluations}})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}, "decisionInstanceId")
}
