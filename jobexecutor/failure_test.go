package jobexecutor_test

import (
	"context"
	"errors"
	"fmt"
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

// Failures, retries, conflicts, poison jobs and fencing.

// jeSwitch is a delegate that fails with msg while failing is set, counting
// its calls.
type jeSwitch struct {
	failing atomic.Bool
	calls   atomic.Int32
	msg     string
}

func (s *jeSwitch) Execute(context.Context, *bpmnlite.Execution) error {
	s.calls.Add(1)
	if s.failing.Load() {
		return errors.New(s.msg)
	}
	return nil
}

// R5/PT5M under a running executor: five failures five minutes apart, the
// job not acquirable before its next due date, then an incident with the
// message; setting retries resolves it and the job runs again.
func TestExecutorRetryCycleR5PT5M(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := &jeSwitch{msg: "payment service down"}
		d.failing.Store(true)
		e.Eng.RegisterDelegate("charge", d)
		e.Deploy("charge", enginetest.AsyncService("charge", "charge", "R5/PT5M"))
		pi := e.Start("charge", nil)
		j := e.OneJob(pi)
		if j.Retries != 5 {
			t.Fatalf("new job has %d retries, want 5 from R5/PT5M", j.Retries)
		}
		m := &harness.Metrics{}
		x := e.StartExecutor(bpmnlite.JobExecutorConfig{Metrics: m})
		var job *bpmnlite.Job
		for want := 4; want >= 0; want-- {
			harness.WaitFor(t, fmt.Sprintf("retries %d", want), 10*time.Second, func() bool { return e.jeJob(j.ID).Retries == want })
			job = e.jeJob(j.ID)
			now := e.Clock.Now()
			if job.DueDate == nil || !job.DueDate.Equal(now.Add(5*time.Minute)) || job.LockOwner != "" ||
				!strings.Contains(job.ExceptionMessage, "payment service down") {
				t.Fatalf("after failure %d: due %v (now %v), lock %q, message %q; want due in 5 minutes, unlocked, the delegate's message",
					5-want, job.DueDate, now, job.LockOwner, job.ExceptionMessage)
			}
			if got := e.jeAcquirable(persistence.AcquireParams{Now: job.DueDate.Add(-time.Second)}); len(got) != 0 {
				t.Fatalf("acquirable a second before its due date: %s", jeDescribe(got))
			}
			m.WaitCycles(t, 2)
			if n := d.calls.Load(); int(n) != 5-want {
				t.Fatalf("%d runs after %d failures: the executor ran the job before it was due", n, 5-want)
			}
			if want == 0 {
				break
			}
			if got := e.jeAcquirable(persistence.AcquireParams{Now: *job.DueDate}); len(got) != 1 {
				t.Fatalf("%d jobs acquirable at the due date, want 1", len(got))
			}
			if in := e.jeIncidents(bpmnlite.IncidentQuery{ProcessInstanceID: pi}); len(in) != 0 {
				t.Fatalf("incident with %d retries left", want)
			}
			e.Clock.Set(*job.DueDate)
			x.Wake()
		}
		in := e.jeIncidents(bpmnlite.IncidentQuery{ProcessInstanceID: pi})
		if len(in) != 1 || in[0].Configuration != j.ID || in[0].ActivityID != "work" || in[0].Type != "failedJob" ||
			in[0].Message != job.ExceptionMessage {
			t.Fatalf("incidents %+v, want one failedJob incident for job %s at work with message %q", in, j.ID, job.ExceptionMessage)
		}
		// Out of retries, the job is left alone, due or not.
		e.Clock.Add(time.Hour)
		x.Wake()
		m.WaitCycles(t, 2)
		if n := d.calls.Load(); n != 5 {
			t.Fatalf("%d runs, want 5: a job without retries ran", n)
		}
		// Fixing the cause and setting retries resolves the incident; the
		// job runs again.
		d.failing.Store(false)
		if err := e.Eng.SetJobRetries(e.Ctx, j.ID, 1); err != nil {
			t.Fatal(err)
		}
		if in := e.jeIncidents(bpmnlite.IncidentQuery{ProcessInstanceID: pi}); len(in) != 0 {
			t.Fatalf("incident still open after setting retries: %+v", in)
		}
		x.Wake()
		harness.WaitFor(t, "the instance to complete", 10*time.Second, func() bool { return e.Ended(pi) })
		if d.calls.Load() != 6 || e.State(pi) != "COMPLETED" {
			t.Fatalf("%d runs, state %s; want 6 and COMPLETED", d.calls.Load(), e.State(pi))
		}
		if s := m.Await(t, "6 runs", func(s harness.Counts) bool { return s.Failed+s.Executed == 6 }); s.Failed != 5 || s.Executed != 1 {
			t.Fatalf("metrics: %d failed, %d executed; want 5 and 1", s.Failed, s.Executed)
		}
	})
}

