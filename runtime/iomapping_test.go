package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Input/output mappings (camunda:inputOutput) with Camunda 7 semantics:
// input parameters are local variables of the activity's own scope
// execution, set before its start listeners; output parameters are
// evaluated in that scope when the activity completes and set outside it.

// ioMapping is the extensionElements of an activity with these parameters
// (and other extension elements after them).
func ioMapping(params string, more ...string) string {
	return `<extensionElements><camunda:inputOutput>` + params + `</camunda:inputOutput>` + strings.Join(more, "") + `</extensionElements>`
}

// varsSeen is a delegate that records the variables it sees, by
// "activity:event" ("activity:call" for a service task's call).
type varsSeen struct {
	mu   sync.Mutex
	seen map[string]map[string]any
}

func (r *varsSeen) Execute(_ context.Context, ex *bpmnlite.Execution) error {
	vars, err := ex.Variables()
	if err != nil {
		return err
	}
	event := ex.EventName()
	if event == "" {
		event = "call"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]map[string]any{}
	}
	r.seen[ex.ActivityID()+":"+event] = vars
	return nil
}

func (r *varsSeen) at(key string) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[key]
}

// ioScope returns the scope execution below the path waiting at
// activity: the execution that runs an activity with input/output mappings.
func (e *env) ioScope(pi, activity string) *bpmnlite.ExecutionRow {
	e.T.Helper()
	xs := e.Executions(pi, activity)
	if len(xs) != 1 || !xs[0].IsScope {
		e.T.Fatalf("executions at %s: %s, want the activity's scope alone", activity, harness.ExecList(xs))
	}
	// The path that entered the activity waits, at no activity as the
	// query shows an execution a child runs in.
	if path := e.treeRow(pi, xs[0].ParentID); path.IsActive || path.ActivityID != "" {
		e.T.Fatalf("%s's scope below %+v, want below an inactive execution at no activity", activity, path)
	}
	return xs[0]
}

