package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
	"go.opentelemetry.io/otel/trace"
)

// Running a job: each job runs in a transaction behind a savepoint; on
// failure its work is rolled back to the savepoint and the failure recorded
// in the same transaction (jobs_failure.go). The work itself is dispatched
// by the job's handler type (runJob).

// ErrLockLost: the job is locked by another owner (its lock expired and was
// taken over); the work is not done and nothing is committed.
var ErrLockLost = errors.New("job lock lost")

// ErrNotStored: a job's outcome (its success, or its failure record) could
// not be committed, e.g. in a database outage. The job is still locked by
// its runner, which should release it (UnlockJobs) once the database is
// back: its run was not its fault, so it costs no retry.
var ErrNotStored = errors.New("job outcome not stored")

// NotStoredError is an ErrNotStored with its cause.
type NotStoredError struct {
	JobID string
	Err   error
}

func (e *NotStoredError) Error() string {
	return fmt.Sprintf("job %s: its outcome could not be stored: %v", e.JobID, e.Err)
}

func (e *NotStoredError) Unwrap() []error { return []error{ErrNotStored, e.Err} }

const jobSavepoint = "bpmnlite_job"

// JobLock is the lock an executor holds on a job: its owner, and the job's
// revision when it was locked, which serves as fencing token. A worker
// whose lock was taken over (the revision moved on) commits nothing.
type JobLock struct {
	Owner string
	Rev   int
}

func (l *JobLock) check(job *persistence.Job) error {
	if l == nil {
		return nil
	}
	if job.LockOwner != l.Owner || job.Rev != l.Rev {
		return fmt.Errorf("job %s is locked by %q at revision %d, not by %q at %d: %w", job.ID, job.LockOwner, job.Rev, l.Owner, l.Rev, ErrLockLost)
	}
	return nil
}

// AcquiredJob is a job as an acquisition locked it, with the lock its
// acquirer now holds.
type AcquiredJob struct {
	*persistence.Job
	Lock JobLock
	// Span, when set, receives the context of the job run's span (for
	// exemplars); it stays invalid without a TracerProvider.
	Span *trace.SpanContext
}

// ExecuteJob runs job id in its own transaction. With a lock (nil when run
// by hand), the job must still be held by it. The job's error is returned
// after its failure was recorded.
func (e *Core) ExecuteJob(ctx context.Context, jobID string, lock *JobLock) error {
	_, err := e.execute(ctx, jobID, nil, lock, nil, nil)
	return err
}

// RunAcquired runs a job as it came back from acquisition, without reading
// it again: the lock's revision is checked when the job row is deleted at
// the end, so a job taken over or changed meanwhile (suspended, removed
// with its scope) still commits nothing. A job taken over from an expired
// lock with its last retry spent is not run (it would kill its next node
// too): its incident is raised instead.
func (e *Core) RunAcquired(ctx context.Context, j AcquiredJob) error {
	_, err := e.RunAcquiredContinuing(ctx, j, nil)
	return err
}

// RunAcquiredContinuing runs j as RunAcquired and, with claim, locks in the
// job's own transaction one job it created that claim's executor takes now:
// its continuation, returned once committed, runs without an acquisition of
// its own (on PostgreSQL a chain of asynchronous steps otherwise costs an
// acquisition statement per step).
func (e *Core) RunAcquiredContinuing(ctx context.Context, j AcquiredJob, claim *Claim) (*AcquiredJob, error) {
	if j.Retries <= 0 {
		if err := e.recordExpiredLocks(ctx, j); err != nil {
			return nil, fmt.Errorf("record the incident of job %s, whose locks expired: %w", j.ID, err)
		}
		return nil, fmt.Errorf("job %s: %s", j.ID, persistence.LockExpiredMessage)
	}
	return e.execute(ctx, j.ID, j.Job, &j.Lock, claim, j.Span)
}

