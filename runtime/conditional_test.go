package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// conditionalWait is process id: an intermediate conditional event with
// the definition's attributes attrs and condition cond, then a user task.
func conditionalWait(id, attrs, cond string) string {
	return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="wait" />
    <intermediateCatchEvent id="wait"><conditionalEventDefinition `+attrs+`><condition>`+cond+`</condition></conditionalEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="after" />
    <userTask id="after" />`)
}

func (e *env) setVars(pi string, vars map[string]any) {
	e.T.Helper()
	if err := e.Eng.SetVariables(e.Ctx, pi, vars); err != nil {
		e.T.Fatalf("set variables %v on %s: %v", vars, pi, err)
	}
}

// An intermediate conditional event passes at once when its condition
// holds as it is reached, and otherwise waits (a "conditional" event
// subscription) until a variable change makes it hold.
func TestConditionalIntermediateEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("cond", conditionalWait("cond", "", "${ready}"))
		waiting := e.Start("cond", map[string]any{"ready": false})
		if got := e.TaskKeys(waiting); got != "" {
			t.Fatalf("waiting at %q before the condition holds", got)
		}
		if subs := e.SubsOf(waiting); len(subs) != 1 || subs[0].EventType != "conditional" || subs[0].ActivityID != "wait" {
			t.Fatalf("subscriptions %+v, want one conditional at wait", subs)
		}
		e.setVars(waiting, map[string]any{"other": 1})
		if got := e.TaskKeys(waiting); got != "" {
			t.Fatalf("moved on at %q while the condition is false", got)
		}
		e.setVars(waiting, map[string]any{"ready": true})
		if got := e.TaskKeys(waiting); got != "after" {
			t.Fatalf("at %q after the condition came to hold, want after", got)
		}
		if subs := e.SubsOf(waiting); len(subs) != 0 {
			t.Fatalf("subscriptions left: %+v", subs)
		}
		ready := e.Start("cond", map[string]any{"ready": true})
		if got := e.TaskKeys(ready); got != "after" {
			t.Fatalf("a condition holding on arrival: at %q, want after", got)
		}
		if path := e.Path(ready); !strings.Contains(path, "start,wait,after") {
			t.Fatalf("path %q", path)
		}
	})
}

// camunda:variableName and camunda:variableEvents limit the changes that
// evaluate a condition.
func TestConditionalVariableFilters(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("named", conditionalWait("named", `camunda:variableName="trigger"`, "${approved}"))
		pi := e.Start("named", map[string]any{"approved": false, "trigger": 0})
		e.setVars(pi, map[string]any{"approved": true})
		if got := e.TaskKeys(pi); got != "" {
			t.Fatalf("a change of another variable evaluated the condition: at %q", got)
		}
		e.setVars(pi, map[string]any{"trigger": 1})
		if got := e.TaskKeys(pi); got != "after" {
			t.Fatalf("after a change of the named variable at %q, want after", got)
		}

		e.Deploy("created", conditionalWait("created", `camunda:variableEvents="create"`, "${x == 1}"))
		pi = e.Start("created", map[string]any{"x": 0})
		e.setVars(pi, map[string]any{"x": 1})
		if got := e.TaskKeys(pi); got != "" {
			t.Fatalf("an update evaluated a condition listening to creations: at %q", got)
		}
		e.setVars(pi, map[string]any{"y": 1})
		if got := e.TaskKeys(pi); got != "after" {
			t.Fatalf("after a new variable at %q, want after", got)
		}
	})
}

const conditionalBoundaries = enginetest.Header + `
  <process id="cb" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <userTask id="work" />
    <boundaryEvent id="cancelOn" attachedToRef="work"><conditionalEventDefinition><condition>${cancel}</condition></conditionalEventDefinition></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="cancelOn" targetRef="cancelled" />
    <userTask id="cancelled" />
    <boundaryEvent id="remindOn" attachedToRef="work" cancelActivity="false"><conditionalEventDefinition camunda:variableName="remind"><condition>${remind}</condition></conditionalEventDefinition></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="remindOn" targetRef="note" />
    <userTask id="note" />
    <sequenceFlow id="f4" sourceRef="work" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`

// Conditional boundary events: evaluated when the activity starts and at
// each change of a variable they see; a non-interrupting one fires at each
// change that finds its condition true, an interrupting one cancels the
// activity.
func TestConditionalBoundaryEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("cb", conditionalBoundaries)
		pi := e.Start("cb", map[string]any{"cancel": false, "remind": false})
		if got := e.TaskKeys(pi); got != "work" {
			t.Fatalf("waiting at %q", got)
		}
		for range 2 {
			e.setVars(pi, map[string]any{"remind": true})
		}
		if got := e.TaskKeys(pi); got != "note,note,work" {
			t.Fatalf("after two reminders waiting at %q, want note,note,work", got)
		}
		e.setVars(pi, map[string]any{"cancel": true})
		if got := e.TaskKeys(pi); got != "cancelled,note,note" {
			t.Fatalf("after the cancel waiting at %q", got)
		}
		if h := e.HistoryAt(pi, "work"); len(h) != 1 || h[0].EndTime == nil || !h[0].Canceled {
			t.Fatalf("history of the interrupted task: %+v", h)
		}
		e.setVars(pi, map[string]any{"remind": true})
		if got := e.TaskKeys(pi); got != "cancelled,note,note" {
			t.Fatalf("a boundary event of an ended activity fired: %q", got)
		}
		if subs := e.SubsOf(pi); len(subs) != 0 {
			t.Fatalf("subscriptions left: %+v", subs)
		}

		// A condition already true when the activity starts fires then.
		at := e.Start("cb", map[string]any{"cancel": true, "remind": false})
		if got := e.TaskKeys(at); got != "cancelled" {
			t.Fatalf("a condition true at the activity's start: waiting at %q, want cancelled", got)
		}
	})
}

// Conditional start events of event subprocesses: armed while their scope
// runs and evaluated at each visible variable change; a non-interrupting
// one runs beside the scope's path at every change that finds its
// condition true, an interrupting one takes the scope over.
func TestConditionalEventSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		cond := func(c string) string {
			return `<conditionalEventDefinition><condition>` + c + `</condition></conditionalEventDefinition>`
		}
		e.Deploy("p", espProcess(espDef("onRemind", false, cond("${remind}"), "note"), espDef("onCancel", true, cond("${cancel}"), "cancelled")))
		pi := e.Start("p", map[string]any{"remind": false, "cancel": false})
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
		for range 2 {
			e.setVars(pi, map[string]any{"remind": true})
		}
		wantEq(t, "tasks after two reminders", e.TaskKeys(pi), "note,note,work")
		e.setVars(pi, map[string]any{"cancel": true})
		wantEq(t, "tasks after the cancel", e.TaskKeys(pi), "cancelled")
		wantEq(t, "work canceled", e.canceled(pi, "work"), []bool{true})
		e.Complete(pi, "cancelled", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
		if subs := e.SubsOf(pi); len(subs) != 0 {
			t.Fatalf("subscriptions left: %+v", subs)
		}
	})
}

// conditionalStart is process id starting on cond, then waiting at a user
// task.
func conditionalStart(id, cond string) string {
	return enginetest.Process(id, `
    <startEvent id="start"><conditionalEventDefinition><condition>`+cond+`</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" />`)
}

