package runtime_test

import (
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// booked is a booking service task name with a compensation handler that
// waits (a user task undo<name>), as Camunda's WaitStateUndoService.
func booked(name, loop string) string {
	return `
      <serviceTask id="` + name + `" camunda:class="do">` + loop + `</serviceTask>
      <boundaryEvent id="comp` + name + `" attachedToRef="` + name + `"><compensateEventDefinition /></boundaryEvent>
      <userTask id="undo` + name + `" isForCompensation="true" />
      <association id="as` + name + `" sourceRef="comp` + name + `" targetRef="undo` + name + `" />`
}

// txProcess is TransactionSubProcessTest's testSimpleCase: a transaction
// books a hotel (three times) and a flight in parallel, asks the customer,
// charges the card, and ends by success or by a cancel end event; its
// cancel boundary event leads to afterCancellation.
func txProcess(key string) string {
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="tx" />
    <transaction id="tx">
      <startEvent id="txStart" />
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="fork" />
      <parallelGateway id="fork" />
      <sequenceFlow id="t2" sourceRef="fork" targetRef="bookHotel" />
      <sequenceFlow id="t3" sourceRef="fork" targetRef="bookFlight" />`+
		booked("bookHotel", `<multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>`)+
		booked("bookFlight", "")+`
      <parallelGateway id="join" />
      <sequenceFlow id="t4" sourceRef="bookHotel" targetRef="join" />
      <sequenceFlow id="t5" sourceRef="bookFlight" targetRef="join" />
      <sequenceFlow id="t6" sourceRef="join" targetRef="askCustomer" />
      <userTask id="askCustomer" />
      <sequenceFlow id="t7" sourceRef="askCustomer" targetRef="chargeCard" />`+booked("chargeCard", "")+`
      <sequenceFlow id="t8" sourceRef="chargeCard" targetRef="confirmed" />
      <exclusiveGateway id="confirmed" />
      <sequenceFlow id="t9" sourceRef="confirmed" targetRef="success"><conditionExpression>${confirmed}</conditionExpression></sequenceFlow>
      <sequenceFlow id="t10" sourceRef="confirmed" targetRef="failure"><conditionExpression>${not confirmed}</conditionExpression></sequenceFlow>
      <endEvent id="success" />
      <endEvent id="failure"><cancelEventDefinition /></endEvent>
    </transaction>
    <boundaryEvent id="catchCancelTx" attachedToRef="tx"><cancelEventDefinition /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="catchCancelTx" targetRef="afterCancellation" />
    <userTask id="afterCancellation" />
    <sequenceFlow id="f3" sourceRef="tx" targetRef="afterSuccess" />
    <userTask id="afterSuccess" />`)
}

// cancellable is a process key around transaction tx (loop: its loop
// characteristics, body: its content) whose cancel boundary event leads to
// afterCancellation and whose outgoing flow to afterSuccess.
func cancellable(key, loop, body string) string {
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="tx" />
    <transaction id="tx">`+loop+`
      <startEvent id="txStart" />`+body+`
    </transaction>
    <boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="cancelled" targetRef="afterCancellation" />
    <userTask id="afterCancellation" />
    <sequenceFlow id="f3" sourceRef="tx" targetRef="afterSuccess" />
    <userTask id="afterSuccess" />`)
}

func compensateSubs(e *env, pi string) int {
	n := 0
	for _, s := range e.SubsOf(pi) {
		if s.EventType == "compensate" {
			n++
		}
	}
	return n
}

// As TransactionSubProcessTest's simple case: a transaction that ends
// normally continues by its outgoing flow; one that reaches its cancel
// end event runs the handlers of everything it completed (each hotel
// booking, the flight, the card), waits for them, then leaves by its
// cancel boundary event with nothing kept.
func TestTransactionCancel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Deploy("booking", txProcess("booking"))

		ok := e.Start("booking", nil)
		if n := compensateSubs(e, ok); n != 5 {
			t.Fatalf("%d compensations kept, want the flight's and the hotel's group of three", n)
		}
		e.Complete(ok, "askCustomer", map[string]any{"confirmed": true})
		if got := e.TaskKeys(ok); got != "afterSuccess" {
			t.Fatalf("confirmed: waiting at %q, want afterSuccess", got)
		}

		pi := e.Start("booking", nil)
		e.Complete(pi, "askCustomer", map[string]any{"confirmed": false})
		if got := e.TaskKeys(pi); got != "undobookFlight,undobookHotel,undobookHotel,undobookHotel,undochargeCard" {
			t.Fatalf("cancelled: waiting at %q, want every handler", got)
		}
		if n := compensateSubs(e, pi); n != 0 {
			t.Fatalf("%d compensations kept after the cancel end event", n)
		}
		for _, task := range e.Tasks(pi) {
			if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.TaskKeys(pi); got != "afterCancellation" {
			t.Fatalf("after the handlers: waiting at %q, want afterCancellation", got)
		}
		if h := e.HistoryAt(pi, "catchCancelTx"); len(h) != 1 || h[0].ActivityType != "cancelBoundaryCatch" {
			t.Fatalf("history of the cancel boundary event: %+v", h)
		}
		if h := e.HistoryAt(pi, "tx"); len(h) != 1 || h[0].ActivityType != "transaction" {
			t.Fatalf("history of the transaction: %+v", h)
		}
		e.Complete(pi, "afterCancellation", nil)
		if !e.Ended(pi) {
			t.Fatal("instance not ended")
		}
	})
}

