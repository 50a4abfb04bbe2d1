package runtime

import (
	"context"
	"errors"
	"fmt"

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
