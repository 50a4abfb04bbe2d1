package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// External tasks: a service task with camunda:type="external" waits until a
// worker fetches and locks it, does the work and reports back (Camunda's
// ExternalTaskService). Delivery is at least once: a worker whose lock
// expires may lose its task to another worker, and then cannot complete it.

// ErrWrongWorker: the external task is not locked by the worker reporting on it.
var ErrWrongWorker = errors.New("locked by another worker")

// workerError carries Camunda's wording of a wrong-worker report (clients
// show it as is) and is ErrWrongWorker.
type workerError struct{ msg string }

func (e *workerError) Error() string        { return e.msg }
func (e *workerError) Is(target error) bool { return target == ErrWrongWorker }

func wrongWorker(format string, args ...any) error {
	return &workerError{fmt.Sprintf(format, args...)}
}

// FetchRequest asks for external tasks to work on (fetch and lock).
type FetchRequest struct {
	WorkerID    string
	MaxTasks    int
	UsePriority bool // tasks come highest priority first, then oldest, with or without it (Camunda leaves the order open without)
	Topics      []FetchTopic
	// AsyncResponseTimeout makes a fetch that finds nothing wait up to
	// this long for a task (long polling); 0 answers at once. Ignored in a
	// caller's transaction.
	AsyncResponseTimeout time.Duration
}

// FetchTopic is one topic a worker serves.
type FetchTopic struct {
	Topic        string
	LockDuration time.Duration
	// Variables names the variables handed over with each task: nil for
	// all visible from the task's execution, empty for none.
	Variables []string
	// LocalVariables hands over only the execution's local variables.
	LocalVariables        bool
	BusinessKey           string
	ProcessDefinitionIDs  []string
	ProcessDefinitionKeys []string
}

// LockedTask is a fetched external task with its variables and headers
// (the activity's camunda:properties).
type LockedTask struct {
	Task      *persistence.ExternalTask
	Variables map[string]any
	// Stored are the variables handed over as stored, with their declared
	// types (Variables holds their values).
	Stored  map[string]*persistence.Variable
	Headers map[string]string
}

// FetchAndLock locks up to MaxTasks fetchable tasks of the topics for the
// worker, in one transaction, and returns them with their variables.
func (e *Core) FetchAndLock(ctx context.Context, t persistence.Tx, req FetchRequest) ([]LockedTask, error) {
	if req.AsyncResponseTimeout <= 0 || t != nil {
		return e.fetchAndLock(ctx, t, req)
	}
	deadline := time.Now().Add(req.AsyncResponseTimeout)
	topics := make([]string, len(req.Topics))
	for i, tp := range req.Topics {
		topics[i] = tp.Topic
	}
	e.listenExternalTasks()
	waiting := false
	defer func() {
		if waiting {
			e.extWake.leave()
		}
	}()
	for {
		wake := e.extWake.signal() // before looking: no wake-up is missed
		got, err := e.fetchAndLock(ctx, nil, req)
		if err != nil || len(got) > 0 {
			return got, err
		}
		if !waiting {
			if waiting = e.extWake.enter(e.Config.Limits.MaxWaitingFetches); !waiting {
				return got, nil
			}
		}
		again, err := e.longPoll(ctx, wake, topics, deadline)
		if err != nil || !again {
			return nil, err
		}
	}
}

func (e *Core) fetchAndLock(ctx context.Context, t persistence.Tx, req FetchRequest) ([]LockedTask, error) {
	var out []LockedTask
	err := e.command(ctx, t, "fetch_and_lock", func(c *command) error {
		now := c.cc.Now().UTC()
		f := persistence.ExternalTaskFetch{Now: now, WorkerID: req.WorkerID, MaxTasks: req.MaxTasks, UsePriority: req.UsePriority}
		byTopic := make(map[string]FetchTopic, len(req.Topics))
		for _, tp := range req.Topics {
			f.Topics = append(f.Topics, persistence.TopicFetch{
				Topic: tp.Topic, LockUntil: now.Add(tp.LockDuration), BusinessKey: tp.BusinessKey,
				ProcessDefinitionIDs: tp.ProcessDefinitionIDs, ProcessDefinitionKeys: tp.ProcessDefinitionKeys,
			})
			if _, ok := byTopic[tp.Topic]; !ok {
				byTopic[tp.Topic] = tp
			}
		}
		tasks, err := c.cc.LockExternalTasks(f)
		if err != nil {
			return err
		}
		if n := int64(len(tasks)); n > 0 {
			c.cc.AfterCommit(func() { c.e.counts.fetched.Add(n) })
		}
		out = out[:0]
		for _, task := range tasks {
			lt, err := c.lockedTask(task, byTopic[task.Topic])
			if err != nil {
				return err
			}
			out = append(out, lt)
		}
		return nil
	})
	return out, err
}

