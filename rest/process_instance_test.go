package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
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

const treeProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="tree" name="Tree" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f0" sourceRef="start" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="f1" sourceRef="fork" targetRef="sub"/>
    <subProcess id="sub" name="Sub">
      <startEvent id="substart"/><sequenceFlow id="s1" sourceRef="substart" targetRef="inner"/>
      <userTask id="inner" name="Inner"/><sequenceFlow id="s2" sourceRef="inner" targetRef="subend"/><endEvent id="subend"/>
    </subProcess>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="review"/>
    <userTask id="review" name="Review">
      <multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
    </userTask>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="later"/>
    <userTask id="later" camunda:asyncBefore="true"/>
    <sequenceFlow id="f4" sourceRef="fork" targetRef="mapped"/>
    <userTask id="mapped">
      <extensionElements><camunda:inputOutput><camunda:inputParameter name="x">1</camunda:inputParameter></camunda:inputOutput></extensionElements>
    </userTask>
  </process>
</definitions>`

// GET /process-instance/{id}/activity-instances: the tree of activity
// instances, as Camunda's: subprocess and multi-instance body instances
// hold theirs, an async-before wait is a transition instance, every id
// is the one history and tasks name.
func TestRESTActivityInstanceTree(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("tree", map[string]string{"tree.bpmn": treeProcess}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/tree/start", map[string]any{}), "id").(string)
		tree := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/activity-instances", nil)
		if field(tree, "id") != pi || field(tree, "activityType") != "processDefinition" || field(tree, "parentActivityInstanceId") != nil ||
			field(tree, "name") != "Tree" {
			t.Errorf("root %v", tree)
		}
		if got, want := treeShape(tree), "tree(processDefinition)[mapped(userTask) review#multiInstanceBody(multiInstanceBody)[review(userTask) review(userTask)] sub(subProcess)[inner(userTask)] ~later]"; got != want {
			t.Errorf("tree\n got %s\nwant %s", got, want)
		}
		// The ids are those the rest of the API names: tasks' activity instances.
		acts := a.ok(http.StatusOK, "GET", "/history/activity-instance?processInstanceId="+pi+"&activityId=inner", nil).([]any)
		var inner any
		walkTree(tree, func(n any) {
			if field(n, "activityId") == "inner" {
				inner = n
			}
		})
		if len(acts) != 1 || inner == nil || field(inner, "id") != field(acts[0], "id") {
			t.Errorf("inner's activity instance: tree %v, history %v", inner, acts)
		}
		a.ok(http.StatusNotFound, "GET", "/process-instance/nope/activity-instances", nil)

		// A failed async-before job: a transition instance with its incident.
		a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("card declined")
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("review", map[string]string{"review.bpmn": reviewThenCharge}))
		pi = field(a.ok(http.StatusOK, "POST", "/process-definition/key/review/start", map[string]any{}), "id").(string)
		task := field(a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		job := field(a.ok(http.StatusOK, "GET", "/job?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		for range 3 {
			a.call("POST", "/job/"+job+"/execute", nil)
		}
		incident := field(a.ok(http.StatusOK, "GET", "/incident?processInstanceId="+pi, nil).([]any)[0], "id")
		tree = a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/activity-instances", nil)
		trs := field(tree, "childTransitionInstances").([]any)
		if len(trs) != 1 || field(trs[0], "activityId") != "charge" || fmt.Sprint(field(trs[0], "incidentIds")) != fmt.Sprint([]any{incident}) {
			t.Errorf("transition with incident %v: %v", incident, trs)
		}
	})
}

// treeShape writes an activity instance tree as
// activityId(type)[children ~transitions], children in id order.
func treeShape(n any) string {
	id := field(n, "activityId").(string)
	if field(n, "activityType") == "processDefinition" {
		id = strings.SplitN(id, ":", 2)[0]
	}
	s := id + "(" + field(n, "activityType").(string) + ")"
	var parts []string
	for _, c := range field(n, "childActivityInstances").([]any) {
		parts = append(parts, treeShape(c))
	}
	sort.Strings(parts)
	for _, tr := range field(n, "childTransitionInstances").([]any) {
		parts = append(parts, "~"+field(tr, "activityId").(string))
	}
	if len(parts) > 0 {
		s += "[" + strings.Join(parts, " ") + "]"
	}
	return s
}

func walkTree(n any, f func(any)) {
	f(n)
	for _, c := range field(n, "childActivityInstances").([]any) {
		walkTree(c, f)
	}
}

// A start's and a message's variables in return keep their declared
// types, as every variable resource does.
func TestRESTVariablesInReturnKeepTypes(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("one", map[string]string{"one.bpmn": oneTask}))
		vars := map[string]any{
			"n": map[string]any{"value": 5, "type": "Short"},
			"o": map[string]any{"value": `{"a":1}`, "type": "Object",
				"valueInfo": map[string]any{"objectTypeName": "com.example.A", "serializationDataFormat": "application/json"}},
		}
		out := a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{"variables": vars, "withVariablesInReturn": true})
		if field(out, "variables", "n", "type") != "Short" || field(out, "variables", "o", "type") != "Object" ||
			field(out, "variables", "o", "valueInfo", "objectTypeName") != "com.example.A" {
			t.Errorf("start's variables in return: %v", field(out, "variables"))
		}
	})
}

// A process instance's comments: those made on its tasks for it, listed,
// changed and deleted through the instance, with Camunda's errors.
func TestRESTProcessInstanceComments(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("one", map[string]string{"one.bpmn": oneTask}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{}), "id").(string)
		task := field(a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		var ids []string
		for _, msg := range []string{"first", "second"} {
			c := a.ok(http.StatusOK, "POST", "/task/"+task+"/comment/create", map[string]any{"message": msg, "processInstanceId": pi})
			ids = append(ids, field(c, "id").(string))
		}
		comments := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/comment", nil).([]any)
		if len(comments) != 2 || field(comments[0], "message") != "second" || field(comments[0], "processInstanceId") != pi {
			t.Fatalf("comments %v", comments)
		}
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+pi+"/comment", map[string]any{"id": ids[0], "message": "changed"})
		comments = a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/comment", nil).([]any)
		if field(comments[1], "message") != "changed" {
			t.Errorf("after the update: %v", comments)
		}
		status, out := a.call("PUT", "/process-instance/"+pi+"/comment", map[string]any{"id": "nope", "message": "x"})
		if status != http.StatusBadRequest || field(out, "message") != "No comment exists with commentId: nope and processInstanceId: "+pi {
			t.Errorf("update of another comment: %d %v", status, out)
		}
		a.ok(http.StatusBadRequest, "PUT", "/process-instance/"+pi+"/comment", map[string]any{"message": "x"})
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+pi+"/comment/"+ids[1], nil)
		if comments := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/comment", nil).([]any); len(comments) != 1 || field(comments[0], "id") != ids[0] {
			t.Errorf("after deleting one: %v", comments)
		}
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+pi+"/comment", nil)
		if comments := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/comment", nil).([]any); len(comments) != 0 {
			t.Errorf("after deleting all: %v", comments)
		}
		status, out = a.call("GET", "/process-instance/nope/comment", nil)
		if status != http.StatusNotFound || field(out, "message") != "No process instance found for id nope" {
			t.Errorf("unknown instance: %d %v", status, out)
		}
	})
}

// The user of basic authentication is the authenticated user of a start:
// camunda:initiator stores it. A bearer token names no user: null.
func TestRESTStartInitiator(t *testing.T) {
	const model = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="initiated" isExecutable="true">
    <startEvent id="start" camunda:initiator="starter"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <userTask id="task"/>
  </process>
</definitions>`
	for _, tc := range []struct {
		auth, header string
		want         any
	}{
		{"demo:pw", "Basic ZGVtbzpwdw==", "demo"},
		{"Bearer s3cret-s3cret-s3cret", "Bearer s3cret-s3cret-s3cret", nil},
	} {
		eachBackend(t, rest.Options{Auth: tc.auth}, func(t *testing.T, a *api) {
			if status, out := a.call("POST", "/deployment/create", deployment("i", map[string]string{"i.bpmn": model}), "Authorization", tc.header); status != http.StatusOK {
				t.Fatalf("deploy: %d %v", status, out)
			}
			status, out := a.call("POST", "/process-definition/key/initiated/start", map[string]any{}, "Authorization", tc.header)
			if status != http.StatusOK {
				t.Fatalf("start: %d %v", status, out)
			}
			v, ok, err := a.eng.Variable(t.Context(), field(out, "id").(string), "starter")
			if err != nil || !ok || v != tc.want {
				t.Fatalf("starter = %v (set %v, %v), want %v", v, ok, err, tc.want)
			}
		})
	}
}
