package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The migration resource: generate, validate and execute (synchronously) a
// migration plan, with Camunda's DTOs. /migration/executeAsync is a batch.

// migrationInstructionDto is Camunda's MigrationInstructionDto.
type migrationInstructionDto struct {
	SourceActivityIDs  []string `json:"sourceActivityIds"`
	TargetActivityIDs  []string `json:"targetActivityIds"`
	UpdateEventTrigger bool     `json:"updateEventTrigger"`
}

// migrationPlanDto is Camunda's MigrationPlanDto.
type migrationPlanDto struct {
	SourceProcessDefinitionID string                    `json:"sourceProcessDefinitionId"`
	TargetProcessDefinitionID string                    `json:"targetProcessDefinitionId"`
	Instructions              []migrationInstructionDto `json:"instructions"`
	Variables                 map[string]TypedValue     `json:"variables"`
}

// migrationPlanGenerationDto is Camunda's MigrationPlanGenerationDto.
type migrationPlanGenerationDto struct {
	SourceProcessDefinitionID string                `json:"sourceProcessDefinitionId"`
	TargetProcessDefinitionID string                `json:"targetProcessDefinitionId"`
	UpdateEventTriggers       bool                  `json:"updateEventTriggers"`
	Variables                 map[string]TypedValue `json:"variables"`
}

// migrationExecutionDto is Camunda's MigrationExecutionDto.
type migrationExecutionDto struct {
	MigrationPlan        *migrationPlanDto          `json:"migrationPlan"`
	ProcessInstanceIDs   []string                   `json:"processInstanceIds"`
	ProcessInstanceQuery map[string]json.RawMessage `json:"processInstanceQuery"`
	SkipCustomListeners  bool                       `json:"skipCustomListeners"`
	SkipIoMappings       bool                       `json:"skipIoMappings"`
}

func instructionDto(in bpmnlite.MigrationInstruction) migrationInstructionDto {
	return migrationInstructionDto{SourceActivityIDs: nonNil(in.SourceActivityIDs), TargetActivityIDs: nonNil(in.TargetActivityIDs), UpdateEventTrigger: in.UpdateEventTrigger}
}

// plan returns the engine's plan of d.
func (d *migrationPlanDto) plan() (bpmnlite.MigrationPlan, error) {
	vars, err := DecodeVariables(d.Variables)
	if err != nil {
		return bpmnlite.MigrationPlan{}, err
	}
	p := bpmnlite.MigrationPlan{SourceProcessDefinitionID: d.SourceProcessDefinitionID, TargetProcessDefinitionID: d.TargetProcessDefinitionID, Variables: vars}
	for _, in := range d.Instructions {
		p.Instructions = append(p.Instructions, bpmnlite.MigrationInstruction(in))
	}
	return p, nil
}

// planReportJSON is Camunda's MigrationPlanReportDto; vars are the
// request's typed variables, repeated beside their failures.
func planReportJSON(r *bpmnlite.MigrationPlanReport, vars map[string]TypedValue) map[string]any {
	instructions := []map[string]any{}
	for _, ir := range r.InstructionReports {
		instructions = append(instructions, map[string]any{"instruction": instructionDto(ir.Instruction), "failures": nonNil(ir.Failures)})
	}
	variables := map[string]any{}
	for name, failures := range r.VariableReports {
		tv := vars[name]
		variables[name] = map[string]any{"type": tv.Type, "value": tv.Value, "valueInfo": tv.ValueInfo, "failures": failures}
	}
	return map[string]any{"instructionReports": instructions, "variableReports": variables}
}

// instanceReportJSON is Camunda's MigratingProcessInstanceValidationReportDto.
func instanceReportJSON(r *bpmnlite.MigratingInstanceReport) map[string]any {
	instruction := func(in *bpmnlite.MigrationInstruction) any {
		if in == nil {
			return nil
		}
		return instructionDto(*in)
	}
	activities, transitions := []map[string]any{}, []map[string]any{}
	for _, a := range r.ActivityInstanceReports {
		activities = append(activities, map[string]any{"migrationInstruction": instruction(a.Instruction),
			"activityInstanceId": a.ActivityInstanceID, "sourceScopeId": a.SourceScopeID, "failures": nonNil(a.Failures)})
	}
	for _, t := range r.TransitionInstanceReports {
		transitions = append(transitions, map[string]any{"migrationInstruction": instruction(t.Instruction),
			"transitionInstanceId": t.TransitionInstanceID, "sourceScopeId": t.SourceScopeID, "failures": nonNil(t.Failures)})
	}
	return map[string]any{"processInstanceId": r.ProcessInstanceID, "failures": nonNil(r.Failures),
		"activityInstanceValidationReports": activities, "transitionInstanceValidationReports": transitions}
}

