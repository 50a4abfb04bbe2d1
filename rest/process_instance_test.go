package rest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

const callingProcesses = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="parent" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <callActivity id="call" calledElement="child">
      <extensionElements><camunda:executionListener event="end" class="counted"/></extensionElements>
    </callActivity>
    <sequenceFlow id="f2" sourceRef="call" targetRef="end"/><endEvent id="end"/>
  </process>
  <process id="child" isExecutable="true">
    <startEvent id="cstart"/><sequenceFlow id="c1" sourceRef="cstart" targetRef="work"/>
    <userTask id="work"/><sequenceFlow id="c2" sourceRef="work" targetRef="cend"/><endEvent id="cend"/>
  </process>
</definitions>`

// DELETE /process-instance/{id} with Camunda's flags: skipCustomListeners
// keeps the listeners quiet, skipSubprocesses leaves the called instance
// running on its own, failIfNotExists=false makes an unknown id no error.
func TestRESTDeleteProcessInstanceFlags(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		var listened atomic.Int32
		a.eng.RegisterDelegate("counted", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			listened.Add(1)
			return nil
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("calls", map[string]string{"calls.bpmn": callingProcesses}))
		start := func() (parent, child string) {
			parent = field(a.ok(http.StatusOK, "POST", "/process-definition/key/parent/start", map[string]any{}), "id").(string)
			subs := a.ok(http.StatusOK, "GET", "/process-instance?superProcessInstance="+parent, nil).([]any)
			if len(subs) != 1 {
				t.Fatalf("called instances of %s: %v", parent, subs)
			}
			return parent, field(subs[0], "id").(string)
		}
		parent, child := start()
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+parent+"?skipCustomListeners=true&skipSubprocesses=true&skipIoMappings=true", nil)
		if n := listened.Load(); n != 0 {
			t.Errorf("skipCustomListeners: the end listener ran %d times", n)
		}
		a.ok(http.StatusNotFound, "GET", "/process-instance/"+parent, nil)
		roots := a.ok(http.StatusOK, "GET", "/process-instance?rootProcessInstances=true&processDefinitionKey=child", nil).([]any)
		if len(roots) != 1 || field(roots[0], "id") != child {
			t.Errorf("skipSubprocesses: the called instance should run on as a root instance: %v", roots)
		}

		parent, child = start()
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+parent, nil)
		if n := listened.Load(); n != 1 {
			t.Errorf("a plain delete: the end listener ran %d times, want 1", n)
		}
		a.ok(http.StatusNotFound, "GET", "/process-instance/"+child, nil)

		status, out := a.call("DELETE", "/process-instance/nope", nil)
		if status != http.StatusNotFound || field(out, "message") != "Process instance with id nope does not exist" {
			t.Errorf("unknown instance: %d %v", status, out)
		}
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/nope?failIfNotExists=false", nil)
		a.ok(http.StatusBadRequest, "DELETE", "/process-instance/nope?skipSubprocesses=maybe", nil)
	})
}

// Suspending and activating process instances: one, or a group by
// definition, by ids, or by a runtime or history query, in one
// transaction; bad requests as Camunda refuses them.
func TestRESTSuspendProcessInstances(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("calls", map[string]string{"calls.bpmn": callingProcesses}))
		var ids []string
		for _, bk := range []string{"a", "b", "c"} {
			ids = append(ids, field(a.ok(http.StatusOK, "POST", "/process-definition/key/child/start", map[string]any{"businessKey": bk}), "id").(string))
		}
		suspended := func() int {
			return int(field(a.ok(http.StatusOK, "GET", "/process-instance/count?suspended=true", nil), "count").(float64))
		}
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+ids[0]+"/suspended", map[string]any{"suspended": true})
		if p := a.ok(http.StatusOK, "GET", "/process-instance/"+ids[0], nil); field(p, "suspended") != true {
			t.Errorf("suspended instance: %v", p)
		}
		task := field(a.ok(http.StatusOK, "GET", "/task?processInstanceId="+ids[0], nil).([]any)[0], "id").(string)
		a.ok(http.StatusBadRequest, "POST", "/task/"+task+"/complete", map[string]any{})
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+ids[0]+"/suspended", map[string]any{"suspended": false})
		a.ok(http.StatusNotFound, "PUT", "/process-instance/nope/suspended", map[string]any{"suspended": true})
		a.ok(http.StatusBadRequest, "PUT", "/process-instance/"+ids[0]+"/suspended", map[string]any{})

		for _, c := range []struct {
			body map[string]any
			want int
		}{
			{map[string]any{"processDefinitionKey": "child", "suspended": true}, 3},
			{map[string]any{"processDefinitionKey": "child", "suspended": false}, 0},
			{map[string]any{"processInstanceIds": []string{ids[1]}, "suspended": true}, 1},
			{map[string]any{"processInstanceQuery": map[string]any{"businessKey": "c"}, "suspended": true}, 2},
			{map[string]any{"historicProcessInstanceQuery": map[string]any{"processInstanceBusinessKey": "a"}, "suspended": true}, 3},
		} {
			a.ok(http.StatusNoContent, "PUT", "/process-instance/suspended", c.body)
			if n := suspended(); n != c.want {
				t.Errorf("after %v: %d suspended, want %d", c.body, n, c.want)
			}
		}
		for _, bad := range []map[string]any{
			{"processDefinitionKey": "child"},
			{"suspended": true},
			{"suspended": true, "processDefinitionKey": "child", "processDefinitionId": "x"},
			{"suspended": true, "processDefinitionKey": "child", "processInstanceIds": []string{ids[0]}},
			{"suspended": false, "processInstanceIds": []string{ids[0], "nope"}},
			{"suspended": false, "processInstanceQuery": map[string]any{"caseInstanceId": "x"}},
		} {
			if status, out := a.call("PUT", "/process-instance/suspended", bad); status != http.StatusBadRequest {
				t.Errorf("%v: %d %v, want 400", bad, status, out)
			}
		}
		if n := suspended(); n != 3 {
			t.Errorf("a refused request changed something: %d suspended, want 3", n)
		}
	})
}
