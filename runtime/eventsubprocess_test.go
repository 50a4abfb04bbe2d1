package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// Event subprocesses as Camunda runs them (EventSubProcessTest,
// MessageEventSubprocessTest, TimerStartEventSubprocessTest,
// ErrorEventSubProcessTest, SignalEventSubprocessTest,
// EscalationEventSubprocessTest): their start events are armed while the
// enclosing scope runs; an interrupting one cancels the rest of the scope,
// a non-interrupting one runs beside it.

const espRoots = `<message id="cancelMsg" name="cancel"/><message id="noteMsg" name="note"/><signal id="alarmSig" name="alarm"/>
<error id="failed" errorCode="FAILED"/><error id="other" errorCode="OTHER"/><escalation id="late" escalationCode="LATE"/>`

// espDef is an event subprocess with the given start event definition,
// whose content is a user task and an end event.
func espDef(id string, interrupting bool, definition, task string) string {
	return fmt.Sprintf(`<subProcess id="%s" triggeredByEvent="true"><startEvent id="%sStart" isInterrupting="%v">%s</startEvent>
<userTask id="%s"/><endEvent id="%sEnd"/>%s</subProcess>`, id, id, interrupting, definition, task, id, enginetest.Chain(id+"Start", task, id+"End"))
}

// espProcess is start → work (a user task) → end, beside the given event subprocesses.
func espProcess(esps ...string) string {
	return enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>`,
		enginetest.Chain("start", "work", "end"), strings.Join(esps, "")))
}

// espSubprocess is start → sub → after → end, where sub runs its work task
// beside the given event subprocesses.
func espSubprocess(esps ...string) string {
	return enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><subProcess id="sub"><startEvent id="subStart"/><userTask id="work"/><endEvent id="subEnd"/>`,
		enginetest.Chain("subStart", "work", "subEnd"), strings.Join(esps, ""), `</subProcess><userTask id="after"/><endEvent id="end"/>`,
		enginetest.Chain("start", "sub", "after", "end")))
}

const (
	msgCancel  = `<messageEventDefinition messageRef="cancelMsg"/>`
	msgNote    = `<messageEventDefinition messageRef="noteMsg"/>`
	sigAlarm   = `<signalEventDefinition signalRef="alarmSig"/>`
	escLate    = `<escalationEventDefinition escalationRef="late"/>`
	errFailed  = `<errorEventDefinition errorRef="failed"/>`
	errAnyVars = `<errorEventDefinition camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/>`
)

func timerDef(kind, value string) string {
	return `<timerEventDefinition><` + kind + `>` + value + `</` + kind + `></timerEventDefinition>`
}

