package rest

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"

	"github.com/bpmnlite/bpmnlite"
)

// The process instance resource: queries and deletion (its variables:
// variable_resources.go).

// instanceJSON is a running process instance as Camunda's REST API shows
// it; endedInstanceJSON one that has ended, from history.
var (
	instanceJSON = newShape[bpmnlite.ExecutionRow](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended:false suspended() tenantId? links:[]`)
	endedInstanceJSON = newShape[bpmnlite.HistoricProcessInstance](`id definitionId=ProcessDefinitionID businessKey?
	caseInstanceId:null ended:true suspended:false tenantId? links:[]`)
)

// runningInstance is process instance id, if it runs.
func (h *Handler) runningInstance(r *http.Request, id string) (*bpmnlite.ExecutionRow, error) {
	ps, err := h.eng.Instances(r.Context(), bpmnlite.InstanceQuery{IDs: []string{id}})
	return first(ps, err, "Process instance with id "+id+" does not exist")
}

// instancesToSuspend reads PUT /process-instance/suspended: the instances
// of one definition (by id or key), or those listed, or those queries
// select; and whether to suspend them.
func (h *Handler) instancesToSuspend(r *http.Request) ([]string, bool, error) {
	var body struct {
		Suspended                        *bool                      `json:"suspended"`
		ProcessDefinitionID              string                     `json:"processDefinitionId"`
		ProcessDefinitionKey             string                     `json:"processDefinitionKey"`
		ProcessDefinitionTenantID        *string                    `json:"processDefinitionTenantId"`
		ProcessDefinitionWithoutTenantID bool                       `json:"processDefinitionWithoutTenantId"`
		ProcessInstanceIDs               []string                   `json:"processInstanceIds"`
		ProcessInstanceQuery             map[string]json.RawMessage `json:"processInstanceQuery"`
		HistoricProcessInstanceQuery     map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
	}
	if err := readJSON(r, &body); err != nil {
		return nil, false, err
	}
	switch {
	case body.Suspended == nil:
		return nil, false, badRequest("suspended (true or false) is required")
	case body.ProcessDefinitionTenantID != nil || body.ProcessDefinitionWithoutTenantID:
		return nil, false, badRequest("bpmnlite does not support processDefinitionTenantId or processDefinitionWithoutTenantId here")
	case body.ProcessDefinitionID != "" && body.ProcessDefinitionKey != "":
		return nil, false, badRequest("Only one of processDefinitionId or processDefinitionKey should be set to update the suspension state.")
	}
	byDefinition := body.ProcessDefinitionID != "" || body.ProcessDefinitionKey != ""
	byGroup := body.ProcessInstanceIDs != nil || body.ProcessInstanceQuery != nil || body.HistoricProcessInstanceQuery != nil
	if byDefinition == byGroup {
		return nil, false, badRequest("Either processDefinitionId, processDefinitionKey, or processInstanceIds, processInstanceQuery, historicProcessInstanceQuery must be set to update the suspension state.")
	}
	if byDefinition {
		ps, err := h.eng.Instances(r.Context(), bpmnlite.InstanceQuery{ProcessDefinitionID: body.ProcessDefinitionID, ProcessDefinitionKey: body.ProcessDefinitionKey})
		return instanceIDs(ps), *body.Suspended, err
	}
	ids, err := h.selectedInstances(r, body.ProcessInstanceIDs, body.ProcessInstanceQuery, body.HistoricProcessInstanceQuery)
	return ids, *body.Suspended, err
}

// selectedInstances is the running instances a request names: ids, and
// those a runtime query and a historic query (of its unfinished
// instances) select; sorted, each once.
func (h *Handler) selectedInstances(r *http.Request, ids []string, query, historicQuery map[string]json.RawMessage) ([]string, error) {
	ids = slices.Clone(ids)
	if query != nil {
		q := bpmnlite.InstanceQuery{}
		if err := bindJSONQuery(query, &q, "/process-instance"); err != nil {
			return nil, err
		}
		ps, err := h.eng.Instances(r.Context(), q)
		if err != nil {
			return nil, err
		}
		ids = append(ids, instanceIDs(ps)...)
	}
	if historicQuery != nil {
		q := bpmnlite.HistoricProcessInstanceQuery{}
		if err := bindJSONQuery(historicQuery, &q, "/history/process-instance"); err != nil {
			return nil, err
		}
		q.Unfinished = true // only running instances can change
		hs, err := h.eng.HistoricProcessInstances(r.Context(), q)
		if err != nil {
			return nil, err
		}
		for _, p := range hs {
			ids = append(ids, p.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

func instanceIDs(ps []*bpmnlite.ExecutionRow) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
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
	hs, err := h.eng.HistoricProcessInstances(r.Context(), bpmnlite.HistoricProcessInstanceQuery{ID: id})
	if err != nil || len(hs) == 0 {
		return ended, err
	}
	return endedInstanceJSON.of(hs[0]), nil
}

func (h *Handler) instanceRoutes() {
	h.instanceCommentRoutes()
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
		id, q := r.PathValue("id"), r.URL.Query()
		opt := bpmnlite.DeleteOptions{Reason: q.Get("deleteReason")}
		// skipIoMappings: a deletion runs no output mappings either way
		// (the instance's variables go with it), so both values are honoured.
		for name, flag := range map[string]*bool{"skipCustomListeners": &opt.SkipCustomListeners, "skipSubprocesses": &opt.SkipSubprocesses} {
			if err := setParam(q, name, reflect.ValueOf(flag).Elem()); err != nil {
				return err
			}
		}
		failIfMissing := true
		if err := setParam(q, "failIfNotExists", reflect.ValueOf(&failIfMissing).Elem()); err != nil {
			return err
		}
		if err := h.eng.DeleteProcessInstanceWith(r.Context(), id, opt); err != nil {
			if isNotFound(err) && !failIfMissing {
				return noContent(w)
			}
			if isNotFound(err) {
				return &notFound{"Process instance with id " + id + " does not exist"}
			}
			return err
		}
		return noContent(w)
	}, "skipCustomListeners", "skipIoMappings", "skipSubprocesses", "failIfNotExists")
	h.handle("GET /process-instance/{id}/activity-instances", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		tree, err := h.eng.ActivityInstances(r.Context(), id)
		if isNotFound(err) {
			return &notFound{"Process instance with id " + id + " does not exist"}
		}
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, activityInstanceJSON(tree))
		return nil
	})
	h.handle("PUT /process-instance/{id}/suspended", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Suspended *bool `json:"suspended"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Suspended == nil {
			return badRequest("suspended (true or false) is required")
		}
		id := r.PathValue("id")
		if err := h.eng.SetProcessInstancesSuspended(r.Context(), []string{id}, *body.Suspended); err != nil {
			if isNotFound(err) {
				return &notFound{"Process instance with id " + id + " does not exist"}
			}
			return err
		}
		return noContent(w)
	})
	h.handle("PUT /process-instance/suspended", func(w http.ResponseWriter, r *http.Request) error {
		ids, suspended, err := h.instancesToSuspend(r)
		if err != nil {
			return err
		}
		if err := h.eng.SetProcessInstancesSuspended(r.Context(), ids, suspended); err != nil {
			if isNotFound(err) {
				return badRequest("%v", err)
			}
			return err
		}
		return noContent(w)
	})
}