func (e *Core) execute(ctx context.Context, jobID string, acquired *persistence.Job, lock *JobLock, claim *Claim, span *trace.SpanContext) (_ *AcquiredJob, runErr error) {
	ctx, end := e.startSpan(ctx, "bpmnlite.job")
	defer func() { end(runErr) }()
	if span != nil {
		*span = trace.SpanContextFromContext(ctx)
	}
	var workErr error
	var claimed *AcquiredJob
	var run jobRun // the job as last read, for its span
	// Deferred: on SQLite the job's delegates run without the write lock,
	// beside other jobs, and its flush checks every row it read (see
	// persistence.DeferredWriter).
	err := e.cmd.RunDeferred(ctx, func(cc *tx.Context) error {
		workErr, claimed = nil, nil
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
		run = runOf(job)
		if err := lock.check(job); err != nil {
			return err
		}
		claimed, workErr, err = e.runBehindSavepoint(cc, job, lock, true, claim)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrLockLost) || errors.Is(err, persistence.ErrNotFound) {
			return nil, err // nothing of ours to store: the job is another's, or gone
		}
		return nil, &NotStoredError{JobID: jobID, Err: err}
	}
	e.logOutcome(jobID, workErr)
	if e.tracing() {
		annotate(ctx, run.attributes(workErr)...)
	}
	return claimed, workErr
}

// logOutcome logs a success or a conflict (which costs no retry and
// resolves by itself) at debug level; failures are logged at WARN when
// their record commits (recordFailure).
func (e *Core) logOutcome(jobID string, workErr error) {
	switch {
	case workErr == nil:
		e.log.Debug("job executed", "job", jobID)
	case persistence.IsConflict(workErr):
		e.log.Debug("job conflicted; it runs again without spending a retry", "job", jobID, "error", workErr)
	}
}

// runBehindSavepoint runs job behind the job savepoint of cc's transaction,
// for a job alone (commit: a success commits) and a group's job (the
// savepoint is released). On failure the work is rolled back to the
// savepoint and the failure recorded in its place. It returns the job's own
// error (workErr) and an error of the bookkeeping (err: the savepoint, or
// the failure record, e.g. when the lock was lost), after which nothing of
// the job may be committed.
func (e *Core) runBehindSavepoint(cc *tx.Context, job *persistence.Job, lock *JobLock, commit bool, claim *Claim) (claimed *AcquiredJob, workErr, err error) {
	if err := cc.Savepoint(jobSavepoint); err != nil {
		return nil, nil, err
	}
	start := cc.Now().UTC()
	failedAt, claimed, workErr := e.runWork(cc, job, &start, commit, claim)
	if workErr == nil {
		return claimed, nil, nil
	}
	workErr = e.quoting(workErr)
	if err := cc.RollbackTo(jobSavepoint); err != nil {
		return nil, workErr, err
	}
	if err := e.recordFailure(cc, job.ID, lock, workErr, failedAt, &start); err != nil {
		return nil, workErr, err
	}
	if !commit {
		if err := cc.Release(jobSavepoint); err != nil {
			return nil, workErr, err
		}
	}
	return nil, workErr, nil
}

