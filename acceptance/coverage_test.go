package acceptance_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// BPMN coverage: link events, signal start events, error code and message
// variables, version tags, hints for elements bpmnlite does not execute.

// A throwing link event continues at the catching link of the same name
// in its scope, in a subprocess too.
func TestLinkEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("links", enginetest.Process("links", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="toB" />
    <intermediateThrowEvent id="toB"><linkEventDefinition name="B" /></intermediateThrowEvent>
    <intermediateCatchEvent id="fromB"><linkEventDefinition name="B" /></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="fromB" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="jump" />
      <intermediateThrowEvent id="jump"><linkEventDefinition name="B" /></intermediateThrowEvent>
      <intermediateCatchEvent id="land"><linkEventDefinition name="B" /></intermediateCatchEvent>
      <sequenceFlow id="s2" sourceRef="land" targetRef="review" />
      <userTask id="review" />
      <sequenceFlow id="s3" sourceRef="review" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <sequenceFlow id="f3" sourceRef="sub" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("links", nil)
		if got := e.TaskKeys(pi); got != "review" {
			t.Fatalf("waiting at %q, want review", got)
		}
		if path := e.Path(pi); !strings.Contains(path, "toB,fromB,sub,subStart,jump,land,review") {
			t.Fatalf("path %q", path)
		}
		e.Complete(pi, "review", nil)
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("state %s", got)
		}

		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(enginetest.Process("bad", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="nowhere" />
    <intermediateThrowEvent id="nowhere"><linkEventDefinition name="X" /></intermediateThrowEvent>`))}}})
		if err == nil || !strings.Contains(err.Error(), "'nowhere'") || !strings.Contains(err.Error(), "linkEventDefinition name 'X'") {
			t.Fatalf("a link without its catch: %v", err)
		}
	})
}

const signalStart = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <signal id="alarmSignal" name="alarm" />
  <process id="onAlarm" isExecutable="true">
    <startEvent id="start"><signalEventDefinition signalRef="alarmSignal" /></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="handle" />
    <userTask id="handle" />
    <sequenceFlow id="f2" sourceRef="handle" targetRef="end" />
    <endEvent id="end" />
  </process>
  <process id="raise" isExecutable="true">
    <startEvent id="rstart" />
    <sequenceFlow id="r1" sourceRef="rstart" targetRef="throw" />
    <intermediateThrowEvent id="throw"><signalEventDefinition signalRef="alarmSignal" /></intermediateThrowEvent>
    <sequenceFlow id="r2" sourceRef="throw" targetRef="rend" />
    <endEvent id="rend" />
  </process>
</definitions>`

// A signal start event starts an instance of the latest version per
// signal, from the API or a throwing event; a suspended definition is
// skipped.
func TestSignalStartEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("alarm", signalStart)
		started := func() []*bpmnlite.HistoricProcessInstance {
			t.Helper()
			hs, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "onAlarm"})
			if err != nil {
				t.Fatal(err)
			}
			return hs
		}
		if err := e.Eng.Signal(e.Ctx, "alarm", map[string]any{"level": "high"}); err != nil {
			t.Fatal(err)
		}
		hs := started()
		if len(hs) != 1 || hs[0].StartActivityID != "start" {
			t.Fatalf("instances after the signal: %+v", hs)
		}
		if got := e.VarsOf(hs[0].ID)["level"]; got != "high" {
			t.Fatalf("signal's variables: level = %v", got)
		}

		// A throwing event starts one too; a new version replaces the old
		// version's subscription.
		e.Deploy("alarm2", strings.Replace(signalStart, `<userTask id="handle" />`, `<userTask id="handle" name="v2" />`, 1))
		e.Start("raise", nil)
		hs = started()
		if len(hs) != 2 || !strings.Contains(hs[1].ProcessDefinitionID, "onAlarm:2:") {
			t.Fatalf("instances after the throw: %+v", hs)
		}

		defs, _ := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "onAlarm", LatestOnly: true})
		if err := e.Eng.SuspendProcessDefinition(e.Ctx, defs[0].ID, false); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.Signal(e.Ctx, "alarm", nil); err != nil {
			t.Fatal(err)
		}
		if hs = started(); len(hs) != 2 {
			t.Fatalf("a suspended definition was started by a signal: %d instances", len(hs))
		}
	})
}

