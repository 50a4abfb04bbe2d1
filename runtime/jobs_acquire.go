package runtime

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// What a job executor asks of an engine besides running jobs: the
// database's capabilities, acquisition, locks, wake-ups.

// Capabilities tells what the engine's database does differently (one
// writer, notifications, lock heartbeats).
func (e *Core) Capabilities() persistence.Capabilities { return e.db.Capabilities() }

// AcquireJobs locks jobs in a transaction of its own and returns them with
// their locks (see persistence.AcquireJobs). Each job's "locked" entry goes
// to the job log when history is on.
func (e *Core) AcquireJobs(ctx context.Context, p persistence.AcquireParams) ([]AcquiredJob, error) {
	jobs, err := e.cmd.AcquireJobs(ctx, e.acquireParams(p))
	if err != nil {
		return nil, err
	}
	e.countAcquisition(len(jobs))
	return withLocks(jobs, p.LockOwner), nil
}

// countAcquisition meters an acquisition that locked n jobs.
func (e *Core) countAcquisition(n int) {
	e.meters.add(MeterJobAcquisitionAttempt, 1)
	e.meters.add(MeterJobAcquiredSuccess, int64(n))
}

func (e *Core) acquireParams(p persistence.AcquireParams) persistence.AcquireParams {
	p.LogLocked = e.history(config.HistoryFull)
	return p
}

// withLocks pairs jobs just locked by owner with their locks: the revision
// the acquisition gave them is the fencing token.
func withLocks(jobs []*persistence.Job, owner string) []AcquiredJob {
	out := make([]AcquiredJob, len(jobs))
	for i, j := range jobs {
		out[i] = AcquiredJob{Job: j, Lock: JobLock{Owner: owner, Rev: j.Rev}}
	}
	return out
}

// UnlockJobs releases jobs acquired but not started (shutdown, a full
// queue) or whose run could not be stored (ErrNotStored), as long as their
// lock is still the one acquired, and wakes the job executors of other
// nodes, so that they take them at once. No attempt is charged: the jobs
// come back as fresh. The notification's payload is the lock owner, not this
// engine's id, which other engines' listeners on this node would ignore.
func (e *Core) UnlockJobs(ctx context.Context, jobs []AcquiredJob) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	owner := jobs[0].Lock.Owner
	held := make(map[string]int, len(jobs))
	for _, j := range jobs {
		held[j.ID] = j.Lock.Rev
	}
	var released int
	if err := e.cmd.Plain(ctx, false, func(t persistence.Tx) (err error) {
		released, err = persistence.UnlockJobs(ctx, t, owner, held)
		return err
	}); err != nil {
		return 0, err
	}
	if n, ok := e.db.(persistence.Notifier); ok && released > 0 {
		n.Notify(e.jobChannel, owner)
	}
	return released, nil
}

// LockedJobs lists the jobs owner holds locked, each with its lock as it is
// now: what an executor looks up after a database outage, when it cannot
// know which of its commits went through.
func (e *Core) LockedJobs(ctx context.Context, owner string) ([]AcquiredJob, error) {
	var jobs []*persistence.Job
	err := e.cmd.Plain(ctx, true, func(t persistence.Tx) (err error) {
		jobs, err = persistence.Select(ctx, t, persistence.JobsLockedBy(owner))
		return err
	})
	return withLocks(jobs, owner), err
}

// ExtendLock moves the expiration of a running job's lock to until; false
// when the lock was lost (taken over, or the job is gone).
func (e *Core) ExtendLock(ctx context.Context, j AcquiredJob, until time.Time) (bool, error) {
	var ok bool
	err := e.cmd.Plain(ctx, false, func(t persistence.Tx) (err error) {
		ok, err = persistence.ExtendLock(ctx, t, j.ID, j.Lock.Owner, j.Lock.Rev, until)
		return err
	})
	return ok && err == nil, err
}

// NextWakeup returns the earliest time after now at which a job becomes
// acquirable without anybody writing (see persistence.NextWakeup).
func (e *Core) NextWakeup(ctx context.Context, now time.Time) (*time.Time, error) {
	var at *time.Time
	err := e.cmd.Plain(ctx, true, func(t persistence.Tx) (err error) {
		at, err = persistence.NextWakeup(ctx, t, now)
		return err
	})
	return at, err
}

// ErrNoNotifications: the database cannot wake other nodes' job executors.
var ErrNoNotifications = errors.New("the database has no notifications between nodes")

