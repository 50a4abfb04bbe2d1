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

// Lock is the lock an executor holds on a job: its owner, and the job's
// revision when it was locked, which serves as fencing token. A worker
// whose lock was taken over (the revision moved on) commits nothing.
type Lock struct {
	Owner string
	Rev   int
}

func (l *Lock) check(job *persistence.Job) error {
	if l == nil {
		return nil
	}
	if job.LockOwner != l.Owner || job.Rev != l.Rev {
		return fmt.Errorf("job %s is locked by %q at revision %d, not by %q at %d: %w", job.ID, job.LockOwner, job.Rev, l.Owner, l.Rev, ErrLockLost)
	}
	return nil
}

// Execute runs job id in its own transaction. With a lock (nil when run by
// hand), the job must still be held by it. The job's work runs behind a
// savepoint: on failure it is rolled back and the failure recorded in the
// same transaction, and the work's error returned.
func Execute(ctx context.Context, rt *runtime.Engine, jobID string, lock *Lock) error {
	return execute(ctx, rt, jobID, nil, lock)
}

// ExecuteLocked runs a job as it came back from acquisition, without
// reading it again: the lock's revision is checked when the job row is
// deleted at the end, so a job taken over or changed meanwhile (suspended,
// removed with its scope) still commits nothing.
func ExecuteLocked(ctx context.Context, rt *runtime.Engine, job *persistence.Job, lock *Lock) error {
	return execute(ctx, rt, job.ID, job, lock)
}

func execute(ctx context.Context, rt *runtime.Engine, jobID string, acquired *persistence.Job, lock *Lock) error {
	var workErr error
	err := rt.Cmd.Run(ctx, func(cc *tx.Context) error {
		workErr = nil
		if acquired != nil {
			// A copy: a retry after a conflict must not see this attempt's changes.
			j := *acquired
			cc.Cache(&j)
		}
		ent, err := cc.Get(persistence.JobTable, jobID)
		if err != nil {
			return fmt.Errorf("job %q: %w", jobID, err)
		}
		job := ent.(*persistence.Job)
		if err := lock.check(job); err != nil {
			return err
		}
		if err := cc.Savepoint(savepoint); err != nil {
			return err
		}
		start := cc.Now().UTC()
		workErr = runWork(cc, rt, job, &start, true)
		if workErr == nil {
			return nil
		}
		if err := cc.RollbackTo(savepoint); err != nil {
			return err
		}
		return recordFailure(cc, rt, jobID, lock, workErr, &start)
	})
	if err != nil {
		return err
	}
	if workErr != nil {
		rt.Log.Warn("job failed", "job", jobID, "error", workErr)
	} else {
		rt.Log.Debug("job executed", "job", jobID)
	}
	return workErr
}

// RecordExpiredLocks raises the incident of a job whose locks expired
// without a result until no retry was left (a poison job: running it again
// could kill another node), and releases it.
func RecordExpiredLocks(ctx context.Context, rt *runtime.Engine, jobID string, lock *Lock) error {
	return rt.Cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.JobTable, jobID)
		if err != nil {
			return err
		}
		job := ent.(*persistence.Job)
		if err := lock.check(job); err != nil {
			return err
		}
		job.ExceptionMessage = fmt.Sprintf("%s (%d times)", persistence.LockExpiredMessage, job.FailedAttempts)
		rt.LogJob(cc, job, persistence.JobLogFailed, job.ExceptionMessage, nil)
		job.LockOwner, job.LockExpiration = "", nil
		cc.Update(job)
		return rt.CreateIncident(cc, job)
	})
}