// An error boundary event stores the caught error's code and message in
// the variables it names.
func TestErrorCodeAndMessageVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("charge", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return &bpmnlite.BpmnError{Code: "DECLINED", Message: "card declined"}
		}))
		e.Deploy("pay", enginetest.Header+`
  <error id="declined" errorCode="DECLINED" />
  <process id="pay" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge" />
    <serviceTask id="charge" camunda:class="charge" />
    <boundaryEvent id="failed" attachedToRef="charge">
      <errorEventDefinition errorRef="declined" camunda:errorCodeVariable="errorCode" camunda:errorMessageVariable="errorMessage" />
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="failed" targetRef="handle" />
    <userTask id="handle" />
    <sequenceFlow id="f3" sourceRef="charge" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`)
		pi := e.Start("pay", nil)
		if got := e.TaskKeys(pi); got != "handle" {
			t.Fatalf("waiting at %q", got)
		}
		vars := e.VarsOf(pi)
		if vars["errorCode"] != "DECLINED" || vars["errorMessage"] != "card declined" {
			t.Fatalf("error variables: %v", vars)
		}
	})
}

// camunda:versionTag is stored, queryable, and starts the latest version
// with the tag; candidate starter groups and users are stored.
func TestVersionTag(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		tagged := func(tag, task string) string {
			return enginetest.Header + `<process id="p" isExecutable="true" camunda:versionTag="` + tag + `"
    camunda:candidateStarterGroups="sales, management" camunda:candidateStarterUsers="kermit">
    <startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="` + task + `" /><userTask id="` + task + `" /></process></definitions>`
		}
		e.Deploy("v1", tagged("1.0", "one"))
		e.Deploy("v2", tagged("2.0", "two"))
		e.Deploy("v3", tagged("1.0", "three"))
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "p", VersionTag: "1.0"})
		if err != nil || len(defs) != 2 || defs[0].Version != 1 || defs[1].Version != 3 || defs[1].VersionTag != "1.0" {
			t.Fatalf("definitions tagged 1.0: %v %+v", err, defs)
		}
		if defs[0].CandidateStarterGroups != "sales, management" || defs[0].CandidateStarterUsers != "kermit" {
			t.Fatalf("candidate starters: %q %q", defs[0].CandidateStarterGroups, defs[0].CandidateStarterUsers)
		}
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", VersionTag: "2.0"})
		if err != nil || e.TaskKeys(pi) != "two" {
			t.Fatalf("start by tag 2.0: %v, waiting at %q", err, e.TaskKeys(pi))
		}
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", VersionTag: "9.9"}); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("start by an unknown tag: %v", err)
		}
	})
}

// Elements bpmnlite does not execute are refused at deployment with their
// line:column and what to use instead.
func TestUnsupportedElementsHint(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "s", Resources: []bpmnlite.Resource{{Name: "s.bpmn", Bytes: []byte(enginetest.Process("s", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="calc" />
    <scriptTask id="calc" scriptFormat="groovy"><script>x = 1</script></scriptTask>
    <businessRuleTask id="decide" />`))}}})
		if err == nil {
			t.Fatal("a script task was deployed")
		}
		for _, want := range []string{"s.bpmn:5:5: scriptTask 'calc'", "scriptFormat 'groovy' is not supported: use javascript", "businessRuleTask 'decide'", "mandatory on businessRuleTask"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	})
}

// Deployment warnings (what the engine ignores) are logged, not only
// returned in Deployment.Warnings.
func TestDeploymentWarningsLogged(t *testing.T) {
	var logs enginetest.LogBuffer
	eachBackend(t, bpmnlite.Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}, func(t *testing.T, e *env) {
		mark := len(logs.String())
		d := e.Deploy("w", enginetest.Process("w", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="g" />
    <exclusiveGateway id="g" />
    <sequenceFlow id="f2" sourceRef="g" targetRef="u" />
    <sequenceFlow id="f3" sourceRef="g" targetRef="u" />
    <userTask id="u" />`))
		if len(d.Warnings) == 0 {
			t.Fatal("no warning for a gateway's flows without conditions")
		}
		if out := logs.String()[mark:]; !strings.Contains(out, "deployment warning") || !strings.Contains(out, "sequence flow 'f2' has no condition") || !strings.Contains(out, "w.bpmn:5:") {
			t.Fatalf("log lacks the warning:\n%s", out)
		}
	})
}

