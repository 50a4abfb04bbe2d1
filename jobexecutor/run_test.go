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

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The running job executor: exclusive jobs, timers, shutdown, job log and
// metrics.

// jeFork is a process "id" forking into three asynchronous service tasks
// calling "nap", joined again; exclusive sets camunda:exclusive.
func jeFork(id string, exclusive bool) string {
	task := func(name string) string {
		attr := ""
		if !exclusive {
			attr = ` camunda:exclusive="false"`
		}
		return `<serviceTask id="` + name + `" camunda:asyncBefore="true" camunda:class="nap"` + attr + ` />`
	}
	return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f1" sourceRef="fork" targetRef="a" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="b" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="c" />
    `+task("a")+task("b")+task("c")+`
    <sequenceFlow id="f4" sourceRef="a" targetRef="join" />
    <sequenceFlow id="f5" sourceRef="b" targetRef="join" />
    <sequenceFlow id="f6" sourceRef="c" targetRef="join" />
    <parallelGateway id="join" />
    <sequenceFlow id="f7" sourceRef="join" targetRef="end" />
    <endEvent id="end" />`)
}

// jeInterval is when one run of a job took place, from the job log.
type jeInterval struct {
	pi         string
	start, end time.Time
}

// jeRuns returns the runs (succeeded and failed) of the given instances'
// jobs, from the job log.
func (e *env) jeRuns(pis []string) []jeInterval {
	e.T.Helper()
	var out []jeInterval
	for _, pi := range pis {
		for _, l := range e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi}) {
			if (l.Event == "succeeded" || l.Event == "failed") && l.ExecutionStart != nil {
				out = append(out, jeInterval{pi, *l.ExecutionStart, l.Timestamp})
			}
		}
	}
	return out
}

func (a jeInterval) overlaps(b jeInterval) bool {
	return a.start.Before(b.end) && b.start.Before(a.end)
}

// Exclusive jobs under a real concurrent pool (wall clock): the jobs of one
// instance never overlap, judged from the job log's run intervals, while
// jobs of different instances do run in parallel (on SQLite too: the jobs
// of slow delegates run outside its one writer). Non-exclusive jobs of one
// instance may run in parallel, and their conflicts at the join cost no
// retry.
func TestExecutorExclusiveJobs(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("nap", bpmnlite.DelegateFunc(func(ctx context.Context, _ *bpmnlite.Execution) error {
			select {
			case <-time.After(20 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}))
		e.Deploy("exclusive", jeFork("exclusive", true))
		e.Deploy("shared", jeFork("shared", false))
		var exclusive, shared []string
		for range 4 {
			exclusive = append(exclusive, e.Start("exclusive", nil))
		}
		m := &harness.Metrics{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 4, Metrics: m})
		for _, pi := range exclusive {
			harness.WaitFor(t, "instance "+pi+" to end", 30*time.Second, func() bool { return e.Ended(pi) })
		}
		// Then, on the idle pool, instances with non-exclusive jobs: four
		// workers for their six jobs.
		for range 2 {
			shared = append(shared, e.Start("shared", nil))
		}
		for _, pi := range shared {
			harness.WaitFor(t, "instance "+pi+" to end", 30*time.Second, func() bool { return e.Ended(pi) })
		}
		runs := e.jeRuns(exclusive)
		if len(runs) < 12 {
			t.Fatalf("%d runs logged for 12 exclusive jobs", len(runs))
		}
		across := false
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				switch {
				case a.pi == b.pi && a.overlaps(b):
					t.Fatalf("exclusive jobs of %s overlapped: %v–%v and %v–%v", a.pi, a.start, a.end, b.start, b.end)
				case a.pi != b.pi && a.overlaps(b):
					across = true
				}
			}
		}
		for _, pi := range exclusive {
			if l := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}); len(l) != 0 {
				t.Errorf("exclusive jobs of %s failed %d times (%s): they should have run one after another", pi, len(l), l[0].Message)
			}
		}
		if !across {
			t.Error("no two jobs of different instances ran in parallel")
		}
		within := false
		sharedRuns := e.jeRuns(shared)
		for i, a := range sharedRuns {
			for _, b := range sharedRuns[i+1:] {
				if a.pi == b.pi && a.overlaps(b) {
					within = true
				}
			}
		}
		if !within {
			t.Error("no two non-exclusive jobs of one instance ran in parallel")
		}
		for _, pi := range shared {
			for _, l := range e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}) {
				if l.Retries != 3 {
					t.Errorf("a non-exclusive job failed with %d retries left (%s); conflicts must not spend retries", l.Retries, l.Message)
				}
			}
		}
		if s := m.Snapshot(); s.Failed != 0 {
			t.Errorf("%d failed runs, want none", s.Failed)
		}
	})
}

// S21 under the running executor: concurrent exclusive jobs joining at
// nested forks, and sequences, complete with no job left; three exclusive
// PT5M timers joining in parallel fire at +50 min 5 s and end the instance
// with no failed job.
func TestExecutorExclusiveCorpus(t *testing.T) {
	const dir = "camunda/exclusive/"
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(dir+"ExclusiveTaskTest.testExclusiveServiceConcurrent.bpmn20.xml", dir+"ExclusiveTimerEventTest.testCatchingTimerEvent.bpmn20.xml")
		m := &harness.Metrics{}
		x := e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 4, Metrics: m})
		concurrent := e.Start("exclusive", nil)
		harness.WaitFor(t, "the concurrent exclusive jobs to complete", 20*time.Second, func() bool { return e.Ended(concurrent) })
		if e.State(concurrent) != "COMPLETED" {
			t.Fatalf("state %s, want COMPLETED", e.State(concurrent))
		}
		timers := e.Start("exclusiveTimers", nil)
		if n := len(e.Jobs(timers)); n != 3 {
			t.Fatalf("%d timer jobs, want 3", n)
		}
		e.Clock.Add(50*time.Minute + 5*time.Second)
		x.Wake()
		harness.WaitFor(t, "the timers to join", 20*time.Second, func() bool { return e.Ended(timers) })
		for _, pi := range []string{concurrent, timers} {
			if l := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}); len(l) != 0 {
				t.Errorf("%d failed runs in %s (%s), want none", len(l), pi, l[0].Message)
			}
		}
		if n := len(e.AllJobs()); n != 0 {
			t.Fatalf("%d jobs left", n)
		}
		for _, seq := range []string{"ExclusiveTaskTest.testExclusiveSequence2.bpmn20.xml", "ExclusiveTaskTest.testExclusiveSequence3.bpmn20.xml"} {
			e.DeployFiles(dir + seq)
			pi := e.Start("testProcess", nil)
			harness.WaitFor(t, seq+" to complete", 20*time.Second, func() bool { return e.Ended(pi) })
		}
		if s := m.Snapshot(); s.Failed != 0 || s.Conflicts != 0 {
			t.Fatalf("%d failures and %d conflicts, want none", s.Failed, s.Conflicts)
		}
	})
}

// Timers fire under the running executor when the fake clock passes their
// due date (after Wake, as the executor sleeps on real time): an
// intermediate timer, an interrupting boundary timer, and an R2/PT5M timer
// start cycle whose job schedules the next one with the same priority.
func TestExecutorTimers(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(jeDir+"processWithTimerCatch.bpmn20.xml", "camunda/timers/StartTimerEventTest.testPriorityInTimerCycleEvent.bpmn20.xml")
		e.Deploy("escalation", jeTimeoutProcess("escalation", "PT10M", true))
		x := e.StartExecutor(bpmnlite.JobExecutorConfig{})
		catch := e.Start("testProcess", nil)
		escalation := e.Start("escalation", nil)

		cycleJobs := func() []*bpmnlite.Job {
			js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionKey: "startTimerEventExampleCycle"})
			if err != nil {
				t.Fatal(err)
			}
			return js
		}
		first := cycleJobs()
		if len(first) != 1 || first[0].Priority != 9999 || !first[0].DueDate.Equal(e.Clock.Now().Add(5*time.Minute)) {
			t.Fatalf("timer start jobs %s, want one with priority 9999 due in 5 minutes", harness.JobList(first))
		}

		e.Clock.Add(time.Minute)
		x.Wake()
		harness.WaitFor(t, "the intermediate timer", 10*time.Second, func() bool { return e.Ended(catch) })
		if e.TaskKeys(escalation) != "work" {
			t.Fatalf("the boundary timer fired early: tasks %q", e.TaskKeys(escalation))
		}

		e.Clock.Add(4*time.Minute + 5*time.Second) // +5 min 5 s
		x.Wake()
		harness.WaitFor(t, "the first cycle run", 10*time.Second, func() bool { return len(e.Instances("startTimerEventExampleCycle")) == 1 })
		var next []*bpmnlite.Job
		harness.WaitFor(t, "the next cycle job", 10*time.Second, func() bool { next = cycleJobs(); return len(next) == 1 && next[0].ID != first[0].ID })
		// The cycle keeps its schedule: the next run is 5 minutes after the
		// first one was due.
		if next[0].Priority != 9999 || !next[0].DueDate.Equal(first[0].DueDate.Add(5*time.Minute)) {
			t.Fatalf("next cycle job %s due %v, want priority 9999 due 5 minutes after the first", harness.JobList(next), next[0].DueDate)
		}

		e.Clock.Add(5 * time.Minute) // +10 min 5 s: the boundary timer and the second cycle run
		x.Wake()
		harness.WaitFor(t, "the boundary timer", 10*time.Second, func() bool { return e.TaskKeys(escalation) == "escalate" })
		harness.WaitFor(t, "the second cycle run", 10*time.Second, func() bool { return len(e.Instances("startTimerEventExampleCycle")) == 2 })
		if js := cycleJobs(); len(js) != 0 {
			t.Fatalf("jobs %s left after the two runs of R2", harness.JobList(js))
		}
	})
}

// Graceful shutdown: Stop stops acquiring, unlocks the jobs acquired but
// not started at once, and lets the running job finish within the deadline.
func TestExecutorStopUnlocksQueuedJobs(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		entered, release := make(chan struct{}, 8), make(chan struct{})
		var calls atomic.Int32
		e.Eng.RegisterDelegate("slow", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			calls.Add(1)
			entered <- struct{}{}
			<-release
			return nil
		}))
		e.Deploy("slow", enginetest.AsyncService("slow", "slow", ""))
		pis := []string{e.Start("slow", nil), e.Start("slow", nil), e.Start("slow", nil)}
		x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, QueueSize: 2, Clock: e.Clock.Now, WaitTime: 10 * time.Millisecond, LockOwner: "stopping"}, e.Eng)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Start(e.Ctx); err != nil {
			t.Fatal(err)
		}
		<-entered
		harness.WaitFor(t, "all three jobs locked", 10*time.Second, func() bool {
			js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{Locked: true})
			return err == nil && len(js) == 3
		})
		stopped := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stopped <- x.Stop(ctx)
		}()
		harness.WaitFor(t, "Stop to begin", 10*time.Second, func() bool { return !x.Running() })
		// On PostgreSQL the queued jobs are released while the running one
		// still runs; SQLite's single writer is busy with that job until it
		// ends.
		if e.Eng.Dialect() == "postgres" {
			harness.WaitFor(t, "the queued jobs to be unlocked", 10*time.Second, func() bool {
				js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{Locked: true})
				return err == nil && len(js) == 1
			})
		}
		close(release)
		if err := <-stopped; err != nil {
			t.Fatalf("stop: %v", err)
		}
		ended := 0
		for _, pi := range pis {
			if e.Ended(pi) {
				ended++
				continue
			}
			j := e.OneJob(pi)
			if j.LockOwner != "" || j.LockExpiration != nil || j.Retries != 3 {
				t.Fatalf("queued job: lock %q until %v, retries %d; want unlocked and untouched", j.LockOwner, j.LockExpiration, j.Retries)
			}
		}
		if ended != 1 || calls.Load() != 1 {
			t.Fatalf("%d instances ended and %d jobs started, want the running one only", ended, calls.Load())
		}
		select {
		case <-entered:
			t.Fatal("a queued job started after Stop")
		default:
		}
	})
}

// Graceful shutdown past its deadline: the running job's context is
// cancelled, its transaction rolls back and Stop reports the deadline.
func TestExecutorStopCancelsRunningJobAfterDeadline(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		entered := make(chan struct{})
		var cancelled atomic.Bool
		e.Eng.RegisterDelegate("stuck", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			if err := ex.SetVariable("started", true); err != nil {
				return err
			}
			close(entered)
			<-ctx.Done()
			cancelled.Store(true)
			return ctx.Err()
		}))
		e.Deploy("stuck", enginetest.AsyncService("stuck", "stuck", ""))
		pi := e.Start("stuck", nil)
		x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, Clock: e.Clock.Now, WaitTime: 10 * time.Millisecond}, e.Eng)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Start(e.Ctx); err != nil {
			t.Fatal(err)
		}
		<-entered
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := x.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stop: %v, want the deadline exceeded", err)
		}
		if !cancelled.Load() {
			t.Fatal("the running job's context was not cancelled")
		}
		j := e.OneJob(pi)
		if j.Retries != 3 || e.Var(pi, "started") != nil || len(e.Executions(pi, "work")) != 1 {
			t.Fatalf("after the cancelled run: retries %d, started %v; want the job untouched and its work rolled back", j.Retries, e.Var(pi, "started"))
		}
	})
}

// The job log records a job's life: created, locked (with the lock owner),
// failed (with the message), locked again, succeeded, each at the clock's
// time, the runs with their start; a timer removed with its activity is
// logged as deleted. Metrics report acquisitions, runs, failures, queue
// depth and pickup latency.
func TestExecutorJobLogAndMetrics(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := &jeSwitch{msg: "ledger offline"}
		d.failing.Store(true)
		e.Eng.RegisterDelegate("book", d)
		e.Deploy("book", enginetest.AsyncService("book", "book", "R3/PT1M"))
		e.Deploy("timeout", jeTimeoutProcess("timeout", "PT1H", false))
		t0 := e.Clock.Now()
		pi := e.Start("book", nil)
		j := e.OneJob(pi)
		m := &harness.Metrics{}
		x := e.StartExecutor(bpmnlite.JobExecutorConfig{LockOwner: "node-1", Metrics: m})
		harness.WaitFor(t, "the failure", 10*time.Second, func() bool { return e.jeJob(j.ID).Retries == 2 })
		d.failing.Store(false)
		e.Clock.Add(time.Minute)
		t1 := e.Clock.Now()
		x.Wake()
		harness.WaitFor(t, "the success", 10*time.Second, func() bool { return e.Ended(pi) })

		type entry struct {
			event, owner string
			at           time.Time
			retries      int
			started      bool
		}
		var got []entry
		for _, l := range e.JobLog(bpmnlite.JobLogQuery{JobID: j.ID}) {
			got = append(got, entry{l.Event, l.LockOwner, l.Timestamp.UTC(), l.Retries, l.ExecutionStart != nil})
			if l.ProcessInstanceID != pi || l.ActivityID != "work" || l.JobDefinitionID != j.JobDefinitionID {
				t.Errorf("entry %s: instance %s, activity %s, job definition %s", l.Event, l.ProcessInstanceID, l.ActivityID, l.JobDefinitionID)
			}
			if l.Event == "failed" && !strings.Contains(l.Message, "ledger offline") {
				t.Errorf("failed entry message %q", l.Message)
			}
		}
		want := []entry{
			{"created", "", t0, 3, false},
			{"locked", "node-1", t0, 3, false},
			{"failed", "node-1", t0, 2, true},
			{"locked", "node-1", t1, 2, false},
			{"succeeded", "node-1", t1, 2, true},
		}
		if len(got) != len(want) {
			t.Fatalf("job log %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i].event != want[i].event || got[i].owner != want[i].owner || !got[i].at.Equal(want[i].at) ||
				got[i].retries != want[i].retries || got[i].started != want[i].started {
				t.Fatalf("job log entry %d: %+v, want %+v", i, got[i], want[i])
			}
		}

		// A boundary timer removed with its activity: created, deleted.
		timeout := e.Start("timeout", nil)
		timer := e.OneJob(timeout)
		e.Complete(timeout, "work", nil)
		var events []string
		for _, l := range e.JobLog(bpmnlite.JobLogQuery{JobID: timer.ID}) {
			events = append(events, l.Event)
		}
		if !slices.Equal(events, []string{"created", "deleted"}) {
			t.Fatalf("boundary timer log %v, want created, deleted", events)
		}

		s := m.Await(t, "2 runs", func(s harness.Counts) bool { return s.Failed+s.Executed == 2 })
		if s.Acquired != 2 || s.Executed != 1 || s.Failed != 1 || s.Acquisitions < 2 {
			t.Fatalf("metrics: %d acquisitions, %d acquired, %d executed, %d failed; want 2 acquired, 1 executed, 1 failed", s.Acquisitions, s.Acquired, s.Executed, s.Failed)
		}
		if len(s.Latencies) != 2 || len(s.Depths) != 2 || s.Depths[0] != 1 || s.Depths[1] != 1 {
			t.Fatalf("metrics: pickup latencies %v, queue depths %v; want one each per acquired job, depth 1", s.Latencies, s.Depths)
		}
	})
}

// S35: suspension and what acquisition sees. Suspending a job by id, by job
// definition or by process instance suspends it; a job definition suspended
// without its jobs keeps them active. A suspended instance's or definition's
// jobs are not acquired (a running executor leaves them), activation brings
// them back; a suspended definition still lets a job run by hand; a timer
// start job follows its definition.
func TestExecutorSuspension(t *testing.T) {
	const dir = "camunda/suspension/"
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		e.DeployFiles(dir + "SuspensionTest.testBase.bpmn")
		pi := e.Start("suspensionProcess", map[string]any{"fail": false})
		j := e.OneJob(pi)
		count := func(q bpmnlite.JobQuery) int {
			t.Helper()
			js, err := e.Eng.Jobs(e.Ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return len(js)
		}
		suspended := func(what string) {
			t.Helper()
			js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{Suspended: true})
			if err != nil || len(js) != 1 || js[0].ID != j.ID || js[0].JobDefinitionID != j.JobDefinitionID || count(bpmnlite.JobQuery{Active: true}) != 0 {
				t.Fatalf("%s: suspended jobs %s (%v), want the job alone", what, harness.JobList(js), err)
			}
			if got := e.jeAcquirable(persistence.AcquireParams{}); len(got) != 0 {
				t.Fatalf("%s: the suspended job is acquirable", what)
			}
		}
		active := func(what string) {
			t.Helper()
			if count(bpmnlite.JobQuery{Active: true}) != 1 || count(bpmnlite.JobQuery{Suspended: true}) != 0 || len(e.jeAcquirable(persistence.AcquireParams{})) != 1 {
				t.Fatalf("%s: the job is not active and acquirable", what)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		active("new")
		must(e.Eng.SuspendJob(e.Ctx, j.ID))
		suspended("by id")
		must(e.Eng.ActivateJob(e.Ctx, j.ID))
		active("activated by id")
		must(e.Eng.SuspendJobDefinition(e.Ctx, j.JobDefinitionID, true))
		suspended("by job definition")
		must(e.Eng.ActivateJobDefinition(e.Ctx, j.JobDefinitionID, true))
		active("job definition activated")
		must(e.Eng.SuspendProcessInstance(e.Ctx, pi))
		suspended("by process instance")
		must(e.Eng.ActivateProcessInstance(e.Ctx, pi))
		active("instance activated")
		must(e.Eng.SuspendJobDefinition(e.Ctx, j.JobDefinitionID, false))
		jds, err := e.Eng.JobDefinitions(e.Ctx, j.ProcessDefinitionID, "")
		if err != nil || len(jds) != 1 || jds[0].Suspension != bpmnlite.SuspensionSuspended {
			t.Fatalf("job definitions %+v (%v), want one suspended", jds, err)
		}
		active("job definition suspended without its jobs")
		// A job created while its definition is suspended is created suspended.
		other := e.Start("suspensionProcess", map[string]any{"fail": false})
		if js := e.Jobs(other); len(js) != 1 || js[0].Suspension != bpmnlite.SuspensionSuspended {
			t.Fatalf("job of a suspended job definition: %s, want it suspended", harness.JobList(js))
		}
		must(e.Eng.ActivateJobDefinition(e.Ctx, j.JobDefinitionID, true))
		must(e.Eng.SuspendProcessDefinition(e.Ctx, j.ProcessDefinitionID, false))
		if got := e.jeAcquirable(persistence.AcquireParams{}); len(got) != 0 {
			t.Fatalf("jobs of a suspended definition are acquirable: %s", jeDescribe(got))
		}
		// A direct run still works: only the definition is suspended.
		e.ExecJob(j.ID)
		if !e.Ended(pi) {
			t.Fatal("the job run by hand did not end the instance")
		}
		must(e.Eng.ActivateProcessDefinition(e.Ctx, j.ProcessDefinitionID, false))

		// A due timer of a suspended instance: not executable, not run by
		// the executor; after activation it runs.
		e.DeployFiles(dir + "ProcessInstanceSuspensionTest.testJobNotExecutedAfterProcessInstanceSuspend.bpmn20.xml")
		timerPI := e.Start("testProcess", nil)
		must(e.Eng.SuspendProcessInstance(e.Ctx, timerPI))
		m := &harness.Metrics{}
		x := e.StartExecutor(bpmnlite.JobExecutorConfig{Metrics: m})
		harness.WaitFor(t, "the other instance's job to run", 10*time.Second, func() bool { return e.Ended(other) })
		e.Clock.Add(time.Hour)
		x.Wake()
		m.WaitCycles(t, 3)
		if n := count(bpmnlite.JobQuery{ProcessInstanceID: timerPI, Executable: true}); n != 0 || len(e.Jobs(timerPI)) != 1 {
			t.Fatalf("%d executable jobs of the suspended instance, want 0 (and its job kept)", n)
		}
		must(e.Eng.ActivateProcessInstance(e.Ctx, timerPI))
		if n := count(bpmnlite.JobQuery{ProcessInstanceID: timerPI, Executable: true}); n != 1 {
			t.Fatalf("%d executable jobs after activation, want 1", n)
		}
		x.Wake()
		harness.WaitFor(t, "the timer to fire after activation", 10*time.Second, func() bool { return e.Ended(timerPI) })

		// A timer start job follows its definition's suspension.
		d := e.DeployFiles(dir + "ProcessDefinitionSuspensionTest.testSuspendStartTimerOnProcessDefinitionSuspension.bpmn20.xml")
		def := d.Definitions[0].ID
		startJob := func() *bpmnlite.Job {
			t.Helper()
			js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionID: def})
			if err != nil || len(js) != 1 {
				t.Fatalf("timer start jobs: %d (%v)", len(js), err)
			}
			return js[0]
		}
		must(e.Eng.SuspendProcessDefinition(e.Ctx, def, false))
		if startJob().Suspension != bpmnlite.SuspensionSuspended {
			t.Fatal("the timer start job is not suspended with its definition")
		}
		e.Clock.Add(10 * time.Minute)
		x.Wake()
		m.WaitCycles(t, 3)
		if n := len(e.Instances("process")); n != 0 {
			t.Fatalf("%d instances started by a suspended timer start event", n)
		}
		must(e.Eng.ActivateProcessDefinition(e.Ctx, def, false))
		if startJob().Suspension != bpmnlite.SuspensionActive {
			t.Fatal("the timer start job is not active again")
		}
		x.Wake()
		harness.WaitFor(t, "the timer start event to fire", 10*time.Second, func() bool { return len(e.Instances("process")) == 1 })
	})
}

// S19: deployment-aware acquisition, with two engines on one database. A
// deployment made through an engine is registered with it; acquisition
// (deployment-aware) takes only the jobs of registered deployments, and
// jobs without a deployment. Registering an unknown deployment fails;
// deleting a deployment with cascade unregisters it, a failing delete
// leaves it registered.
func TestExecutorDeploymentAware(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			a, other := openEnv(t, b, bpmnlite.Config{}), openEnv(t, b, bpmnlite.Config{})
			acquirable := func(e *env) []*persistence.Job {
				t.Helper()
				return e.jeAcquirable(persistence.AcquireParams{DeploymentIDs: e.Eng.RegisteredDeployments()})
			}
			d1 := a.DeployFiles(jeDir + "simpleAsyncProcess.bpmn20.xml")
			if got := a.Eng.RegisteredDeployments(); !slices.Equal(got, []string{d1.ID}) {
				t.Fatalf("registered %v, want the engine's own deployment %s", got, d1.ID)
			}
			own := a.OneJob(a.Start("simpleAsyncProcess", nil))
			d2 := other.DeployFiles(jeDir + "simpleAsyncProcessVersion2.bpmn20.xml")
			foreign := other.OneJob(other.Start("simpleAsyncProcess", nil))
			if own.DeploymentID != d1.ID || foreign.DeploymentID != d2.ID {
				t.Fatalf("jobs of deployments %s and %s, want %s and %s", own.DeploymentID, foreign.DeploymentID, d1.ID, d2.ID)
			}
			if got := acquirable(a); !jeSameSet(got, own.ID) {
				t.Fatalf("engine A acquires %s, want only its own job", jeDescribe(got))
			}
			if got := acquirable(other); !jeSameSet(got, foreign.ID) {
				t.Fatalf("engine B acquires %s, want only its own job", jeDescribe(got))
			}
			if got := a.jeAcquirable(persistence.AcquireParams{}); len(got) != 2 {
				t.Fatalf("not deployment-aware: %d jobs acquirable, want 2", len(got))
			}
			if err := a.Eng.RegisterDeployment(a.Ctx, d2.ID); err != nil {
				t.Fatal(err)
			}
			if got := acquirable(a); !jeSameSet(got, own.ID, foreign.ID) {
				t.Fatalf("after registering B's deployment, A acquires %s, want both jobs", jeDescribe(got))
			}
			err := a.Eng.RegisterDeployment(a.Ctx, "some non-existing id")
			if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), "some non-existing id does not exist") {
				t.Fatalf("registering an unknown deployment: %v", err)
			}
			a.Eng.UnregisterDeployment(d2.ID)
			a.Eng.UnregisterDeployment(d1.ID)
			if got := a.Eng.RegisteredDeployments(); len(got) != 0 || len(acquirable(a)) != 0 {
				t.Fatalf("after unregistering: registered %v, %d acquirable; want none", got, len(acquirable(a)))
			}
			// A job without a deployment is always acquired.
			jeExec(t, a, "UPDATE job SET deployment_id = NULL WHERE id = $1", own.ID)
			if got := acquirable(a); !jeSameSet(got, own.ID) {
				t.Fatalf("a job without deployment: A acquires %s, want it", jeDescribe(got))
			}

			// Timer jobs of registered deployments: a catch timer, then a
			// timer start event (a new version of the same key).
			d3 := a.DeployFiles(jeDir + "processWithTimerCatch.bpmn20.xml")
			timerPI := a.Start("testProcess", nil)
			d4 := a.DeployFiles(jeDir + "processWithTimerStart.bpmn20.xml")
			a.Clock.Add(2 * time.Minute)
			if got := acquirable(a); len(got) != 3 {
				t.Fatalf("with the timer deployments registered A acquires %s, want the job without deployment and both timers", jeDescribe(got))
			}
			// Deleting a deployment that has instances fails and leaves it
			// registered; with cascade it unregisters it.
			if err := a.Eng.DeleteDeployment(a.Ctx, d3.ID, false); err == nil {
				t.Fatal("deleting a deployment with a running instance succeeded")
			}
			if got := a.Eng.RegisteredDeployments(); !slices.Contains(got, d3.ID) {
				t.Fatalf("after the failed delete: registered %v, want %s kept", got, d3.ID)
			}
			if err := a.Eng.DeleteDeployment(a.Ctx, d3.ID, true); err != nil {
				t.Fatal(err)
			}
			if got := a.Eng.RegisteredDeployments(); !slices.Equal(got, []string{d4.ID}) || !a.Ended(timerPI) {
				t.Fatalf("after the cascading delete: registered %v (want only %s), instance ended %v", got, d4.ID, a.Ended(timerPI))
			}
			a.Eng.UnregisterDeployment(d4.ID)
			if got := acquirable(a); !jeSameSet(got, own.ID) {
				t.Fatalf("with no deployment registered A acquires %s, want only the job without deployment", jeDescribe(got))
			}
			// A running deployment-aware executor on A runs A's jobs only.
			mine := a.RedeployFiles(jeDir + "simpleAsyncProcess.bpmn20.xml")
			ownPI := a.Start("simpleAsyncProcess", nil)
			if j := a.OneJob(ownPI); j.DeploymentID != mine.ID {
				t.Fatalf("new job of deployment %s, want %s", j.DeploymentID, mine.ID)
			}
			m := &harness.Metrics{}
			a.StartExecutor(bpmnlite.JobExecutorConfig{DeploymentAware: true, Metrics: m})
			harness.WaitFor(t, "A's job to run", 10*time.Second, func() bool { return a.Ended(ownPI) })
			m.WaitCycles(t, 3)
			if f := a.jeJob(foreign.ID); f.LockOwner != "" || f.Retries != 3 {
				t.Fatalf("B's job was touched by A's executor: lock %q, retries %d", f.LockOwner, f.Retries)
			}
			// The job without deployment ran; the unregistered timer start
			// job stayed.
			if !a.jeJobGone(own.ID) || len(a.Instances("testProcess")) != 1 {
				t.Fatalf("job without deployment gone %v, %d testProcess instances (want the deleted one only)", a.jeJobGone(own.ID), len(a.Instances("testProcess")))
			}
		})
	}
}

// jeExec runs a statement on e's database, for setups the API does not offer.
func jeExec(t *testing.T, e *env, sql string, args ...any) {
	t.Helper()
	tx, err := harness.Store(e.Eng).Begin(e.Ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = tx.Exec(e.Ctx, sql, args...); err == nil {
		err = tx.Commit(e.Ctx)
	}
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(e.Ctx))
		t.Fatalf("%s: %v", sql, err)
	}
}

// S35 race on PostgreSQL: an instance suspended while its job runs makes the
// job's commit fail with an optimistic-lock conflict, which costs no retry.
func TestExecutorSuspendedWhileRunning(t *testing.T) {
	e := openEnv(t, testdb.Postgres(t), bpmnlite.Config{})
	entered, release := make(chan struct{}), make(chan struct{})
	e.Eng.RegisterDelegate("slow", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		close(entered)
		<-release
		return nil
	}))
	e.Deploy("slow", enginetest.AsyncService("slow", "slow", ""))
	pi := e.Start("slow", nil)
	j := e.OneJob(pi)
	errc := make(chan error, 1)
	go func() { errc <- e.Eng.ExecuteJob(e.Ctx, j.ID) }()
	<-entered
	if err := e.Eng.SuspendProcessInstance(e.Ctx, pi); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-errc; !errors.Is(err, bpmnlite.ErrOptimisticLock) {
		t.Fatalf("the job's run gave %v, want ErrOptimisticLock", err)
	}
	job := e.jeJob(j.ID)
	if job.Retries != 3 || job.Suspension != bpmnlite.SuspensionSuspended || e.Ended(pi) {
		t.Fatalf("job retries %d, suspension %d; want 3 kept, suspended, the instance waiting", job.Retries, job.Suspension)
	}
}

// jeChain is a process "id" of steps asynchronous no-op service tasks in a
// row: each job creates the next.
func jeChain(id string, steps int) string {
	var b strings.Builder
	b.WriteString(`<startEvent id="s0" />`)
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&b, `<sequenceFlow id="f%d" sourceRef="s%d" targetRef="s%d" /><serviceTask id="s%d" camunda:asyncBefore="true" camunda:expression="${true}" />`, i, i-1, i, i)
	}
	fmt.Fprintf(&b, `<sequenceFlow id="fEnd" sourceRef="s%d" targetRef="end" /><endEvent id="end" />`, steps)
	return enginetest.Process(id, b.String())
}

// Stopping an executor in the middle of chains of jobs (on SQLite its
// workers acquire the next jobs in the transaction of the jobs they run)
// leaves no job locked and no job run twice; a second executor then runs
// the rest, each job exactly once.
func TestExecutorStopMidChainRunsEachJobOnce(t *testing.T) {
	const instances, steps = 40, 5
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("chain", jeChain("chain", steps))
		pis := e.StartN("chain", instances)
		succeeded := func() []*bpmnlite.JobLogEntry {
			return e.JobLog(bpmnlite.JobLogQuery{Event: "succeeded"})
		}
		x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, Clock: e.Clock.Now, WaitTime: 10 * time.Millisecond, LockOwner: "first", Logger: slog.New(slog.DiscardHandler)}, e.Eng)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Start(e.Ctx); err != nil {
			t.Fatal(err)
		}
		harness.WaitFor(t, "a third of the jobs to run", 20*time.Second, func() bool { return len(succeeded()) >= instances*steps/3 })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := x.Stop(ctx); err != nil {
			t.Fatalf("stop: %v", err)
		}
		if js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{Locked: true}); err != nil || len(js) != 0 {
			t.Fatalf("after Stop: %d jobs locked (%v), want none", len(js), err)
		}
		// Each instance is as far as its jobs that succeeded say.
		ran := map[string]int{}
		for _, l := range succeeded() {
			ran[l.ProcessInstanceID]++
		}
		for _, pi := range pis {
			left := len(e.Jobs(pi))
			if e.Ended(pi) && (left != 0 || ran[pi] != steps) || !e.Ended(pi) && (left != 1 || ran[pi] >= steps) {
				t.Fatalf("instance %s: ended %v with %d jobs left after %d runs", pi, e.Ended(pi), left, ran[pi])
			}
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, LockOwner: "second"})
		e.jeWaitEnded(pis, 20*time.Second)
		seen := map[string]bool{}
		for _, l := range succeeded() {
			if seen[l.JobID] {
				t.Fatalf("job %s succeeded twice", l.JobID)
			}
			seen[l.JobID] = true
		}
		if len(seen) != instances*steps {
			t.Fatalf("%d jobs succeeded, want %d", len(seen), instances*steps)
		}
	})
}

// warnings is an slog handler that keeps the messages of warnings.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler           { return w }
func (w *warnings) WithGroup(string) slog.Handler                { return w }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, r.Message)
	return nil
}

// The acquisition loop and (on SQLite) the workers, which acquire at the
// end of each group, all reserve queue slots before they lock jobs, so that
// together they never lock more than the queue and the workers hold: no
// acquired job is turned away for want of room.
func TestExecutorAcquirersShareTheQueue(t *testing.T) {
	const instances, steps = 100, 5
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("chain", jeChain("chain", steps))
		pis := e.StartN("chain", instances)
		w := &warnings{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 8, QueueSize: 1, MaxJobsPerAcquisition: 4, WaitTime: time.Millisecond, MaxWait: time.Millisecond, Logger: slog.New(w)})
		e.jeWaitEnded(pis, 30*time.Second)
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.msgs) > 0 {
			t.Fatalf("warnings: %q", w.msgs)
		}
	})
}
