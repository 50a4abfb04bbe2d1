package runtime_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// A compensation throw event runs the handlers of the completed activities
// of its scope, latest completion first, then goes on; with activityRef
// only that activity's.
func TestCompensationThrowEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("book", enginetest.Process("book", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="hotel" />`+enginetest.Compensable("hotel")+`
    <sequenceFlow id="f2" sourceRef="hotel" targetRef="flight" />`+enginetest.Compensable("flight")+`
    <sequenceFlow id="f3" sourceRef="flight" targetRef="undoAll" />
    <intermediateThrowEvent id="undoAll"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="undoAll" targetRef="review" />
    <userTask id="review" />`))
		pi := e.Start("book", nil)
		if got := r.String(); got != "hotel:call flight:call undoflight:call undohotel:call" {
			t.Fatalf("ran %q, want the handlers in reverse order of completion", got)
		}
		if got := e.TaskKeys(pi); got != "review" {
			t.Fatalf("after compensation waiting at %q, want review", got)
		}
		if subs := e.SubsOf(pi); len(subs) != 0 {
			t.Fatalf("subscriptions left: %+v", subs)
		}

		// activityRef compensates one activity; a compensation end event
		// ends the path once its handlers are done.
		e.Deploy("one", enginetest.Process("one", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="hotel" />`+enginetest.Compensable("hotel")+`
    <sequenceFlow id="f2" sourceRef="hotel" targetRef="flight" />`+enginetest.Compensable("flight")+`
    <sequenceFlow id="f3" sourceRef="flight" targetRef="undoHotel" />
    <endEvent id="undoHotel"><compensateEventDefinition activityRef="hotel" /></endEvent>`))
		r.Reset()
		pi = e.Start("one", nil)
		if got := r.String(); got != "hotel:call flight:call undohotel:call" {
			t.Fatalf("ran %q, want only the hotel's handler", got)
		}
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}
		if subs := e.SubsOf(pi); len(subs) != 0 {
			t.Fatalf("the flight's compensation outlived its instance: %+v", subs)
		}
	})
}

