package bpmnlite

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/runtime"
)

// External tasks: service tasks with camunda:type="external" wait for a
// worker to fetch and lock them, do the work and report back. Delivery is
// at least once: a worker whose lock expired may lose its task to another
// worker, whose completion then wins; the first gets ErrWrongWorker.

type (
	// FetchRequest asks for up to MaxTasks tasks of the topics for a worker.
	FetchRequest = runtime.FetchRequest
	// FetchTopic is one topic of a fetch: its lock duration, the variables
	// to hand over (nil: all; empty: none) and filters.
	FetchTopic = runtime.FetchTopic
	// ExternalTaskFailure is a worker's report of failed work.
	ExternalTaskFailure = runtime.ExternalTaskFailure
)

// ErrWrongWorker: the external task is locked by another worker (or by
// none), or the worker's lock expired where it must hold.
var ErrWrongWorker = runtime.ErrWrongWorker

// LockedExternalTask is a task a worker fetched: the task, the variables
// it asked for and the activity's camunda:properties as headers.
type LockedExternalTask struct {
	ExternalTask
	Variables map[string]any
	// VariableInstances are the same variables as stored, with their
	// Camunda types (an Object as Object, a Short as Short).
	VariableInstances map[string]*VariableInstance
	Headers           map[string]string
}

// FetchAndLock locks up to MaxTasks fetchable tasks of the topics for the
// worker (unlocked or lock expired, retries unset or left, not suspended)
// and returns them. Concurrent fetches never get the same task.
func (e *Engine) FetchAndLock(ctx context.Context, req FetchRequest) ([]*LockedExternalTask, error) {
	return lockedTasksOf(e.rt.FetchAndLock(ctx, nil, req))
}

// lockedTasksOf turns fetched tasks into the public form.
func lockedTasksOf(locked []runtime.LockedTask, err error) ([]*LockedExternalTask, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*LockedExternalTask, len(locked))
	for i, l := range locked {
		t := &LockedExternalTask{ExternalTask: ExternalTask(*l.Task), Variables: l.Variables, Headers: l.Headers,
			VariableInstances: make(map[string]*VariableInstance, len(l.Stored))}
		for name, r := range l.Stored {
			t.VariableInstances[name] = instanceOf(r, l.Variables[name]) // decoded once, by the runtime
		}
		out[i] = t
	}
	return out, nil
}

// AnswerWaitingFetches answers every long-polling fetch at once (with no
// tasks) and makes later fetches answer at once: for a graceful shutdown,
// before an HTTP server waits for its requests. Close does it too.
func (e *Engine) AnswerWaitingFetches() { e.rt.Close() }

// CompleteExternalTask completes the task locked by workerID: vars are set
// as by SetVariables, local ones on the task's execution, and the instance
// continues to its next wait states in the same transaction.
func (e *Engine) CompleteExternalTask(ctx context.Context, id, workerID string, vars, local map[string]any) error {
	return e.rt.CompleteExternalTask(ctx, nil, id, workerID, vars, local)
}

// HandleExternalTaskFailure records a failure of the task locked by
// workerID: message, details, retries left (0 raises an incident of type
// failedExternalTask) and how long the task stays locked before it may be
// fetched again.
func (e *Engine) HandleExternalTaskFailure(ctx context.Context, id, workerID string, f ExternalTaskFailure) error {
	return e.rt.HandleExternalTaskFailure(ctx, nil, id, workerID, f)
}

// HandleExternalTaskBpmnError throws BPMN error code from the task locked
// by workerID, after setting vars: the nearest matching error boundary
// event catches it (across call activities); uncaught, it ends the path
// like a none end event.
func (e *Engine) HandleExternalTaskBpmnError(ctx context.Context, id, workerID, code, message string, vars map[string]any) error {
	return e.rt.HandleExternalTaskBpmnError(ctx, nil, id, workerID, code, message, vars)
}

// ExtendExternalTaskLock sets the lock of the task workerID holds to
// expire d from now.
func (e *Engine) ExtendExternalTaskLock(ctx context.Context, id, workerID string, d time.Duration) error {
	return e.rt.ExtendExternalTaskLock(ctx, nil, id, workerID, d)
}

// LockExternalTask locks one task for workerID for d, unless another
// worker's lock holds.
func (e *Engine) LockExternalTask(ctx context.Context, id, workerID string, d time.Duration) error {
	return e.rt.LockExternalTask(ctx, nil, id, workerID, d)
}

// UnlockExternalTask releases a task's lock: it can be fetched at once.
func (e *Engine) UnlockExternalTask(ctx context.Context, id string) error {
	return e.rt.UnlockExternalTask(ctx, nil, id)
}

// SetExternalTaskRetries sets a task's retries: 0 raises its incident,
// more than 0 resolves it.
func (e *Engine) SetExternalTaskRetries(ctx context.Context, id string, retries int) error {
	return e.rt.SetExternalTaskRetries(ctx, nil, id, retries)
}

// SetExternalTaskRetriesByQuery sets the retries of every task q selects
// and returns how many; each in a transaction of its own, as Camunda's
// asynchronous variant does.
func (e *Engine) SetExternalTaskRetriesByQuery(ctx context.Context, q ExternalTaskQuery, retries int) (int, error) {
	tasks, err := e.ExternalTasks(ctx, q)
	if err != nil {
		return 0, err
	}
	for i, t := range tasks {
		if err := e.SetExternalTaskRetries(ctx, t.ID, retries); err != nil {
			return i, err
		}
	}
	return len(tasks), nil
}

// SetExternalTaskPriority sets a task's priority.
func (e *Engine) SetExternalTaskPriority(ctx context.Context, id string, priority int64) error {
	return e.rt.SetExternalTaskPriority(ctx, nil, id, priority)
}

// Stats are counts of the engine's committed work since it opened
// (instances started and ended, external tasks fetched and completed) and
// the long-polling fetches waiting now: what the metrics package exports.
type Stats = runtime.Stats

// Stats returns the engine's counts.
func (e *Engine) Stats() Stats { return e.rt.Stats() }
