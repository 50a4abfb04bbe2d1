package runtime_test

// Asynchronous continuations, job attributes, execution listeners and
// starting before an activity.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

func TestElementAsyncBeforeAndAfter(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &harness.Recorder{}
		e.Eng.RegisterDelegate("rec", rec)
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="before" camunda:class="rec" camunda:asyncBefore="true"/>
			<serviceTask id="after" camunda:class="rec" camunda:asyncAfter="true"/>
			<userTask id="done"/>`, enginetest.Chain("start", "before", "after", "done"))))
		pi := e.Start("p", nil)
		wantEq(t, "calls after start", rec.String(), "")
		j := e.OneJob(pi)
		if j.Type != "message" || j.HandlerType != "async-before" || j.ActivityID != "before" || j.DueDate != nil ||
			j.Retries != 3 || !j.Exclusive || j.ExecutionID != e.ExecAt(pi, "before").ID || j.JobDefinitionID == "" {
			t.Fatalf("job = %+v, want an async-before job at before", j)
		}
		wantEq(t, "path before the job", e.Path(pi), "start")
		e.runJob(j.ID)
		wantEq(t, "calls", rec.String(), "before:call after:call")
		j = e.OneJob(pi)
		if j.HandlerType != "async-after" || j.ActivityID != "after" || j.HandlerConfig != "after-done" {
			t.Fatalf("job = %+v, want an async-after job taking after-done", j)
		}
		wantEq(t, "tasks before the async-after job", e.TaskKeys(pi), "")
		if h := e.HistoryAt(pi, "after"); len(h) != 1 || h[0].EndTime == nil {
			t.Errorf("history of after = %+v, want ended before the job", h)
		}
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "done")
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "calls", rec.String(), "before:call after:call")
	})
}

// asyncAfter on an activity with two unconditional outgoing flows makes one
// job per flow.
func TestElementAsyncAfterTwoFlows(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><task id="split" camunda:asyncAfter="true"/>
			<userTask id="a"/><userTask id="b"/>`, enginetest.Chain("start", "split", "a"), enginetest.Chain("split", "b"))))
		pi := e.Start("p", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("jobs = %d, want 2", len(js))
		}
		flows := map[string]bool{}
		for _, j := range js {
			if j.HandlerType != "async-after" || j.ActivityID != "split" {
				t.Errorf("job = %+v", j)
			}
			flows[j.HandlerConfig] = true
		}
		wantEq(t, "flows", flows, map[string]bool{"split-a": true, "split-b": true})
		e.runJob(js[1].ID)
		wantEq(t, "tasks after one job", e.TaskKeys(pi), "b")
		e.runJob(js[0].ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "a,b")
	})
}

// asyncBefore on the process start event stores the instance and defers
// everything, the process start listener included, to the job.
func TestElementAsyncProcessStart(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &harness.Recorder{}
		e.Eng.RegisterDelegate("rec", rec)
		e.Deploy("p", enginetest.Defs(`<process id="p" isExecutable="true">
			<extensionElements><camunda:executionListener event="start" class="rec"/></extensionElements>
			<startEvent id="start" camunda:asyncBefore="true"/><userTask id="work"/>`, enginetest.Chain("start", "work"), `</process>`))
		pi := e.Start("p", map[string]any{"x": 1})
		wantEq(t, "state", e.State(pi), "ACTIVE")
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"x": int64(1)})
		wantEq(t, "listener calls before the job", rec.String(), "")
		wantEq(t, "path before the job", e.Path(pi), "")
		j := e.OneJob(pi)
		if j.HandlerType != "process-start" || j.ActivityID != "start" {
			t.Errorf("job = %+v, want a process-start job at start", j)
		}
		e.runJob(j.ID)
		wantEq(t, "listener calls", rec.String(), "process:start")
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
		wantEq(t, "path", e.Path(pi), "start,work")
	})
}

