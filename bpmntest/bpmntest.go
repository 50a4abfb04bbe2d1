package bpmntest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// MaxJobs bounds the jobs RunJobs runs for one call: more means a loop of
// asynchronous steps that never waits.
const MaxJobs = 1000

// Options choose the engine a test gets.
type Options struct {
	// Postgres runs on the database of BPMNLITE_TEST_DATABASE_URL, in a
	// schema of the test's own (dropped at cleanup). Without the variable
	// the test is skipped, or fails under CI=true.
	Postgres bool
	// Start is the clock's first time. Default 2026-01-01T09:00:00Z.
	Start time.Time
	// Config adjusts the engine's configuration (Database, Clock and the
	// job executor are the kit's).
	Config func(*bpmnlite.Config)
	// Coverage is the directory of a coverage report: the flow nodes and
	// sequence flows the test's processes passed are added to it when the
	// test ends (index.html, a page per process). Default: the environment
	// variable BPMNTEST_COVERAGE; "" there too: no report. Flow nodes come
	// from history, so the engine must keep some (the default, audit).
	Coverage string
}

// TB is what the kit needs of a test: *testing.T and *testing.B are one,
// and so is a *Script.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Skip(args ...any)
	Cleanup(func())
}

var _ TB = testing.TB(nil)

// Script is a TB for the kit outside a test (an Example function, a small
// program): a failure panics with its message; Close runs the cleanups.
type Script struct {
	cleanups []func()
}

func (*Script) Helper()                           {}
func (*Script) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (*Script) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (*Script) Skip(args ...any)                  { panic(fmt.Sprint(args...)) }
func (*Script) Logf(format string, args ...any)   {}
func (s *Script) Cleanup(f func())                { s.cleanups = append(s.cleanups, f) }

// Close runs the cleanups, the last registered first.
func (s *Script) Close() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
}

// Harness is an engine for one test (it embeds *bpmnlite.Engine) with the
// kit's helpers: a fake clock, stubs, instance assertions.
type Harness struct {
	*bpmnlite.Engine
	T     TB
	Clock *Clock
	ctx   context.Context

	mu    sync.Mutex
	calls map[string]int
}

// Clock is the engine's time, moved only by the test: Now, Add(d), Set(t).
type Clock = enginetest.Clock

// New returns an engine for t, closed when t ends: in-memory SQLite
// unless o asks for PostgreSQL.
func New(t TB, o ...Options) *Harness {
	t.Helper()
	var opt Options
	if len(o) > 0 {
		opt = o[0]
	}
	if opt.Start.IsZero() {
		opt.Start = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	}
	clock := enginetest.ClockAt(opt.Start)
	cfg := bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)}
	if opt.Config != nil {
		opt.Config(&cfg)
	}
	cfg.Clock, cfg.JobExecutorActivate = clock.Now, false
	coverageDir := cmp.Or(opt.Coverage, os.Getenv(CoverageEnv))
	var coverage *coverageRecorder
	if coverageDir != "" {
		coverage = &coverageRecorder{}
		if own := cfg.SequenceFlowTaken; own != nil {
			cfg.SequenceFlowTaken = func(f bpmnlite.FlowTaken) { coverage.taken(f); own(f) }
		} else {
			cfg.SequenceFlowTaken = coverage.taken
		}
	}
	if opt.Postgres {
		url := os.Getenv("BPMNLITE_TEST_DATABASE_URL")
		if url == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("bpmntest: BPMNLITE_TEST_DATABASE_URL must be set under CI")
			}
			t.Skip("bpmntest: PostgreSQL not tested: BPMNLITE_TEST_DATABASE_URL is not set")
		}
		cfg.Database.URL, cfg.Database.Schema = url, fmt.Sprintf("bpmntest_%d", time.Now().UnixNano())
		t.Cleanup(func() {
			if err := persistence.DropSchema(context.Background(), url, cfg.Database.Schema); err != nil {
				t.Logf("bpmntest: drop schema %s: %v", cfg.Database.Schema, err)
			}
		})
	}
	eng, err := bpmnlite.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("bpmntest: open engine: %v", err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	if coverage != nil { // runs before the engine closes: cleanups run last first
		t.Cleanup(func() {
			if err := writeCoverage(context.Background(), eng, coverage, coverageDir, testName(t)); err != nil {
				t.Fatalf("bpmntest: coverage report in %s: %v", coverageDir, err)
			}
		})
	}
	return &Harness{Engine: eng, T: t, Clock: clock, ctx: context.Background(), calls: map[string]int{}}
}