// S26 (derived): a list of intervals gives one retry more than intervals
// and waits each interval in turn: "PT3M, PT10M,PT8M" → 4 retries, next
// attempts after 3, 10 and 8 minutes, then an incident. A global
// DefaultRetryCycle governs jobs without a cycle of their own.
func TestExecutorRetryIntervalsAndDefaultCycle(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Jobs: bpmnlite.JobsConfig{DefaultRetryCycle: "R2/PT1M"}}, func(t *testing.T, e *env) {
		d := &jeSwitch{msg: "still down"}
		d.failing.Store(true)
		e.Eng.RegisterDelegate("charge", d)
		e.Deploy("list", enginetest.AsyncService("list", "charge", "PT3M, PT10M,PT8M"))
		e.Deploy("plain", enginetest.AsyncService("plain", "charge", ""))
		fail := func(pi string, retries int, steps []time.Duration) {
			t.Helper()
			j := e.OneJob(pi)
			if j.Retries != retries {
				t.Fatalf("new job has %d retries, want %d", j.Retries, retries)
			}
			for i, wait := range steps {
				if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err == nil {
					t.Fatal("the job succeeded")
				}
				job := e.jeJob(j.ID)
				want := e.Clock.Now().Add(wait)
				if job.Retries != retries-1-i || job.DueDate == nil || !job.DueDate.Equal(want) {
					t.Fatalf("after failure %d: retries %d, due %v; want %d, due %v", i+1, job.Retries, job.DueDate, retries-1-i, want)
				}
				e.Clock.Set(want)
			}
			if in := e.jeIncidents(bpmnlite.IncidentQuery{ProcessInstanceID: pi}); len(in) != 1 {
				t.Fatalf("%d incidents after the last retry, want 1", len(in))
			}
		}
		fail(e.Start("list", nil), 4, []time.Duration{3 * time.Minute, 10 * time.Minute, 8 * time.Minute, 8 * time.Minute})
		fail(e.Start("plain", nil), 2, []time.Duration{time.Minute, time.Minute})
	})
}

// S23 and S24 under a running executor: the R5/PT5M cycle on each kind of
// job (asynchronous service, sub-process and call activity, boundary and
// intermediate timers, timer start event) gives 5 → 4 → 3 → 2 → 1 → 0, five
// minutes apart, then an incident.
func TestExecutorRetryCycleOnEachKindOfJob(t *testing.T) {
	const dir = "camunda/retries/FoxJobRetryCmdTest."
	cases := []struct{ file, key string }{
		{"testFailedServiceTask", "failedServiceTask"},
		{"testFailedSubProcess", "failedSubProcess"},
		{"testFailedCallActivity", "failedCallActivity"},
		{"testFailedBoundaryTimerEvent", "failedBoundaryTimerEvent"},
		{"testFailedIntermediateCatchingTimerEvent", "failedIntermediateCatchingTimerEvent"},
		{"testFailedStartTimerEvent", ""}, // last: its cron cycle would fire on as the clock moves
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		for _, tc := range cases {
			t.Run(tc.file, func(t *testing.T) {
				e := &env{e.For(t)}
				d := e.DeployFiles(dir + tc.file + ".bpmn20.xml")
				var j *bpmnlite.Job
				if tc.key == "" {
					js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionID: d.Definitions[0].ID})
					if err != nil || len(js) != 1 {
						t.Fatalf("timer start jobs: %d, %v", len(js), err)
					}
					j = js[0]
				} else {
					j = e.OneJob(e.Start(tc.key, nil))
				}
				if j.Retries != 5 {
					t.Fatalf("new job has %d retries, want 5", j.Retries)
				}
				// The clock moves only once a failure was checked, so that
				// each run happens at a known time.
				if j.DueDate != nil && j.DueDate.After(e.Clock.Now()) {
					e.Clock.Set(*j.DueDate) // a timer: due in an hour, or at the next 5 minutes
				}
				x := e.StartExecutor(bpmnlite.JobExecutorConfig{}) // stopped at the end of the case
				for want := 4; want >= 0; want-- {
					harness.WaitFor(t, fmt.Sprintf("retries %d", want), 10*time.Second, func() bool { return e.jeJob(j.ID).Retries == want })
					job := e.jeJob(j.ID)
					if job.DueDate == nil || !job.DueDate.Equal(e.Clock.Now().Add(5*time.Minute)) || job.ExceptionMessage == "" {
						t.Fatalf("after a failure: due %v, message %q; want due in 5 minutes and a message", job.DueDate, job.ExceptionMessage)
					}
					if want > 0 {
						e.Clock.Set(*job.DueDate)
						x.Wake()
					}
				}
				if in := e.jeIncidents(bpmnlite.IncidentQuery{Configuration: j.ID}); len(in) != 1 {
					t.Fatalf("%d incidents for the job, want 1", len(in))
				}
			})
		}
	})
}