// activityInstanceJSON is an activity instance tree as Camunda's
// ActivityInstanceDto shows it.
func activityInstanceJSON(a *bpmnlite.ActivityInstance) object {
	children := []object{}
	for _, c := range a.Children {
		children = append(children, activityInstanceJSON(c))
	}
	transitions := []object{}
	for _, t := range a.Transitions {
		transitions = append(transitions, object{
			{"id", t.ID}, {"parentActivityInstanceId", t.ParentActivityInstanceID}, {"processInstanceId", t.ProcessInstanceID},
			{"processDefinitionId", t.ProcessDefinitionID}, {"activityId", t.ActivityID}, {"activityName", nullable(t.ActivityName)},
			{"activityType", t.ActivityType}, {"executionId", t.ExecutionID}, {"targetActivityId", t.ActivityID},
			{"incidentIds", nonNil(t.IncidentIDs)}, {"incidents", incidentRefs(t.IncidentIDs, t.ActivityID)},
		})
	}
	var parent any
	if a.ParentActivityInstanceID != "" {
		parent = a.ParentActivityInstanceID
	}
	return object{
		{"id", a.ID}, {"parentActivityInstanceId", parent}, {"activityId", a.ActivityID}, {"activityType", a.ActivityType},
		{"processInstanceId", a.ProcessInstanceID}, {"processDefinitionId", a.ProcessDefinitionID},
		{"childActivityInstances", children}, {"childTransitionInstances", transitions}, {"executionIds", nonNil(a.ExecutionIDs)},
		{"activityName", nullable(a.ActivityName)}, {"incidentIds", nonNil(a.IncidentIDs)}, {"incidents", incidentRefs(a.IncidentIDs, a.ActivityID)},
		{"name", nullable(a.ActivityName)},
	}
}

func incidentRefs(ids []string, activityID string) []object {
	out := []object{}
	for _, id := range ids {
		out = append(out, object{{"id", id}, {"activityId", activityID}})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
