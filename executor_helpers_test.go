package bpmnlite_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Helpers of the job executor behaviour tests (prefixed je).

// jeCounts are the counters a jeMetrics recorded.
type jeCounts struct {
	acquisitions int // calls of Acquired, one per acquisition
	acquired     int
	executed     int
	failed       int
	conflicts    int
	depths       []int
	latencies    []time.Duration
}

// jeMetrics records what a job executor reports through its Metrics.
type jeMetrics struct {
	mu sync.Mutex
	c  jeCounts
}

func (m *jeMetrics) Acquired(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.acquisitions++
	m.c.acquired += n
}

func (m *jeMetrics) Executed(time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.executed++
}

func (m *jeMetrics) Failed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.failed++
}

func (m *jeMetrics) Conflict() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.conflicts++
}

func (m *jeMetrics) QueueDepth(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.depths = append(m.c.depths, n)
}

func (m *jeMetrics) PickupLatency(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.latencies = append(m.c.latencies, d)
}

// snapshot returns a copy of the counters.
func (m *jeMetrics) snapshot() jeCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.depths, c.latencies = slices.Clone(c.depths), slices.Clone(c.latencies)
	return c
}

// await waits until the counters satisfy cond: the executor reports a run
// after its commit, so a test seeing the outcome in the database may be
// ahead of the metrics.
func (m *jeMetrics) await(t *testing.T, what string, cond func(c jeCounts) bool) jeCounts {
	t.Helper()
	waitFor(t, "metrics: "+what, 10*time.Second, func() bool { return cond(m.snapshot()) })
	return m.snapshot()
}

// waitCycles waits until the executor has run n more acquisitions than
// when called: the acquisition loop has then looked at the jobs present now.
func (m *jeMetrics) waitCycles(t *testing.T, n int) {
	t.Helper()
	from := m.snapshot().acquisitions
	waitFor(t, fmt.Sprintf("%d acquisition cycles", n), 10*time.Second, func() bool { return m.snapshot().acquisitions >= from+n })
}

// jeStart starts a job executor for e's engine on its fake clock, with
// quick waits for tests; cfg presets the rest. The executor is stopped when
// the test ends.
func (e *env) jeStart(cfg bpmnlite.JobExecutorConfig) *jobexecutor.Executor {
	e.T.Helper()
	if cfg.Clock == nil && e.Clock != nil {
		cfg.Clock = e.Clock.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.WaitTime == 0 {
		cfg.WaitTime = 10 * time.Millisecond
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 100 * time.Millisecond
	}
	x, err := bpmnlite.NewJobExecutor(cfg, e.Eng)
	if err != nil {
		e.T.Fatalf("new job executor: %v", err)
	}
	if err := x.Start(e.Ctx); err != nil {
		e.T.Fatalf("start job executor: %v", err)
	}
	e.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = x.Stop(ctx)
	})
	return x
}

// jeAcquirable returns what an acquisition with p's ordering and filters
// would lock at the fake clock's time (p.Now when set), in its order,
// without locking anything: the acquisition's transaction is rolled back.
// This is Camunda's "acquirable list".
func (e *env) jeAcquirable(p persistence.AcquireParams) []*persistence.Job {
	e.T.Helper()
	if p.Now.IsZero() {
		p.Now = e.Clock.Now()
	}
	p.LockOwner = "probe"
	p.LockUntil = p.Now.Add(time.Minute)
	if p.Limit == 0 {
		p.Limit = 1000
	}
	t, err := e.Eng.StoreForTest().Begin(e.Ctx, false)
	if err != nil {
		e.T.Fatalf("begin: %v", err)
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(e.Ctx)) }()
	jobs, err := persistence.AcquireJobs(e.Ctx, t, p)
	if err != nil {
		e.T.Fatalf("acquire jobs: %v", err)
	}
	return jobs
}

// jeLock acquires (and commits) the jobs p selects for owner until
// lockUntil, as a node's acquisition would, and returns them locked.
func (e *env) jeLock(owner string, lockUntil time.Time, p persistence.AcquireParams) []*persistence.Job {
	e.T.Helper()
	p.Now, p.LockOwner, p.LockUntil = e.Clock.Now(), owner, lockUntil
	if p.Limit == 0 {
		p.Limit = 1000
	}
	t, err := e.Eng.StoreForTest().Begin(e.Ctx, false)
	if err != nil {
		e.T.Fatalf("begin: %v", err)
	}
	jobs, err := persistence.AcquireJobs(e.Ctx, t, p)
	if err == nil {
		err = t.Commit(e.Ctx)
	}
	if err != nil {
		_ = t.Rollback(context.WithoutCancel(e.Ctx))
		e.T.Fatalf("lock jobs for %s: %v", owner, err)
	}
	return jobs
}

