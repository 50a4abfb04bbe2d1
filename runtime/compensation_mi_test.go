package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/harness"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// Compensation of multi-instance activities, replaying Camunda's
// CompensateEventTest: a completed multi-instance activity is compensated
// once per completed inner instance, latest first, each handler seeing
// that instance's variables.

// varLog records "activity(name=value ...)" for the variables it is told
// to read, as Camunda's GetVariablesDelegate and CancelFlightService do.
type varLog struct {
	mu    sync.Mutex
	names []string
	runs  []string
}

func (l *varLog) Execute(_ context.Context, ex *bpmnlite.Execution) error {
	var vals []string
	for _, n := range l.names {
		v, _, err := ex.Variable(n)
		if err != nil {
			return err
		}
		vals = append(vals, fmt.Sprintf("%s=%v", n, v))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs = append(l.runs, ex.ActivityID()+"("+strings.Join(vals, " ")+")")
	return nil
}

func (l *varLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.runs, " ")
}

// miTask is a service task "book" calling delegate "do" with the given
// multi-instance characteristics, compensated by service task "undoBook"
// calling "undo".
func miTask(loop string) string {
	return `
    <serviceTask id="book" camunda:class="do">` + loop + `</serviceTask>
    <boundaryEvent id="compBook" attachedToRef="book"><compensateEventDefinition /></boundaryEvent>
    <serviceTask id="undoBook" isForCompensation="true" camunda:class="undo" />
    <association id="asBook" sourceRef="compBook" targetRef="undoBook" />`
}

// withRoots adds root elements (errors, signals) before the process.
func withRoots(roots, xml string) string {
	return strings.Replace(xml, "<process", roots+"\n  <process", 1)
}

// parallel5 makes an activity parallel multi-instance with 5 instances.
const parallel5 = `<multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>5</loopCardinality></multiInstanceLoopCharacteristics>`

// userMiTask is parallel multi-instance user task id, compensated by user
// task undoBookHotel.
func userMiTask(id string) string {
	return `
    <userTask id="` + id + `">` + parallel5 + `</userTask>
    <boundaryEvent id="compBook" attachedToRef="` + id + `"><compensateEventDefinition /></boundaryEvent>
    <userTask id="undoBookHotel" isForCompensation="true" />
    <association id="asBook" sourceRef="compBook" targetRef="undoBookHotel" />`
}

// userMiSubprocess is parallel multi-instance subprocess id around user
// task inner, compensated by user task undoBookHotel.
func userMiSubprocess(id, inner string) string {
	return `
    <subProcess id="` + id + `">` + parallel5 + `
      <startEvent id="inStart" />
      <sequenceFlow id="i1" sourceRef="inStart" targetRef="` + inner + `" />
      <userTask id="` + inner + `" />
      <boundaryEvent id="compBook" attachedToRef="` + inner + `"><compensateEventDefinition /></boundaryEvent>
      <userTask id="undoBookHotel" isForCompensation="true" />
      <association id="asBook" sourceRef="compBook" targetRef="undoBookHotel" />
      <sequenceFlow id="i2" sourceRef="` + inner + `" targetRef="inEnd" />
      <endEvent id="inEnd" />
    </subProcess>`
}

// compensateScope is Camunda's testCompensateMiSubprocess shape: process
// key runs subprocess "scope" (with loop, multi-instance) around task (its
// id inner, with its compensation), compensates the scope, then waits in
// user task beforeEnd; beside, the scope runs beside user task
// parallelTask.
func compensateScope(key, loop, inner, task string, beside bool) string {
	start := `
    <sequenceFlow id="f1" sourceRef="start" targetRef="scope" />`
	if beside {
		start = `
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f1a" sourceRef="fork" targetRef="scope" />
    <sequenceFlow id="f1b" sourceRef="fork" targetRef="parallelTask" />
    <userTask id="parallelTask" />`
	}
	return enginetest.Process(key, `
    <startEvent id="start" />`+start+`
    <subProcess id="scope">`+loop+`
      <startEvent id="inStart" />
      <sequenceFlow id="i1" sourceRef="inStart" targetRef="`+inner+`" />`+task+`
      <sequenceFlow id="i2" sourceRef="`+inner+`" targetRef="inEnd" />
      <endEvent id="inEnd" />
    </subProcess>
    <sequenceFlow id="f2" sourceRef="scope" targetRef="throw" />
    <intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="scope" /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="throw" targetRef="beforeEnd" />
    <userTask id="beforeEnd" />
    <sequenceFlow id="f4" sourceRef="beforeEnd" targetRef="end" />
    <endEvent id="end" />`)
}

