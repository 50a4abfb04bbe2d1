package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The message resource: correlation.

// correlationMessage is Camunda's CorrelationMessageDto.
type correlationMessage struct {
	MessageName              string                `json:"messageName"`
	BusinessKey              string                `json:"businessKey"`
	ProcessInstanceID        string                `json:"processInstanceId"`
	ProcessVariables         map[string]TypedValue `json:"processVariables"`
	ProcessVariablesLocal    map[string]TypedValue `json:"processVariablesLocal"`
	CorrelationKeys          map[string]TypedValue `json:"correlationKeys"`
	LocalCorrelationKeys     map[string]TypedValue `json:"localCorrelationKeys"`
	All                      bool                  `json:"all"`
	ResultEnabled            bool                  `json:"resultEnabled"`
	VariablesInResultEnabled bool                  `json:"variablesInResultEnabled"`
	// Refused when given (see unsupportedMembers).
	TenantID                         *string         `json:"tenantId"`
	WithoutTenantID                  bool            `json:"withoutTenantId"`
	ProcessVariablesToTriggeredScope json.RawMessage `json:"processVariablesToTriggeredScope"`
}

// unsupported names the first member of Camunda's that bpmnlite does not
// honour and the request gives.
func (m *correlationMessage) unsupported() string {
	switch {
	case m.TenantID != nil:
		return "tenantId"
	case m.WithoutTenantID:
		return "withoutTenantId"
	case m.ProcessVariablesToTriggeredScope != nil && string(m.ProcessVariablesToTriggeredScope) != "null":
		return "processVariablesToTriggeredScope"
	}
	return ""
}

// correlatedExecutionJSON and startedInstanceJSON are the execution and
// the process instance of Camunda's MessageCorrelationResultDto.
var (
	correlatedExecutionJSON = newShape[bpmnlite.Correlation](`id=ExecutionID processInstanceId ended:false tenantId:null`)
	startedInstanceJSON     = newShape[bpmnlite.Correlation](`links:[] id=ProcessInstanceID definitionId=ProcessDefinitionID
	businessKey? caseInstanceId:null ended:false suspended:false tenantId:null`)
)

// messageRoutes: message correlation.
func (h *Handler) messageRoutes() {
	h.handle("POST /message", func(w http.ResponseWriter, r *http.Request) error {
		var body correlationMessage
		if err := readJSON(r, &body); err != nil {
			return err
		}
		switch {
		case body.MessageName == "":
			return badRequest("No message name supplied")
		case body.unsupported() != "":
			return badRequest("bpmnlite does not support the member %s of a message correlation (Camunda's REST API has it; bpmnlite refuses it rather than ignore it)", body.unsupported())
		case body.VariablesInResultEnabled && !body.ResultEnabled:
			return badRequest("Parameter 'variablesInResultEnabled' cannot be used without 'resultEnabled' set to true.")
		}
		vars, err := DecodeVariables(body.ProcessVariables)
		if err != nil {
			return err
		}
		local, err := DecodeVariables(body.ProcessVariablesLocal)
		if err != nil {
			return err
		}
		keys, err := DecodeVariables(body.CorrelationKeys)
		if err != nil {
			return err
		}
		localKeys, err := DecodeVariables(body.LocalCorrelationKeys)
		if err != nil {
			return err
		}
		cs, err := h.eng.CorrelateWithResult(r.Context(), bpmnlite.CorrelateRequest{MessageName: body.MessageName, BusinessKey: body.BusinessKey,
			ProcessInstanceID: body.ProcessInstanceID, Variables: vars, LocalVariables: local, CorrelationKeys: keys,
			LocalCorrelationKeys: localKeys, All: body.All})
		switch {
		case errors.Is(err, bpmnlite.ErrNoMatch) && body.All:
			// Camunda's correlateAll delivers to none without complaint.
		case errors.Is(err, bpmnlite.ErrNoMatch):
			return &requestError{typ: "RestException", msg: "Cannot correlate message '" + body.MessageName + "': No process definition or execution matches the parameters"}
		case errors.Is(err, bpmnlite.ErrAmbiguous):
			return &requestError{typ: "RestException", msg: "Cannot correlate message '" + body.MessageName + "': " + err.Error()}
		case err != nil:
			return err
		}
		if !body.ResultEnabled {
			return noContent(w)
		}
		out := []object{}
		for _, c := range cs {
			res, err := h.correlationResult(r.Context(), c, body.VariablesInResultEnabled)
			if err != nil {
				return err
			}
			out = append(out, res)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}

// correlationResult is Camunda's MessageCorrelationResultDto of c: the
// execution that received the message, or the instance a message start
// event started, with the variables visible there when withVariables.
func (h *Handler) correlationResult(ctx context.Context, c bpmnlite.Correlation, withVariables bool) (object, error) {
	// ended: the delivery ran the execution (or the new instance) to its end.
	xs, err := h.eng.Executions(ctx, bpmnlite.ExecutionQuery{ID: c.ExecutionID})
	if err != nil {
		return nil, err
	}
	ended := len(xs) == 0
	res := object{{"resultType", "Execution"}, {"execution", correlatedExecutionJSON.of(&c).set("ended", ended)}, {"processInstance", nil}}
	if c.StartedInstance {
		res = object{{"resultType", "ProcessDefinition"}, {"execution", nil}, {"processInstance", startedInstanceJSON.of(&c).set("ended", ended)}}
	}
	if !withVariables {
		return res, nil
	}
	vars, err := h.typedVariables(ctx, c.ExecutionID)
	if isNotFound(err) {
		// The execution ended with the delivery: the instance's variables.
		vars, err = h.typedVariables(ctx, c.ProcessInstanceID)
	}
	if isNotFound(err) {
		vars, err = map[string]TypedValue{}, nil
	}
	if err != nil {
		return nil, err
	}
	return append(res, member[any]{"variables", vars}), nil
}
