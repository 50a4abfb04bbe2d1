package jobexecutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
	"go.opentelemetry.io/otel/trace"
)

// Executor acquires due jobs of one or more engines and runs them on a pool
// of workers: acquisition loop → bounded queue → workers → one transaction
// per job. Several executors (nodes) may share a database.
type Executor struct {
	cfg     Config
	traced  TracedMetrics // cfg.Metrics when it takes the jobs' traces, else nil
	engines []JobRuntime
	log     *slog.Logger
	// turns lets one SQLite worker per engine gather and run a group at a
	// time (see runGroup).
	turns map[JobRuntime]*sync.Mutex

	queue chan *batch   // sent to under mu, so that Stop can close it
	wake  chan struct{} // a job became due, or a slot freed up
	// batchQueue holds the batch jobs acquired (sent to under mu): only
	// the first MaxBatchJobs workers take from it, so batch jobs never
	// hold more workers than that, nor places in queue.
	batchQueue chan *batch
	// batchTypes are the handler types of each engine's batch jobs; the
	// list is what acquisition leaves out while batchHeld is full.
	batchTypes     map[JobRuntime]map[string]bool
	batchTypeLists map[JobRuntime][]string

	mu        sync.Mutex
	inflight  int             // ordinary jobs acquired and not finished (queued or running), and slots reserved
	batchHeld int             // batch jobs acquired and not finished
	held      map[string]bool // ids of the jobs acquired and not finished
	hint      *time.Time      // earliest future due date announced by a local commit
	running   bool
	closed    bool               // the queue is closed: workers unlock what they acquire
	stop      context.CancelFunc // stops acquisition and listeners
	kill      context.CancelFunc // cancels running jobs (shutdown deadline)
	loops     sync.WaitGroup     // acquisition and listeners
	workers   sync.WaitGroup

	stranded stranded
	warnings rateLimited
	busy     atomic.Int32 // workers running jobs, for CycleMetrics
	// claims are what a job of each engine claims of the jobs it creates:
	// none on a single writer (its groups acquire in their transaction) or
	// with NoContinuations.
	claims map[JobRuntime]*runtime.Claim
}

// batch is what one worker runs in a row: a single job, or all exclusive
// jobs of one process instance found in one acquisition.
type batch struct {
	rt       JobRuntime
	jobs     []runtime.AcquiredJob
	acquired time.Time
}

// New returns an executor for the engines; Start runs it.
func New(cfg Config, engines ...JobRuntime) (*Executor, error) {
	if allSingleWriter(engines) {
		// SQLite workers commit the queued jobs together (runGroup): a
		// deeper queue and larger acquisitions make larger groups.
		if cfg.QueueSize == 0 {
			cfg.QueueSize = maxGroup
		}
		if cfg.MaxJobsPerAcquisition == 0 {
			cfg.MaxJobsPerAcquisition = maxGroup
		}
		// Batch jobs each write in a transaction of their own; on one
		// writer a second one only queues behind the first, and an
		// ordinary job behind both.
		if cfg.MaxBatchJobs == 0 {
			cfg.MaxBatchJobs = 1
		}
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(engines) == 0 {
		return nil, errors.New("jobexecutor: no engine to serve")
	}
	traced, _ := cfg.Metrics.(TracedMetrics)
	x := &Executor{
		cfg:     cfg,
		traced:  traced,
		engines: engines,
		log:     cfg.Logger.With("lockOwner", cfg.LockOwner),
		wake:    make(chan struct{}, 1),
		// A database outage fails every acquisition: one warning per
		// kind every 30 s says so without flooding the log.
		warnings: rateLimited{interval: 30 * time.Second},
		turns:    make(map[JobRuntime]*sync.Mutex),
		claims:   make(map[JobRuntime]*runtime.Claim),

		batchTypes:     make(map[JobRuntime]map[string]bool),
		batchTypeLists: make(map[JobRuntime][]string),
	}
	for _, rt := range engines {
		if rt.Capabilities().SingleWriter {
			x.turns[rt] = new(sync.Mutex)
		}
		if x.timesJobs(rt.Capabilities()) {
			rt.TimeJobs()
		}
		x.batchTypeLists[rt] = rt.BatchHandlerTypes()
		x.batchTypes[rt] = make(map[string]bool)
		for _, t := range x.batchTypeLists[rt] {
			x.batchTypes[rt][t] = true
		}
		rt.OnJobCreated(func(jobs []*persistence.Job) bool { return x.jobCreated(rt, jobs) })
		if !rt.Capabilities().SingleWriter && !cfg.NoContinuations {
			x.claims[rt] = &runtime.Claim{Owner: cfg.LockOwner, LockTime: cfg.LockTime, ByRoot: cfg.AcquireExclusiveOverProcessHierarchies,
				Takes: func(j *persistence.Job) bool {
					if !x.acquires(rt, j) {
						return false
					}
					if !x.batchTypes[rt][j.HandlerType] {
						return true // an ordinary job: no lock on the hot path
					}
					x.mu.Lock()
					defer x.mu.Unlock()
					return !x.batchShareFull(rt, j)
				}}
		}
	}
	return x, nil
}

// LockOwner returns the name this executor writes into job locks.
func (x *Executor) LockOwner() string { return x.cfg.LockOwner }

// Start launches acquisition and the workers. It returns at once.
func (x *Executor) Start(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.running {
		return errors.New("jobexecutor: already running")
	}
	x.running, x.closed = true, false
	x.queue = make(chan *batch, x.cfg.QueueSize+x.cfg.PoolSize)
	// Acquisitions that began while batchHeld had room may together take
	// more than MaxBatchJobs: the acquisition loop's and the groups' (one
	// per worker at most), each of at most MaxJobsPerAcquisition.
	x.batchQueue = make(chan *batch, x.cfg.MaxBatchJobs+(1+x.cfg.PoolSize)*x.cfg.MaxJobsPerAcquisition)
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	jobCtx, kill := context.WithCancel(context.WithoutCancel(ctx))
	x.stop, x.kill = stop, kill
	for i := 0; i < x.cfg.PoolSize; i++ {
		x.workers.Add(1)
		go x.work(jobCtx, i < x.cfg.MaxBatchJobs)
	}
	for _, rt := range x.engines {
		if rt.Capabilities().ListenNotify {
			x.loops.Add(1)
			go x.listen(runCtx, rt)
		}
	}
	// The first report is written before any job is taken: on SQLite a
	// running job may hold the one writer for as long as its delegate runs.
	x.report(runCtx, x.inflight+x.batchHeld)
	x.loops.Add(2)
	go x.acquireLoop(runCtx)
	go x.reportLoop(runCtx)
	x.log.Debug("job executor started", "poolSize", x.cfg.PoolSize, "queueSize", x.cfg.QueueSize)
	return nil
}

// reportLoop keeps this executor's report in each engine's database until
// the executor stops, then removes it.
func (x *Executor) reportLoop(ctx context.Context) {
	defer x.loops.Done()
	tick := time.NewTicker(x.cfg.ReportInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			for _, rt := range x.engines {
				_ = rt.RemoveJobExecutor(cleanup, x.cfg.LockOwner)
			}
			cancel()
			return
		case <-tick.C:
			x.mu.Lock()
			inflight := x.inflight + x.batchHeld
			x.mu.Unlock()
			x.report(ctx, inflight)
			x.takeOverDeadOwners(ctx)
		}
	}
}