// handlersRun counts the handler's activity instances in pi's history.
func handlersRun(e *harness.Env, pi, handler string) int {
	e.T.Helper()
	return len(e.HistoryAt(pi, handler))
}

// wantCompensated checks that handler ran as log wants, n times in pi's
// history, and that nothing is kept to compensate any more.
func wantCompensated(e *harness.Env, what, pi, handler string, log *varLog, want string, n int) {
	e.T.Helper()
	if got := log.String(); got != want {
		e.T.Fatalf("%s: handlers ran %q, want %q", what, got, want)
	}
	if got := handlersRun(e, pi, handler); got != n {
		e.T.Fatalf("%s: %d handler instances in history, want %d", what, got, n)
	}
	if subs := e.SubsOf(pi); len(subs) != 0 {
		e.T.Fatalf("%s: left %+v", what, subs)
	}
}

// Camunda's compensationMiActivity (testActivityInstanceTreeForMiActivity)
// with a collection: a compensation end event with activityRef to a
// completed sequential multi-instance task runs its handler once per
// instance, latest first, each seeing its element and loopCounter; a
// parallel body is compensated the same way.
func TestCompensateMiActivity(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		for _, seq := range []string{"true", "false"} {
			undo := &varLog{names: []string{"hotel", "loopCounter", "nrOfInstances"}}
			e.Eng.RegisterDelegate("do", &harness.Recorder{})
			e.Eng.RegisterDelegate("undo", undo)
			key := "miTask" + seq
			e.Deploy(key, enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="book" />`+miTask(`
      <multiInstanceLoopCharacteristics isSequential="`+seq+`" camunda:collection="hotels" camunda:elementVariable="hotel" />`)+`
    <sequenceFlow id="f2" sourceRef="book" targetRef="end" />
    <endEvent id="end"><compensateEventDefinition activityRef="book" /></endEvent>`))
			pi := e.Start(key, map[string]any{"hotels": []any{"Rupert", "Vogsphere", "Milliways"}})
			wantCompensated(e, "sequential="+seq, pi, "undoBook", undo,
				"undoBook(hotel=Milliways loopCounter=2 nrOfInstances=3) undoBook(hotel=Vogsphere loopCounter=1 nrOfInstances=3) undoBook(hotel=Rupert loopCounter=0 nrOfInstances=3)", 3)
			if got := e.State(pi); got != bpmnlite.StateCompleted {
				t.Fatalf("state %s", got)
			}
		}
	})
}

// Camunda's testCompensateActivityRefMiActivity and
// testCompensateActivityRefMiSubprocess: user task handlers of a parallel
// multi-instance activity (or of the task in a multi-instance subprocess)
// wait, one per completed instance; the thrower goes on once all are done.
func TestCompensateActivityRefMiActivity(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		for _, c := range []struct{ key, ref, mi string }{
			{"refMiActivity", "bookHotel", userMiTask("bookHotel")},
			{"refMiSubprocess", "bookHotel", userMiSubprocess("bookHotel", "book")},
		} {
			e.Deploy(c.key, enginetest.Process(c.key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="bookHotel" />`+c.mi+`
    <sequenceFlow id="f2" sourceRef="bookHotel" targetRef="request" />
    <userTask id="request" />
    <sequenceFlow id="f3" sourceRef="request" targetRef="undo" />
    <intermediateThrowEvent id="undo"><compensateEventDefinition activityRef="`+c.ref+`" /></intermediateThrowEvent>
    <sequenceFlow id="f4" sourceRef="undo" targetRef="end" />
    <endEvent id="end" />`))
			pi := e.Start(c.key, nil)
			booking := "bookHotel"
			if c.key == "refMiSubprocess" {
				booking = "book"
			}
			for i := 0; i < 5; i++ {
				e.Complete(pi, booking, nil)
			}
			e.Complete(pi, "request", nil)
			tasks := e.Tasks(pi)
			var counters []any
			for _, tk := range tasks {
				if tk.TaskDefinitionKey != "undoBookHotel" {
					t.Fatalf("%s: open task %s, want only handlers", c.key, tk.TaskDefinitionKey)
				}
				v, _, err := e.Eng.Variable(e.Ctx, tk.ExecutionID, "loopCounter")
				if err != nil {
					t.Fatal(err)
				}
				counters = append(counters, v)
			}
			slices.SortFunc(counters, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			if fmt.Sprint(counters) != "[0 1 2 3 4]" {
				t.Fatalf("%s: handlers see loopCounter %v, want one per instance 0..4", c.key, counters)
			}
			for i := 0; i < 5; i++ {
				e.Complete(pi, "undoBookHotel", nil)
			}
			if got := e.State(pi); got != bpmnlite.StateCompleted {
				t.Fatalf("%s: state %s after the handlers", c.key, got)
			}
			if n := handlersRun(e, pi, "undoBookHotel"); n != 5 {
				t.Fatalf("%s: %d handler instances, want 5", c.key, n)
			}
		}
	})
}