// Camunda attributes and extension elements that bpmnlite does not
// implement are deployment errors naming them, where they are, with a
// hint; nothing of the deployment is stored. Attributes only tools read
// (Modeler templates) are accepted.
func TestUnsupportedCamundaExtensionsRefused(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "u", Resources: []bpmnlite.Resource{{Name: "u.bpmn", Bytes: []byte(enginetest.Process("u", `
    <startEvent id="start" camunda:tenantId="t" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="mail" />
    <serviceTask id="mail" camunda:modelerTemplate="com.example.mail">
      <extensionElements><camunda:connector><camunda:connectorId>mail-send</camunda:connectorId></camunda:connector></extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="mail" targetRef="end" />
    <endEvent id="end" camunda:fancy="yes" />`))}}})
		if err == nil {
			t.Fatal("deployed a model with attributes and elements bpmnlite does not implement")
		}
		for _, want := range []string{
			"u.bpmn:3:5: startEvent 'start': camunda:tenantId is not supported: bpmnlite takes the tenant of the deployment",
			"u.bpmn:6:26: serviceTask 'mail': camunda:connector is not supported here: Camunda Connect is not available",
			"u.bpmn:9:5: endEvent 'end': camunda:fancy is not supported: bpmnlite does not implement it",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error(), "modelerTemplate") {
			t.Errorf("a Modeler template attribute was refused:\n%v", err)
		}
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "u"})
		if err != nil || len(defs) != 0 {
			t.Fatalf("definitions stored from a refused deployment: %d (%v)", len(defs), err)
		}
	})
}