// subNames lists pi's event subscriptions as "activity:name", sorted.
func (e *env) subNames(pi string) string {
	e.T.Helper()
	var out []string
	for _, s := range e.SubsOf(pi) {
		out = append(out, s.ActivityID+":"+s.EventName)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// canceled reports the canceled flag of activity's history rows, in order.
func (e *env) canceled(pi, activity string) []bool {
	e.T.Helper()
	var out []bool
	for _, h := range e.HistoryAt(pi, activity) {
		out = append(out, h.Canceled)
	}
	return out
}

// tree describes pi's executions as "activity[flags]" under their parents:
// s scope, c concurrent; the process instance first.
func (e *env) tree(pi string) string {
	e.T.Helper()
	xs := e.Executions(pi, "")
	var walk func(parent string) string
	walk = func(parent string) string {
		var parts []string
		for _, x := range xs {
			if x.ParentID != parent {
				continue
			}
			flags := ""
			if x.IsScope {
				flags += "s"
			}
			if x.IsConcurrent {
				flags += "c"
			}
			part := x.ActivityID + "[" + flags + "]"
			if inner := walk(x.ID); inner != "" {
				part += "(" + inner + ")"
			}
			parts = append(parts, part)
		}
		slices.Sort(parts)
		return strings.Join(parts, " ")
	}
	return walk("")
}

func TestEventSubprocessMessageInterrupting(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(espDef("onCancel", true, msgCancel, "handle"),
			espDef("onAlarm", false, sigAlarm, "alarmed"), espDef("onTimeout", true, timerDef("timeDuration", "PT1H"), "timedOut")))
		pi := e.Start("p", nil)
		wantEq(t, "subscriptions", e.subNames(pi), "onAlarmStart:alarm,onCancelStart:cancel")
		if js := e.Jobs(pi); len(js) != 1 || js[0].ExecutionID != pi || js[0].ActivityID != "onTimeoutStart" || js[0].HandlerType != "timer-start-event-subprocess" {
			t.Fatalf("jobs = %+v, want the event subprocess timer on the process instance", js)
		}
		wantEq(t, "tree", e.tree(pi), "work[s]")

		e.Correlate("cancel", pi, map[string]any{"reason": "customer"})
		wantEq(t, "tasks", e.TaskKeys(pi), "handle")
		wantEq(t, "work canceled", e.canceled(pi, "work"), []bool{true})
		wantEq(t, "tree", e.tree(pi), "[s](handle[s])")
		// An interrupting start removes the other triggers of its scope.
		wantEq(t, "subscriptions", e.subNames(pi), "")
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "reason", e.VarsOf(pi)["reason"], "customer")

		e.Complete(pi, "handle", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
		wantEq(t, "path", e.Path(pi), "start,work,onCancel,onCancelStart,handle,onCancelEnd")
		for _, h := range e.HistoryOf(pi) {
			if h.EndTime == nil {
				t.Errorf("activity instance %s not ended", h.ActivityID)
			}
			if h.ActivityID == "onCancelStart" && h.ParentActivityInstanceID != e.HistoryAt(pi, "onCancel")[0].ID {
				t.Errorf("the start event's parent activity instance is %s, want the event subprocess's", h.ParentActivityInstanceID)
			}
		}
	})
}

// A non-interrupting message start stays armed: each message runs the
// event subprocess once more beside the main path; the process instance
// completes when all of them are done.
func TestEventSubprocessMessageNonInterruptingTwice(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(espDef("onNote", false, msgNote, "read")))
		pi := e.Start("p", nil)
		e.Correlate("note", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "read,work")
		wantEq(t, "tree", e.tree(pi), "[s]([c](read[s]) work[c])")
		e.Correlate("note", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "read,read,work")
		wantEq(t, "subscriptions", e.subNames(pi), "onNoteStart:note")
		// The trigger stays on the process instance when its path moves to
		// a concurrent child.
		wantEq(t, "subscription's execution", e.SubsOf(pi)[0].ExecutionID, pi)
		wantEq(t, "work not canceled", e.canceled(pi, "work"), []bool{false})

		e.Complete(pi, "work", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateActive)
		wantEq(t, "subscriptions while the scope runs", e.subNames(pi), "onNoteStart:note")
		e.Complete(pi, "read", nil)
		wantEq(t, "tree", e.tree(pi), "[s](read[s])")
		e.Complete(pi, "read", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
		wantEq(t, "subscriptions", e.subNames(pi), "")
		wantEq(t, "event subprocess instances", e.canceled(pi, "onNote"), []bool{false, false})
	})
}

