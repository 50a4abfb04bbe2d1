package runtime_test

import (
	"context"
	"errors"
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