// Conditional start events of processes: EvaluateStartConditions starts
// every latest definition whose condition holds on the given variables, as
// Camunda's condition evaluation does; a new version replaces the old one's
// event, suspended definitions are skipped, none deployed is an error.
func TestConditionalStartEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		if _, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{}); !errors.Is(err, bpmnlite.ErrNoConditionalStart) {
			t.Fatalf("nothing deployed: %v, want ErrNoConditionalStart", err)
		}
		e.Deploy("large", conditionalStart("large", "${amount > 100}"))
		e.Deploy("small", conditionalStart("small", "${amount le 100}"))
		large := e.Deploy("large", conditionalStart("large", "${amount > 1000}")) // version 2 replaces version 1
		started, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"amount": 500}})
		if err != nil || len(started) != 0 {
			t.Fatalf("amount 500 started %v (%v): version 1 of large still listens", started, err)
		}
		started, err = e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"amount": 50}, BusinessKey: "order-1"})
		if err != nil || len(started) != 1 {
			t.Fatalf("amount 50 started %v (%v), want one instance of small", started, err)
		}
		in, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: started[0]})
		if err != nil || len(in) != 1 || in[0].ProcessDefinitionKey != "small" || in[0].BusinessKey != "order-1" {
			t.Fatalf("started %+v (%v)", in, err)
		}
		wantEq(t, "variables", e.VarsOf(started[0])["amount"], int64(50))
		wantEq(t, "tasks", e.TaskKeys(started[0]), "review")

		started, err = e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"amount": 5000}})
		if err != nil || len(started) != 1 {
			t.Fatalf("amount 5000 started %v (%v), want one instance of large", started, err)
		}
		defID := large.Definitions[0].ID
		if in, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: started[0]}); len(in) != 1 || in[0].ProcessDefinitionID != defID {
			t.Fatalf("started %+v, want version 2 of large (%s)", in, defID)
		}
		if err := e.Eng.SuspendProcessDefinition(e.Ctx, defID, false); err != nil {
			t.Fatal(err)
		}
		started, err = e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"amount": 5000}, ProcessDefinitionID: defID})
		if err != nil || len(started) != 0 {
			t.Fatalf("a suspended definition started %v (%v)", started, err)
		}
		// Camunda's testStartInstanceWithMultipleSubscriptionsWithoutProvidingAllVariables:
		// a condition on a variable not given does not hold.
		if started, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"other": 1}}); err != nil || len(started) != 0 {
			t.Fatalf("a condition on a missing variable: started %v (%v), want none and no error", started, err)
		}
	})
}

// Unknown names. Camunda evaluates conditional events with a "try": a
// condition that reads a variable not set yet does not hold (it is not an
// error), so a process can wait for a variable its start does not set.
// Other failures stay errors, and sequence-flow and completion conditions
// keep failing on unknown names.