// Camunda's testCompensateConcurrentMiActivity and
// testCompensateConcurrentMiSubprocess: compensation thrown while the
// multi-instance body still runs compensates none of its instances (they
// are kept in the body until it completes); the body then completes.
func TestCompensateConcurrentMiActivity(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		for key, mi := range map[string]string{
			"concurrentMiActivity":   userMiTask("bookHotel"),
			"concurrentMiSubprocess": userMiSubprocess("scope", "bookHotel"),
		} {
			target, ref := "bookHotel", "bookHotel"
			if strings.HasSuffix(key, "Subprocess") {
				target, ref = "scope", "scope"
			}
			e.Deploy(key, enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="`+target+`" />`+mi+`
    <sequenceFlow id="f3" sourceRef="`+target+`" targetRef="join" />
    <sequenceFlow id="f4" sourceRef="fork" targetRef="request" />
    <userTask id="request" />
    <sequenceFlow id="f5" sourceRef="request" targetRef="undo" />
    <intermediateThrowEvent id="undo"><compensateEventDefinition activityRef="`+ref+`" /></intermediateThrowEvent>
    <sequenceFlow id="f6" sourceRef="undo" targetRef="join" />
    <parallelGateway id="join" />
    <sequenceFlow id="f7" sourceRef="join" targetRef="end" />
    <endEvent id="end" />`))
			pi := e.Start(key, nil)
			for i := 0; i < 4; i++ {
				e.Complete(pi, "bookHotel", nil)
			}
			e.Complete(pi, "request", nil)
			if got := e.TaskKeys(pi); got != "bookHotel" {
				t.Fatalf("%s: open tasks %q, want the last bookHotel and no handler", key, got)
			}
			e.Complete(pi, "bookHotel", nil)
			if got := e.State(pi); got != bpmnlite.StateCompleted {
				t.Fatalf("%s: state %s", key, got)
			}
			if n := handlersRun(e, pi, "undoBookHotel"); n != 0 {
				t.Fatalf("%s: %d handlers ran", key, n)
			}
			// What the ended instance kept went with it, snapshots too.
			if n := harness.CountRows(t, e.DB(), "SELECT count(*) FROM variable"); n != 0 {
				t.Fatalf("%s: %d variable rows left", key, n)
			}
		}
	})
}

// Camunda's testCompensateMiSubprocess, testCompensateMiSubprocessVariableSnapshots
// and testCompensateMiSubprocessVariableSnapshotOfElementVariable:
// compensating a completed multi-instance subprocess compensates inside
// each completed instance, latest first; each handler sees the local
// variables its instance's subprocess had (set by the compensated task)
// and the instance's element variable.
func TestCompensateMiSubprocessVariableSnapshots(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		for _, seq := range []string{"true", "false"} {
			undo := &varLog{names: []string{"hotel", "flight"}}
			e.Eng.RegisterDelegate("undo", undo)
			e.Eng.RegisterDelegate("do", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
				flight, _, err := ex.Variable("flight")
				if err != nil {
					return err
				}
				return ex.SetVariableLocal("hotel", fmt.Sprintf("hotel-for-%v", flight))
			}))
			key := "miSub" + seq
			e.Deploy(key, compensateScope(key, `
      <multiInstanceLoopCharacteristics isSequential="`+seq+`" camunda:collection="flights" camunda:elementVariable="flight" />`, "book", miTask(""), false))
			pi := e.Start(key, map[string]any{"flights": []any{"STS-14", "STS-28", "STS-41"}})
			wantCompensated(e, "sequential="+seq, pi, "undoBook", undo,
				"undoBook(hotel=hotel-for-STS-41 flight=STS-41) undoBook(hotel=hotel-for-STS-28 flight=STS-28) undoBook(hotel=hotel-for-STS-14 flight=STS-14)", 3)
			if got := e.Path(pi); !strings.Contains(got, "beforeEnd") {
				t.Fatalf("path %q: the thrower did not go on", got)
			}
			if vars := e.VarsOf(pi); vars["hotel"] != nil || vars["loopCounter"] != nil {
				t.Fatalf("snapshot variables leaked into the instance: %v", vars)
			}
		}
	})
}

// Within each completed instance of a parallel multi-instance subprocess,
// handlers run latest first, instance by instance (the instance that
// completed last first), as Camunda nests them.
func TestCompensateParallelMiSubprocessOrder(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		r := &harness.Recorder{}
		e.Eng.RegisterDelegate("do", r)
		undo := &varLog{names: []string{"loopCounter"}}
		e.Eng.RegisterDelegate("undo", undo)
		e.Deploy("order", enginetest.Process("order", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="scope" />
    <subProcess id="scope">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
      <startEvent id="inStart" />
      <sequenceFlow id="i1" sourceRef="inStart" targetRef="first" />`+enginetest.Compensable("first")+`
      <sequenceFlow id="i2" sourceRef="first" targetRef="wait" />
      <userTask id="wait" />
      <sequenceFlow id="i3" sourceRef="wait" targetRef="second" />`+enginetest.Compensable("second")+`
      <sequenceFlow id="i4" sourceRef="second" targetRef="inEnd" />
      <endEvent id="inEnd" />
    </subProcess>
    <sequenceFlow id="f2" sourceRef="scope" targetRef="throw" />
    <intermediateThrowEvent id="throw"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="throw" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("order", nil)
		// Both instances did "first"; the one completing "wait" first
		// completes first, so its handlers run last.
		tasks := e.Tasks(pi)
		if len(tasks) != 2 {
			t.Fatalf("tasks %d", len(tasks))
		}
		for _, tk := range tasks {
			if err := e.Eng.CompleteTask(e.Ctx, tk.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		runs := strings.Fields(undo.String())
		if len(runs) != 4 || runs[0][:len("undosecond")] != "undosecond" || runs[1][:len("undofirst")] != "undofirst" ||
			runs[0][len("undosecond"):] != runs[1][len("undofirst"):] || runs[2][len("undosecond"):] != runs[3][len("undofirst"):] ||
			runs[0][len("undosecond"):] == runs[2][len("undosecond"):] {
			t.Fatalf("handlers ran %q, want second then first of one instance, then of the other", undo.String())
		}
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}
	})
}

// Camunda's testCompensateActivityRefTriggeredByEventSubprocess (and
// ...InSubProcess): an error event subprocess throws compensation with
// activityRef to a completed sequential multi-instance task of the scope
// around it; the handler runs once per instance, the other task's none.
func TestCompensationTriggeredByEventSubProcessActivityRef(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		undo := &varLog{}
		e.Eng.RegisterDelegate("undo", undo)
		mi := func(id string) string {
			return `
      <serviceTask id="` + id + `" camunda:expression="${true}">
        <multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>5</loopCardinality></multiInstanceLoopCharacteristics>
      </serviceTask>
      <boundaryEvent id="comp` + id + `" attachedToRef="` + id + `"><compensateEventDefinition /></boundaryEvent>
      <serviceTask id="undo` + id + `" isForCompensation="true" camunda:class="undo" />
      <association id="as` + id + `" sourceRef="comp` + id + `" targetRef="undo` + id + `" />`
		}
		body := `
      <parallelGateway id="fork" />
      <sequenceFlow id="g1" sourceRef="fork" targetRef="bookHotel" />
      <sequenceFlow id="g2" sourceRef="fork" targetRef="bookFlight" />` + mi("bookHotel") + mi("bookFlight") + `
      <parallelGateway id="join" />
      <sequenceFlow id="g3" sourceRef="bookHotel" targetRef="join" />
      <sequenceFlow id="g4" sourceRef="bookFlight" targetRef="join" />
      <sequenceFlow id="g5" sourceRef="join" targetRef="fail" />
      <endEvent id="fail"><errorEventDefinition errorRef="err" /></endEvent>
      <subProcess id="onError" triggeredByEvent="true">
        <startEvent id="caught"><errorEventDefinition errorRef="err" /></startEvent>
        <sequenceFlow id="e1" sourceRef="caught" targetRef="throw" />
        <intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="bookHotel" /></intermediateThrowEvent>
        <sequenceFlow id="e2" sourceRef="throw" targetRef="handled" />
        <endEvent id="handled" />
      </subProcess>`
		errDef := `<error id="err" errorCode="error1" />`
		processes := map[string]string{
			"inProcess": withRoots(errDef, enginetest.Process("inProcess", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />`+body)),
			"inSubProcess": withRoots(errDef, enginetest.Process("inSubProcess", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="f0" sourceRef="subStart" targetRef="fork" />`+body+`
    </subProcess>
    <sequenceFlow id="f2" sourceRef="sub" targetRef="end" />
    <endEvent id="end" />`)),
		}
		for key, xml := range processes {
			undo.runs = nil
			e.Deploy(key, xml)
			pi := e.Start(key, nil)
			if got := e.State(pi); got != bpmnlite.StateCompleted {
				t.Fatalf("%s: state %s", key, got)
			}
			if n, m := handlersRun(e, pi, "undobookHotel"), handlersRun(e, pi, "undobookFlight"); n != 5 || m != 0 {
				t.Fatalf("%s: undobookHotel ran %d times, undobookFlight %d: want 5 and 0", key, n, m)
			}
		}
	})
}

// An interrupted multi-instance body keeps nothing to compensate, as in
// Camunda (the body's execution goes with what it kept).
func TestCompensationOfInterruptedMiBody(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("interrupted", withRoots(`<signal id="sig" name="sig" />`, enginetest.Process("interrupted", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="bookHotel" />
    <userTask id="bookHotel">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>
    </userTask>
    <boundaryEvent id="compBook" attachedToRef="bookHotel"><compensateEventDefinition /></boundaryEvent>
    <userTask id="undoBookHotel" isForCompensation="true" />
    <association id="asBook" sourceRef="compBook" targetRef="undoBookHotel" />
    <boundaryEvent id="stop" attachedToRef="bookHotel"><signalEventDefinition signalRef="sig" /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="stop" targetRef="throw" />
    <intermediateThrowEvent id="throw"><compensateEventDefinition /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="throw" targetRef="after" />
    <userTask id="after" />
    <sequenceFlow id="f4" sourceRef="bookHotel" targetRef="end" />
    <endEvent id="end" />`)))
		pi := e.Start("interrupted", nil)
		e.Complete(pi, "bookHotel", nil)
		e.Signal("sig")
		if got := e.TaskKeys(pi); got != "after" {
			t.Fatalf("open tasks %q, want after (no handler)", got)
		}
		if subs := e.SubsOf(pi); len(subs) != 0 {
			t.Fatalf("left: %+v", subs)
		}
	})
}

