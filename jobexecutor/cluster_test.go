package jobexecutor_test

// Cluster tests: several engines on one PostgreSQL database, each with a job
// executor of its own and a distinct lock owner, as the nodes of a cluster
// would run them. They use the real clock: locks expire and executors sleep
// in real time.

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// startExecutor starts a job executor named owner on eng; it is stopped
// (gracefully, before eng closes) when the test ends.
func startExecutor(t *testing.T, eng *bpmnlite.Engine, owner string, cfg bpmnlite.JobExecutorConfig) *jobexecutor.Executor {
	t.Helper()
	cfg.LockOwner = owner
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	x, err := bpmnlite.NewJobExecutor(cfg, eng)
	if err != nil {
		t.Fatalf("job executor %s: %v", owner, err)
	}
	if err := x.Start(t.Context()); err != nil {
		t.Fatalf("start job executor %s: %v", owner, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = x.Stop(ctx)
	})
	return x
}

// callCounter counts delegate calls per process instance and activity.
type callCounter struct {
	mu    sync.Mutex
	calls map[string]int // "pi/activity" → calls
	total atomic.Int64
}

func newCallCounter() *callCounter { return &callCounter{calls: map[string]int{}} }

func (c *callCounter) Execute(_ context.Context, ex *bpmnlite.Execution) error {
	c.mu.Lock()
	c.calls[ex.ProcessInstanceID()+"/"+ex.ActivityID()]++
	c.mu.Unlock()
	c.total.Add(1)
	return nil
}

func (c *callCounter) get(pi, activity string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[pi+"/"+activity]
}

// execMetrics counts what a job executor reports.
type execMetrics struct {
	acquisitions, acquired, executed, failed, conflicts atomic.Int64
}

func (m *execMetrics) Acquired(n int) {
	m.acquisitions.Add(1)
	m.acquired.Add(int64(n))
}
func (m *execMetrics) Executed(time.Duration)      { m.executed.Add(1) }
func (m *execMetrics) Failed()                     { m.failed.Add(1) }
func (m *execMetrics) Conflict()                   { m.conflicts.Add(1) }
func (m *execMetrics) QueueDepth(int)              {}
func (m *execMetrics) PickupLatency(time.Duration) {}

// sendJobNotification sends a job notification from eng's database, as a
// node that committed a job would.
func sendJobNotification(t *testing.T, eng *bpmnlite.Engine, payload string) {
	t.Helper()
	ctx := t.Context()
	tx, err := harness.Store(eng).Begin(ctx, false)
	if err != nil {
		t.Fatalf("notify: %v", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", persistence.JobChannel(harness.Store(eng)), payload); err != nil {
		t.Fatalf("notify: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("notify: %v", err)
	}
}

// jobLog returns the job log grouped by job id.
func jobLog(t *testing.T, eng *bpmnlite.Engine) map[string][]*bpmnlite.JobLogEntry {
	t.Helper()
	entries, err := eng.JobLog(t.Context(), bpmnlite.JobLogQuery{})
	if err != nil {
		t.Fatalf("job log: %v", err)
	}
	byJob := map[string][]*bpmnlite.JobLogEntry{}
	for _, e := range entries {
		byJob[e.JobID] = append(byJob[e.JobID], e)
	}
	return byJob
}

// logEvents summarizes a job's log after its creation as
// "event:owner:retries" entries. The log is ordered by timestamps taken on
// different nodes at different points of their transactions, so "created"
// may come after "locked": it is left out.
func logEvents(entries []*bpmnlite.JobLogEntry) string {
	var s []string
	for _, e := range entries {
		if e.Event != bpmnlite.JobLogCreated {
			s = append(s, fmt.Sprintf("%s:%s:%d", e.Event, e.LockOwner, e.Retries))
		}
	}
	return strings.Join(s, " ")
}

// noIncidentsNoJobs checks that nothing is left behind.
func noIncidentsNoJobs(t *testing.T, eng *bpmnlite.Engine) {
	t.Helper()
	incidents, err := eng.Incidents(t.Context(), bpmnlite.IncidentQuery{})
	if err != nil {
		t.Fatalf("incidents: %v", err)
	}
	for _, in := range incidents {
		t.Errorf("incident at %s: %s", in.ActivityID, in.Message)
	}
	jobs, err := eng.Jobs(t.Context(), bpmnlite.JobQuery{})
	if err != nil {
		t.Fatalf("jobs: %v", err)
	}
	for _, j := range jobs {
		t.Errorf("job left at %s: retries %d, owner %q, exception %q", j.ActivityID, j.Retries, j.LockOwner, j.ExceptionMessage)
	}
}

// deployBranches deploys process "branches": a parallel fork into three
// asynchronous service tasks a, b and c (delegate "branch"), a parallel
// join, then service task "after" (delegate "after").
func deployBranches(t *testing.T, eng *bpmnlite.Engine) {
	t.Helper()
	xml := enginetest.Defs(enginetest.Executable("branches", `<startEvent id="start"/><parallelGateway id="fork"/>
		<serviceTask id="a" camunda:class="branch" camunda:asyncBefore="true"/>
		<serviceTask id="b" camunda:class="branch" camunda:asyncBefore="true"/>
		<serviceTask id="c" camunda:class="branch" camunda:asyncBefore="true"/>
		<parallelGateway id="join"/><serviceTask id="after" camunda:class="after"/><endEvent id="end"/>`,
		enginetest.Chain("start", "fork"), enginetest.Chain("fork", "a", "join"), enginetest.Chain("fork", "b", "join"), enginetest.Chain("fork", "c", "join"),
		enginetest.Chain("join", "after", "end")))
	if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "branches", Resources: []bpmnlite.Resource{{Name: "branches.bpmn", Bytes: []byte(xml)}}}); err != nil {
		t.Fatal(err)
	}
}