func TestEventSubprocessSignalInSubprocess(t *testing.T) {
	for _, interrupting := range []bool{true, false} {
		t.Run(fmt.Sprintf("interrupting=%v", interrupting), func(t *testing.T) {
			eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
				e.Deploy("p", espSubprocess(espDef("onAlarm", interrupting, sigAlarm, "alarmed")))
				pi := e.Start("p", nil)
				sub := e.ExecAt(pi, "work") // the subprocess's scope execution runs work
				if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ExecutionID != sub.ID {
					t.Fatalf("subscriptions %+v, want one on the subprocess's scope execution %s", subs, sub.ID)
				}
				e.Signal("alarm")
				if interrupting {
					wantEq(t, "tasks", e.TaskKeys(pi), "alarmed")
					wantEq(t, "tree", e.tree(pi), "[s]([s](alarmed[s]))")
					wantEq(t, "work canceled", e.canceled(pi, "work"), []bool{true})
					wantEq(t, "subscriptions", e.subNames(pi), "")
				} else {
					wantEq(t, "tasks", e.TaskKeys(pi), "alarmed,work")
					wantEq(t, "tree", e.tree(pi), "[s]([s]([c](alarmed[s]) work[c]))")
					wantEq(t, "subscriptions", e.subNames(pi), "onAlarmStart:alarm")
					e.Complete(pi, "work", nil)
					wantEq(t, "tasks after work", e.TaskKeys(pi), "alarmed")
				}
				e.Complete(pi, "alarmed", nil)
				wantEq(t, "tasks", e.TaskKeys(pi), "after")
				wantEq(t, "subscriptions after the subprocess", e.subNames(pi), "")
				wantEq(t, "sub not canceled", e.canceled(pi, "sub"), []bool{false})
				e.Complete(pi, "after", nil)
				wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
			})
		})
	}
}

// A timer start is a job on the scope's execution: an interrupting one
// fires once, a non-interrupting cycle keeps firing per its cycle while the
// scope runs. failedJobRetryTimeCycle applies to it.
func TestEventSubprocessTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		retry := `<extensionElements><camunda:failedJobRetryTimeCycle>R7/PT5M</camunda:failedJobRetryTimeCycle></extensionElements>`
		e.Deploy("p", espSubprocess(strings.Replace(espDef("reminder", false, timerDef("timeCycle", "R2/PT1H"), "remind"), `isInterrupting="false">`, `isInterrupting="false">`+retry, 1),
			espDef("deadline", true, timerDef("timeDate", "2031-01-01T00:00:00Z"), "overdue")))
		pi := e.Start("p", nil)
		sub := e.ExecAt(pi, "work") // the subprocess's scope execution runs work
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("jobs %+v, want two timers", js)
		}
		for _, j := range js {
			if j.ExecutionID != sub.ID {
				t.Errorf("timer %s on %s, want the subprocess's scope execution", j.ActivityID, j.ExecutionID)
			}
			if j.ActivityID == "reminderStart" && j.Retries != 7 {
				t.Errorf("retries %d, want 7 from failedJobRetryTimeCycle", j.Retries)
			}
		}
		wantEq(t, "ran", e.runDue(time.Hour+time.Minute), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "remind,work")
		wantEq(t, "jobs", len(e.Jobs(pi)), 2)
		wantEq(t, "ran", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "remind,remind,work")
		wantEq(t, "jobs after the cycle's last run", len(e.Jobs(pi)), 1)

		e.Clock.Set(time.Date(2031, 1, 1, 0, 0, 1, 0, time.UTC))
		wantEq(t, "ran", e.runDue(0), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "overdue")
		wantEq(t, "reminders canceled", e.canceled(pi, "remind"), []bool{true, true})
		wantEq(t, "tree", e.tree(pi), "[s]([s](overdue[s]))")
		e.Complete(pi, "overdue", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

// The job executor fires an event subprocess's timer like any other.
func TestEventSubprocessTimerByJobExecutor(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(espDef("onTimeout", true, timerDef("timeDuration", "PT10M"), "timedOut")))
		pi := e.Start("p", nil)
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		e.Clock.Add(11 * time.Minute)
		deadline := time.Now().Add(20 * time.Second)
		for e.TaskKeys(pi) != "timedOut" {
			if time.Now().After(deadline) {
				t.Fatalf("tasks %q, want timedOut after the timer fired", e.TaskKeys(pi))
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantEq(t, "work canceled", e.canceled(pi, "work"), []bool{true})
	})
}

