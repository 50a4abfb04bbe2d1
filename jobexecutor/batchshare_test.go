package jobexecutor_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// slowEnd waits at a user task whose end listener ("slow") takes a while:
// deleting its instances makes slow batch jobs.
var slowEnd = enginetest.Process("slowEnd", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task">
      <extensionElements><camunda:executionListener event="end" class="slow"/></extensionElements>
    </userTask>
    <sequenceFlow id="f2" sourceRef="task" targetRef="end" />
    <endEvent id="end" />`)

// A batch of many slow jobs runs on the executor (4 workers, at most 2
// for batch jobs by default, 1 on SQLite) while an ordinary asynchronous job is
// started: the ordinary job is picked up at once, long before the batch
// is done, and never more than that many batch jobs run at once (counted
// in the listener). Before batch jobs had a share of their own, the queue
// and every worker held batch jobs, and the ordinary job, acquired after
// the batch jobs created before it, waited for nearly all of them.
func TestBatchJobsLeaveWorkersToOrdinaryJobs(t *testing.T) {
	const instances, slow = 60, 100 * time.Millisecond
	cfg := bpmnlite.Config{JobExecutorActivate: true, JobExecutor: bpmnlite.JobExecutorConfig{PoolSize: 4, WaitTime: 50 * time.Millisecond},
		Batches: bpmnlite.BatchConfig{PollInterval: 100 * time.Millisecond}}
	eachBackendRealTime(t, cfg, func(t *testing.T, e *env) {
		var running, most, ended atomic.Int32
		e.Eng.RegisterDelegate("slow", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(slow)
			running.Add(-1)
			ended.Add(1)
			return nil
		}))
		var mu sync.Mutex
		var pickedAt time.Time
		var endedThen int32
		e.Eng.RegisterDelegate("ordinary", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			mu.Lock()
			defer mu.Unlock()
			if pickedAt.IsZero() {
				pickedAt, endedThen = time.Now(), ended.Load()
			}
			return nil
		}))
		e.Deploy("slowEnd", slowEnd)
		e.Deploy("ordinary", enginetest.AsyncService("ordinary", "ordinary", ""))
		pis := e.StartN("slowEnd", instances)
		b, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{IDs: pis, Reason: "batch"})
		if err != nil {
			t.Fatal(err)
		}
		harness.WaitFor(t, "the batch's first jobs to run", 20*time.Second, func() bool { return ended.Load() >= 4 })
		started := time.Now()
		e.Start("ordinary", nil)
		harness.WaitFor(t, "the ordinary job", 20*time.Second, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return !pickedAt.IsZero()
		})
		harness.WaitFor(t, "the batch's end", 60*time.Second, func() bool {
			st, err := e.Eng.BatchStatistics(e.Ctx, bpmnlite.BatchQuery{ID: b.ID})
			return err == nil && len(st) == 0
		})
		mu.Lock()
		pickup := pickedAt.Sub(started)
		mu.Unlock()
		if pickup > time.Second || endedThen > instances/2 {
			t.Errorf("the ordinary job started %s after its instance, when %d of %d batch jobs had run: it waited for the batch", pickup, endedThen, instances)
		}
		if got := ended.Load(); got != instances {
			t.Errorf("%d of %d instances deleted by the batch", got, instances)
		}
		want := int32(2) // MaxBatchJobs' default: half the pool of 4
		if e.Eng.Dialect() == "sqlite" {
			want = 1 // one writer: one batch job at a time
		}
		if m := most.Load(); m != want {
			t.Errorf("at most %d batch jobs ran at once, want MaxBatchJobs' default %d", m, want)
		}
	})
}