// report writes this executor's report (what it serves, how busy it is:
// inflight jobs acquired) to each engine's database.
func (x *Executor) report(ctx context.Context, inflight int) {
	for _, rt := range x.engines {
		info := persistence.JobExecutorInfo{ID: x.cfg.LockOwner, DeploymentAware: x.cfg.DeploymentAware,
			Deployments: strings.Join(rt.RegisteredDeployments(), ","), PriorityMin: x.cfg.PriorityMin, PriorityMax: x.cfg.PriorityMax,
			PoolSize: x.cfg.PoolSize, QueueSize: x.cfg.QueueSize, Inflight: inflight, Heartbeat: x.cfg.Clock().UTC()}
		if err := rt.ReportJobExecutor(ctx, info); err != nil && ctx.Err() == nil {
			x.warnings.warn(x.log, "report", "reporting the job executor's state failed", "error", err)
		}
	}
}

// takeOverDeadOwners releases the locks of executors that stopped
// reporting DeadOwnerAfter ago, and wakes acquisition to take their jobs.
func (x *Executor) takeOverDeadOwners(ctx context.Context) {
	if x.cfg.DeadOwnerAfter < 0 {
		return
	}
	staleBefore := x.cfg.Clock().Add(-x.cfg.DeadOwnerAfter).UTC()
	for _, rt := range x.engines {
		taken, err := rt.TakeOverDeadOwners(ctx, staleBefore, x.cfg.LockOwner)
		if err != nil {
			if ctx.Err() == nil {
				x.warnings.warn(x.log, "takeover", "looking for job executors that stopped reporting failed", "error", err)
			}
			continue
		}
		for owner, n := range taken {
			x.log.Warn("took over the job locks of a job executor that stopped reporting; its jobs are not charged a failed attempt",
				"owner", owner, "silentFor", "over "+x.cfg.DeadOwnerAfter.String(), "jobs", n)
		}
		if len(taken) > 0 {
			x.signal()
		}
	}
}

// Stop shuts down gracefully: acquisition stops, jobs acquired but not
// started are unlocked for other nodes, and running jobs may finish until
// ctx ends; then their contexts are cancelled and Stop waits for them to
// return (their transactions roll back).
func (x *Executor) Stop(ctx context.Context) error {
	x.mu.Lock()
	if !x.running {
		x.mu.Unlock()
		return nil
	}
	x.running = false
	x.mu.Unlock()
	x.stop()
	x.loops.Wait()
	x.mu.Lock()
	x.closed = true
	close(x.queue)
	close(x.batchQueue)
	x.mu.Unlock()
	// Unlock the queued jobs now rather than when a worker frees up, so that
	// other nodes can take them while the running jobs finish. Beside the
	// wait, not before it: on SQLite the unlock waits for the running jobs'
	// write lock, and they may end only when the deadline cancels them.
	x.workers.Add(1)
	go func() {
		defer x.workers.Done()
		for b := range x.queue {
			x.unlock(b.rt, b.jobs)
		}
		for b := range x.batchQueue {
			x.unlock(b.rt, b.jobs)
		}
	}()
	done := make(chan struct{})
	go func() { x.workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		x.kill()
		<-done
	}
	x.kill()
	x.releaseStranded(context.WithoutCancel(ctx))
	x.log.Debug("job executor stopped")
	return ctx.Err()
}