// camunda:field values reach the delegate through Execution.Field: strings
// as written, expressions evaluated on the execution at each call; a
// listener's fields too.
func TestFieldInjection(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var got []string
		record := bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
			for _, name := range []string{"url", "amount", "missing"} {
				if v, ok := x.Field(name); ok {
					got = append(got, fmt.Sprintf("%s=%v", name, v))
				}
			}
			return nil
		})
		e.Eng.RegisterDelegate("call", record)
		e.Eng.RegisterDelegate("audit", record)
		e.Deploy("fields", enginetest.Process("fields", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <serviceTask id="call" camunda:class="call">
      <extensionElements>
        <camunda:field name="url" stringValue="https://pay.example/charge" />
        <camunda:field name="amount"><camunda:expression>${price * 2}</camunda:expression></camunda:field>
        <camunda:executionListener event="end" class="audit"><camunda:field name="url"><camunda:string>audit-log</camunda:string></camunda:field></camunda:executionListener>
      </extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="call" targetRef="end" />
    <endEvent id="end" />`))
		e.Start("fields", map[string]any{"price": 21})
		if want := "url=https://pay.example/charge amount=42 url=audit-log"; strings.Join(got, " ") != want {
			t.Fatalf("fields seen: %q, want %q", strings.Join(got, " "), want)
		}
		got = nil
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "fields", Variables: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "camunda:field 'amount'") {
			t.Fatalf("an expression field naming an unknown variable: %v", err)
		}
	})
}

// Task listeners: assignment (before create when the task is created
// assigned), create (which may assign it), assignment on claim, complete,
// delete; a failing one rolls its command back.
func TestTaskListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var events []string
		listener := func(name string) bpmnlite.Delegate {
			return bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
				events = append(events, name+":"+x.TaskAssignee())
				if name == "create" && x.TaskAssignee() == "" {
					x.SetTaskAssignee("kermit")
				}
				if v, _ := x.Field("refuse"); name == "complete" && v == "yes" {
					if v, _ := x.GetVariable("approved"); v != true {
						return errors.New("not approved")
					}
				}
				if x.TaskID() == "" {
					return errors.New("no task in a task listener")
				}
				return nil
			})
		}
		for _, n := range []string{"create", "assignment", "complete", "delete"} {
			e.Eng.RegisterDelegate(n, listener(n))
		}
		listeners := `<extensionElements>
        <camunda:taskListener event="create" class="create" />
        <camunda:taskListener event="assignment" class="assignment" />
        <camunda:taskListener event="complete" class="complete"><camunda:field name="refuse" stringValue="yes" /></camunda:taskListener>
        <camunda:taskListener event="delete" class="delete" />
      </extensionElements>`
		e.Deploy("tl", enginetest.Process("tl", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review">`+listeners+`</userTask>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end" />
    <endEvent id="end" />`))
		e.Deploy("assigned", enginetest.Process("assigned", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" camunda:assignee="gonzo">`+listeners+`</userTask>`))

		pi := e.Start("tl", nil)
		task := e.Tasks(pi)[0]
		if task.Assignee != "kermit" {
			t.Fatalf("the create listener's assignee was not stored: %q", task.Assignee)
		}
		if err := e.Eng.SetTaskAssignee(e.Ctx, task.ID, "piggy"); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.CompleteTask(e.Ctx, task.ID, map[string]any{"approved": false}); err == nil || !strings.Contains(err.Error(), "not approved") {
			t.Fatalf("a failing complete listener: %v", err)
		}
		if len(e.Tasks(pi)) != 1 {
			t.Fatal("the task was completed although its complete listener failed")
		}
		e.Complete(pi, "review", map[string]any{"approved": true})
		if got, want := strings.Join(events, " "), "create: assignment:kermit assignment:piggy complete:piggy complete:piggy"; got != want {
			t.Fatalf("events %q, want %q", got, want)
		}

		events = nil
		gone := e.Start("assigned", nil)
		if err := e.Eng.DeleteProcessInstance(e.Ctx, gone, "cancelled"); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(events, " "), "assignment:gonzo create:gonzo delete:gonzo"; got != want {
			t.Fatalf("events %q, want %q", got, want)
		}
	})
}

// An error end event's error code and camunda:errorMessage may be
// expressions, evaluated when it throws.
func TestErrorEndEventExpressions(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("dyn", enginetest.Header+`
  <error id="dynamic" errorCode="${code}" camunda:errorMessage="delivery failed: ${reason}" />
  <error id="late" errorCode="LATE" />
  <process id="dyn" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="fail" />
      <endEvent id="fail"><errorEventDefinition errorRef="dynamic" /></endEvent>
    </subProcess>
    <boundaryEvent id="caught" attachedToRef="sub">
      <errorEventDefinition errorRef="late" camunda:errorCodeVariable="code2" camunda:errorMessageVariable="message" />
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="caught" targetRef="handle" />
    <userTask id="handle" />
    <sequenceFlow id="f3" sourceRef="sub" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`)
		pi := e.Start("dyn", map[string]any{"code": "LATE", "reason": "truck broke down"})
		if got := e.TaskKeys(pi); got != "handle" {
			t.Fatalf("waiting at %q, want handle", got)
		}
		if vars := e.VarsOf(pi); vars["code2"] != "LATE" || vars["message"] != "delivery failed: truck broke down" {
			t.Fatalf("variables %v", vars)
		}
		// Another code is not caught by the LATE boundary: the path ends.
		other := e.Start("dyn", map[string]any{"code": "OTHER", "reason": "x"})
		if got := e.TaskKeys(other); got != "" {
			t.Fatalf("an uncaught code waits at %q", got)
		}
	})
}