// TestIntermediateConditionalEventUnsetVariable: the intermediate event
// waits for a variable the start does not set.
func TestIntermediateConditionalEventUnsetVariable(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("cond", conditionalWait("cond", "", "${variable == 1}"))
		pi := e.Start("cond", nil)
		wantEq(t, "tasks before the variable is set", e.TaskKeys(pi), "")
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ActivityID != "wait" {
			t.Fatalf("subscriptions %+v, want one at wait", subs)
		}
		e.setVars(pi, map[string]any{"other": 1})
		wantEq(t, "tasks after another variable is set", e.TaskKeys(pi), "")
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "tasks after the variable is set", e.TaskKeys(pi), "after")
	})
}

// conditionalBoundaryModel is the model of Camunda's conditional boundary
// tests: start → before (a user task) → task → afterTask (a user task) →
// end, where task is the given activity (id "task") with a conditional
// boundary event on cond leading to the user task afterCondition. flowIn
// is the content of the flow from before to task (listeners).
func conditionalBoundaryModel(task string, interrupting bool, cond, flowIn string) string {
	return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="before"/>`, task,
		`<userTask id="afterTask"/><endEvent id="end"/>`,
		fmt.Sprintf(`<boundaryEvent id="onCondition" attachedToRef="task" cancelActivity="%v"><conditionalEventDefinition><condition>%s</condition></conditionalEventDefinition></boundaryEvent>`, interrupting, cond),
		`<userTask id="afterCondition"/><endEvent id="conditionEnd"/>`,
		enginetest.Chain("start", "before"), `<sequenceFlow id="before-task" sourceRef="before" targetRef="task">`+flowIn+`</sequenceFlow>`,
		enginetest.Chain("task", "afterTask", "end"), enginetest.Chain("onCondition", "afterCondition", "conditionEnd")))
}

// finish completes pi's open tasks until none is left and checks that pi
// ended without subscriptions, as Camunda's conditional tests do after each.
func (e *env) finish(pi string) {
	e.T.Helper()
	for range 10 {
		ts := e.Tasks(pi)
		if len(ts) == 0 {
			break
		}
		if err := e.Eng.CompleteTask(e.Ctx, ts[0].ID, nil); err != nil {
			e.T.Fatalf("complete %s: %v", ts[0].TaskDefinitionKey, err)
		}
	}
	wantEq(e.T, "state after the tasks are completed", e.State(pi), bpmnlite.StateCompleted)
	if subs := e.SubsOf(pi); len(subs) != 0 {
		e.T.Fatalf("subscriptions left: %+v", subs)
	}
}

// boundaryUnsetVariable: a boundary event waits for a variable the start
// does not set; a change of another one leaves it waiting
// (testWrongVariableCondition).
func boundaryUnsetVariable(t *testing.T, interrupting bool, want string) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", conditionalBoundaryModel(`<userTask id="task"/>`, interrupting, "${variable == 1}", ""))
		pi := e.Start("p", nil)
		e.Complete(pi, "before", nil)
		wantEq(t, "tasks before the variable is set", e.TaskKeys(pi), "task")
		e.setVars(pi, map[string]any{"variable1": 1})
		wantEq(t, "tasks after another variable is set", e.TaskKeys(pi), "task")
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "tasks after the variable is set", e.TaskKeys(pi), want)
		e.finish(pi)
	})
}

func TestBoundaryConditionalEventUnsetVariable(t *testing.T) {
	boundaryUnsetVariable(t, true, "afterCondition")
}

func TestNonInterruptingBoundaryConditionalEventUnsetVariable(t *testing.T) {
	boundaryUnsetVariable(t, false, "afterCondition,task")
}

// eventSubprocessUnsetVariable: an event subprocess of the process and
// one of a subprocess wait for a variable the start does not set.
func eventSubprocessUnsetVariable(t *testing.T, interrupting bool, wantProcess, wantSub string) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		cond := `<conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition>`
		e.Deploy("p", espProcess(espDef("onCondition", interrupting, cond, "afterCondition")))
		pi := e.Start("p", nil)
		wantEq(t, "process level: tasks before the variable is set", e.TaskKeys(pi), "work")
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "process level: tasks after the variable is set", e.TaskKeys(pi), wantProcess)
		e.finish(pi)

		e.Deploy("s", strings.ReplaceAll(espSubprocess(espDef("onCondition", interrupting, cond, "afterCondition")), `id="p"`, `id="s"`))
		pi = e.Start("s", nil)
		wantEq(t, "subprocess level: tasks before the variable is set", e.TaskKeys(pi), "work")
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "subprocess level: tasks after the variable is set", e.TaskKeys(pi), wantSub)
		e.finish(pi)
	})
}

func TestEventSubProcessConditionalStartUnsetVariable(t *testing.T) {
	eventSubprocessUnsetVariable(t, true, "afterCondition", "afterCondition")
}

func TestNonInterruptingEventSubProcessConditionalStartUnsetVariable(t *testing.T) {
	eventSubprocessUnsetVariable(t, false, "afterCondition,work", "afterCondition,work")
}

// TestConditionalStartEventUnsetVariable: a start condition on a variable
// the request does not give does not hold
// (testStartInstanceWithMultipleSubscriptionsWithoutProvidingAllVariables);
// one listening to camunda:variableName needs that variable in the request
// (testStartInstanceWithVariableName, ...NotFullfilled).
func TestConditionalStartEventUnsetVariable(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("onFoo", conditionalStart("onFoo", "${foo == 1}"))
		e.Deploy("onBar", conditionalStart("onBar", "${bar}"))
		e.Deploy("named", strings.Replace(conditionalStart("named", "${true}"), "<conditionalEventDefinition>", `<conditionalEventDefinition camunda:variableName="foo">`, 1))
		evaluate := func(vars map[string]any) string {
			t.Helper()
			started, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: vars})
			if err != nil {
				t.Fatalf("evaluate with %v: %v", vars, err)
			}
			var keys []string
			for _, id := range started {
				keys = append(keys, e.instanceOf(id).ProcessDefinitionKey)
			}
			slices.Sort(keys)
			return strings.Join(keys, ",")
		}
		wantEq(t, "started with foo only", evaluate(map[string]any{"foo": 1}), "named,onFoo")
		wantEq(t, "started without variables", evaluate(nil), "")
		wantEq(t, "started with bar only", evaluate(map[string]any{"bar": true}), "onBar")
	})
}

// Only a name or property that is not found counts as false: a condition
// whose result is not a boolean, or is null, or that calls an unknown
// function, fails the command as Camunda's does
// (UelExpressionCondition.evaluate).
func TestConditionalEventConditionErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("cond", conditionalWait("cond", "", "${variable}"))
		for _, tc := range []struct {
			value any
			want  string
		}{{int64(1), "want a boolean"}, {nil, "want a boolean"}, {"true", "want a boolean"}} {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "cond", Variables: map[string]any{"variable": tc.value}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "wait") {
				t.Errorf("variable %#v: %v, want an error at wait saying %q", tc.value, err, tc.want)
			}
		}
		// A later change that makes the condition fail fails that command.
		pi := e.Start("cond", map[string]any{"variable": false})
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"variable": 2}); err == nil || !strings.Contains(err.Error(), "want a boolean") {
			t.Errorf("set a non-boolean: %v, want an error", err)
		}
		wantEq(t, "variable after the failed command", e.VarsOf(pi)["variable"], false)

		// A function that is not found fails (JUEL cannot resolve it).
		e.Deploy("fn", conditionalWait("fn", "", "${missing()}"))
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "fn"}); err == nil || !strings.Contains(err.Error(), `unknown function "missing"`) {
			t.Errorf("a condition calling an unknown function: %v, want an error", err)
		}

		// A property a bean does not have is "not found", like a name.
		e.Eng.RegisterBean("settings", struct{ Open bool }{})
		e.Deploy("bean", conditionalWait("bean", "", "${settings.ready}"))
		pi = e.Start("bean", nil)
		wantEq(t, "tasks while the property is not found", e.TaskKeys(pi), "")
	})
}

// Sequence-flow and completion conditions keep failing on an unknown name
// (Camunda evaluates them without the try), also in a process with
// conditional events.
func TestConditionUnknownNameOutsideConditionalEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("flow", enginetest.Defs(enginetest.Executable("flow", `<startEvent id="start"/><intermediateCatchEvent id="wait"><conditionalEventDefinition><condition>${go == true}</condition></conditionalEventDefinition></intermediateCatchEvent>
			<exclusiveGateway id="decide"/><userTask id="a"/><userTask id="b"/>`, enginetest.Chain("start", "wait", "decide"),
			enginetest.Cond("toA", "decide", "a", "${x == 1}"), enginetest.Cond("toB", "decide", "b", "${x == 2}"))))
		pi := e.Start("flow", nil)
		err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"go": true})
		if err == nil || !strings.Contains(err.Error(), "sequenceFlow 'toA'") || !strings.Contains(err.Error(), `unknown name "x"`) {
			t.Errorf("a flow condition on an unknown name: %v, want an error naming sequenceFlow 'toA' and x", err)
		}

		e.Deploy("mi", enginetest.Defs(enginetest.Executable("mi", `<startEvent id="start"/><userTask id="review"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality>
			<completionCondition>${enough}</completionCondition></multiInstanceLoopCharacteristics></userTask>
			<boundaryEvent id="onCancel" attachedToRef="review"><conditionalEventDefinition><condition>${cancel}</condition></conditionalEventDefinition></boundaryEvent><endEvent id="end"/>`,
			enginetest.Chain("start", "review", "end"), enginetest.Chain("onCancel", "end"))))
		pi = e.Start("mi", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "review,review")
		ts := e.Tasks(pi)
		if err := e.Eng.CompleteTask(e.Ctx, ts[0].ID, nil); err == nil || !strings.Contains(err.Error(), `unknown name "enough"`) {
			t.Errorf("a completion condition on an unknown name: %v, want an error naming enough", err)
		}
	})
}

// setVariable sets the variable Camunda's conditional tests wait for.
const setVariable = `${execution.setVariable('variable', 1)}`

// setVariableListener is an execution listener for event that sets it.
func setVariableListener(event string) string {
	return `<extensionElements><camunda:executionListener event="` + event + `" expression="` + setVariable + `"/></extensionElements>`
}

// bothKinds runs f as a subtest per kind of conditional event, named as
// Camunda's tests are: name for the interrupting one, NonInterrupting+name
// for the other; e is bound to the subtest.
func (e *env) bothKinds(t *testing.T, name string, f func(t *testing.T, e *env, interrupting bool)) {
	for _, interrupting := range []bool{true, false} {
		sub := name
		if !interrupting {
			sub = "NonInterrupting" + name
		}
		t.Run(sub, func(t *testing.T) {
			f(t, &env{e.For(t)}, interrupting)
		})
	}
}

// A variable set inside the activity that carries a conditional boundary
// event triggers it, as in Camunda's BoundaryConditionalEventTest: Camunda
// evaluates the event as the activity's behaviour starts (after input
// mappings and start listeners) and again as the activity leaves (after
// its delegate ran), so the route decides. A variable set by an end
// listener or an output mapping comes after the event stopped listening.
func TestBoundaryConditionalEventSetVariableInActivity(t *testing.T) {
	routes := []struct {
		name, task, flowIn string
		complete           bool   // task is a user task the test completes
		fires              bool   // the event fires
		after              string // the tasks open after a non-interrupting event
	}{
		{name: "SetVariableInDelegate", task: `<serviceTask id="task" camunda:class="setVariable"/>`, fires: true, after: "afterCondition,afterTask"},
		{name: "SetVariableLocalInDelegate", task: `<serviceTask id="task" camunda:class="setVariableLocal"/>`, fires: true, after: "afterCondition,afterTask"},
		{name: "SetVariableInExpression", task: `<serviceTask id="task" camunda:expression="` + setVariable + `"/>`, fires: true, after: "afterCondition,afterTask"},
		{name: "SetVariableInInputMapping", task: `<serviceTask id="task" camunda:expression="${true}"><extensionElements><camunda:inputOutput>
			<camunda:inputParameter name="variable">${1}</camunda:inputParameter></camunda:inputOutput></extensionElements></serviceTask>`, fires: true, after: "afterCondition,afterTask"},
		{name: "SetVariableInStartListener", task: `<userTask id="task">` + setVariableListener("start") + `</userTask>`, fires: true, after: "afterCondition,task"},
		{name: "SetVariableInStartListenerOfServiceTask", task: `<serviceTask id="task" camunda:expression="${true}">` + setVariableListener("start") + `</serviceTask>`, fires: true, after: "afterCondition,afterTask"},
		{name: "SetVariableInTakeListener", task: `<userTask id="task"/>`, flowIn: setVariableListener("take"), fires: true, after: "afterCondition,task"},
		{name: "SetVariableInEndListener", task: `<userTask id="task">` + setVariableListener("end") + `</userTask>`, complete: true},
		{name: "SetVariableInOutputMapping", task: `<userTask id="task"><extensionElements><camunda:inputOutput>
			<camunda:outputParameter name="variable">${1}</camunda:outputParameter></camunda:inputOutput></extensionElements></userTask>`, complete: true},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("setVariable", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return ex.SetVariable("variable", 1)
		}))
		e.Eng.RegisterDelegate("setVariableLocal", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return ex.SetVariableLocal("variable", 1)
		}))
		for _, r := range routes {
			e.bothKinds(t, r.name, func(t *testing.T, e *env, interrupting bool) {
				e.Deploy("p", conditionalBoundaryModel(r.task, interrupting, "${variable == 1}", r.flowIn))
				pi := e.Start("p", nil)
				e.Complete(pi, "before", nil)
				if r.complete {
					e.Complete(pi, "task", nil)
				}
				want := "afterTask"
				switch {
				case r.fires && interrupting:
					want = "afterCondition"
				case r.fires:
					want = r.after
				case !r.complete:
					want = "task"
				}
				wantEq(t, "tasks", e.TaskKeys(pi), want)
				wantEq(t, "task canceled", e.canceled(pi, "task"), []bool{r.fires && interrupting})
				e.finish(pi)
			})
		}
	})
}

// Camunda's testParallelVariableCondition and
// testParallelSetVariableOnExecutionCondition: a variable local to the
// execution of one of two parallel tasks triggers that task's boundary
// event only; a variable of the process instance triggers both.
func TestBoundaryConditionalEventParallelVariableCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		boundary := func(task string) string {
			return `<userTask id="` + task + `"/><boundaryEvent id="on` + task + `" attachedToRef="` + task + `"><conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition></boundaryEvent>
				<userTask id="after` + task + `"/>` + enginetest.Chain("fork", task, "join") + enginetest.Chain("on"+task, "after"+task)
		}
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="join"/><endEvent id="end"/>`,
			boundary("A"), boundary("B"), enginetest.Chain("start", "fork"), enginetest.Chain("join", "end"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "A,B")
		var a *bpmnlite.Task
		for _, t := range e.Tasks(pi) {
			if t.TaskDefinitionKey == "A" {
				a = t
			}
		}
		if err := e.Eng.SetVariablesLocal(e.Ctx, a.ExecutionID, map[string]any{"variable": 1}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks after a local variable of A's execution", e.TaskKeys(pi), "B,afterA")
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ActivityID != "onB" {
			t.Fatalf("subscriptions %+v, want B's", subs)
		}
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "tasks after a variable of the instance", e.TaskKeys(pi), "afterA,afterB")
	})
}