// jeJob returns job id, failing the test when it is gone.
func (e *env) jeJob(id string) *bpmnlite.Job {
	e.T.Helper()
	js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: id})
	if err != nil || len(js) != 1 {
		e.T.Fatalf("job %s: %d rows, %v", id, len(js), err)
	}
	return js[0]
}

// jeJobGone reports whether job id no longer exists.
func (e *env) jeJobGone(id string) bool {
	e.T.Helper()
	js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: id})
	if err != nil {
		e.T.Fatalf("jobs: %v", err)
	}
	return len(js) == 0
}

// jeLog returns the job log entries matching q.
func (e *env) jeLog(q bpmnlite.JobLogQuery) []*bpmnlite.JobLogEntry {
	e.T.Helper()
	l, err := e.Eng.JobLog(e.Ctx, q)
	if err != nil {
		e.T.Fatalf("job log: %v", err)
	}
	return l
}

// jeIncidents returns the open incidents matching q.
func (e *env) jeIncidents(q bpmnlite.IncidentQuery) []*bpmnlite.Incident {
	e.T.Helper()
	in, err := e.Eng.Incidents(e.Ctx, q)
	if err != nil {
		e.T.Fatalf("incidents: %v", err)
	}
	return in
}

// jeTimeoutProcess is a user task "work" with an interrupting boundary
// timer "late" of duration; the timer's path leads to a user task
// "escalate" when escalate is set, else straight to an end event.
func jeTimeoutProcess(key, duration string, escalate bool) string {
	afterTimer := `
    <sequenceFlow id="f3" sourceRef="late" targetRef="end2" />`
	if escalate {
		afterTimer = `
    <sequenceFlow id="f3" sourceRef="late" targetRef="escalate" />
    <userTask id="escalate" />
    <sequenceFlow id="f4" sourceRef="escalate" targetRef="end2" />`
	}
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <userTask id="work" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />
    <boundaryEvent id="late" attachedToRef="work">
      <timerEventDefinition><timeDuration>`+duration+`</timeDuration></timerEventDefinition>
    </boundaryEvent>`+afterTimer+`
    <endEvent id="end2" />`)
}

// jeStartN starts n instances of key.
func (e *env) jeStartN(key string, n int) []string {
	e.T.Helper()
	var pis []string
	for range n {
		pis = append(pis, e.Start(key, nil))
	}
	return pis
}

// jeWaitEnded waits until every instance of pis has ended.
func (e *env) jeWaitEnded(pis []string, timeout time.Duration) {
	e.T.Helper()
	waitFor(e.T, "every instance to end", timeout, func() bool {
		for _, pi := range pis {
			if !e.accEnded(pi) {
				return false
			}
		}
		return true
	})
}

// jeStartBefore starts n instances of key directly before activity.
func (e *env) jeStartBefore(key, activity string, n int) []string {
	e.T.Helper()
	var pis []string
	for range n {
		pis = append(pis, e.accStartBefore(key, activity))
	}
	return pis
}

// jePriorities lists the jobs' priorities, in their order.
func jePriorities(js []*persistence.Job) []int64 {
	out := make([]int64, len(js))
	for i, j := range js {
		out[i] = j.Priority
	}
	return out
}

// jeRepeat expands (value, count) pairs into a list, for expected
// priority lists.
func jeRepeat(groups ...[2]int64) []int64 {
	var out []int64
	for _, g := range groups {
		for range g[1] {
			out = append(out, g[0])
		}
	}
	return out
}

func jeIDs(js []*persistence.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

// jeDescribe shows jobs as type/priority/due for failure messages.
func jeDescribe(js []*persistence.Job) string {
	var s []string
	for _, j := range js {
		due := "-"
		if j.DueDate != nil {
			due = j.DueDate.Format("15:04:05")
		}
		s = append(s, fmt.Sprintf("%s@%s(p%d,%s)", j.Type, j.ActivityID, j.Priority, due))
	}
	return strings.Join(s, " ")
}

// eachBackendRealTime is eachBackend with the wall clock instead of a fake
// one (env.Clock is nil), for tests that measure when jobs ran.
func eachBackendRealTime(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *env)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			cfg := cfg
			cfg.Database.URL, cfg.Database.Schema = b.URL, b.Options.Schema
			if cfg.History.Level == 0 {
				cfg.History.Level = bpmnlite.HistoryFull // the job log shows what ran
			}
			if cfg.Logger == nil {
				cfg.Logger = slog.New(slog.DiscardHandler)
			}
			eng, err := bpmnlite.Open(t.Context(), cfg)
			if err != nil {
				t.Fatalf("open engine on %s: %v", b.Name, err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			f(t, &env{&harness.Env{T: t, Eng: eng, Ctx: t.Context(), Cfg: cfg}})
		})
	}
}
