package jobexecutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

var (
	perJob      = persistence.Capabilities{ListenNotify: true, NeedsHeartbeat: true}
	singleWrite = persistence.Capabilities{SingleWriter: true}
	modes       = map[string]persistence.Capabilities{"per job": perJob, "single writer": singleWrite}
)

func start(t *testing.T, f *fakeRuntime, cfg Config) *Executor {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.WaitTime == 0 {
		cfg.WaitTime, cfg.MaxWait = 10*time.Millisecond, 50*time.Millisecond
	}
	cfg.LockOwner = "node"
	x, err := New(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = x.Stop(ctx)
	})
	return x
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func each(i int) string { return fmt.Sprintf("pi%d", i) }

// Every job present at the start runs exactly once, on both paths.
func TestRunsEveryJobOnce(t *testing.T) {
	for name, caps := range modes {
		t.Run(name, func(t *testing.T) {
			f := newFake(caps)
			f.add(jobs("j", 50, each, true)...)
			start(t, f, Config{PoolSize: 4})
			waitFor(t, "every job to run", func() bool { return len(f.remaining()) == 0 })
			for id, n := range snapshot(f, func() map[string]int { return clone(f.ran) }) {
				if n != 1 {
					t.Errorf("job %s ran %d times", id, n)
				}
			}
		})
	}
}

func clone(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// A job committed while the executor sleeps wakes it at once: the wait
// time (10 s here) is not what a new job waits for.
func TestNewJobWakesTheExecutor(t *testing.T) {
	f := newFake(perJob)
	var acquisitions atomic.Int32
	start(t, f, Config{WaitTime: 10 * time.Second, MaxWait: 30 * time.Second, Metrics: countingMetrics{acquired: &acquisitions}})
	waitFor(t, "the first, empty acquisition", func() bool { return acquisitions.Load() > 0 })
	time.Sleep(20 * time.Millisecond) // asleep now, for up to 10 s
	f.add(job("late", "pi", true))
	begin := time.Now()
	waitFor(t, "the new job to run", func() bool { return len(f.remaining()) == 0 })
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the new job waited %v", d)
	}
}

// The executor never holds more jobs locked than its queue and workers
// can take, whatever the backlog; blocked workers do not make it lock
// more.
func TestQueueAccounting(t *testing.T) {
	for name, caps := range modes {
		t.Run(name, func(t *testing.T) {
			f := newFake(caps)
			release := make(chan struct{})
			f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
				<-release
				return nil
			}
			f.add(jobs("j", 40, each, false)...)
			start(t, f, Config{PoolSize: 2, QueueSize: 1, MaxJobsPerAcquisition: 16})
			var once sync.Once
			unblock := func() { once.Do(func() { close(release) }) }
			t.Cleanup(unblock) // before the executor's Stop, which waits for the workers
			busy := 2          // workers running jobs; a single writer runs one group at a time
			if caps.SingleWriter {
				busy = 1
			}
			waitFor(t, "the workers busy", func() bool { return snapshot(f, func() int { return f.running }) == busy })
			time.Sleep(50 * time.Millisecond) // acquisition cycles go on meanwhile
			if held := snapshot(f, func() int { return f.maxHeld }); held > 3 {
				t.Errorf("%d jobs locked at once, want at most queue 1 + pool 2", held)
			}
			unblock()
			waitFor(t, "every job to run", func() bool { return len(f.remaining()) == 0 })
			if held := snapshot(f, func() int { return f.maxHeld }); held > 3 {
				t.Errorf("%d jobs locked at once, want at most 3", held)
			}
		})
	}
}

// The exclusive jobs of one instance never run at the same time; other
// instances' jobs run beside them.
func TestExclusiveJobsDoNotOverlap(t *testing.T) {
	f := newFake(perJob)
	var mu sync.Mutex
	now, most := map[string]int{}, map[string]int{}
	var parallel atomic.Int32
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		mu.Lock()
		now[j.ProcessInstanceID]++
		most[j.ProcessInstanceID] = max(most[j.ProcessInstanceID], now[j.ProcessInstanceID])
		if len(now) > 1 {
			parallel.Add(1)
		}
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		if now[j.ProcessInstanceID]--; now[j.ProcessInstanceID] == 0 {
			delete(now, j.ProcessInstanceID)
		}
		mu.Unlock()
		return nil
	}
	f.add(jobs("j", 30, func(i int) string { return each(i % 3) }, true)...)
	start(t, f, Config{PoolSize: 4, QueueSize: 8})
	waitFor(t, "every job to run", func() bool { return len(f.remaining()) == 0 })
	for pi, n := range most {
		if n > 1 {
			t.Errorf("instance %s had %d exclusive jobs running at once", pi, n)
		}
	}
	if parallel.Load() == 0 {
		t.Error("jobs of different instances never ran side by side")
	}
}