// lockedTask reads what a worker gets with task.
func (c *command) lockedTask(task *persistence.ExternalTask, tp FetchTopic) (LockedTask, error) {
	x, err := c.execution(task.ExecutionID)
	if err != nil {
		return LockedTask{}, fmt.Errorf("external task %s: %w", task.ID, err)
	}
	lt := LockedTask{Task: task, Variables: map[string]any{}, Headers: map[string]string{}}
	if task.TraceParent != "" {
		// Beside the activity's own properties, which win on a clash.
		lt.Headers[traceParentHeader] = task.TraceParent
	}
	if a := x.inst.def.Process.Activity(task.ActivityID); a != nil {
		for _, p := range a.Properties {
			lt.Headers[p.Name] = p.Value
		}
	}
	visible, err := x.storedVariables(tp.LocalVariables)
	if err != nil {
		return LockedTask{}, fmt.Errorf("external task %s: %w", task.ID, err)
	}
	if tp.Variables != nil {
		lt.Stored = map[string]*persistence.Variable{}
		for _, name := range tp.Variables {
			if r, ok := visible[name]; ok {
				lt.Stored[name] = r
			}
		}
	} else {
		lt.Stored = visible
	}
	for name, r := range lt.Stored {
		if lt.Variables[name], err = decodeVariable(r); err != nil {
			return LockedTask{}, fmt.Errorf("external task %s: %w", task.ID, err)
		}
	}
	return lt, nil
}

// externalTask loads task id for worker's report: it must exist, be active
// and be locked by worker. what names the report in the error, as Camunda
// words it.
func (c *command) externalTask(id, workerID, what string) (*persistence.ExternalTask, error) {
	ent, err := c.cc.Get(persistence.ExternalTaskTable, id)
	if err != nil {
		return nil, fmt.Errorf("external task %q: %w", id, err)
	}
	task := ent.(*persistence.ExternalTask)
	if task.Suspension == persistence.Suspended {
		return nil, fmt.Errorf("ExternalTask with id '%s' is suspended: %w", id, ErrSuspended)
	}
	if workerID == "" {
		return nil, errors.New("workerId is empty")
	}
	if task.WorkerID != workerID {
		return nil, wrongWorker(what+" by worker '%s'. It is locked by worker '%s'.", id, workerID, task.WorkerID)
	}
	return task, nil
}

// CompleteExternalTask completes task id for worker: vars are set as by
// SetVariables, local ones on the task's execution, and the instance
// continues to its next wait states in the same transaction.
func (e *Core) CompleteExternalTask(ctx context.Context, t persistence.Tx, id, workerID string, vars, local map[string]any) error {
	return e.command(ctx, t, "complete_external_task", func(c *command) error {
		x, task, err := c.finishExternalTask(id, workerID, "External Task %s cannot be completed", vars)
		if err != nil {
			return err
		}
		if err := x.setVariables(local, true); err != nil {
			return err
		}
		// An error event definition whose expression holds turns the
		// completion into its error; its expression failing fails the
		// completion, as in Camunda.
		if ee, err := c.externalError(x, task, false); err != nil || ee != nil {
			if err != nil {
				return err
			}
			return c.throwFromExternalTask(x, task, ee.ErrorCode, task.ErrorMessage)
		}
		c.logExternalTask(task, persistence.ExternalTaskLogSucceeded)
		c.cc.AfterCommit(func() { c.e.counts.completed.Add(1) })
		x.IsActive = true
		return c.leave(x, x.activity())
	})
}

// finishExternalTask ends task id on worker's report (what words a wrong
// worker's error): the task and its incident go, vars are set as by
// SetVariables, and the execution waiting for the task is returned.
func (c *command) finishExternalTask(id, workerID, what string, vars map[string]any) (*execution, *persistence.ExternalTask, error) {
	task, err := c.externalTask(id, workerID, what)
	if err != nil {
		return nil, nil, err
	}
	x, err := c.execution(task.ExecutionID)
	if err != nil {
		return nil, nil, fmt.Errorf("external task %s: %w", task.ID, err)
	}
	if x.activity() == nil || x.ActivityID != task.ActivityID {
		return nil, nil, fmt.Errorf("external task %s: its execution is not at %s", task.ID, task.ActivityID)
	}
	if err := c.dropExternalTask(task); err != nil {
		return nil, nil, err
	}
	return x, task, x.setVariables(vars, false)
}

