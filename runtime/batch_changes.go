package runtime

import (
	"context"
	"fmt"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The batch types that change running instances (Camunda's asynchronous
// migration, modification and restart): each item is a process instance
// (for a restart, an ended one from history), done in its execution job's
// transaction by the same per-instance step as the synchronous call. What
// can be checked without the instances (the plan, the instructions, the
// definition) is checked when the batch is created, which refuses it
// then; an instance that cannot be changed fails its job (retries, then
// an incident on the batch job) with the reason.

// Batch types, Camunda's names.
const (
	BatchMigration    = "instance-migration"
	BatchModification = "instance-modification"
	BatchRestart      = "instance-restart"
)

// storedVars are variables as a batch's parameters keep them: encoded as
// the engine stores them, so that their types (and a TypedValue's declared
// type) survive JSON.
type storedVars map[string]*persistence.Variable

func (c *command) storeVars(vars map[string]any) (storedVars, error) {
	if len(vars) == 0 {
		return nil, nil
	}
	out := make(storedVars, len(vars))
	for name, v := range vars {
		r := &persistence.Variable{Name: name}
		if err := encodeVariable(r, v, c.e.Config.Limits.MaxVariableBytes); err != nil {
			return nil, err
		}
		out[name] = r
	}
	return out, nil
}

func (s storedVars) decode() (map[string]any, error) {
	if len(s) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(s))
	for name, r := range s {
		v, err := declaredValue(r)
		if err != nil {
			return nil, fmt.Errorf("variable %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// storedInstruction is a modification instruction in a batch's
// parameters, its variables stored apart.
type storedInstruction struct {
	ModificationInstruction
	Vars, LocalVars storedVars `json:",omitempty"`
}

func (c *command) storeInstructions(instructions []ModificationInstruction) ([]storedInstruction, error) {
	out := make([]storedInstruction, len(instructions))
	for i, ins := range instructions {
		var err error
		if out[i].Vars, err = c.storeVars(ins.Variables); err != nil {
			return nil, err
		}
		if out[i].LocalVars, err = c.storeVars(ins.LocalVariables); err != nil {
			return nil, err
		}
		ins.Variables, ins.LocalVariables = nil, nil
		out[i].ModificationInstruction = ins
	}
	return out, nil
}

func loadInstructions(stored []storedInstruction) ([]ModificationInstruction, error) {
	out := make([]ModificationInstruction, len(stored))
	for i, s := range stored {
		out[i] = s.ModificationInstruction
		var err error
		if out[i].Variables, err = s.Vars.decode(); err != nil {
			return nil, err
		}
		if out[i].LocalVariables, err = s.LocalVars.decode(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// migrationParams are an instance-migration batch's parameters.
type migrationParams struct {
	Plan      MigrationPlan // without its variables
	Variables storedVars    `json:",omitempty"`
	// The listeners and input/output mappings of the subprocesses the
	// migration adds or removes do not run.
	SkipCustomListeners bool `json:",omitempty"`
	SkipIOMappings      bool `json:",omitempty"`
}

// modificationParams are an instance-modification batch's parameters.
type modificationParams struct {
	ProcessDefinitionID string
	Instructions        []storedInstruction
	SkipCustomListeners bool `json:",omitempty"`
	SkipIoMappings      bool `json:",omitempty"`
	Annotation          string
}

// restartParams are an instance-restart batch's parameters.
type restartParams struct {
	ProcessDefinitionID string
	Instructions        []storedInstruction
	Variables           storedVars `json:",omitempty"`
	InitialVariables    bool       `json:",omitempty"`
	SkipCustomListeners bool       `json:",omitempty"`
	SkipIoMappings      bool       `json:",omitempty"`
	WithoutBusinessKey  bool       `json:",omitempty"`
}

func init() {
	registerBatchType(BatchMigration, batchRun(func(c *command, p migrationParams, id string) error {
		plan := p.Plan
		var err error
		if plan.Variables, err = p.Variables.decode(); err != nil {
			return err
		}
		m, err := c.validMigration(plan)
		if err != nil {
			return err
		}
		in, report, err := c.migratingInstance(id, m)
		if err != nil {
			return err
		}
		if !report.empty() {
			return &MigratingInstanceError{Report: *report}
		}
		c.skipCustomListeners, c.skipIoMappings = p.SkipCustomListeners, p.SkipIOMappings
		if err := c.migrateInstance(in, m); err != nil {
			return err
		}
		// As Migrate: no conditional event fires from migrating.
		c.varChanges, c.freshConditions = nil, nil
		return nil
	}))
	registerBatchType(BatchModification, batchRun(func(c *command, p modificationParams, id string) error {
		instructions, err := loadInstructions(p.Instructions)
		if err != nil {
			return err
		}
		return c.modify(id, p.ProcessDefinitionID, ModificationRequest{Instructions: instructions,
			SkipCustomListeners: p.SkipCustomListeners, SkipIoMappings: p.SkipIoMappings, Annotation: p.Annotation})
	}))
	registerBatchType(BatchRestart, batchRun(func(c *command, p restartParams, old string) error {
		def, err := c.definition(p.ProcessDefinitionID)
		if err != nil {
			return err
		}
		req := RestartRequest{InitialVariables: p.InitialVariables, SkipCustomListeners: p.SkipCustomListeners,
			SkipIoMappings: p.SkipIoMappings, WithoutBusinessKey: p.WithoutBusinessKey}
		if req.Instructions, err = loadInstructions(p.Instructions); err != nil {
			return err
		}
		if req.Variables, err = p.Variables.decode(); err != nil {
			return err
		}
		c.skipCustomListeners, c.skipIoMappings = req.SkipCustomListeners, req.SkipIoMappings
		_, err = c.restart(def, old, req)
		return err
	}))
}

// MigrateAsync validates req's plan (a *MigrationPlanError refuses it)
// and creates a batch that migrates req's instances, one per item.
func (e *Core) MigrateAsync(ctx context.Context, req MigrationRequest, opt BatchOptions) (*persistence.Batch, error) {
	var b *persistence.Batch
	err := e.command(ctx, nil, "migrate_async", func(c *command) error {
		if _, err := c.validMigration(req.Plan); err != nil {
			return err
		}
		ids, err := c.migratingInstanceIDs(req)
		if err != nil {
			return err
		}
		p := migrationParams{Plan: req.Plan, SkipCustomListeners: req.SkipCustomListeners, SkipIOMappings: req.SkipIOMappings}
		p.Plan.Variables = nil
		if p.Variables, err = c.storeVars(req.Plan.Variables); err != nil {
			return err
		}
		b, err = c.createBatch(BatchMigration, ids, p, opt)
		return err
	})
	return b, err
}

// ModifyProcessInstancesAsync creates a batch that runs req's
// instructions on each of the instances ids of process definition
// definitionID; with definitionID "", ids must be one instance, whose
// definition it is (Camunda's executeAsync of one instance's
// modification).
func (e *Core) ModifyProcessInstancesAsync(ctx context.Context, definitionID string, ids []string, req ModificationRequest, opt BatchOptions) (*persistence.Batch, error) {
	if len(req.Instructions) == 0 {
		return nil, fmt.Errorf("Modification instructions cannot be empty: %w", ErrInvalidInstruction)
	}
	var b *persistence.Batch
	err := e.command(ctx, nil, "modify_async", func(c *command) error {
		if definitionID == "" {
			if len(ids) != 1 {
				return fmt.Errorf("processDefinitionId is required: %w", ErrInvalidInstruction)
			}
			in, err := c.loadInstance(ids[0])
			if err != nil {
				return err
			}
			if in.root.ID != ids[0] {
				return fmt.Errorf("process instance %q: %w", ids[0], persistence.ErrNotFound)
			}
			definitionID = in.def.ID
		} else if _, err := c.definition(definitionID); err != nil {
			return err
		}
		stored, err := c.storeInstructions(req.Instructions)
		if err != nil {
			return err
		}
		b, err = c.createBatch(BatchModification, ids, modificationParams{ProcessDefinitionID: definitionID, Instructions: stored,
			SkipCustomListeners: req.SkipCustomListeners, SkipIoMappings: req.SkipIoMappings, Annotation: req.Annotation}, opt)
		return err
	})
	return b, err
}

// RestartProcessInstancesAsync creates a batch that restarts the ended
// instances of req (of process definition definitionID), one per item.
func (e *Core) RestartProcessInstancesAsync(ctx context.Context, definitionID string, req RestartRequest, opt BatchOptions) (*persistence.Batch, error) {
	if err := checkRestartInstructions(req.Instructions); err != nil {
		return nil, err
	}
	var b *persistence.Batch
	err := e.command(ctx, nil, "restart_async", func(c *command) error {
		if _, err := c.definition(definitionID); err != nil {
			return err
		}
		ids, err := c.restartIDs(req)
		if err != nil {
			return err
		}
		p := restartParams{ProcessDefinitionID: definitionID, InitialVariables: req.InitialVariables,
			SkipCustomListeners: req.SkipCustomListeners, SkipIoMappings: req.SkipIoMappings, WithoutBusinessKey: req.WithoutBusinessKey}
		if p.Instructions, err = c.storeInstructions(req.Instructions); err != nil {
			return err
		}
		if p.Variables, err = c.storeVars(req.Variables); err != nil {
			return err
		}
		b, err = c.createBatch(BatchRestart, ids, p, opt)
		return err
	})
	return b, err
}