// Constants, expressions, null, nested lists and maps as inputs; the
// activity's listeners and delegates see them as local variables, the
// process does not; outputs read them and what the activity set, after the
// end listeners, and land outside.
func TestInputOutputTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &varsSeen{}
		e.Eng.RegisterDelegate("record", rec)
		listeners := `<camunda:executionListener event="start" class="record"/><camunda:executionListener event="end" class="record"/>`
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="work">`+ioMapping(`
				<camunda:inputParameter name="text">Hello ${name}</camunda:inputParameter>
				<camunda:inputParameter name="sum">${a + 1}</camunda:inputParameter>
				<camunda:inputParameter name="nothing"/>
				<camunda:inputParameter name="list"><camunda:list>
					<camunda:value>a</camunda:value><camunda:value>${a}</camunda:value>
					<camunda:list><camunda:value>1</camunda:value><camunda:value>2</camunda:value></camunda:list>
					<camunda:map><camunda:entry key="k">v</camunda:entry></camunda:map>
				</camunda:list></camunda:inputParameter>
				<camunda:inputParameter name="map"><camunda:map>
					<camunda:entry key="fixed">${a * 10}</camunda:entry>
					<camunda:entry key="${keyName}"><camunda:list><camunda:value>x</camunda:value></camunda:list></camunda:entry>
					<camunda:entry key="empty"/>
				</camunda:map></camunda:inputParameter>
				<camunda:outputParameter name="greeting">${text}!</camunda:outputParameter>
				<camunda:outputParameter name="doubled">${result * 2}</camunda:outputParameter>
				<camunda:outputParameter name="counter">${counter + sum}</camunda:outputParameter>
				<camunda:outputParameter name="pair"><camunda:list><camunda:value>${nothing == null}</camunda:value><camunda:value>${map.fixed}</camunda:value></camunda:list></camunda:outputParameter>`,
			listeners)+`</userTask>
			<serviceTask id="after" camunda:class="record"/><userTask id="wait"/>`,
			enginetest.Chain("start", "work", "after", "wait"))))
		pi := e.Start("p", map[string]any{"name": "Ada", "a": 1, "keyName": "dyn", "counter": 100})

		scope := e.ioScope(pi, "work")
		if scope.ParentID != pi {
			t.Errorf("scope of work below %s, want the process instance %s", scope.ParentID, pi)
		}
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].ExecutionID != scope.ID {
			t.Fatalf("tasks %+v, want work on its scope execution %s", tasks, scope.ID)
		}
		locals := map[string]any{
			"text": "Hello Ada", "sum": int64(2), "nothing": nil,
			"list": []any{"a", int64(1), []any{"1", "2"}, map[string]any{"k": "v"}},
			"map":  map[string]any{"fixed": int64(10), "dyn": []any{"x"}, "empty": nil},
		}
		process := map[string]any{"name": "Ada", "a": int64(1), "keyName": "dyn", "counter": int64(100)}
		inScope := map[string]any{}
		for k, v := range process {
			inScope[k] = v
		}
		for k, v := range locals {
			inScope[k] = v
		}
		wantEq(t, "variables in the scope", e.VarsOf(scope.ID), inScope)
		wantEq(t, "process variables", e.VarsOf(pi), process)
		wantEq(t, "start listener saw", rec.at("work:start"), inScope)
		if h := e.HistoryAt(pi, "work"); len(h) != 1 || h[0].ExecutionID != scope.ID || h[0].ParentActivityInstanceID != pi {
			t.Errorf("history of work %+v, want one on the scope, inside the process instance", h)
		}

		// Completion variables go where setVariable puts them: on the
		// process instance; the end listener still sees the inputs and
		// not yet the outputs.
		e.Complete(pi, "work", map[string]any{"result": 21})
		endSaw := rec.at("work:end")
		if endSaw["text"] != "Hello Ada" || endSaw["greeting"] != nil || endSaw["counter"] != int64(100) {
			t.Errorf("end listener saw %v, want the inputs and no outputs yet", endSaw)
		}
		want := map[string]any{"name": "Ada", "a": int64(1), "keyName": "dyn", "counter": int64(102), "result": int64(21),
			"greeting": "Hello Ada!", "doubled": int64(42), "pair": []any{true, int64(10)}}
		wantEq(t, "process variables after work", e.VarsOf(pi), want)
		wantEq(t, "the next delegate saw", rec.at("after:call"), want)
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %s, want the process instance alone", harness.ExecList(xs))
		}
	})
}

// A failing input or output expression fails the command with an error
// naming the activity and the parameter: a start stores nothing, a job
// keeps its retries' worth of failures and changes no variable.
func TestInputOutputExpressionFails(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("in", enginetest.Defs(enginetest.Executable("in", `<startEvent id="start"/>
			<userTask id="work">`+ioMapping(`<camunda:inputParameter name="bad">${missing.field}</camunda:inputParameter>`)+`</userTask>`,
			enginetest.Chain("start", "work"))))
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "in"})
		var ae *bpmnlite.ActivityError
		if !errors.As(err, &ae) || ae.ActivityID != "work" || !strings.Contains(err.Error(), "camunda:inputParameter 'bad'") {
			t.Fatalf("start: %v, want an error at work naming the parameter", err)
		}
		e.NothingStored("in")

		e.Eng.RegisterDelegate("noop", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("out", enginetest.Defs(enginetest.Executable("out", `<startEvent id="start"/>
			<serviceTask id="work" camunda:class="noop" camunda:asyncBefore="true">`+ioMapping(`
				<camunda:inputParameter name="local">1</camunda:inputParameter>
				<camunda:outputParameter name="ok">${local}</camunda:outputParameter>
				<camunda:outputParameter name="bad">${local.nope()}</camunda:outputParameter>`)+`</serviceTask>
			<userTask id="wait"/>`, enginetest.Chain("start", "work", "wait"))))
		pi := e.Start("out", map[string]any{"v": 1})
		j := e.OneJob(pi)
		e.FailJob(j.ID)
		j = e.OneJob(pi)
		if j.Retries != 2 || !strings.Contains(j.ExceptionMessage, "camunda:outputParameter 'bad'") || j.FailedActivityID != "work" {
			t.Errorf("job after a failed run: retries %d, failed at %q, message %q", j.Retries, j.FailedActivityID, j.ExceptionMessage)
		}
		wantEq(t, "variables after the failure", e.VarsOf(pi), map[string]any{"v": int64(1)})
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %s, want the process instance alone, its scope rolled back", harness.ExecList(xs))
		}
	})
}

// Deploying a script value or mappings where Camunda forbids them is an
// error naming the element and its line:column.
func TestInputOutputDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(enginetest.Defs(enginetest.Executable("bad",
			`<startEvent id="start">`+ioMapping(`<camunda:inputParameter name="a">1</camunda:inputParameter>`)+`</startEvent>