// ListenJobs calls fn whenever another node (or another engine on this
// one) commits jobs or releases locks, until ctx ends or the listening
// connection fails. The engine's own commits are left out: they wake its
// executors through OnJobCreated.
func (e *Core) ListenJobs(ctx context.Context, fn func()) error {
	l, ok := e.db.(persistence.Listener)
	if !ok {
		return ErrNoNotifications
	}
	return l.Listen(ctx, e.jobChannel, func(payload string) {
		if payload != e.ID {
			fn()
		}
	})
}

// ReportJobExecutor records a running job executor's report (its
// heartbeat), for diagnoses of jobs that wait.
func (e *Core) ReportJobExecutor(ctx context.Context, info persistence.JobExecutorInfo) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		cc.Write(persistence.ReportJobExecutor(&info))
		return nil
	})
}

// TakeOverDeadOwners releases the job locks of the executors other than
// self that have not reported since staleBefore and removes their reports,
// in one transaction; it returns how many locks per executor. Released
// jobs come back as fresh: no failed attempt is charged, and other nodes
// are woken.
func (e *Core) TakeOverDeadOwners(ctx context.Context, staleBefore time.Time, self string) (map[string]int, error) {
	// Asked at every report: a read first, so that the write transaction
	// (SQLite's one writer) is taken only when there is something to do;
	// the write checks each report again under its row lock.
	stale, err := persistence.List(ctx, e.db, persistence.StaleJobExecutors(staleBefore, self))
	if err != nil || len(stale) == 0 {
		return nil, err
	}
	var taken map[string]int
	if err := e.cmd.Plain(ctx, false, func(t persistence.Tx) (err error) {
		taken, err = persistence.TakeOverLocksOfStaleExecutors(ctx, t, stale, staleBefore)
		return err
	}); err != nil || len(taken) == 0 {
		return nil, err
	}
	if n, ok := e.db.(persistence.Notifier); ok {
		n.Notify(e.jobChannel, self)
	}
	return taken, nil
}

// RemoveJobExecutor deletes a stopped executor's report.
func (e *Core) RemoveJobExecutor(ctx context.Context, id string) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		cc.Write(persistence.RemoveJobExecutor(id))
		return nil
	})
}

// Claim is what a job executor takes on of the jobs a job creates (see
// RunAcquiredContinuing).
type Claim struct {
	Owner    string
	LockTime time.Duration
	// Takes reports whether the executor's acquisition would take the job
	// (its priority range and deployments).
	Takes func(*persistence.Job) bool
	// ByRoot: exclusive jobs count per root process instance, as the
	// executor's acquisition across process hierarchies does.
	ByRoot bool
}

// claimContinuation locks for claim's owner, as part of its insert (no
// statement of its own), the first job this command created that the
// executor takes now; it is no longer announced to the job executors. An
// exclusive job is taken only when the running job is exclusive in the
// same process instance (or root instance): the running job's lock has
// kept every other exclusive job of that instance from being locked, and
// its successor inherits that. Other exclusive jobs are left to
// acquisition, which checks the instance's locks.
func (c *command) claimContinuation(running *persistence.Job, claim *Claim) *AcquiredJob {
	now := c.cc.Now()
	for i, j := range c.jobDue {
		if c.cc.IsDeleted(j) || !claimable(running, j, claim, now) {
			continue
		}
		until := now.Add(claim.LockTime).UTC()
		j.LockOwner, j.LockExpiration = claim.Owner, &until
		c.e.logJob(c.cc, j, persistence.JobLogLocked, "", nil)
		c.jobDue = slices.Delete(c.jobDue, i, i+1)
		locked := *j
		return &AcquiredJob{Job: &locked, Lock: JobLock{Owner: claim.Owner, Rev: j.Rev}}
	}
	return nil
}

// claimable reports whether the executor running job running takes new
// job j now.
func claimable(running, j *persistence.Job, claim *Claim, now time.Time) bool {
	switch {
	case j.DueDate != nil && j.DueDate.After(now), j.Retries <= 0, j.Suspension != persistence.Active, !claim.Takes(j):
		return false
	case !j.Exclusive || j.ProcessInstanceID == "":
		return true
	case !running.Exclusive:
		return false
	case claim.ByRoot && j.RootProcessInstanceID != "":
		return j.RootProcessInstanceID == running.RootProcessInstanceID
	}
	return j.ProcessInstanceID == running.ProcessInstanceID
}