// jobCreated is the engines' after-commit hook: wake acquisition when a job
// is due, or remember the earliest due date to wake up then. It reports
// whether this executor will run the jobs: it is running, has room, and
// acquires each of them (priority range, deployment).
func (x *Executor) jobCreated(rt JobRuntime, jobs []*persistence.Job) bool {
	now := x.cfg.Clock()
	x.mu.Lock()
	taken := x.running && x.cfg.QueueSize+x.cfg.PoolSize > x.inflight
	for _, j := range jobs {
		if j.DueDate != nil && j.DueDate.After(now) && (x.hint == nil || j.DueDate.Before(*x.hint)) {
			d := *j.DueDate
			x.hint = &d
		}
		taken = taken && x.acquires(rt, j) && !x.batchShareFull(rt, j)
	}
	x.mu.Unlock()
	x.signal()
	return taken
}

// acquires reports whether this executor's acquisition would take j of rt
// (priority range; deployment, when deployment-aware).
func (x *Executor) acquires(rt JobRuntime, j *persistence.Job) bool {
	if x.cfg.PriorityMin != nil && j.Priority < *x.cfg.PriorityMin || x.cfg.PriorityMax != nil && j.Priority > *x.cfg.PriorityMax {
		return false
	}
	return !x.cfg.DeploymentAware || j.DeploymentID == "" || rt.IsRegistered(j.DeploymentID)
}

// batchShareFull reports whether j is a batch job and this executor holds
// its share of them (MaxBatchJobs), so that it takes no more now; x.mu is
// held.
func (x *Executor) batchShareFull(rt JobRuntime, j *persistence.Job) bool {
	return x.batchTypes[rt][j.HandlerType] && x.batchHeld >= x.cfg.MaxBatchJobs
}

// Wake makes the acquisition loop look for jobs at once, e.g. after a test
// moved a fake clock past a due date.
func (x *Executor) Wake() { x.signal() }

