package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Commands on process definitions themselves: deleting one, changing its
// history time to live.

// ErrHasInstances is a process definition deleted without cascade while
// it has running instances.
var ErrHasInstances = errors.New("process definition has running instances")

// hasInstancesError is ErrHasInstances with Camunda's message.
type hasInstancesError struct {
	id        string
	instances int
}

func (e *hasInstancesError) Error() string {
	return fmt.Sprintf("ENGINE-03076 Deletion of process definition without cascading failed. Process definition with id: %s can't be deleted, because there are %d dependent process instances.", e.id, e.instances)
}

func (e *hasInstancesError) Is(target error) bool { return target == ErrHasInstances }

// DeleteProcessDefinitions deletes process definitions (their job
// definitions, start timers and subscriptions with them); running
// instances make it fail (ErrHasInstances) unless cascade deletes them.
// The deployments and resources stay, as in Camunda.
func (e *Core) DeleteProcessDefinitions(ctx context.Context, ids []string, cascade bool) error {
	err := e.cmd.Run(ctx, func(cc *tx.Context) error {
		c := e.newCommand(cc)
		for _, id := range ids {
			ent, err := cc.Get(persistence.ProcessDefinitionTable, id)
			if err != nil {
				return fmt.Errorf("process definition %q: %w", id, err)
			}
			if err := c.deleteDefinition(ent.(*persistence.ProcessDefinition), cascade, "process definition deleted"); err != nil {
				return err
			}
		}
		return c.run()
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		e.defs.remove(id)
	}
	return nil
}

// deleteDefinition deletes pd and what belongs to it; its running
// instances (with cascade) are deleted for reason.
func (c *command) deleteDefinition(pd *persistence.ProcessDefinition, cascade bool, reason string) error {
	roots, err := tx.Select(c.cc, persistence.InstancesOfDefinition(pd.ID))
	if err != nil {
		return err
	}
	if len(roots) > 0 && !cascade {
		return &hasInstancesError{pd.ID, len(roots)}
	}
	for _, r := range roots {
		in, err := c.loadInstance(r.ID)
		if err != nil {
			return err
		}
		if err := c.deleteInstance(in, reason, persistence.StateExternallyTerminated); err != nil {
			return err
		}
	}
	c.cc.Write(persistence.DeleteDefinitionRows(pd.ID)...)
	c.cc.Delete(pd)
	return nil
}

// SetHistoryTimeToLive sets a process definition's history time to live
// in days (nil: the engine's default); instances that end afterwards get
// their removal time from it.
func (e *Core) SetHistoryTimeToLive(ctx context.Context, id string, days *int) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.ProcessDefinitionTable, id)
		if err != nil {
			return fmt.Errorf("process definition %q: %w", id, err)
		}
		pd := ent.(*persistence.ProcessDefinition)
		pd.HistoryTimeToLive = days
		cc.Update(pd)
		if days != nil && e.history(config.HistoryActivity) {
			e.scheduleHistoryCleanup(cc)
		}
		// The cached definition has the old time to live: parsed again
		// when next needed.
		cc.AfterCommit(func() { e.defs.remove(id) })
		return nil
	})
}