// A failing job rolls back its own work (the task and variables it
// created, its history) and keeps its failure record: retries, message,
// stack text and a "failed" job log entry; a panic is a failure too.
func TestExecutorFailureRollsBackWork(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var calls atomic.Int32
		e.Eng.RegisterDelegate("charge", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			if err := ex.SetVariable("charged", true); err != nil {
				return err
			}
			switch calls.Add(1) {
			case 1:
				return errors.New("card declined")
			case 2:
				panic("charge exploded")
			}
			return nil
		}))
		e.Deploy("order", enginetest.Process("order", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" camunda:asyncBefore="true" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="review" />
    <userTask id="review" />
    <sequenceFlow id="f3" sourceRef="review" targetRef="join" />
    <sequenceFlow id="f4" sourceRef="fork" targetRef="charge" />
    <serviceTask id="charge" camunda:class="charge" />
    <sequenceFlow id="f5" sourceRef="charge" targetRef="join" />
    <parallelGateway id="join" />
    <sequenceFlow id="f6" sourceRef="join" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("order", map[string]any{"amount": 10})
		j := e.OneJob(pi)
		pathBefore := e.Path(pi)
		for i, want := range []struct {
			retries int
			message string
			stack   string
		}{{2, "card declined", "card declined"}, {1, "charge exploded", "failure_test.go"}} {
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err == nil || !strings.Contains(err.Error(), want.message) {
				t.Fatalf("run %d: %v, want an error with %q", i+1, err, want.message)
			}
			job := e.jeJob(j.ID)
			if job.Retries != want.retries || !strings.Contains(job.ExceptionMessage, want.message) || !strings.Contains(job.ExceptionStack, want.stack) {
				t.Fatalf("run %d: retries %d, message %q, stack %q; want %d, %q, a stack with %q",
					i+1, job.Retries, job.ExceptionMessage, job.ExceptionStack, want.retries, want.message, want.stack)
			}
			if got := e.TaskKeys(pi); got != "" {
				t.Fatalf("run %d: tasks %q survived the failure", i+1, got)
			}
			if v := e.Var(pi, "charged"); v != nil {
				t.Fatalf("run %d: variable charged = %v survived the failure", i+1, v)
			}
			if got := e.Path(pi); got != pathBefore {
				t.Fatalf("run %d: history %q, want %q as before the job", i+1, got, pathBefore)
			}
			if xs, at := e.Executions(pi, ""), e.Executions(pi, "fork"); len(xs) != 1 || len(at) != 1 || at[0].ID != pi || job.ExecutionID != pi {
				t.Fatalf("run %d: executions %s, want the instance alone, at fork", i+1, harness.ExecList(xs))
			}
		}
		failed := e.JobLog(bpmnlite.JobLogQuery{JobID: j.ID, Event: "failed"})
		if len(failed) != 2 || failed[0].Retries != 2 || failed[1].Retries != 1 ||
			!strings.Contains(failed[0].Message, "card declined") || !strings.Contains(failed[1].Message, "charge exploded") ||
			failed[0].ExecutionStart == nil {
			t.Fatalf("failed job log entries %+v, want two with the messages and retries 2, 1", failed)
		}
		// The third run succeeds, and its work stays: the task was created
		// before the charge ran, as in the failed runs.
		e.ExecJob(j.ID)
		if e.TaskKeys(pi) != "review" || e.Var(pi, "charged") != true || !strings.Contains(e.Path(pi), "review,charge") {
			t.Fatalf("after success: tasks %q, charged %v, history %s", e.TaskKeys(pi), e.Var(pi, "charged"), e.Path(pi))
		}
	})
}

