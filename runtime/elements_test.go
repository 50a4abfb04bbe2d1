package runtime_test

// Behaviour of each BPMN element and Camunda attribute the engine supports,
// with Camunda 7 semantics, on every backend. This file: the XML helpers,
// start and end events, tasks, variables, deployment and deletion. See also
// elements_gateway_test.go, elements_event_test.go, elements_scope_test.go
// and elements_async_test.go.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

func (e *env) instanceOf(pi string) *bpmnlite.HistoricProcessInstance {
	e.T.Helper()
	ps, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
	if err != nil || len(ps) != 1 {
		e.T.Fatalf("process instance %s: %d rows, %v", pi, len(ps), err)
	}
	return ps[0]
}

// oneJob returns pi's only job, failing the test when there is not exactly one.
func (e *env) oneJob(pi string) *bpmnlite.Job {
	e.T.Helper()
	js := e.Jobs(pi)
	if len(js) != 1 {
		e.T.Fatalf("want 1 job in %s, got %d", pi, len(js))
	}
	return js[0]
}

func (e *env) runJob(id string) {
	e.T.Helper()
	if err := e.Eng.ExecuteJob(e.Ctx, id); err != nil {
		e.T.Fatalf("execute job %s: %v", id, err)
	}
}

// runDue moves the clock by d and runs the jobs due then, returning how many ran.
func (e *env) runDue(d time.Duration) int {
	e.T.Helper()
	e.Clock.Add(d)
	n, err := e.Eng.ExecuteDueJobs(e.Ctx, 100)
	if err != nil {
		e.T.Fatalf("execute due jobs: %v", err)
	}
	return n
}

// --- start and end events ---

