// Package jobexecutor runs jobs: asynchronous continuations and timers.
// Execute runs one job in its own transaction with a savepoint, recording a
// failure on the job row (retries, message, stack, next due date, incident)
// when the work fails.
package jobexecutor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
	"github.com/bpmnlite/bpmnlite/tx"
)

// ErrLockLost: the job is locked by another owner (its lock expired and was
// taken over); the work is not done and nothing is committed.
var ErrLockLost = errors.New("job lock lost")

const savepoint = "bpmnlite_job"

// Execute runs job id. lockOwner, when not empty, must still hold the job's
// lock (fencing: a worker whose lock was taken over commits nothing). The
// job's work runs behind a savepoint: on failure it is rolled back and the
// failure recorded in the same transaction, and the work's error returned.
func Execute(ctx context.Context, rt *runtime.Engine, jobID, lockOwner string) error {
	var workErr error
	err := rt.Cmd.Run(ctx, func(cc *tx.Context) error {
		workErr = nil
		ent, err := cc.Get(persistence.JobTable, jobID)
		if err != nil {
			return fmt.Errorf("job %q: %w", jobID, err)
		}
		job := ent.(*persistence.Job)
		if lockOwner != "" && job.LockOwner != lockOwner {
			return fmt.Errorf("job %s is locked by %q, not %q: %w", jobID, job.LockOwner, lockOwner, ErrLockLost)
		}
		if err := cc.Savepoint(savepoint); err != nil {
			return err
		}
		workErr = runWork(cc, rt, job)
		if workErr == nil {
			return nil
		}
		if err := cc.RollbackTo(savepoint); err != nil {
			return err
		}
		return recordFailure(cc, rt, jobID, workErr)
	})
	if err != nil {
		return err
	}
	return workErr
}

// runWork runs the job's handler and deletes the job, flushing inside the
// savepoint so that an optimistic-lock conflict is seen here.
func runWork(cc *tx.Context, rt *runtime.Engine, job *persistence.Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &tx.PanicError{Value: r, Stack: stack()}
		}
	}()
	if err := rt.RunJob(cc, job); err != nil {
		return err
	}
	cc.Delete(job)
	return cc.Flush()
}

// recordFailure re-reads the job after the rollback and writes the failure:
// an optimistic-lock conflict only releases the lock; any other error spends
// a retry, schedules the next attempt from the retry cycle and raises an
// incident when no retry is left.
func recordFailure(cc *tx.Context, rt *runtime.Engine, jobID string, workErr error) error {
	ent, err := cc.Get(persistence.JobTable, jobID)
	if err != nil {
		return err
	}
	job := ent.(*persistence.Job)
	job.LockOwner, job.LockExpiration = "", nil
	if errors.Is(workErr, persistence.ErrOptimisticLock) {
		cc.Update(job)
		return nil
	}
	now := cc.Now().UTC()
	if job.Retries > 0 {
		job.Retries--
	}
	job.ExceptionMessage = truncate(workErr.Error(), 4000)
	job.ExceptionStack = fmt.Sprintf("%+v", workErr)
	var pe *tx.PanicError
	if errors.As(workErr, &pe) {
		job.ExceptionStack = pe.Stack
	}
	job.DueDate = nil
	if cycle := rt.RetryCycle(cc, job); cycle != "" {
		if rc, err := timer.ParseRetryCycle(cycle); err == nil {
			due := rc.Delay(now, job.Retries)
			if due.After(now) {
				job.DueDate = &due
			}
		}
	}
	cc.Update(job)
	if job.Retries == 0 {
		id := rt.NewID()
		cc.Insert(&persistence.Incident{
			ID:                  id,
			CauseIncidentID:     id,
			RootCauseIncidentID: id,
			Rev:                 1,
			Type:                persistence.IncidentFailedJob,
			Timestamp:           now,
			Message:             job.ExceptionMessage,
			ExecutionID:         job.ExecutionID,
			ActivityID:          job.ActivityID,
			ProcessInstanceID:   job.ProcessInstanceID,
			ProcessDefinitionID: job.ProcessDefinitionID,
			Configuration:       job.ID,
			JobDefinitionID:     job.JobDefinitionID,
		})
	}
	return nil
}

func stack() string { return string(debug.Stack()) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Due reports whether a job may run at now (ignoring locks).
func Due(j *persistence.Job, now time.Time) bool {
	return j.DueDate == nil || !j.DueDate.After(now)
}
