package harness

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginestore"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Helpers of the tests that run the job executor, engines side by side on
// one database, or reach past the public API into an engine's database.

// Counts are the counters a Metrics recorded.
type Counts struct {
	Acquisitions int // calls of Acquired, one per acquisition
	Acquired     int
	Executed     int
	Failed       int
	Conflicts    int
	Depths       []int
	Latencies    []time.Duration
}

// Metrics records what a job executor reports through its Metrics.
type Metrics struct {
	mu sync.Mutex
	c  Counts
}

// Acquired, Executed, Failed, Conflict, QueueDepth and PickupLatency
// implement the job executor's Metrics.
func (m *Metrics) Acquired(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Acquisitions++
	m.c.Acquired += n
}

func (m *Metrics) Executed(time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Executed++
}

func (m *Metrics) Failed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Failed++
}

func (m *Metrics) Conflict() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Conflicts++
}

func (m *Metrics) QueueDepth(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Depths = append(m.c.Depths, n)
}

func (m *Metrics) PickupLatency(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Latencies = append(m.c.Latencies, d)
}

// Snapshot returns a copy of the counters.
func (m *Metrics) Snapshot() Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.Depths, c.Latencies = slices.Clone(c.Depths), slices.Clone(c.Latencies)
	return c
}

// Await waits until the counters satisfy cond: the executor reports a run
// after its commit, so a test seeing the outcome in the database may be
// ahead of the metrics.
func (m *Metrics) Await(t *testing.T, what string, cond func(c Counts) bool) Counts {
	t.Helper()
	WaitFor(t, "metrics: "+what, 10*time.Second, func() bool { return cond(m.Snapshot()) })
	return m.Snapshot()
}

// WaitCycles waits until the executor has run n more acquisitions than
// when called: the acquisition loop has then looked at the jobs present now.
func (m *Metrics) WaitCycles(t *testing.T, n int) {
	t.Helper()
	from := m.Snapshot().Acquisitions
	WaitFor(t, fmt.Sprintf("%d acquisition cycles", n), 10*time.Second, func() bool { return m.Snapshot().Acquisitions >= from+n })
}

// StartExecutor starts a job executor for e's engine on its fake clock, with
// quick waits for tests; cfg presets the rest. The executor is stopped when
// the test ends.
func (e *Env) StartExecutor(cfg bpmnlite.JobExecutorConfig) *jobexecutor.Executor {
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

// JobLog returns the job log entries matching q.
func (e *Env) JobLog(q bpmnlite.JobLogQuery) []*bpmnlite.JobLogEntry {
	e.T.Helper()
	return must(e.Eng.JobLog(e.Ctx, q))(e.T, "job log")
}

// StartN starts n instances of key.
func (e *Env) StartN(key string, n int) []string {
	e.T.Helper()
	var pis []string
	for range n {
		pis = append(pis, e.Start(key, nil))
	}
	return pis
}

// EachBackendRealTime is EachBackend with the wall clock instead of a fake
// one (Env.Clock is nil), for tests that measure when jobs ran.
func EachBackendRealTime(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *Env)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f(t, open(t, b, cfg, nil))
		})
	}
}

// WaitFor polls cond until it holds or the deadline passes: the job
// executor works in the background, so tests wait on the outcome.
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Store returns eng's own database handle (internal/enginestore), for
// setups and probes the public API does not offer: locking jobs as another
// node would, sending a raw notification.
func Store(eng *bpmnlite.Engine) persistence.DB { return enginestore.Of(eng) }

// OpenNode opens an engine on backend b with the real clock, closed when
// the test ends.
func OpenNode(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *bpmnlite.Engine {
	t.Helper()
	cfg.Database.URL = b.URL
	cfg.Database.Schema = b.Options.Schema
	if cfg.Database.MaxConns == 0 {
		cfg.Database.MaxConns = 10 // workers, acquisition, heartbeats and the test's own calls
	}
	if cfg.History.Level == 0 {
		cfg.History.Level = bpmnlite.HistoryFull // the job log proves who ran what
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// CallerPool is a pool of the application's own, on b's schema, for the
// ...Tx calls that join the caller's transaction; closed with the test.
func CallerPool(t *testing.T, b testdb.Backend) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{b.Options.Schema}.Sanitize()
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