// Camunda's UserTaskActivityBehavior leaves through its save point too:
// completing a task with variables that make its own interrupting boundary
// condition hold takes the boundary event instead of the outgoing flow.
func TestBoundaryConditionalEventCompletionVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", conditionalBoundaryModel(`<userTask id="task"/>`, true, "${variable == 1}", ""))
		pi := e.Start("p", nil)
		e.Complete(pi, "before", nil)
		e.Complete(pi, "task", map[string]any{"variable": 1})
		wantEq(t, "tasks", e.TaskKeys(pi), "afterCondition")
		wantEq(t, "task canceled", e.canceled(pi, "task"), []bool{true})
		e.finish(pi)
	})
}

// EventSubProcessStartConditionalEventTest.testSetVariableInDelegate and
// its non-interrupting twin: a delegate's variable starts the event
// subprocess as the service task leaves, before the path goes on (to the
// end, for the interrupting one).
func TestEventSubProcessConditionalStartSetVariableInDelegate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("setVariable", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return ex.SetVariable("variable", 1)
		}))
		cond := `<conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition>`
		for _, tc := range []struct {
			interrupting bool
			want         string
		}{{true, "afterCondition"}, {false, "afterCondition,afterService"}} {
			e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="before"/><serviceTask id="service" camunda:class="setVariable"/>
				<userTask id="afterService"/><endEvent id="end"/>`, enginetest.Chain("start", "before", "service", "afterService", "end"),
				espDef("onCondition", tc.interrupting, cond, "afterCondition"))))
			pi := e.Start("p", nil)
			e.Complete(pi, "before", nil)
			wantEq(t, fmt.Sprintf("interrupting %v: tasks", tc.interrupting), e.TaskKeys(pi), tc.want)
			e.finish(pi)
		}
	})
}

// MixedConditionalEventTest.testSetVariableOnInputMapping and its
// non-interrupting twin: a variable an input mapping sets is local to the
// activity: its boundary event sees it, an event subprocess of the process
// does not.
func TestMixedConditionalEventSetVariableOnInputMapping(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		cond := `<conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition>`
		task := `<userTask id="task"><extensionElements><camunda:inputOutput><camunda:inputParameter name="variable">${1}</camunda:inputParameter></camunda:inputOutput></extensionElements></userTask>`
		for _, tc := range []struct {
			interrupting bool
			want         string
		}{{true, "afterCondition"}, {false, "afterCondition,task"}} {
			model := conditionalBoundaryModel(task, tc.interrupting, "${variable == 1}", "")
			model = strings.Replace(model, "</process>", espDef("onStart", tc.interrupting, cond, "afterStart")+"</process>", 1)
			e.Deploy("p", model)
			pi := e.Start("p", nil)
			e.Complete(pi, "before", nil)
			wantEq(t, fmt.Sprintf("interrupting %v: tasks", tc.interrupting), e.TaskKeys(pi), tc.want)
			e.finish(pi)
		}
	})
}

// ConditionalEventTriggeredByExecutionListenerTest with its mixed model: a
// variable set by a start listener of the task, by a take listener of the
// flow into it or by an end listener of the task before it triggers the
// event subprocess of the process (older, so first) and the task's
// boundary event. The interrupting event subprocess takes the process
// over where Camunda dispatches the change: after the take or end
// listener, before the task starts; after the start listener, as the
// task's behaviour would start.
func TestConditionalEventTriggeredByExecutionListener(t *testing.T) {
	cond := `<conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition>`
	routes := []struct {
		name, task, before, flowIn string
		taskStarted                bool // the interrupting event subprocess cancels a started task
	}{
		{name: "SetVariableInStartListener", task: `<userTask id="task">` + setVariableListener("start") + `</userTask>`, taskStarted: true},
		{name: "SetVariableInTakeListener", task: `<userTask id="task"/>`, flowIn: setVariableListener("take")},
		{name: "SetVariableInEndListener", task: `<userTask id="task"/>`, before: `<userTask id="before">` + setVariableListener("end") + `</userTask>`},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, r := range routes {
			e.bothKinds(t, r.name, func(t *testing.T, e *env, interrupting bool) {
				model := conditionalBoundaryModel(r.task, interrupting, "${variable == 1}", r.flowIn)
				model = strings.Replace(model, "</process>", espDef("onStart", interrupting, cond, "afterStart")+"</process>", 1)
				if r.before != "" {
					model = strings.Replace(model, `<userTask id="before"/>`, r.before, 1)
				}
				e.Deploy("p", model)
				pi := e.Start("p", nil)
				e.Complete(pi, "before", nil)
				if !interrupting {
					wantEq(t, "tasks", e.TaskKeys(pi), "afterCondition,afterStart,task")
					e.finish(pi)
					return
				}
				wantEq(t, "tasks", e.TaskKeys(pi), "afterStart")
				var want []bool
				if r.taskStarted {
					want = []bool{true}
				}
				wantEq(t, "task canceled", e.canceled(pi, "task"), want)
				e.finish(pi)
			})
		}
	})
}

// IntermediateConditionalEventTest.testEventBasedGatewayWith2VarConditions
// and testEventBasedGatewayTrueCondition: the conditional events behind an
// event-based gateway are evaluated as it is reached (the first that holds
// wins) and at each change after; a variable not set yet holds none.
func TestIntermediateConditionalEventBasedGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		catch := func(id, cond string) string {
			return `<intermediateCatchEvent id="` + id + `"><conditionalEventDefinition><condition>` + cond + `</condition></conditionalEventDefinition></intermediateCatchEvent>`
		}
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><eventBasedGateway id="gw"/>`, catch("one", "${variable == 1}"), catch("two", "${variable == 2}"),
			`<userTask id="afterOne"/><userTask id="afterTwo"/>`, enginetest.Chain("start", "gw"), enginetest.Chain("gw", "one", "afterOne"), enginetest.Chain("gw", "two", "afterTwo"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks before the variable is set", e.TaskKeys(pi), "")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 2)
		e.setVars(pi, map[string]any{"variable": 2})
		wantEq(t, "tasks after variable 2", e.TaskKeys(pi), "afterTwo")
		wantEq(t, "subscriptions left", len(e.SubsOf(pi)), 0)

		pi = e.Start("p", map[string]any{"variable": 1})
		wantEq(t, "tasks with variable 1 on arrival", e.TaskKeys(pi), "afterOne")
		if path := e.Path(pi); !strings.Contains(path, "gw,one,afterOne") || strings.Contains(path, "two") {
			t.Fatalf("path %q", path)
		}
	})
}

