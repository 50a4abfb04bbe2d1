package bpmnlite_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
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
	eachBackend(t, bpmnlite.Config{MaxOperations: -1}, func(t *testing.T, e *env) {
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
	eachBackend(t, bpmnlite.Config{MaxOperations: 2000}, func(t *testing.T, e *env) {
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
		is, err := other.Eng.ProcessInstances(other.Ctx, bpmnlite.ProcessInstanceQuery{})
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
		is, err := e.Eng.ProcessInstances(e.Ctx, bpmnlite.ProcessInstanceQuery{ID: pi})
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

func nested(depth int, leaf any) any {
	v := leaf
	for range depth {
		v = map[string]any{"k": v}
	}
	return v
}

// Values that one backend or the JSON decoder cannot give back are
// rejected on both backends with a *VariableError naming the variable,
// before anything is written; the instance keeps what it had.
func TestVariablesThatCannotRoundTripAreRejected(t *testing.T) {
	bad := map[string]any{
		"nul":         "a\x00b",
		"notUTF8":     "caf\xe9",
		"nan":         math.NaN(),
		"infinite":    math.Inf(-1),
		"tooDeep":     nested(1001, "leaf"),
		"nestedUTF8":  map[string]any{"list": []any{"ok", "\xff"}},
		"farFuture":   time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC),
		"bad\x00name": 1,
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", map[string]any{"kept": "yes"})
		for name, v := range bad {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: v}})
			var ve *bpmnlite.VariableError
			if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("start with %q: %v, want a *VariableError naming it", name, err)
			}
			err = e.Eng.SetVariables(e.Ctx, pi, map[string]any{"kept": "changed", name: v})
			if !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("set %q: %v, want a *VariableError naming it", name, err)
			}
		}
		if v, _, err := e.Eng.Variable(e.Ctx, pi, "kept"); err != nil || v != "yes" {
			t.Errorf("kept = %v (%v), want yes: a rejected call changed nothing", v, err)
		}
		if is := e.Instances("p"); len(is) != 1 {
			t.Errorf("%d instances, want only the first: rejected starts store nothing", len(is))
		}
	})
}

// What is accepted reads back equal, on both backends.
func TestVariablesAtTheEdgesRoundTrip(t *testing.T) {
	good := map[string]any{
		"replacementChar": "\uFFFD is a real character",
		"emoji":           "🙂 ✓ ü",
		"empty":           "",
		"deep":            nested(500, "leaf"),
		"maxInt":          int64(math.MaxInt64),
		"minInt":          int64(math.MinInt64),
		"bigFloat":        1e308,
		"tinyFloat":       5e-324,
		"bytes":           []byte{0, 1, 0xff},
		"farDate":         time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
		"oldDate":         time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		"emptyMap":        map[string]any{},
		"null":            nil,
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", good)
		for name, want := range good {
			got, ok, err := e.Eng.Variable(e.Ctx, pi, name)
			if err != nil || !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s = %#v (%v, %v), want %#v", name, got, ok, err, want)
			}
		}
	})
}