// Stop unlocks the jobs queued and not started, gives running jobs until
// its deadline, then cancels them; their outcome is not stored, so they are
// released too. Nothing is acquired afterwards.
func TestStop(t *testing.T) {
	f := newFake(perJob)
	cancelled := make(chan struct{})
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		<-ctx.Done()
		close(cancelled)
		return &runtime.NotStoredError{JobID: j.ID, Err: ctx.Err()}
	}
	f.add(jobs("j", 5, each, false)...)
	x, err := New(Config{PoolSize: 1, QueueSize: 4, LockOwner: "node", WaitTime: 10 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Stop(t.Context()); err != nil {
		t.Fatalf("Stop before Start: %v", err)
	}
	if err := x.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := x.Start(t.Context()); err == nil {
		t.Error("a second Start succeeded")
	}
	waitFor(t, "one job running and the rest queued", func() bool {
		return snapshot(f, func() bool { return f.running == 1 && f.held() == 5 })
	})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := x.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stop past its deadline: %v", err)
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("the running job was not cancelled")
	}
	if held, ran := snapshot(f, func() int { return f.held() }), snapshot(f, func() int { return len(f.ran) }); held != 0 || ran != 1 {
		t.Errorf("after Stop: %d jobs locked, %d run; want none locked and only the running one run", held, ran)
	}
	f.add(job("after", "pi", false))
	time.Sleep(50 * time.Millisecond)
	if n := snapshot(f, func() int { return f.ran["after"] }); n != 0 {
		t.Error("a stopped executor ran a job")
	}
}

// A running job's lock is extended while it runs; when an extension finds
// the lock lost, the job's context is cancelled.
func TestHeartbeat(t *testing.T) {
	f := newFake(perJob)
	cancelled := make(chan struct{})
	var once sync.Once
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		select {
		case <-ctx.Done():
			once.Do(func() { close(cancelled) })
			return &runtime.NotStoredError{JobID: j.ID, Err: ctx.Err()}
		case <-cancelled: // the run after the release
			return nil
		case <-time.After(10 * time.Second):
			return nil
		}
	}
	f.add(job("long", "pi", true))
	var logs enginetest.LogBuffer
	start(t, f, Config{LockTime: 150 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	waitFor(t, "two lock extensions", func() bool { return snapshot(f, func() int { return f.extended }) >= 2 })
	f.mu.Lock()
	f.extendLost = true
	f.mu.Unlock()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the job went on after its lock was lost")
	}
	// A lost lock fences the run: the log says so, and there is nothing of
	// this node's to release as if the database had failed.
	waitFor(t, "the fenced run to be logged", func() bool { return strings.Contains(logs.String(), "job fenced") })
	if strings.Contains(logs.String(), "releasing it without spending a retry") {
		t.Errorf("the fenced run was reported as not stored:\n%s", logs.String())
	}
}

// A job whose outcome could not be stored is released once the database
// answers again, with no retry spent, and runs again.
func TestStrandedJobReleased(t *testing.T) {
	f := newFake(perJob)
	var calls atomic.Int32
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		if calls.Add(1) == 1 {
			return &runtime.NotStoredError{JobID: j.ID, Err: errors.New("connection reset")}
		}
		return nil
	}
	f.failUnlock = 3 // the database is still away for the first attempts
	f.add(job("j", "pi", true))
	start(t, f, Config{})
	waitFor(t, "the job to run again", func() bool { return len(f.remaining()) == 0 })
	if n := calls.Load(); n != 2 {
		t.Errorf("the job ran %d times, want 2", n)
	}
	if n := snapshot(f, func() int { return f.unlocked }); n != 1 {
		t.Errorf("%d unlocks, want 1", n)
	}
}