// A handler that waits (a user task) holds the thrower until it is done;
// what an instance kept survives a new version of its process.
func TestCompensationWaitsForHandlers(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("do", &harness.Recorder{})
		process := enginetest.Process("wait", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge" />
    <serviceTask id="charge" camunda:class="do" />
    <boundaryEvent id="compCharge" attachedToRef="charge"><compensateEventDefinition /></boundaryEvent>
    <userTask id="refund" isForCompensation="true" />
    <association id="a1" sourceRef="compCharge" targetRef="refund" />
    <sequenceFlow id="f2" sourceRef="charge" targetRef="decide" />
    <userTask id="decide" />
    <sequenceFlow id="f3" sourceRef="decide" targetRef="cancel" />
    <intermediateThrowEvent id="cancel"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="cancel" targetRef="done" />
    <userTask id="done" />`)
		e.Deploy("wait", process)
		pi := e.Start("wait", nil)
		e.Deploy("wait", process) // version 2 replaces version 1's start events only
		e.Complete(pi, "decide", nil)
		if got := e.TaskKeys(pi); got != "refund" {
			t.Fatalf("waiting at %q, want the refund handler", got)
		}
		e.Complete(pi, "refund", nil)
		if got := e.TaskKeys(pi); got != "done" {
			t.Fatalf("after the handler waiting at %q, want done", got)
		}
		if path := e.Path(pi); !strings.Contains(path, "charge") || !strings.Contains(path, "refund") || !strings.Contains(path, "cancel") {
			t.Fatalf("path %q", path)
		}
		// A deleted instance takes what it kept with it.
		deleted := e.Start("wait", nil)
		if subs := e.SubsOf(deleted); len(subs) != 1 || subs[0].EventType != "compensate" {
			t.Fatalf("kept: %+v, want the charge's compensation", subs)
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, deleted, "test"); err != nil {
			t.Fatal(err)
		}
		if subs := e.SubsOf(deleted); len(subs) != 0 {
			t.Fatalf("a deleted instance left %+v", subs)
		}
	})
}

// Compensation models Camunda refuses, and those bpmnlite does not run,
// are deployment errors naming the element and its line:column.
func TestCompensationDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct{ body, want string }{
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="t" /><serviceTask id="t" camunda:class="do" />
    <boundaryEvent id="b" attachedToRef="t"><compensateEventDefinition /></boundaryEvent>`, "needs an association to its compensation handler"},
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="t" /><serviceTask id="t" camunda:class="do" />
    <boundaryEvent id="b" attachedToRef="t"><compensateEventDefinition /></boundaryEvent>
    <serviceTask id="h" camunda:class="do" /><association id="a" sourceRef="b" targetRef="h" />`, `isForCompensation="true"`},
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="e" />
    <endEvent id="e"><compensateEventDefinition activityRef="nothing" /></endEvent>`, "activityRef 'nothing' names no activity"},
			// Camunda 7 starts a multi-instance handler without its loop.
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="t" /><serviceTask id="t" camunda:class="do" />
    <boundaryEvent id="b" attachedToRef="t"><compensateEventDefinition /></boundaryEvent>
    <serviceTask id="h" isForCompensation="true" camunda:class="do"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></serviceTask>
    <association id="a" sourceRef="b" targetRef="h" />`, `bad\.bpmn:4:5: serviceTask 'h': a multi-instance compensation handler is not supported`},
			// Camunda would run such a handler again on a second throw.
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="t" /><serviceTask id="t" camunda:class="do" />
    <boundaryEvent id="b" attachedToRef="t"><compensateEventDefinition /></boundaryEvent>
    <association id="a" sourceRef="b" targetRef="h" />
    <subProcess id="h" isForCompensation="true"><startEvent id="hs" /><sequenceFlow id="h1" sourceRef="hs" targetRef="u" />
      <serviceTask id="u" camunda:class="do" /><boundaryEvent id="ub" attachedToRef="u"><compensateEventDefinition /></boundaryEvent>
      <serviceTask id="uh" isForCompensation="true" camunda:class="do" /><association id="ua" sourceRef="ub" targetRef="uh" />
      <sequenceFlow id="h2" sourceRef="u" targetRef="he" /><endEvent id="he" /></subProcess>`,
				`bad\.bpmn:\d+:\d+: subProcess 'h': a compensation handler subprocess with compensation boundary events inside is not supported`},
			// Nor a compensation event subprocess keeping compensation inside.
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="sub" />
    <subProcess id="sub"><startEvent id="ss" /><sequenceFlow id="sf" sourceRef="ss" targetRef="se" /><endEvent id="se" />
      <subProcess id="esp" triggeredByEvent="true"><startEvent id="cs"><compensateEventDefinition /></startEvent>
        <sequenceFlow id="ef" sourceRef="cs" targetRef="u" /><serviceTask id="u" camunda:class="do" />
        <boundaryEvent id="ub" attachedToRef="u"><compensateEventDefinition /></boundaryEvent>
        <serviceTask id="uh" isForCompensation="true" camunda:class="do" /><association id="ua" sourceRef="ub" targetRef="uh" />
        <sequenceFlow id="eg" sourceRef="u" targetRef="ee" /><endEvent id="ee" /></subProcess>
    </subProcess>`, `bad\.bpmn:\d+:\d+: subProcess 'esp': a compensation handler subprocess with compensation boundary events inside is not supported`},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(enginetest.Process("bad", c.body))}}})
			if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Errorf("deploy: %v, want an error with %q", err, c.want)
			}
		}
	})
}

// Compensation thrown inside a subprocess compensates the activities of
// the subprocess only; what a completed subprocess kept goes with it.
func TestCompensationWithinSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("nested", enginetest.Process("nested", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="outer" />`+enginetest.Compensable("outer")+`
    <sequenceFlow id="f2" sourceRef="outer" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="inner" />`+enginetest.Compensable("inner")+`
      <sequenceFlow id="s2" sourceRef="inner" targetRef="undoInner" />
      <intermediateThrowEvent id="undoInner"><compensateEventDefinition /></intermediateThrowEvent>
      <sequenceFlow id="s3" sourceRef="undoInner" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <sequenceFlow id="f3" sourceRef="sub" targetRef="review" />
    <userTask id="review" />`))
		pi := e.Start("nested", nil)
		if got := r.String(); got != "outer:call inner:call undoinner:call" {
			t.Fatalf("ran %q: compensation inside the subprocess must not reach the outer task", got)
		}
		if got := e.TaskKeys(pi); got != "review" {
			t.Fatalf("waiting at %q", got)
		}
		subs := e.SubsOf(pi)
		if len(subs) != 1 || subs[0].EventType != "compensate" || subs[0].ActivityID != "outer" {
			t.Fatalf("kept for compensation: %+v, want the outer task's only", subs)
		}
	})
}