// The handlers hold the cancel boundary event until the last is done.
func TestTransactionCancelWaitsForHandlers(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("do", &harness.Recorder{})
		e.Deploy("booking", txProcess("booking"))
		pi := e.Start("booking", nil)
		e.Complete(pi, "askCustomer", map[string]any{"confirmed": false})
		tasks := e.Tasks(pi)
		for i, task := range tasks {
			if i == len(tasks)-1 {
				break
			}
			if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.TaskKeys(pi); got != tasks[len(tasks)-1].TaskDefinitionKey {
			t.Fatalf("one handler left: waiting at %q, want only %s", got, tasks[len(tasks)-1].TaskDefinitionKey)
		}
		if err := e.Eng.CompleteTask(e.Ctx, tasks[len(tasks)-1].ID, nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "afterCancellation" {
			t.Fatalf("waiting at %q", got)
		}
	})
}

// As testCancelEndConcurrent: the cancel end event interrupts the other
// paths of the transaction; the handlers of what completed run. Without
// any handler the cancel boundary event fires at once.
func TestTransactionCancelEndConcurrent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("conc", cancellable("conc", "", `
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="fork" />
      <parallelGateway id="fork" />
      <sequenceFlow id="t2" sourceRef="fork" targetRef="hotel" />
      <sequenceFlow id="t3" sourceRef="fork" targetRef="waiting" />`+enginetest.Compensable("hotel")+`
      <sequenceFlow id="t4" sourceRef="hotel" targetRef="decide" />
      <userTask id="decide" />
      <sequenceFlow id="t5" sourceRef="decide" targetRef="cancel" />
      <endEvent id="cancel"><cancelEventDefinition /></endEvent>
      <userTask id="waiting" />
      <sequenceFlow id="t6" sourceRef="waiting" targetRef="txEnd" />
      <endEvent id="txEnd" />`))
		pi := e.Start("conc", nil)
		e.Complete(pi, "decide", nil)
		if got := e.TaskKeys(pi); got != "afterCancellation" {
			t.Fatalf("waiting at %q, want afterCancellation (the concurrent task cancelled)", got)
		}
		if got := r.String(); got != "hotel:call undohotel:call" {
			t.Fatalf("ran %q", got)
		}
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Fatalf("%d executions left, want the process instance's", len(xs))
		}

		// Nothing to compensate: the boundary event fires at once.
		e.Deploy("bare", cancellable("bare", "", `
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="cancel" />
      <endEvent id="cancel"><cancelEventDefinition /></endEvent>`))
		bare := e.Start("bare", nil)
		if got := e.TaskKeys(bare); got != "afterCancellation" {
			t.Fatalf("bare: waiting at %q", got)
		}
	})
}