func (x *Executor) signal() {
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// listen wakes acquisition when another node commits a job (PostgreSQL
// NOTIFY); the engine's own commits wake it through jobCreated.
func (x *Executor) listen(ctx context.Context, rt JobRuntime) {
	defer x.loops.Done()
	for ctx.Err() == nil {
		err := rt.ListenJobs(ctx, x.signal)
		if err != nil && ctx.Err() == nil {
			x.log.Warn("job notifications lost; retrying", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// acquireLoop acquires as many jobs as the queue and idle workers can take,
// then sleeps until woken, backing off while idle, never past the earliest
// future due date or lock expiry.
func (x *Executor) acquireLoop(ctx context.Context) {
	defer x.loops.Done()
	// Locks in this executor's name now are a previous run's of the same
	// identity (a restarted process): that owner is gone, so they are
	// released rather than left to expire and be charged; so are those of
	// executors that stopped reporting.
	for _, rt := range x.engines {
		if n := x.releaseOrphans(ctx, rt); n > 0 {
			x.log.Warn("released the job locks a previous run of this executor's identity held", "owner", x.cfg.LockOwner, "jobs", n)
		}
	}
	x.takeOverDeadOwners(ctx)
	idleWait := time.Duration(0)
	down := map[JobRuntime]bool{} // engines whose last acquisition failed
	for ctx.Err() == nil {
		x.releaseStranded(ctx)
		acquired, full, room, failed := 0, false, true, false
		for _, rt := range x.engines {
			n, asked, err := x.acquire(ctx, rt)
			if asked == 0 {
				room = false
				break
			}
			switch {
			case err != nil:
				down[rt], failed = true, true
			case down[rt]:
				delete(down, rt)
				x.recover(ctx, rt)
			}
			acquired += n
			full = full || n == asked
		}
		var sleep time.Duration
		switch {
		case failed:
			// The database is away: probe it at a short, steady pace, not
			// the idle back-off, so that work resumes as soon as it is back.
			idleWait = 0
			sleep = min(outageProbe, x.cfg.WaitTime)
		case full:
			idleWait = 0
			continue // more may be waiting
		case acquired > 0 || !room:
			// Busy: new work arrives by a wake-up (a commit, a notification,
			// a freed slot); poll at the base rate in case one is missed.
			idleWait = 0
			sleep = x.cfg.WaitTime
		default:
			if idleWait == 0 {
				idleWait = x.cfg.WaitTime
			} else {
				idleWait = min(time.Duration(float64(idleWait)*x.cfg.BackoffFactor), x.cfg.MaxWait)
			}
			sleep = idleWait
			if next := x.nextWakeup(ctx); next != nil {
				sleep = min(sleep, max(next.Sub(x.cfg.Clock()), 0))
			}
		}
		x.log.Debug("acquisition cycle", "acquired", acquired, "queueFull", !room, "sleep", sleep)
		x.sleep(ctx, sleep)
	}
}

// acquireTimeout bounds an acquisition (a few milliseconds when the
// database answers), so that one that does not answer counts as failed.
const acquireTimeout = 10 * time.Second

// outageProbe is how often acquisition tries again while the database
// fails: work resumes within it of the database answering again.
const outageProbe = 250 * time.Millisecond

// recover runs when rt's database answers again after failed acquisitions:
// the jobs whose fate was unknown are looked up. Stranded ones were
// released before this acquisition; what else is still locked by this
// executor and not held here (the continuation a job's commit claimed, or
// an acquisition, when the commit went through but its answer was lost) is
// released, so that it runs now and costs no failed attempt at its lock's
// expiry.
func (x *Executor) recover(ctx context.Context, rt JobRuntime) {
	n := x.releaseOrphans(ctx, rt)
	x.log.Info("database answers again; acquisition resumed", "releasedOrphanedLocks", n)
}

// releaseOrphans releases the jobs locked in this executor's name that it
// does not hold, and returns how many.
func (x *Executor) releaseOrphans(ctx context.Context, rt JobRuntime) int {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	locked, err := rt.LockedJobs(lctx, x.cfg.LockOwner)
	if err != nil {
		x.log.Warn("could not look up the jobs locked in this executor's name", "error", err)
		return 0
	}
	x.mu.Lock()
	var orphans []runtime.AcquiredJob
	for _, j := range locked {
		if !x.held[j.ID] {
			orphans = append(orphans, j)
		}
	}
	x.mu.Unlock()
	released := 0
	if len(orphans) > 0 {
		released, err = rt.UnlockJobs(lctx, orphans)
		if err != nil {
			x.log.Warn("could not release the jobs locked in this executor's name", "jobs", len(orphans), "error", err)
			return 0
		}
	}
	return released
}

func (x *Executor) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-x.wake:
	case <-t.C:
	}
}

// nextWakeup is the earliest future due date or lock expiry over all
// engines, and the local hint.
func (x *Executor) nextWakeup(ctx context.Context) *time.Time {
	x.mu.Lock()
	next := x.hint
	x.hint = nil
	x.mu.Unlock()
	for _, rt := range x.engines {
		w, err := rt.NextWakeup(ctx, x.cfg.Clock())
		if err != nil {
			x.warnings.warn(x.log, "wakeup", "next wakeup query failed", "error", err)
			continue
		}
		if w != nil && (next == nil || w.Before(*next)) {
			next = w
		}
	}
	return next
}

// acquire locks up to MaxJobsPerAcquisition jobs of rt, as many as the
// queue and idle workers have room for (asked; 0 when there is none), and
// queues them in batches; locked is how many it got. Errors are logged: a
// conflict with another acquirer is expected and not an error for the
// caller.
func (x *Executor) acquire(ctx context.Context, rt JobRuntime) (locked, asked int, err error) {
	// SQLite workers acquire too (executeGroup): slots are reserved first.
	reserved := x.reserve(x.cfg.MaxJobsPerAcquisition, 0)
	if reserved == 0 {
		return 0, 0, nil
	}
	// Not cancelled by Stop: an acquisition cut off may have committed
	// without our knowing, leaving its jobs locked until the lock expires
	// (and then counted as a failed attempt). Stop unlocks what it queues;
	// after a failure the jobs locked for us are looked up (recover).
	// Bounded, so that a database that does not answer is noticed.
	began := time.Now()
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), acquireTimeout)
	jobs, err := rt.AcquireJobs(actx, x.acquireParams(rt, reserved))
	cancel()
	if m, ok := x.cfg.Metrics.(CycleMetrics); ok {
		m.AcquisitionDuration(time.Since(began))
	}
	x.release(reserved - len(jobs))
	if err != nil {
		if ctx.Err() == nil {
			x.warnings.warn(x.log, "acquisition", "job acquisition failed", "error", err)
		}
		return 0, reserved, err
	}
	x.cfg.Metrics.Acquired(len(jobs))
	if len(jobs) == 0 {
		return 0, reserved, nil
	}
	x.enqueue(rt, jobs)
	x.log.Debug("jobs acquired", "count", len(jobs))
	return len(jobs), reserved, nil
}

// enqueue queues acquired jobs, or unlocks them once the executor stopped.
// Their slots were reserved, so the queue has room; should it not, the
// jobs are unlocked rather than the sender blocking with the mutex held.
func (x *Executor) enqueue(rt JobRuntime, jobs []runtime.AcquiredJob) {
	var rejected []runtime.AcquiredJob
	x.mu.Lock()
	x.hold(jobs)
	closed := x.closed
	if closed {
		rejected = jobs
	} else {
		for _, b := range batches(rt, jobs, x.cfg.Clock(), x.cfg.AcquireExclusiveOverProcessHierarchies) {
			queue := x.queue
			if x.isBatchJob(rt, b.jobs[0]) {
				// Batch jobs run alone (no process instance): the slot
				// reserved for it goes back to ordinary jobs.
				queue = x.batchQueue
				x.inflight--
				x.batchHeld++
			}
			select {
			case queue <- b:
			default:
				rejected = append(rejected, b.jobs...)
			}
		}
	}
	depth := x.inflight + x.batchHeld
	x.mu.Unlock()
	x.cfg.Metrics.QueueDepth(depth)
	if len(rejected) > 0 {
		if !closed {
			x.log.Warn("job queue full; unlocking acquired jobs", "jobs", len(rejected))
		}
		x.unlock(rt, rejected)
	}
}

// requeue puts a batch taken from the queue back at its end, unless the
// queue is full or closed; it reports whether it did.
func (x *Executor) requeue(b *batch) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false
	}
	select {
	case x.queue <- b:
		return true
	default:
		return false
	}
}