func TestElementNoneStartAndEnd(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><endEvent id="end"/>`, enginetest.Chain("start", "end"))))
		pi := e.Start("p", nil)
		wantEq(t, "path", e.Path(pi), "start,end")
		h := e.instanceOf(pi)
		if h.State != "COMPLETED" || h.EndTime == nil || h.StartActivityID != "start" || h.EndActivityID != "end" {
			t.Errorf("history = %+v, want COMPLETED from start to end", h)
		}
		if xs := e.Executions(pi, ""); len(xs) != 0 {
			t.Errorf("%d executions left after the end", len(xs))
		}
	})
}

// A terminate end event at process level ends the instance at once, with
// tasks still open on other paths (they are cancelled).
func TestElementTerminateEndEventAtProcessLevel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p",
			`<startEvent id="start"/><parallelGateway id="fork"/><userTask id="a"/><userTask id="w"/>
			<endEvent id="term"><terminateEventDefinition/></endEvent><endEvent id="endA"/>`,
			enginetest.Chain("start", "fork", "a", "endA"), enginetest.Chain("fork", "w", "term"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "a,w")
		e.Complete(pi, "w", nil)
		wantEq(t, "state", e.State(pi), "COMPLETED")
		wantEq(t, "tasks", e.TaskKeys(pi), "")
		wantEq(t, "end activity", e.instanceOf(pi).EndActivityID, "term")
		if h := e.HistoryAt(pi, "a"); len(h) != 1 || !h[0].Canceled || h[0].EndTime == nil {
			t.Errorf("history of a = %+v, want one canceled row", h)
		}
		if hs := e.HistoryAt(pi, "endA"); len(hs) != 0 {
			t.Errorf("endA was reached: %+v", hs)
		}
	})
}

// A terminate end event inside a subprocess ends only the subprocess: its
// other paths are cancelled and the process continues after it.
func TestElementTerminateEndEventInSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p",
			`<startEvent id="start"/><parallelGateway id="fork"/><userTask id="outer"/><endEvent id="endOuter"/>
			<subProcess id="sub">
			  <startEvent id="subStart"/><parallelGateway id="subFork"/><userTask id="inner"/><userTask id="w"/>
			  <endEvent id="term"><terminateEventDefinition/></endEvent><endEvent id="innerEnd"/>`,
			enginetest.Chain("subStart", "subFork", "inner", "innerEnd"), enginetest.Chain("subFork", "w", "term"),
			`</subProcess><userTask id="after"/><endEvent id="end"/>`,
			enginetest.Chain("start", "fork", "sub", "after", "end"), enginetest.Chain("fork", "outer", "endOuter"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "inner,outer,w")
		e.Complete(pi, "w", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after,outer")
		wantEq(t, "state", e.State(pi), "ACTIVE")
		if h := e.HistoryAt(pi, "inner"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of inner = %+v, want canceled", h)
		}
		if h := e.HistoryAt(pi, "sub"); len(h) != 1 || h[0].Canceled || h[0].EndTime == nil {
			t.Errorf("history of sub = %+v, want completed, not canceled", h)
		}
		if xs := e.Executions(pi, "sub"); len(xs) != 0 {
			t.Errorf("subprocess execution still there")
		}
	})
}

const errorSubprocess = `<error id="errA" errorCode="A"/><error id="errB" errorCode="B"/>`

// An error end event in a subprocess is caught by the boundary event on the
// subprocess that catches its code; the subprocess's other paths are
// cancelled.
func TestElementErrorEndEventCaughtOnSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		body := func(code string) string {
			return enginetest.Executable("p"+code,
				`<startEvent id="start"/>
				<subProcess id="sub">
				  <startEvent id="subStart"/><parallelGateway id="subFork"/><userTask id="work"/><userTask id="other"/>
				  <endEvent id="fail"><errorEventDefinition errorRef="err`+code+`"/></endEvent>`,
				enginetest.Chain("subStart", "subFork", "work", "fail"), enginetest.Chain("subFork", "other"),
				`</subProcess>
				<boundaryEvent id="catchA" attachedToRef="sub"><errorEventDefinition errorRef="errA"/></boundaryEvent>
				<boundaryEvent id="catchB" attachedToRef="sub"><errorEventDefinition errorRef="errB"/></boundaryEvent>
				<userTask id="handledA"/><userTask id="handledB"/><endEvent id="end"/>`,
				enginetest.Chain("start", "sub", "end"), enginetest.Chain("catchA", "handledA"), enginetest.Chain("catchB", "handledB"))
		}
		for _, code := range []string{"A", "B"} {
			e.Deploy("p"+code, enginetest.Defs(errorSubprocess, body(code)))
			pi := e.Start("p"+code, nil)
			e.Complete(pi, "work", nil)
			wantEq(t, "tasks after error "+code, e.TaskKeys(pi), "handled"+code)
			if h := e.HistoryAt(pi, "other"); len(h) != 1 || !h[0].Canceled {
				t.Errorf("error %s: history of other = %+v, want canceled", code, h)
			}
			if h := e.HistoryAt(pi, "sub"); len(h) != 1 || !h[0].Canceled {
				t.Errorf("error %s: history of sub = %+v, want canceled", code, h)
			}
			if !strings.Contains(e.Path(pi), "catch"+code+",handled"+code) {
				t.Errorf("error %s: path %s does not go through catch%s", code, e.Path(pi), code)
			}
		}
	})
}

// A boundary error event without errorRef catches every error; one naming
// the thrown code wins over it wherever it is declared.
func TestElementErrorBoundaryCatchAll(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(errorSubprocess, enginetest.Executable("p",
			`<startEvent id="start"/>
			<subProcess id="sub"><startEvent id="subStart"/><userTask id="work"/>
			  <exclusiveGateway id="which" default="toA"/>
			  <endEvent id="failA"><errorEventDefinition errorRef="errA"/></endEvent>
			  <endEvent id="failB"><errorEventDefinition errorRef="errB"/></endEvent>`,
			enginetest.Chain("subStart", "work", "which"), `<sequenceFlow id="toA" sourceRef="which" targetRef="failA"/>`,
			enginetest.Cond("toB", "which", "failB", "${code == 'B'}"),
			`</subProcess>
			<boundaryEvent id="catchAll" attachedToRef="sub"><errorEventDefinition/></boundaryEvent>
			<boundaryEvent id="catchB" attachedToRef="sub"><errorEventDefinition errorRef="errB"/></boundaryEvent>
			<userTask id="anyError"/><userTask id="errorB"/><endEvent id="end"/>`,
			enginetest.Chain("start", "sub", "end"), enginetest.Chain("catchAll", "anyError"), enginetest.Chain("catchB", "errorB"))))
		pi := e.Start("p", nil)
		e.Complete(pi, "work", map[string]any{"code": "A"})
		wantEq(t, "tasks after error A", e.TaskKeys(pi), "anyError")
		pi = e.Start("p", nil)
		e.Complete(pi, "work", map[string]any{"code": "B"})
		wantEq(t, "tasks after error B", e.TaskKeys(pi), "errorB")
	})
}

// An error thrown by an error end event in a called process is caught by an
// error boundary event on the call activity; the called instance ends.
func TestElementErrorFromCalledProcess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(errorSubprocess,
			enginetest.Executable("caller", `<startEvent id="start"/><callActivity id="call" calledElement="child"/>
			<boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition errorRef="errA"/></boundaryEvent>
			<userTask id="handle"/><endEvent id="end"/>`, enginetest.Chain("start", "call", "end"), enginetest.Chain("caught", "handle")),
			enginetest.Executable("child", `<startEvent id="cStart"/><userTask id="childWork"/>
			<endEvent id="fail"><errorEventDefinition errorRef="errA"/></endEvent>`, enginetest.Chain("cStart", "childWork", "fail"))))
		pi := e.Start("caller", nil)
		children, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if err != nil || len(children) != 1 {
			t.Fatalf("child instances: %d, %v", len(children), err)
		}
		child := children[0].ID
		e.Complete(child, "childWork", nil)
		wantEq(t, "caller tasks", e.TaskKeys(pi), "handle")
		if h := e.instanceOf(child); h.EndTime == nil || h.State == "ACTIVE" {
			t.Errorf("child history = %+v, want ended", h)
		}
		if xs := e.Executions(child, ""); len(xs) != 0 {
			t.Errorf("child instance still has %d executions", len(xs))
		}
		if h := e.HistoryAt(pi, "call"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of call = %+v, want canceled", h)
		}
	})
}

// --- service, send, plain and manual tasks ---

func TestElementServiceTaskClass(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var sawActivity string
		e.Eng.RegisterDelegate("com.example.Double", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			sawActivity = ex.ActivityID()
			v, _, err := ex.Variable("x")
			if err != nil {
				return err
			}
			return ex.SetVariable("y", v.(int64)*2)
		}))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="svc" camunda:class="com.example.Double"/>
			<userTask id="after"/>`, enginetest.Chain("start", "svc", "after"))))
		pi := e.Start("p", map[string]any{"x": 21})
		wantEq(t, "y", e.VarsOf(pi)["y"], int64(42))
		wantEq(t, "activity seen by the delegate", sawActivity, "svc")
		wantEq(t, "path", e.Path(pi), "start,svc,after")
	})
}

