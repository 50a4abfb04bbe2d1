package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

// A process whose probes, one after each place variables come in (start,
// task completion, message, external task completion), store what they
// see of v as seen_<probe>, when v is transient.
const transientProbes = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <message id="m" name="go"/>
  <process id="probes" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="p0" camunda:class="probe"/>
    <userTask id="first"/>
    <serviceTask id="p1" camunda:class="probe"/>
    <intermediateCatchEvent id="c"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
    <serviceTask id="p2" camunda:class="probe"/>
    <serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
    <serviceTask id="p3" camunda:class="probe"/>
    <userTask id="wait"/>
    <endEvent id="end"/>
    <sequenceFlow id="f0" sourceRef="start" targetRef="p0"/>
    <sequenceFlow id="f1" sourceRef="p0" targetRef="first"/>
    <sequenceFlow id="f2" sourceRef="first" targetRef="p1"/>
    <sequenceFlow id="f3" sourceRef="p1" targetRef="c"/>
    <sequenceFlow id="f4" sourceRef="c" targetRef="p2"/>
    <sequenceFlow id="f5" sourceRef="p2" targetRef="ext"/>
    <sequenceFlow id="f6" sourceRef="ext" targetRef="p3"/>
    <sequenceFlow id="f7" sourceRef="p3" targetRef="wait"/>
    <sequenceFlow id="f8" sourceRef="wait" targetRef="end"/>
  </process>
</definitions>`

// transientVar is v on the wire, marked transient.
func transientVar(value string) map[string]any {
	return map[string]any{"v": map[string]any{"value": value, "type": "String", "valueInfo": map[string]any{"transient": true}}}
}

// valueInfo.transient on start, task completion, message correlation and
// external task completion: each command's delegate sees the value, no
// later one does, and it is never among the stored variables.
func TestRESTTransientVariables(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("probe", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			v, ok, err := ex.Variable("v")
			if err != nil || !ok {
				return err
			}
			if transient, err := ex.IsTransient("v"); err != nil || !transient {
				return fmt.Errorf("v is not transient (%v)", err)
			}
			return ex.SetVariable("seen_"+ex.ActivityID(), v)
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("probes", map[string]string{"probes.bpmn": transientProbes}))
		pi, _ := field(a.ok(http.StatusOK, "POST", "/process-definition/key/probes/start", map[string]any{"variables": transientVar("a")}), "id").(string)
		tasks, err := a.eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("tasks %v, %v", tasks, err)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+tasks[0].ID+"/complete", map[string]any{"variables": transientVar("b")})
		a.ok(http.StatusNoContent, "POST", "/message", map[string]any{"messageName": "go", "processVariables": transientVar("c")})
		locked, _ := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1,
			"topics": []any{map[string]any{"topicName": "t", "lockDuration": 60000}}}).([]any)
		if len(locked) != 1 {
			t.Fatalf("fetched %v", locked)
		}
		if field(locked[0], "variables", "v") != nil {
			t.Errorf("a fetch handed over the transient v: %v", locked[0])
		}
		a.ok(http.StatusNoContent, "POST", "/external-task/"+field(locked[0], "id").(string)+"/complete",
			map[string]any{"workerId": "w", "variables": transientVar("d")})

		got := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil)
		for probe, want := range map[string]string{"p0": "a", "p1": "b", "p2": "c", "p3": "d"} {
			if v := field(got, "seen_"+probe, "value"); v != want {
				t.Errorf("probe %s saw %v, want %s", probe, v, want)
			}
		}
		if len(got.(map[string]any)) != 4 {
			t.Errorf("stored variables %v, want only the four seen_", got)
		}

		// A transient flag that is no boolean is refused, as Camunda does.
		status, out := a.call("POST", "/process-definition/key/probes/start", map[string]any{"variables": map[string]any{
			"v": map[string]any{"value": "x", "type": "String", "valueInfo": map[string]any{"transient": "yes"}}}})
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), "'transient'") {
			t.Errorf("transient \"yes\": %d %v, want 400 naming the property", status, out)
		}
	})
}

// The Go worker over HTTP sends Transient values with valueInfo.transient,
// and the server reads them back as Transient.
func TestRESTTransientEncoding(t *testing.T) {
	wire := rest.EncodeVariables(map[string]any{"a": bpmnlite.Transient(int64(1)), "b": "stored", "c": &bpmnlite.TransientValue{Value: "p"}})
	if wire["a"].ValueInfo["transient"] != true || wire["a"].Type != "Integer" || wire["c"].ValueInfo["transient"] != true {
		t.Errorf("transient values on the wire: %+v", wire)
	}
	if _, ok := wire["b"].ValueInfo["transient"]; ok {
		t.Errorf("a stored value marked transient: %+v", wire["b"])
	}
	back, err := rest.DecodeVariables(wire)
	if err != nil {
		t.Fatal(err)
	}
	if back["a"] != bpmnlite.Transient(int64(1)) || back["b"] != "stored" || back["c"] != bpmnlite.Transient("p") {
		t.Errorf("decoded %#v", back)
	}
}