// acquireParams are this executor's acquisition parameters for rt.
func (x *Executor) acquireParams(rt JobRuntime, limit int) persistence.AcquireParams {
	now := x.cfg.Clock()
	params := persistence.AcquireParams{
		Now:          now,
		LockOwner:    x.cfg.LockOwner,
		LockUntil:    now.Add(x.cfg.LockTime),
		Limit:        limit,
		ByPriority:   x.cfg.AcquireByPriority,
		PreferTimers: x.cfg.PreferTimerJobs,
		ByDueDate:    x.cfg.AcquireByDueDate,
		PriorityMin:  x.cfg.PriorityMin,
		PriorityMax:  x.cfg.PriorityMax,

		ExclusiveOverHierarchies: x.cfg.AcquireExclusiveOverProcessHierarchies,
	}
	if x.cfg.DeploymentAware {
		params.DeploymentIDs = rt.RegisteredDeployments()
	}
	x.mu.Lock()
	if x.batchHeld >= x.cfg.MaxBatchJobs {
		params.ExcludeHandlerTypes = x.batchTypeLists[rt]
	}
	x.mu.Unlock()
	return params
}

// batches groups the exclusive jobs of each process instance (or, across
// hierarchies, of each root instance) into one batch (run one after another
// by one worker); other jobs run alone.
func batches(rt JobRuntime, jobs []runtime.AcquiredJob, now time.Time, byRoot bool) []*batch {
	var out []*batch
	byInstance := make(map[string]*batch)
	for _, j := range jobs {
		unit := j.ProcessInstanceID
		if byRoot && j.RootProcessInstanceID != "" {
			unit = j.RootProcessInstanceID
		}
		if j.Exclusive && unit != "" {
			if b := byInstance[unit]; b != nil {
				b.jobs = append(b.jobs, j)
				continue
			}
			b := &batch{rt: rt, jobs: []runtime.AcquiredJob{j}, acquired: now}
			byInstance[unit] = b
			out = append(out, b)
			continue
		}
		out = append(out, &batch{rt: rt, jobs: []runtime.AcquiredJob{j}, acquired: now})
	}
	return out
}

// work runs batches until the queue closes; after the stop, batches still
// queued are unlocked instead of run. A worker that takes batch jobs
// (one of the first MaxBatchJobs) takes them from batchQueue as well.
func (x *Executor) work(ctx context.Context, batchJobs bool) {
	defer x.workers.Done()
	queue, batchQueue := x.queue, x.batchQueue
	if !batchJobs {
		batchQueue = nil // never ready
	}
	for queue != nil || batchQueue != nil {
		var b *batch
		var ok bool
		select {
		case b, ok = <-queue:
			if !ok {
				queue = nil
				continue
			}
		case b, ok = <-batchQueue:
			if !ok {
				batchQueue = nil
				continue
			}
		}
		x.reportBusy(1)
		x.runBatch(ctx, b)
		x.reportBusy(-1)
	}
}

func (x *Executor) runBatch(ctx context.Context, b *batch) {
	if x.inGroup(b) {
		x.runGroup(ctx, b)
		return
	}
	// The batch grows while it runs: an exclusive continuation of its
	// instance runs here, after it, never beside it on another worker. A
	// continuation takes over the slot of the job that claimed it.
	acquired := len(b.jobs)
	for i := 0; i < len(b.jobs); i++ {
		if !x.isRunning() {
			x.unlock(b.rt, b.jobs[i:])
			break
		}
		picked := i < acquired // a continuation starts when its job ends
		var pickup time.Duration
		if picked {
			pickup = x.cfg.Clock().Sub(b.acquired)
		}
		x.traceSlot(&b.jobs[i])
		next := x.runJob(ctx, b.rt, b.jobs[i])
		if picked {
			x.pickedUp(b.jobs[i], pickup)
		}
		if next != nil {
			x.handOver(b.rt, b.jobs[i]) // next takes its slot
		}
		switch {
		case next == nil:
			x.done(b.rt, b.jobs[i])
		case next.Exclusive && next.ProcessInstanceID != "":
			x.mu.Lock()
			x.hold([]runtime.AcquiredJob{*next})
			x.mu.Unlock()
			b.jobs = append(b.jobs, *next)
		default:
			x.enqueue(b.rt, []runtime.AcquiredJob{*next})
		}
	}
}