// A class nobody registered deploys fine and fails when the task runs,
// naming the delegate and the task; the failed start stores nothing.
func TestElementServiceTaskUnregisteredClass(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="svc" camunda:class="com.example.Missing"/>
			<endEvent id="end"/>`, enginetest.Chain("start", "svc", "end"))))
		if len(d.Definitions) != 1 {
			t.Fatalf("deployed %d definitions", len(d.Definitions))
		}
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), `"com.example.Missing"`) || !strings.Contains(err.Error(), "serviceTask 'svc'") {
			t.Fatalf("start: %v, want an error naming the delegate and the task", err)
		}
		ps, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		if len(ps) != 0 {
			t.Errorf("failed start left %d instances", len(ps))
		}
	})
}

// doubler is a bean implementing Delegate, for camunda:delegateExpression.
type doubler struct{ calls int }

func (d *doubler) Execute(_ context.Context, ex *bpmnlite.Execution) error {
	d.calls++
	v, _, err := ex.Variable("x")
	if err != nil {
		return err
	}
	return ex.SetVariable("y", v.(int64)*2)
}

func TestElementServiceTaskDelegateExpression(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := &doubler{}
		e.Eng.RegisterBean("doubler", d)
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="svc" camunda:delegateExpression="${doubler}"/>
			<userTask id="after"/>`, enginetest.Chain("start", "svc", "after"))))
		pi := e.Start("p", map[string]any{"x": 5})
		wantEq(t, "y", e.VarsOf(pi)["y"], int64(10))
		wantEq(t, "calls", d.calls, 1)
	})
}

