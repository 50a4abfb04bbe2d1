package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The variable instance resources: stored variables (/variable-instance)
// and their history (/history/variable-instance).

// variableRow is a variable instance with its value as the request asks
// for it (deserializeValues).
type variableRow struct {
	*bpmnlite.VariableInstance
	ValueType string
	JSONValue json.RawMessage
	JSONInfo  map[string]any
	// ActivityInstanceID: the process instance's, for its own variables.
	ActivityInstanceID string
}

func newVariableRow(v *bpmnlite.VariableInstance, deserialize bool) *variableRow {
	tv := encodeInstance(v, deserialize)
	row := &variableRow{VariableInstance: v, ValueType: tv.Type, JSONValue: tv.Value, JSONInfo: tv.ValueInfo}
	if v.ExecutionID == v.ProcessInstanceID && v.TaskID == "" {
		row.ActivityInstanceID = v.ProcessInstanceID
	}
	return row
}

var variableInstanceJSON = newShape[variableRow](`id name type=ValueType value=JSONValue valueInfo=JSONInfo
	processDefinitionId? processInstanceId? executionId? caseInstanceId:null caseExecutionId:null taskId? batchId:null
	activityInstanceId? errorMessage:null tenantId:null`)

var historicVariableInstanceJSON = newShape[variableRow](`id name type=ValueType value=JSONValue valueInfo=JSONInfo
	processDefinitionKey? processDefinitionId? rootProcessInstanceId:null processInstanceId? executionId?
	activityInstanceId? caseDefinitionKey:null caseDefinitionId:null caseInstanceId:null caseExecutionId:null
	taskId? errorMessage:null tenantId:null state createTime removalTime:null`)

// The list queries with Camunda's deserializeValues, true unless asked.
type (
	variableInstanceQuery struct {
		bpmnlite.VariableInstanceQuery
		DeserializeValues bool `param:"deserializeValues"`
	}
	historicVariableInstanceQuery struct {
		bpmnlite.HistoricVariableInstanceQuery
		DeserializeValues bool `param:"deserializeValues"`
	}
)

// variableRows are vs as rows, values shown deserialized or not.
func variableRows(vs []*bpmnlite.VariableInstance, err error, deserialize bool) ([]*variableRow, error) {
	rows := make([]*variableRow, len(vs))
	for i, v := range vs {
		rows[i] = newVariableRow(v, deserialize)
	}
	return rows, err
}

func (h *Handler) variableInstanceRoutes() {
	listRoutes(h, "/variable-instance", "param", variableInstanceQuery{DeserializeValues: true},
		func(ctx context.Context, q variableInstanceQuery) ([]*variableRow, error) {
			vs, err := h.eng.VariableInstances(ctx, q.VariableInstanceQuery)
			return variableRows(vs, err, q.DeserializeValues)
		}, variableInstanceJSON)
	h.variableInstanceByID("/variable-instance", "Variable instance", variableInstanceJSON, func(ctx context.Context, id string) ([]*bpmnlite.VariableInstance, error) {
		return h.eng.VariableInstances(ctx, bpmnlite.VariableInstanceQuery{ID: id})
	})
	listRoutes(h, "/history/variable-instance", "param", historicVariableInstanceQuery{DeserializeValues: true},
		func(ctx context.Context, q historicVariableInstanceQuery) ([]*variableRow, error) {
			vs, err := h.eng.HistoricVariableInstances(ctx, q.HistoricVariableInstanceQuery)
			return variableRows(vs, err, q.DeserializeValues)
		}, historicVariableInstanceJSON)
	h.variableInstanceByID("/history/variable-instance", "Historic variable instance", historicVariableInstanceJSON, func(ctx context.Context, id string) ([]*bpmnlite.VariableInstance, error) {
		return h.eng.HistoricVariableInstances(ctx, bpmnlite.HistoricVariableInstanceQuery{ID: id})
	})
	h.handle("DELETE /history/variable-instance/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := h.eng.DeleteHistoricVariableInstance(r.Context(), id); err != nil {
			if isNotFound(err) {
				return &notFound{"No historic variable instance found with id: " + id}
			}
			return err
		}
		return noContent(w)
	})
}

// variableInstanceByID registers GET path/{id} and path/{id}/data.
func (h *Handler) variableInstanceByID(path, what string, s shape[variableRow], find func(context.Context, string) ([]*bpmnlite.VariableInstance, error)) {
	get := func(r *http.Request) (*bpmnlite.VariableInstance, error) {
		id := r.PathValue("id")
		vs, err := find(r.Context(), id)
		return first(vs, err, what+" with Id '"+id+"' does not exist.")
	}
	h.handle("GET "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		deserialize, err := boolParam(r, "deserializeValue")
		if err != nil {
			return err
		}
		v, err := get(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, s.of(newVariableRow(v, deserialize)))
		return nil
	}, "deserializeValue")
	h.handle("GET "+path+"/{id}/data", func(w http.ResponseWriter, r *http.Request) error {
		v, err := get(r)
		if err != nil {
			return err
		}
		return writeBinary(w, v, v.ID)
	})
}