// Execution listeners run in Camunda's order: the process start, each
// activity's start and end around its work, take listeners between them.
func TestElementExecutionListenerOrder(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &harness.Recorder{}
		e.Eng.RegisterDelegate("rec", &takeRecorder{rec})
		e.Eng.RegisterBean("recBean", rec)
		const ls = `<extensionElements><camunda:executionListener event="start" class="rec"/><camunda:executionListener event="end" class="rec"/></extensionElements>`
		const byBean = `<extensionElements><camunda:executionListener event="start" delegateExpression="${recBean}"/><camunda:executionListener event="end" delegateExpression="${recBean}"/></extensionElements>`
		flow := func(id, from, to string) string {
			return `<sequenceFlow id="` + id + `" sourceRef="` + from + `" targetRef="` + to + `"><extensionElements><camunda:executionListener class="rec"/></extensionElements></sequenceFlow>`
		}
		e.Deploy("p", enginetest.Defs(`<process id="p" isExecutable="true">`+ls+
			`<startEvent id="start">`+ls+`</startEvent>`+flow("f1", "start", "sub")+
			`<subProcess id="sub">`+ls+`<startEvent id="subStart">`+ls+`</startEvent>`+flow("f2", "subStart", "work")+
			`<userTask id="work">`+byBean+`</userTask>`+flow("f3", "work", "subEnd")+`<endEvent id="subEnd">`+ls+`</endEvent></subProcess>`+
			flow("f4", "sub", "end")+`<endEvent id="end">`+ls+`</endEvent></process>`))
		pi := e.Start("p", nil)
		wantEq(t, "events until the task", rec.String(),
			"process:start start:start start:end take:f1 sub:start subStart:start subStart:end take:f2 work:start")
		rec.Reset()
		e.Complete(pi, "work", nil)
		wantEq(t, "events after the task", rec.String(),
			"work:end take:f3 subEnd:start subEnd:end sub:end take:f4 end:start end:end process:end")
	})
}

// takeRecorder records take events with the flow taken, known here from the
// activity the path is leaving.
type takeRecorder struct{ *harness.Recorder }

func (r *takeRecorder) Execute(ctx context.Context, ex *bpmnlite.Execution) error {
	if ex.EventName() != "take" {
		return r.Recorder.Execute(ctx, ex)
	}
	flow := map[string]string{"start": "f1", "subStart": "f2", "work": "f3", "sub": "f4"}[ex.ActivityID()]
	r.Add("take:" + flow)
	return nil
}

// End listeners also run when an activity is cut short: by an interrupting
// boundary event, a terminate end event, or deleting the instance (the
// process end listener too).
func TestElementEndListenersOnCancellation(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &harness.Recorder{}
		e.Eng.RegisterDelegate("rec", rec)
		const ls = `<extensionElements><camunda:executionListener event="end" class="rec"/></extensionElements>`
		e.Deploy("p", enginetest.Defs(`<process id="p" isExecutable="true">`+ls+`<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="timed">`+ls+`</userTask><userTask id="other">`+ls+`</userTask><userTask id="late"/>`,
			boundaryTimer("timeout", "timed", "true", "timeDuration", "PT1H"),
			enginetest.Chain("start", "fork", "timed"), enginetest.Chain("fork", "other"), enginetest.Chain("timeout", "late"), `</process>`))
		pi := e.Start("p", nil)
		e.runDue(time.Hour)
		wantEq(t, "events after the timeout", rec.String(), "timed:end")
		wantEq(t, "tasks", e.TaskKeys(pi), "late,other")
		rec.Reset()
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "test"); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "events after the deletion", rec.String(), "other:end process:end")
	})
}

func TestElementExpressionListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="work"><extensionElements>
			  <camunda:executionListener event="start" expression="${execution.setVariable('startedIn', execution.activityId)}"/>
			  <camunda:executionListener event="end" expression="${execution.setVariable('ended', true)}"/>
			</extensionElements></userTask>
			<sequenceFlow id="f" sourceRef="work" targetRef="after"><extensionElements>
			  <camunda:executionListener expression="${execution.setVariable('took', execution.eventName)}"/>
			</extensionElements></sequenceFlow><userTask id="after"/>`, enginetest.Chain("start", "work"))))
		pi := e.Start("p", nil)
		wantEq(t, "variables at the task", e.VarsOf(pi), map[string]any{"startedIn": "work"})
		e.Complete(pi, "work", nil)
		wantEq(t, "variables after", e.VarsOf(pi), map[string]any{"startedIn": "work", "ended": true, "took": "take"})
	})
}

// A failing listener fails the call like a failing delegate, naming it.
func TestElementFailingListener(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return errors.New("audit down") }))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="work"><extensionElements><camunda:executionListener event="end" class="fail"/></extensionElements></userTask>
			<endEvent id="end"/>`, enginetest.Chain("start", "work", "end"))))
		pi := e.Start("p", nil)
		err := e.Eng.CompleteTask(e.Ctx, e.Tasks(pi)[0].ID, nil)
		if err == nil || !strings.Contains(err.Error(), "userTask 'work' end listener") || !strings.Contains(err.Error(), "audit down") {
			t.Errorf("complete: %v, want the listener's error naming userTask 'work'", err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
	})
}