// BoundaryConditionalEventTest's call activity cases: the called process
// sets the variable; a camunda:out mapping brings it to the calling
// activity, whose boundary event sees it as the activity leaves
// (testSetVariableInOutMappingOfCallActivity); without one it stays in the
// called instance (testSetVariableInInMappingOfCallActivity), and an
// output parameter maps it after the event stopped listening
// (testSetVariableInOutputMappingOfCallActivity).
func TestBoundaryConditionalEventSetVariableInCallActivity(t *testing.T) {
	routes := []struct {
		name, mapping string
		fires         bool
	}{
		{"SetVariableInOutMappingOfCallActivity", `<camunda:out source="variable" target="variable"/>`, true},
		{"SetVariableInInMappingOfCallActivity", `<camunda:in source="variable" target="variable"/>`, false},
		{"SetVariableInOutputMappingOfCallActivity", `<camunda:inputOutput><camunda:outputParameter name="variable">${1}</camunda:outputParameter></camunda:inputOutput>`, false},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("delegated", enginetest.Defs(enginetest.Executable("delegated", `<startEvent id="start"/><serviceTask id="set" camunda:expression="`+setVariable+`"/><endEvent id="end"/>`,
			enginetest.Chain("start", "set", "end"))))
		for _, r := range routes {
			e.bothKinds(t, r.name, func(t *testing.T, e *env, interrupting bool) {
				task := `<callActivity id="task" calledElement="delegated"><extensionElements>` + r.mapping + `</extensionElements></callActivity>`
				e.Deploy("p", conditionalBoundaryModel(task, interrupting, "${variable == 1}", ""))
				pi := e.Start("p", map[string]any{"variable": 0})
				e.Complete(pi, "before", nil)
				want := "afterTask"
				if r.fires && interrupting {
					want = "afterCondition"
				} else if r.fires {
					want = "afterCondition,afterTask"
				}
				wantEq(t, "tasks", e.TaskKeys(pi), want)
				e.finish(pi)
			})
		}
	})
}