// S27: a job failing on a concurrent update (optimistic lock) does not spend
// a retry, with or without a retry cycle: the job is released at once, its
// exception message says what happened, and it succeeds when run again. The
// executor counts a conflict, not a failure.
func TestExecutorConflictKeepsRetries(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var conflicts atomic.Int32
		e.Eng.RegisterDelegate("stale", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			if err := ex.SetVariable("touched", true); err != nil {
				return err
			}
			if conflicts.Add(-1) >= 0 {
				// What a delegate gets when its own update through the
				// engine lost a race.
				return fmt.Errorf("order changed concurrently: %w", bpmnlite.ErrOptimisticLock)
			}
			return nil
		}))
		for _, tc := range []struct {
			cycle   string
			retries int
		}{{"", 3}, {"R5/PT5M", 5}} {
			key := fmt.Sprintf("stale%d", tc.retries)
			e.Deploy(key, enginetest.AsyncService(key, "stale", tc.cycle))
			pi := e.Start(key, nil)
			j := e.OneJob(pi)
			conflicts.Store(1)
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); !errors.Is(err, bpmnlite.ErrOptimisticLock) {
				t.Fatalf("cycle %q: run gave %v, want ErrOptimisticLock", tc.cycle, err)
			}
			job := e.jeJob(j.ID)
			if job.Retries != tc.retries || !strings.Contains(job.ExceptionMessage, "order changed concurrently") ||
				job.LockOwner != "" || job.LockExpiration != nil || job.DueDate != nil {
				t.Fatalf("cycle %q: retries %d, message %q, lock %q, due %v; want %d retries kept, the message, unlocked and due at once",
					tc.cycle, job.Retries, job.ExceptionMessage, job.LockOwner, job.DueDate, tc.retries)
			}
			if in := e.jeIncidents(bpmnlite.IncidentQuery{ProcessInstanceID: pi}); len(in) != 0 || e.Var(pi, "touched") != nil {
				t.Fatalf("cycle %q: %d incidents, touched = %v; want none and rolled back", tc.cycle, len(in), e.Var(pi, "touched"))
			}
			if l := e.JobLog(bpmnlite.JobLogQuery{JobID: j.ID, Event: "failed"}); len(l) != 1 || l[0].Retries != tc.retries || !strings.Contains(l[0].Message, "optimistic lock") {
				t.Fatalf("cycle %q: failed log entries %+v, want one conflict keeping %d retries", tc.cycle, l, tc.retries)
			}
			e.ExecJob(j.ID)
			if !e.Ended(pi) {
				t.Fatalf("cycle %q: the instance did not end after the retry", tc.cycle)
			}
		}
		// Under the executor: one conflict, released and run again at once.
		m := &harness.Metrics{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{Metrics: m})
		conflicts.Store(1)
		pi := e.Start("stale5", nil)
		harness.WaitFor(t, "the instance to end", 10*time.Second, func() bool { return e.Ended(pi) })
		if s := m.Await(t, "2 runs", func(s harness.Counts) bool { return s.Conflicts+s.Failed+s.Executed == 2 }); s.Conflicts != 1 || s.Failed != 0 || s.Executed != 1 {
			t.Fatalf("metrics: %d conflicts, %d failed, %d executed; want 1, 0, 1", s.Conflicts, s.Failed, s.Executed)
		}
	})
}

