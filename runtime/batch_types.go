package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The batch types that change no model: deletion of process instances and
// of their history (and of decision evaluations'), suspension of
// instances, removal times of their history, and retries of jobs and
// external tasks (Camunda's Batch.TYPE_... names). Each execution job does
// its items in one transaction: one failing item fails the job, which is
// retried whole.

// Batch types, Camunda's names.
const (
	BatchInstanceDeletion         = "instance-deletion"
	BatchHistoricInstanceDeletion = "historic-instance-deletion"
	BatchSetJobRetries            = "set-job-retries"
	BatchSetExternalTaskRetries   = "set-external-task-retries"
	BatchUpdateSuspensionState    = "instance-update-suspension-state"
	BatchHistoricDecisionDeletion = "historic-decision-instance-deletion"
	BatchProcessSetRemovalTime    = "process-set-removal-time"
)

// DeleteInstancesParams are the parameters of an instance-deletion batch.
type DeleteInstancesParams struct {
	DeleteOptions
	// FailIfNotExists: an instance that ended meanwhile fails its job;
	// without it (Camunda's default for batches), it is skipped.
	FailIfNotExists bool `json:"failIfNotExists,omitempty"`
}

// DeleteHistoryParams are the parameters of a historic-instance-deletion
// batch.
type DeleteHistoryParams struct {
	FailIfNotExists bool `json:"failIfNotExists,omitempty"`
}

// RetriesParams are the parameters of a set-job-retries or
// set-external-task-retries batch; DueDateSet (jobs only) also sets each
// job's due date to DueDate (nil: due at once).
type RetriesParams struct {
	Retries    int        `json:"retries"`
	DueDate    *time.Time `json:"dueDate,omitempty"`
	DueDateSet bool       `json:"dueDateSet,omitempty"`
}

// SuspensionParams are the parameters of an
// instance-update-suspension-state batch.
type SuspensionParams struct {
	Suspended bool `json:"suspended"`
}

// RemovalTimeParams are the parameters of a process-set-removal-time
// batch: Calculated computes each instance's removal time as its end
// does (its root instance's end plus the root definition's history time
// to live; none while the root runs); else Time is it (nil: cleared).
// Hierarchical sets it on the instance's whole call hierarchy.
type RemovalTimeParams struct {
	Time         *time.Time `json:"time,omitempty"`
	Calculated   bool       `json:"calculated,omitempty"`
	Hierarchical bool       `json:"hierarchical,omitempty"`
}

func init() {
	registerBatchType(BatchInstanceDeletion, batchRun(func(c *command, p DeleteInstancesParams, id string) error {
		in, err := c.loadInstance(id)
		if errors.Is(err, persistence.ErrNotFound) && !p.FailIfNotExists {
			return nil
		}
		if err != nil {
			return err
		}
		return c.deleteByAPI(in, p.DeleteOptions)
	}))
	registerBatchType(BatchHistoricInstanceDeletion, batchRun(func(c *command, p DeleteHistoryParams, id string) error {
		h, err := c.e.historicInstance(c.cc, id)
		switch {
		case errors.Is(err, persistence.ErrNotFound) && !p.FailIfNotExists:
			return nil
		case err != nil:
			return fmt.Errorf("historic process instance %s: %w", id, err)
		case h.EndTime == nil:
			return fmt.Errorf("cannot delete the history of process instance %s: %w", id, ErrStillRunning)
		}
		c.cc.Write(persistence.RemoveHistory([]string{id})...)
		return nil
	}))
	registerBatchType(BatchSetJobRetries, batchRun(func(c *command, p RetriesParams, id string) error {
		j, err := c.e.job(c.cc, id)
		if err != nil {
			return err
		}
		if p.DueDateSet {
			j.DueDate = p.DueDate
		}
		return c.e.setRetries(c.cc, j, p.Retries)
	}))
	registerBatchType(BatchSetExternalTaskRetries, batchRun(func(c *command, p RetriesParams, id string) error {
		ent, err := c.cc.Get(persistence.ExternalTaskTable, id)
		if err != nil {
			return fmt.Errorf("Cannot find external task with id %s: %w", id, err)
		}
		return c.setExternalTaskRetries(ent.(*persistence.ExternalTask), p.Retries)
	}))
	registerBatchType(BatchUpdateSuspensionState, batchRun(func(c *command, p SuspensionParams, id string) error {
		err := c.e.suspendInstance(c.cc, id, p.Suspended)
		if errors.Is(err, persistence.ErrNotFound) {
			return nil // ended meanwhile: nothing to suspend
		}
		return err
	}))
	// A job's decision instances in one statement per table.
	registerBatchType(BatchHistoricDecisionDeletion, func(c *command, _ json.RawMessage, ids []string) error {
		c.cc.Write(persistence.RemoveDecisionHistory(ids)...)
		return nil
	})
	registerBatchType(BatchProcessSetRemovalTime, batchRun(func(c *command, p RemovalTimeParams, id string) error {
		h, err := c.e.historicInstance(c.cc, id)
		if errors.Is(err, persistence.ErrNotFound) {
			return nil // removed meanwhile
		}
		if err != nil {
			return err
		}
		at := p.Time
		if p.Calculated {
			if at, err = c.calculatedRemovalTime(h); err != nil {
				return err
			}
		}
		c.cc.Write(persistence.SetInstanceRemovalTime(h.ID, h.RootProcessInstanceID, p.Hierarchical, at))
		return nil
	}))
}

// calculatedRemovalTime is the removal time the end of h's root instance
// gives (setRemovalTime): nil while it runs, or when its history is kept
// for good.
func (c *command) calculatedRemovalTime(h *persistence.HistoricProcessInstance) (*time.Time, error) {
	root := h
	if h.RootProcessInstanceID != "" && h.RootProcessInstanceID != h.ID {
		var err error
		if root, err = c.e.historicInstance(c.cc, h.RootProcessInstanceID); err != nil {
			return nil, fmt.Errorf("the root of process instance %s: %w", h.ID, err)
		}
	}
	if root.EndTime == nil {
		return nil, nil
	}
	def, err := c.definition(root.ProcessDefinitionID)
	if err != nil {
		return nil, err
	}
	ttl, ok := c.e.timeToLive(def)
	if !ok {
		return nil, nil
	}
	at := root.EndTime.Add(ttl)
	return &at, nil
}

// batchRun is a batch handler that decodes the batch's parameters into P
// and does each item with do.
func batchRun[P any](do func(c *command, p P, item string) error) BatchHandler {
	return func(c *command, params json.RawMessage, items []string) error {
		var p P
		if len(params) > 0 {
			if err := json.Unmarshal(params, &p); err != nil {
				return fmt.Errorf("the batch's parameters: %w", err)
			}
		}
		for _, item := range items {
			if err := do(c, p, item); err != nil {
				return err
			}
		}
		return nil
	}
}
