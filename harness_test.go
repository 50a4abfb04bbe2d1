package bpmnlite_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// env is one engine on one backend with its fake clock.
type env struct {
	t     *testing.T
	eng   *bpmnlite.Engine
	clock *enginetest.Clock
	ctx   context.Context
	cfg   bpmnlite.Config
}

// eachBackend runs f on SQLite and, when configured, PostgreSQL, each with a
// fresh database and a fake clock. cfg may preset options.
func eachBackend(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *env)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f(t, openEnv(t, b, cfg))
		})
	}
}

// openEnv opens an engine on backend b (another handle on the same database
// when called twice with the same backend).
func openEnv(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *env {
	t.Helper()
	clock := enginetest.NewClock()
	cfg.Database = b.URL
	cfg.Schema = b.Options.Schema
	cfg.Clock = clock.Now
	if cfg.HistoryLevel == "" {
		// The job log and incident history many tests read are written at
		// the full level; TestHistoryLevels checks the others.
		cfg.HistoryLevel = bpmnlite.HistoryFull
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open engine on %s: %v", b.Name, err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return &env{t: t, eng: eng, clock: clock, ctx: t.Context(), cfg: cfg}
}

// deploy deploys BPMN XML given inline; it fails the test on error.
func (e *env) deploy(name, xml string) *bpmnlite.Deployment {
	e.t.Helper()
	d, err := e.eng.Deploy(e.ctx, bpmnlite.DeployRequest{Name: name, Resources: []bpmnlite.Resource{{Name: name + ".bpmn", Bytes: []byte(xml)}}})
	if err != nil {
		e.t.Fatalf("deploy %s: %v", name, err)
	}
	return d
}

// deployFiles deploys files of the acceptance corpus, skipping the test when
// the corpus is absent.
func (e *env) deployFiles(paths ...string) *bpmnlite.Deployment {
	e.t.Helper()
	var full []string
	for _, p := range paths {
		full = append(full, corpus(e.t, p))
	}
	d, err := e.eng.DeployFiles(e.ctx, "acceptance", full...)
	if err != nil {
		e.t.Fatalf("deploy %v: %v", paths, err)
	}
	return d
}

// corpus returns the path of a file of the shared acceptance corpus.
func corpus(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("BPMNLITE_ACCEPTANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "shared", "acceptance")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("acceptance corpus not available (%v); set BPMNLITE_ACCEPTANCE_DIR", err)
	}
	return p
}

func (e *env) start(key string, vars map[string]any) string {
	e.t.Helper()
	id, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: key, Variables: vars})
	if err != nil {
		e.t.Fatalf("start %s: %v", key, err)
	}
	return id
}

func (e *env) tasks(pi string) []*bpmnlite.Task {
	e.t.Helper()
	ts, err := e.eng.Tasks(e.ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
	if err != nil {
		e.t.Fatalf("tasks: %v", err)
	}
	return ts
}

// taskKeys returns the activity ids of pi's open tasks, sorted.
func (e *env) taskKeys(pi string) string {
	e.t.Helper()
	var keys []string
	for _, t := range e.tasks(pi) {
		keys = append(keys, t.TaskDefinitionKey)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

func (e *env) complete(pi, key string, vars map[string]any) {
	e.t.Helper()
	for _, t := range e.tasks(pi) {
		if t.TaskDefinitionKey == key {
			if err := e.eng.CompleteTask(e.ctx, t.ID, vars); err != nil {
				e.t.Fatalf("complete %s: %v", key, err)
			}
			return
		}
	}
	e.t.Fatalf("no open task %q in %s (open: %s)", key, pi, e.taskKeys(pi))
}

// state returns the history state of a process instance.
func (e *env) state(pi string) string {
	e.t.Helper()
	ps, err := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ID: pi})
	if err != nil {
		e.t.Fatalf("process instances: %v", err)
	}
	if len(ps) != 1 {
		e.t.Fatalf("process instance %s: %d history rows", pi, len(ps))
	}
	return ps[0].State
}

// path returns the activity ids pi passed through, in order.
func (e *env) path(pi string) string {
	e.t.Helper()
	hs, err := e.eng.ActivityHistory(e.ctx, pi)
	if err != nil {
		e.t.Fatalf("history: %v", err)
	}
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ActivityID)
	}
	return strings.Join(ids, ",")
}

func (e *env) jobs(pi string) []*bpmnlite.Job {
	e.t.Helper()
	js, err := e.eng.Jobs(e.ctx, bpmnlite.JobQuery{ProcessInstanceID: pi})
	if err != nil {
		e.t.Fatalf("jobs: %v", err)
	}
	return js
}

// executions returns the executions of pi at activity (all with "").
func (e *env) executions(pi, activity string) []*bpmnlite.ExecutionRow {
	e.t.Helper()
	xs, err := e.eng.Executions(e.ctx, bpmnlite.ExecutionQuery{ProcessInstanceID: pi, ActivityID: activity})
	if err != nil {
		e.t.Fatalf("executions: %v", err)
	}
	return xs
}

func (e *env) drain(max int) int {
	e.t.Helper()
	n, err := e.eng.ExecuteAvailableJobs(e.ctx, max)
	if err != nil {
		e.t.Fatalf("drain jobs: %v", err)
	}
	return n
}
