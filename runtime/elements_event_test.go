package runtime_test

// Intermediate catch and throw events, boundary events, message start events.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

func timerCatch(id, kind, value string) string {
	return `<intermediateCatchEvent id="` + id + `"><timerEventDefinition><` + kind + `>` + value + `</` + kind + `></timerEventDefinition></intermediateCatchEvent>`
}

// A duration timer is due exactly that long after the path reached it.
func TestElementTimerCatchDuration(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>`, timerCatch("wait", "timeDuration", "PT5M"),
			`<userTask id="after"/>`, enginetest.Chain("start", "wait", "after"))))
		e.Clock.Add(17 * time.Second) // not on a minute boundary
		started := e.Clock.Now()
		pi := e.Start("p", nil)
		j := e.OneJob(pi)
		if j.Type != "timer" || j.HandlerType != "timer-intermediate-transition" || j.ActivityID != "wait" ||
			j.DueDate == nil || !j.DueDate.Equal(started.Add(5*time.Minute)) || j.ExecutionID != e.ExecAt(pi, "wait").ID {
			t.Fatalf("timer job = %+v, want due %v", j, started.Add(5*time.Minute))
		}
		wantEq(t, "due jobs after 4m59s", e.runDue(4*time.Minute+59*time.Second), 0)
		wantEq(t, "tasks", e.TaskKeys(pi), "")
		wantEq(t, "due jobs after 5m", e.runDue(time.Second), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "path", e.Path(pi), "start,wait,after")
	})
}

// A timeDate timer is due at the date: a constant, or an expression giving
// a time.Time or an ISO 8601 string.
func TestElementTimerCatchDate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("fixed", enginetest.Defs(enginetest.Executable("fixed", `<startEvent id="start"/>`, timerCatch("wait", "timeDate", "2026-02-01T10:00:00Z"),
			`<userTask id="after"/>`, enginetest.Chain("start", "wait", "after"))))
		e.Deploy("expr", enginetest.Defs(enginetest.Executable("expr", `<startEvent id="start"/>`, timerCatch("wait", "timeDate", "${dueDate}"),
			`<userTask id="after"/>`, enginetest.Chain("start", "wait", "after"))))
		want := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
		for name, vars := range map[string]map[string]any{
			"constant":  nil,
			"time.Time": {"dueDate": want.In(time.FixedZone("EST", -5*3600))},
			"string":    {"dueDate": "2026-02-01T10:00:00Z"},
		} {
			key := "expr"
			if vars == nil {
				key = "fixed"
			}
			pi := e.Start(key, vars)
			if j := e.OneJob(pi); j.DueDate == nil || !j.DueDate.Equal(want) {
				t.Errorf("%s: due date %v, want %v", name, j.DueDate, want)
			}
		}
		// Running it (before its date, as ExecuteJob does) continues the path.
		pi := e.Start("fixed", nil)
		e.runJob(e.OneJob(pi).ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

const messageCatchProcess = `<startEvent id="start"/>
	<intermediateCatchEvent id="wait"><messageEventDefinition messageRef="msg"/></intermediateCatchEvent>
	<userTask id="after"/>`

func TestElementMessageCatch(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="msg" name="orderPaid"/>`, enginetest.Executable("p", messageCatchProcess, enginetest.Chain("start", "wait", "after"))))
		start := func(bk string, order int) string {
			t.Helper()
			id, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", BusinessKey: bk, Variables: map[string]any{"orderId": order}})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		a, b, c := start("A", 1), start("B", 2), start("C", 3)
		if subs := e.SubsOf(a); len(subs) != 1 || subs[0].EventType != "message" || subs[0].EventName != "orderPaid" {
			t.Fatalf("subscriptions = %+v", subs)
		}
		correlate := func(req bpmnlite.CorrelateRequest) []string {
			t.Helper()
			req.MessageName = "orderPaid"
			ids, err := e.Eng.Correlate(e.Ctx, req)
			if err != nil {
				t.Fatalf("correlate %+v: %v", req, err)
			}
			return ids
		}
		wantEq(t, "by business key", correlate(bpmnlite.CorrelateRequest{BusinessKey: "B", Variables: map[string]any{"paidBy": "card"}}), []string{b})
		wantEq(t, "B tasks", e.TaskKeys(b), "after")
		wantEq(t, "B paidBy", e.VarsOf(b)["paidBy"], "card")
		wantEq(t, "A tasks", e.TaskKeys(a), "")
		wantEq(t, "by correlation key", correlate(bpmnlite.CorrelateRequest{CorrelationKeys: map[string]any{"orderId": 3}}), []string{c})
		wantEq(t, "C tasks", e.TaskKeys(c), "after")
		wantEq(t, "by instance", correlate(bpmnlite.CorrelateRequest{ProcessInstanceID: a}), []string{a})
		wantEq(t, "A tasks", e.TaskKeys(a), "after")
		// Nobody waits any more.
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "orderPaid", BusinessKey: "A"}); !errors.Is(err, bpmnlite.ErrNoMatch) {
			t.Errorf("correlate again: %v, want ErrNoMatch", err)
		}
	})
}

