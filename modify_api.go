package bpmnlite

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// ModificationRequest modifies a running process instance, as Camunda's
// ProcessInstanceModificationBuilder: its instructions run in order, in
// one transaction, with the options for all of them.
type ModificationRequest = runtime.ModificationRequest

// ModificationInstruction is one step of a modification: start before or
// after an activity, start a sequence flow, cancel an activity or
// transition instance (ids from ActivityInstances), or cancel every
// instance of an activity.
type ModificationInstruction = runtime.ModificationInstruction

// InstructionType names a modification instruction.
type InstructionType = runtime.InstructionType

// The modification instructions.
const (
	StartBeforeActivity      = runtime.StartBeforeActivity
	StartAfterActivity       = runtime.StartAfterActivity
	StartTransition          = runtime.StartTransition
	CancelActivityInstance   = runtime.CancelActivityInstance
	CancelTransitionInstance = runtime.CancelTransitionInstance
	CancelAllForActivity     = runtime.CancelAllForActivity
)

// ModificationError is a refused modification instruction: its index, its
// type and why. Nothing was changed.
type ModificationError = runtime.ModificationError

// ErrInvalidInstruction is an instruction that does not apply to the
// instance (an unknown activity, an activity instance of another
// instance, an ancestor that is none); it comes in a *ModificationError.
var ErrInvalidInstruction = runtime.ErrInvalidInstruction

// ModifyProcessInstance runs req's instructions on process instance id:
// all of them, or (on any error) none. Starting inside a subprocess
// creates its scope, cancelling the last path of a scope cancels the
// scope, and the instance ends when nothing is left.
func (e *Engine) ModifyProcessInstance(ctx context.Context, id string, req ModificationRequest) error {
	return e.rt.ModifyProcessInstance(ctx, nil, id, req)
}

// ModifyProcessInstanceTx is ModifyProcessInstance inside the caller's transaction.
func (e *Engine) ModifyProcessInstanceTx(ctx context.Context, t pgx.Tx, id string, req ModificationRequest) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error {
		return e.rt.ModifyProcessInstance(ctx, pt, id, req)
	})
}

// ModifyProcessInstances runs req's instructions on each of the process
// instances ids, all in one transaction (Camunda's synchronous
// modification of several instances); each must be an instance of
// process definition definitionID.
func (e *Engine) ModifyProcessInstances(ctx context.Context, definitionID string, ids []string, req ModificationRequest) error {
	return e.rt.ModifyProcessInstances(ctx, nil, definitionID, ids, req)
}