// 2,000 instances of a process with three asynchronous branches into a
// parallel join, run by two nodes on one database: every job succeeds
// exactly once, every join continues exactly once. The branch jobs of one
// instance are exclusive and an advisory lock keeps them on one node, but a
// node whose acquisition statement began before the other's commit may
// still take one (it does not see the other's locks); the second to reach
// the join then fails on the optimistic lock and is retried without
// spending a retry. The same holds with group commit, where a job's
// conflict (or a deadlock between two groups) rolls back only that job.
func TestClusterThreeAsyncBranches(t *testing.T) {
	t.Run("a transaction per job", func(t *testing.T) { clusterThreeAsyncBranches(t, false) })
	t.Run("group commit", func(t *testing.T) { clusterThreeAsyncBranches(t, true) })
}

func clusterThreeAsyncBranches(t *testing.T, groupCommit bool) {
	b := testdb.Postgres(t)
	const instances = 2000
	branch, after := newCallCounter(), newCallCounter()
	owners := []string{"node-a", "node-b"}
	var engines []*bpmnlite.Engine
	for range owners {
		eng := harness.OpenNode(t, b, bpmnlite.Config{})
		eng.RegisterDelegate("branch", branch)
		eng.RegisterDelegate("after", after)
		engines = append(engines, eng)
	}
	deployBranches(t, engines[0])
	metrics := make([]*execMetrics, len(owners))
	var executors []*jobexecutor.Executor
	for i, owner := range owners {
		metrics[i] = &execMetrics{}
		executors = append(executors, startExecutor(t, engines[i], owner, bpmnlite.JobExecutorConfig{
			PoolSize: 4, MaxJobsPerAcquisition: 16, WaitTime: 100 * time.Millisecond, MaxWait: time.Second, Metrics: metrics[i],
			GroupCommit: groupCommit,
		}))
	}

	began := time.Now()
	// Two starters per node, while the executors run.
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	const starters = 4
	for s := range starters {
		wg.Go(func() {
			eng := engines[s%len(engines)]
			for range instances / starters {
				if _, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "branches"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("start: %v", err)
	}
	started := time.Since(began)
	harness.WaitFor(t, "every join to continue", 5*time.Minute, func() bool { return after.total.Load() >= instances })
	harness.WaitFor(t, "no jobs left", 30*time.Second, func() bool { return harness.CountRows(t, harness.Store(engines[0]), "SELECT count(*) FROM job") == 0 })
	elapsed := time.Since(began)
	for _, x := range executors {
		if err := x.Stop(t.Context()); err != nil {
			t.Fatalf("stop: %v", err)
		}
	}

	pis, err := engines[1].HistoricProcessInstances(t.Context(), bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "branches"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pis) != instances {
		t.Fatalf("process instances = %d, want %d", len(pis), instances)
	}
	for _, pi := range pis {
		if pi.State != bpmnlite.StateCompleted || pi.EndActivityID != "end" {
			t.Errorf("instance %s: state %s, ended at %q, want COMPLETED at end", pi.ID, pi.State, pi.EndActivityID)
		}
		if n := after.get(pi.ID, "after"); n != 1 {
			t.Errorf("instance %s: the join continued %d times, want 1", pi.ID, n)
		}
	}
	noIncidentsNoJobs(t, engines[0])

	// Every job succeeded exactly once; a delegate call that did not commit
	// must be a conflict recorded in the job log, which spent no retry.
	jobsOf := map[string][]string{} // pi → activities with a job
	succeededBy := map[string]int{}
	conflicts := 0
	for id, entries := range jobLog(t, engines[0]) {
		first := entries[0]
		jobsOf[first.ProcessInstanceID] = append(jobsOf[first.ProcessInstanceID], first.ActivityID)
		created, succeeded, failed := 0, 0, 0
		for _, e := range entries {
			switch e.Event {
			case bpmnlite.JobLogCreated:
				created++
			case bpmnlite.JobLogSucceeded:
				succeeded++
				succeededBy[e.LockOwner]++
			case bpmnlite.JobLogFailed:
				failed++
				if !strings.HasPrefix(e.Message, "optimistic lock conflict") || e.Retries != 3 {
					t.Errorf("job %s failed with retries %d: %s", id, e.Retries, e.Message)
				}
			}
		}
		conflicts += failed
		if created != 1 || succeeded != 1 {
			t.Errorf("job %s at %s: created %d times, succeeded %d times, want 1 each (log: %s)", id, first.ActivityID, created, succeeded, logEvents(entries))
		}
		if calls := branch.get(first.ProcessInstanceID, first.ActivityID); calls != 1+failed {
			t.Errorf("job %s at %s: %d delegate calls, want 1 plus %d rolled-back conflicts (log: %s)", id, first.ActivityID, calls, failed, logEvents(entries))
		}
	}
	if len(jobsOf) != instances {
		t.Errorf("instances with jobs = %d, want %d", len(jobsOf), instances)
	}
	for pi, acts := range jobsOf {
		if slices.Sort(acts); strings.Join(acts, ",") != "a,b,c" {
			t.Errorf("instance %s: jobs at %v, want a, b and c", pi, acts)
		}
	}
	for _, owner := range owners {
		if succeededBy[owner] == 0 {
			t.Errorf("node %s ran no job (%v): not a cluster run", owner, succeededBy)
		}
	}
	var metricConflicts, metricFailed int64
	for _, m := range metrics {
		metricConflicts += m.conflicts.Load()
		metricFailed += m.failed.Load()
	}
	if metricFailed != 0 || metricConflicts != int64(conflicts) {
		t.Errorf("metrics: %d failed, %d conflicts; want 0 and the job log's %d", metricFailed, metricConflicts, conflicts)
	}
	t.Logf("%d instances, %d jobs: started in %v, all done in %v; jobs per node %v; %d join conflicts retried",
		instances, 3*instances, started.Round(time.Millisecond), elapsed.Round(time.Millisecond), succeededBy, conflicts)
}

// blockingDelegate signals each call on entered, then blocks until release
// is closed or its job's context ends (the executor was stopped or killed).
type blockingDelegate struct {
	entered chan string // process instance ids
	release chan struct{}
	calls   atomic.Int64
	mu      sync.Mutex
	of      map[string]int // calls by process instance
}

func newBlockingDelegate() *blockingDelegate {
	return &blockingDelegate{entered: make(chan string, 100), release: make(chan struct{}), of: map[string]int{}}
}

func (d *blockingDelegate) Execute(ctx context.Context, ex *bpmnlite.Execution) error {
	d.calls.Add(1)
	d.mu.Lock()
	d.of[ex.ProcessInstanceID()]++
	d.mu.Unlock()
	d.entered <- ex.ProcessInstanceID()
	select {
	case <-d.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *blockingDelegate) callsOf(pi string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.of[pi]
}

// await waits for n calls to have entered the delegate.
func (d *blockingDelegate) await(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for i := 0; i < n; i++ {
		select {
		case <-d.entered:
		case <-deadline:
			t.Fatalf("%d of %d jobs started within %v", i, n, timeout)
		}
	}
}

// deployAsyncWork deploys process "steps": an asynchronous service task
// "work" followed by an asynchronous service task "next".
func deployAsyncWork(t *testing.T, eng *bpmnlite.Engine) {
	t.Helper()
	xml := enginetest.Defs(enginetest.Executable("steps", `<startEvent id="start"/>
		<serviceTask id="work" camunda:class="work" camunda:asyncBefore="true"/>
		<serviceTask id="next" camunda:class="next" camunda:asyncBefore="true"/><endEvent id="end"/>`,
		enginetest.Chain("start", "work", "next", "end")))
	if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "steps", Resources: []bpmnlite.Resource{{Name: "steps.bpmn", Bytes: []byte(xml)}}}); err != nil {
		t.Fatal(err)
	}
}

func startInstances(t *testing.T, eng *bpmnlite.Engine, key string, n int) []string {
	t.Helper()
	var pis []string
	for range n {
		pi, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: key})
		if err != nil {
			t.Fatalf("start %s: %v", key, err)
		}
		pis = append(pis, pi)
	}
	return pis
}