// jeMeet is a delegate whose first two calls wait for each other, so that
// two jobs are inside their transactions at once; it reads the instance's
// counter before meeting and writes it after, which makes the later commit
// conflict. Later calls do not wait.
type jeMeet struct {
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func newJeMeet() *jeMeet { return &jeMeet{all: make(chan struct{})} }

func (m *jeMeet) Execute(ctx context.Context, ex *bpmnlite.Execution) error {
	v, _, err := ex.Variable("counter")
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.arrived++
	if m.arrived == 2 {
		close(m.all)
	}
	m.mu.Unlock()
	select {
	case <-m.all:
	case <-time.After(10 * time.Second):
		return errors.New("the other job never came")
	case <-ctx.Done():
		return ctx.Err()
	}
	n, _ := v.(int64)
	return ex.SetVariable("counter", n+1)
}

// jeMeetProcess is S27's process (a parallel multi-instance sub-process of
// two async tasks) with the meeting delegate, then a user task "done";
// exclusive sets camunda:exclusive.
func jeMeetProcess(id, cycle string, exclusive bool) string {
	ext := ""
	if cycle != "" {
		ext = `<extensionElements><camunda:failedJobRetryTimeCycle>` + cycle + `</camunda:failedJobRetryTimeCycle></extensionElements>`
	}
	return enginetest.Process(id, fmt.Sprintf(`
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="task" />
      <serviceTask id="task" camunda:asyncBefore="true" camunda:exclusive="%v" camunda:class="meet">%s</serviceTask>
      <sequenceFlow id="s2" sourceRef="task" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <sequenceFlow id="f2" sourceRef="sub" targetRef="done" />
    <userTask id="done" />
    <sequenceFlow id="f3" sourceRef="done" targetRef="end" />
    <endEvent id="end" />`, exclusive, ext))
}

// S27 on PostgreSQL, where transactions run concurrently: two jobs of one
// instance run at once, by hand and under the executor (non-exclusive
// jobs); the later commit conflicts, keeps its retries, and succeeds when
// retried: no update is lost.
func TestExecutorConcurrentJobsConflict(t *testing.T) {
	b := testdb.Postgres(t)
	e := openEnv(t, b, bpmnlite.Config{})
	for _, tc := range []struct {
		cycle   string
		retries int
	}{{"", 3}, {"R5/PT5M", 5}} {
		meet := newJeMeet()
		e.Eng.RegisterDelegate("meet", meet)
		key := fmt.Sprintf("mi%d", tc.retries)
		e.Deploy(key, jeMeetProcess(key, tc.cycle, true))
		pi := e.Start(key, map[string]any{"counter": 0})
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("%d jobs, want 2", len(js))
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, j := range js {
			wg.Go(func() { errs[i] = e.Eng.ExecuteJob(e.Ctx, j.ID) })
		}
		wg.Wait()
		lost := -1
		for i, err := range errs {
			switch {
			case err == nil:
			case errors.Is(err, bpmnlite.ErrOptimisticLock) && lost < 0:
				lost = i
			default:
				t.Fatalf("cycle %q: job %d: %v", tc.cycle, i, err)
			}
		}
		if lost < 0 {
			t.Fatalf("cycle %q: both jobs committed; want the later one to conflict", tc.cycle)
		}
		job := e.jeJob(js[lost].ID)
		if job.Retries != tc.retries || job.ExceptionMessage == "" || job.LockOwner != "" {
			t.Fatalf("cycle %q: conflicted job has retries %d, message %q, lock %q; want %d, a message, unlocked", tc.cycle, job.Retries, job.ExceptionMessage, job.LockOwner, tc.retries)
		}
		e.ExecJob(job.ID)
		if got, c := e.TaskKeys(pi), e.Var(pi, "counter"); got != "done" || c != int64(2) {
			t.Fatalf("cycle %q: tasks %q, counter %v; want done and 2 (no lost update)", tc.cycle, got, c)
		}
	}

	// Under the executor, with the jobs non-exclusive: they run in
	// parallel, one conflicts and is run again; nothing is lost.
	meet := newJeMeet()
	e.Eng.RegisterDelegate("meet", meet)
	e.Deploy("parallel", jeMeetProcess("parallel", "", false))
	pi := e.Start("parallel", map[string]any{"counter": 0})
	m := &harness.Metrics{}
	e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, Metrics: m})
	harness.WaitFor(t, "both jobs to complete", 20*time.Second, func() bool { return e.TaskKeys(pi) == "done" })
	if c := e.Var(pi, "counter"); c != int64(2) {
		t.Fatalf("counter %v, want 2 (no lost update)", c)
	}
	s := m.Await(t, "both jobs executed", func(s harness.Counts) bool { return s.Executed == 2 })
	if s.Conflicts < 1 || s.Failed != 0 {
		t.Fatalf("metrics: %d conflicts, %d failed; want at least one conflict and no failure", s.Conflicts, s.Failed)
	}
	for _, l := range e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}) {
		if l.Retries != 3 || !strings.Contains(l.Message, "optimistic lock") {
			t.Fatalf("failed entry %+v, want only conflicts keeping 3 retries", l)
		}
	}
}