// runWork runs the job's handler, deletes the job and commits; the commit's
// flush still runs behind the savepoint, so an optimistic-lock conflict is
// seen here and can be rolled back to it.
func runWork(cc *tx.Context, rt *runtime.Engine, job *persistence.Job, start *time.Time, commit bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &tx.PanicError{Value: r, Stack: stack()}
		}
	}()
	if err := rt.RunJob(cc, job); err != nil {
		return err
	}
	cc.Delete(job)
	rt.LogJob(cc, job, persistence.JobLogSucceeded, "", start)
	if !commit {
		return cc.Release(savepoint)
	}
	// Flush and commit together (one round trip on PostgreSQL). A conflict
	// or any other failure here leaves the transaction open behind the
	// savepoint, so the failure can still be recorded.
	return cc.Commit()
}

// ExecuteGroup runs acquired jobs one after another in a single
// transaction, each behind its own savepoint: a failing job is rolled back
// and its failure recorded, the others commit together. On SQLite, whose
// every commit rewrites the pages it touched in the WAL, this is what makes
// the single writer fast. It stops starting jobs once proceed reports false
// and returns the errors of the jobs it ran (how many: ran); when the
// shared commit itself fails, those jobs run one by one instead. then, when
// not nil, runs last in the shared transaction, after the jobs.
func ExecuteGroup(ctx context.Context, rt *runtime.Engine, jobs []*persistence.Job, lock func(*persistence.Job) *Lock, proceed func() bool, then func(cc *tx.Context)) (errs []error, ran int) {
	errs = make([]error, len(jobs))
	err := rt.Cmd.Run(ctx, func(cc *tx.Context) error {
		ran = 0
		for i, acquired := range jobs {
			if !proceed() {
				break // shutting down: the rest are left for the caller to unlock
			}
			ran = i + 1
			j := *acquired
			cc.Cache(&j)
			if err := lock(&j).check(&j); err != nil {
				errs[i] = err
				continue
			}
			if err := cc.Savepoint(savepoint); err != nil {
				return err
			}
			start := cc.Now().UTC()
			errs[i] = runWork(cc, rt, &j, &start, false)
			if errs[i] == nil {
				continue
			}
			if err := cc.RollbackTo(savepoint); err != nil {
				return err
			}
			if err := recordFailure(cc, rt, j.ID, lock(&j), errs[i], &start); err != nil {
				errs[i] = err
			}
			if err := cc.Release(savepoint); err != nil {
				return err
			}
		}
		if then != nil {
			then(cc)
		}
		return nil
	})
	if err != nil {
		rt.Log.Warn("job group failed to commit; running its jobs one by one", "jobs", ran, "error", err)
		for i, j := range jobs[:ran] {
			errs[i] = ExecuteLocked(ctx, rt, j, lock(j))
		}
	}
	return errs[:ran], ran
}

// recordFailure re-reads the job after the rollback and writes the failure:
// an optimistic-lock conflict only releases the lock (noting the conflict as
// the job's exception message); any other error spends
// a retry, schedules the next attempt from the retry cycle and raises an
// incident when no retry is left.
func recordFailure(cc *tx.Context, rt *runtime.Engine, jobID string, lock *Lock, workErr error, start *time.Time) error {
	ent, err := cc.Get(persistence.JobTable, jobID)
	if err != nil {
		return err
	}
	job := ent.(*persistence.Job)
	if err := lock.check(job); err != nil {
		return err // taken over meanwhile: the new holder owns the record
	}
	// The log entries name the lock owner that ran the job, so the lock is
	// released after logging.
	if errors.Is(workErr, persistence.ErrOptimisticLock) {
		job.ExceptionMessage = truncate(workErr.Error(), 4000)
		rt.LogJob(cc, job, persistence.JobLogFailed, "optimistic lock conflict, retried without spending a retry: "+workErr.Error(), start)
		job.LockOwner, job.LockExpiration = "", nil
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
	rt.LogJob(cc, job, persistence.JobLogFailed, job.ExceptionMessage, start)
	job.LockOwner, job.LockExpiration = "", nil
	cc.Update(job)
	if job.Retries == 0 {
		return rt.CreateIncident(cc, job)
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