// inGroup reports whether a batch runs in a group (runGroup): on a single
// writer, or on a database of several writers with GroupCommit, unless one
// of the batch's jobs may run long where jobs can run outside a group (not
// on a single writer without a deferred writer). Those run one by one,
// side by side; a slow job in a group would hold every other job up.
func (x *Executor) inGroup(b *batch) bool {
	caps := b.rt.Capabilities()
	if !caps.SingleWriter && !x.cfg.GroupCommit {
		return false
	}
	if x.timesJobs(caps) {
		for _, j := range b.jobs {
			if b.rt.MayRunLong(j.Job) {
				return false
			}
		}
	}
	return true
}

// timesJobs reports whether inGroup asks an engine of caps MayRunLong:
// where jobs run in groups and a job can also run outside one.
func (x *Executor) timesJobs(caps persistence.Capabilities) bool {
	return caps.DeferredWriter || (!caps.SingleWriter && x.cfg.GroupCommit)
}

// reportBusy counts a worker starting (+1) or finishing (-1) a batch.
func (x *Executor) reportBusy(delta int32) {
	n := x.busy.Add(delta)
	if m, ok := x.cfg.Metrics.(CycleMetrics); ok {
		m.BusyWorkers(int(n))
	}
}

// Running reports whether the executor was started and not stopped (Stop
// clears it at once, before waiting for running jobs): for health checks.
func (x *Executor) Running() bool { return x.isRunning() }

func (x *Executor) isRunning() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.running
}

// isBatchJob reports whether j is a batch job of rt (its handler type).
func (x *Executor) isBatchJob(rt JobRuntime, j runtime.AcquiredJob) bool {
	return x.batchTypes[rt][j.HandlerType]
}

// done frees the places of finished or released jobs: of an ordinary
// job in inflight, of a batch job in batchHeld.
func (x *Executor) done(rt JobRuntime, jobs ...runtime.AcquiredJob) {
	x.mu.Lock()
	for _, j := range jobs {
		if x.isBatchJob(rt, j) {
			x.batchHeld--
		} else {
			x.inflight--
		}
	}
	x.mu.Unlock()
	x.signal()
}

// handOver turns the place of finished job j into a reserved slot, which
// the job it claimed takes (enqueue moves it to batchHeld again when that
// is a batch job).
func (x *Executor) handOver(rt JobRuntime, j runtime.AcquiredJob) {
	if !x.isBatchJob(rt, j) {
		return
	}
	x.mu.Lock()
	x.batchHeld--
	x.inflight++
	x.mu.Unlock()
}

// hold records jobs as acquired by this executor; x.mu is held.
func (x *Executor) hold(jobs []runtime.AcquiredJob) {
	if x.held == nil {
		x.held = make(map[string]bool)
	}
	for _, j := range jobs {
		x.held[j.ID] = true
	}
}

// letGo forgets jobs whose run ended, or that were released.
func (x *Executor) letGo(jobs ...runtime.AcquiredJob) {
	x.mu.Lock()
	for _, j := range jobs {
		delete(x.held, j.ID)
	}
	x.mu.Unlock()
}

// unlock releases jobs acquired but not started, and wakes the other
// executors on the database (PostgreSQL NOTIFY) so that they take them at
// once. The payload is the lock owner, not an engine id, which listeners
// would ignore as their own engine's.
func (x *Executor) unlock(rt JobRuntime, jobs []runtime.AcquiredJob) {
	// Not cancelled by Stop: the jobs would stay locked until their locks expire.
	if _, err := rt.UnlockJobs(context.Background(), jobs); err != nil {
		x.log.Warn("could not unlock queued jobs; their locks will expire", "jobs", len(jobs), "error", err)
	}
	x.letGo(jobs...)
	x.done(rt, jobs...)
}

// maxGroup bounds the jobs an SQLite worker commits together. Larger groups
// write fewer WAL frames per job (32 → 64: +10 % jobs/s) but hold the one
// write lock longer (64 no-op jobs: about 15 ms).
const maxGroup = 64

// maxGroupSubtransactions bounds a PostgreSQL group (GroupCommit), whose
// jobs each run behind a savepoint, and its acquisition behind one more: a
// session keeps 64 subtransactions in shared memory, beyond which every
// snapshot of every session looks its in-progress ids up in pg_subtrans
// (the "subtransaction overflow" that slows a whole database).
const maxGroupSubtransactions = 48

// groupLimit is how many jobs a group of rt's may hold.
func groupLimit(rt JobRuntime) int {
	if rt.Capabilities().SingleWriter {
		return maxGroup
	}
	return maxGroupSubtransactions
}