// A queued job whose lock expired before a worker took it up (its node was
// frozen, the worker busy) is not handed to the engine: another node may
// have run it meanwhile, and running its delegate again would repeat an
// outside effect for nothing. Its lock is released if still held.
func TestExpiredQueuedJobNotStarted(t *testing.T) {
	f := newFake(perJob)
	clock := enginetest.NewClock()
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		if j.ID == "a" {
			// While a runs, b waits in the queue past its lock, and another
			// node takes it over.
			clock.Add(10 * time.Minute)
			f.mu.Lock()
			b := f.jobs["b"]
			until := clock.Now().Add(time.Hour)
			b.LockOwner, b.LockExpiration, b.Rev = "other", &until, b.Rev+1
			f.mu.Unlock()
		}
		return nil
	}
	f.add(job("a", "pi1", true), job("b", "pi2", true))
	var logs enginetest.LogBuffer
	start(t, f, Config{PoolSize: 1, QueueSize: 1, Clock: clock.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	waitFor(t, "b to be released", func() bool { return snapshot(f, func() int { return f.unlocks }) >= 1 })
	if n := snapshot(f, func() int { return f.calls["b"] }); n != 0 {
		t.Errorf("b was handed to the engine %d times after its lock expired:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "job fenced") {
		t.Errorf("no fenced job in the log:\n%s", logs.String())
	}
}

// After a database outage the executor resumes within its short probe
// interval, not after its idle back-off, and releases what is locked in
// its name without being held by it: here the continuation a job's commit
// locked while the answer to that commit was lost. Both run at once.
func TestOutageRecovery(t *testing.T) {
	f := newFake(perJob)
	f.failAcquire = true
	start(t, f, Config{WaitTime: 5 * time.Second, MaxWait: time.Minute})
	time.Sleep(300 * time.Millisecond) // failing acquisitions: the back-off would grow meanwhile
	f.mu.Lock()
	far := time.Now().Add(time.Hour)
	orphan := job("claimed", "pi1", true)
	orphan.Retries, orphan.Rev, orphan.LockOwner, orphan.LockExpiration = 3, 2, "node", &far
	fresh := job("new", "pi2", true) // committed by another node; its NOTIFY was lost
	fresh.Retries, fresh.Rev = 3, 1
	f.jobs["claimed"], f.jobs["new"] = orphan, fresh
	f.order = append(f.order, "claimed", "new")
	f.failAcquire = false
	back := time.Now()
	f.mu.Unlock()
	waitFor(t, "both jobs to run", func() bool { return len(f.remaining()) == 0 })
	if d := time.Since(back); d > 2*time.Second {
		t.Errorf("work resumed %v after the database was back, want within the probe interval", d)
	}
	if n := snapshot(f, func() int { return f.unlocked }); n != 1 {
		t.Errorf("%d locks released, want the orphaned one", n)
	}
}

// A stranded job whose outcome was stored after all (the commit went
// through, its answer was lost) is gone when the database answers: the
// release log says none was released, not that it was.
func TestStrandedReleaseCountsWhatWasReleased(t *testing.T) {
	f := newFake(perJob)
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		f.mu.Lock()
		delete(f.jobs, j.ID) // committed, though the runner cannot know
		f.mu.Unlock()
		return &runtime.NotStoredError{JobID: j.ID, Err: errors.New("connection reset")}
	}
	f.failUnlock = 1 // the first release meets the outage
	f.add(job("j", "pi", true))
	var logs enginetest.LogBuffer
	start(t, f, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	waitFor(t, "the second release attempt", func() bool {
		return strings.Contains(logs.String(), "released jobs whose outcome could not be stored")
	})
	if !strings.Contains(logs.String(), "stranded=1 released=0") {
		t.Errorf("the release log does not say that nothing was released:\n%s", logs.String())
	}
}

// Failing acquisitions (a database outage) are logged at WARN, once per
// interval, not once per cycle.
func TestAcquisitionErrorsWarnOnce(t *testing.T) {
	f := newFake(perJob)
	f.failAcquire = true
	var logs enginetest.LogBuffer
	x := start(t, f, Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	_ = x
	time.Sleep(300 * time.Millisecond) // about 30 failing cycles
	if n := strings.Count(logs.String(), "job acquisition failed"); n != 1 {
		t.Errorf("%d acquisition warnings in 300 ms, want 1:\n%s", n, logs.String())
	}
}

// The metrics count what ran: successes, failures, conflicts.
func TestMetrics(t *testing.T) {
	f := newFake(perJob)
	f.run = func(ctx context.Context, j runtime.AcquiredJob) error {
		switch j.ID {
		case "fails":
			return errors.New("boom")
		case "conflicts":
			return fmt.Errorf("join: %w", persistence.ErrOptimisticLock)
		}
		return nil
	}
	var executed, failed, conflicts, acquired atomic.Int32
	later := time.Now().Add(time.Hour)
	f.add(job("ok", "a", false), job("fails", "b", false), job("conflicts", "c", false))
	start(t, f, Config{Metrics: countingMetrics{&acquired, &executed, &failed, &conflicts}})
	waitFor(t, "three runs", func() bool { return snapshot(f, func() int { return len(f.ran) }) == 3 })
	f.mu.Lock()
	for _, j := range f.jobs { // not again: their retries are not due
		j.DueDate = &later
	}
	f.mu.Unlock()
	waitFor(t, "the metrics", func() bool { return executed.Load() == 1 && failed.Load() >= 1 && conflicts.Load() >= 1 })
}

type countingMetrics struct{ acquired, executed, failed, conflicts *atomic.Int32 }

func (m countingMetrics) Acquired(int)                { add(m.acquired) }
func (m countingMetrics) Executed(time.Duration)      { add(m.executed) }
func (m countingMetrics) Failed()                     { add(m.failed) }
func (m countingMetrics) Conflict()                   { add(m.conflicts) }
func (m countingMetrics) QueueDepth(int)              {}
func (m countingMetrics) PickupLatency(time.Duration) {}

func add(n *atomic.Int32) {
	if n != nil {
		n.Add(1)
	}
}
