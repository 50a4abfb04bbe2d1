package jobexecutor_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// runaway is a process whose gateway's default flow leads back to a manual
// task: no wait state on the loop, and the way out is never taken.
func runaway(id, startAttrs string) string {
	return enginetest.Process(id, `
    <startEvent id="start" `+startAttrs+`/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="again" />
    <manualTask id="again" />
    <sequenceFlow id="f2" sourceRef="again" targetRef="more" />
    <exclusiveGateway id="more" default="back" />
    <sequenceFlow id="back" sourceRef="more" targetRef="again" />
    <sequenceFlow id="out" sourceRef="more" targetRef="end"><conditionExpression>${false}</conditionExpression></sequenceFlow>
    <endEvent id="end" />`)
}

// within runs fn and fails the test if it has not returned after d: the
// defect was a call that never returned.
func within[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("the call had not returned after %v", d)
	}
	panic("unreachable")
}

// A loop without a wait state ends at the operation limit (the default one)
// with an error naming its activities, and stores nothing; deployment
// warned about it.
func TestRunawayLoopStopsAtTheOperationLimit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.Deploy("runaway", runaway("runaway", ""))
		if !slices.ContainsFunc(d.Warnings, func(p bpmnlite.Problem) bool {
			return p.ElementID == "again" && strings.Contains(p.Message, "'again', 'more'")
		}) {
			t.Errorf("deployment warnings %v, want one about the loop of 'again' and 'more'", d.Warnings)
		}
		err := within(t, time.Minute, func() error {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "runaway"})
			return err
		})
		var le *bpmnlite.LoopError
		if !errors.Is(err, bpmnlite.ErrOperationLimit) || !errors.As(err, &le) {
			t.Fatalf("start: %v, want a *LoopError", err)
		}
		if !slices.Equal(le.Activities, []string{"again", "more"}) && !slices.Equal(le.Activities, []string{"more", "again"}) {
			t.Errorf("repeating activities %v, want again and more", le.Activities)
		}
		if !strings.Contains(err.Error(), "'again'") || !strings.Contains(err.Error(), "'more'") {
			t.Errorf("message %q does not name the loop's activities", err)
		}
		e.NothingStored("runaway")
	})
}

// Without a bound, the loop still ends with the caller's context.
func TestRunawayLoopEndsWithTheContext(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxOperations: -1}}, func(t *testing.T, e *env) {
		e.Deploy("runaway", runaway("runaway", ""))
		ctx, cancel := context.WithTimeout(e.Ctx, 300*time.Millisecond)
		defer cancel()
		err := within(t, time.Minute, func() error {
			_, err := e.Eng.Start(ctx, bpmnlite.StartRequest{Key: "runaway"})
			return err
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("start: %v, want the context's deadline", err)
		}
		e.NothingStored("runaway")
	})
}

// In a job the loop is a failure like any other: a retry spent with the
// loop's message, then an incident.
func TestRunawayLoopInAJobFails(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxOperations: 2000}}, func(t *testing.T, e *env) {
		e.Deploy("runaway", runaway("runaway", `camunda:asyncBefore="true"`))
		pi := e.Start("runaway", nil)
		j := e.OneJob(pi)
		for attempt := 1; attempt <= 3; attempt++ {
			err := within(t, time.Minute, func() error { return e.Eng.ExecuteJob(e.Ctx, j.ID) })
			if !errors.Is(err, bpmnlite.ErrOperationLimit) {
				t.Fatalf("attempt %d: %v, want ErrOperationLimit", attempt, err)
			}
			job := e.jeJob(j.ID)
			if job.Retries != 3-attempt || !strings.Contains(job.ExceptionMessage, "'again'") {
				t.Fatalf("after attempt %d: retries %d, message %q", attempt, job.Retries, job.ExceptionMessage)
			}
		}
		in, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
		if err != nil || len(in) != 1 || in[0].Configuration != j.ID {
			t.Fatalf("incidents %v (%v), want the job's", in, err)
		}
		if xs := e.Executions(pi, "start"); len(xs) != 1 {
			t.Fatalf("%d executions at 'start', want the job's one, rolled back to its wait", len(xs))
		}
	})
}