// runGroup runs b with the batches of the same engine waiting behind it in
// one transaction (SQLite: one writer, and a commit per job would rewrite
// the same pages again and again). Batches of other engines run after.
// Workers take turns per engine and gather once they have it: a worker
// that gathered before waiting for the writer would run the few jobs
// queued then, while the jobs queued meanwhile waited for another worker.
// Taking turns made groups larger and SQLite about 5 % faster.
func (x *Executor) runGroup(ctx context.Context, b *batch) {
	// Several writers (PostgreSQL, GroupCommit) have no turns: their groups
	// run side by side.
	turn := x.turns[b.rt]
	if turn != nil {
		turn.Lock()
	}
	jobs := append([]runtime.AcquiredJob(nil), b.jobs...)
	var others []*batch
	limit := groupLimit(b.rt)
gather:
	for len(jobs) < limit {
		select {
		case nb, ok := <-x.queue:
			if !ok {
				break gather
			}
			if nb.rt != b.rt {
				others = append(others, nb)
				continue
			}
			if !x.inGroup(nb) {
				// A job that may run long goes back to the queue for an
				// idle worker: run after this group by this worker, jobs
				// that should run side by side would run one by one.
				if !x.requeue(nb) {
					others = append(others, nb)
				}
				break gather
			}
			jobs = append(jobs, nb.jobs...)
		default:
			break gather
		}
	}
	if !x.isRunning() {
		x.unlock(b.rt, jobs)
	} else {
		x.executeGroup(ctx, b.rt, jobs, x.cfg.Clock().Sub(b.acquired))
	}
	if turn != nil {
		turn.Unlock()
	}
	for _, o := range others {
		x.runBatch(ctx, o)
	}
}

// executeGroup runs jobs in one transaction and, in the same transaction,
// acquires more jobs, queued once committed: the acquisition shares the
// group's commit, and takes the jobs the group just created without a
// wake-up and a transaction of its own.
func (x *Executor) executeGroup(ctx context.Context, rt JobRuntime, jobs []runtime.AcquiredJob, pickup time.Duration) {
	start := time.Now()
	var runnable []runtime.AcquiredJob
	for i := range jobs {
		x.traceSlot(&jobs[i])
	}
	defer x.pickedUp(jobs[0], pickup) // one figure for the group
	for _, j := range jobs {
		if x.lockExpired(rt, j) {
			x.letGo(j)
			continue
		}
		if j.Retries <= 0 {
			x.runJob(ctx, rt, j) // a poison job: recorded, not run
			continue
		}
		runnable = append(runnable, j)
	}
	// The group's jobs are done when acquisition runs: their slots are
	// reserved again for the jobs it takes.
	ordinary := 0
	for _, j := range jobs {
		if !x.isBatchJob(rt, j) {
			ordinary++
		}
	}
	reserved := x.reserve(x.cfg.MaxJobsPerAcquisition, ordinary)
	next := func() (persistence.AcquireParams, bool) {
		return x.acquireParams(rt, reserved), reserved > 0 && x.isRunning()
	}
	errs, ran, acquired := rt.RunGroup(ctx, runnable, x.isRunning, next)
	x.letGo(runnable[:ran]...)
	for i, err := range errs {
		x.count(rt, runnable[i], err, time.Since(start))
	}
	if left := runnable[ran:]; len(left) > 0 {
		x.unlock(rt, left) // stopped meanwhile; unlock counts them done
	}
	x.cfg.Metrics.Acquired(len(acquired))
	x.release(reserved - len(acquired))
	left := make(map[string]bool, len(runnable)-ran)
	for _, j := range runnable[ran:] {
		left[j.ID] = true
	}
	finished := make([]runtime.AcquiredJob, 0, len(jobs))
	for _, j := range jobs {
		if !left[j.ID] {
			finished = append(finished, j)
		}
	}
	x.done(rt, finished...)
	if len(acquired) > 0 {
		x.enqueue(rt, acquired)
	}
}

// reserve takes up to min(limit, free slots + extra) slots for an
// acquisition and returns how many; extra counts jobs about to be done.
// Acquirers reserve before they lock, so that together they never lock
// more jobs than the queue and the workers hold.
func (x *Executor) reserve(limit, extra int) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := max(0, min(limit, x.cfg.QueueSize+x.cfg.PoolSize-x.inflight+extra))
	x.inflight += n
	return n
}

// release gives back slots reserved and not used.
func (x *Executor) release(n int) {
	if n <= 0 {
		return
	}
	x.mu.Lock()
	x.inflight -= n
	x.mu.Unlock()
}

// traceSlot gives j a place for its run's span context when the metrics
// want the trace beside the latencies (exemplars).
func (x *Executor) traceSlot(j *runtime.AcquiredJob) {
	if x.traced != nil && j.Span == nil {
		j.Span = new(trace.SpanContext)
	}
}

// pickedUp reports j's pickup latency, after its run so that the metrics
// can have its trace.
func (x *Executor) pickedUp(j runtime.AcquiredJob, d time.Duration) {
	if x.traced != nil && j.Span != nil {
		x.traced.PickupLatencyTraced(d, *j.Span)
		return
	}
	x.cfg.Metrics.PickupLatency(d)
}