// nestedTx is testNestedCancelInner/Outer: an outer transaction runs an
// inner one (hotel, then ask, then success or cancel) beside a flight
// booking that its task confirms or cancels.
func nestedTx() string {
	return enginetest.Process("nested", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="outer" />
    <transaction id="outer">
      <startEvent id="oStart" />
      <sequenceFlow id="o1" sourceRef="oStart" targetRef="fork" />
      <parallelGateway id="fork" />
      <sequenceFlow id="o2" sourceRef="fork" targetRef="inner" />
      <sequenceFlow id="o3" sourceRef="fork" targetRef="flight" />
      <transaction id="inner">
        <startEvent id="iStart" />
        <sequenceFlow id="i1" sourceRef="iStart" targetRef="hotel" />`+strings.ReplaceAll(enginetest.Compensable("hotel"), "undohotel", "undoInnerHotel")+`
        <sequenceFlow id="i2" sourceRef="hotel" targetRef="innerAsk" />
        <userTask id="innerAsk" />
        <sequenceFlow id="i3" sourceRef="innerAsk" targetRef="innerOK" />
        <exclusiveGateway id="innerOK" />
        <sequenceFlow id="i4" sourceRef="innerOK" targetRef="innerSuccess"><conditionExpression>${confirmed}</conditionExpression></sequenceFlow>
        <sequenceFlow id="i5" sourceRef="innerOK" targetRef="innerCancel"><conditionExpression>${not confirmed}</conditionExpression></sequenceFlow>
        <endEvent id="innerSuccess" />
        <endEvent id="innerCancel"><cancelEventDefinition /></endEvent>
      </transaction>
      <boundaryEvent id="innerCancelled" attachedToRef="inner"><cancelEventDefinition /></boundaryEvent>
      <sequenceFlow id="o4" sourceRef="innerCancelled" targetRef="afterInnerCancellation" />
      <userTask id="afterInnerCancellation" />
      <sequenceFlow id="o5" sourceRef="inner" targetRef="innerDone" />
      <endEvent id="innerDone" />`+enginetest.Compensable("flight")+`
      <sequenceFlow id="o6" sourceRef="flight" targetRef="outerAsk" />
      <userTask id="outerAsk" />
      <sequenceFlow id="o7" sourceRef="outerAsk" targetRef="outerCancel" />
      <endEvent id="outerCancel"><cancelEventDefinition /></endEvent>
    </transaction>
    <boundaryEvent id="outerCancelled" attachedToRef="outer"><cancelEventDefinition /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="outerCancelled" targetRef="afterOuterCancellation" />
    <userTask id="afterOuterCancellation" />`)
}

// The inner transaction cancelled compensates its own activities and
// continues inside the outer one; the outer cancelled while the inner
// runs cancels the inner without compensating it.
func TestTransactionNestedCancel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("nested", nestedTx())

		pi := e.Start("nested", nil)
		e.Complete(pi, "innerAsk", map[string]any{"confirmed": false})
		if got := r.String(); !strings.HasSuffix(got, "undoInnerHotel:call") || strings.Count(got, "undo") != 1 {
			t.Fatalf("inner cancelled: ran %q, want the inner hotel's handler only", got)
		}
		if got := e.TaskKeys(pi); got != "afterInnerCancellation,outerAsk" {
			t.Fatalf("inner cancelled: waiting at %q", got)
		}

		r.Reset()
		outer := e.Start("nested", nil)
		e.Complete(outer, "outerAsk", nil)
		if got := r.String(); !strings.HasSuffix(got, "undoflight:call") || strings.Count(got, "undo") != 1 {
			t.Fatalf("outer cancelled: ran %q, want the flight's handler only (the inner transaction was still running)", got)
		}
		if got := e.TaskKeys(outer); got != "afterOuterCancellation" {
			t.Fatalf("outer cancelled: waiting at %q", got)
		}
		if n := compensateSubs(e, outer); n != 0 {
			t.Fatalf("%d compensations kept", n)
		}
	})
}

// As testMultiInstanceTx: a cancel end event in one instance of a
// multi-instance transaction compensates that instance and cancels all of
// them by the boundary event on the multi-instance activity.
func TestTransactionMultiInstanceCancel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		e.Eng.RegisterDelegate("undo", r)
		e.Deploy("mi", cancellable("mi", `<multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>`, `
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="hotel" />`+enginetest.Compensable("hotel")+`
      <sequenceFlow id="t2" sourceRef="hotel" targetRef="ask" />
      <userTask id="ask" />
      <sequenceFlow id="t3" sourceRef="ask" targetRef="ok" />
      <exclusiveGateway id="ok" />
      <sequenceFlow id="t4" sourceRef="ok" targetRef="success"><conditionExpression>${confirmed}</conditionExpression></sequenceFlow>
      <sequenceFlow id="t5" sourceRef="ok" targetRef="cancel"><conditionExpression>${not confirmed}</conditionExpression></sequenceFlow>
      <endEvent id="success" />
      <endEvent id="cancel"><cancelEventDefinition /></endEvent>`))
		pi := e.Start("mi", nil)
		if n := compensateSubs(e, pi); n != 3 {
			t.Fatalf("%d compensations kept, want one per instance", n)
		}
		tasks := e.Tasks(pi)
		if err := e.Eng.CompleteTask(e.Ctx, tasks[0].ID, map[string]any{"confirmed": false}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(r.String(), "undohotel:call"); got != 1 {
			t.Fatalf("ran %q, want the cancelling instance's handler once", r.String())
		}
		if got := e.TaskKeys(pi); got != "afterCancellation" || compensateSubs(e, pi) != 0 {
			t.Fatalf("waiting at %q with %d compensations, want afterCancellation and none", got, compensateSubs(e, pi))
		}
	})
}

// Camunda's parse errors for cancel events, and a cancel end event
// without a boundary event to leave by (Camunda fails when reached).
func TestTransactionDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		tx := func(inside, outside string) string {
			return enginetest.Process("bad", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="tx" />
    <transaction id="tx">
      <startEvent id="txStart" />
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="cancel" />
      <endEvent id="cancel"><cancelEventDefinition /></endEvent>`+inside+`
    </transaction>`+outside)
		}
		boundary := `<boundaryEvent id="b1" attachedToRef="tx"><cancelEventDefinition /></boundaryEvent>`
		for _, c := range []struct{ xml, want string }{
			{enginetest.Process("bad", `<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="e" /><endEvent id="e"><cancelEventDefinition /></endEvent>`),
				"endEvent 'e': end event with cancelEventDefinition only supported inside transaction subprocess"},
			{enginetest.Process("bad", `<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="sub" />
    <subProcess id="sub"><startEvent id="ss" /><sequenceFlow id="sf" sourceRef="ss" targetRef="se" /><endEvent id="se" /></subProcess>
    <boundaryEvent id="b" attachedToRef="sub"><cancelEventDefinition /></boundaryEvent>`),
				"boundaryEvent 'b': boundary event with cancelEventDefinition only supported on transaction subprocesses"},
			{tx("", boundary+`<boundaryEvent id="b2" attachedToRef="tx"><cancelEventDefinition /></boundaryEvent>`),
				"boundaryEvent 'b2': multiple boundary events with cancelEventDefinition not supported on same transaction subprocess"},
			{tx("", ""), "endEvent 'cancel': a cancel end event needs a cancel boundary event on its transaction 'tx'"},
			{tx("", `<boundaryEvent id="b1" attachedToRef="tx" cancelActivity="false"><cancelEventDefinition /></boundaryEvent>`),
				"a cancel boundary event is always interrupting"},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(c.xml)}}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("deploy: %v, want %q", err, c.want)
			}
		}
	})
}