// Correlation needs exactly one receiver unless All is set; a message
// nobody waits for is ErrNoMatch.
func TestElementCorrelateAmbiguousAndAll(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="msg" name="go"/>`, enginetest.Executable("p", messageCatchProcess, enginetest.Chain("start", "wait", "after"))))
		a, b := e.Start("p", nil), e.Start("p", nil)
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "go"}); !errors.Is(err, bpmnlite.ErrAmbiguous) {
			t.Fatalf("correlate: %v, want ErrAmbiguous", err)
		}
		wantEq(t, "tasks after the ambiguous message", e.TaskKeys(a)+"|"+e.TaskKeys(b), "|")
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "nobody"}); !errors.Is(err, bpmnlite.ErrNoMatch) {
			t.Errorf("correlate unknown: %v, want ErrNoMatch", err)
		}
		ids, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "go", All: true})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		want := []string{a, b}
		slices.Sort(want)
		wantEq(t, "receivers", ids, want)
		wantEq(t, "tasks", e.TaskKeys(a)+"|"+e.TaskKeys(b), "after|after")
	})
}

// A message start event starts an instance when no instance waits.
func TestElementMessageStartEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="msg" name="orderReceived"/>`, enginetest.Executable("p",
			`<startEvent id="byMessage"><messageEventDefinition messageRef="msg"/></startEvent><userTask id="handle"/>`,
			enginetest.Chain("byMessage", "handle"))))
		ids, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "orderReceived", BusinessKey: "order-7",
			Variables: map[string]any{"amount": 30}})
		if err != nil || len(ids) != 1 {
			t.Fatalf("correlate = %v, %v", ids, err)
		}
		pi := ids[0]
		wantEq(t, "tasks", e.TaskKeys(pi), "handle")
		h := e.instanceOf(pi)
		if h.BusinessKey != "order-7" || h.StartActivityID != "byMessage" || h.ProcessDefinitionKey != "p" {
			t.Errorf("history = %+v", h)
		}
		wantEq(t, "amount", e.VarsOf(pi)["amount"], int64(30))
		wantEq(t, "path", e.Path(pi), "byMessage,handle")
		// Each message starts another instance; the start subscription stays.
		if ids, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "orderReceived"}); err != nil || len(ids) != 1 || ids[0] == pi {
			t.Errorf("second correlate = %v, %v", ids, err)
		}
		// Started by key, a process whose only start event is a message
		// start event begins there, as Camunda's startProcessInstanceByKey.
		byKey, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err != nil {
			t.Fatalf("start by key at the only (message) start event: %v", err)
		}
		wantEq(t, "path", e.Path(byKey), "byMessage,handle")
	})
}