// completedCount counts the completed instances among pis.
func completedCount(t *testing.T, eng *bpmnlite.Engine, pis []string) int {
	t.Helper()
	n := 0
	for _, pi := range pis {
		ps, err := eng.HistoricProcessInstances(t.Context(), bpmnlite.HistoricProcessInstanceQuery{ID: pi, State: bpmnlite.StateCompleted})
		if err != nil {
			t.Fatal(err)
		}
		n += len(ps)
	}
	return n
}

// lockedBy returns the jobs at activity held by owner.
func lockedBy(t *testing.T, eng *bpmnlite.Engine, activity, owner string) []*bpmnlite.Job {
	t.Helper()
	js, err := eng.Jobs(t.Context(), bpmnlite.JobQuery{ActivityID: activity, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []*bpmnlite.Job
	for _, j := range js {
		if j.LockOwner == owner {
			out = append(out, j)
		}
	}
	return out
}

// A node that dies mid-run leaves its jobs locked; while it lived, its
// heartbeat kept the locks alive, and once they expire another node takes
// the jobs over, counting the lost run as a failed attempt (the poison-job
// rule), and completes them: nothing is lost.
//
// The crash is simulated by cutting node A off the database (it reaches it
// through a proxy) while every job it acquired is running (none is queued),
// then stopping it with an expired deadline: the jobs' contexts are
// cancelled, their transactions cannot commit, their heartbeats stop, and
// A cannot release them. For running jobs this leaves the database exactly
// as a killed process would.
func TestClusterKilledNodeJobsTakenOver(t *testing.T) {
	b := testdb.Postgres(t)
	const n = 4
	const lockTime = time.Second
	proxyA := testdb.NewProxy(t, b.URL)
	bA := b
	bA.URL = proxyA.Through(b.URL)
	engA, engB := harness.OpenNode(t, bA, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	hung := newBlockingDelegate()
	engA.RegisterDelegate("work", hung)
	engA.RegisterDelegate("next", newCallCounter())
	takenOver := newBlockingDelegate()
	next := newCallCounter()
	engB.RegisterDelegate("work", takenOver)
	engB.RegisterDelegate("next", next)
	deployAsyncWork(t, engA)

	xa := startExecutor(t, engA, "node-a", bpmnlite.JobExecutorConfig{PoolSize: n, LockTime: lockTime, WaitTime: 50 * time.Millisecond})
	pis := startInstances(t, engA, "steps", n)
	hung.await(t, n, 10*time.Second)
	if js := lockedBy(t, engA, "work", "node-a"); len(js) != n {
		t.Fatalf("jobs locked by node-a = %d, want %d", len(js), n)
	}
	startExecutor(t, engB, "node-b", bpmnlite.JobExecutorConfig{PoolSize: 4, LockTime: time.Minute, WaitTime: 50 * time.Millisecond, MaxWait: 200 * time.Millisecond})
	// Twice the lock time: A's heartbeat must keep B away.
	time.Sleep(2 * lockTime)
	if js := lockedBy(t, engA, "work", "node-a"); len(js) != n || takenOver.calls.Load() != 0 {
		t.Fatalf("after 2 lock times with node-a alive: %d jobs still locked by it, node-b ran %d; want %d and 0", len(js), takenOver.calls.Load(), n)
	}

	proxyA.Cut()
	killed, kill := context.WithCancel(t.Context())
	kill()
	if err := xa.Stop(killed); err == nil {
		t.Fatal("stopping node-a with an expired deadline reported no error")
	}
	_ = engA.Close()
	killedAt := time.Now()

	takenOver.await(t, n, 10*time.Second)
	took := time.Since(killedAt)
	for _, j := range lockedBy(t, engB, "work", "node-b") {
		if j.FailedAttempts != 1 || j.Retries != 2 || j.ExceptionMessage != persistence.LockExpiredMessage {
			t.Errorf("taken-over job %s: failed attempts %d, retries %d, exception %q; want 1, 2 and the lock-expired message",
				j.ID, j.FailedAttempts, j.Retries, j.ExceptionMessage)
		}
	}
	close(takenOver.release)
	harness.WaitFor(t, "every instance to complete", 20*time.Second, func() bool { return completedCount(t, engB, pis) == n })

	if took > lockTime+5*time.Second {
		t.Errorf("takeover took %v after the kill, lock time %v", took, lockTime)
	}
	if c := hung.calls.Load(); c != n {
		t.Errorf("node-a ran work %d times, want %d", c, n)
	}
	if c := takenOver.calls.Load(); c != n {
		t.Errorf("node-b ran work %d times, want %d", c, n)
	}
	for _, pi := range pis {
		if c := next.get(pi, "next"); c != 1 {
			t.Errorf("instance %s: next ran %d times on node-b, want 1", pi, c)
		}
	}
	noIncidentsNoJobs(t, engB)
	// node-a's run left no trace but its lock; node-b's lock spent a retry.
	for id, entries := range jobLog(t, engB) {
		if entries[0].ActivityID != "work" {
			continue
		}
		if got, want := logEvents(entries), "locked:node-a:3 locked:node-b:2 succeeded:node-b:2"; got != want {
			t.Errorf("job %s log = %s, want %s", id, got, want)
		}
	}
	t.Logf("node-b took the jobs over %v after node-a died (lock time %v)", took.Round(time.Millisecond), lockTime)
}

// awaitListening returns once x, idle with a long wait, reacts to a job
// notification from another node: its listener is then connected.
func awaitListening(t *testing.T, from *bpmnlite.Engine, m *execMetrics) {
	t.Helper()
	harness.WaitFor(t, "the first acquisition", 10*time.Second, func() bool { return m.acquisitions.Load() > 0 })
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		before := m.acquisitions.Load()
		sendJobNotification(t, from, "probe")
		for wait := time.Now().Add(200 * time.Millisecond); time.Now().Before(wait); time.Sleep(5 * time.Millisecond) {
			if m.acquisitions.Load() > before {
				return
			}
		}
	}
	t.Fatal("the executor never reacted to a notification")
}

// A job committed on a node without an executor wakes the executor of
// another node at once through NOTIFY, although that executor idles with a
// 30-second wait.
func TestClusterNotifyWakesOtherNode(t *testing.T) {
	b := testdb.Postgres(t)
	engA, picked, _ := notifiedNodes(t, b)

	committed := time.Now()
	pi := startInstances(t, engA, "steps", 1)
	var latency time.Duration
	select {
	case at := <-picked:
		latency = at.Sub(committed)
	case <-time.After(10 * time.Second):
		t.Fatal("node-b did not pick up the job within 10s (its wait time is 30s)")
	}
	if latency >= 2*time.Second {
		t.Errorf("cross-node pickup took %v, want < 2s", latency)
	}
	harness.WaitFor(t, "the instance to complete", 10*time.Second, func() bool { return completedCount(t, engA, pi) == 1 })
	t.Logf("cross-node pickup after %v", latency)
}

// A node whose own executor does not serve a new job's priority still
// wakes the other nodes: its executor having room is not enough to skip
// the notification.
func TestClusterNotifyWhenLocalExecutorDoesNotServeTheJob(t *testing.T) {
	b := testdb.Postgres(t)
	engA, picked, _ := notifiedNodes(t, b)
	highOnly := int64(100)
	startExecutor(t, engA, "node-a", bpmnlite.JobExecutorConfig{PriorityMin: &highOnly})
	committed := time.Now()
	startInstances(t, engA, "steps", 1) // its jobs have priority 0
	select {
	case at := <-picked:
		t.Logf("node-b picked the job up %v after the commit", at.Sub(committed))
	case <-time.After(10 * time.Second):
		t.Fatal("node-b did not pick up the job within 10s (its wait time is 30s): node-a did not notify")
	}
}

// notifiedNodes opens node A without an executor and node B whose
// executor idles with a 30-second wait and is listening; B's first job of
// process "steps" (deployAsyncWork) reports when it started on picked.
func notifiedNodes(t *testing.T, b testdb.Backend) (engA *bpmnlite.Engine, picked <-chan time.Time, m *execMetrics) {
	t.Helper()
	engA, engB := harness.OpenNode(t, b, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	started := make(chan time.Time, 1)
	engB.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		select {
		case started <- time.Now():
		default:
		}
		return nil
	}))
	engB.RegisterDelegate("next", newCallCounter())
	deployAsyncWork(t, engA)
	m = &execMetrics{}
	startExecutor(t, engB, "node-b", bpmnlite.JobExecutorConfig{WaitTime: 30 * time.Second, MaxWait: 30 * time.Second, Metrics: m})
	awaitListening(t, engA, m)
	return engA, started, m
}

