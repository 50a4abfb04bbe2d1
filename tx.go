package bpmnlite

import (
	"context"
	"errors"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Tx is a transaction of the engine's own in which several commands commit
// together, on SQLite and PostgreSQL alike (see InTx). Its methods are the
// engine's commands of the same names. A command that fails is rolled back
// to where it began and returns its error; the commands before it stay in
// the transaction, and fn decides whether to go on. A Tx is used by one
// goroutine, and only while fn runs.
type Tx struct {
	e     *Engine
	outer *tx.Outer
	ended bool
}

// ErrTxEnded: a Tx was used after its InTx returned.
var ErrTxEnded = errors.New("bpmnlite: the transaction has ended")

// InTx runs fn in one transaction: the commands fn runs through tx commit
// together when fn returns nil, and none of them when it returns an error
// or panics. Job executors and long polls are woken, and other nodes
// notified, once it has committed. On SQLite the transaction holds the
// database's one writer while fn runs: keep fn short, and do not call the
// engine's own methods (which open transactions of their own) inside it.
// To join a PostgreSQL transaction of your own, use the ...Tx methods that
// take a pgx.Tx instead.
func (e *Engine) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	outer, err := e.rt.BeginOuter(ctx)
	if err != nil {
		return err
	}
	t := &Tx{e: e, outer: outer}
	committed := false
	defer func() {
		t.ended = true
		if !committed {
			if rerr := outer.Rollback(context.WithoutCancel(ctx)); rerr != nil && err != nil {
				err = errors.Join(err, rerr)
			}
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	committed = true
	return outer.Commit(ctx)
}

// in is the transaction the commands run in: once InTx has returned, one
// that fails every command with ErrTxEnded (a command's first step is its
// savepoint).
func (t *Tx) in() persistence.Tx {
	if t.ended {
		return endedTx{}
	}
	return t.outer
}

type endedTx struct{ persistence.Tx }

func (endedTx) Savepoint(context.Context, string) error { return ErrTxEnded }

// Start is Engine.Start in the transaction.
func (t *Tx) Start(ctx context.Context, req StartRequest) (string, error) {
	return t.e.rt.Start(ctx, t.in(), req)
}

// CompleteTask is Engine.CompleteTask in the transaction.
func (t *Tx) CompleteTask(ctx context.Context, taskID string, vars map[string]any) error {
	return t.e.rt.CompleteTask(ctx, t.in(), taskID, vars)
}

// ClaimTask is Engine.ClaimTask in the transaction.
func (t *Tx) ClaimTask(ctx context.Context, taskID, userID string) error {
	return t.e.rt.ClaimTask(ctx, t.in(), taskID, userID)
}

// SetTaskAssignee is Engine.SetTaskAssignee in the transaction.
func (t *Tx) SetTaskAssignee(ctx context.Context, taskID, userID string) error {
	return t.e.rt.SetTaskAssignee(ctx, t.in(), taskID, userID)
}

// Correlate is Engine.Correlate in the transaction.
func (t *Tx) Correlate(ctx context.Context, req CorrelateRequest) ([]string, error) {
	return t.e.rt.Correlate(ctx, t.in(), req)
}

// Signal is Engine.Signal in the transaction.
func (t *Tx) Signal(ctx context.Context, name string, vars map[string]any) error {
	return t.e.rt.Signal(ctx, t.in(), name, vars)
}

// EvaluateStartConditions is Engine.EvaluateStartConditions in the
// transaction.
func (t *Tx) EvaluateStartConditions(ctx context.Context, req ConditionEvaluation) ([]string, error) {
	return t.e.rt.EvaluateStartConditions(ctx, t.in(), req)
}

// Trigger is Engine.Trigger in the transaction.
func (t *Tx) Trigger(ctx context.Context, executionID string, vars map[string]any) error {
	return t.e.rt.Trigger(ctx, t.in(), executionID, vars)
}

// SetVariables is Engine.SetVariables in the transaction.
func (t *Tx) SetVariables(ctx context.Context, executionID string, vars map[string]any) error {
	return t.e.rt.SetVariables(ctx, t.in(), executionID, vars, false)
}

// SetVariablesLocal is Engine.SetVariablesLocal in the transaction.
func (t *Tx) SetVariablesLocal(ctx context.Context, executionID string, vars map[string]any) error {
	return t.e.rt.SetVariables(ctx, t.in(), executionID, vars, true)
}

// DeleteProcessInstance is Engine.DeleteProcessInstance in the transaction.
func (t *Tx) DeleteProcessInstance(ctx context.Context, id, reason string) error {
	return t.e.rt.DeleteProcessInstance(ctx, t.in(), id, DeleteOptions{Reason: reason})
}

// FetchAndLock is Engine.FetchAndLock in the transaction; it does not long
// poll (AsyncResponseTimeout is ignored): it would hold the transaction.
func (t *Tx) FetchAndLock(ctx context.Context, req FetchRequest) ([]*LockedExternalTask, error) {
	return lockedTasksOf(t.e.rt.FetchAndLock(ctx, t.in(), req))
}

// CompleteExternalTask is Engine.CompleteExternalTask in the transaction.
func (t *Tx) CompleteExternalTask(ctx context.Context, id, workerID string, vars, local map[string]any) error {
	return t.e.rt.CompleteExternalTask(ctx, t.in(), id, workerID, vars, local)
}

// HandleExternalTaskFailure is Engine.HandleExternalTaskFailure in the
// transaction.
func (t *Tx) HandleExternalTaskFailure(ctx context.Context, id, workerID string, f ExternalTaskFailure) error {
	return t.e.rt.HandleExternalTaskFailure(ctx, t.in(), id, workerID, f)
}

// HandleExternalTaskBpmnError is Engine.HandleExternalTaskBpmnError in the
// transaction.
func (t *Tx) HandleExternalTaskBpmnError(ctx context.Context, id, workerID, code, message string, vars map[string]any) error {
	return t.e.rt.HandleExternalTaskBpmnError(ctx, t.in(), id, workerID, code, message, vars)
}

// ExtendExternalTaskLock is Engine.ExtendExternalTaskLock in the
// transaction.
func (t *Tx) ExtendExternalTaskLock(ctx context.Context, id, workerID string, d time.Duration) error {
	return t.e.rt.ExtendExternalTaskLock(ctx, t.in(), id, workerID, d)
}

// LockExternalTask is Engine.LockExternalTask in the transaction.
func (t *Tx) LockExternalTask(ctx context.Context, id, workerID string, d time.Duration) error {
	return t.e.rt.LockExternalTask(ctx, t.in(), id, workerID, d)
}

// UnlockExternalTask is Engine.UnlockExternalTask in the transaction.
func (t *Tx) UnlockExternalTask(ctx context.Context, id string) error {
	return t.e.rt.UnlockExternalTask(ctx, t.in(), id)
}

// SetExternalTaskRetries is Engine.SetExternalTaskRetries in the
// transaction.
func (t *Tx) SetExternalTaskRetries(ctx context.Context, id string, retries int) error {
	return t.e.rt.SetExternalTaskRetries(ctx, t.in(), id, retries)
}

// SetExternalTaskPriority is Engine.SetExternalTaskPriority in the
// transaction.
func (t *Tx) SetExternalTaskPriority(ctx context.Context, id string, priority int64) error {
	return t.e.rt.SetExternalTaskPriority(ctx, t.in(), id, priority)
}
