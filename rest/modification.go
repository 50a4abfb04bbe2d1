package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// Process instance modification: one instance
// (POST /process-instance/{id}/modification) or several, synchronously
// (POST /modification/execute). The asynchronous forms are batches.

func (h *Handler) modificationRoutes() {
	h.handle("POST /process-instance/{id}/modification", func(w http.ResponseWriter, r *http.Request) error {
		req, err := readInstanceModification(r)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		return modified(w, id, h.eng.ModifyProcessInstance(r.Context(), id, req))
	})
	h.handle("POST /modification/execute", func(w http.ResponseWriter, r *http.Request) error {
		def, ids, req, err := h.readModification(r)
		if err != nil {
			return err
		}
		err = h.eng.ModifyProcessInstances(r.Context(), def, ids, req)
		if isNotFound(err) {
			return badRequest("%v", err) // an instance the request names, not the resource
		}
		return modified(w, "", err)
	})
}

// readInstanceModification reads one instance's modification (Camunda's
// ProcessInstanceModificationDto).
func readInstanceModification(r *http.Request) (bpmnlite.ModificationRequest, error) {
	var body struct {
		SkipCustomListeners bool                      `json:"skipCustomListeners"`
		SkipIoMappings      bool                      `json:"skipIoMappings"`
		Instructions        []modificationInstruction `json:"instructions"`
		Annotation          string                    `json:"annotation"`
	}
	if err := readJSON(r, &body); err != nil {
		return bpmnlite.ModificationRequest{}, err
	}
	req := bpmnlite.ModificationRequest{SkipCustomListeners: body.SkipCustomListeners, SkipIoMappings: body.SkipIoMappings, Annotation: body.Annotation}
	for i, in := range body.Instructions {
		ins, err := in.decode(i, true)
		if err != nil {
			return req, err
		}
		req.Instructions = append(req.Instructions, ins)
	}
	return req, nil
}

// readModification reads a modification of several instances (Camunda's
// ModificationDto): the process definition, the instances it selects and
// the request.
func (h *Handler) readModification(r *http.Request) (string, []string, bpmnlite.ModificationRequest, error) {
	var body struct {
		ProcessDefinitionID          string                     `json:"processDefinitionId"`
		SkipCustomListeners          bool                       `json:"skipCustomListeners"`
		SkipIoMappings               bool                       `json:"skipIoMappings"`
		ProcessInstanceIDs           []string                   `json:"processInstanceIds"`
		ProcessInstanceQuery         map[string]json.RawMessage `json:"processInstanceQuery"`
		HistoricProcessInstanceQuery map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
		Instructions                 []modificationInstruction  `json:"instructions"`
		Annotation                   string                     `json:"annotation"`
	}
	var req bpmnlite.ModificationRequest
	if err := readJSON(r, &body); err != nil {
		return "", nil, req, err
	}
	switch {
	case body.ProcessDefinitionID == "":
		return "", nil, req, badRequest("processDefinitionId is required")
	case len(body.Instructions) == 0:
		return "", nil, req, badRequest("Modification instructions cannot be empty")
	}
	req = bpmnlite.ModificationRequest{SkipCustomListeners: body.SkipCustomListeners, SkipIoMappings: body.SkipIoMappings, Annotation: body.Annotation}
	for i, in := range body.Instructions {
		ins, err := in.decode(i, false)
		if err != nil {
			return "", nil, req, err
		}
		req.Instructions = append(req.Instructions, ins)
	}
	ids, err := h.selectedInstances(r, body.ProcessInstanceIDs, body.ProcessInstanceQuery, body.HistoricProcessInstanceQuery)
	if err != nil {
		return "", nil, req, err
	}
	if len(ids) == 0 {
		return "", nil, req, badRequest("Process instance ids is empty")
	}
	return body.ProcessDefinitionID, ids, req, nil
}

// modified answers a modification: 204, a refused instruction 400, an
// unknown instance 404, an instruction whose activity failed (a delegate,
// a mapping) 500 as Camunda's ProcessEngineException, a conflict 409.
func modified(w http.ResponseWriter, id string, err error) error {
	switch {
	case err == nil:
		return noContent(w)
	case errors.Is(err, bpmnlite.ErrInvalidInstruction):
		return badRequest("%v", err)
	case errors.As(err, new(*bpmnlite.ModificationError)) && !errors.Is(err, bpmnlite.ErrOptimisticLock):
		return &serverError{typ: "ProcessEngineException", msg: err.Error()}
	case isNotFound(err) && id != "":
		return &notFound{"Process instance with id " + id + " does not exist"}
	}
	return err
}