// Camunda's testCallActivityCompensationHandler: the handler of a task in
// a sequential multi-instance subprocess is a call activity, which calls
// its process once per completed instance.
func TestCallActivityCompensationHandler(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("handlerProcess", enginetest.Process("compensationHandler", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="end" />
    <endEvent id="end" />`))
		e.Deploy("compensateProcess", compensateScope("compensateProcess", `
      <multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>5</loopCardinality></multiInstanceLoopCharacteristics>`, "bookHotel", `
      <serviceTask id="bookHotel" camunda:expression="${true}" />
      <boundaryEvent id="compBook" attachedToRef="bookHotel"><compensateEventDefinition /></boundaryEvent>
      <callActivity id="undoBookHotel" isForCompensation="true" calledElement="compensationHandler" />
      <association id="asBook" sourceRef="compBook" targetRef="undoBookHotel" />`, false))
		pi := e.Start("compensateProcess", nil)
		if n := handlersRun(e, pi, "undoBookHotel"); n != 5 {
			t.Fatalf("%d handler instances, want 5", n)
		}
		e.Complete(pi, "beforeEnd", nil)
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}
		all, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 6 {
			t.Fatalf("%d process instances in history, want 6 (5 called by the handlers)", len(all))
		}
	})
}

// Camunda's testCompensateParallelSubprocessCompHandlerWaitstate and
// testDeleteParallelSubprocessCompHandlerWaitstate: compensating a
// subprocess beside a parallel task compensates the sequential
// multi-instance task inside it once per instance, with user task handlers
// that wait; the instance goes on once they are done, or can be deleted
// while they wait.
func TestCompensateParallelSubprocessCompHandlerWaitstate(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("compensateProcess", compensateScope("compensateProcess", "", "bookHotel", `
      <serviceTask id="bookHotel" camunda:expression="${true}">
        <multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>5</loopCardinality></multiInstanceLoopCharacteristics>
      </serviceTask>
      <boundaryEvent id="compBook" attachedToRef="bookHotel"><compensateEventDefinition /></boundaryEvent>
      <userTask id="undoBookHotel" isForCompensation="true" />
      <association id="asBook" sourceRef="compBook" targetRef="undoBookHotel" />`, true))
		pi := e.Start("compensateProcess", nil)
		const waiting = "parallelTask,undoBookHotel,undoBookHotel,undoBookHotel,undoBookHotel,undoBookHotel"
		if got := e.TaskKeys(pi); got != waiting {
			t.Fatalf("open tasks %q, want %q", got, waiting)
		}
		for i := 0; i < 5; i++ {
			e.Complete(pi, "undoBookHotel", nil)
		}
		e.Complete(pi, "parallelTask", nil)
		e.Complete(pi, "beforeEnd", nil)
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}

		deleted := e.Start("compensateProcess", nil)
		if got := e.TaskKeys(deleted); got != waiting {
			t.Fatalf("open tasks %q, want %q", got, waiting)
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, deleted, "test"); err != nil {
			t.Fatal(err)
		}
		if got := e.State(deleted); got == bpmnlite.StateActive {
			t.Fatalf("state %s after deletion", got)
		}
		if subs := e.SubsOf(deleted); len(subs) != 0 {
			t.Fatalf("a deleted instance left %+v", subs)
		}
		// The snapshots went with what was kept, and the handlers' paths.
		if n := harness.CountRows(t, e.DB(), "SELECT count(*) FROM variable"); n != 0 {
			t.Fatalf("%d variable rows left", n)
		}
	})
}

// Compensation thrown by an error event subprocess inside a running
// multi-instance subprocess compensates what that inner instance
// completed, seeing its element variable, as Camunda's walk from the
// thrower up to the subprocess does; the other instances are compensated
// only when the subprocess is, once the body completed.
func TestCompensationInEventSubprocessOfMiSubprocess(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		undo := &varLog{names: []string{"flight"}}
		e.Eng.RegisterDelegate("do", &harness.Recorder{})
		e.Eng.RegisterDelegate("undo", undo)
		e.Deploy("espInMi", withRoots(`<error id="err" errorCode="fail" />`, enginetest.Process("espInMi", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="scope" />
    <subProcess id="scope">
      <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="flights" camunda:elementVariable="flight" />
      <startEvent id="inStart" />
      <sequenceFlow id="i1" sourceRef="inStart" targetRef="book" />`+miTask("")+`
      <sequenceFlow id="i2" sourceRef="book" targetRef="check" />
      <exclusiveGateway id="check" default="ok" />
      <sequenceFlow id="bad" sourceRef="check" targetRef="fail"><conditionExpression>${flight == "STS-28"}</conditionExpression></sequenceFlow>
      <endEvent id="fail"><errorEventDefinition errorRef="err" /></endEvent>
      <sequenceFlow id="ok" sourceRef="check" targetRef="inEnd" />
      <endEvent id="inEnd" />
      <subProcess id="onError" triggeredByEvent="true">
        <startEvent id="caught"><errorEventDefinition errorRef="err" /></startEvent>
        <sequenceFlow id="e1" sourceRef="caught" targetRef="undoHere" />
        <intermediateThrowEvent id="undoHere"><compensateEventDefinition /></intermediateThrowEvent>
        <sequenceFlow id="e2" sourceRef="undoHere" targetRef="handled" />
        <endEvent id="handled" />
      </subProcess>
    </subProcess>
    <sequenceFlow id="f2" sourceRef="scope" targetRef="throw" />
    <intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="scope" /></intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="throw" targetRef="end" />
    <endEvent id="end" />`)))
		pi := e.Start("espInMi", map[string]any{"flights": []any{"STS-14", "STS-28", "STS-41"}})
		wantCompensated(e, "espInMi", pi, "undoBook", undo, "undoBook(flight=STS-28) undoBook(flight=STS-41) undoBook(flight=STS-14)", 3)
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}
	})
}