// migrationFailed writes a refused migration as Camunda does: an invalid
// plan or instance with its validation report, an unknown definition or
// no instances as a BadUserRequestException; false for other errors.
func migrationFailed(w http.ResponseWriter, err error, vars map[string]TypedValue) bool {
	var pe *bpmnlite.MigrationPlanError
	var ie *bpmnlite.MigratingInstanceError
	switch {
	case errors.As(err, &pe):
		writeJSON(w, http.StatusBadRequest, map[string]any{"type": "MigrationPlanValidationException", "message": err.Error(), "code": nil,
			"validationReport": planReportJSON(&pe.Report, vars)})
	case errors.As(err, &ie):
		writeJSON(w, http.StatusBadRequest, map[string]any{"type": "MigratingProcessInstanceValidationException", "message": err.Error(), "code": nil,
			"validationReport": instanceReportJSON(&ie.Report)})
	case errors.Is(err, bpmnlite.ErrMigration), errors.Is(err, bpmnlite.ErrNotFound):
		writeError(w, http.StatusBadRequest, "BadUserRequestException", err.Error())
	default:
		return false
	}
	return true
}

func (h *Handler) migrationRoutes() {
	h.handle("POST /migration/generate", func(w http.ResponseWriter, r *http.Request) error {
		var body migrationPlanGenerationDto
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if _, err := DecodeVariables(body.Variables); err != nil {
			return err
		}
		plan, err := h.eng.GenerateMigrationPlan(r.Context(), body.SourceProcessDefinitionID, body.TargetProcessDefinitionID, body.UpdateEventTriggers)
		if err != nil {
			if migrationFailed(w, err, body.Variables) {
				return nil
			}
			return err
		}
		out := migrationPlanDto{SourceProcessDefinitionID: plan.SourceProcessDefinitionID, TargetProcessDefinitionID: plan.TargetProcessDefinitionID,
			Instructions: []migrationInstructionDto{}, Variables: body.Variables}
		for _, in := range plan.Instructions {
			out.Instructions = append(out.Instructions, instructionDto(in))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h.handle("POST /migration/validate", func(w http.ResponseWriter, r *http.Request) error {
		var body migrationPlanDto
		if err := readJSON(r, &body); err != nil {
			return err
		}
		plan, err := body.plan()
		if err != nil {
			return err
		}
		report, err := h.eng.ValidateMigrationPlan(r.Context(), plan)
		if err != nil {
			if migrationFailed(w, err, body.Variables) {
				return nil
			}
			return err
		}
		writeJSON(w, http.StatusOK, planReportJSON(report, body.Variables))
		return nil
	})
	h.handle("POST /migration/execute", func(w http.ResponseWriter, r *http.Request) error {
		req, vars, err := readMigrationExecution(r)
		if err != nil {
			return err
		}
		if err := h.eng.Migrate(r.Context(), req); err != nil {
			if migrationFailed(w, err, vars) {
				return nil
			}
			return err
		}
		return noContent(w)
	})
}

// readMigrationExecution reads a MigrationExecutionDto: the request and
// the plan's typed variables (for a report).
func readMigrationExecution(r *http.Request) (bpmnlite.MigrationRequest, map[string]TypedValue, error) {
	var body migrationExecutionDto
	if err := readJSON(r, &body); err != nil {
		return bpmnlite.MigrationRequest{}, nil, err
	}
	if body.MigrationPlan == nil {
		return bpmnlite.MigrationRequest{}, nil, badRequest("Migration plan cannot be null")
	}
	plan, err := body.MigrationPlan.plan()
	if err != nil {
		return bpmnlite.MigrationRequest{}, nil, err
	}
	req := bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: body.ProcessInstanceIDs,
		SkipCustomListeners: body.SkipCustomListeners, SkipIOMappings: body.SkipIoMappings}
	if body.ProcessInstanceQuery != nil {
		q := bpmnlite.InstanceQuery{}
		if err := bindJSONQuery(body.ProcessInstanceQuery, &q, "/process-instance"); err != nil {
			return req, nil, err
		}
		req.Query = &q
	}
	return req, body.MigrationPlan.Variables, nil
}