// As testCompensateTransactionWithEventSubprocess: the cancel end event
// compensates a completed subprocess of the transaction by its
// compensation event subprocess, which compensates the subprocess's
// activity; then the cancel boundary event ends the instance.
func TestTransactionCancelWithCompensationEventSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("txProcess", enginetest.Process("txProcess", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="tx" />
    <transaction id="tx">
      <startEvent id="txStart" />
      <sequenceFlow id="t1" sourceRef="txStart" targetRef="innerSubProcess" />
      <subProcess id="innerSubProcess">
        <startEvent id="innerSubProcessStart" />
        <sequenceFlow id="i1" sourceRef="innerSubProcessStart" targetRef="activity" />
        <serviceTask id="activity" camunda:expression="${true}" />
        <sequenceFlow id="i2" sourceRef="activity" targetRef="innerSubProcessEnd" />
        <endEvent id="innerSubProcessEnd" />
        <subProcess id="eventSubProcess" triggeredByEvent="true">
          <startEvent id="eventSubProcessStart"><compensateEventDefinition /></startEvent>
          <sequenceFlow id="e1" sourceRef="eventSubProcessStart" targetRef="eventSubProcessThrowCompensation" />
          <intermediateThrowEvent id="eventSubProcessThrowCompensation"><compensateEventDefinition activityRef="activity" /></intermediateThrowEvent>
          <sequenceFlow id="e2" sourceRef="eventSubProcessThrowCompensation" targetRef="eventSubProcessEnd" />
          <endEvent id="eventSubProcessEnd" />
        </subProcess>
        <boundaryEvent id="compensateBoundaryEvent" attachedToRef="activity"><compensateEventDefinition /></boundaryEvent>
        <userTask id="blackBoxCompensationHandler" isForCompensation="true" />
        <association id="a1" sourceRef="compensateBoundaryEvent" targetRef="blackBoxCompensationHandler" />
      </subProcess>
      <sequenceFlow id="t2" sourceRef="innerSubProcess" targetRef="beforeCancelEnd" />
      <userTask id="beforeCancelEnd" />
      <sequenceFlow id="t3" sourceRef="beforeCancelEnd" targetRef="cancelEnd" />
      <endEvent id="cancelEnd"><cancelEventDefinition /></endEvent>
    </transaction>
    <sequenceFlow id="f2" sourceRef="tx" targetRef="end" />
    <endEvent id="end" />
    <boundaryEvent id="catchCancelTx" attachedToRef="tx"><cancelEventDefinition /></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="catchCancelTx" targetRef="cancelled" />
    <endEvent id="cancelled" />`))
		pi := e.Start("txProcess", nil)
		e.Complete(pi, "beforeCancelEnd", nil)
		if got := e.TaskKeys(pi); got != "blackBoxCompensationHandler" {
			t.Fatalf("waiting at %q, want blackBoxCompensationHandler", got)
		}
		e.Complete(pi, "blackBoxCompensationHandler", nil)
		if !e.Ended(pi) {
			t.Fatalf("instance not ended, waiting at %q", e.TaskKeys(pi))
		}
		if h := e.HistoryAt(pi, "cancelled"); len(h) != 1 {
			t.Fatalf("left by %+v, want the cancel boundary event's end", h)
		}
	})
}