// runWork runs the job's handler, deletes the job and, with commit, commits;
// the commit's flush still runs behind the savepoint, so an optimistic-lock
// conflict is seen here and can be rolled back to it. Without commit it
// releases the savepoint instead (a group's job). On failure it also
// returns the activity the job's command was in.
func (e *Core) runWork(cc *tx.Context, job *persistence.Job, start *time.Time, commit bool, claim *Claim) (failedAt string, claimed *AcquiredJob, err error) {
	c := e.newCommand(cc)
	c.running = job
	c.current = stripBody(job.ActivityID)
	defer func() {
		if r := recover(); r != nil {
			err = &tx.PanicError{Value: r, Stack: stack()}
		}
		if err != nil {
			failedAt = c.current
		}
	}()
	began := time.Now()
	err = c.runJob(job)
	if errors.Is(err, errListenerThrew) {
		err = nil
	}
	if err == nil {
		err = c.run()
	}
	if e.pace.timed.Load() {
		// For the executor's choice of how to run such jobs (MayRunLong):
		// the work, not the wait for the writer at the commit.
		e.pace.record(job, time.Since(began))
	}
	if err != nil {
		return "", nil, err
	}
	if job.ExceptionMessage != "" || job.Retries == 0 {
		// A job that failed before may have an incident, resolved now.
		if err := e.endJobIncidents(cc, job, persistence.IncidentResolved); err != nil {
			return "", nil, err
		}
	}
	if claim != nil {
		claimed = c.claimContinuation(job, claim)
	}
	if c.rescheduled {
		// A job that schedules itself again (the history cleanup).
		job.LockOwner, job.LockExpiration, job.ExceptionMessage, job.ExceptionStack = "", nil, "", ""
		job.Retries, job.FailedAttempts, job.Failures, job.FailedActivityID = e.Config.Jobs.DefaultRetries, 0, 0, ""
		cc.Update(job)
	} else {
		cc.Delete(job)
	}
	e.logJob(cc, job, persistence.JobLogSucceeded, "", start)
	c.jobSucceeded = true
	if !commit {
		return "", nil, cc.Release(jobSavepoint)
	}
	// Flush and commit together (one round trip on PostgreSQL). A conflict
	// or any other failure here leaves the transaction open behind the
	// savepoint, so the failure can still be recorded; what was claimed is
	// rolled back with the work.
	if err := cc.Commit(); err != nil {
		return "", nil, err
	}
	return "", claimed, nil
}

// RunGroup runs acquired jobs one after another in a single transaction,
// each behind its own savepoint: a failing job is rolled back and its
// failure recorded, the others commit together. On a single writer, whose
// every commit rewrites the pages it touched, this is what makes job
// execution fast. It stops starting jobs once proceed reports false, and
// returns the errors of the jobs it ran (how many: ran). When the shared
// commit itself fails, those jobs run one by one instead.
//
// When next gives acquisition parameters, the group then acquires more
// jobs in its own transaction: their locks share the group's commit, and
// the jobs the group just created are taken without a wake-up and a
// transaction of their own. They are returned once committed.
func (e *Core) RunGroup(ctx context.Context, jobs []AcquiredJob, proceed func() bool, next func() (persistence.AcquireParams, bool)) (errs []error, ran int, acquired []AcquiredJob) {
	errs = make([]error, len(jobs))
	err := e.cmd.Run(ctx, func(cc *tx.Context) error {
		ran, acquired = 0, nil
		for i, a := range jobs {
			if !proceed() {
				break // shutting down: the rest are left for the caller to unlock
			}
			ran = i + 1
			j := *a.Job
			cc.Cache(&j)
			if err := a.Lock.check(&j); err != nil {
				errs[i] = err
				continue
			}
			// Each job of the group has a span of its own, its delegates'
			// parent: the transaction's context carries it while it runs.
			end := e.groupJobSpan(cc, &j, a.Span)
			var err error
			_, errs[i], err = e.runBehindSavepoint(cc, &j, &a.Lock, false, nil)
			end(errs[i], err)
			if err != nil {
				if errs[i] == nil {
					return err // the savepoint itself failed
				}
				// Its failure could not be recorded (its lock was lost):
				// nothing of this job stays in the group's transaction.
				if rerr := errors.Join(cc.RollbackTo(jobSavepoint), cc.Release(jobSavepoint)); rerr != nil {
					return rerr
				}
				errs[i] = err
				continue
			}
			if errs[i] != nil {
				e.logOutcome(j.ID, errs[i])
			}
		}
		if next != nil {
			if p, ok := next(); ok {
				e.acquireInGroup(cc, p, func(got []AcquiredJob) { acquired = got })
			}
		}
		return nil
	})
	if err != nil {
		e.log.Warn("job group failed to commit; running its jobs one by one", "jobs", ran, "error", err)
		acquired = nil
		for i, j := range jobs[:ran] {
			errs[i] = e.RunAcquired(ctx, j)
		}
	}
	return errs[:ran], ran, acquired
}