// BoundaryConditionalEventTest.testSetVariableInMultiInstance: the
// variables of a multi-instance body are seen by its boundary event.
func TestBoundaryConditionalEventSetVariableInMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		task := `<userTask id="task"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>`
		e.Deploy("p", conditionalBoundaryModel(task, true, "${nrOfInstances == 3}", ""))
		pi := e.Start("p", nil)
		e.Complete(pi, "before", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "afterCondition")
		e.finish(pi)
	})
}

// Camunda evaluates a conditional event for each variable change it sees
// (each is a variable event of its own): a non-interrupting event fires
// once per change that finds its condition true
// (EventSubProcessStartConditionalEventTest.testNonInterruptingSetMultipleVariables),
// an interrupting one once (BoundaryConditionalEventTest.testSetMultipleVariables),
// and the variables a process starts with count as one evaluation, the
// event's first (testNonInterruptingVariableConditionWithHistory).
func TestConditionalEventEachVariableChange(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		cond := `<conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition>`
		e.Deploy("p", espProcess(espDef("onCondition", false, cond, "afterCondition")))
		pi := e.Start("p", nil)
		e.setVars(pi, map[string]any{"variable": 1, "variable1": 1})
		wantEq(t, "testNonInterruptingSetMultipleVariables: tasks", e.TaskKeys(pi), "afterCondition,afterCondition,work")
		e.finish(pi)

		pi = e.Start("p", map[string]any{"variable": 1, "donotloseme": "here"})
		wantEq(t, "testNonInterruptingVariableConditionWithHistory: tasks", e.TaskKeys(pi), "afterCondition,work")
		e.finish(pi)

		boundary := func(id, cond string) string {
			return `<boundaryEvent id="` + id + `" attachedToRef="task"><conditionalEventDefinition><condition>` + cond + `</condition></conditionalEventDefinition></boundaryEvent><userTask id="after` + id + `"/>` + enginetest.Chain(id, "after"+id)
		}
		e.Deploy("two", enginetest.Defs(enginetest.Executable("two", `<startEvent id="start"/><userTask id="task"/><endEvent id="end"/>`, enginetest.Chain("start", "task", "end"),
			boundary("event1", "${variable1 == 1}"), boundary("event2", "${variable2 == 1}"))))
		pi = e.Start("two", map[string]any{"variable1": 44, "variable2": 44})
		e.setVars(pi, map[string]any{"variable1": 1, "variable2": 1})
		if got := e.TaskKeys(pi); got != "afterevent1" && got != "afterevent2" {
			t.Fatalf("testSetMultipleVariables: tasks %q, want one of the events' tasks", got)
		}
		e.finish(pi)
	})
}

