package config

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
)

// JobExecutor configures a job executor. Zero values take the defaults
// named.
type JobExecutor struct {
	// PoolSize is the number of workers running jobs. Default 4.
	PoolSize int
	// QueueSize is how many acquired jobs may wait for a free worker.
	// Acquisition never locks more jobs than the queue and the idle workers
	// can take, so no job waits in the queue until its lock expires.
	// Default PoolSize; 64 when every engine is on SQLite, whose workers
	// commit the queued jobs together, each behind its own savepoint.
	QueueSize int
	// MaxJobsPerAcquisition bounds one acquisition. Default 16; 64 when
	// every engine is on SQLite, where a worker acquires its next jobs in
	// the transaction of the group it runs, so this bounds the groups.
	MaxJobsPerAcquisition int
	// NoContinuations turns off claiming: by default a job, on PostgreSQL,
	// locks for this executor in its own transaction one of the jobs it
	// creates that is due at once and that acquisition would give it, which
	// runs next in the slot the job leaves, without an acquisition (an
	// exclusive one after it on the same worker). Off, every job waits for
	// an acquisition cycle.
	NoContinuations bool
	// MaxBatchJobs is the most batch jobs (the seed, execution and monitor
	// jobs of batches: migrations, deletions, retries, ...) this executor
	// holds at once; it runs them on that many of its workers, and the
	// others run ordinary jobs only. While it holds that many, its
	// acquisitions leave batch jobs out; one acquisition may take a few
	// more, which wait for those workers, never for ordinary ones. So a
	// batch of thousands of jobs never takes every worker, nor the queue,
	// and ordinary jobs keep their pickup latency while it runs. Default
	// half the pool (PoolSize/2, at least 1), and 1 when every engine is on
	// SQLite (one writer: a second batch job would only wait for it, and
	// an ordinary job behind both); at most PoolSize.
	MaxBatchJobs int
	// GroupCommit, on PostgreSQL, runs the quick jobs queued together in
	// one transaction, as executors on SQLite always do: each job behind a
	// savepoint of its own (a failure is rolled back to it and recorded in
	// the same transaction; an optimistic-locking conflict or a deadlock
	// unlocks only that job, for another run without spending a retry),
	// one commit for the group, and the next jobs acquired in it. Fewer
	// commits per job under load; an idle executor's group is one job, and
	// a job that may run long (its activity's recent runs were not all
	// quick) runs alone. Off by default.
	GroupCommit bool
	// LockTime is how long an acquisition locks a job; running jobs extend
	// their lock while they run (on PostgreSQL). Default 5 minutes.
	LockTime time.Duration
	// WaitTime is the idle wait after an acquisition found nothing; it grows
	// by BackoffFactor per empty acquisition up to MaxWait. The executor
	// wakes earlier when this engine commits a job, when another node
	// notifies one (PostgreSQL), and at the earliest future due date.
	// Defaults 5s, factor 2, MaxWait 60s.
	WaitTime      time.Duration
	BackoffFactor float64
	MaxWait       time.Duration
	// LockOwner names this executor in job locks. Default host name plus a
	// random suffix: unique per process.
	LockOwner string
	// DeploymentAware acquires only jobs of deployments registered with the
	// engines this executor serves (and jobs without a deployment).
	DeploymentAware bool
	// AcquireExclusiveOverProcessHierarchies treats a process instance and
	// the instances its call activities start (at any depth) as one
	// instance for exclusive jobs: they are not acquired while another
	// exclusive job of the hierarchy is locked, and those acquired together
	// run one after another in one batch. Off by default, as in Camunda.
	AcquireExclusiveOverProcessHierarchies bool
	// Acquisition order, combined in this precedence: priority (highest
	// first), timers before other jobs, due date (earliest first).
	AcquireByPriority bool
	PreferTimerJobs   bool
	AcquireByDueDate  bool
	// PriorityMin and PriorityMax bound the priorities this executor
	// acquires (nil: unbounded), so a node can serve only urgent work.
	PriorityMin, PriorityMax *int64
	// ReportInterval is how often the executor records in the database what
	// it serves and how busy it is (for bpmnlite jobs explain). Default 5s.
	ReportInterval time.Duration
	// DeadOwnerAfter is how long another executor may go without reporting
	// before this one takes its job locks over, without waiting for them to
	// expire and without charging the jobs a failed attempt: its node is
	// presumed gone (killed, or cut off for good). Fencing still stops a
	// node that was only frozen from committing. Default 3 × ReportInterval;
	// negative: never (locks are taken over when they expire).
	DeadOwnerAfter time.Duration
	// Logger receives debug logs of each acquisition cycle and each job,
	// and warnings for failures. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives counters; nil discards them.
	Metrics ExecutorMetrics
	// Clock is the time used for acquisition and locks. Default time.Now;
	// set it to the engine's clock in tests with a fake clock.
	Clock func() time.Time
}

