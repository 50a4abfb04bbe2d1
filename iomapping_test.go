package bpmnlite_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite"
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
	e.t.Helper()
	xs := e.executions(pi, activity)
	if len(xs) != 2 {
		e.t.Fatalf("executions at %s: %s, want the waiting path and the activity's scope", activity, accExecList(xs))
	}
	for _, x := range xs {
		for _, y := range xs {
			if x.IsScope && x.ParentID == y.ID && !y.IsActive {
				return x
			}
		}
	}
	e.t.Fatalf("executions at %s: %s, want a scope execution below an inactive one", activity, accExecList(xs))
	return nil
}

// Constants, expressions, null, nested lists and maps as inputs; the
// activity's listeners and delegates see them as local variables, the
// process does not; outputs read them and what the activity set, after the
// end listeners, and land outside.
func TestInputOutputTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &varsSeen{}
		e.eng.RegisterDelegate("record", rec)
		listeners := `<camunda:executionListener event="start" class="record"/><camunda:executionListener event="end" class="record"/>`
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
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
			xmlChain("start", "work", "after", "wait"))))
		pi := e.start("p", map[string]any{"name": "Ada", "a": 1, "keyName": "dyn", "counter": 100})

		scope := e.ioScope(pi, "work")
		if scope.ParentID != pi {
			t.Errorf("scope of work below %s, want the process instance %s", scope.ParentID, pi)
		}
		tasks := e.tasks(pi)
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
		wantEq(t, "variables in the scope", e.varsOf(scope.ID), inScope)
		wantEq(t, "process variables", e.varsOf(pi), process)
		wantEq(t, "start listener saw", rec.at("work:start"), inScope)
		if h := e.historyAt(pi, "work"); len(h) != 1 || h[0].ExecutionID != scope.ID || h[0].ParentActivityInstanceID != pi {
			t.Errorf("history of work %+v, want one on the scope, inside the process instance", h)
		}

		// Completion variables go where setVariable puts them: on the
		// process instance; the end listener still sees the inputs and
		// not yet the outputs.
		e.complete(pi, "work", map[string]any{"result": 21})
		endSaw := rec.at("work:end")
		if endSaw["text"] != "Hello Ada" || endSaw["greeting"] != nil || endSaw["counter"] != int64(100) {
			t.Errorf("end listener saw %v, want the inputs and no outputs yet", endSaw)
		}
		want := map[string]any{"name": "Ada", "a": int64(1), "keyName": "dyn", "counter": int64(102), "result": int64(21),
			"greeting": "Hello Ada!", "doubled": int64(42), "pair": []any{true, int64(10)}}
		wantEq(t, "process variables after work", e.varsOf(pi), want)
		wantEq(t, "the next delegate saw", rec.at("after:call"), want)
		if xs := e.executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %s, want the process instance alone", accExecList(xs))
		}
	})
}

// A failing input or output expression fails the command with an error
// naming the activity and the parameter: a start stores nothing, a job
// keeps its retries' worth of failures and changes no variable.
func TestInputOutputExpressionFails(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("in", xmlDefs(xmlProcess("in", `<startEvent id="start"/>
			<userTask id="work">`+ioMapping(`<camunda:inputParameter name="bad">${missing.field}</camunda:inputParameter>`)+`</userTask>`,
			xmlChain("start", "work"))))
		_, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "in"})
		var ae *bpmnlite.ActivityError
		if !errors.As(err, &ae) || ae.ActivityID != "work" || !strings.Contains(err.Error(), "camunda:inputParameter 'bad'") {
			t.Fatalf("start: %v, want an error at work naming the parameter", err)
		}
		e.nothingStored("in")

		e.eng.RegisterDelegate("noop", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.deploy("out", xmlDefs(xmlProcess("out", `<startEvent id="start"/>
			<serviceTask id="work" camunda:class="noop" camunda:asyncBefore="true">`+ioMapping(`
				<camunda:inputParameter name="local">1</camunda:inputParameter>
				<camunda:outputParameter name="ok">${local}</camunda:outputParameter>
				<camunda:outputParameter name="bad">${local.nope()}</camunda:outputParameter>`)+`</serviceTask>
			<userTask id="wait"/>`, xmlChain("start", "work", "wait"))))
		pi := e.start("out", map[string]any{"v": 1})
		j := e.oneJob(pi)
		e.failJob(j.ID)
		j = e.oneJob(pi)
		if j.Retries != 2 || !strings.Contains(j.ExceptionMessage, "camunda:outputParameter 'bad'") || j.FailedActivityID != "work" {
			t.Errorf("job after a failed run: retries %d, failed at %q, message %q", j.Retries, j.FailedActivityID, j.ExceptionMessage)
		}
		wantEq(t, "variables after the failure", e.varsOf(pi), map[string]any{"v": int64(1)})
		if xs := e.executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %s, want the process instance alone, its scope rolled back", accExecList(xs))
		}
	})
}

// Deploying a script value or mappings where Camunda forbids them is an
// error naming the element and its line:column.
func TestInputOutputDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.eng.Deploy(e.ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(xmlDefs(xmlProcess("bad",
			`<startEvent id="start">`+ioMapping(`<camunda:inputParameter name="a">1</camunda:inputParameter>`)+`</startEvent>
<task id="calc">`+ioMapping(`<camunda:inputParameter name="a"><camunda:script scriptFormat="groovy">1 + 1</camunda:script></camunda:inputParameter>`)+`</task>`,
			xmlChain("start", "calc"))))}}})
		var pe *bpmnlite.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("deploy: %v, want a ParseError", err)
		}
		for _, want := range []string{
			"bad.bpmn:1:256: startEvent 'start': camunda:inputOutput is not supported on element type 'startEvent'",
			"bad.bpmn:2:90: task 'calc': camunda:inputParameter 'a': camunda:script is not supported, bpmnlite runs no scripts: write the value as an expression",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("deploy error lacks %q:\n%v", want, err)
			}
		}
	})
}