// testName is t's name for the coverage report (a Script has none).
func testName(t TB) string {
	if n, ok := t.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "script"
}

// Deploy deploys BPMN files; a problem fails the test.
func (e *Harness) Deploy(paths ...string) *bpmnlite.Deployment {
	e.T.Helper()
	name := strings.TrimSuffix(filepath.Base(paths[0]), filepath.Ext(paths[0]))
	d, err := e.DeployFiles(e.ctx, name, paths...)
	if err != nil {
		e.T.Fatalf("bpmntest: deploy %v: %v", paths, err)
	}
	return d
}

// Stub registers a delegate under name that sets vars and counts its calls.
func (e *Harness) Stub(name string, vars map[string]any) {
	e.FailTimes(name, 0, nil, vars)
}

// FailTimes registers a delegate under name that fails its first n calls
// with err (a default error when nil), then sets vars.
func (e *Harness) FailTimes(name string, n int, err error, vars map[string]any) {
	if err == nil {
		err = fmt.Errorf("%s: failure planned by the test", name)
	}
	e.RegisterDelegate(name, bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
		e.mu.Lock()
		e.calls[name]++
		call := e.calls[name]
		e.mu.Unlock()
		if call <= n {
			return err
		}
		for k, v := range vars {
			if err := ex.SetVariable(k, v); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Calls reports how often the delegate of Stub or FailTimes ran.
func (e *Harness) Calls(name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[name]
}

// Start starts an instance of the latest version of key and runs its due
// jobs until it waits.
func (e *Harness) Start(key string, vars map[string]any) *Instance {
	e.T.Helper()
	id, err := e.Engine.Start(e.ctx, bpmnlite.StartRequest{Key: key, Variables: vars})
	if err != nil {
		e.T.Fatalf("bpmntest: start %s: %v", key, err)
	}
	return (&Instance{e: e, ID: id}).RunJobs()
}

// Instance is a process instance under test.
type Instance struct {
	e  *Harness
	ID string
}

// RunJobs runs the due jobs of the instance (and of the instances its call
// activities started), earliest first, until none is due: the instance then
// waits, or has ended. Failing jobs count as run; a loop that never waits
// fails the test after MaxJobs jobs.
func (i *Instance) RunJobs() *Instance {
	i.e.T.Helper()
	for n := 0; ; n++ {
		jobs, err := i.e.Jobs(i.e.ctx, bpmnlite.JobQuery{RootProcessInstanceID: i.ID, Executable: true})
		if err != nil {
			i.e.T.Fatalf("bpmntest: jobs: %v", err)
		}
		if len(jobs) == 0 {
			return i
		}
		if n >= MaxJobs {
			i.e.T.Fatalf("bpmntest: %d jobs ran and more are due: a loop without a wait state?\n%s", n, i.State())
		}
		slices.SortStableFunc(jobs, func(a, b *bpmnlite.Job) int { return dueOf(a).Compare(dueOf(b)) })
		err = i.e.ExecuteJob(i.e.ctx, jobs[0].ID)
		if err != nil && errors.Is(err, bpmnlite.ErrOperationLimit) {
			i.e.T.Fatalf("bpmntest: %v\n%s", err, i.State())
		}
	}
}

func dueOf(j *bpmnlite.Job) time.Time {
	if j.DueDate == nil {
		return time.Time{}
	}
	return *j.DueDate
}

// Advance moves the clock by d and runs the jobs due then: timers and
// retries fire only when due.
func (i *Instance) Advance(d time.Duration) *Instance {
	i.e.T.Helper()
	i.e.Clock.Add(d)
	return i.RunJobs()
}

// CompleteTask completes the instance's open user task at activity with
// vars, then runs the due jobs.
func (i *Instance) CompleteTask(activity string, vars map[string]any) *Instance {
	i.e.T.Helper()
	tasks, err := i.e.Tasks(i.e.ctx, bpmnlite.TaskQuery{ProcessInstanceID: i.ID, TaskDefinitionKey: activity})
	if err != nil || len(tasks) != 1 {
		i.e.T.Fatalf("bpmntest: complete %s: %d open tasks there (%v)\n%s", activity, len(tasks), err, i.State())
	}
	if err := i.e.CompleteTask(i.e.ctx, tasks[0].ID, vars); err != nil {
		i.e.T.Fatalf("bpmntest: complete %s: %v\n%s", activity, err, i.State())
	}
	return i.RunJobs()
}

// Correlate delivers message name to this instance, then runs the due jobs.
func (i *Instance) Correlate(name string, vars map[string]any) *Instance {
	i.e.T.Helper()
	if _, err := i.e.Engine.Correlate(i.e.ctx, bpmnlite.CorrelateRequest{MessageName: name, ProcessInstanceID: i.ID, Variables: vars}); err != nil {
		i.e.T.Fatalf("bpmntest: correlate %s: %v\n%s", name, err, i.State())
	}
	return i.RunJobs()
}

// WaitingAt lists the activities the instance's paths are at, sorted.
func (i *Instance) WaitingAt() []string {
	xs, err := i.e.Executions(i.e.ctx, bpmnlite.ExecutionQuery{ProcessInstanceID: i.ID})
	if err != nil {
		i.e.T.Fatalf("bpmntest: executions: %v", err)
	}
	var at []string
	for _, x := range xs {
		// An execution a child runs in shows no activity: the child's counts.
		if x.ActivityID != "" {
			at = append(at, x.ActivityID)
		}
	}
	slices.Sort(at)
	return at
}

// Path lists the activities the instance entered, in order.
func (i *Instance) Path() []string {
	hs, err := i.e.ActivityHistory(i.e.ctx, i.ID)
	if err != nil {
		i.e.T.Fatalf("bpmntest: history: %v", err)
	}
	out := make([]string, len(hs))
	for k, h := range hs {
		out[k] = h.ActivityID
	}
	return out
}

func (i *Instance) history() *bpmnlite.HistoricProcessInstance {
	hs, err := i.e.HistoricProcessInstances(i.e.ctx, bpmnlite.HistoricProcessInstanceQuery{ID: i.ID})
	if err != nil || len(hs) != 1 {
		i.e.T.Fatalf("bpmntest: instance %s: %v", i.ID, err)
	}
	return hs[0]
}

// State describes the instance for failure messages: its state, where it
// waits, its path, jobs and incidents.
func (i *Instance) State() string {
	h := i.history()
	var b strings.Builder
	fmt.Fprintf(&b, "instance %s of %s: %s", i.ID, h.ProcessDefinitionKey, h.State)
	if h.EndActivityID != "" {
		fmt.Fprintf(&b, " in %s", h.EndActivityID)
	}
	fmt.Fprintf(&b, "\n  waiting at: %s\n  path: %s", strings.Join(i.WaitingAt(), ", "), strings.Join(i.Path(), " → "))
	jobs, _ := i.e.Jobs(i.e.ctx, bpmnlite.JobQuery{RootProcessInstanceID: i.ID})
	for _, j := range jobs {
		due := "now"
		if j.DueDate != nil {
			due = j.DueDate.Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "\n  job %s at %s: priority %d, retries %d, due %s", j.Type, j.ActivityID, j.Priority, j.Retries, due)
		if j.ExceptionMessage != "" {
			fmt.Fprintf(&b, ", last failure %q", j.ExceptionMessage)
		}
	}
	incidents, _ := i.e.Incidents(i.e.ctx, bpmnlite.IncidentQuery{ProcessInstanceID: i.ID})
	for _, in := range incidents {
		fmt.Fprintf(&b, "\n  incident %s at %s: %s", in.Type, in.ActivityID, in.Message)
	}
	return b.String()
}

// AssertWaitingAt checks that the instance waits at exactly these activities.
func (i *Instance) AssertWaitingAt(activities ...string) *Instance {
	i.e.T.Helper()
	want := slices.Clone(activities)
	slices.Sort(want)
	if got := i.WaitingAt(); !slices.Equal(got, want) {
		i.e.T.Fatalf("want the instance waiting at %s only\n%s", strings.Join(want, ", "), i.State())
	}
	return i
}

// AssertWaitingAmong checks that one of the instance's paths waits at activity.
func (i *Instance) AssertWaitingAmong(activity string) *Instance {
	i.e.T.Helper()
	if !slices.Contains(i.WaitingAt(), activity) {
		i.e.T.Fatalf("want a path of the instance waiting at %s\n%s", activity, i.State())
	}
	return i
}

// AssertPassed checks that the instance entered these activities in this
// order (others may come between).
func (i *Instance) AssertPassed(activities ...string) *Instance {
	i.e.T.Helper()
	path, next := i.Path(), 0
	for _, a := range path {
		if next < len(activities) && a == activities[next] {
			next++
		}
	}
	if next < len(activities) {
		i.e.T.Fatalf("want the path to pass %s in this order; %s is missing\n%s", strings.Join(activities, " → "), activities[next], i.State())
	}
	return i
}

// AssertEnded checks that the instance completed, in the end event given.
func (i *Instance) AssertEnded(endEvent ...string) *Instance {
	i.e.T.Helper()
	h := i.history()
	if h.EndTime == nil || h.State != bpmnlite.StateCompleted || len(endEvent) > 0 && h.EndActivityID != endEvent[0] {
		want := "completed"
		if len(endEvent) > 0 {
			want += " in " + endEvent[0]
		}
		i.e.T.Fatalf("want the instance %s\n%s", want, i.State())
	}
	return i
}

// AssertVariable checks a process variable, also after the instance ended.
func (i *Instance) AssertVariable(name string, want any) *Instance {
	i.e.T.Helper()
	vars, err := i.e.Variables(i.e.ctx, i.ID)
	if err != nil {
		i.e.T.Fatalf("bpmntest: variables: %v\n%s", err, i.State())
	}
	got, ok := vars[name]
	if !ok || !reflect.DeepEqual(normalize(got), normalize(want)) {
		i.e.T.Fatalf("want variable %s = %#v, got %#v (set: %v)\n%s", name, want, got, ok, i.State())
	}
	return i
}

// normalize makes Go integers compare equal to the engine's int64.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	}
	return v
}

// JobCheck describes an expected job; nil fields are not checked.
type JobCheck struct {
	Priority *int64
	Retries  *int
	Due      *time.Time
}

// AssertJob checks that the instance has one job at activity, as check says.
func (i *Instance) AssertJob(activity string, check JobCheck) *bpmnlite.Job {
	i.e.T.Helper()
	jobs, err := i.e.Jobs(i.e.ctx, bpmnlite.JobQuery{RootProcessInstanceID: i.ID, ActivityID: activity})
	if err != nil || len(jobs) != 1 {
		i.e.T.Fatalf("want one job at %s, found %d (%v)\n%s", activity, len(jobs), err, i.State())
	}
	j := jobs[0]
	switch {
	case check.Priority != nil && j.Priority != *check.Priority:
		i.e.T.Fatalf("want the job at %s with priority %d\n%s", activity, *check.Priority, i.State())
	case check.Retries != nil && j.Retries != *check.Retries:
		i.e.T.Fatalf("want the job at %s with %d retries\n%s", activity, *check.Retries, i.State())
	case check.Due != nil && (j.DueDate == nil || !j.DueDate.Equal(*check.Due)):
		i.e.T.Fatalf("want the job at %s due %s\n%s", activity, check.Due.Format(time.RFC3339), i.State())
	}
	return j
}

// AssertIncident checks that the instance has an incident at activity whose
// message contains text.
func (i *Instance) AssertIncident(activity, text string) *Instance {
	i.e.T.Helper()
	incidents, err := i.e.Incidents(i.e.ctx, bpmnlite.IncidentQuery{ProcessInstanceID: i.ID, ActivityID: activity})
	if err == nil {
		for _, in := range incidents {
			if strings.Contains(in.Message, text) {
				return i
			}
		}
	}
	i.e.T.Fatalf("want an incident at %s with %q\n%s", activity, text, i.State())
	return i
}

// Ptr returns a pointer to v, for JobCheck fields.
func Ptr[T any](v T) *T { return &v }