func TestElementJobAttributes(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<process id="p" isExecutable="true" camunda:jobPriority="10">
			<startEvent id="start"/>
			<task id="inherits" camunda:asyncBefore="true"/>
			<task id="byExpression" camunda:asyncBefore="true" camunda:jobPriority="${prio * 5}"/>
			<task id="constant" camunda:asyncBefore="true" camunda:jobPriority="5" camunda:exclusive="false"/>
			<task id="retries" camunda:asyncBefore="true"><extensionElements><camunda:failedJobRetryTimeCycle>R5/PT5M</camunda:failedJobRetryTimeCycle></extensionElements></task>
			<task id="foxRetries" camunda:asyncBefore="true"><extensionElements><fox:failedJobRetryTimeCycle>R4/PT1M</fox:failedJobRetryTimeCycle></extensionElements></task>
			<userTask id="done"/>`, enginetest.Chain("start", "inherits", "byExpression", "constant", "retries", "foxRetries", "done"), `</process>`))
		pi := e.Start("p", map[string]any{"prio": 5})
		for _, want := range []struct {
			activity  string
			priority  int64
			exclusive bool
			retries   int
		}{
			{"inherits", 10, true, 3},
			{"byExpression", 25, true, 3},
			{"constant", 5, false, 3},
			{"retries", 10, true, 5},
			{"foxRetries", 10, true, 4},
		} {
			j := e.OneJob(pi)
			if j.ActivityID != want.activity || j.Priority != want.priority || j.Exclusive != want.exclusive || j.Retries != want.retries {
				t.Errorf("job = %s priority %d exclusive %v retries %d, want %+v", j.ActivityID, j.Priority, j.Exclusive, j.Retries, want)
			}
			e.runJob(j.ID)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "done")

		// A process-level expression, evaluated where the job is created.
		e.Deploy("q", enginetest.Defs(`<process id="q" isExecutable="true" camunda:jobPriority="${prio + 1}">
			<startEvent id="start"/><task id="async" camunda:asyncBefore="true"/><userTask id="done"/>`,
			enginetest.Chain("start", "async", "done"), `</process>`))
		pi = e.Start("q", map[string]any{"prio": 41})
		wantEq(t, "priority from the process expression", e.OneJob(pi).Priority, int64(42))
	})
}

// A failing job spends a retry and waits for the next one by its retry cycle.
func TestElementJobRetryCycleOnFailure(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("flaky", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return errors.New("try later") }))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="call" camunda:class="flaky" camunda:asyncBefore="true"><extensionElements>
			  <camunda:failedJobRetryTimeCycle>R5/PT5M</camunda:failedJobRetryTimeCycle></extensionElements></serviceTask>
			<endEvent id="end"/>`, enginetest.Chain("start", "call", "end"))))
		pi := e.Start("p", nil)
		j := e.OneJob(pi)
		if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err == nil || !strings.Contains(err.Error(), "try later") {
			t.Fatalf("execute: %v, want the delegate's error", err)
		}
		j = e.OneJob(pi)
		if j.Retries != 4 || j.DueDate == nil || !j.DueDate.Equal(e.Clock.Now().Add(5*time.Minute)) || !strings.Contains(j.ExceptionMessage, "try later") {
			t.Errorf("job after failure = retries %d, due %v, message %q", j.Retries, j.DueDate, j.ExceptionMessage)
		}
		wantEq(t, "path", e.Path(pi), "start")
	})
}

// StartBefore starts an instance at any activity, skipping what is before it.
func TestElementStartBefore(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="a"/><userTask id="b" camunda:asyncBefore="true"/>
			<userTask id="c"/><endEvent id="end"/>`, enginetest.Chain("start", "a", "b", "c", "end"))))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", StartBefore: "c", Variables: map[string]any{"x": 1}})
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "c")
		wantEq(t, "path", e.Path(pi), "c")
		wantEq(t, "x", e.VarsOf(pi)["x"], int64(1))
		e.Complete(pi, "c", nil)
		wantEq(t, "state", e.State(pi), "COMPLETED")

		pi, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", StartBefore: "b"})
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks before the job", e.TaskKeys(pi), "")
		j := e.OneJob(pi)
		wantEq(t, "job", j.ActivityID+"/"+j.HandlerType, "b/async-before")
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "b")

		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", StartBefore: "nope"})
		if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("start before nope: %v, want ErrNotFound naming it", err)
		}
	})
}
