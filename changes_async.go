package bpmnlite

import (
	"context"
	"fmt"

	"github.com/bpmnlite/bpmnlite/runtime"
)

// The asynchronous forms of migration, modification and restart: batches
// (see batches_api.go) whose execution jobs change one instance per item
// with the same step as the synchronous call. See
// docs/changing-running-processes.md.

// Batch types of the changes to running instances, Camunda's names.
const (
	BatchMigration    = runtime.BatchMigration
	BatchModification = runtime.BatchModification
	BatchRestart      = runtime.BatchRestart
)

// MigrateAsync migrates the instances of req in a batch. The plan is
// validated now: an invalid one is a *MigrationPlanError and creates no
// batch. An instance the plan cannot migrate fails its job (retries, then
// an incident on the batch job) with the *MigratingInstanceError's
// report as the job's exception; the others migrate.
func (e *Engine) MigrateAsync(ctx context.Context, req MigrationRequest) (*Batch, error) {
	return e.rt.MigrateAsync(ctx, req, runtime.BatchOptions{})
}

// ModifyProcessInstancesAsync runs req's instructions on each of the
// process instances ids of process definition definitionID, in a batch.
func (e *Engine) ModifyProcessInstancesAsync(ctx context.Context, definitionID string, ids []string, req ModificationRequest) (*Batch, error) {
	if definitionID == "" {
		return nil, fmt.Errorf("a process definition id is required: %w", ErrInvalidInstruction)
	}
	return e.rt.ModifyProcessInstancesAsync(ctx, definitionID, ids, req, runtime.BatchOptions{})
}

// ModifyProcessInstanceAsync runs req's instructions on process instance
// id in a batch of one item (Camunda's executeAsync of a modification).
func (e *Engine) ModifyProcessInstanceAsync(ctx context.Context, id string, req ModificationRequest) (*Batch, error) {
	return e.rt.ModifyProcessInstancesAsync(ctx, "", []string{id}, req, runtime.BatchOptions{})
}

// RestartProcessInstancesAsync restarts the ended instances of req, of
// process definition definitionID, in a batch.
func (e *Engine) RestartProcessInstancesAsync(ctx context.Context, definitionID string, req RestartRequest) (*Batch, error) {
	return e.rt.RestartProcessInstancesAsync(ctx, definitionID, req, runtime.BatchOptions{})
}
