package harness

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// Helpers the tests of several packages share: reading jobs, executions,
// variables and incidents through the public API, and small processes and
// delegates.

// EachBackendAs, EachBackendRealTimeAs and OpenAs are EachBackend,
// EachBackendRealTime and Open for a test package's own wrapper of Env (a
// struct embedding *Env, the receiver of the package's helper methods):
// var eachBackend = harness.EachBackendAs[env].
func EachBackendAs[E ~struct{ *Env }](t *testing.T, cfg bpmnlite.Config, f func(*testing.T, *E)) {
	t.Helper()
	EachBackend(t, cfg, func(t *testing.T, e *Env) { f(t, &E{e}) })
}

// EachBackendRealTimeAs is EachBackendRealTime for a wrapper of Env.
func EachBackendRealTimeAs[E ~struct{ *Env }](t *testing.T, cfg bpmnlite.Config, f func(*testing.T, *E)) {
	t.Helper()
	EachBackendRealTime(t, cfg, func(t *testing.T, e *Env) { f(t, &E{e}) })
}

// OpenAs is Open for a wrapper of Env.
func OpenAs[E ~struct{ *Env }](t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *E {
	t.Helper()
	return &E{Open(t, b, cfg)}
}

// AllJobs returns every job of the engine.
func (e *Env) AllJobs() []*bpmnlite.Job {
	e.T.Helper()
	return must(e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{}))(e.T, "jobs")
}

// OneJob returns pi's only job, failing the test when it has another number.
func (e *Env) OneJob(pi string) *bpmnlite.Job {
	e.T.Helper()
	js := e.Jobs(pi)
	if len(js) != 1 {
		e.T.Fatalf("%d jobs, want 1: %v", len(js), JobList(js))
	}
	return js[0]
}

// ExecJob runs one job and fails the test on error.
func (e *Env) ExecJob(jobID string) {
	e.T.Helper()
	if err := e.Eng.ExecuteJob(e.Ctx, jobID); err != nil {
		e.T.Fatalf("execute job %s: %v", jobID, err)
	}
}

// Ended reports whether pi has no runtime execution left.
func (e *Env) Ended(pi string) bool {
	e.T.Helper()
	xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ProcessInstanceID: pi})
	if err != nil {
		e.T.Fatalf("executions: %v", err)
	}
	return len(xs) == 0
}

// Var returns variable name of pi (nil when not set).
func (e *Env) Var(pi, name string) any {
	e.T.Helper()
	v, _, err := e.Eng.Variable(e.Ctx, pi, name)
	if err != nil {
		e.T.Fatalf("variable %s: %v", name, err)
	}
	return v
}

// Instances returns the running and ended instances of a process key.
func (e *Env) Instances(key string) []*bpmnlite.HistoricProcessInstance {
	e.T.Helper()
	return must(e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: key}))(e.T, "process instances")
}

// JobList shows jobs for failure messages.
func JobList(js []*bpmnlite.Job) string {
	var s []string
	for _, j := range js {
		s = append(s, fmt.Sprintf("%s@%s/%s(priority %d, retries %d)", j.Type, j.ActivityID, j.HandlerType, j.Priority, j.Retries))
	}
	return strings.Join(s, ", ")
}

// ExecList shows executions' activities for failure messages.
func ExecList(xs []*bpmnlite.ExecutionRow) string {
	var s []string
	for _, x := range xs {
		s = append(s, x.ActivityID)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// StartBefore starts key directly before activity (Camunda's "start
// before X" of the priority tests).
func (e *Env) StartBefore(key, activity string) string {
	e.T.Helper()
	return must(e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: key, StartBefore: activity}))(e.T, "start %s before %s", key, activity)
}

// ExecAt returns the only execution of pi at activity.
func (e *Env) ExecAt(pi, activity string) *bpmnlite.ExecutionRow {
	e.T.Helper()
	xs := e.Executions(pi, activity)
	if len(xs) != 1 {
		e.T.Fatalf("want 1 execution of %s at %q, got %d", pi, activity, len(xs))
	}
	return xs[0]
}

// WantEq reports an error when got is not deeply equal to want.
func WantEq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// Correlate correlates message name to pi.
func (e *Env) Correlate(name, pi string, vars map[string]any) {
	e.T.Helper()
	if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: name, ProcessInstanceID: pi, Variables: vars}); err != nil {
		e.T.Fatalf("Correlate %s: %v", name, err)
	}
}

// FailingDelegate registers "fail", which fails with Camunda's test message.
func (e *Env) FailingDelegate() {
	e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		return errors.New("Expected exception")
	}))
}

// FailJob runs job id by hand and expects it to fail.
func (e *Env) FailJob(id string) {
	e.T.Helper()
	if err := e.Eng.ExecuteJob(e.Ctx, id); err == nil {
		e.T.Fatalf("job %s succeeded, want a failure", id)
	}
}

// IncidentsOf returns the open incidents of job id.
func (e *Env) IncidentsOf(jobID string) []*bpmnlite.Incident {
	e.T.Helper()
	all, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{})
	if err != nil {
		e.T.Fatal(err)
	}
	var of []*bpmnlite.Incident
	for _, in := range all {
		if in.Configuration == jobID {
			of = append(of, in)
		}
	}
	return of
}

// NothingStored fails the test when an instance of key or any execution
// is stored.
func (e *Env) NothingStored(key string) {
	e.T.Helper()
	if is := e.Instances(key); len(is) != 0 {
		e.T.Fatalf("%d instances of %s stored, want none", len(is), key)
	}
	if xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{}); err != nil || len(xs) != 0 {
		e.T.Fatalf("%d executions stored (%v), want none", len(xs), err)
	}
}

// SetVars is a delegate that sets vars.
func SetVars(vars map[string]any) bpmnlite.Delegate {
	return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		for k, v := range vars {
			if err := ex.SetVariable(k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// UserTaskProcess is process "p": a user task "work", then a service task
// "after" of delegate "after".
var UserTaskProcess = enginetest.Defs(enginetest.Executable("p",
	`<startEvent id="start"/><userTask id="work" name="Work"/><serviceTask id="after" camunda:class="after"/><endEvent id="end"/>`,
	enginetest.Chain("start", "work", "after", "end")))

// must returns v, or fails the test with what went wrong (format and args
// name what was done, err follows).
func must[T any](v T, err error) func(t testing.TB, format string, args ...any) T {
	return func(t testing.TB, format string, args ...any) T {
		t.Helper()
		if err != nil {
			t.Fatalf(format+": %v", append(args, err)...)
		}
		return v
	}
}