func TestElementSignalCatch(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<signal id="sig" name="alert"/>`, enginetest.Executable("p", `<startEvent id="start"/>
			<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent><userTask id="after"/>`,
			enginetest.Chain("start", "wait", "after"))))
		a, b := e.Start("p", nil), e.Start("p", nil)
		if subs := e.SubsOf(a); len(subs) != 1 || subs[0].EventType != "signal" || subs[0].EventName != "alert" {
			t.Fatalf("subscriptions = %+v", subs)
		}
		if err := e.Eng.Signal(e.Ctx, "alert", map[string]any{"level": "red"}); err != nil {
			t.Fatal(err)
		}
		for _, pi := range []string{a, b} {
			wantEq(t, "tasks", e.TaskKeys(pi), "after")
			wantEq(t, "level", e.VarsOf(pi)["level"], "red")
			wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		}
		// A signal nobody waits for is not an error.
		if err := e.Eng.Signal(e.Ctx, "alert", nil); err != nil {
			t.Errorf("signal without receivers: %v", err)
		}
	})
}

func TestElementThrowEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("catcher", enginetest.Defs(`<signal id="sig" name="wakeUp"/>`, enginetest.Executable("catcher", `<startEvent id="start"/>
			<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent><userTask id="awake"/>`,
			enginetest.Chain("start", "wait", "awake"))))
		e.Deploy("thrower", enginetest.Defs(`<signal id="sig" name="wakeUp"/>`, enginetest.Executable("thrower", `<startEvent id="start"/>
			<intermediateThrowEvent id="none"/>
			<intermediateThrowEvent id="throw"><signalEventDefinition signalRef="sig"/></intermediateThrowEvent><endEvent id="end"/>`,
			enginetest.Chain("start", "none", "throw", "end"))))
		a, b := e.Start("catcher", nil), e.Start("catcher", nil)
		pi := e.Start("thrower", nil)
		wantEq(t, "thrower state", e.State(pi), "COMPLETED")
		wantEq(t, "thrower path", e.Path(pi), "start,none,throw,end")
		wantEq(t, "catcher tasks", e.TaskKeys(a)+"|"+e.TaskKeys(b), "awake|awake")

		// Within one instance: the catching path, armed first, is woken by
		// the throwing path in the same call.
		e.Deploy("self", enginetest.Defs(`<signal id="sig" name="ready"/>`, enginetest.Executable("self", `<startEvent id="start"/><parallelGateway id="fork"/>
			<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
			<intermediateThrowEvent id="throw"><signalEventDefinition signalRef="sig"/></intermediateThrowEvent>
			<userTask id="woken"/><endEvent id="end"/>`,
			enginetest.Chain("start", "fork", "wait", "woken"), enginetest.Chain("fork", "throw", "end"))))
		pi = e.Start("self", nil)
		wantEq(t, "self tasks", e.TaskKeys(pi), "woken")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
	})
}

func boundaryTimer(id, host, cancel, kind, value string) string {
	return `<boundaryEvent id="` + id + `" attachedToRef="` + host + `" cancelActivity="` + cancel + `"><timerEventDefinition><` +
		kind + `>` + value + `</` + kind + `></timerEventDefinition></boundaryEvent>`
}

// An interrupting timer on a user task cancels the task and continues from
// the boundary event.
func TestElementBoundaryTimerInterrupting(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>`,
			boundaryTimer("late", "work", "true", "timeDuration", "PT1H"), `<userTask id="escalate"/>`,
			enginetest.Chain("start", "work", "end"), enginetest.Chain("late", "escalate"))))
		pi := e.Start("p", nil)
		j := e.OneJob(pi)
		if j.HandlerType != "timer-transition" || j.ActivityID != "late" || !j.DueDate.Equal(e.Clock.Now().Add(time.Hour)) {
			t.Fatalf("job = %+v", j)
		}
		wantEq(t, "due jobs", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "escalate")
		wantEq(t, "path", e.Path(pi), "start,work,late,escalate")
		if h := e.HistoryAt(pi, "work"); len(h) != 1 || !h[0].Canceled || h[0].EndTime == nil {
			t.Errorf("history of work = %+v, want canceled", h)
		}
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)

		// Completing the task first removes the timer.
		pi = e.Start("p", nil)
		wantEq(t, "jobs", len(e.Jobs(pi)), 1)
		e.Complete(pi, "work", nil)
		wantEq(t, "jobs after completing", len(e.Jobs(pi)), 0)
		wantEq(t, "state", e.State(pi), "COMPLETED")
	})
}