// calc is a bean whose methods expressions call.
type calc struct{}

func (calc) Double(x int64) int64 { return 2 * x }

func TestElementServiceTaskExpression(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterBean("calc", calc{})
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="double" camunda:expression="${calc.double(x)}" camunda:resultVariable="y"/>
			<serviceTask id="set" camunda:expression="${execution.setVariable('a', 1)}"/>
			<userTask id="after"/>`, enginetest.Chain("start", "double", "set", "after"))))
		pi := e.Start("p", map[string]any{"x": 7})
		vars := e.VarsOf(pi)
		wantEq(t, "y", vars["y"], int64(14))
		wantEq(t, "a", vars["a"], int64(1))
	})
}

// A delegate returning a *BpmnError throws it: the error boundary event of
// the task catches it and the path continues there.
func TestElementDelegateBpmnErrorCaught(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("pay", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			if err := ex.SetVariable("tried", true); err != nil {
				return err
			}
			return &bpmnlite.BpmnError{Code: "CARD_DECLINED", Message: "card declined"}
		}))
		e.Deploy("p", enginetest.Defs(`<error id="declined" errorCode="CARD_DECLINED"/><error id="other" errorCode="OTHER"/>`,
			enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="pay" camunda:class="pay"/><endEvent id="end"/>
			<boundaryEvent id="otherError" attachedToRef="pay"><errorEventDefinition errorRef="other"/></boundaryEvent>
			<boundaryEvent id="onDecline" attachedToRef="pay"><errorEventDefinition errorRef="declined"/></boundaryEvent>
			<userTask id="askForOtherCard"/><userTask id="wrong"/>`,
				enginetest.Chain("start", "pay", "end"), enginetest.Chain("onDecline", "askForOtherCard"), enginetest.Chain("otherError", "wrong"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "askForOtherCard")
		wantEq(t, "path", e.Path(pi), "start,pay,onDecline,askForOtherCard")
		wantEq(t, "tried", e.VarsOf(pi)["tried"], true)
		if h := e.HistoryAt(pi, "pay"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of pay = %+v, want canceled", h)
		}
	})
}