// A job created inside the caller's transaction (StartTx) wakes the other
// node when the caller commits, not before: the notification travels with
// that commit.
func TestClusterNotifyAtCallersCommit(t *testing.T) {
	b := testdb.Postgres(t)
	engA, picked, m := notifiedNodes(t, b)

	tx, err := harness.CallerPool(t, b).Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := engA.StartTx(t.Context(), tx, bpmnlite.StartRequest{Key: "steps"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-picked:
		t.Fatal("node-b ran a job of a transaction that has not committed")
	case <-time.After(300 * time.Millisecond):
	}
	before := m.acquisitions.Load()
	committed := time.Now()
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-picked:
		t.Logf("picked up %v after the caller's commit", at.Sub(committed))
	case <-time.After(10 * time.Second):
		t.Fatalf("node-b did not pick up the job within 10s of the caller's commit (its wait time is 30s; %d acquisitions since)", m.acquisitions.Load()-before)
	}
}

// acquireIn starts a transaction on eng and acquires up to limit jobs for
// owner in it; the caller commits or rolls back.
func acquireIn(ctx context.Context, eng *bpmnlite.Engine, owner string, limit int) (persistence.Tx, []*persistence.Job, error) {
	tx, err := harness.Store(eng).Begin(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	jobs, err := persistence.AcquireJobs(ctx, tx, persistence.AcquireParams{Now: now, LockOwner: owner, LockUntil: now.Add(time.Minute), Limit: limit})
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, nil, err
	}
	return tx, jobs, nil
}