// A BPMN error from an activity's execution or task listener is thrown
// from the activity: its error boundary event catches it and the activity
// does not continue.
func TestErrorsFromListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		throw := bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return &bpmnlite.BpmnError{Code: "REJECTED", Message: "from a listener"}
		})
		var worked int
		e.Eng.RegisterDelegate("throw", throw)
		e.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { worked++; return nil }))
		process := func(id, task string) string {
			return enginetest.Header + `
  <error id="rejected" errorCode="REJECTED" />
  <process id="` + id + `" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="act" />
    ` + task + `
    <boundaryEvent id="caught" attachedToRef="act"><errorEventDefinition errorRef="rejected" camunda:errorMessageVariable="why" /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="caught" targetRef="handle" />
    <userTask id="handle" />
    <sequenceFlow id="f3" sourceRef="act" targetRef="after" />
    <userTask id="after" />
  </process>
</definitions>`
		}
		e.Deploy("end", process("endListener", `<serviceTask id="act" camunda:class="work"><extensionElements>
      <camunda:executionListener event="end" class="throw" /></extensionElements></serviceTask>`))
		e.Deploy("create", process("createListener", `<userTask id="act"><extensionElements>
      <camunda:taskListener event="create" class="throw" /></extensionElements></userTask>`))
		for _, key := range []string{"endListener", "createListener"} {
			pi := e.Start(key, nil)
			if got := e.TaskKeys(pi); got != "handle" {
				t.Fatalf("%s: waiting at %q, want handle", key, got)
			}
			if why := e.VarsOf(pi)["why"]; why != "from a listener" {
				t.Fatalf("%s: error message %v", key, why)
			}
		}
		if worked != 1 {
			t.Fatalf("the service task ran %d times, want 1", worked)
		}
	})
}

const escalations = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <escalation id="late" escalationCode="LATE" />
  <escalation id="stop" escalationCode="STOP" />
  <process id="esc" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="warn" />
      <intermediateThrowEvent id="warn"><escalationEventDefinition escalationRef="late" /></intermediateThrowEvent>
      <sequenceFlow id="s2" sourceRef="warn" targetRef="work" />
      <userTask id="work" />
      <sequenceFlow id="s3" sourceRef="work" targetRef="halt" />
      <endEvent id="halt"><escalationEventDefinition escalationRef="stop" /></endEvent>
    </subProcess>
    <boundaryEvent id="notify" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition escalationRef="late" /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="notify" targetRef="informed" />
    <userTask id="informed" />
    <boundaryEvent id="stopped" attachedToRef="sub"><escalationEventDefinition escalationRef="stop" /></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="stopped" targetRef="afterStop" />
    <userTask id="afterStop" />
    <sequenceFlow id="f4" sourceRef="sub" targetRef="end" />
    <endEvent id="end" />
  </process>
  <process id="uncaught" isExecutable="true">
    <startEvent id="us" />
    <sequenceFlow id="u1" sourceRef="us" targetRef="uwarn" />
    <intermediateThrowEvent id="uwarn"><escalationEventDefinition escalationRef="late" /></intermediateThrowEvent>
    <sequenceFlow id="u2" sourceRef="uwarn" targetRef="utask" />
    <userTask id="utask" />
  </process>