// A file over the size limit is refused before it is parsed; an expression
// over the length limit is refused at deployment, and the error quotes only
// the start of it.
func TestSizeLimits(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		small := enginetest.AsyncService("small", "work", "")
		huge := strings.Replace(small, "<process", "<!-- "+strings.Repeat("x", 11<<20)+" --><process", 1)
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "huge", Resources: []bpmnlite.Resource{{Name: "huge.bpmn", Bytes: []byte(huge)}}})
		var pe *bpmnlite.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "huge.bpmn") || !strings.Contains(err.Error(), "more than the limit of 10485760") {
			t.Errorf("deploying an 11 MiB file: %v, want refused at the default limit", err)
		}
		long := enginetest.Process("long", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="g" />
    <exclusiveGateway id="g" default="f3" />
    <sequenceFlow id="f2" sourceRef="g" targetRef="e"><conditionExpression>${x == '`+strings.Repeat("y", 1<<20)+`'}</conditionExpression></sequenceFlow>
    <sequenceFlow id="f3" sourceRef="g" targetRef="e" />
    <endEvent id="e" />`)
		_, err = e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "long", Resources: []bpmnlite.Resource{{Name: "long.bpmn", Bytes: []byte(long)}}})
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "more than the limit of 10000") {
			t.Errorf("deploying a 1 MB expression: %v, want refused at the length limit", err)
		}
		if err != nil && len(err.Error()) > 2000 {
			t.Errorf("the error is %d bytes long; it should quote only the start of the expression", len(err.Error()))
		}
		if d, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{}); err != nil || len(d) != 0 {
			t.Errorf("%d definitions stored (%v), want none", len(d), err)
		}
	})
	eachBackend(t, bpmnlite.Config{MaxResourceBytes: 1000}, func(t *testing.T, e *env) {
		file := strings.Replace(enginetest.AsyncService("p", "work", ""), "<process", "<!-- "+strings.Repeat("x", 1000)+" --><process", 1)
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(file)}}})
		if err == nil || !strings.Contains(err.Error(), "more than the limit of 1000") {
			t.Errorf("deploying over a configured limit of 1000 bytes: %v", err)
		}
	})
}

// onlyUnexported has data JSON cannot see: stored, it would be {}.
type onlyUnexported struct{ secret string }

// Values whose data JSON would drop (a struct with no exported field, also
// inside a map, slice or struct) and empty names are *VariableErrors naming
// the variable (and the type), on every path; what JSON gives back whole
// is stored.
func TestVariablesThatWouldLoseDataAreRejected(t *testing.T) {
	bad := map[string]any{
		"":         1,
		"opaque":   onlyUnexported{"x"},
		"pointer":  &onlyUnexported{"x"},
		"inMap":    map[string]any{"k": onlyUnexported{"x"}},
		"inSlice":  []any{1, onlyUnexported{"x"}},
		"inStruct": struct{ Inner any }{onlyUnexported{}},
		"anError":  errors.New("boom"),
	}
	type mixed struct {
		Shown  int
		hidden string
	}
	good := map[string]any{
		"mixed":    mixed{Shown: 1, hidden: "x"},
		"empty":    struct{}{},
		"withTime": map[string]any{"at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		"braces":   "{}",
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var set atomic.Value
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			kv := set.Load().([2]any)
			return ex.SetVariable(kv[0].(string), kv[1])
		}))
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", map[string]any{"kept": "yes"})
		task := e.Tasks(pi)[0]
		want := func(what, name string, err error) {
			t.Helper()
			var ve *bpmnlite.VariableError
			if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("%s %q: %v, want a *VariableError naming it", what, name, err)
			}
			if err != nil && name != "" && name != "anError" && !strings.Contains(err.Error(), "onlyUnexported") {
				t.Errorf("%s %q: %v, want the type named", what, name, err)
			}
		}
		for name, v := range bad {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: v}})
			want("start with", name, err)
			_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: bpmnlite.Transient(v)}})
			want("start with transient", name, err)
			want("set", name, e.Eng.SetVariables(e.Ctx, pi, map[string]any{"kept": "changed", name: v}))
			set.Store([2]any{name, v})
			want("a delegate setting", name, e.Eng.CompleteTask(e.Ctx, task.ID, nil))
		}
		if v, _, err := e.Eng.Variable(e.Ctx, pi, "kept"); err != nil || v != "yes" {
			t.Errorf("kept = %v (%v), want yes: a rejected call changed nothing", v, err)
		}
		if is := e.Instances("p"); len(is) != 1 {
			t.Errorf("%d instances, want only the first: rejected starts store nothing", len(is))
		}
		if err := e.Eng.SetVariables(e.Ctx, pi, good); err != nil {
			t.Fatalf("set %v: %v", good, err)
		}
		vars := e.VarsOf(pi)
		for name, want := range map[string]any{"mixed": map[string]any{"Shown": int64(1)}, "empty": map[string]any{},
			"withTime": map[string]any{"at": "2026-01-02T03:04:05Z"}, "braces": "{}"} {
			if !reflect.DeepEqual(vars[name], want) {
				t.Errorf("%s = %#v, want %#v", name, vars[name], want)
			}
		}
	})
}

// capped waits once at each place variables come in: a task, a message, a
// signal, a receive task, an external task; then "mapped" copies half
// twice into an input parameter, and its delegate sets a string of length
// size.
var capped = enginetest.Defs(`<message id="m" name="m"/><signal id="s" name="s"/>`, enginetest.Executable("capped",
	`<startEvent id="start"/><userTask id="work"/>
	<intermediateCatchEvent id="msg"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
	<intermediateCatchEvent id="sig"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
	<receiveTask id="recv"/>
	<serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
	<serviceTask id="mapped" camunda:class="sized"><extensionElements><camunda:inputOutput>
		<camunda:inputParameter name="pair"><camunda:list><camunda:value>${half}</camunda:value><camunda:value>${half}</camunda:value></camunda:list></camunda:inputParameter>
	</camunda:inputOutput></extensionElements></serviceTask>
	<userTask id="wait"/><endEvent id="end"/>`,
	enginetest.Chain("start", "work", "msg", "sig", "recv", "ext", "mapped", "wait", "end")))

// Config.MaxVariableBytes bounds what one variable stores, on every path
// a variable is written, transient ones too; the error names the variable,
// its size and the limit, and the call changes nothing.
func TestMaxVariableBytes(t *testing.T) {
	eachBackend(t, bpmnlite.Config{MaxVariableBytes: 1000}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("sized", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			size, _, err := ex.Variable("size")
			if err != nil {
				return err
			}
			return ex.SetVariable("fromDelegate", strings.Repeat("x", int(size.(int64))))
		}))
		e.Deploy("capped", capped)
		big := map[string]any{"big": strings.Repeat("é", 501)} // 1002 bytes
		tooBig := func(what, name string, size int, err error) {
			t.Helper()
			var ve *bpmnlite.VariableError
			if !errors.As(err, &ve) || ve.Name != name || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", size)) || !strings.Contains(err.Error(), "limit of 1000") {
				t.Errorf("%s: %v, want a *VariableError naming %s, %d bytes and the limit", what, err, name, size)
			}
		}
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: big})
		tooBig("start", "big", 1002, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": bpmnlite.Transient(big["big"])}})
		tooBig("start with a transient", "big", 1002, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": []byte(strings.Repeat("x", 1001))}})
		tooBig("start with bytes", "big", 1001, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": []any{strings.Repeat("x", 998)}}})
		tooBig("start with JSON", "big", 1002, err)
		pi := e.Start("capped", map[string]any{"half": strings.Repeat("x", 600), "size": 1001, "exactly": strings.Repeat("x", 1000)})

		tooBig("set", "big", 1002, e.Eng.SetVariables(e.Ctx, pi, big))
		tooBig("complete", "big", 1002, e.Eng.CompleteTask(e.Ctx, e.Tasks(pi)[0].ID, big))
		e.Complete(pi, "work", nil)
		_, err = e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "m", Variables: big})
		tooBig("correlate", "big", 1002, err)
		e.Correlate("m", pi, nil)
		tooBig("signal", "big", 1002, e.Eng.Signal(e.Ctx, "s", big))
		e.Signal("s")
		recv := e.ExecAt(pi, "recv").ID
		tooBig("trigger", "big", 1002, e.Eng.Trigger(e.Ctx, recv, big))
		if err := e.Eng.Trigger(e.Ctx, recv, nil); err != nil {
			t.Fatal(err)
		}
		locked, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: "w", MaxTasks: 1, Topics: []bpmnlite.FetchTopic{{Topic: "t", LockDuration: time.Minute}}})
		if err != nil || len(locked) != 1 {
			t.Fatalf("fetched %v, %v", locked, err)
		}
		id := locked[0].ID
		tooBig("external task completion", "big", 1002, e.Eng.CompleteExternalTask(e.Ctx, id, "w", big, nil))
		tooBig("external task completion (local)", "big", 1002, e.Eng.CompleteExternalTask(e.Ctx, id, "w", nil, big))
		tooBig("BPMN error", "big", 1002, e.Eng.HandleExternalTaskBpmnError(e.Ctx, id, "w", "E", "", big))
		tooBig("input mapping", "pair", 1207, e.Eng.CompleteExternalTask(e.Ctx, id, "w", nil, nil))
		tooBig("delegate", "fromDelegate", 1001, e.Eng.CompleteExternalTask(e.Ctx, id, "w", map[string]any{"half": "x"}, nil))
		if err := e.Eng.CompleteExternalTask(e.Ctx, id, "w", map[string]any{"half": "x", "size": 10}, nil); err != nil {
			t.Fatal(err)
		}
		if keys := e.TaskKeys(pi); keys != "wait" {
			t.Fatalf("open tasks %q, want wait", keys)
		}
		if v := e.VarsOf(pi); v["big"] != nil || len(v["exactly"].(string)) != 1000 {
			t.Errorf("variables %v: want exactly (1000 bytes) and no big", v)
		}
	})
	const mib = 1 << 20
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"big": strings.Repeat("x", 4*mib+1)}})
		if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !strings.Contains(err.Error(), "limit of 4194304") {
			t.Errorf("a string of 4 MiB + 1 byte: %v, want refused at the default limit", err)
		}
		e.Start("p", map[string]any{"big": strings.Repeat("x", 4*mib)})
	})
	eachBackend(t, bpmnlite.Config{MaxVariableBytes: -1}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		e.Start("p", map[string]any{"big": strings.Repeat("x", 4*mib+1)})
	})
}

// Expression limits are each engine's: two engines in one process, one with
// a small length limit and short quotes, the other with the defaults, each
// applies its own, whichever opened last.
func TestExpressionLimitsPerEngine(t *testing.T) {
	b := testdb.Backends(t)[0]
	strict := openEnv(t, b, bpmnlite.Config{MaxExpressionLength: 100, MaxQuotedSource: 10})
	loose := openEnv(t, testdb.Backends(t)[0], bpmnlite.Config{})
	condition := "${x == '" + strings.Repeat("y", 200) + "'}"
	xml := enginetest.Process("p", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="g" />
    <exclusiveGateway id="g" default="f3" />
    <sequenceFlow id="f2" sourceRef="g" targetRef="e"><conditionExpression>`+condition+`</conditionExpression></sequenceFlow>
    <sequenceFlow id="f3" sourceRef="g" targetRef="e" />
    <endEvent id="e" />`)
	_, err := strict.Eng.Deploy(strict.Ctx, bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(xml)}}})
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 100") || !strings.Contains(err.Error(), "${x == 'yy… (210 bytes)") {
		t.Errorf("the strict engine took a 210-byte expression: %v", err)
	}
	loose.Deploy("p", xml) // the defaults: 10,000 bytes
	// A failing expression quotes as much as its engine says.
	loose.Deploy("q", enginetest.Process("q", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="t" />
    <serviceTask id="t" camunda:expression="${missing.call('`+strings.Repeat("z", 300)+`')}" />
    <sequenceFlow id="f2" sourceRef="t" targetRef="e" />
    <endEvent id="e" />`))
	_, err = loose.Eng.Start(loose.Ctx, bpmnlite.StartRequest{Key: "q"})
	if err == nil || strings.Contains(err.Error(), strings.Repeat("z", 250)) || !strings.Contains(err.Error(), strings.Repeat("z", 150)) {
		t.Errorf("the loose engine's error quotes %d bytes, want the default 200 characters: %v", len(fmt.Sprint(err)), err)
	}
}
