package rest_test

import (
	"net/http"
	"testing"

	"github.com/bpmnlite/bpmnlite/rest"
)

const modifiable = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="modifiable" isExecutable="true">
    <serviceTask id="broken" camunda:expression="${missing}"/>
    <startEvent id="start"/><userTask id="task1"/>
    <subProcess id="sub"><startEvent id="subStart"/><userTask id="subTask"/><endEvent id="subEnd"/>
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="subTask"/><sequenceFlow id="s2" sourceRef="subTask" targetRef="subEnd"/>
    </subProcess>
    <userTask id="task2"/><endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="task1"/><sequenceFlow id="f2" sourceRef="task1" targetRef="sub"/>
    <sequenceFlow id="f3" sourceRef="sub" targetRef="task2"/><sequenceFlow id="f4" sourceRef="task2" targetRef="end"/>
  </process>
</definitions>`

// activityInstanceOf is the id of activity's only instance in pi's tree.
func activityInstanceOf(t *testing.T, a *api, pi, activity string) string {
	t.Helper()
	var ids []string
	walkTree(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/activity-instances", nil), func(n any) {
		if field(n, "activityId") == activity {
			ids = append(ids, field(n, "id").(string))
		}
	})
	if len(ids) != 1 {
		t.Fatalf("instances of %s: %v", activity, ids)
	}
	return ids[0]
}

func TestRESTModification(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("m", map[string]string{"m.bpmn": modifiable}))
		start := func() string {
			return field(a.ok(http.StatusOK, "POST", "/process-definition/key/modifiable/start", map[string]any{}), "id").(string)
		}
		pi := start()
		tree := func() string {
			return treeShape(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/activity-instances", nil))
		}
		path := "/process-instance/" + pi + "/modification"
		a.ok(http.StatusNoContent, "POST", path, map[string]any{
			"skipCustomListeners": true, "annotation": "Modified to resolve an error.",
			"instructions": []any{
				map[string]any{"type": "startBeforeActivity", "activityId": "subTask", "variables": map[string]any{
					"var":      map[string]any{"value": "aVariableValue", "local": false, "type": "String"},
					"varLocal": map[string]any{"value": "anotherVariableValue", "local": true, "type": "String"}}},
				map[string]any{"type": "cancel", "activityInstanceId": activityInstanceOf(t, a, pi, "task1")},
			}})
		if got := tree(); got != "modifiable(processDefinition)[sub(subProcess)[subTask(userTask)]]" {
			t.Errorf("tree %s", got)
		}
		if v := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/var", nil), "value"); v != "aVariableValue" {
			t.Errorf("var %v", v)
		}
		if st, _ := a.call("GET", "/process-instance/"+pi+"/variables/varLocal", nil); st != http.StatusNotFound {
			t.Errorf("the local variable is the process instance's: %d", st)
		}

		// A refusal names the instruction and changes nothing.
		for _, tc := range []struct {
			ins  map[string]any
			want string
		}{
			{map[string]any{"type": "startBeforeActivity", "activityId": "nope"}, `instruction 1 (startBeforeActivity): activity "nope" does not exist`},
			{map[string]any{"type": "cancel", "activityInstanceId": "nope"}, `instruction 1 (cancelActivityInstance): activity instance "nope" does not exist`},
			{map[string]any{"type": "cancel", "activityId": "task2", "activityInstanceId": "x"}, "instructions[1]: For instruction type 'cancel': exactly one"},
			{map[string]any{"type": "startTransition"}, "instructions[1]: For instruction type 'startTransition': 'transitionId' must be set"},
			{map[string]any{"type": "jump", "activityId": "task2"}, `instructions[1]: type "jump"`},
			{map[string]any{"type": "startBeforeActivity", "activityId": "task2", "ancestorActivityInstanceId": "nope"}, `ancestor activity instance "nope" does not exist`},
		} {
			wantError(t, a, http.StatusBadRequest, "InvalidRequestException", tc.want, "POST", path, map[string]any{"instructions": []any{
				map[string]any{"type": "cancel", "activityId": "subTask"}, tc.ins}})
		}
		if got := tree(); got != "modifiable(processDefinition)[sub(subProcess)[subTask(userTask)]]" {
			t.Errorf("tree after refusals %s", got)
		}
		// An activity that fails as it starts: Camunda's 500.
		wantError(t, a, http.StatusInternalServerError, "ProcessEngineException", "instruction 0 (startBeforeActivity)", "POST", path,
			map[string]any{"instructions": []any{map[string]any{"type": "startBeforeActivity", "activityId": "broken"}}})
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Process instance with id nope does not exist", "POST",
			"/process-instance/nope/modification", map[string]any{"instructions": []any{map[string]any{"type": "cancel", "activityId": "task1"}}})

		// startAfterActivity leaves the subprocess; cancelling its last
		// path cancels it; startTransition, then cancelling all ends it.
		a.ok(http.StatusNoContent, "POST", path, map[string]any{"instructions": []any{
			map[string]any{"type": "startAfterActivity", "activityId": "sub"},
			map[string]any{"type": "cancel", "activityId": "subTask"}}})
		if got := tree(); got != "modifiable(processDefinition)[task2(userTask)]" {
			t.Errorf("tree %s", got)
		}
		a.ok(http.StatusNoContent, "POST", path, map[string]any{"instructions": []any{
			map[string]any{"type": "cancel", "activityId": "task2"}}})
		if st, _ := a.call("GET", "/process-instance/"+pi, nil); st != http.StatusNotFound {
			t.Errorf("instance after its last activity was cancelled: %d, want 404", st)
		}
		if s := field(a.ok(http.StatusOK, "GET", "/history/process-instance/"+pi, nil), "state"); s != "EXTERNALLY_TERMINATED" {
			t.Errorf("history state %v", s)
		}

		// Several instances at once, by ids and by query.
		one, two := start(), start()
		pd := field(a.ok(http.StatusOK, "GET", "/process-definition/key/modifiable", nil), "id")
		a.ok(http.StatusNoContent, "POST", "/modification/execute", map[string]any{
			"processDefinitionId": pd, "processInstanceIds": []string{one},
			"processInstanceQuery": map[string]any{"processInstanceIds": []string{two}},
			"instructions": []any{
				map[string]any{"type": "startBeforeActivity", "activityId": "task2"},
				map[string]any{"type": "cancel", "activityId": "task1", "cancelCurrentActiveActivityInstances": true}}})
		for _, p := range []string{one, two} {
			if got := treeShape(a.ok(http.StatusOK, "GET", "/process-instance/"+p+"/activity-instances", nil)); got != "modifiable(processDefinition)[task2(userTask)]" {
				t.Errorf("%s: tree %s", p, got)
			}
		}
		execute := func(body map[string]any) map[string]any {
			body["processDefinitionId"], body["processInstanceIds"] = pd, []string{one}
			return body
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Modification instructions cannot be empty", "POST", "/modification/execute",
			execute(map[string]any{}))
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "apply to one process instance's modification only", "POST", "/modification/execute",
			execute(map[string]any{"instructions": []any{map[string]any{"type": "cancel", "activityInstanceId": "x"}}}))
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Process instance ids is empty", "POST", "/modification/execute",
			map[string]any{"processDefinitionId": pd, "instructions": []any{map[string]any{"type": "cancel", "activityId": "task2"}}})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "not of process definition", "POST", "/modification/execute",
			map[string]any{"processDefinitionId": "other:1:x", "processInstanceIds": []string{one}, "instructions": []any{map[string]any{"type": "cancel", "activityId": "task2"}}})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "processDefinitionId is required", "POST", "/modification/executeAsync", map[string]any{})
	})
}
