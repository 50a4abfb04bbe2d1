package bpmnlite_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// waitFor polls cond until it holds or the deadline passes: the job
// executor works in the background, so tests wait on the outcome.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

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
		e.deployExample("booking")
		pis := e.jeStartN("booking", 10)
		for _, pi := range pis {
			waitFor(t, "the confirm task of "+pi, 20*time.Second, func() bool { return e.TaskKeys(pi) == "confirm" })
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
		e.Eng.RegisterDelegate("bookHotel", setVars(nil))
		e.Eng.RegisterDelegate("bookFlight", setVars(nil))
		e.deployExample("booking")
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
	waitFor(t, "engine A's instance", 10*time.Second, func() bool { return a.TaskKeys(pa) == "confirm" })
	waitFor(t, "engine B's instance", 10*time.Second, func() bool { return b.TaskKeys(pb) == "confirm" })
}
