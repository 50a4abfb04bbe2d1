package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// countingDelegate counts its calls; it blocks its first call until
// release is closed when entered is set.
type countingDelegate struct {
	calls            atomic.Int32
	entered, release chan struct{}
}

func (d *countingDelegate) Execute(_ context.Context, ex *runtime.Execution) error {
	if d.calls.Add(1) == 1 && d.entered != nil {
		close(d.entered)
		<-d.release
	}
	return ex.SetVariable("done", true)
}

// Fencing: a worker whose lock expired and was taken over commits nothing:
// run with the stale lock, the job is not run and stays with its new
// holder; the new holder's lock works.
func TestFencing(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		r := newRig(t, db)
		work := &countingDelegate{}
		r.eng.RegisterDelegate("work", work)
		r.deploy("fenced", enginetest.AsyncService("fenced", "work", ""))
		pi := r.start("fenced")
		a := r.lock("node-a", r.clock.Now().Add(time.Minute))
		r.clock.Add(2 * time.Minute)
		b := r.lock("node-b", r.clock.Now().Add(time.Minute))
		if len(a) != 1 || len(b) != 1 || b[0].ID != a[0].ID || b[0].Lock.Rev == a[0].Lock.Rev {
			t.Fatalf("node-a locked %d, node-b took over %d; want the same job at a new revision", len(a), len(b))
		}
		err := r.eng.ExecuteJob(r.ctx, a[0].ID, &a[0].Lock)
		if !errors.Is(err, runtime.ErrLockLost) {
			t.Fatalf("run with the stale lock: %v, want ErrLockLost", err)
		}
		if j := r.job(a[0].ID); work.calls.Load() != 0 || j == nil || j.LockOwner != "node-b" || j.Rev != b[0].Lock.Rev {
			t.Fatalf("after the stale run: %d calls, job %+v", work.calls.Load(), j)
		}
		if err := r.eng.RunAcquired(r.ctx, b[0]); err != nil {
			t.Fatalf("run with the current lock: %v", err)
		}
		if !r.ended(pi) || work.calls.Load() != 1 || r.job(a[0].ID) != nil {
			t.Fatalf("after the current holder's run: ended %v, %d calls", r.ended(pi), work.calls.Load())
		}
	})
}

// Fencing where a lock can be taken over while its worker runs
// (PostgreSQL): the worker finishes, but its transaction rolls back and
// the job stays with the new holder.
func TestFencingWhileRunning(t *testing.T) {
	r := newRig(t, testdb.Postgres(t).Open(t))
	work := &countingDelegate{entered: make(chan struct{}), release: make(chan struct{})}
	r.eng.RegisterDelegate("slow", work)
	r.deploy("fenced", enginetest.AsyncService("fenced", "slow", ""))
	pi := r.start("fenced")
	a := r.lock("node-a", r.clock.Now().Add(time.Minute))
	if len(a) != 1 {
		t.Fatalf("node-a locked %d jobs, want 1", len(a))
	}
	errc := make(chan error, 1)
	go func() { errc <- r.eng.RunAcquired(r.ctx, a[0]) }()
	<-work.entered
	r.clock.Add(2 * time.Minute)
	b := r.lock("node-b", r.clock.Now().Add(time.Minute))
	if len(b) != 1 {
		t.Fatalf("node-b locked %d jobs, want the expired one", len(b))
	}
	close(work.release)
	if err := <-errc; !errors.Is(err, runtime.ErrLockLost) {
		t.Fatalf("the overtaken worker returned %v, want ErrLockLost", err)
	}
	if j := r.job(a[0].ID); j == nil || j.LockOwner != "node-b" || j.Rev != b[0].Lock.Rev || r.ended(pi) {
		t.Fatalf("after the overtaken run: job %+v, ended %v", j, r.ended(pi))
	}
	if err := r.eng.RunAcquired(r.ctx, b[0]); err != nil || !r.ended(pi) {
		t.Fatalf("node-b's run: %v, ended %v", err, r.ended(pi))
	}
}