// dropExternalTask deletes task and resolves its incident: it is done.
func (c *command) dropExternalTask(task *persistence.ExternalTask) error {
	c.cc.Delete(task)
	return c.e.endIncidents(c.cc, persistence.IncidentsOfExternalTask(task.ID), persistence.IncidentResolved)
}

// ExternalTaskFailure is a worker's report that its work failed.
type ExternalTaskFailure struct {
	ErrorMessage string
	ErrorDetails string
	// Retries left; 0 raises an incident.
	Retries int
	// RetryTimeout keeps the task locked this long before it can be
	// fetched again.
	RetryTimeout time.Duration
	// Variables are set as by SetVariables from the task's execution,
	// LocalVariables on that execution, as Camunda's handleFailure does.
	Variables, LocalVariables map[string]any
}

// HandleExternalTaskFailure records worker's failure of task id: message,
// details, retries left, and the time before the next fetch. At 0 retries
// the task gets an incident of type failedExternalTask.
func (e *Core) HandleExternalTaskFailure(ctx context.Context, t persistence.Tx, id, workerID string, f ExternalTaskFailure) error {
	if f.Retries < 0 || f.RetryTimeout < 0 {
		return fmt.Errorf("external task %q: retries and retry timeout must not be negative", id)
	}
	return e.command(ctx, t, "handle_external_task_failure", func(c *command) error {
		task, err := c.externalTask(id, workerID, "Failure of External Task %s cannot be reported")
		if err != nil {
			return err
		}
		var x *execution
		if len(f.Variables) > 0 || len(f.LocalVariables) > 0 || c.hasExternalErrors(task) {
			if x, err = c.execution(task.ExecutionID); err != nil {
				return err
			}
			if err := x.setVariables(f.Variables, false); err != nil {
				return err
			}
			if err := x.setVariables(f.LocalVariables, true); err != nil {
				return err
			}
		}
		task.ErrorMessage = truncate(f.ErrorMessage, 4000)
		task.ErrorDetails = f.ErrorDetails
		if x != nil && x.activity() != nil {
			// A failure an error event definition matches throws its
			// error instead; a failing expression is logged and skipped.
			if ee, _ := c.externalError(x, task, true); ee != nil {
				if err := c.dropExternalTask(task); err != nil {
					return err
				}
				return c.throwFromExternalTask(x, task, ee.ErrorCode, task.ErrorMessage)
			}
		}
		until := c.cc.Now().UTC().Add(f.RetryTimeout)
		task.LockExpiration = &until
		c.cc.Update(task)
		// Fetchable again at once, or at the retry timeout: waiting
		// fetches look again and time their wait by it.
		c.externalTasksReady()
		if err := c.setExternalTaskRetries(task, f.Retries); err != nil {
			return err
		}
		c.logExternalTask(task, persistence.ExternalTaskLogFailed)
		return nil
	})
}

// setExternalTaskRetries sets task's retries and keeps its incident in step:
// one at 0 retries, none with retries left.
func (c *command) setExternalTaskRetries(task *persistence.ExternalTask, retries int) error {
	if retries < 0 {
		return fmt.Errorf("external task %q: retries must not be negative", task.ID)
	}
	hadRetries := task.Retries == nil || *task.Retries > 0
	task.Retries = &retries
	c.cc.Update(task)
	switch {
	case hadRetries && retries == 0:
		existing, err := tx.Select(c.cc, persistence.IncidentsOfExternalTask(task.ID))
		if err != nil || len(existing) > 0 {
			return err
		}
		return c.e.raiseIncident(c.cc, &persistence.Incident{
			Type: persistence.IncidentFailedExternalTask, Message: task.ErrorMessage, ExecutionID: task.ExecutionID,
			ActivityID: task.ActivityID, ProcessInstanceID: task.ProcessInstanceID,
			ProcessDefinitionID: task.ProcessDefinitionID, Configuration: task.ID, FailedActivityID: task.ActivityID,
		})
	case !hadRetries && retries > 0:
		c.externalTasksReady()
		return c.e.endIncidents(c.cc, persistence.IncidentsOfExternalTask(task.ID), persistence.IncidentResolved)
	}
	return nil
}

// HandleExternalTaskBpmnError reports a business error for task id: vars
// are set as by SetVariables, then the error code is thrown from the task's
// activity and caught by the nearest matching error boundary event (across
// call activities). Uncaught, it ends the path like a none end event, as
// an uncaught error from a delegate does.
func (e *Core) HandleExternalTaskBpmnError(ctx context.Context, t persistence.Tx, id, workerID, code, message string, vars map[string]any) error {
	if code == "" {
		return fmt.Errorf("external task %q: an error code is required", id)
	}
	return e.command(ctx, t, "handle_external_task_bpmn_error", func(c *command) error {
		x, task, err := c.finishExternalTask(id, workerID, "Bpmn error of External Task %s cannot be reported", vars)
		if err != nil {
			return err
		}
		return c.throwFromExternalTask(x, task, code, message)
	})
}

