package runtime_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// env is the engine harness (internal/harness) with the element behaviour
// tests' own helpers as methods: those tests run the elements through the
// root package's public API, on each backend.
type env struct{ *harness.Env }

// eachBackend runs a test on each backend with a fake clock;
// eachBackendRealTime with the wall clock, for the tests that let the job
// executor run by itself; openEnv opens an engine on one backend. wantEq
// reports an error when got is not deeply equal to want.
var (
	eachBackend         = harness.EachBackendAs[env]
	eachBackendRealTime = harness.EachBackendRealTimeAs[env]
	openEnv             = harness.OpenAs[env]
	wantEq              = harness.WantEq
)

// rig is a runtime engine on one test database, with its clock.
type rig struct {
	t     *testing.T
	ctx   context.Context
	db    persistence.DB
	eng   *runtime.Core
	clock *enginetest.Clock
}

func newRig(t *testing.T, db persistence.DB) *rig {
	clock := enginetest.NewClock()
	eng := runtime.New(db, config.Config{Clock: clock.Now, Logger: slog.New(slog.DiscardHandler), History: config.History{Level: config.HistoryFull}})
	return &rig{t: t, ctx: t.Context(), db: db, eng: eng, clock: clock}
}

func (r *rig) deploy(name, xml string) {
	r.t.Helper()
	_, err := r.eng.Deploy(r.ctx, runtime.DeployRequest{Name: name, Resources: []runtime.Resource{{Name: name + ".bpmn", Bytes: []byte(xml)}}})
	if err != nil {
		r.t.Fatalf("deploy %s: %v", name, err)
	}
}

func (r *rig) start(key string) string {
	r.t.Helper()
	pi, err := r.eng.Start(r.ctx, nil, runtime.StartRequest{Key: key})
	if err != nil {
		r.t.Fatalf("start %s: %v", key, err)
	}
	return pi
}

// lock acquires the due jobs for owner until lockUntil, as a node's
// acquisition would, and returns them with their locks.
func (r *rig) lock(owner string, lockUntil time.Time) []runtime.AcquiredJob {
	r.t.Helper()
	jobs, err := r.eng.AcquireJobs(r.ctx, persistence.AcquireParams{Now: r.clock.Now(), LockOwner: owner, LockUntil: lockUntil, Limit: 100})
	if err != nil {
		r.t.Fatalf("acquire for %s: %v", owner, err)
	}
	return jobs
}

// job reads job id; nil when it is gone.
func (r *rig) job(id string) *persistence.Job {
	r.t.Helper()
	jobs, err := persistence.List(r.ctx, r.db, persistence.JobFilter{ID: id}.Query())
	if err != nil {
		r.t.Fatalf("job %s: %v", id, err)
	}
	if len(jobs) == 0 {
		return nil
	}
	return jobs[0]
}

// ended reports whether process instance pi has ended.
func (r *rig) ended(pi string) bool {
	r.t.Helper()
	his, err := persistence.List(r.ctx, r.db, persistence.HistoricProcessInstanceFilter{ID: pi}.Query())
	if err != nil || len(his) != 1 {
		r.t.Fatalf("history of %s: %d rows, %v", pi, len(his), err)
	}
	return his[0].EndTime != nil
}