<task id="calc">`+ioMapping(`<camunda:inputParameter name="a"><camunda:script scriptFormat="groovy">1 + 1</camunda:script></camunda:inputParameter>`)+`</task>`,
			enginetest.Chain("start", "calc"))))}}})
		var pe *bpmnlite.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("deploy: %v, want a ParseError", err)
		}
		for _, want := range []string{
			"bad.bpmn:1:256: startEvent 'start': camunda:inputOutput is not supported on element type 'startEvent'",
			"bad.bpmn:2:90: task 'calc': camunda:inputParameter 'a': scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("deploy error lacks %q:\n%v", want, err)
			}
		}
	})
}

// Multi-instance: the inner activity's input parameters are local to each
// instance, which sees its loop counter and element; they go with it.
func TestInputOutputMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, sequential := range []string{"false", "true"} {
			key := "mi" + sequential
			e.Deploy(key, enginetest.Defs(enginetest.Executable(key, `<startEvent id="start"/>
				<userTask id="each">`+ioMapping(`<camunda:inputParameter name="label">${item}-${loopCounter}</camunda:inputParameter>`)+`
					<multiInstanceLoopCharacteristics isSequential="`+sequential+`" camunda:collection="items" camunda:elementVariable="item"/></userTask>
				<userTask id="after"/>`, enginetest.Chain("start", "each", "after"))))
			pi := e.Start(key, map[string]any{"items": []any{"a", "b"}})
			var labels []string
			for len(labels) < 2 {
				tasks := e.Tasks(pi)
				if len(tasks) == 0 || tasks[0].TaskDefinitionKey != "each" {
					t.Fatalf("%s: tasks %+v after %d instances, want each", key, tasks, len(labels))
				}
				for _, task := range tasks {
					v, _, err := e.Eng.Variable(e.Ctx, task.ExecutionID, "label")
					if err != nil {
						t.Fatal(err)
					}
					labels = append(labels, v.(string))
					if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
						t.Fatal(err)
					}
				}
				if _, ok := e.VarsOf(pi)["label"]; ok {
					t.Errorf("%s: label is a process variable", key)
				}
			}
			wantEq(t, key+" labels", strings.Join(labels, ","), "a-0,b-1")
			wantEq(t, key+" tasks", e.TaskKeys(pi), "after")
			wantEq(t, key+" variables", e.VarsOf(pi), map[string]any{"items": []any{"a", "b"}})
		}
	})
}

// A call activity's input parameters are local to its execution, where
// camunda:in reads; its output parameters see what camunda:out returned,
// local mappings included, and the local variables go with the scope.
func TestInputOutputCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("child", enginetest.Defs(enginetest.Executable("child", `<startEvent id="cStart"/><userTask id="childWork"/><endEvent id="cEnd"/>`,
			enginetest.Chain("cStart", "childWork", "cEnd"))))
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", `<startEvent id="start"/>
			<callActivity id="call" calledElement="child">`+ioMapping(`
				<camunda:inputParameter name="tenfold">${x * 10}</camunda:inputParameter>
				<camunda:outputParameter name="final">${returned + kept + tenfold}</camunda:outputParameter>`, `
				<camunda:in source="tenfold" target="childIn"/>
				<camunda:in sourceExpression="${tenfold + 1}" target="childExpr"/>
				<camunda:out source="childOut" target="returned"/>
				<camunda:out source="childOut" target="kept" local="true"/>`)+`</callActivity>
			<userTask id="after"/>`, enginetest.Chain("start", "call", "after"))))
		pi := e.Start("caller", map[string]any{"x": 2})
		children, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if err != nil || len(children) != 1 {
			t.Fatalf("child instances %d, %v", len(children), err)
		}
		child := children[0].ID
		wantEq(t, "child variables", e.VarsOf(child), map[string]any{"childIn": int64(20), "childExpr": int64(21)})
		scope := e.ioScope(pi, "call")
		if xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ID: child}); err != nil || len(xs) != 1 || xs[0].SuperExecutionID != scope.ID {
			t.Errorf("child %+v (%v), want called by the call activity's scope %s", xs, err, scope.ID)
		}
		e.Complete(child, "childWork", map[string]any{"childOut": 7})
		wantEq(t, "caller variables", e.VarsOf(pi), map[string]any{"x": int64(2), "returned": int64(7), "final": int64(34)})
		wantEq(t, "caller tasks", e.TaskKeys(pi), "after")
	})
}

// A boundary event interrupting the activity cancels its scope: no output
// parameters, no local variables left; the error variables of an error
// boundary event land outside the scope. A non-interrupting one forks
// outside the scope, which completes later with its outputs.
func TestInputOutputBoundaryEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		mapping := ioMapping(`<camunda:inputParameter name="local">in</camunda:inputParameter>
			<camunda:outputParameter name="mapped">${local}</camunda:outputParameter>`)
		e.Deploy("timer", enginetest.Defs(enginetest.Executable("timer", `<startEvent id="start"/><userTask id="work">`+mapping+`</userTask>
			<userTask id="after"/>`, boundaryTimer("late", "work", "true", "timeDuration", "PT1H"), `<userTask id="escalated"/>`,
			enginetest.Chain("start", "work", "after"), enginetest.Chain("late", "escalated"))))
		pi := e.Start("timer", map[string]any{"v": 1})
		scope := e.ioScope(pi, "work")
		if j := e.OneJob(pi); j.ExecutionID != scope.ID {
			t.Errorf("boundary timer on %s, want the activity's scope %s", j.ExecutionID, scope.ID)
		}
		wantEq(t, "due jobs", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "escalated")
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"v": int64(1)})
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "escalated" {
			t.Errorf("executions %s, want the process instance alone at escalated", harness.ExecList(xs))
		}
		if h := e.HistoryAt(pi, "work"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of work %+v, want one canceled", h)
		}

		e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return &bpmnlite.BpmnError{Code: "E1", Message: "declined"}
		}))
		e.Deploy("error", enginetest.Defs(enginetest.Executable("error", `<startEvent id="start"/><serviceTask id="work" camunda:class="fail">`+mapping+`</serviceTask>
			<boundaryEvent id="caught" attachedToRef="work"><errorEventDefinition camunda:errorCodeVariable="local" camunda:errorMessageVariable="why"/></boundaryEvent>
			<userTask id="after"/><userTask id="handle"/>`, enginetest.Chain("start", "work", "after"), enginetest.Chain("caught", "handle"))))
		pi = e.Start("error", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle")
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"local": "E1", "why": "declined"})

		e.Deploy("message", enginetest.Defs(`<message id="m" name="nudge"/>`, enginetest.Executable("message", `<startEvent id="start"/><userTask id="work">`+mapping+`</userTask>
			<boundaryEvent id="nudged" attachedToRef="work" cancelActivity="false"><messageEventDefinition messageRef="m"/></boundaryEvent>
			<userTask id="after"/><userTask id="reply"/>`, enginetest.Chain("start", "work", "after"), enginetest.Chain("nudged", "reply"))))
		pi = e.Start("message", nil)
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "nudge", ProcessInstanceID: pi}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "reply,work")
		scope = e.ioScope(pi, "work")
		if scope.ParentID == pi || !e.treeRow(pi, scope.ParentID).IsConcurrent {
			t.Errorf("executions %s, want work's scope below a concurrent path", harness.ExecList(e.Executions(pi, "")))
		}
		e.Complete(pi, "work", nil)
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"mapped": "in"})
		wantEq(t, "tasks", e.TaskKeys(pi), "after,reply")
	})
}

func execByIDIn(xs []*bpmnlite.ExecutionRow, id string) *bpmnlite.ExecutionRow {
	for _, x := range xs {
		if x.ID == id {
			return x
		}
	}
	return &bpmnlite.ExecutionRow{}
}

// asyncBefore waits before the scope exists (the job is the path's);
// asyncAfter after the outputs were set and the scope went.
func TestInputOutputAsync(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &varsSeen{}
		e.Eng.RegisterDelegate("record", rec)
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="work" camunda:class="record" camunda:asyncBefore="true" camunda:asyncAfter="true">`+ioMapping(`
				<camunda:inputParameter name="local">${v + 1}</camunda:inputParameter>
				<camunda:outputParameter name="out">${local * 2}</camunda:outputParameter>`)+`</serviceTask>
			<userTask id="after"/>`, enginetest.Chain("start", "work", "after"))))
		pi := e.Start("p", map[string]any{"v": 1})
		j := e.OneJob(pi)
		if j.ExecutionID != pi || len(e.Executions(pi, "")) != 1 {
			t.Fatalf("before: job on %s, executions %s; want the process instance alone", j.ExecutionID, harness.ExecList(e.Executions(pi, "")))
		}
		e.runJob(j.ID)
		wantEq(t, "the delegate saw", rec.at("work:call"), map[string]any{"v": int64(1), "local": int64(2)})
		j = e.OneJob(pi)
		if j.ExecutionID != pi || len(e.Executions(pi, "")) != 1 {
			t.Fatalf("after: job on %s, executions %s; want the process instance alone", j.ExecutionID, harness.ExecList(e.Executions(pi, "")))
		}
		wantEq(t, "variables before the async-after job", e.VarsOf(pi), map[string]any{"v": int64(1), "out": int64(4)})
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

