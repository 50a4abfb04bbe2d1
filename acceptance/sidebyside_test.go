package acceptance_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Jobs run outside the single writer on SQLite files, as on PostgreSQL:
// slow delegates side by side, their flushes checked against every row's
// revision.

// oneAsyncCall is process id: an asynchronous service task calling
// delegate, then a user task.
func oneAsyncCall(id, delegate string) string {
	return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <serviceTask id="call" camunda:asyncBefore="true" camunda:exclusive="false" camunda:class="`+delegate+`" />
    <sequenceFlow id="f2" sourceRef="call" targetRef="review" />
    <userTask id="review" />
    <sequenceFlow id="f3" sourceRef="review" targetRef="end" />
    <endEvent id="end" />`)
}

// Eight slow delegates are inside their calls at the same time: each waits
// until all eight are in (or gives up after a while, failing the test). A
// job holding the one writer while its delegate runs would let one in at a
// time.
func TestSlowDelegatesRunSideBySide(t *testing.T) {
	// On PostgreSQL a running job holds a connection: room for all eight.
	eachBackendRealTime(t, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{MaxConns: 12}}, func(t *testing.T, e *env) {
		const n = 8
		var inside, most atomic.Int32
		all := make(chan struct{})
		var once sync.Once
		e.Eng.RegisterDelegate("remote", bpmnlite.DelegateFunc(func(ctx context.Context, _ *bpmnlite.Execution) error {
			now := inside.Add(1)
			defer inside.Add(-1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			if now == n {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
			case <-time.After(3 * time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		}))
		e.Deploy("remote", oneAsyncCall("remote", "remote"))
		pis := e.StartN("remote", n)
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: n, Clock: time.Now})
		harness.WaitFor(t, "every instance at its user task", 60*time.Second, func() bool {
			for _, pi := range pis {
				if e.TaskKeys(pi) != "review" {
					return false
				}
			}
			return true
		})
		if got := most.Load(); got != n {
			t.Fatalf("at most %d of %d slow delegates ran at once", got, n)
		}
	})
}

// A job whose flush finds a row changed since it read it (another command
// set the variable its delegate updates) fails with an optimistic-locking
// conflict: its work is rolled back, it spends no retry, and it runs again
// on the new value. Nothing of either side is lost or doubled. While the
// delegate runs, the other command does not wait for it.
func TestConflictingJobFlushRunsAgain(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		started, proceed := make(chan struct{}), make(chan struct{})
		var calls atomic.Int32
		e.Eng.RegisterDelegate("count", bpmnlite.DelegateFunc(func(ctx context.Context, x *bpmnlite.Execution) error {
			n := calls.Add(1)
			v, _, err := x.Variable("count")
			if err != nil {
				return err
			}
			count, _ := v.(int64)
			if err := x.SetVariable("count", count+1); err != nil {
				return err
			}
			if err := x.SetVariable("attempt", int64(n)); err != nil {
				return err
			}
			if n == 1 {
				close(started)
				select {
				case <-proceed:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		}))
		e.Deploy("count", oneAsyncCall("count", "count"))
		pi := e.Start("count", map[string]any{"count": 1})
		m := &harness.Metrics{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, Metrics: m, Clock: time.Now})
		var release sync.Once
		letGo := func() { release.Do(func() { close(proceed) }) }
		t.Cleanup(letGo) // before the executor stops, on a failure too
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("the job did not start")
		}
		// Another command changes the variable while the delegate runs.
		ctx, cancel := context.WithTimeout(e.Ctx, 10*time.Second)
		err := e.Eng.SetVariables(ctx, pi, map[string]any{"count": 100})
		cancel()
		if err != nil {
			t.Fatalf("set a variable while a job runs: %v", err)
		}
		letGo()
		harness.WaitFor(t, "the instance at its user task", 30*time.Second, func() bool { return e.TaskKeys(pi) == "review" })
		vars := e.VarsOf(pi)
		if vars["count"] != int64(101) || vars["attempt"] != int64(2) {
			t.Fatalf("variables %v: want count 101 (100 set meanwhile, then the job's second run) and attempt 2", vars)
		}
		if got := calls.Load(); got != 2 {
			t.Fatalf("delegate called %d times, want 2 (a conflicting run, then one that commits)", got)
		}
		for _, l := range e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}) {
			if !strings.Contains(l.Message, "without spending a retry") || l.Retries != 3 {
				t.Fatalf("a failure besides the conflict, or a retry spent: %q, %d retries", l.Message, l.Retries)
			}
		}
		if c := m.Snapshot(); c.Conflicts == 0 {
			t.Fatalf("no conflict counted: %+v", c)
		}
		jobs, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessInstanceID: pi})
		if err != nil || len(jobs) != 0 {
			t.Fatalf("jobs left: %v %v", jobs, err)
		}
		tasks, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("want one user task, got %d (%v)", len(tasks), err)
		}
	})
}
