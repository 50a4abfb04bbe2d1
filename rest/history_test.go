package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/rest"
)

// fixtureQuick is a process that ends as soon as it starts.
const fixtureQuick = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="quick" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// wantError fails unless the call answers status with a message
// containing msg.
func (a *api) wantError(status int, method, path string, body any, msg string) {
	a.t.Helper()
	got, out := a.call(method, path, body)
	if got != status || !strings.Contains(field(out, "message").(string), msg) {
		a.t.Errorf("%s %s: %d %v, want %d with a message containing %q", method, path, got, out, status, msg)
	}
}

// A historic process instance by id, its state as Camunda's history has it
// (SUSPENDED while suspended), the deletion of an ended one's history and
// of its variables, and the errors of each.
func TestRESTHistoricProcessInstance(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		idsOfFixture(t, a, fx)
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("quick", map[string]string{"quick.bpmn": fixtureQuick}))
		done := field(a.ok(http.StatusOK, "POST", "/process-definition/key/quick/start", map[string]any{
			"variables": map[string]any{"amount": map[string]any{"value": 5, "type": "Integer"}},
		}), "id").(string)

		got := a.ok(http.StatusOK, "GET", "/history/process-instance/"+done, nil)
		if field(got, "state") != "COMPLETED" || field(got, "endActivityId") != "end" || field(got, "rootProcessInstanceId") != done {
			t.Errorf("GET /history/process-instance/%s: %v", done, got)
		}
		a.wantError(http.StatusNotFound, "GET", "/history/process-instance/nope", nil, "Historic process instance with id nope does not exist")

		if err := a.eng.SuspendProcessInstance(t.Context(), fx["pi2"]); err != nil {
			t.Fatal(err)
		}
		if s := field(a.ok(http.StatusOK, "GET", "/history/process-instance/"+fx["pi2"], nil), "state"); s != "SUSPENDED" {
			t.Errorf("suspended instance's state in history: %v", s)
		}
		if ids := idsInOrder(a.ok(http.StatusOK, "GET", "/history/process-instance?suspended=true", nil).([]any)); len(ids) != 1 || ids[0] != fx["pi2"] {
			t.Errorf("suspended=true: %v, want %s", ids, fx["pi2"])
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count?active=true", nil), "count"); n != 2.0 {
			t.Errorf("active=true count: %v, want 2 (pi1, pi3)", n)
		}
		a.wantError(http.StatusBadRequest, "GET", "/history/process-instance?active=true&completed=true", nil, "Already querying for historic process instance with another state")
		a.wantError(http.StatusBadRequest, "GET", "/history/process-instance?startedAfter=yesterday", nil, "startedAfter")
		a.wantError(http.StatusBadRequest, "GET", "/history/process-instance?variables=x_eq_1", nil, "variables")

		// Deleting: a running instance's history stays (404, as Camunda).
		a.wantError(http.StatusNotFound, "DELETE", "/history/process-instance/"+fx["pi1"], nil, "Historic process instance with id "+fx["pi1"]+" does not exist")
		a.ok(http.StatusOK, "GET", "/history/process-instance/"+fx["pi1"], nil)
		a.wantError(http.StatusNotFound, "DELETE", "/history/process-instance/nope", nil, "Historic process instance with id nope does not exist")
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/nope?failIfNotExists=false", nil)
		a.wantError(http.StatusBadRequest, "DELETE", "/history/process-instance/nope?failIfNotExists=maybe", nil, "failIfNotExists")

		// The variables of the ended instance, then the instance.
		a.wantError(http.StatusNotFound, "DELETE", "/history/process-instance/nope/variable-instances", nil, "No historic process instance found with id: nope")
		if vars, err := a.eng.Variables(t.Context(), done); err != nil || vars["amount"] == nil {
			t.Fatalf("variables of the ended instance: %v %v", vars, err)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/"+done+"/variable-instances", nil)
		if vars, err := a.eng.Variables(t.Context(), done); err != nil || len(vars) != 0 {
			t.Errorf("variables after deleting them from history: %v %v", vars, err)
		}
		acts := a.ok(http.StatusOK, "GET", "/history/activity-instance?processInstanceId="+done, nil).([]any)
		if len(acts) != 2 {
			t.Fatalf("activity instances of the ended instance: %v", acts)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/"+done, nil)
		a.wantError(http.StatusNotFound, "GET", "/history/process-instance/"+done, nil, "does not exist")
		if n := field(a.ok(http.StatusOK, "GET", "/history/activity-instance/count?processInstanceId="+done, nil), "count"); n != 0.0 {
			t.Errorf("activity instances after the deletion: %v", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count", nil), "count"); n != 3.0 {
			t.Errorf("other instances after the deletion: %v, want 3", n)
		}

		a.wantError(http.StatusNotImplemented, "POST", "/history/process-instance/delete", map[string]any{"historicProcessInstanceIds": []string{fx["pi1"]}}, "batches")

		// Activity instances by id.
		act := a.ok(http.StatusOK, "GET", "/history/activity-instance/"+fx["act2check"], nil)
		if field(act, "activityId") != "check" || field(act, "processInstanceId") != fx["pi2"] {
			t.Errorf("GET /history/activity-instance/%s: %v", fx["act2check"], act)
		}
		a.wantError(http.StatusNotFound, "GET", "/history/activity-instance/nope", nil, "Historic activity instance with id 'nope' does not exist")
	})
}
