package jobexecutor

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// JobRuntime is what an executor needs of an engine it serves: acquisition,
// running one job or a group, unlocking, extending a lock, and wake-ups.
// *runtime.Core implements it; the executor never reaches the database
// itself.
type JobRuntime interface {
	// Capabilities of the engine's database: a single writer runs queued
	// jobs in groups; locks need a heartbeat where other nodes may take
	// over; notifications wake other nodes.
	Capabilities() persistence.Capabilities
	// OnJobCreated registers a hook called after commits that created
	// jobs; it reports whether this executor will run them all.
	OnJobCreated(fn func(jobs []*persistence.Job) bool)
	// ListenJobs calls fn when other nodes commit jobs or release locks.
	ListenJobs(ctx context.Context, fn func()) error
	// NextWakeup is the earliest future due date or lock expiry.
	NextWakeup(ctx context.Context, now time.Time) (*time.Time, error)
	// IsRegistered and RegisteredDeployments serve deployment-aware
	// acquisition.
	IsRegistered(deploymentID string) bool
	RegisteredDeployments() []string

	// AcquireJobs locks jobs and returns them with their locks.
	AcquireJobs(ctx context.Context, p persistence.AcquireParams) ([]runtime.AcquiredJob, error)
	// RunAcquiredContinuing runs one acquired job in its own transaction,
	// fenced by its lock (its error is returned after its failure was
	// recorded), and with claim locks in that transaction a job it created
	// that the executor takes next (see runtime.Core.RunAcquiredContinuing).
	RunAcquiredContinuing(ctx context.Context, j runtime.AcquiredJob, claim *runtime.Claim) (*runtime.AcquiredJob, error)
	// RunGroup runs acquired jobs in one transaction (see
	// runtime.Core.RunGroup), acquiring with next's parameters at its end.
	RunGroup(ctx context.Context, jobs []runtime.AcquiredJob, proceed func() bool, next func() (persistence.AcquireParams, bool)) (errs []error, ran int, acquired []runtime.AcquiredJob)
	// MayRunLong reports whether a job's work may take long (see
	// runtime.Core.MayRunLong): on a single writer it runs outside a group.
	// TimeJobs makes the engine learn it, for an executor that asks.
	MayRunLong(j *persistence.Job) bool
	TimeJobs()
	// UnlockJobs releases acquired jobs that were not started, or whose
	// outcome was not stored, while their lock is the one acquired; it
	// returns how many it released.
	UnlockJobs(ctx context.Context, jobs []runtime.AcquiredJob) (int, error)
	// LockedJobs lists the jobs owner holds locked, with their locks.
	LockedJobs(ctx context.Context, owner string) ([]runtime.AcquiredJob, error)
	// ExtendLock extends a running job's lock; false when it was lost.
	ExtendLock(ctx context.Context, j runtime.AcquiredJob, until time.Time) (bool, error)
	// TakeOverDeadOwners releases the job locks of the executors other than
	// self that have not reported since staleBefore, and removes their
	// reports; it returns how many locks per executor.
	TakeOverDeadOwners(ctx context.Context, staleBefore time.Time, self string) (map[string]int, error)
	// ReportJobExecutor and RemoveJobExecutor keep this executor's report
	// (what it serves, how busy it is) in the database for diagnoses.
	ReportJobExecutor(ctx context.Context, info persistence.JobExecutorInfo) error
	RemoveJobExecutor(ctx context.Context, id string) error
}

var _ JobRuntime = (*runtime.Core)(nil)

// ErrLockLost: a job's lock was taken over by another executor; its work
// was not committed.
var ErrLockLost = runtime.ErrLockLost
