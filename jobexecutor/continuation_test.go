package jobexecutor_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Continuations: on PostgreSQL a job locks the jobs it creates in its own
// transaction and its executor runs them without acquiring them. These
// tests run on both backends; on SQLite, whose groups acquire in their own
// transaction, the outcomes must be the same.

// asyncChain is a process of n asynchronous steps calling delegate class,
// each exclusive unless told otherwise, the second with priority prio.
func asyncChain(id, class string, n int, exclusive bool, prio int) string {
	var b strings.Builder
	b.WriteString(`<startEvent id="start" /><sequenceFlow id="f0" sourceRef="start" targetRef="s1" />`)
	for i := 1; i <= n; i++ {
		p := ""
		if i == 2 {
			p = fmt.Sprintf(` camunda:jobPriority="%d"`, prio)
		}
		fmt.Fprintf(&b, `<serviceTask id="s%d" camunda:asyncBefore="true" camunda:exclusive="%v" camunda:class="%s"%s />`, i, exclusive, class, p)
		next := fmt.Sprintf("s%d", i+1)
		if i == n {
			next = "end"
		}
		fmt.Fprintf(&b, `<sequenceFlow id="f%d" sourceRef="s%d" targetRef="%s" />`, i, i, next)
	}
	b.WriteString(`<endEvent id="end" />`)
	return enginetest.Process(id, b.String())
}

// acquisitions counts the jobs acquisition locked.
type acquisitions struct{ jobs atomic.Int64 }

func (a *acquisitions) Acquired(n int)            { a.jobs.Add(int64(n)) }
func (*acquisitions) Executed(time.Duration)      {}
func (*acquisitions) Failed()                     {}
func (*acquisitions) Conflict()                   {}
func (*acquisitions) QueueDepth(int)              {}
func (*acquisitions) PickupLatency(time.Duration) {}

// A chain of asynchronous steps runs to its end, and on PostgreSQL its
// steps after the first are claimed by the step before, not acquired.
func TestContinuationsRunChainsWithoutAcquisitions(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var ran atomic.Int64
		e.Eng.RegisterDelegate("step", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			ran.Add(1)
			return nil
		}))
		const instances, steps = 10, 8
		e.Deploy("chain", asyncChain("chain", "step", steps, true, 0))
		pis := e.StartN("chain", instances)
		count := &acquisitions{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 4, Metrics: count})
		e.jeWaitEnded(pis, 30*time.Second)
		if got := ran.Load(); got != instances*steps {
			t.Fatalf("%d steps ran, want %d", got, instances*steps)
		}
		// Each instance's first job is acquired; on PostgreSQL the rest
		// are claimed (an acquisition may still catch one between a
		// commit and its claim's hand-over: never most of them).
		acquired := count.jobs.Load()
		if e.Eng.Dialect() == "postgres" && acquired > instances*steps/2 {
			t.Errorf("%d of %d jobs were acquired: continuations did not claim them", acquired, instances*steps)
		}
		log, _ := e.Eng.JobLog(e.Ctx, bpmnlite.JobLogQuery{Event: bpmnlite.JobLogLocked})
		if len(log) != instances*steps {
			t.Errorf("%d locked entries in the job log, want one per job (%d)", len(log), instances*steps)
		}
	})
}

// Exclusive jobs of one instance never run at the same time, whether
// acquired or claimed: two exclusive chains in parallel paths of each
// instance, eight workers.
func TestContinuationsKeepExclusiveJobsApart(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var mu sync.Mutex
		running := map[string]int{}
		overlaps := 0
		e.Eng.RegisterDelegate("step", bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
			pi := x.ProcessInstanceID()
			mu.Lock()
			running[pi]++
			if running[pi] > 1 {
				overlaps++
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running[pi]--
			mu.Unlock()
			return nil
		}))
		var body strings.Builder
		body.WriteString(`<startEvent id="start" /><sequenceFlow id="f0" sourceRef="start" targetRef="fork" /><parallelGateway id="fork" />
			<parallelGateway id="join" /><sequenceFlow id="fj" sourceRef="join" targetRef="end" /><endEvent id="end" />`)
		for _, path := range []string{"a", "b"} {
			fmt.Fprintf(&body, `<sequenceFlow id="%s0" sourceRef="fork" targetRef="%s1" />`, path, path)
			for i := 1; i <= 4; i++ {
				next := fmt.Sprintf("%s%d", path, i+1)
				if i == 4 {
					next = "join"
				}
				fmt.Fprintf(&body, `<serviceTask id="%s%d" camunda:asyncBefore="true" camunda:class="step" /><sequenceFlow id="%s%dn" sourceRef="%s%d" targetRef="%s" />`,
					path, i, path, i, path, i, next)
			}
		}
		e.Deploy("paths", enginetest.Process("paths", body.String()))
		pis := e.StartN("paths", 10)
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 8})
		e.jeWaitEnded(pis, 60*time.Second)
		if overlaps > 0 {
			t.Fatalf("exclusive jobs of one instance overlapped %d times", overlaps)
		}
	})
}

// A continuation outside the executor's priority range is not claimed: it
// waits for an executor that serves it.
func TestContinuationsRespectThePriorityRange(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("step", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("chain", asyncChain("chain", "step", 2, true, 10))
		pi := e.Start("chain", nil)
		low := int64(5)
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, PriorityMax: &low})
		harness.WaitFor(t, "the first step", 20*time.Second, func() bool {
			js := e.Jobs(pi)
			return len(js) == 1 && js[0].ActivityID == "s2"
		})
		time.Sleep(200 * time.Millisecond) // time to (wrongly) claim or run it
		js := e.Jobs(pi)
		if len(js) != 1 || js[0].ActivityID != "s2" || js[0].LockOwner != "" {
			t.Fatalf("the priority-10 step was taken by an executor of priorities up to 5: %+v", js[0])
		}
	})
}