// groupJobSpan starts the span of a group's job j under the group
// transaction's context and makes it that context while the job runs; end
// records its outcome and gives the transaction its context back.
func (e *Core) groupJobSpan(cc *tx.Context, j *persistence.Job, span *trace.SpanContext) (end func(workErr, err error)) {
	if !e.tracing() {
		return func(error, error) {}
	}
	outer := cc.Context
	jobCtx, endSpan := e.startSpan(outer, "bpmnlite.job")
	if span != nil {
		*span = trace.SpanContextFromContext(jobCtx)
	}
	cc.Context = jobCtx
	run := runOf(j)
	return func(workErr, err error) {
		cc.Context = outer
		annotate(jobCtx, run.attributes(workErr)...)
		endSpan(errors.Join(workErr, err))
	}
}

const acquireSavepoint = "bpmnlite_acquire"

// acquireInGroup acquires jobs in a group's transaction behind a savepoint:
// a failed acquisition is rolled back and only logged, the group's jobs
// still commit. got receives the jobs after the commit.
func (e *Core) acquireInGroup(cc *tx.Context, p persistence.AcquireParams, got func([]AcquiredJob)) {
	if err := cc.Savepoint(acquireSavepoint); err != nil {
		e.log.Debug("acquisition failed", "error", err)
		return
	}
	jobs, err := cc.AcquireJobs(e.acquireParams(p))
	if err != nil {
		e.log.Debug("acquisition failed", "error", err)
		_ = cc.RollbackTo(acquireSavepoint)
		return
	}
	e.log.Debug("jobs acquired in a group's transaction", "count", len(jobs))
	e.countAcquisition(len(jobs))
	locked := withLocks(jobs, p.LockOwner)
	cc.AfterCommit(func() { got(locked) })
}

// jobHandler runs the jobs of one handler type. The file that owns an
// element declares its handler types and registers their handlers
// (registerJobHandler, from an init): flow.go the asynchronous
// continuations, events_boundary.go boundary timers, events_timers.go the
// other timers, history_cleanup.go the history cleanup. A new job type is
// one constant and one registration in its element's file.
type jobHandler struct {
	// kind is the job definition kind of its jobs (kindAsyncBefore,
	// kindAsyncAfter; default kindTimer).
	kind string
	// run does the job's work in c. x and a are the job's execution and
	// activity, loaded before it, unless the handler is detached.
	run func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error
	// detached: the job has no execution (a timer start event, the history
	// cleanup); run gets nil for x and a.
	detached bool
	// firstFailure, when set, runs in the failure's transaction when the
	// job fails for the first time (a cycle timer schedules its next run
	// there); x is nil when the job's instance is gone.
	firstFailure func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error
}

var jobHandlers = map[string]jobHandler{}

// registerJobHandler makes h run the jobs of handler type typ.
func registerJobHandler(typ string, h jobHandler) {
	if _, dup := jobHandlers[typ]; dup {
		panic("runtime: job handler " + typ + " registered twice")
	}
	if h.kind == "" {
		h.kind = kindTimer
	}
	jobHandlers[typ] = h
}

// runJob runs a job by its handler type: the continuation of an
// asynchronous break, a timer firing, the history cleanup. The caller owns
// locking, the savepoint, deleting the job and failure bookkeeping.
func (c *command) runJob(j *persistence.Job) error {
	h, ok := jobHandlers[j.HandlerType]
	if !ok {
		return fmt.Errorf("job %s: unknown handler %q", j.ID, j.HandlerType)
	}
	if h.detached {
		return h.run(c, j, nil, nil)
	}
	if j.ProcessInstanceID != "" {
		// The whole execution tree in one query, the job's execution with
		// it: no separate read of the execution first.
		if _, err := c.loadInstance(j.ProcessInstanceID); err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return fmt.Errorf("job %s: %w", j.ID, err)
		}
	}
	x, err := c.execution(j.ExecutionID)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	if x.inst.root.Suspension == persistence.Suspended {
		return fmt.Errorf("job %s: process instance %s: %w", j.ID, x.ProcessInstanceID, ErrSuspended)
	}
	a := x.inst.def.Process.Activity(stripBody(j.ActivityID))
	if a == nil {
		return fmt.Errorf("job %s: activity %q not found", j.ID, j.ActivityID)
	}
	return h.run(c, j, x, a)
}