// A poison job: nodes that lock a job and die without a result. Each
// takeover of an expired lock costs a retry; once they are spent the job is
// not run again but gets an incident saying its locks expired. A job whose
// lock expired with retries left is simply run by the next executor.
func TestExecutorPoisonJob(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var calls atomic.Int32
		e.Eng.RegisterDelegate("crash", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			calls.Add(1)
			return nil
		}))
		e.Deploy("poison", enginetest.AsyncService("poison", "crash", ""))
		e.Deploy("survivor", enginetest.Process("survivor", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:asyncBefore="true" camunda:class="crash" camunda:jobPriority="1" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`))
		poisonPI, otherPI := e.Start("poison", nil), e.Start("survivor", nil)
		poison, other := e.OneJob(poisonPI), e.OneJob(otherPI)
		const lockTime = time.Minute
		// The other job (priority 1) is locked once by a node that dies.
		if got := e.jeLock("dead-node-0", e.Clock.Now().Add(lockTime), persistence.AcquireParams{PriorityMin: p(1)}); len(got) != 1 || got[0].ID != other.ID {
			t.Fatalf("locked %s, want the survivor job", jeDescribe(got))
		}
		for i, want := range []int{3, 2, 1} {
			owner := fmt.Sprintf("dead-node-%d", i+1)
			got := e.jeLock(owner, e.Clock.Now().Add(lockTime), persistence.AcquireParams{PriorityMax: p(0)})
			if len(got) != 1 || got[0].ID != poison.ID || got[0].Retries != want {
				t.Fatalf("takeover %d: locked %s, want the poison job with %d retries", i, jeDescribe(got), want)
			}
			j := e.jeJob(poison.ID)
			if j.LockOwner != owner || j.Retries != want || j.FailedAttempts != i || (i > 0) != strings.Contains(j.ExceptionMessage, "lock expired") {
				t.Fatalf("takeover %d: owner %q, retries %d, attempts %d, message %q", i, j.LockOwner, j.Retries, j.FailedAttempts, j.ExceptionMessage)
			}
			if got := e.jeAcquirable(persistence.AcquireParams{PriorityMax: p(0)}); len(got) != 0 {
				t.Fatalf("a live lock is acquirable: %s", jeDescribe(got))
			}
			e.Clock.Add(lockTime + time.Second)
		}
		m := &harness.Metrics{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{LockOwner: "survivor-node", LockTime: lockTime, Metrics: m})
		harness.WaitFor(t, "the poison job's incident", 10*time.Second, func() bool {
			return len(e.jeIncidents(bpmnlite.IncidentQuery{Configuration: poison.ID})) == 1
		})
		harness.WaitFor(t, "the other instance to end", 10*time.Second, func() bool { return e.Ended(otherPI) })
		in := e.jeIncidents(bpmnlite.IncidentQuery{Configuration: poison.ID})[0]
		j := e.jeJob(poison.ID)
		if !strings.Contains(in.Message, "lock expired") || j.Retries != 0 || j.LockOwner != "" || in.Message != j.ExceptionMessage {
			t.Fatalf("incident %q, job retries %d, lock %q, message %q; want an incident saying the locks expired, 0 retries, unlocked", in.Message, j.Retries, j.LockOwner, j.ExceptionMessage)
		}
		if n := calls.Load(); n != 1 {
			t.Fatalf("%d delegate calls, want 1: the survivor job ran, the poison job did not", n)
		}
		if s := m.Await(t, "2 runs", func(s harness.Counts) bool { return s.Failed+s.Executed == 2 }); s.Executed != 1 || s.Failed != 1 {
			t.Fatalf("metrics: %d executed, %d failed; want 1 and 1", s.Executed, s.Failed)
		}
		l := e.JobLog(bpmnlite.JobLogQuery{JobID: poison.ID, Event: "failed"})
		if len(l) != 1 || l[0].LockOwner != "survivor-node" || !strings.Contains(l[0].Message, "lock expired") {
			t.Fatalf("failed log entries %+v, want one by survivor-node saying the locks expired", l)
		}
		// The survivor job lost a retry to its dead node, and ran.
		succeeded := e.JobLog(bpmnlite.JobLogQuery{JobID: other.ID, Event: "succeeded"})
		if len(succeeded) != 1 || succeeded[0].Retries != 2 || succeeded[0].LockOwner != "survivor-node" {
			t.Fatalf("survivor job log %+v, want one success by survivor-node with 2 retries", succeeded)
		}
	})
}
