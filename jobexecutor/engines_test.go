package jobexecutor_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// The job executor runs the booking example's asynchronous continuations
// by itself: hotel and flight in parallel, then the join, exactly once.
func TestJobExecutorRunsAsyncContinuations(t *testing.T) {
	eachBackend(t, bpmnlite.Config{JobExecutorActivate: true, JobExecutor: bpmnlite.JobExecutorConfig{PoolSize: 4, WaitTime: 50 * time.Millisecond}}, func(t *testing.T, e *env) {
		var mu sync.Mutex
		calls := map[string]int{}
		count := func(name string) bpmnlite.Delegate {
			return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
				mu.Lock()
				calls[name]++
				mu.Unlock()
				return nil
			})
		}
		e.Eng.RegisterDelegate("bookHotel", count("hotel"))
		e.Eng.RegisterDelegate("bookFlight", count("flight"))
		e.DeployExample("booking")
		pis := e.StartN("booking", 10)
		for _, pi := range pis {
			harness.WaitFor(t, "the confirm task of "+pi, 20*time.Second, func() bool { return e.TaskKeys(pi) == "confirm" })
		}
		mu.Lock()
		defer mu.Unlock()
		if calls["hotel"] != 10 || calls["flight"] != 10 {
			t.Fatalf("delegate calls %v, want 10 each", calls)
		}
	})
}

// One job executor serves two engines, each with its own database.
func TestOneExecutorServesSeveralEngines(t *testing.T) {
	a := openEnv(t, testdb.SQLiteFile(t), bpmnlite.Config{})
	b := openEnv(t, testdb.SQLiteFile(t), bpmnlite.Config{})
	for _, e := range []*env{a, b} {
		e.Eng.RegisterDelegate("bookHotel", harness.SetVars(nil))
		e.Eng.RegisterDelegate("bookFlight", harness.SetVars(nil))
		e.DeployExample("booking")
	}
	x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, WaitTime: 20 * time.Millisecond}, a.Eng, b.Eng)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer x.Stop(context.Background())
	pa, pb := a.Start("booking", nil), b.Start("booking", nil)
	harness.WaitFor(t, "engine A's instance", 10*time.Second, func() bool { return a.TaskKeys(pa) == "confirm" })
	harness.WaitFor(t, "engine B's instance", 10*time.Second, func() bool { return b.TaskKeys(pb) == "confirm" })
}