// throwFromExternalTask throws error code (with message) from the
// activity of x, which task waited on (already deleted).
func (c *command) throwFromExternalTask(x *execution, task *persistence.ExternalTask, code, message string) error {
	// The error leaves the activity: Camunda logs the task deleted.
	c.logExternalTask(task, persistence.ExternalTaskLogDeleted)
	source := fmt.Sprintf("external task '%s'", task.ActivityID)
	if message != "" {
		source += " (" + message + ")"
	}
	return c.throwError(x, code, message, source)
}

// ExtendExternalTaskLock gives worker's lock on task id a new expiration,
// d from now; the lock must not have expired.
func (e *Core) ExtendExternalTaskLock(ctx context.Context, t persistence.Tx, id, workerID string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("external task %q: the new lock duration must be positive", id)
	}
	return e.command(ctx, t, "extend_external_task_lock", func(c *command) error {
		task, err := c.externalTask(id, workerID, "The lock of the External Task %s cannot be extended")
		if err != nil {
			return err
		}
		now := c.cc.Now().UTC()
		if task.LockExpiration == nil || task.LockExpiration.Before(now) {
			return wrongWorker("The lock of the External Task %s cannot be extended by worker '%s'. The lock expired.", id, workerID)
		}
		until := now.Add(d)
		task.LockExpiration = &until
		c.cc.Update(task)
		return nil
	})
}

// LockExternalTask locks task id for worker for d, unless another worker's
// lock on it holds.
func (e *Core) LockExternalTask(ctx context.Context, t persistence.Tx, id, workerID string, d time.Duration) error {
	if d <= 0 || workerID == "" {
		return fmt.Errorf("external task %q: a worker id and a positive lock duration are required", id)
	}
	return e.command(ctx, t, "lock_external_task", func(c *command) error {
		ent, err := c.cc.Get(persistence.ExternalTaskTable, id)
		if err != nil {
			return fmt.Errorf("external task %q: %w", id, err)
		}
		task := ent.(*persistence.ExternalTask)
		if task.Suspension == persistence.Suspended {
			return fmt.Errorf("ExternalTask with id '%s' is suspended: %w", id, ErrSuspended)
		}
		now := c.cc.Now().UTC()
		if task.WorkerID != "" && task.WorkerID != workerID && task.LockExpiration != nil && task.LockExpiration.After(now) {
			return wrongWorker("External Task %s cannot be locked by worker '%s'. It is locked by worker '%s'.", id, workerID, task.WorkerID)
		}
		until := now.Add(d)
		task.WorkerID, task.LockExpiration = workerID, &until
		c.cc.Update(task)
		return nil
	})
}

// UnlockExternalTask releases task id's lock: it can be fetched at once.
func (e *Core) UnlockExternalTask(ctx context.Context, t persistence.Tx, id string) error {
	return e.updateExternalTask(ctx, t, id, func(c *command, task *persistence.ExternalTask) error {
		task.WorkerID, task.LockExpiration = "", nil
		c.externalTasksReady()
		return nil
	})
}

// SetExternalTaskRetries sets task id's retries: 0 raises its incident,
// more than 0 resolves it.
func (e *Core) SetExternalTaskRetries(ctx context.Context, t persistence.Tx, id string, retries int) error {
	return e.updateExternalTask(ctx, t, id, func(c *command, task *persistence.ExternalTask) error {
		return c.setExternalTaskRetries(task, retries)
	})
}

// SetExternalTaskPriority sets task id's priority.
func (e *Core) SetExternalTaskPriority(ctx context.Context, t persistence.Tx, id string, priority int64) error {
	return e.updateExternalTask(ctx, t, id, func(c *command, task *persistence.ExternalTask) error {
		task.Priority = priority
		return nil
	})
}

// updateExternalTask changes task id in a command of its own.
func (e *Core) updateExternalTask(ctx context.Context, t persistence.Tx, id string, change func(*command, *persistence.ExternalTask) error) error {
	return e.command(ctx, t, "update_external_task", func(c *command) error {
		ent, err := c.cc.Get(persistence.ExternalTaskTable, id)
		if err != nil {
			return fmt.Errorf("external task %q: %w", id, err)
		}
		task := ent.(*persistence.ExternalTask)
		if err := change(c, task); err != nil {
			return err
		}
		c.cc.Update(task)
		return nil
	})
}