// Compensating a completed subprocess compensates the activities inside
// it, latest first; compensating the scope reaches them too, in the order
// they completed among the scope's own.
func TestCompensationOfCompletedSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		process := func(id, throw string) string {
			return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="outer" />`+enginetest.Compensable("outer")+`
    <sequenceFlow id="f2" sourceRef="outer" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="first" />`+enginetest.Compensable("first")+`
      <sequenceFlow id="s2" sourceRef="first" targetRef="second" />`+enginetest.Compensable("second")+`
      <sequenceFlow id="s3" sourceRef="second" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <sequenceFlow id="f3" sourceRef="sub" targetRef="undo" />
    <intermediateThrowEvent id="undo"><compensateEventDefinition `+throw+` /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="undo" targetRef="review" />
    <userTask id="review" />`)
		}
		e.Deploy("all", process("all", ""))
		pi := e.Start("all", nil)
		if got := r.String(); got != "outer:call first:call second:call undosecond:call undofirst:call undoouter:call" {
			t.Fatalf("ran %q", got)
		}
		if got := e.TaskKeys(pi); got != "review" {
			t.Fatalf("waiting at %q", got)
		}
		r.Reset()
		e.Deploy("bySub", process("bySub", `activityRef="sub"`))
		pi = e.Start("bySub", nil)
		if got := r.String(); got != "outer:call first:call second:call undosecond:call undofirst:call" {
			t.Fatalf("compensating the subprocess ran %q", got)
		}
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ActivityID != "outer" {
			t.Fatalf("kept: %+v, want the outer task's only", subs)
		}
	})
}

// An association written at process level links a compensation boundary
// event inside a subprocess to its handler there, as Camunda resolves
// associations across the process (Camunda Modeler writes them so).
func TestCompensationAssociationInOuterScope(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("outer", enginetest.Process("outer", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="hotel" />
      <serviceTask id="hotel" camunda:class="do" />
      <boundaryEvent id="compHotel" attachedToRef="hotel"><compensateEventDefinition /></boundaryEvent>
      <serviceTask id="undoHotel" isForCompensation="true" camunda:class="undo" />
      <sequenceFlow id="s2" sourceRef="hotel" targetRef="undoAll" />
      <intermediateThrowEvent id="undoAll"><compensateEventDefinition /></intermediateThrowEvent>
      <sequenceFlow id="s3" sourceRef="undoAll" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <association id="a1" sourceRef="compHotel" targetRef="undoHotel" />
    <sequenceFlow id="f2" sourceRef="sub" targetRef="review" />
    <userTask id="review" />`))
		pi := e.Start("outer", nil)
		if got := r.String(); got != "hotel:call undoHotel:call" {
			t.Fatalf("ran %q, want the hotel and its handler", got)
		}
		if got := e.TaskKeys(pi); got != "review" {
			t.Fatalf("waiting at %q, want review", got)
		}
	})
}

// A completed subprocess with input mappings is compensated like any
// other (its input/output scope closes with it; what it kept does not):
// the handler runs and sees the input parameters.
func TestCompensationSubprocessWithInputMapping(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		var seen any
		e.Eng.RegisterDelegate("undo", bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
			seen, _, _ = x.Variable("local")
			return nil
		}))
		e.Deploy("io", enginetest.Process("io", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <extensionElements><camunda:inputOutput><camunda:inputParameter name="local">inside</camunda:inputParameter></camunda:inputOutput></extensionElements>
      <startEvent id="s" />
      <sequenceFlow id="s1" sourceRef="s" targetRef="hotel" />`+enginetest.Compensable("hotel")+`
      <sequenceFlow id="s2" sourceRef="hotel" targetRef="se" />
      <endEvent id="se" />
    </subProcess>
    <sequenceFlow id="f2" sourceRef="sub" targetRef="undoAll" />
    <intermediateThrowEvent id="undoAll"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="undoAll" targetRef="done" />
    <userTask id="done" />`))
		pi := e.Start("io", nil)
		if seen != "inside" || e.TaskKeys(pi) != "done" {
			t.Fatalf("handler saw local = %v, waiting at %q: want the input parameter and done", seen, e.TaskKeys(pi))
		}
		if n := compensateSubs(e, pi); n != 0 {
			t.Fatalf("%d compensations left", n)
		}
	})
}