// A group's failing job is rolled back to its savepoint and its failure
// recorded; the other jobs of the group commit; jobs acquired at the end of
// the group come back with their locks once the group committed.
func TestRunGroup(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		r := newRig(t, db)
		r.eng.RegisterDelegate("ok", &countingDelegate{})
		r.eng.RegisterDelegate("fail", runtime.DelegateFunc(func(context.Context, *runtime.Execution) error {
			return errors.New("boom")
		}))
		r.deploy("ok", enginetest.AsyncService("ok", "ok", ""))
		r.deploy("fail", enginetest.AsyncService("fail", "fail", "R3/PT5M")) // its retry is not due within the group
		good, bad := r.start("ok"), r.start("fail")
		jobs := r.lock("node", r.clock.Now().Add(time.Minute))
		if len(jobs) != 2 {
			t.Fatalf("locked %d jobs, want 2", len(jobs))
		}
		r.start("ok") // a third job, for the group's own acquisition
		next := func() (persistence.AcquireParams, bool) {
			now := r.clock.Now()
			return persistence.AcquireParams{Now: now, LockOwner: "node", LockUntil: now.Add(time.Minute), Limit: 10}, true
		}
		errs, ran, acquired := r.eng.RunGroup(r.ctx, jobs, func() bool { return true }, next)
		if ran != 2 {
			t.Fatalf("ran %d jobs, want 2", ran)
		}
		for i, j := range jobs {
			failed := j.ProcessInstanceID == bad
			if (errs[i] != nil) != failed {
				t.Fatalf("job of %s: error %v", j.ProcessInstanceID, errs[i])
			}
		}
		if !r.ended(good) || r.ended(bad) {
			t.Fatalf("ended: good %v, bad %v; want the good one only", r.ended(good), r.ended(bad))
		}
		var failedJob *persistence.Job
		for _, j := range jobs {
			if j.ProcessInstanceID == bad {
				failedJob = r.job(j.ID)
			}
		}
		if failedJob == nil || failedJob.Retries != 2 || failedJob.ExceptionMessage == "" || failedJob.LockOwner != "" {
			t.Fatalf("failed job after the group: %+v; want 2 retries left, its message, unlocked", failedJob)
		}
		if len(acquired) != 1 || acquired[0].Lock.Owner != "node" || acquired[0].Lock.Rev != acquired[0].Rev {
			t.Fatalf("acquired in the group: %+v; want the third job with its lock", acquired)
		}
		if j := r.job(acquired[0].ID); j == nil || j.LockOwner != "node" {
			t.Fatalf("job acquired in the group is not locked after the commit: %+v", j)
		}
	})
}

// A job taken over from expired locks with no retry left does not run: its
// incident is raised and it is released.
func TestRunAcquiredPoisonJob(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		r := newRig(t, db)
		work := &countingDelegate{}
		r.eng.RegisterDelegate("work", work)
		r.deploy("p", enginetest.AsyncService("p", "work", "R1/PT1M"))
		pi := r.start("p")
		r.lock("dead-node", r.clock.Now().Add(time.Minute))
		r.clock.Add(2 * time.Minute)
		jobs := r.lock("survivor", r.clock.Now().Add(time.Minute))
		if len(jobs) != 1 || jobs[0].Retries != 0 {
			t.Fatalf("takeover: %d jobs, want 1 with no retry left", len(jobs))
		}
		if err := r.eng.RunAcquired(r.ctx, jobs[0]); err == nil {
			t.Fatal("a poison job ran without an error")
		}
		incidents, err := persistence.List(r.ctx, r.db, persistence.IncidentFilter{Configuration: jobs[0].ID}.Query())
		if err != nil || len(incidents) != 1 {
			t.Fatalf("incidents of the poison job: %d, %v; want 1", len(incidents), err)
		}
		if j := r.job(jobs[0].ID); work.calls.Load() != 0 || j == nil || j.LockOwner != "" || r.ended(pi) {
			t.Fatalf("poison job: %d calls, job %+v", work.calls.Load(), j)
		}
	})
}