// An embedded subprocess's inputs are seen by its start listener and its
// content; its outputs are set when it completes. Intermediate events and
// end events map too.
func TestInputOutputSubprocessAndEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &varsSeen{}
		e.Eng.RegisterDelegate("record", rec)
		e.Deploy("p", enginetest.Defs(`<message id="m" name="go"/>`, enginetest.Executable("p", `<startEvent id="start"/>
			<subProcess id="sub">`+ioMapping(`<camunda:inputParameter name="inner">${v}</camunda:inputParameter>
				<camunda:outputParameter name="fromSub">${inner + step}</camunda:outputParameter>`,
			`<camunda:executionListener event="start" class="record"/>`)+`
				<startEvent id="subStart"/><serviceTask id="subWork" camunda:class="record"/>
				<intermediateCatchEvent id="wait">`+ioMapping(`<camunda:inputParameter name="waiting">yes</camunda:inputParameter>
					<camunda:outputParameter name="step">${waiting == 'yes' ? 10 : 0}</camunda:outputParameter>`)+`<messageEventDefinition messageRef="m"/></intermediateCatchEvent>
				<endEvent id="subEnd"/>`+enginetest.Chain("subStart", "subWork", "wait", "subEnd")+`</subProcess>
			<intermediateThrowEvent id="throw">`+ioMapping(`<camunda:outputParameter name="thrown">${fromSub}</camunda:outputParameter>`)+`</intermediateThrowEvent>
			<endEvent id="end">`+ioMapping(`<camunda:inputParameter name="last">${thrown}</camunda:inputParameter>`,
			`<camunda:executionListener event="end" class="record"/>`)+`</endEvent>`,
			enginetest.Chain("start", "sub", "throw", "end"))))
		pi := e.Start("p", map[string]any{"v": 1})
		wantEq(t, "the subprocess's start listener saw", rec.at("sub:start"), map[string]any{"v": int64(1), "inner": int64(1)})
		wantEq(t, "its content saw", rec.at("subWork:call"), map[string]any{"v": int64(1), "inner": int64(1)})
		// wait's scope runs in the subprocess's scope, which runs in sub's
		// input/output scope below the process instance.
		waits := e.ioScope(pi, "wait")
		if scope := e.treeRow(pi, e.treeRow(pi, waits.ParentID).ParentID); !scope.IsScope || scope.ParentID != pi {
			t.Errorf("sub's input/output scope %+v, want a scope below the process instance", scope)
		}
		if len(e.SubsOf(pi)) != 1 || e.SubsOf(pi)[0].ExecutionID != waits.ID {
			t.Errorf("the catch event's subscription %+v, want it on its own scope %s inside the subprocess", e.SubsOf(pi), waits.ID)
		}
		wantEq(t, "variables while waiting", e.VarsOf(pi), map[string]any{"v": int64(1)})
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "go", ProcessInstanceID: pi}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "the end event's listener saw", rec.at("end:end"), map[string]any{
			"v": int64(1), "step": int64(10), "fromSub": int64(11), "thrown": int64(11), "last": int64(11)})
		wantEq(t, "state", e.State(pi), "COMPLETED")
		wantEq(t, "variables at the end", e.VarsOf(pi), map[string]any{"v": int64(1), "step": int64(10), "fromSub": int64(11), "thrown": int64(11)})
		wantEq(t, "path", e.Path(pi), "start,sub,subStart,subWork,wait,subEnd,throw,end")
	})
}