// count reports a job's outcome to metrics and logs.
func (x *Executor) count(rt JobRuntime, j runtime.AcquiredJob, err error, d time.Duration) {
	switch {
	case err == nil:
		if x.traced != nil && j.Span != nil {
			x.traced.ExecutedTraced(d, *j.Span)
		} else {
			x.cfg.Metrics.Executed(d)
		}
		x.log.Debug("job done", "job", j.ID, "duration", d)
	case persistence.IsConflict(err):
		x.cfg.Metrics.Conflict()
		x.log.Debug("job conflicted; released for a retry", "job", j.ID, "error", err)
	case errors.Is(err, ErrLockLost):
		x.log.Warn("job fenced: its lock was taken over while it ran; nothing of it was committed", "job", j.ID, "error", err)
	case notStored(err):
		x.strand(rt, j, err)
	case errors.Is(err, persistence.ErrNotFound):
		x.log.Debug("job not run: it is gone", "job", j.ID, "error", err)
	default:
		x.cfg.Metrics.Failed()
	}
}

// runJob runs one job with its lock as fencing token, extending the lock
// while it runs. With a claim for its engine (x.claims) the job also
// claims one of the jobs it creates, for the slot it leaves, and returns
// it: a chain of asynchronous steps then runs without an acquisition per
// step. Claiming more would hold slots idle while the job runs, keeping
// acquisition from filling them.
func (x *Executor) runJob(ctx context.Context, rt JobRuntime, j runtime.AcquiredJob) *runtime.AcquiredJob {
	defer x.letGo(j)
	if x.lockExpired(rt, j) {
		return nil
	}
	start := time.Now()
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopBeat := func() bool { return false }
	if j.Retries > 0 { // else a poison job: its incident is recorded, it does not run
		stopBeat = x.heartbeat(jobCtx, cancel, rt, j)
		x.log.Debug("job started", "job", j.ID, "activity", j.ActivityID, "processInstance", j.ProcessInstanceID)
	}
	claim := x.claims[rt]
	if !x.isRunning() {
		claim = nil // stopping: what it creates is left to other nodes
	}
	next, err := rt.RunAcquiredContinuing(jobCtx, j, claim)
	if lost := stopBeat(); lost && err != nil {
		// Cancelled because another node holds the lock now: the job was
		// fenced, and there is nothing of ours to release.
		err = fmt.Errorf("%w: the run was cancelled when the lock was lost (%v)", ErrLockLost, err)
	}
	x.count(rt, j, err, time.Since(start))
	return next
}

// lockExpired reports whether j's lock expired while it waited in the
// queue (its node was frozen, or the queue was slow): another node may run
// it by now, so its work is not started, which would repeat an outside
// effect for nothing; fencing at the flush would only stop its commit. The
// lock is released if it is still ours, so that the job is not charged a
// failed attempt as if this node had died.
func (x *Executor) lockExpired(rt JobRuntime, j runtime.AcquiredJob) bool {
	if j.LockExpiration == nil || x.cfg.Clock().Before(*j.LockExpiration) {
		return false
	}
	x.log.Warn("job fenced: its lock expired before it started; not run", "job", j.ID, "activity", j.ActivityID, "lockExpired", *j.LockExpiration)
	x.cfg.Metrics.Conflict()
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if _, err := rt.UnlockJobs(ctx, []runtime.AcquiredJob{j}); err != nil {
		x.log.Warn("could not release the fenced job; its lock has expired anyway", "job", j.ID, "error", err)
	}
	return true
}

// heartbeat extends the job's lock every third of the lock time while it
// runs, and cancels the job when the lock is lost. It returns a function
// that stops it and reports whether the lock was lost.
func (x *Executor) heartbeat(ctx context.Context, cancel context.CancelFunc, rt JobRuntime, j runtime.AcquiredJob) func() bool {
	if !rt.Capabilities().NeedsHeartbeat {
		// An in-memory SQLite database: the job's transaction holds the
		// only write lock, so no one can take the job over while it runs.
		return func() bool { return false }
	}
	stop := make(chan struct{})
	var lost atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(x.cfg.LockTime / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				ok, err := rt.ExtendLock(ctx, j, x.cfg.Clock().Add(x.cfg.LockTime))
				if err != nil {
					x.log.Warn("lock extension failed", "job", j.ID, "error", err)
					continue
				}
				if !ok {
					x.log.Warn("job lock lost while running; cancelling the job", "job", j.ID)
					lost.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	return func() bool { close(stop); wg.Wait(); return lost.Load() }
}

// String describes the executor's settings, for logs.
func (x *Executor) String() string {
	return fmt.Sprintf("job executor %s (pool %d, queue %d, %d per acquisition)", x.cfg.LockOwner, x.cfg.PoolSize, x.cfg.QueueSize, x.cfg.MaxJobsPerAcquisition)
}

func allSingleWriter(engines []JobRuntime) bool {
	for _, rt := range engines {
		if !rt.Capabilities().SingleWriter {
			return false
		}
	}
	return len(engines) > 0
}