// Camunda's default evaluation (a wait evaluated as it is made) has no
// variable event, so camunda:variableName and camunda:variableEvents do
// not filter it; later changes are filtered.
func TestConditionalDefaultEvaluationIgnoresFilters(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		model := strings.Replace(conditionalBoundaryModel(`<userTask id="task"/>`, false, "${variable == 1}", ""),
			"<conditionalEventDefinition>", `<conditionalEventDefinition camunda:variableName="other" camunda:variableEvents="update">`, 1)
		e.Deploy("p", model)
		pi := e.Start("p", map[string]any{"variable": 1})
		e.Complete(pi, "before", nil)
		wantEq(t, "tasks after the default evaluation", e.TaskKeys(pi), "afterCondition,task")
		e.setVars(pi, map[string]any{"variable": 1})
		wantEq(t, "tasks after a change of another variable", e.TaskKeys(pi), "afterCondition,task")
		e.setVars(pi, map[string]any{"other": 1})
		wantEq(t, "tasks after other is created", e.TaskKeys(pi), "afterCondition,task")
		e.setVars(pi, map[string]any{"other": 2})
		wantEq(t, "tasks after other is updated", e.TaskKeys(pi), "afterCondition,afterCondition,task")
		e.finish(pi)
	})
}

// BoundaryConditionalEventTest.testSubProcessVariableCondition and
// testSubProcessSetVariableOnExecutionCondition: a boundary event of a
// subprocess sees a variable local to the execution of a task inside it,
// which is the subprocess's scope execution in Camunda, and one set on
// the process instance through that execution.
func TestBoundaryConditionalEventSubProcessVariableCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><subProcess id="sub"><startEvent id="subStart"/><userTask id="taskInSub"/><endEvent id="subEnd"/>`,
			enginetest.Chain("subStart", "taskInSub", "subEnd"), `</subProcess><endEvent id="end"/>
			<boundaryEvent id="onCondition" attachedToRef="sub"><conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition></boundaryEvent>
			<endEvent id="conditionEnd"/>`, enginetest.Chain("start", "sub", "end"), enginetest.Chain("onCondition", "conditionEnd"))))
		for _, local := range []bool{true, false} {
			pi := e.Start("p", nil)
			ts := e.Tasks(pi)
			if len(ts) != 1 {
				t.Fatalf("tasks %v", e.TaskKeys(pi))
			}
			set := e.Eng.SetVariables
			if local {
				set = e.Eng.SetVariablesLocal
			}
			if err := set(e.Ctx, ts[0].ExecutionID, map[string]any{"variable": 1}); err != nil {
				t.Fatal(err)
			}
			wantEq(t, fmt.Sprintf("local %v: state", local), e.State(pi), bpmnlite.StateCompleted)
			if path := e.Path(pi); !strings.Contains(path, "onCondition,conditionEnd") {
				t.Fatalf("local %v: path %q", local, path)
			}
		}
	})
}

// A delegate of the second instance of a parallel multi-instance service
// task sets the variable: the boundary event fires as that instance
// leaves, after the first one finished, and takes the whole activity.
func TestBoundaryConditionalEventMultiInstanceDelegate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("setOnSecond", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			if i, _, _ := ex.Variable("loopCounter"); i == int64(1) {
				return ex.SetVariable("variable", 1)
			}
			return nil
		}))
		for _, sequential := range []bool{false, true} {
			task := fmt.Sprintf(`<serviceTask id="task" camunda:class="setOnSecond"><multiInstanceLoopCharacteristics isSequential="%v"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></serviceTask>`, sequential)
			e.Deploy("p", conditionalBoundaryModel(task, true, "${variable == 1}", ""))
			pi := e.Start("p", nil)
			e.Complete(pi, "before", nil)
			wantEq(t, fmt.Sprintf("sequential %v: tasks", sequential), e.TaskKeys(pi), "afterCondition")
			e.finish(pi)
		}
	})
}
