package runtime_test

import (
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// nestedScopes is CompensateEventTest's compensation event subprocess
// model: scopeHotel books a hotel, then runs scopeFlight, which books a
// flight; each has a compensation event subprocess (Cancel Flight;
// Cancel Hotel, then hotelRest); the process then compensates everything.
func nestedScopes(hotelRest string) string {
	return enginetest.Process("compensateProcess", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="scopeHotel" />
    <subProcess id="scopeHotel">
      <startEvent id="startInScope" />
      <sequenceFlow id="h1" sourceRef="startInScope" targetRef="bookHotel" />
      <userTask id="bookHotel" />
      <sequenceFlow id="h2" sourceRef="bookHotel" targetRef="scopeFlight" />
      <subProcess id="scopeFlight">
        <startEvent id="startInScopeFlight" />
        <sequenceFlow id="g1" sourceRef="startInScopeFlight" targetRef="bookFlight" />
        <userTask id="bookFlight" />
        <sequenceFlow id="g2" sourceRef="bookFlight" targetRef="endInScopeFlight" />
        <endEvent id="endInScopeFlight" />
        <subProcess id="compensationScopeFlight" triggeredByEvent="true">
          <startEvent id="startInCompensationScopeFlight"><compensateEventDefinition /></startEvent>
          <sequenceFlow id="c1" sourceRef="startInCompensationScopeFlight" targetRef="undoBookFlight" />
          <userTask id="undoBookFlight" />
          <sequenceFlow id="c2" sourceRef="undoBookFlight" targetRef="endInCompensationScopeFlight" />
          <endEvent id="endInCompensationScopeFlight" />
        </subProcess>
      </subProcess>
      <sequenceFlow id="h3" sourceRef="scopeFlight" targetRef="endInScope" />
      <endEvent id="endInScope" />
      <subProcess id="compensationScopeHotel" triggeredByEvent="true">
        <startEvent id="startInCompensationScope"><compensateEventDefinition /></startEvent>
        <sequenceFlow id="d1" sourceRef="startInCompensationScope" targetRef="undoBookHotel" />
        <userTask id="undoBookHotel" />
        <sequenceFlow id="d2" sourceRef="undoBookHotel" targetRef="`+firstOf(hotelRest)+`" />`+hotelRest+`
      </subProcess>
    </subProcess>
    <sequenceFlow id="f2" sourceRef="scopeHotel" targetRef="throwCompensation" />
    <userTask id="throwCompensation" />
    <sequenceFlow id="f3" sourceRef="throwCompensation" targetRef="throwing" />
    <intermediateThrowEvent id="throwing"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="throwing" targetRef="end" />
    <endEvent id="end" />`)
}

func firstOf(rest string) string {
	if rest == rethrow {
		return "throwingCompensateFlight"
	}
	return "endInCompensationScope"
}

const (
	rethrow = `
        <intermediateThrowEvent id="throwingCompensateFlight"><compensateEventDefinition /></intermediateThrowEvent>
        <sequenceFlow id="d3" sourceRef="throwingCompensateFlight" targetRef="endInCompensationScope" />
        <endEvent id="endInCompensationScope" />`
	consume = `
        <endEvent id="endInCompensationScope" />`
)

// As CompensateEventTest's ReThrow and Consume cases: compensating a
// completed subprocess runs its compensation event subprocess instead of
// its activities' handlers; a compensation thrown inside that event
// subprocess compensates what the subprocess completed (the nested
// scope, by its own compensation event subprocess), and only that; not
// thrown, nothing inside is compensated. What it was handed goes with it.
func TestCompensationEventSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct {
			name, rest string
			after      string // waiting after Cancel Hotel
		}{{"rethrow", rethrow, "undoBookFlight"}, {"consume", consume, ""}} {
			e.Deploy("compensateProcess", nestedScopes(c.rest))
			pi := e.Start("compensateProcess", nil)
			e.Complete(pi, "bookHotel", nil)
			e.Complete(pi, "bookFlight", nil)
			if n := compensateSubs(e, pi); n != 2 {
				t.Fatalf("%s: %d compensations kept, want scopeHotel's group and scopeFlight's in it", c.name, n)
			}
			e.Complete(pi, "throwCompensation", nil)
			if got := e.TaskKeys(pi); got != "undoBookHotel" {
				t.Fatalf("%s: compensating, waiting at %q, want undoBookHotel", c.name, got)
			}
			e.Complete(pi, "undoBookHotel", nil)
			if got := e.TaskKeys(pi); got != c.after {
				t.Fatalf("%s: after Cancel Hotel waiting at %q, want %q", c.name, got, c.after)
			}
			if c.after != "" {
				e.Complete(pi, c.after, nil)
			}
			if !e.Ended(pi) {
				t.Fatalf("%s: instance not ended", c.name)
			}
		}
	})
}

// The handlers of a subprocess's activities run from its compensation
// event subprocess by activityRef (CompensateEventTest's
// testCompensationEventSubProcess): the subprocess's local variables are
// seen there, and nothing is left once it ran.
func TestCompensationEventSubprocessActivityRef(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("booking", bookingProcess("booking", "", `<extensionElements><camunda:executionListener event="start" expression="${execution.setVariableLocal('local', 'inside')}" /></extensionElements>`, `
        <intermediateThrowEvent id="undoFlight"><compensateEventDefinition activityRef="bookFlight" /></intermediateThrowEvent>
        <sequenceFlow id="h2" sourceRef="undoFlight" targetRef="review" />
        <userTask id="review" />`, "undoFlight", "review", `
    <sequenceFlow id="f2" sourceRef="sub" targetRef="undoAll" />
    <intermediateThrowEvent id="undoAll"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="undoAll" targetRef="done" />
    <userTask id="done" />`))
		pi := e.Start("booking", nil)
		e.Complete(pi, "bookFlight", nil)
		e.Complete(pi, "bookHotel", nil)
		if got := e.TaskKeys(pi); got != "cancelFlight" {
			t.Fatalf("waiting at %q, want only the flight's handler (the event subprocess compensates bookFlight)", got)
		}
		task := e.Tasks(pi)[0]
		if v, _, err := e.Eng.Variable(e.Ctx, task.ExecutionID, "local"); err != nil || v != "inside" {
			t.Fatalf("the handler sees local = %v (%v), want the subprocess's", v, err)
		}
		e.Complete(pi, "cancelFlight", nil)
		e.Complete(pi, "review", nil)
		if got := e.TaskKeys(pi); got != "done" {
			t.Fatalf("waiting at %q, want done", got)
		}
		if n := compensateSubs(e, pi); n != 0 {
			t.Fatalf("%d compensations left (the hotel's goes with the event subprocess)", n)
		}
	})
}

// bookingProcess is CompensateEventTest's booking model: subprocess sub
// (loop: its loop characteristics) books a flight and a hotel, each with a
// waiting handler, and has a compensation event subprocess running
// handlerBody from first to last; after is what follows sub.
func bookingProcess(key, loop, startExt, handlerBody, first, last, after string) string {
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">`+loop+`
      <startEvent id="s">`+startExt+`</startEvent>
      <sequenceFlow id="s1" sourceRef="s" targetRef="bookFlight" />
      <userTask id="bookFlight" />
      <boundaryEvent id="cf" attachedToRef="bookFlight"><compensateEventDefinition /></boundaryEvent>
      <userTask id="cancelFlight" isForCompensation="true" />
      <association id="a1" sourceRef="cf" targetRef="cancelFlight" />
      <sequenceFlow id="s2" sourceRef="bookFlight" targetRef="bookHotel" />
      <userTask id="bookHotel" />
      <boundaryEvent id="ch" attachedToRef="bookHotel"><compensateEventDefinition /></boundaryEvent>
      <userTask id="cancelHotel" isForCompensation="true" />
      <association id="a2" sourceRef="ch" targetRef="cancelHotel" />
      <sequenceFlow id="s3" sourceRef="bookHotel" targetRef="subEnd" />
      <endEvent id="subEnd" />
      <subProcess id="handler" triggeredByEvent="true">
        <startEvent id="hs"><compensateEventDefinition /></startEvent>
        <sequenceFlow id="h1" sourceRef="hs" targetRef="`+first+`" />`+handlerBody+`
        <sequenceFlow id="hz" sourceRef="`+last+`" targetRef="he" />
        <endEvent id="he" />
      </subProcess>
    </subProcess>`+after)
}

// Camunda's parse errors for compensation start events.
func TestCompensationEventSubprocessDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct{ body, want string }{
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="e" /><endEvent id="e" />
    <subProcess id="es" triggeredByEvent="true"><startEvent id="cs"><compensateEventDefinition /></startEvent><sequenceFlow id="g" sourceRef="cs" targetRef="ce" /><endEvent id="ce" /></subProcess>`,
				"event subprocess with compensation start event is only supported for embedded subprocess"},
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="sub" />
    <subProcess id="sub"><startEvent id="cs"><compensateEventDefinition /></startEvent><sequenceFlow id="g" sourceRef="cs" targetRef="ce" /><endEvent id="ce" /></subProcess>`,
				"compensateEventDefinition is not allowed on start event within a subprocess"},
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="sub" />
    <subProcess id="sub"><startEvent id="ss" /><sequenceFlow id="g" sourceRef="ss" targetRef="se" /><endEvent id="se" />
      <subProcess id="es1" triggeredByEvent="true"><startEvent id="c1"><compensateEventDefinition /></startEvent><sequenceFlow id="g1" sourceRef="c1" targetRef="e1" /><endEvent id="e1" /></subProcess>
      <subProcess id="es2" triggeredByEvent="true"><startEvent id="c2"><compensateEventDefinition /></startEvent><sequenceFlow id="g2" sourceRef="c2" targetRef="e2" /><endEvent id="e2" /></subProcess>
    </subProcess>`,
				"multiple event subprocesses with compensation start event are not supported on the same scope"},
			{`<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="sub" />
    <subProcess id="sub"><startEvent id="ss" /><sequenceFlow id="g" sourceRef="ss" targetRef="se" /><endEvent id="se" />
      <subProcess id="es1" triggeredByEvent="true"><startEvent id="c1"><compensateEventDefinition /></startEvent><sequenceFlow id="g1" sourceRef="c1" targetRef="e1" /><endEvent id="e1" /></subProcess>
    </subProcess>
    <boundaryEvent id="b" attachedToRef="sub"><compensateEventDefinition /></boundaryEvent>
    <userTask id="h" isForCompensation="true" /><association id="a" sourceRef="b" targetRef="h" />`,
				"compensation boundary event and event subprocess with compensation start event are not supported on the same scope"},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(enginetest.Process("bad", c.body))}}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("deploy: %v, want %q", err, c.want)
			}
		}
	})
}

// As testCompensateMiSubprocessWithCompensationEventSubProcess: each
// completed instance of a multi-instance subprocess is compensated by its
// compensation event subprocess, which compensates that instance's flight
// and hotel by activityRef, then updates the customer record.
func TestCompensationEventSubprocessMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, sequential := range []string{"true", "false"} {
			e.Deploy("bookingProcess", bookingProcess("bookingProcess", `<multiInstanceLoopCharacteristics isSequential="`+sequential+`" camunda:collection="${flights}" camunda:elementVariable="flight" />`, "", `
        <intermediateThrowEvent id="compensateFlight"><compensateEventDefinition activityRef="bookFlight" /></intermediateThrowEvent>
        <sequenceFlow id="h2" sourceRef="compensateFlight" targetRef="compensateHotel" />
        <intermediateThrowEvent id="compensateHotel"><compensateEventDefinition activityRef="bookHotel" /></intermediateThrowEvent>
        <sequenceFlow id="h3" sourceRef="compensateHotel" targetRef="updateCustomerRecord" />
        <userTask id="updateCustomerRecord" />`, "compensateFlight", "updateCustomerRecord", `
    <sequenceFlow id="f2" sourceRef="sub" targetRef="validateBooking" />
    <userTask id="validateBooking" />
    <sequenceFlow id="f3" sourceRef="validateBooking" targetRef="throwing" />
    <intermediateThrowEvent id="throwing"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="throwing" targetRef="end" />
    <endEvent id="end" />`))
			pi := e.Start("bookingProcess", map[string]any{"flights": []any{"STS-14", "STS-28"}})
			for i := 0; i < 2; i++ {
				for _, task := range e.Tasks(pi) {
					if task.TaskDefinitionKey == "bookFlight" {
						e.completeTask(task)
					}
				}
				for _, task := range e.Tasks(pi) {
					if task.TaskDefinitionKey == "bookHotel" {
						e.completeTask(task)
					}
				}
			}
			e.Complete(pi, "validateBooking", nil)
			for _, step := range []string{"cancelFlight,cancelFlight", "cancelHotel,cancelHotel", "updateCustomerRecord,updateCustomerRecord"} {
				if got := e.TaskKeys(pi); got != step {
					t.Fatalf("sequential=%s: waiting at %q, want %q", sequential, got, step)
				}
				for _, task := range e.Tasks(pi) {
					e.completeTask(task)
				}
			}
			if !e.Ended(pi) {
				t.Fatalf("sequential=%s: instance not ended, waiting at %q", sequential, e.TaskKeys(pi))
			}
		}
	})
}

func (e *env) completeTask(task *bpmnlite.Task) {
	e.T.Helper()
	if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
		e.T.Fatal(err)
	}
}