// competingAcquisition runs a whole acquisition on eng for owner while the
// test holds another one open, failing the test when it blocks.
func competingAcquisition(t *testing.T, eng *bpmnlite.Engine, owner string) []*persistence.Job {
	t.Helper()
	type result struct {
		jobs []*persistence.Job
		err  error
	}
	done := make(chan result, 1)
	go func() {
		tx, jobs, err := acquireIn(t.Context(), eng, owner, 10)
		if err == nil {
			err = tx.Commit(t.Context())
		}
		done <- result{jobs, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("competing acquisition: %v", r.err)
		}
		return r.jobs
	case <-time.After(5 * time.Second):
		t.Fatal("the competing acquisition blocked on the first one")
		return nil
	}
}

// S28, competing job acquisitions: two acquisitions at the same moment
// select the same job; the first locks it, the second gets no job and no
// error (FOR UPDATE SKIP LOCKED: it neither blocks nor conflicts).
func TestClusterCompetingJobAcquisitions(t *testing.T) {
	b := testdb.Postgres(t)
	file := harness.Corpus(t, "camunda/concurrency/CompetingJobAcquisitionTest.testCompetingJobAcquisitions.bpmn20.xml")
	engA, engB := harness.OpenNode(t, b, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	if _, err := engA.DeployFiles(t.Context(), "acquisition", file); err != nil {
		t.Fatal(err)
	}
	startInstances(t, engA, "CompetingJobAcquisitionProcess", 1) // a PT0H boundary timer: one job, due now
	first, won, err := acquireIn(t.Context(), engA, "node-a", 10)
	if err != nil || len(won) != 1 {
		t.Fatalf("first acquisition: %d jobs, error %v; want 1 job", len(won), err)
	}
	defer first.Rollback(t.Context())
	if lost := competingAcquisition(t, engB, "node-b"); len(lost) != 0 {
		t.Fatalf("competing acquisition got %d jobs, want 0", len(lost))
	}
	if err := first.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if js := lockedBy(t, engA, "", "node-a"); len(js) != 1 || js[0].ID != won[0].ID {
		t.Fatalf("jobs locked by node-a = %d, want the one it acquired", len(js))
	}
}

// The exclusive jobs of one instance are not split between two nodes
// acquiring at once: while the first holds one of them, uncommitted, the
// second takes none of the others, and once the first commits its live
// lock keeps them back.
func TestClusterExclusiveJobsStayOnOneNode(t *testing.T) {
	b := testdb.Postgres(t)
	engA, engB := harness.OpenNode(t, b, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	deployBranches(t, engA)
	startInstances(t, engA, "branches", 1) // three exclusive jobs
	first, won, err := acquireIn(t.Context(), engA, "node-a", 1)
	if err != nil || len(won) != 1 {
		t.Fatalf("first acquisition: %d jobs, error %v; want 1 job", len(won), err)
	}
	defer first.Rollback(t.Context())
	if lost := competingAcquisition(t, engB, "node-b"); len(lost) != 0 {
		t.Fatalf("competing acquisition got %d jobs of the instance node-a is acquiring, want 0", len(lost))
	}
	if err := first.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if lost := competingAcquisition(t, engB, "node-b"); len(lost) != 0 {
		t.Fatalf("acquisition got %d jobs of an instance with a locked exclusive job, want 0", len(lost))
	}
}

// S28 with running executors: two nodes and three instances whose timers
// are due, both executors acquiring at once; each job is locked and run
// exactly once, and no acquisition fails.
func TestClusterCompetingExecutors(t *testing.T) {
	b := testdb.Postgres(t)
	file := harness.Corpus(t, "camunda/concurrency/CompetingJobAcquisitionTest.testCompetingJobAcquisitions.bpmn20.xml")
	logs := &warnLog{}
	var engines []*bpmnlite.Engine
	for range 2 {
		engines = append(engines, harness.OpenNode(t, b, bpmnlite.Config{Logger: slog.New(logs)}))
	}
	if _, err := engines[0].DeployFiles(t.Context(), "acquisition", file); err != nil {
		t.Fatal(err)
	}
	pis := startInstances(t, engines[0], "CompetingJobAcquisitionProcess", 3)
	metrics := []*execMetrics{{}, {}}
	for i, owner := range []string{"node-a", "node-b"} {
		startExecutor(t, engines[i], owner, bpmnlite.JobExecutorConfig{WaitTime: 30 * time.Second, Logger: slog.New(logs), Metrics: metrics[i]})
	}
	harness.WaitFor(t, "every timer to fire", 10*time.Second, func() bool {
		for _, pi := range pis {
			ts, err := engines[1].Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
			if err != nil {
				t.Fatal(err)
			}
			if len(ts) != 1 || ts[0].TaskDefinitionKey != "secondTask" {
				return false
			}
		}
		return true
	})
	noIncidentsNoJobs(t, engines[0])
	for id, entries := range jobLog(t, engines[0]) {
		locked, succeeded := 0, 0
		for _, e := range entries {
			switch e.Event {
			case bpmnlite.JobLogLocked:
				locked++
			case bpmnlite.JobLogSucceeded:
				succeeded++
			}
		}
		if locked != 1 || succeeded != 1 {
			t.Errorf("job %s: locked %d times, succeeded %d times; want once each (log: %s)", id, locked, succeeded, logEvents(entries))
		}
	}
	if got := metrics[0].acquired.Load() + metrics[1].acquired.Load(); got != 3 {
		t.Errorf("jobs acquired by both nodes = %d, want 3", got)
	}
	if w := logs.String(); w != "" {
		t.Errorf("warnings or failed acquisitions:\n%s", w)
	}
}

// warnLog is a log handler keeping warnings, errors and failed
// acquisitions.
type warnLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnLog) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn || r.Message == "acquisition failed" {
		w.mu.Lock()
		w.msgs = append(w.msgs, r.Level.String()+" "+r.Message)
		w.mu.Unlock()
	}
	return nil
}
func (w *warnLog) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnLog) WithGroup(string) slog.Handler      { return w }
func (w *warnLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// A node shut down gracefully hands its queued jobs back at once: the other
// node, idle with a 30-second wait and facing 5-minute locks, completes them
// while the stopping node's running job is still finishing.
func TestClusterGracefulShutdownHandsOverQueuedJobs(t *testing.T) {
	b := testdb.Postgres(t)
	const n = 4
	engA, engB := harness.OpenNode(t, b, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	running := newBlockingDelegate()
	engA.RegisterDelegate("work", running)
	engA.RegisterDelegate("next", newCallCounter())
	workB, nextB := newCallCounter(), newCallCounter()
	engB.RegisterDelegate("work", workB)
	engB.RegisterDelegate("next", nextB)
	deployAsyncWork(t, engA)
	// One worker and room for three queued jobs; "next" jobs only on node-b.
	xa := startExecutor(t, engA, "node-a", bpmnlite.JobExecutorConfig{PoolSize: 1, QueueSize: n - 1, LockTime: 5 * time.Minute, WaitTime: 50 * time.Millisecond})
	pis := startInstances(t, engA, "steps", n)
	running.await(t, 1, 10*time.Second)
	harness.WaitFor(t, "node-a to lock every job", 10*time.Second, func() bool { return len(lockedBy(t, engA, "work", "node-a")) == n })
	m := &execMetrics{}
	startExecutor(t, engB, "node-b", bpmnlite.JobExecutorConfig{WaitTime: 30 * time.Second, MaxWait: 30 * time.Second, Metrics: m})
	awaitListening(t, engA, m)
	if got := m.acquired.Load(); got != 0 {
		t.Fatalf("node-b acquired %d jobs locked by node-a", got)
	}

	stopped := make(chan error, 1)
	stopAt := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		stopped <- xa.Stop(ctx)
	}()
	harness.WaitFor(t, "node-b to complete the queued jobs", 3*time.Second, func() bool { return completedCount(t, engB, pis) == n-1 })
	handover := time.Since(stopAt)
	select {
	case err := <-stopped:
		t.Fatalf("node-a stopped (%v) before its running job finished", err)
	default:
	}
	close(running.release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop node-a: %v", err)
	}
	// node-a's own job leaves a "next" job, which node-b runs.
	harness.WaitFor(t, "every instance to complete", 10*time.Second, func() bool { return completedCount(t, engB, pis) == n })
	for _, pi := range pis {
		if got := running.callsOf(pi) + workB.get(pi, "work"); got != 1 {
			t.Errorf("instance %s: work ran %d times, want 1", pi, got)
		}
		if got := nextB.get(pi, "next"); got != 1 {
			t.Errorf("instance %s: next ran %d times on node-b, want 1", pi, got)
		}
	}
	noIncidentsNoJobs(t, engB)
	// The handed-over jobs kept their retries: an unlock is no failed attempt.
	handedOver := 0
	for id, entries := range jobLog(t, engB) {
		if entries[0].ActivityID != "work" {
			continue
		}
		got := logEvents(entries)
		switch got {
		case "locked:node-a:3 succeeded:node-a:3":
		case "locked:node-a:3 locked:node-b:3 succeeded:node-b:3":
			handedOver++
		default:
			t.Errorf("job %s log = %s", id, got)
		}
	}
	if handedOver != n-1 {
		t.Errorf("jobs handed over = %d, want %d", handedOver, n-1)
	}
	t.Logf("node-b completed the %d queued jobs %v after node-a began to stop", n-1, handover.Round(time.Millisecond))
}