// syncBuffer is a log destination tests read while the engine writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A database outage while a job runs: its commit fails, the executor says
// so at WARN and releases the job as soon as the database answers, without
// charging it a retry; the job then runs again at once instead of waiting
// for its lock (five minutes) to expire. The outage either cuts the
// engine's connections (the database answers again at once), or makes the
// database unreachable for a while (the release waits for it).
func TestOutageReleasesRunningJobWithoutCharge(t *testing.T) {
	t.Run("connections cut", func(t *testing.T) {
		b := testdb.Postgres(t)
		app := fmt.Sprintf("bpmnlite_outage_%d", time.Now().UnixNano())
		b.URL += "&application_name=" + app
		outageWhileRunning(t, b, func() {
			admin, err := pgx.Connect(t.Context(), testdb.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(context.Background())
			if _, err := admin.Exec(t.Context(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("database unreachable", func(t *testing.T) {
		b := testdb.Postgres(t)
		proxy := testdb.NewProxy(t, b.URL)
		b.URL = proxy.Through(b.URL)
		logs := outageWhileRunning(t, b, func() {
			proxy.Cut()
			time.AfterFunc(500*time.Millisecond, proxy.Restore)
		})
		if !strings.Contains(logs, "released jobs whose outcome could not be stored") {
			t.Errorf("the job was not released by a later attempt; logs:\n%s", logs)
		}
	})
}

// After a database outage with no work in flight, the executor notices the
// database is back within its probe interval (not its idle back-off, which
// grew while acquisitions failed) and resumes: a job committed by another
// node during the outage (whose NOTIFY was lost) runs at once, and so does
// one locked in this executor's name that it does not hold (as when a
// commit that claimed a continuation went through but its answer was
// lost), released instead of waiting five minutes for its lock and then
// being charged a failed attempt.
func TestOutageRecoveryIsQuick(t *testing.T) {
	b := testdb.Postgres(t)
	proxy := testdb.NewProxy(t, b.URL)
	cut := b
	cut.URL = proxy.Through(b.URL)
	node := openEnv(t, cut, bpmnlite.Config{})
	other := openEnv(t, b, bpmnlite.Config{})
	other.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
	node.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
	node.Deploy("outage", enginetest.AsyncService("outage", "work", ""))
	orphaned := other.Start("outage", nil)
	if locked := other.jeLock("node-a", time.Now().Add(5*time.Minute), persistence.AcquireParams{}); len(locked) != 1 {
		t.Fatalf("locked %d jobs for node-a, want the orphan", len(locked))
	}
	node.StartExecutor(bpmnlite.JobExecutorConfig{LockOwner: "node-a", LockTime: 5 * time.Minute, WaitTime: 5 * time.Second, MaxWait: time.Minute, Clock: time.Now})

	proxy.Cut()
	time.Sleep(1500 * time.Millisecond) // acquisitions fail meanwhile
	fresh := other.Start("outage", nil)
	proxy.Restore()
	back := time.Now()
	harness.WaitFor(t, "both instances to end", 30*time.Second, func() bool {
		is, err := other.Eng.HistoricProcessInstances(other.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		ended := 0
		for _, in := range is {
			if in.EndTime != nil && (in.ID == orphaned || in.ID == fresh) {
				ended++
			}
		}
		return err == nil && ended == 2
	})
	if d := time.Since(back); d > 2*time.Second {
		t.Errorf("work resumed %v after the database answered again, want within 2 s", d)
	}
	for _, pi := range []string{orphaned, fresh} {
		done := other.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: bpmnlite.JobLogSucceeded})
		if len(done) != 1 || done[0].Retries != 3 {
			t.Errorf("instance %s: succeeded entries %+v, want one with all 3 retries left", pi, done)
		}
	}
}

// The locks of an executor that stopped reporting (its node was killed, or
// is gone for good) are taken over once it has been silent for
// DeadOwnerAfter, without waiting for them to expire and without charging
// the jobs a failed attempt; the locks of an executor that reports are
// left alone. A restarted executor with the identity of the previous run
// releases that run's locks at once. The clock does not move: without the
// takeover the locks would never expire.
func TestDeadOwnerLocksTakenOver(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("dead", enginetest.AsyncService("dead", "work", ""))
		now := e.Clock.Now()
		lockFor := func(owner string, heartbeat time.Time) string {
			pi := e.Start("dead", nil)
			if js := e.jeLock(owner, now.Add(5*time.Minute), persistence.AcquireParams{}); len(js) != 1 {
				t.Fatalf("locked %d jobs for %s, want 1", len(js), owner)
			}
			if !heartbeat.IsZero() {
				t.Helper()
				tx, err := harness.Store(e.Eng).Begin(e.Ctx, false)
				if err == nil {
					err = persistence.Flush(e.Ctx, tx, nil, persistence.ReportJobExecutor(&persistence.JobExecutorInfo{ID: owner, PoolSize: 4, QueueSize: 4, Heartbeat: heartbeat.UTC()}))
				}
				if err == nil {
					err = tx.Commit(e.Ctx)
				}
				if err != nil {
					t.Fatalf("report of %s: %v", owner, err)
				}
			}
			return pi
		}
		dead := lockFor("dead-node", now.Add(-time.Minute))
		live := lockFor("live-node", now)
		previous := lockFor("node-x", time.Time{}) // this executor's identity, before a restart

		logs := &syncBuffer{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{LockOwner: "node-x", ReportInterval: 20 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		harness.WaitFor(t, "the dead owner's and the previous run's jobs to run", 10*time.Second, func() bool {
			return e.State(dead) == bpmnlite.StateCompleted && e.State(previous) == bpmnlite.StateCompleted
		})
		time.Sleep(100 * time.Millisecond) // several reports and takeover rounds
		if st := e.State(live); st == bpmnlite.StateCompleted {
			t.Errorf("the job of an executor that reports was taken over")
		}
		for _, pi := range []string{dead, previous} {
			done := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: bpmnlite.JobLogSucceeded})
			if len(done) != 1 || done[0].Retries != 3 {
				t.Errorf("instance %s: succeeded entries %+v, want one with all 3 retries left (no charge)", pi, done)
			}
		}
		for _, want := range []string{"took over the job locks of a job executor that stopped reporting", "owner=dead-node",
			"released the job locks a previous run of this executor's identity held"} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, logs)
			}
		}
	})
}

// outageWhileRunning runs an asynchronous job on b and calls outage while
// the job's delegate runs, then checks the job was released without charge
// and ran again. It returns the engine's log.
func outageWhileRunning(t *testing.T, b testdb.Backend, outage func()) string {
	logs := &syncBuffer{}
	e := openEnv(t, b, bpmnlite.Config{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	e.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return nil
	}))
	e.Deploy("outage", enginetest.AsyncService("outage", "work", ""))
	e.StartExecutor(bpmnlite.JobExecutorConfig{LockTime: 5 * time.Minute, MaxWait: 200 * time.Millisecond, Logger: e.Cfg.Logger, Clock: time.Now})
	pi := e.Start("outage", nil)
	<-entered
	outage()
	close(release)

	harness.WaitFor(t, "the job to run again and the instance to end", 30*time.Second, func() bool {
		// A query may still meet a pooled connection the outage cut.
		is, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
		return err == nil && len(is) == 1 && is[0].EndTime != nil
	})
	if n := calls.Load(); n != 2 {
		t.Errorf("the delegate ran %d times, want 2: the cut run and the run after the release", n)
	}
	done := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: bpmnlite.JobLogSucceeded})
	if len(done) != 1 || done[0].Retries != 3 {
		t.Errorf("succeeded entries %+v, want one with all 3 retries left", done)
	}
	if failed := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: bpmnlite.JobLogFailed}); len(failed) != 0 {
		t.Errorf("failed entries %+v, want none: the outage is not the job's failure", failed)
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"job ran but its outcome could not be stored") {
		t.Errorf("no warning about the job's outcome; logs:\n%s", logs)
	}
	return logs.String()
}