// modificationInstruction is Camunda's ProcessInstanceModificationInstructionDto
// (and, without variables and ids of instances, the
// MultipleProcessInstanceModificationInstructionDto of /modification/execute).
type modificationInstruction struct {
	Type                                 string                     `json:"type"`
	ActivityID                           string                     `json:"activityId"`
	TransitionID                         string                     `json:"transitionId"`
	ActivityInstanceID                   string                     `json:"activityInstanceId"`
	TransitionInstanceID                 string                     `json:"transitionInstanceId"`
	AncestorActivityInstanceID           string                     `json:"ancestorActivityInstanceId"`
	Variables                            map[string]triggerVariable `json:"variables"`
	CancelCurrentActiveActivityInstances bool                       `json:"cancelCurrentActiveActivityInstances"`
}

// decode checks instruction i as Camunda does and turns it into the
// engine's; single: of one instance's modification, where instance ids
// and variables apply.
func (in modificationInstruction) decode(i int, single bool) (bpmnlite.ModificationInstruction, error) {
	out := bpmnlite.ModificationInstruction{ActivityID: in.ActivityID, TransitionID: in.TransitionID,
		ActivityInstanceID: in.ActivityInstanceID, TransitionInstanceID: in.TransitionInstanceID,
		AncestorActivityInstanceID: in.AncestorActivityInstanceID, CancelCurrentActiveActivityInstances: in.CancelCurrentActiveActivityInstances}
	refuse := func(format string, args ...any) (bpmnlite.ModificationInstruction, error) {
		return out, badRequest("instructions[%d]: For instruction type '%s': "+format, append([]any{i, in.Type}, args...)...)
	}
	if !single && (in.ActivityInstanceID != "" || in.TransitionInstanceID != "" || in.AncestorActivityInstanceID != "" || len(in.Variables) > 0) {
		return refuse("activityInstanceId, transitionInstanceId, ancestorActivityInstanceId and variables apply to one process instance's modification only")
	}
	ids := 0
	for _, id := range []string{in.ActivityID, in.TransitionID, in.ActivityInstanceID, in.TransitionInstanceID} {
		if id != "" {
			ids++
		}
	}
	switch in.Type {
	case "cancel":
		if in.TransitionID != "" || ids != 1 {
			return refuse("exactly one, 'activityId', 'activityInstanceId', or 'transitionInstanceId', is required")
		}
		if len(in.Variables) > 0 || in.AncestorActivityInstanceID != "" {
			return refuse("variables and ancestorActivityInstanceId do not apply")
		}
		switch {
		case in.ActivityID != "":
			out.Type = bpmnlite.CancelAllForActivity
		case in.ActivityInstanceID != "":
			out.Type = bpmnlite.CancelActivityInstance
		default:
			out.Type = bpmnlite.CancelTransitionInstance
		}
		return out, nil
	case "startBeforeActivity", "startAfterActivity":
		out.Type = bpmnlite.InstructionType(in.Type)
		if in.ActivityID == "" || ids != 1 {
			return refuse("'activityId' must be set, and no other id")
		}
	case "startTransition":
		out.Type = bpmnlite.StartTransition
		if in.TransitionID == "" || ids != 1 {
			return refuse("'transitionId' must be set, and no other id")
		}
	default:
		return out, badRequest("instructions[%d]: type %q is not one of cancel, startBeforeActivity, startAfterActivity, startTransition", i, in.Type)
	}
	if in.CancelCurrentActiveActivityInstances {
		return refuse("cancelCurrentActiveActivityInstances applies to cancel only")
	}
	global, local := map[string]TypedValue{}, map[string]TypedValue{}
	splitVariables(in.Variables, global, local)
	var err error
	if out.Variables, err = DecodeVariables(global); err != nil {
		return out, err
	}
	out.LocalVariables, err = DecodeVariables(local)
	return out, err
}

// splitVariables sorts an instruction's variables into global and local.
func splitVariables(vars map[string]triggerVariable, global, local map[string]TypedValue) {
	for name, v := range vars {
		if v.Local {
			local[name] = v.TypedValue
		} else {
			global[name] = v.TypedValue
		}
	}
}