// BPMN errors from a delegate, an error end event and an external task are
// caught by an error start event, outward as boundary events are; for one
// scope the event subprocess comes before the boundary events of the
// scope's activity (Camunda's precedence), the boundary events of an inner
// activity before both.
func TestEventSubprocessErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			code, _, _ := ex.Variable("code")
			return &bpmnlite.BpmnError{Code: fmt.Sprint(code), Message: "it failed"}
		}))
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><exclusiveGateway id="how"/>
<serviceTask id="call" camunda:class="fail"/>
<boundaryEvent id="callOther" attachedToRef="call"><errorEventDefinition errorRef="other"/></boundaryEvent><userTask id="afterCallOther"/>
<serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
<subProcess id="sub"><startEvent id="subStart"/><endEvent id="throwFailed">`+errFailed+`</endEvent>`+enginetest.Chain("subStart", "throwFailed")+
			espDef("inSub", true, `<errorEventDefinition/>`, "handleInSub")+`</subProcess>
<boundaryEvent id="subFailed" attachedToRef="sub">`+errFailed+`</boundaryEvent><userTask id="afterSubFailed"/>
<endEvent id="end"/>`,
			`<sequenceFlow id="toCall" sourceRef="how" targetRef="call"><conditionExpression>${way == 'call'}</conditionExpression></sequenceFlow>
<sequenceFlow id="toExt" sourceRef="how" targetRef="ext"><conditionExpression>${way == 'ext'}</conditionExpression></sequenceFlow>
<sequenceFlow id="toSub" sourceRef="how" targetRef="sub"><conditionExpression>${way == 'sub'}</conditionExpression></sequenceFlow>`,
			enginetest.Chain("start", "how"), enginetest.Chain("call", "end"), enginetest.Chain("ext", "end"), enginetest.Chain("sub", "end"),
			enginetest.Chain("callOther", "afterCallOther"), enginetest.Chain("subFailed", "afterSubFailed"),
			espDef("onError", true, errAnyVars, "repair"))))

		// From a delegate: the process-level catch-all sets its variables.
		pi := e.Start("p", map[string]any{"way": "call", "code": "FAILED"})
		wantEq(t, "tasks", e.TaskKeys(pi), "repair")
		wantEq(t, "code", e.VarsOf(pi)["code"], "FAILED")
		wantEq(t, "why", e.VarsOf(pi)["why"], "it failed")
		wantEq(t, "call canceled", e.canceled(pi, "call"), []bool{true})
		wantEq(t, "tree", e.tree(pi), "[s](repair[s])")

		// The boundary event of the throwing task comes first.
		pi = e.Start("p", map[string]any{"way": "call", "code": "OTHER"})
		wantEq(t, "tasks", e.TaskKeys(pi), "afterCallOther")

		// From an error end event in a subprocess: its own catch-all event
		// subprocess wins over the subprocess's boundary event naming the code.
		pi = e.Start("p", map[string]any{"way": "sub"})
		wantEq(t, "tasks", e.TaskKeys(pi), "handleInSub")
		wantEq(t, "tree", e.tree(pi), "[s]([s](handleInSub[s]))")
		e.Complete(pi, "handleInSub", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
		wantEq(t, "path", e.Path(pi), "start,how,sub,subStart,throwFailed,inSub,inSubStart,handleInSub,inSubEnd,end")

		// From an external task's handleBpmnError.
		pi = e.Start("p", map[string]any{"way": "ext"})
		locked, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: "w", MaxTasks: 1, Topics: []bpmnlite.FetchTopic{{Topic: "t", LockDuration: time.Minute}}})
		if err != nil || len(locked) != 1 {
			t.Fatalf("fetch and lock: %d tasks, %v", len(locked), err)
		}
		if err := e.Eng.HandleExternalTaskBpmnError(e.Ctx, locked[0].ID, "w", "BAD", "bad input", nil); err != nil {
			t.Fatalf("handle BPMN error: %v", err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "repair")
		wantEq(t, "code", e.VarsOf(pi)["code"], "BAD")
		wantEq(t, "ext canceled", e.canceled(pi, "ext"), []bool{true})
	})
}

// An error thrown inside an error event subprocess is not caught by it
// again: it goes outward (here uncaught, ending the path as Camunda does).
func TestEventSubprocessErrorNotRethrownIntoItself(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><endEvent id="fail">`+errFailed+`</endEvent>`, enginetest.Chain("start", "fail"),
			`<subProcess id="onError" triggeredByEvent="true"><startEvent id="onErrorStart"><errorEventDefinition/></startEvent>
<endEvent id="again">`+errFailed+`</endEvent>`+enginetest.Chain("onErrorStart", "again")+`</subProcess>`)))
		pi := e.Start("p", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
		wantEq(t, "event subprocess ran once", len(e.HistoryAt(pi, "onError")), 1)
	})
}

