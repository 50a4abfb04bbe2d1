package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// nestedErrors is ExternalTaskServiceTest's model with camunda:errorEventDefinition
// elements (defs) on the external task and error boundary events for
// errorCodeA (to "userTask A") and errorCodeB (to "userTask B").
func nestedErrors(defs, io string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <error id="Error_A" errorCode="errorCodeA" />
  <error id="Error_B" errorCode="errorCodeB" />
  <process id="nested" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="externalTask" />
    <serviceTask id="externalTask" camunda:type="external" camunda:topic="topic">
      <extensionElements>` + io + defs + `</extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="externalTask" targetRef="end" />
    <endEvent id="end" />
    <boundaryEvent id="catchA" attachedToRef="externalTask"><errorEventDefinition errorRef="Error_A" /></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="catchA" targetRef="userTaskA" />
    <userTask id="userTaskA" />
    <boundaryEvent id="catchB" attachedToRef="externalTask"><errorEventDefinition errorRef="Error_B" /></boundaryEvent>
    <sequenceFlow id="f4" sourceRef="catchB" targetRef="userTaskB" />
    <userTask id="userTaskB" />
  </process>
</definitions>`
}

func errorDef(ref, expr string) string {
	return `<camunda:errorEventDefinition id="d` + ref + `" errorRef="` + ref + `" expression="` + expr + `" />`
}

// fetchOne starts the process and locks its external task.
func fetchOne(t *testing.T, e *env) (pi, task string) {
	t.Helper()
	pi = e.Start("nested", nil)
	got := e.Fetch("worker", 1, harness.Topic("topic", time.Minute))
	if len(got) != 1 {
		t.Fatalf("fetched %d tasks", len(got))
	}
	return pi, got[0].ID
}

// As ExternalTaskServiceTest's NestedErrorEventDefinition cases: on
// completion, the first definition whose expression holds (with the
// variables the worker sent, global or local) throws its error, which a
// boundary event catches; none holding completes the task; an empty
// expression never holds; a failing expression fails the completion.
func TestExternalTaskErrorEventDefinitionsOnComplete(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		two := nestedErrors(errorDef("Error_A", "${a}")+errorDef("Error_B", "${b}"), "")
		e.Deploy("two", two)
		for _, c := range []struct {
			a, b bool
			want string
		}{{true, false, "userTaskA"}, {false, true, "userTaskB"}, {true, true, "userTaskA"}, {false, false, ""}} {
			pi, task := fetchOne(t, e)
			if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", map[string]any{"a": c.a, "b": c.b}, nil); err != nil {
				t.Fatal(err)
			}
			if got := e.TaskKeys(pi); got != c.want {
				t.Errorf("a=%v b=%v: waiting at %q, want %q", c.a, c.b, got, c.want)
			}
			if c.want == "" && !e.Ended(pi) {
				t.Errorf("a=%v b=%v: no error, but the instance did not complete", c.a, c.b)
			}
		}

		// Local variables count too.
		e.Deploy("var", nestedErrors(errorDef("Error_A", "${foo == 'bar'}"), ""))
		pi, task := fetchOne(t, e)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", nil, map[string]any{"foo": "bar"}); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" {
			t.Fatalf("local variable: waiting at %q, want userTaskA", got)
		}
		pi, task = fetchOne(t, e)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", map[string]any{"foo": "bar"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" || e.Var(pi, "foo") != "bar" {
			t.Fatalf("waiting at %q, foo %v: want userTaskA and foo kept", got, e.Var(pi, "foo"))
		}

		// Unknown variable: the completion fails, nothing changes.
		pi, task = fetchOne(t, e)
		err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "foo") || !strings.Contains(err.Error(), "camunda:errorEventDefinition") {
			t.Fatalf("completion with the expression's variable missing: %v", err)
		}
		if ts := e.externalTasks(bpmnlite.ExternalTaskQuery{ProcessInstanceID: pi}); len(ts) != 1 {
			t.Fatalf("the failed completion removed the task: %d left", len(ts))
		}

		// An empty expression never holds.
		e.Deploy("empty", nestedErrors(errorDef("Error_A", ""), ""))
		pi, task = fetchOne(t, e)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", nil, nil); err != nil || !e.Ended(pi) {
			t.Fatalf("empty expression: %v, ended %v", err, e.Ended(pi))
		}

		// The expression sees externalTask: its error message is null on
		// a task that never failed.
		e.Deploy("null", nestedErrors(errorDef("Error_A", "${externalTask.getErrorMessage() == null}"), ""))
		pi, task = fetchOne(t, e)
		other := e.Start("nested", nil)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", nil, nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" || e.TaskKeys(other) != "" {
			t.Fatalf("waiting at %q (the other instance at %q), want userTaskA and nothing", got, e.TaskKeys(other))
		}
	})
}

// On a failure report the definitions are evaluated too, after the
// variables and the error message are set: a match throws the error
// (with the failure's message), a failing expression is skipped and the
// failure recorded (an incident at 0 retries).
func TestExternalTaskErrorEventDefinitionsOnFailure(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("msg", nestedErrors(errorDef("Error_A", "${externalTask.getErrorMessage() == 'myErrorMessage'}"), ""))
		pi, task := fetchOne(t, e)
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task, "worker", bpmnlite.ExternalTaskFailure{ErrorMessage: "myErrorMessage", ErrorDetails: "details", RetryTimeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" {
			t.Fatalf("waiting at %q, want userTaskA", got)
		}
		if ts := e.externalTasks(bpmnlite.ExternalTaskQuery{ProcessInstanceID: pi}); len(ts) != 0 {
			t.Fatalf("external task left: %+v", ts)
		}

		e.Deploy("var", nestedErrors(errorDef("Error_A", "${foo == 'bar'}"), ""))
		pi, task = fetchOne(t, e)
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task, "worker", bpmnlite.ExternalTaskFailure{ErrorMessage: "m", LocalVariables: map[string]any{"foo": "bar"}}); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" {
			t.Fatalf("local variable: waiting at %q, want userTaskA", got)
		}

		// foo missing: the expression fails, the failure is recorded.
		pi, task = fetchOne(t, e)
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task, "worker", bpmnlite.ExternalTaskFailure{ErrorMessage: "failed", Retries: 0}); err != nil {
			t.Fatal(err)
		}
		incidents, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
		if err != nil || len(incidents) != 1 || incidents[0].Type != "failedExternalTask" || incidents[0].Message != "failed" || incidents[0].Configuration != task {
			t.Fatalf("incidents %+v (%v), want the failure's", incidents, err)
		}
	})
}

// A task with an output mapping: the error is caught as a BPMN error
// from a worker is, the variables the worker sent kept.
func TestExternalTaskErrorEventDefinitionOutputMapping(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("io", nestedErrors(errorDef("Error_A", "${true}"),
			`<camunda:inputOutput><camunda:outputParameter name="outputParam">${foo}</camunda:outputParameter></camunda:inputOutput>`))
		pi, task := fetchOne(t, e)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task, "worker", map[string]any{"foo": "bar"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "userTaskA" || e.Var(pi, "foo") != "bar" {
			t.Fatalf("waiting at %q, foo %v", got, e.Var(pi, "foo"))
		}
	})
}

// Camunda ignores an errorEventDefinition without errorRef; bpmnlite
// refuses it, and one on a task that is not external, with the element.
func TestExternalTaskErrorEventDefinitionDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct{ xml, want string }{
			{nestedErrors(`<camunda:errorEventDefinition id="d" expression="${true}" />`, ""), "camunda:errorEventDefinition needs an errorRef"},
			{nestedErrors(`<camunda:errorEventDefinition id="d" errorRef="Error_A" expression="${true" />`, ""), "invalid expression in camunda:errorEventDefinition expression"},
			{nestedErrors(`<camunda:errorEventDefinition id="d" errorRef="Error_A" expression="${true}" camunda:errorCodeVariable="code" />`, ""), "camunda:errorCodeVariable on camunda:errorEventDefinition is not supported"},
			{enginetest.Process("plain", `<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="t" />
    <serviceTask id="t" camunda:class="do"><extensionElements><camunda:errorEventDefinition id="d" errorRef="E" expression="${true}" /></extensionElements></serviceTask>`),
				"camunda:errorEventDefinition is not supported here: camunda:errorEventDefinition belongs to external tasks"},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(c.xml)}}})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "serviceTask '") {
				t.Errorf("deploy: %v, want %q", err, c.want)
			}
		}
	})
}