// Group commit on PostgreSQL (JobExecutorConfig.GroupCommit): in one
// group, a job that succeeds commits, a failing one is rolled back and its
// failure recorded (a retry spent), and one that meets an optimistic-lock
// conflict (a concurrent transaction changed a variable it changes) is
// rolled back and unlocked without spending a retry; it succeeds when run
// again.
func TestRunGroupFailureAndConflictOnPostgres(t *testing.T) {
	r := newRig(t, testdb.Postgres(t).Open(t))
	r.eng.RegisterDelegate("ok", &countingDelegate{})
	r.eng.RegisterDelegate("fail", runtime.DelegateFunc(func(context.Context, *runtime.Execution) error {
		return errors.New("boom")
	}))
	var conflictCalls atomic.Int32
	var lastSet atomic.Value
	r.eng.RegisterDelegate("conflict", runtime.DelegateFunc(func(ctx context.Context, ex *runtime.Execution) error {
		v, _, err := ex.Variable("v") // read in the group's transaction
		if err != nil {
			return err
		}
		if conflictCalls.Add(1) == 1 {
			// Another transaction changes the variable and commits first.
			if err := r.eng.SetVariables(context.WithoutCancel(ctx), nil, ex.ProcessInstanceID(), map[string]any{"v": "other"}, false); err != nil {
				return err
			}
		}
		lastSet.Store(fmt.Sprint(v, "+job"))
		return ex.SetVariable("v", fmt.Sprint(v, "+job"))
	}))
	r.deploy("ok", enginetest.AsyncService("ok", "ok", ""))
	r.deploy("fail", enginetest.AsyncService("fail", "fail", "R3/PT5M"))
	r.deploy("conflict", enginetest.AsyncService("conflict", "conflict", "R3/PT5M"))
	good, bad := r.start("ok"), r.start("fail")
	clash, err := r.eng.Start(r.ctx, nil, runtime.StartRequest{Key: "conflict", Variables: map[string]any{"v": "start"}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := r.lock("node", r.clock.Now().Add(time.Minute))
	if len(jobs) != 3 {
		t.Fatalf("locked %d jobs, want 3", len(jobs))
	}
	errs, ran, _ := r.eng.RunGroup(r.ctx, jobs, func() bool { return true }, nil)
	if ran != 3 {
		t.Fatalf("ran %d jobs, want 3", ran)
	}
	for i, j := range jobs {
		switch j.ProcessInstanceID {
		case good:
			if errs[i] != nil {
				t.Errorf("the good job failed: %v", errs[i])
			}
		case bad:
			if errs[i] == nil || persistence.IsConflict(errs[i]) {
				t.Errorf("the failing job: %v, want its failure", errs[i])
			}
			if got := r.job(j.ID); got == nil || got.Retries != 2 || got.LockOwner != "" {
				t.Errorf("the failing job after the group: %+v; want 2 retries left, unlocked", got)
			}
		case clash:
			if !persistence.IsConflict(errs[i]) {
				t.Errorf("the clashing job: %v, want an optimistic-lock conflict", errs[i])
			}
			if got := r.job(j.ID); got == nil || got.Retries != 3 || got.LockOwner != "" {
				t.Errorf("the clashing job after the group: %+v; want 3 retries left (none spent), unlocked", got)
			}
		}
	}
	if !r.ended(good) || r.ended(bad) || r.ended(clash) {
		t.Fatalf("ended: good %v, failing %v, clashing %v; want the good one only", r.ended(good), r.ended(bad), r.ended(clash))
	}
	again := r.lock("node", r.clock.Now().Add(time.Minute))
	if len(again) != 1 || again[0].ProcessInstanceID != clash {
		t.Fatalf("after the group, acquisition found %d jobs, want the clashing one alone", len(again))
	}
	if errs, _, _ := r.eng.RunGroup(r.ctx, again, func() bool { return true }, nil); errs[0] != nil || !r.ended(clash) {
		t.Fatalf("the clashing job run again: %v, ended %v", errs[0], r.ended(clash))
	}
	if v := lastSet.Load(); v != "other+job" {
		t.Errorf("the run that committed set v = %v, want the other transaction's value with the job's change: other+job", v)
	}
}

// Two groups that lock the same two process instances in opposite orders
// deadlock; PostgreSQL aborts one of the statements, and only the jobs that
// could not commit are rolled back (no retry spent) and run again: each
// join continues exactly once.
func TestRunGroupDeadlockOnPostgres(t *testing.T) {
	r := newRig(t, testdb.Postgres(t).Open(t))
	var joined sync.Map // instance → times the join continued
	r.eng.RegisterDelegate("after", runtime.DelegateFunc(func(_ context.Context, ex *runtime.Execution) error {
		n, _ := joined.LoadOrStore(ex.ProcessInstanceID(), new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		return nil
	}))
	r.eng.RegisterDelegate("branch", &countingDelegate{})
	r.deploy("join", enginetest.Process("join", `
    <startEvent id="start" />
    <sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f1" sourceRef="fork" targetRef="a" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="b" />
    <serviceTask id="a" camunda:asyncBefore="true" camunda:class="branch" />
    <serviceTask id="b" camunda:asyncBefore="true" camunda:class="branch" />
    <sequenceFlow id="f3" sourceRef="a" targetRef="joinGw" />
    <sequenceFlow id="f4" sourceRef="b" targetRef="joinGw" />
    <parallelGateway id="joinGw" />
    <sequenceFlow id="f5" sourceRef="joinGw" targetRef="after" />
    <serviceTask id="after" camunda:class="after" />
    <sequenceFlow id="f6" sourceRef="after" targetRef="end" />
    <endEvent id="end" />`))
	// Group 1 runs X.a then Y.a, group 2 runs Y.b then X.b.
	x, y := r.start("join"), r.start("join")
	jobs := r.lock("node", r.clock.Now().Add(time.Minute))
	if len(jobs) != 4 {
		t.Fatalf("locked %d jobs, want 4", len(jobs))
	}
	pick := func(pi, activity string) runtime.AcquiredJob {
		for _, j := range jobs {
			if j.ProcessInstanceID == pi && j.ActivityID == activity {
				return j
			}
		}
		t.Fatalf("no job of %s at %s", pi, activity)
		return runtime.AcquiredJob{}
	}
	groups := [][]runtime.AcquiredJob{{pick(x, "a"), pick(y, "a")}, {pick(y, "b"), pick(x, "b")}}
	// Each group starts its second job once both ran their first (whose
	// writes were flushed at its savepoint's release): each then holds a
	// row the other's second job needs.
	var firstDone sync.WaitGroup
	firstDone.Add(2)
	results := make([][]error, 2)
	var wg sync.WaitGroup
	for g := range groups {
		wg.Go(func() {
			started := 0
			results[g], _, _ = r.eng.RunGroup(r.ctx, groups[g], func() bool {
				if started++; started == 2 {
					firstDone.Done()
					firstDone.Wait()
				}
				return true
			}, nil)
		})
	}
	wg.Wait()
	conflicts := 0
	for _, errs := range results {
		for _, err := range errs {
			switch {
			case err == nil:
			case persistence.IsConflict(err):
				conflicts++
			default:
				t.Errorf("a job of a group failed: %v", err)
			}
		}
	}
	if conflicts == 0 {
		t.Fatalf("no job met the deadlock or a conflict: %v", results)
	}
	t.Logf("the groups' outcomes: %v", results)
	// What did not commit runs again, with no retry spent, until every
	// instance has ended.
	for round := 0; !(r.ended(x) && r.ended(y)); round++ {
		if round == 5 {
			t.Fatalf("the instances did not end after %d rounds", round)
		}
		left := r.lock("node", r.clock.Now().Add(time.Minute))
		for _, j := range left {
			if j.Retries != 3 {
				t.Errorf("job %s at %s has %d retries, want 3 (conflicts spend none)", j.ID, j.ActivityID, j.Retries)
			}
		}
		if errs, _, _ := r.eng.RunGroup(r.ctx, left, func() bool { return true }, nil); len(errs) > 0 {
			for _, err := range errs {
				if err != nil && !persistence.IsConflict(err) {
					t.Fatalf("run again: %v", err)
				}
			}
		}
	}
	for _, pi := range []string{x, y} {
		n, _ := joined.Load(pi)
		if n == nil || n.(*atomic.Int32).Load() != 1 {
			t.Errorf("instance %s: the join continued %v times, want once", pi, n)
		}
	}
}