// Escalations from an intermediate throw event and an end event reach
// escalation start events; a non-interrupting one lets the thrower go on.
func TestEventSubprocessEscalation(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/>
<subProcess id="sub"><startEvent id="subStart"/><intermediateThrowEvent id="raise">`+escLate+`</intermediateThrowEvent><userTask id="work"/><endEvent id="subEnd"/>`+
			enginetest.Chain("subStart", "raise", "work", "subEnd")+espDef("onLate", false, escLate, "notified")+`</subProcess>
<userTask id="after"/><endEvent id="end">`+escLate+`</endEvent>`, enginetest.Chain("start", "sub", "after", "end"),
			espDef("catchAll", true, `<escalationEventDefinition/>`, "escalated"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "notified,work")
		wantEq(t, "tree", e.tree(pi), "[s]([s]([c](notified[s]) work[c]))")
		e.Complete(pi, "work", nil)
		e.Complete(pi, "notified", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		e.Complete(pi, "after", nil)
		// The escalation end event at process level is caught by the
		// interrupting catch-all.
		wantEq(t, "tasks", e.TaskKeys(pi), "escalated")
		e.Complete(pi, "escalated", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// camunda:asyncBefore on the event subprocess and on an activity inside it.
func TestEventSubprocessAsync(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(strings.Replace(espDef("onCancel", true, msgCancel, "handle"), `triggeredByEvent="true"`, `triggeredByEvent="true" camunda:asyncBefore="true" camunda:asyncAfter="true"`, 1),
			strings.Replace(espDef("onNote", false, msgNote, "read"), `<userTask id="read"/>`, `<userTask id="read" camunda:asyncBefore="true"/>`, 1)))
		pi := e.Start("p", nil)
		e.Correlate("note", pi, nil)
		j := e.OneJob(pi)
		wantEq(t, "job", j.ActivityID+" "+j.HandlerType, "read async-before")
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "read,work")

		e.Correlate("cancel", pi, nil)
		j = e.OneJob(pi)
		wantEq(t, "job", j.ActivityID+" "+j.HandlerType, "onCancel async-before")
		wantEq(t, "tasks", e.TaskKeys(pi), "")
		wantEq(t, "canceled", [][]bool{e.canceled(pi, "work"), e.canceled(pi, "read")}, [][]bool{{true}, {true}})
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle")
		e.Complete(pi, "handle", nil)
		j = e.OneJob(pi)
		wantEq(t, "job", j.ActivityID+" "+j.HandlerType, "onCancel async-after")
		wantEq(t, "state", e.State(pi), bpmnlite.StateActive)
		e.runJob(j.ID)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// A terminate end event in an event subprocess ends that event subprocess
// instance (its flow scope, as Camunda's INTERRUPT_FLOW_SCOPE): a
// non-interrupting one leaves the main path running.
func TestEventSubprocessTerminateInside(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(`<subProcess id="onNote" triggeredByEvent="true"><startEvent id="noteStart" isInterrupting="false">`+msgNote+`</startEvent>
<parallelGateway id="fork"/><userTask id="read"/><endEvent id="stop"><terminateEventDefinition/></endEvent>`+
			enginetest.Chain("noteStart", "fork", "read")+enginetest.Chain("fork", "stop")+`</subProcess>`))
		pi := e.Start("p", nil)
		e.Correlate("note", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
		wantEq(t, "read canceled", e.canceled(pi, "read"), []bool{true})
		wantEq(t, "event subprocess completed", e.canceled(pi, "onNote"), []bool{false})
		wantEq(t, "tree", e.tree(pi), "work[s]")
		wantEq(t, "subscriptions", e.subNames(pi), "noteStart:note")
		e.Complete(pi, "work", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// A suspended process instance does not receive the messages and signals
// its event subprocesses wait for; activated, it does.
func TestEventSubprocessSuspended(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(espDef("onCancel", true, msgCancel, "handle"), espDef("onAlarm", false, sigAlarm, "alarmed")))
		pi := e.Start("p", nil)
		if err := e.Eng.SuspendProcessInstance(e.Ctx, pi); err != nil {
			t.Fatal(err)
		}
		_, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "cancel"})
		if !errors.Is(err, bpmnlite.ErrNoMatch) {
			t.Errorf("correlate to a suspended instance: %v, want no match", err)
		}
		e.Signal("alarm")
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
		if err := e.Eng.ActivateProcessInstance(e.Ctx, pi); err != nil {
			t.Fatal(err)
		}
		e.Signal("alarm")
		wantEq(t, "tasks", e.TaskKeys(pi), "alarmed,work")
	})
}

// Deleting a process instance removes its event subprocess triggers.
func TestEventSubprocessDeletedInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espSubprocess(espDef("onAlarm", false, sigAlarm, "alarmed"), espDef("onTimeout", true, timerDef("timeDuration", "PT1H"), "timedOut")))
		pi := e.Start("p", nil)
		e.Signal("alarm")
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "test"); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "alarmed canceled", e.canceled(pi, "alarmed"), []bool{true})
	})
}

// A signal thrown by the instance itself reaches its own non-interrupting
// event subprocess; the thrower's path goes on beside it.
func TestEventSubprocessSignalFromOwnInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><intermediateThrowEvent id="raise">`+sigAlarm+`</intermediateThrowEvent>
<userTask id="work"/><endEvent id="end"/>`, enginetest.Chain("start", "raise", "work", "end"), espDef("onAlarm", false, sigAlarm, "alarmed"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "alarmed,work")
		wantEq(t, "tree", e.tree(pi), "[s]([c](alarmed[s]) work[c])")
		e.Complete(pi, "alarmed", nil)
		e.Complete(pi, "work", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// An interrupting start cancels every concurrent path of its scope, with
// their tasks and boundary timers, and a running non-interrupting event
// subprocess.
func TestEventSubprocessInterruptsConcurrentPaths(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/><userTask id="a"/><userTask id="b"/>
<boundaryEvent id="slow" attachedToRef="b">`+timerDef("timeDuration", "PT1H")+`</boundaryEvent><endEvent id="slowEnd"/>
<parallelGateway id="join"/><endEvent id="end"/>`, enginetest.Chain("start", "fork", "a", "join", "end"), enginetest.Chain("fork", "b", "join"), enginetest.Chain("slow", "slowEnd"),
			espDef("onNote", false, msgNote, "read"), espDef("onCancel", true, msgCancel, "handle"))))
		pi := e.Start("p", nil)
		e.Correlate("note", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "a,b,read")
		wantEq(t, "tree", e.tree(pi), "[s]([c](read[s]) a[c] b[c])")
		e.Correlate("cancel", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle")
		wantEq(t, "tree", e.tree(pi), "[s](handle[s])")
		wantEq(t, "canceled", [][]bool{e.canceled(pi, "a"), e.canceled(pi, "b"), e.canceled(pi, "read"), e.canceled(pi, "onNote")},
			[][]bool{{true}, {true}, {true}, {true}})
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "subscriptions", e.subNames(pi), "")
		e.Complete(pi, "handle", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// A BPMN error of a called process, not caught there, reaches the error
// event subprocess of the caller; the called instance is deleted.
func TestEventSubprocessErrorFromCalledProcess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots,
			enginetest.Executable("callee", `<startEvent id="cs"/><userTask id="calleeWork"/><endEvent id="ce">`+errFailed+`</endEvent>`, enginetest.Chain("cs", "calleeWork", "ce")),
			enginetest.Executable("p", `<startEvent id="start"/><callActivity id="call" calledElement="callee"/><endEvent id="end"/>`, enginetest.Chain("start", "call", "end"),
				espDef("onFailed", true, `<errorEventDefinition errorRef="failed"/>`, "repair"))))
		pi := e.Start("p", nil)
		called, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "callee"})
		if err != nil || len(called) != 1 {
			t.Fatalf("called instances: %d, %v", len(called), err)
		}
		e.Complete(called[0].ID, "calleeWork", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "repair")
		wantEq(t, "call canceled", e.canceled(pi, "call"), []bool{true})
		if h := e.instanceOf(called[0].ID); h.EndTime == nil || h.State == bpmnlite.StateActive {
			t.Errorf("called instance %+v, want ended", h)
		}
	})
}

// An event subprocess may hold event subprocesses of its own: they are
// armed while it runs and interrupt only its content.
func TestEventSubprocessNested(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espProcess(strings.Replace(espDef("onNote", false, msgNote, "read"), `</subProcess>`,
			espDef("onCancel", true, msgCancel, "handle")+`</subProcess>`, 1)))
		pi := e.Start("p", nil)
		wantEq(t, "subscriptions", e.subNames(pi), "onNoteStart:note")
		e.Correlate("note", pi, nil)
		wantEq(t, "subscriptions", e.subNames(pi), "onCancelStart:cancel,onNoteStart:note")
		e.Correlate("cancel", pi, nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle,work")
		wantEq(t, "tree", e.tree(pi), "[s]([c]([s](handle[s])) work[c])")
		wantEq(t, "read canceled", e.canceled(pi, "read"), []bool{true})
		e.Complete(pi, "handle", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "work")
		wantEq(t, "subscriptions", e.subNames(pi), "onNoteStart:note")
		e.Complete(pi, "work", nil)
		wantEq(t, "state", e.State(pi), bpmnlite.StateCompleted)
	})
}

// Starting before an activity inside a subprocess (process instance
// modification) arms the event subprocesses of the scopes it enters.
func TestEventSubprocessStartBefore(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", espSubprocess(espDef("onAlarm", true, sigAlarm, "alarmed")))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", StartBefore: "work"})
		if err != nil {
			t.Fatal(err)
		}
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ExecutionID != e.ExecAt(pi, "work").ID {
			t.Fatalf("subscriptions %+v, want the signal start on the subprocess's scope execution", subs)
		}
		e.Signal("alarm")
		wantEq(t, "tasks", e.TaskKeys(pi), "alarmed")
	})
}

// camunda:escalationCodeVariable on an escalation boundary event and an
// escalation event subprocess start receives the caught escalation's code.
func TestEscalationCodeVariable(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(espRoots, enginetest.Executable("p", `<startEvent id="start"/>
<subProcess id="sub"><startEvent id="subStart"/><intermediateThrowEvent id="raise">`+escLate+`</intermediateThrowEvent><userTask id="work"/><endEvent id="subEnd"/>`+
			enginetest.Chain("subStart", "raise", "work", "subEnd")+`</subProcess>
<boundaryEvent id="caught" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition camunda:escalationCodeVariable="boundaryCode"/></boundaryEvent>
<userTask id="handle"/><userTask id="after"/><endEvent id="end">`+escLate+`</endEvent>`,
			enginetest.Chain("start", "sub", "after", "end"), enginetest.Chain("caught", "handle"),
			espDef("onLate", false, `<escalationEventDefinition escalationRef="late" camunda:escalationCodeVariable="startCode"/>`, "notified"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle,work")
		wantEq(t, "boundary code", e.VarsOf(pi)["boundaryCode"], "LATE")
		e.Complete(pi, "work", nil)
		e.Complete(pi, "after", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "handle,notified")
		wantEq(t, "start code", e.VarsOf(pi)["startCode"], "LATE")
	})
}