// WithDefaults returns c with every zero field set to its default.
func (c JobExecutor) WithDefaults() JobExecutor {
	positiveOr(&c.ReportInterval, 5*time.Second)
	if c.DeadOwnerAfter == 0 {
		c.DeadOwnerAfter = 3 * c.ReportInterval // negative: never
	}
	positiveOr(&c.PoolSize, 4)
	positiveOr(&c.QueueSize, c.PoolSize)
	positiveOr(&c.MaxJobsPerAcquisition, 16)
	positiveOr(&c.MaxBatchJobs, max(1, c.PoolSize/2))
	c.MaxBatchJobs = min(c.MaxBatchJobs, c.PoolSize)
	positiveOr(&c.LockTime, 5*time.Minute)
	positiveOr(&c.WaitTime, 5*time.Second)
	if c.BackoffFactor < 1 {
		c.BackoffFactor = 2
	}
	positiveOr(&c.MaxWait, time.Minute)
	c.MaxWait = max(c.MaxWait, c.WaitTime)
	if c.LockOwner == "" {
		host, _ := os.Hostname()
		c.LockOwner = fmt.Sprintf("%s-%s", host, uuid.NewString()[:8])
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = noMetrics{}
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

// positiveOr sets *v to def unless it is positive.
func positiveOr[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Validate reports the first setting that cannot work, naming it.
func (c JobExecutor) Validate() error {
	if c.PriorityMin != nil && c.PriorityMax != nil && *c.PriorityMin > *c.PriorityMax {
		return fmt.Errorf("jobexecutor: PriorityMin %d is above PriorityMax %d", *c.PriorityMin, *c.PriorityMax)
	}
	if c.BackoffFactor > math.MaxInt32 {
		return fmt.Errorf("jobexecutor: BackoffFactor %g is too large", c.BackoffFactor)
	}
	return nil
}

// ExecutorMetrics receives a job executor's counters. Implementations must
// be safe for concurrent use.
type ExecutorMetrics interface {
	// Acquired is called after each acquisition with the jobs locked.
	Acquired(n int)
	// Executed is called when a job ran successfully.
	Executed(d time.Duration)
	// Failed is called when a job failed (its failure was recorded).
	Failed()
	// Conflict is called when a job hit an optimistic-lock conflict and was
	// released without spending a retry.
	Conflict()
	// QueueDepth reports the jobs acquired and not yet started.
	QueueDepth(n int)
	// PickupLatency is the time from a job's acquisition to its start.
	PickupLatency(d time.Duration)
}

// CycleMetrics is implemented by ExecutorMetrics that also want each
// acquisition's duration and the number of workers busy running jobs.
type CycleMetrics interface {
	AcquisitionDuration(d time.Duration)
	BusyWorkers(n int)
}

// TracedMetrics is implemented by ExecutorMetrics that want each job's
// latencies with the trace of its run (exemplars): the executor then calls
// these after the run instead of PickupLatency and Executed. span is the
// job's span, invalid when the engine has no TracerProvider.
type TracedMetrics interface {
	PickupLatencyTraced(d time.Duration, span trace.SpanContext)
	ExecutedTraced(d time.Duration, span trace.SpanContext)
}

type noMetrics struct{}

func (noMetrics) Acquired(int)                {}
func (noMetrics) Executed(time.Duration)      {}
func (noMetrics) Failed()                     {}
func (noMetrics) Conflict()                   {}
func (noMetrics) QueueDepth(int)              {}
func (noMetrics) PickupLatency(time.Duration) {}