// A send task runs its implementation like a service task; a plain task and
// a manual task just pass.
func TestElementSendTaskPlainAndManualTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		rec := &harness.Recorder{}
		e.Eng.RegisterDelegate("rec", rec)
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><task id="plain"/><manualTask id="manual"/>
			<sendTask id="send" camunda:class="rec"/><endEvent id="end"/>`, enginetest.Chain("start", "plain", "manual", "send", "end"))))
		pi := e.Start("p", nil)
		wantEq(t, "state", e.State(pi), "COMPLETED")
		wantEq(t, "path", e.Path(pi), "start,plain,manual,send,end")
		wantEq(t, "delegate calls", rec.String(), "send:call")
	})
}

// --- user tasks and receive tasks ---

func TestElementUserTaskAssignment(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="fixed" name="Fixed" camunda:assignee="kermit" camunda:candidateGroups="management,accounting,a_b" camunda:candidateUsers="piggy,fozzie"/>
			<userTask id="dynamic" camunda:assignee="${owner}" camunda:candidateGroups="${groups}"/>
			<parallelGateway id="join"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "fixed", "join", "after"), enginetest.Chain("fork", "dynamic", "join"))))
		pi := e.Start("p", map[string]any{"owner": "gonzo", "groups": []any{"sales", "support"}})
		query := func(q bpmnlite.TaskQuery) string {
			t.Helper()
			q.ProcessInstanceID = pi
			q.IncludeAssignedTasks = q.CandidateGroup != "" || q.CandidateUser != "" // both tasks have an assignee
			ts, err := e.Eng.Tasks(e.Ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, task := range ts {
				keys = append(keys, task.TaskDefinitionKey)
			}
			slices.Sort(keys)
			return strings.Join(keys, ",")
		}
		wantEq(t, "assignee kermit", query(bpmnlite.TaskQuery{Assignee: "kermit"}), "fixed")
		wantEq(t, "assignee gonzo", query(bpmnlite.TaskQuery{Assignee: "gonzo"}), "dynamic")
		wantEq(t, "group accounting", query(bpmnlite.TaskQuery{CandidateGroup: "accounting"}), "fixed")
		wantEq(t, "group support", query(bpmnlite.TaskQuery{CandidateGroup: "support"}), "dynamic")
		wantEq(t, "group account (a prefix)", query(bpmnlite.TaskQuery{CandidateGroup: "account"}), "")
		wantEq(t, "group a_b", query(bpmnlite.TaskQuery{CandidateGroup: "a_b"}), "fixed")
		wantEq(t, "group axb (no wildcard)", query(bpmnlite.TaskQuery{CandidateGroup: "axb"}), "")
		wantEq(t, "group a% (no wildcard)", query(bpmnlite.TaskQuery{CandidateGroup: "a%"}), "")
		wantEq(t, "user fozzie", query(bpmnlite.TaskQuery{CandidateUser: "fozzie"}), "fixed")
		wantEq(t, "user fozz (a prefix)", query(bpmnlite.TaskQuery{CandidateUser: "fozz"}), "")
		if ts, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi, CandidateGroup: "accounting"}); err != nil || len(ts) != 0 {
			t.Errorf("candidate group of an assigned task, without IncludeAssignedTasks: %d tasks, %v; want none, as Camunda", len(ts), err)
		}
		for _, task := range e.Tasks(pi) {
			if task.TaskDefinitionKey == "fixed" && (task.Name != "Fixed" || task.CandidateGroups != "management,accounting,a_b") {
				t.Errorf("task fixed = %+v", task)
			}
			if task.TaskDefinitionKey == "dynamic" && task.CandidateGroups != "sales,support" {
				t.Errorf("task dynamic candidate groups = %q", task.CandidateGroups)
			}
			if h := e.HistoryAt(pi, task.TaskDefinitionKey); len(h) != 1 || h[0].TaskID != task.ID {
				t.Errorf("history of %s = %+v, want it to name task %s", task.TaskDefinitionKey, h, task.ID)
			}
		}
		e.Complete(pi, "fixed", map[string]any{"approved": true})
		e.Complete(pi, "dynamic", map[string]any{"comment": "fine"})
		vars := e.VarsOf(pi)
		wantEq(t, "approved", vars["approved"], true)
		wantEq(t, "comment", vars["comment"], "fine")
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

func TestElementReceiveTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("withMessage", enginetest.Defs(`<message id="msgPaid" name="paid"/>`,
			enginetest.Executable("withMessage", `<startEvent id="start"/><receiveTask id="wait" messageRef="msgPaid"/><userTask id="after"/>`,
				enginetest.Chain("start", "wait", "after"))))
		e.Deploy("plain", enginetest.Defs(enginetest.Executable("plain", `<startEvent id="start"/><receiveTask id="wait"/><userTask id="after"/>`,
			enginetest.Chain("start", "wait", "after"))))

		pi := e.Start("withMessage", nil)
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].EventName != "paid" || subs[0].ActivityID != "wait" {
			t.Fatalf("subscriptions = %+v, want one for message paid at wait", subs)
		}
		ids, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "paid", Variables: map[string]any{"amount": 12.5}})
		if err != nil || len(ids) != 1 || ids[0] != pi {
			t.Fatalf("correlate = %v, %v", ids, err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "amount", e.VarsOf(pi)["amount"], 12.5)
		wantEq(t, "subscriptions left", len(e.SubsOf(pi)), 0)

		pi = e.Start("plain", nil)
		wantEq(t, "subscriptions of a receive task without message", len(e.SubsOf(pi)), 0)
		x := e.ExecAt(pi, "wait")
		if err := e.Eng.Trigger(e.Ctx, x.ID, map[string]any{"ok": true}); err != nil {
			t.Fatalf("trigger: %v", err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "ok", e.VarsOf(pi)["ok"], true)
		// The path now waits at a user task, which only completing continues.
		if err := e.Eng.Trigger(e.Ctx, x.ID, nil); err == nil || !strings.Contains(err.Error(), "cannot be triggered") {
			t.Errorf("triggering a user task's execution: %v, want an error", err)
		}
		wantEq(t, "tasks after the refused trigger", e.TaskKeys(pi), "after")
	})
}

// --- variables ---

type shipment struct {
	Carrier string `json:"carrier"`
	Parcels int    `json:"parcels"`
}

// Every supported type comes back as the documented Go type.
func TestElementVariableTypes(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="wait"/>`, enginetest.Chain("start", "wait"))))
		when := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.FixedZone("CET", 3600))
		in := map[string]any{
			"s":     "text ü",
			"i":     int64(1) << 40,
			"small": 7,
			"f":     2.5,
			"b":     true,
			"t":     when,
			"bytes": []byte{0, 1, 2, 255},
			"m":     map[string]any{"k": "v", "n": 1},
			"l":     []any{"a", 2, 1.5},
			"st":    shipment{"ups", 3},
			"nil":   nil,
		}
		pi := e.Start("p", in)
		got := e.VarsOf(pi)
		want := map[string]any{
			"s":     "text ü",
			"i":     int64(1) << 40,
			"small": int64(7),
			"f":     2.5,
			"b":     true,
			"bytes": []byte{0, 1, 2, 255},
			"m":     map[string]any{"k": "v", "n": int64(1)},
			"l":     []any{"a", int64(2), 1.5},
			"st":    map[string]any{"carrier": "ups", "parcels": int64(3)},
			"nil":   nil,
		}
		for k, w := range want {
			v, ok := got[k]
			if !ok || !reflect.DeepEqual(v, w) {
				t.Errorf("%s = %#v (present %v), want %#v", k, v, ok, w)
			}
		}
		if tm, ok := got["t"].(time.Time); !ok || !tm.Equal(when) {
			t.Errorf("t = %#v, want %v", got["t"], when)
		}
		// Overwriting changes the stored type.
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"s": int64(5), "nil": "now set"}); err != nil {
			t.Fatal(err)
		}
		got = e.VarsOf(pi)
		wantEq(t, "s after overwrite", got["s"], int64(5))
		wantEq(t, "nil after overwrite", got["nil"], "now set")
	})
}

