// Package harness is the engine harness of the project's own tests: one
// engine of the public API on one backend with a fake clock, and the
// helpers the tests of several packages share (the root's public-API
// tests, the runtime's element behaviour tests, the job executor's and
// cluster tests, the acceptance replays of Camunda's tests): the
// acceptance corpus (corpus.go), the job executor and engines side by
// side (executor.go), reads through the public API (helpers.go). Every
// test that needs storage runs on SQLite and, when configured, PostgreSQL
// (EachBackend, or EachBackendAs for a package's own wrapper of Env). It is
// imported by tests only.
package harness

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Env is one engine on one backend with its fake clock.
type Env struct {
	T     *testing.T
	Eng   *bpmnlite.Engine
	Clock *enginetest.Clock
	Ctx   context.Context
	Cfg   bpmnlite.Config

	backend testdb.Backend
	db      persistence.DB // a second handle on the database, opened by DB
}

// DB returns a handle of its own on the engine's database, for reading
// rows the public API does not show (Store gives the engine's own handle).
func (e *Env) DB() persistence.DB {
	if e.db == nil {
		e.db = e.backend.Open(e.T)
	}
	return e.db
}

// EachBackend runs f on SQLite and, when configured, PostgreSQL, each with
// a fresh database and a fake clock. cfg may preset options.
func EachBackend(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *Env)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f(t, Open(t, b, cfg))
		})
	}
}

// Open opens an engine on backend b (another handle on the same database
// when called twice with the same backend), closed when the test ends.
func Open(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *Env {
	t.Helper()
	return open(t, b, cfg, enginetest.NewClock())
}

// open opens an engine on backend b with clock, or the wall clock when
// clock is nil.
func open(t *testing.T, b testdb.Backend, cfg bpmnlite.Config, clock *enginetest.Clock) *Env {
	t.Helper()
	cfg.Database.URL = b.URL
	cfg.Database.Schema = b.Options.Schema
	if clock != nil {
		cfg.Clock = clock.Now
	}
	if cfg.History.Level == 0 {
		// The job log and incident history many tests read are written at
		// the full level; TestHistoryLevels checks the others.
		cfg.History.Level = bpmnlite.HistoryFull
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open engine on %s: %v", b.Name, err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return &Env{T: t, Eng: eng, Clock: clock, Ctx: t.Context(), Cfg: cfg, backend: b}
}

// Deploy deploys BPMN XML given inline; it fails the test on error.
func (e *Env) Deploy(name, xml string) *bpmnlite.Deployment {
	e.T.Helper()
	return must(e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: name, Resources: []bpmnlite.Resource{{Name: name + ".bpmn", Bytes: []byte(xml)}}}))(e.T, "deploy %s", name)
}

// Start starts an instance of the latest version of key.
func (e *Env) Start(key string, vars map[string]any) string {
	e.T.Helper()
	return must(e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: key, Variables: vars}))(e.T, "start %s", key)
}

// Tasks returns pi's open user tasks.
func (e *Env) Tasks(pi string) []*bpmnlite.Task {
	e.T.Helper()
	return must(e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi}))(e.T, "tasks")
}

// TaskKeys returns the activity ids of pi's open tasks, sorted.
func (e *Env) TaskKeys(pi string) string {
	e.T.Helper()
	var keys []string
	for _, t := range e.Tasks(pi) {
		keys = append(keys, t.TaskDefinitionKey)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// Complete completes pi's open task at activity key.
func (e *Env) Complete(pi, key string, vars map[string]any) {
	e.T.Helper()
	for _, t := range e.Tasks(pi) {
		if t.TaskDefinitionKey == key {
			if err := e.Eng.CompleteTask(e.Ctx, t.ID, vars); err != nil {
				e.T.Fatalf("complete %s: %v", key, err)
			}
			return
		}
	}
	e.T.Fatalf("no open task %q in %s (open: %s)", key, pi, e.TaskKeys(pi))
}

// State returns the history state of a process instance.
func (e *Env) State(pi string) string {
	e.T.Helper()
	ps, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
	if err != nil {
		e.T.Fatalf("process instances: %v", err)
	}
	if len(ps) != 1 {
		e.T.Fatalf("process instance %s: %d history rows", pi, len(ps))
	}
	return ps[0].State
}

// Path returns the activity ids pi passed through, in order.
func (e *Env) Path(pi string) string {
	e.T.Helper()
	hs, err := e.Eng.ActivityHistory(e.Ctx, pi)
	if err != nil {
		e.T.Fatalf("history: %v", err)
	}
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ActivityID)
	}
	return strings.Join(ids, ",")
}