// A non-interrupting cycle timer R2/PT1H fires twice, each time starting a
// new path, while the task stays.
func TestElementBoundaryTimerNonInterruptingCycle(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>`,
			boundaryTimer("remindTimer", "work", "false", "timeCycle", "R2/PT1H"), `<userTask id="remind"/>`,
			enginetest.Chain("start", "work", "end"), enginetest.Chain("remindTimer", "remind"))))
		t0 := e.Clock.Now()
		pi := e.Start("p", nil)
		wantEq(t, "first due", *e.OneJob(pi).DueDate, t0.Add(time.Hour))
		wantEq(t, "due jobs at 1h", e.runDue(time.Hour), 1)
		wantEq(t, "tasks at 1h", e.TaskKeys(pi), "remind,work")
		wantEq(t, "second due", *e.OneJob(pi).DueDate, t0.Add(2*time.Hour))
		wantEq(t, "due jobs at 2h", e.runDue(time.Hour), 1)
		wantEq(t, "tasks at 2h", e.TaskKeys(pi), "remind,remind,work")
		wantEq(t, "jobs after two runs", len(e.Jobs(pi)), 0)
		wantEq(t, "work passes", len(e.HistoryAt(pi, "work")), 1)
		e.Complete(pi, "work", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "remind,remind")
		wantEq(t, "state", e.State(pi), "ACTIVE")
	})
}

func TestElementBoundaryMessage(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="cancel" name="cancel"/><message id="info" name="info"/>`, enginetest.Executable("p",
			`<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>
			<boundaryEvent id="onCancel" attachedToRef="work"><messageEventDefinition messageRef="cancel"/></boundaryEvent>
			<boundaryEvent id="onInfo" attachedToRef="work" cancelActivity="false"><messageEventDefinition messageRef="info"/></boundaryEvent>
			<endEvent id="cancelled"/><userTask id="readInfo"/>`,
			enginetest.Chain("start", "work", "end"), enginetest.Chain("onCancel", "cancelled"), enginetest.Chain("onInfo", "readInfo"))))
		correlate := func(pi, name string) {
			t.Helper()
			if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: name, ProcessInstanceID: pi}); err != nil {
				t.Fatalf("correlate %s: %v", name, err)
			}
		}
		pi := e.Start("p", nil)
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 2)
		// Non-interrupting: a new path each time, the task and the
		// subscriptions stay.
		correlate(pi, "info")
		wantEq(t, "tasks after info", e.TaskKeys(pi), "readInfo,work")
		correlate(pi, "info")
		wantEq(t, "tasks after second info", e.TaskKeys(pi), "readInfo,readInfo,work")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 2)
		// Interrupting: the task is cancelled, its subscriptions go.
		correlate(pi, "cancel")
		wantEq(t, "tasks after cancel", e.TaskKeys(pi), "readInfo,readInfo")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		if h := e.HistoryAt(pi, "work"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of work = %+v, want canceled", h)
		}
		wantEq(t, "cancelled reached", len(e.HistoryAt(pi, "cancelled")), 1)
	})
}

// A boundary event on a subprocess cancels everything inside it.
func TestElementBoundaryOnSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<subProcess id="sub"><startEvent id="subStart"/><parallelGateway id="fork"/><userTask id="a"/>
			  <intermediateCatchEvent id="wait"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>`,
			enginetest.Chain("subStart", "fork", "a"), enginetest.Chain("fork", "wait"),
			`</subProcess><endEvent id="end"/>`, boundaryTimer("late", "sub", "true", "timeDuration", "PT1H"), `<userTask id="tooLate"/>`,
			enginetest.Chain("start", "sub", "end"), enginetest.Chain("late", "tooLate")), `<message id="m" name="m"/>`))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "a")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 1)
		wantEq(t, "due jobs", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "tooLate")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		for _, id := range []string{"a", "wait", "sub"} {
			if h := e.HistoryAt(pi, id); len(h) != 1 || !h[0].Canceled {
				t.Errorf("history of %s = %+v, want canceled", id, h)
			}
		}
		wantEq(t, "executions", len(e.Executions(pi, "")), 1) // the instance, at tooLate
	})
}
