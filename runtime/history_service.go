package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// ErrStillRunning: the history of a process instance that has not ended
// cannot be deleted.
var ErrStillRunning = errors.New("process instance is still running")

// DeleteHistoricProcessInstance removes the history of an ended process
// instance: its activity instances, variables, tasks, incidents, job and
// external task log, and itself. A missing instance is an ErrNotFound
// unless ifExists, when there is nothing to do.
func (e *Core) DeleteHistoricProcessInstance(ctx context.Context, id string, ifExists bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		h, err := e.historicInstance(cc, id)
		switch {
		case errors.Is(err, persistence.ErrNotFound) && ifExists:
			return nil
		case err != nil:
			return err
		case h.EndTime == nil:
			return fmt.Errorf("cannot delete the history of process instance %s: %w", id, ErrStillRunning)
		}
		cc.Write(persistence.RemoveHistory([]string{id})...)
		return nil
	})
}

// DeleteHistoricVariables removes the variables (and their updates) that
// history keeps of a process instance.
func (e *Core) DeleteHistoricVariables(ctx context.Context, processInstanceID string) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		if _, err := e.historicInstance(cc, processInstanceID); err != nil {
			return err
		}
		cc.Write(persistence.RemoveHistoricVariables(processInstanceID)...)
		return nil
	})
}

// historicInstance is the history record of process instance id, or an
// ErrNotFound.
func (e *Core) historicInstance(cc *tx.Context, id string) (*persistence.HistoricProcessInstance, error) {
	h, err := cc.Get(persistence.HistoricProcessInstanceTable, id)
	if err != nil {
		return nil, err
	}
	return h.(*persistence.HistoricProcessInstance), nil
}

// historyVariableUpdate records the value variable r of x's scope was
// just given, created or updated (at history level full): Camunda's
// historic variable update.
func (x *execution) historyVariableUpdate(r *persistence.Variable, created bool) {
	c := x.inst.c
	if !c.e.history(config.HistoryFull) {
		return
	}
	d := persistence.DetailOf(newID(), r, c.cc.Now().UTC())
	d.ProcessDefinitionID, d.ProcessDefinitionKey, d.ActivityInstanceID = x.ProcessDefinitionID, x.inst.def.Key, x.ActivityInstanceID
	d.Initial = c.initialVars == x.ID
	if !created {
		d.Revision = r.Rev // the writes before this one
	}
	c.cc.Insert(d)
}