// The events behind an event-based gateway map when they fire; starting
// before an activity inside a subprocess enters the subprocess's mappings.
func TestInputOutputEventGatewayAndStartBefore(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("gate", enginetest.Defs(`<message id="m" name="go"/>`, enginetest.Executable("gate", `<startEvent id="start"/><eventBasedGateway id="gw"/>
			<intermediateCatchEvent id="msg">`+ioMapping(`<camunda:inputParameter name="local">${v * 3}</camunda:inputParameter>
				<camunda:outputParameter name="got">${local}</camunda:outputParameter>`)+`<messageEventDefinition messageRef="m"/></intermediateCatchEvent>
			<intermediateCatchEvent id="late"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
			<userTask id="after"/><userTask id="timedOut"/>`, enginetest.Chain("start", "gw", "msg", "after"), enginetest.Chain("gw", "late", "timedOut"))))
		pi := e.Start("gate", map[string]any{"v": 2})
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "go", ProcessInstanceID: pi}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"v": int64(2), "got": int64(6)})

		rec := &varsSeen{}
		e.Eng.RegisterDelegate("record", rec)
		e.Deploy("nested", enginetest.Defs(enginetest.Executable("nested", `<startEvent id="start"/>
			<subProcess id="sub">`+ioMapping(`<camunda:inputParameter name="inner">${v}</camunda:inputParameter>
				<camunda:outputParameter name="fromSub">${inner}</camunda:outputParameter>`)+`
				<startEvent id="subStart"/><serviceTask id="subWork" camunda:class="record"/><userTask id="subWait"/><endEvent id="subEnd"/>`+
			enginetest.Chain("subStart", "subWork", "subWait", "subEnd")+`</subProcess><userTask id="after"/>`, enginetest.Chain("start", "sub", "after"))))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "nested", StartBefore: "subWork", Variables: map[string]any{"v": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "the subprocess's content saw", rec.at("subWork:call"), map[string]any{"v": "x", "inner": "x"})
		e.Complete(pi, "subWait", nil)
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"v": "x", "fromSub": "x"})
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}