</definitions>`

// Escalations: a non-interrupting boundary event starts a path beside the
// subprocess, which goes on; an interrupting one ends the subprocess; an
// uncaught escalation changes nothing.
func TestEscalationEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("esc", escalations)
		pi := e.Start("esc", nil)
		if got := e.TaskKeys(pi); got != "informed,work" && got != "work,informed" {
			t.Fatalf("after the non-interrupting escalation: waiting at %q", got)
		}
		e.Complete(pi, "work", nil)
		if got := e.TaskKeys(pi); got != "afterStop,informed" && got != "informed,afterStop" {
			t.Fatalf("after the interrupting escalation: waiting at %q", got)
		}
		if path := e.Path(pi); strings.Contains(path, ",end") {
			t.Fatalf("the subprocess completed normally: %q", path)
		}
		other := e.Start("uncaught", nil)
		if got := e.TaskKeys(other); got != "utask" {
			t.Fatalf("an uncaught escalation: waiting at %q", got)
		}
	})
}

const calledEscalation = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <escalation id="late" escalationCode="LATE" />
  <escalation id="stop" escalationCode="STOP" />
  <process id="caller" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <callActivity id="call" calledElement="callee" />
    <boundaryEvent id="notify" attachedToRef="call" cancelActivity="false"><escalationEventDefinition escalationRef="late" /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="notify" targetRef="informed" />
    <userTask id="informed" />
    <boundaryEvent id="stopped" attachedToRef="call"><escalationEventDefinition escalationRef="stop" /></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="stopped" targetRef="afterStop" />
    <userTask id="afterStop" />
    <sequenceFlow id="f4" sourceRef="call" targetRef="end" />
    <endEvent id="end" />
  </process>
  <process id="callee" isExecutable="true">
    <startEvent id="cs" />
    <sequenceFlow id="c1" sourceRef="cs" targetRef="warn" />
    <intermediateThrowEvent id="warn"><escalationEventDefinition escalationRef="late" /></intermediateThrowEvent>
    <sequenceFlow id="c2" sourceRef="warn" targetRef="work" />
    <userTask id="work" />
    <sequenceFlow id="c3" sourceRef="work" targetRef="halt" />
    <endEvent id="halt"><escalationEventDefinition escalationRef="stop" /></endEvent>
  </process>
</definitions>`

// An escalation thrown in a called process is caught by the call
// activity's boundary events: non-interrupting, the called instance goes
// on; interrupting, it is cancelled with the call activity.
func TestEscalationAcrossCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("called", calledEscalation)
		pi := e.Start("caller", nil)
		if got := e.TaskKeys(pi); got != "informed" {
			t.Fatalf("caller waiting at %q, want informed", got)
		}
		called, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "callee"})
		if len(called) != 1 || e.TaskKeys(called[0].ID) != "work" {
			t.Fatalf("the called instance did not go on: %+v", called)
		}
		e.Complete(called[0].ID, "work", nil)
		if got := e.TaskKeys(pi); got != "afterStop,informed" && got != "informed,afterStop" {
			t.Fatalf("after the interrupting escalation the caller waits at %q", got)
		}
		if got := e.State(called[0].ID); got == bpmnlite.StateActive {
			t.Fatalf("the called instance is still %s", got)
		}
	})
}

const signalBoundaries = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <signal id="remind" name="remind" />
  <signal id="abort" name="abort" />
  <process id="sb" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <userTask id="work" />
    <boundaryEvent id="reminded" attachedToRef="work" cancelActivity="false"><signalEventDefinition signalRef="remind" /></boundaryEvent>
    <sequenceFlow id="f2" sourceRef="reminded" targetRef="note" />
    <userTask id="note" />
    <boundaryEvent id="aborted" attachedToRef="work"><signalEventDefinition signalRef="abort" /></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="aborted" targetRef="cleanup" />
    <userTask id="cleanup" />
    <sequenceFlow id="f4" sourceRef="work" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`

// Signal boundary events: a non-interrupting one fires at every signal
// while its activity runs; an interrupting one cancels the activity.
func TestSignalBoundaryEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("sb", signalBoundaries)
		pi := e.Start("sb", nil)
		for range 2 {
			if err := e.Eng.Signal(e.Ctx, "remind", nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.TaskKeys(pi); got != "note,note,work" {
			t.Fatalf("after two reminders waiting at %q", got)
		}
		if err := e.Eng.Signal(e.Ctx, "abort", nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "cleanup,note,note" {
			t.Fatalf("after the abort waiting at %q", got)
		}
		if err := e.Eng.Signal(e.Ctx, "remind", nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "cleanup,note,note" {
			t.Fatalf("a reminder after the activity ended still fired: %q", got)
		}
	})
}