// Values that cannot be stored fail with an error naming the variable, and
// nothing is stored.
func TestElementVariableUnsupportedTypes(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="wait"/>`, enginetest.Chain("start", "wait"))))
		pi := e.Start("p", map[string]any{"keep": 1})
		for name, v := range map[string]any{"ch": make(chan int), "fn": func() {}} {
			err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"a": 1, name: v})
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("variable %q", name)) || !strings.Contains(err.Error(), "unsupported type") {
				t.Errorf("set %s: %v, want an unsupported-type error naming the variable", name, err)
			}
			_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: v}})
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("variable %q", name)) {
				t.Errorf("start with %s: %v, want an error naming the variable", name, err)
			}
		}
		wantEq(t, "variables after failed sets", e.VarsOf(pi), map[string]any{"keep": int64(1)})
		ps, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		wantEq(t, "instances", len(ps), 1)
	})
}

// --- deployment ---

func TestElementDeployNewVersion(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		v1 := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="a"/><endEvent id="end"/>`, enginetest.Chain("start", "a", "end")))
		v2 := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="b"/><endEvent id="end"/>`, enginetest.Chain("start", "b", "end")))
		d1 := e.Deploy("p", v1)
		pi1 := e.Start("p", nil)
		d2 := e.Deploy("p", v2)
		if len(d1.Definitions) != 1 || len(d2.Definitions) != 1 || d1.Definitions[0].Version != 1 || d2.Definitions[0].Version != 2 {
			t.Fatalf("versions: %+v, %+v", d1.Definitions, d2.Definitions)
		}
		pi2 := e.Start("p", nil)
		wantEq(t, "v2 instance tasks", e.TaskKeys(pi2), "b")
		wantEq(t, "v1 instance tasks", e.TaskKeys(pi1), "a")
		wantEq(t, "v1 instance definition", e.instanceOf(pi1).ProcessDefinitionID, d1.Definitions[0].ID)
		wantEq(t, "v2 instance definition", e.instanceOf(pi2).ProcessDefinitionID, d2.Definitions[0].ID)
		e.Complete(pi1, "a", nil)
		wantEq(t, "v1 instance state", e.State(pi1), "COMPLETED")
		// A start by definition id still reaches version 1.
		pi3, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{DefinitionID: d1.Definitions[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "instance of v1 by id", e.TaskKeys(pi3), "a")

		same, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "p", SkipUnchanged: true,
			Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(v2)}}})
		if err != nil {
			t.Fatal(err)
		}
		if !same.Unchanged || same.ID != d2.ID || len(same.Definitions) != 1 || same.Definitions[0].ID != d2.Definitions[0].ID {
			t.Errorf("redeploying v2 unchanged = %+v, want deployment %s unchanged", same, d2.ID)
		}
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "p"})
		if err != nil || len(defs) != 2 {
			t.Errorf("definitions of p: %d, %v; want 2", len(defs), err)
		}
		changed, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "p", SkipUnchanged: true,
			Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(v1)}}})
		if err != nil || changed.Unchanged || len(changed.Definitions) != 1 || changed.Definitions[0].Version != 3 {
			t.Errorf("deploying changed bytes with SkipUnchanged = %+v, %v; want version 3", changed, err)
		}
	})
}

func TestElementDeployNonExecutable(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.Deploy("p", enginetest.Defs(
			enginetest.Executable("run", `<startEvent id="start"/><endEvent id="end"/>`, enginetest.Chain("start", "end")),
			`<process id="doc" isExecutable="false"><startEvent id="s"/></process>`))
		if len(d.Definitions) != 1 || d.Definitions[0].Key != "run" {
			t.Errorf("definitions = %+v, want only run", d.Definitions)
		}
		if len(d.Skipped) != 1 || d.Skipped[0].ID != "doc" || d.Skipped[0].Reason == "" {
			t.Errorf("skipped = %+v, want doc with a reason", d.Skipped)
		}
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "doc"}); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("start doc: %v, want ErrNotFound", err)
		}
	})
}

// --- deleting an instance ---

func TestElementDeleteProcessInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="m" name="go"/>`, enginetest.Executable("p",
			`<startEvent id="start"/><parallelGateway id="fork"/><userTask id="work"/>
			<boundaryEvent id="late" attachedToRef="work"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
			<intermediateCatchEvent id="wait"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
			<endEvent id="end1"/><endEvent id="end2"/><endEvent id="end3"/>`,
			enginetest.Chain("start", "fork", "work", "end1"), enginetest.Chain("fork", "wait", "end2"), enginetest.Chain("late", "end3"))))
		pi := e.Start("p", map[string]any{"x": 1})
		if len(e.Tasks(pi)) != 1 || len(e.Jobs(pi)) != 1 || len(e.SubsOf(pi)) != 1 {
			t.Fatalf("before delete: %d tasks, %d jobs, %d subscriptions", len(e.Tasks(pi)), len(e.Jobs(pi)), len(e.SubsOf(pi)))
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "customer withdrew"); err != nil {
			t.Fatal(err)
		}
		if len(e.Tasks(pi)) != 0 || len(e.Jobs(pi)) != 0 || len(e.SubsOf(pi)) != 0 || len(e.Executions(pi, "")) != 0 {
			t.Errorf("after delete: %d tasks, %d jobs, %d subscriptions, %d executions", len(e.Tasks(pi)), len(e.Jobs(pi)), len(e.SubsOf(pi)), len(e.Executions(pi, "")))
		}
		h := e.instanceOf(pi)
		if h.State != "EXTERNALLY_TERMINATED" || h.DeleteReason != "customer withdrew" || h.EndTime == nil {
			t.Errorf("history = %+v", h)
		}
		for _, a := range []string{"work", "wait"} {
			if hs := e.HistoryAt(pi, a); len(hs) != 1 || !hs[0].Canceled || hs[0].EndTime == nil {
				t.Errorf("history of %s = %+v, want canceled", a, hs)
			}
		}
		// History keeps the variables the instance had.
		if vars, err := e.Eng.Variables(e.Ctx, pi); err != nil || vars["x"] != int64(1) {
			t.Errorf("variables of a deleted instance: %v, %v; want x = 1 from history", vars, err)
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "again"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("deleting twice: %v, want ErrNotFound", err)
		}
	})
}
