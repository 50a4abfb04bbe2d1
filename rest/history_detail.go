package rest

import (
	"context"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// historicDetailJSON is a historic detail as Camunda's REST API shows a
// variable update; variableType, value and valueInfo are set from its
// value (detailJSON).
var historicDetailJSON = newShape[bpmnlite.HistoricDetail](`id type:"variableUpdate" processDefinitionKey processDefinitionId
	processInstanceId activityInstanceId? executionId? caseDefinitionKey:null caseDefinitionId:null caseInstanceId:null
	caseExecutionId:null taskId? tenantId:null userOperationId:null time removalTime:null rootProcessInstanceId:null
	variableName=Name variableInstanceId variableType:null value:null valueInfo:{} initial revision errorMessage:null`)

// historicFormFieldJSON is a value submitted with a form, as Camunda's
// REST API shows a historic form field.
var historicFormFieldJSON = newShape[bpmnlite.HistoricDetail](`id type:"formField" processDefinitionKey processDefinitionId
	processInstanceId activityInstanceId? executionId? caseDefinitionKey:null caseDefinitionId:null caseInstanceId:null
	caseExecutionId:null taskId? tenantId:null userOperationId:null time removalTime:null rootProcessInstanceId:null
	fieldId=Name fieldValue=Text`)

// detailJSON is d as Camunda shows it; a value it cannot read is shown as
// Camunda shows one it cannot deserialize: no value, an error message.
func detailJSON(d *bpmnlite.HistoricDetail) object {
	if d.FormField {
		return historicFormFieldJSON.of(d)
	}
	o := historicDetailJSON.of(d)
	v, err := bpmnlite.DetailValue(d)
	if err != nil {
		return o.set("errorMessage", err.Error())
	}
	tv := encodeValue(v)
	return o.set("variableType", tv.Type).set("value", tv.Value).set("valueInfo", tv.ValueInfo)
}

// historicDetailRoutes: the values variables were given. Their values are
// stored as they are read: deserializeValues changes nothing.
func (h *Handler) historicDetailRoutes() {
	const path = "/history/detail"
	listRoutes(h, path, "param", bpmnlite.HistoricDetailQuery{}, h.eng.HistoricDetails, shapeFunc[bpmnlite.HistoricDetail](detailJSON))
	find := func(ctx context.Context, id string) ([]*bpmnlite.HistoricDetail, error) {
		return h.eng.HistoricDetails(ctx, bpmnlite.HistoricDetailQuery{ID: id})
	}
	missing := func(id string) string { return "Historic detail with Id '" + id + "' does not exist." }
	h.handle("GET "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		rows, err := find(r.Context(), r.PathValue("id"))
		d, err := first(rows, err, missing(r.PathValue("id")))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, detailJSON(d))
		return nil
	}, "deserializeValue")
	h.handle("GET "+path+"/{id}/data", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		rows, err := find(r.Context(), id)
		d, err := first(rows, err, missing(id))
		if err != nil {
			return err
		}
		v, err := bpmnlite.DetailValue(d)
		if err != nil {
			return err
		}
		b, ok := v.([]byte)
		if !ok {
			return badRequest("Value of variable with id %s is not a binary value.", id)
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, err = w.Write(b)
		return err
	})
}