// Jobs returns pi's jobs.
func (e *Env) Jobs(pi string) []*bpmnlite.Job {
	e.T.Helper()
	return must(e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessInstanceID: pi}))(e.T, "jobs")
}

// Executions returns the executions of pi at activity (all with "").
func (e *Env) Executions(pi, activity string) []*bpmnlite.ExecutionRow {
	e.T.Helper()
	return must(e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ProcessInstanceID: pi, ActivityID: activity}))(e.T, "executions")
}

// Drain runs available jobs until none is left or max ran.
func (e *Env) Drain(max int) int {
	e.T.Helper()
	return must(e.Eng.ExecuteAvailableJobs(e.Ctx, max))(e.T, "drain jobs")
}

// For returns e for subtest t: the same engine, failures reported to t
// (cases of one test may share the engine of a backend: opening one per
// case costs more than the case).
func (e *Env) For(t *testing.T) *Env {
	c := *e
	c.T = t
	return &c
}

// VarsOf returns the variables visible from execution (or instance) id.
func (e *Env) VarsOf(id string) map[string]any {
	e.T.Helper()
	return must(e.Eng.Variables(e.Ctx, id))(e.T, "variables of %s", id)
}

// SubsOf returns pi's event subscriptions.
func (e *Env) SubsOf(pi string) []*bpmnlite.EventSubscription {
	e.T.Helper()
	return must(e.Eng.EventSubscriptions(e.Ctx, pi))(e.T, "event subscriptions")
}

// HistoryOf returns pi's activity history.
func (e *Env) HistoryOf(pi string) []*bpmnlite.HistoricActivityInstance {
	e.T.Helper()
	return must(e.Eng.ActivityHistory(e.Ctx, pi))(e.T, "history")
}

// HistoryAt returns the history rows of pi at activity.
func (e *Env) HistoryAt(pi, activity string) []*bpmnlite.HistoricActivityInstance {
	e.T.Helper()
	var out []*bpmnlite.HistoricActivityInstance
	for _, h := range e.HistoryOf(pi) {
		if h.ActivityID == activity {
			out = append(out, h)
		}
	}
	return out
}

// Fetch fetches and locks up to max external tasks of topics for worker.
func (e *Env) Fetch(worker string, max int, topics ...bpmnlite.FetchTopic) []*bpmnlite.LockedExternalTask {
	e.T.Helper()
	return must(e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: worker, MaxTasks: max, Topics: topics}))(e.T, "fetch and lock")
}

// Signal throws signal name.
func (e *Env) Signal(name string) {
	e.T.Helper()
	if err := e.Eng.Signal(e.Ctx, name, nil); err != nil {
		e.T.Fatalf("signal %s: %v", name, err)
	}
}

// Recorder is a delegate that records each call as "activity:event"
// ("call" for a task's own call, "process" for a process listener).
type Recorder struct {
	mu     sync.Mutex
	events []string
}

// Execute records the call.
func (r *Recorder) Execute(_ context.Context, ex *bpmnlite.Execution) error {
	what, event := ex.ActivityID(), ex.EventName()
	if what == "" {
		what = "process"
	}
	if event == "" {
		event = "call"
	}
	r.Add(what + ":" + event)
	return nil
}

// Add records event.
func (r *Recorder) Add(event string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event)
}

// Reset forgets the calls recorded.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = nil
}

// String lists the calls, space-separated.
func (r *Recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, " ")
}

// CountRows runs a COUNT query on db (Env.DB, or an engine's own handle,
// Store).
func CountRows(t testing.TB, db persistence.DB, query string) int {
	t.Helper()
	ctx := t.Context()
	tx, err := db.Begin(ctx, true)
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return int(n)
}

// Topic is a fetch of topic name locking for lock.
func Topic(name string, lock time.Duration) bpmnlite.FetchTopic {
	return bpmnlite.FetchTopic{Topic: name, LockDuration: lock}
}
