package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Restart (Camunda's RestartProcessInstanceBuilder): a process instance
// that ended (completed or cancelled) starts anew, as a new instance of
// the same definition, at the activities its instructions name, with the
// variables it had when it ended (or those it started with).

// RestartRequest restarts ended process instances of one definition.
type RestartRequest struct {
	ProcessInstanceIDs []string
	// HistoricProcessInstanceQuery adds the instances it selects.
	HistoricProcessInstanceQuery *persistence.HistoricProcessInstanceFilter
	// Instructions say where each new instance starts: start before or
	// after an activity, start a sequence flow (cancellations do not
	// apply).
	Instructions []ModificationInstruction
	// InitialVariables: the variables the instance started with (history
	// level full keeps them), instead of those it had when it ended.
	InitialVariables bool
	// Variables are set on each instance, over those it had.
	Variables           map[string]any
	SkipCustomListeners bool
	SkipIoMappings      bool
	WithoutBusinessKey  bool
}

// ErrCannotRestart is a process instance that cannot be restarted: not
// ended, or of another process definition.
var ErrCannotRestart = errors.New("process instance cannot be restarted")

// RestartProcessInstances restarts the process instances of req, all in
// one transaction (t, when not nil, is the caller's), and returns the new
// instances' ids in order.
func (e *Core) RestartProcessInstances(ctx context.Context, t persistence.Tx, definitionID string, req RestartRequest) ([]string, error) {
	if err := checkRestartInstructions(req.Instructions); err != nil {
		return nil, err
	}
	var ids []string
	err := e.command(ctx, t, "restart_process_instances", func(c *command) error {
		ids = ids[:0]
		def, err := c.definition(definitionID)
		if err != nil {
			return err
		}
		c.skipCustomListeners, c.skipIoMappings = req.SkipCustomListeners, req.SkipIoMappings
		olds, err := c.restartIDs(req)
		if err != nil {
			return err
		}
		for _, old := range olds {
			id, err := c.restart(def, old, req)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// checkRestartInstructions refuses a restart without instructions or
// with one that is not a start.
func checkRestartInstructions(instructions []ModificationInstruction) error {
	if len(instructions) == 0 {
		return fmt.Errorf("%w: Restart instructions cannot be empty", ErrInvalidInstruction)
	}
	for i, ins := range instructions {
		switch ins.Type {
		case StartBeforeActivity, StartAfterActivity, StartTransition:
		default:
			return &ModificationError{i, ins.Type, fmt.Errorf("a restart starts activities or transitions only: %w", ErrInvalidInstruction)}
		}
	}
	return nil
}

// restartIDs are the ended instances req restarts, listed and queried,
// each once.
func (c *command) restartIDs(req RestartRequest) ([]string, error) {
	olds := slices.Clone(req.ProcessInstanceIDs)
	if q := req.HistoricProcessInstanceQuery; q != nil {
		hs, err := tx.Select(c.cc, q.Query())
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if !slices.Contains(olds, h.ID) {
				olds = append(olds, h.ID)
			}
		}
	}
	if len(olds) == 0 {
		return nil, fmt.Errorf("%w: Process instance ids cannot be empty", ErrInvalidInstruction)
	}
	return olds, nil
}

// restart starts ended instance old of def anew and returns the new id.
func (c *command) restart(def *Definition, old string, req RestartRequest) (string, error) {
	ent, err := c.cc.Get(persistence.HistoricProcessInstanceTable, old)
	if err != nil {
		return "", fmt.Errorf("historic process instance %q: %w", old, err)
	}
	h := ent.(*persistence.HistoricProcessInstance)
	switch {
	case h.EndTime == nil:
		return "", fmt.Errorf("%w: Historic process instance '%s' cannot be restarted. It is not completed or terminated.", ErrCannotRestart, old)
	case h.ProcessDefinitionID != def.ID:
		return "", fmt.Errorf("%w: Historic process instance '%s' cannot be restarted. Its process definition '%s' does not match given process definition '%s'",
			ErrCannotRestart, old, h.ProcessDefinitionID, def.ID)
	}
	vars, err := c.restartVariables(old, req.InitialVariables)
	if err != nil {
		return "", err
	}
	maps.Copy(vars, req.Variables)
	businessKey := h.BusinessKey
	if req.WithoutBusinessKey {
		businessKey = ""
	}
	first := req.Instructions[0]
	startActivity := first.ActivityID
	if f := def.Process.Flow(first.TransitionID); f != nil {
		startActivity = f.Target.ID
	}
	in, err := c.createInstance(def, businessKey, "", vars, startActivity)
	if err != nil {
		return "", err
	}
	if h, err := c.cc.Get(persistence.HistoricProcessInstanceTable, in.root.ID); err == nil { // none below history level activity
		h.(*persistence.HistoricProcessInstance).RestartedProcessInstanceID = old
	}
	if err := c.applyInstructions(in, req.Instructions); err != nil {
		return "", err
	}
	c.e.log.Debug("process instance restarted", "instance", in.root.ID, "restarted", old)
	return in.root.ID, nil
}

// restartVariables are the process variables ended instance id had: when
// it ended, or (initial) when it started, as history full recorded them.
func (c *command) restartVariables(id string, initial bool) (map[string]any, error) {
	out := map[string]any{}
	if !initial {
		err := c.endedVariables(id, &out, persistence.ErrNotFound)
		return out, err
	}
	details, err := tx.Select(c.cc, persistence.HistoricDetailFilter{ExecutionID: id, Initial: true, VariableUpdates: true}.Query())
	if err != nil {
		return nil, err
	}
	for _, d := range details {
		if out[d.Name], err = decodeVariable(d.Value()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
