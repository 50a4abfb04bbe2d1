package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/rest"
)

// approval: a user task for the sales and support groups with a
// deployed form, an error boundary event (REJECT), an interrupting
// (ABORT) and a non-interrupting (LATE) escalation boundary event; after
// it, a second user task.
const approvalProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <error id="reject" errorCode="REJECT"/>
  <escalation id="late" escalationCode="LATE"/>
  <escalation id="abort" escalationCode="ABORT"/>
  <process id="approval" name="Approval" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="approve"/>
    <userTask id="approve" name="Approve" camunda:candidateGroups="sales,support" camunda:formKey="embedded:deployment:forms/approve.html"/>
    <sequenceFlow id="f2" sourceRef="approve" targetRef="archive"/>
    <userTask id="archive" name="Archive"/>
    <sequenceFlow id="f3" sourceRef="archive" targetRef="end"/>
    <endEvent id="end"/>
    <boundaryEvent id="rejected" attachedToRef="approve"><errorEventDefinition errorRef="reject" camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/></boundaryEvent>
    <sequenceFlow id="f4" sourceRef="rejected" targetRef="fix"/>
    <userTask id="fix" name="Fix"/>
    <sequenceFlow id="f5" sourceRef="fix" targetRef="end"/>
    <boundaryEvent id="reminded" attachedToRef="approve" cancelActivity="false"><escalationEventDefinition escalationRef="late"/></boundaryEvent>
    <sequenceFlow id="f6" sourceRef="reminded" targetRef="remind"/>
    <userTask id="remind" name="Remind"/>
    <sequenceFlow id="f7" sourceRef="remind" targetRef="end"/>
    <boundaryEvent id="aborted" attachedToRef="approve"><escalationEventDefinition escalationRef="abort"/></boundaryEvent>
    <sequenceFlow id="f8" sourceRef="aborted" targetRef="end"/>
  </process>
</definitions>`

// startApprovalTask deploys approvalProcess (once) and starts it with vars,
// returning the instance and its approve task.
func startApprovalTask(t *testing.T, a *api, vars map[string]any) (pi, task string) {
	t.Helper()
	a.ok(http.StatusOK, "POST", "/deployment/create", deployment("approval", map[string]string{"approval.bpmn": approvalProcess}))
	pi = field(a.ok(http.StatusOK, "POST", "/process-definition/key/approval/start", map[string]any{"variables": vars}), "id").(string)
	return pi, openTasks(t, a, pi)[0]
}

// openTasks are the ids of the instance's open tasks, by task definition
// key order of creation.
func openTasks(t *testing.T, a *api, pi string) []string {
	t.Helper()
	var ids []string
	for _, task := range a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any) {
		ids = append(ids, field(task, "id").(string))
	}
	return ids
}

// taskKeys are the task definition keys of the instance's open tasks.
func taskKeys(t *testing.T, a *api, pi string) []string {
	t.Helper()
	var keys []string
	for _, task := range a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any) {
		keys = append(keys, field(task, "taskDefinitionKey").(string))
	}
	slices.Sort(keys)
	return keys
}

// wantExactError checks a Camunda error reply: status, type and message.
func wantExactError(t *testing.T, a *api, status int, typ, message, method, path string, body any) {
	t.Helper()
	got, out := a.call(method, path, body)
	if got != status || field(out, "type") != typ || field(out, "message") != message {
		t.Errorf("%s %s: %d %v, want %d %s %q", method, path, got, out, status, typ, message)
	}
}

func TestRESTStandaloneTasks(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "call", "name": "Call", "description": "Call back",
			"assignee": "ann", "owner": "olga", "priority": 30, "due": "2030-01-02T03:04:05.000+0000", "followUp": "2029-01-01T00:00:00.000+0000"})
		got := a.ok(http.StatusOK, "GET", "/task/call", nil)
		for k, want := range map[string]any{"name": "Call", "description": "Call back", "assignee": "ann", "owner": "olga",
			"priority": float64(30), "due": "2030-01-02T03:04:05.000+0000", "followUp": "2029-01-01T00:00:00.000+0000",
			"processInstanceId": nil, "executionId": nil, "taskDefinitionKey": nil, "delegationState": nil, "lastUpdated": nil} {
			if field(got, k) != want {
				t.Errorf("created task's %s: %v, want %v", k, field(got, k), want)
			}
		}
		// A subtask, then an update that replaces every field (a missing one clears it).
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "sub", "name": "Look up", "parentTaskId": "call"})
		a.ok(http.StatusNoContent, "PUT", "/task/call", map[string]any{"name": "Call again", "priority": 10, "delegationState": "resolved"})
		got = a.ok(http.StatusOK, "GET", "/task/call", nil)
		if field(got, "name") != "Call again" || field(got, "assignee") != nil || field(got, "owner") != nil ||
			field(got, "priority") != float64(10) || field(got, "due") != nil || field(got, "delegationState") != "RESOLVED" || field(got, "lastUpdated") == nil {
			t.Errorf("updated task: %v", got)
		}
		hist := a.ok(http.StatusOK, "GET", "/history/task?taskId=call", nil).([]any)
		if len(hist) != 1 || field(hist[0], "name") != "Call again" || field(hist[0], "processInstanceId") != nil {
			t.Errorf("history of the standalone task: %v", hist)
		}

		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Could not save task: Cannot create task: a task with id 'call' already exists",
			"POST", "/task/create", map[string]any{"id": "call"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Could not save task: Parent task with id 'nope' does not exist",
			"POST", "/task/create", map[string]any{"parentTaskId": "nope"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Valid values for property 'delegationState' are 'PENDING' or 'RESOLVED', but was 'later'",
			"POST", "/task/create", map[string]any{"delegationState": "later"})
		for _, bad := range []map[string]any{{"due": "tomorrow"}, {"caseInstanceId": "c1"}} {
			if status, out := a.call("POST", "/task/create", bad); status != http.StatusBadRequest {
				t.Errorf("POST /task/create %v: %d %v, want 400", bad, status, out)
			}
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching task with id nope", "PUT", "/task/nope", map[string]any{"name": "x"})
		// A tenant's task: its subtasks are the tenant's, its tenant stays.
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "acme", "tenantId": "acme"})
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "acme-sub", "parentTaskId": "acme"})
		if got := a.ok(http.StatusOK, "GET", "/task/acme-sub", nil); field(got, "tenantId") != "acme" {
			t.Errorf("subtask of a tenant's task: %v", got)
		}
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException",
			"Could not save task: Cannot set different tenantId on subtask than on parent Task. Parent taskId: 'acme', tenantId: 'acme', tenant id to set 'other'",
			"POST", "/task/create", map[string]any{"parentTaskId": "acme", "tenantId": "other"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Cannot change tenantId of Task 'acme'. Current tenant id 'acme', Tenant id to set 'null'",
			"PUT", "/task/acme", map[string]any{"name": "x"})
		a.ok(http.StatusNoContent, "PUT", "/task/acme", map[string]any{"name": "x", "tenantId": "acme"})
		if n := field(a.ok(http.StatusOK, "GET", "/task/count?tenantIdIn=acme", nil), "count"); n != float64(2) {
			t.Errorf("tasks of tenant acme: %v", n)
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching task with id nope", "GET", "/task/nope", nil)

		// Completing a standalone task ends it; deleting one deletes its subtasks.
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "done"})
		a.ok(http.StatusNoContent, "POST", "/task/done/complete", map[string]any{})
		a.ok(http.StatusNoContent, "DELETE", "/task/call", nil)
		for _, id := range []string{"call", "sub", "done"} {
			if status, _ := a.call("GET", "/task/"+id, nil); status != http.StatusNotFound {
				t.Errorf("task %s after it ended: %d, want 404", id, status)
			}
		}
		for id, reason := range map[string]string{"call": "deleted", "sub": "deleted", "done": "completed"} {
			if h := a.ok(http.StatusOK, "GET", "/history/task?taskId="+id, nil).([]any); len(h) != 1 || field(h[0], "deleteReason") != reason {
				t.Errorf("history of %s: %v, want ended %s", id, h, reason)
			}
		}
		a.ok(http.StatusNoContent, "DELETE", "/task/nope", nil) // as Camunda: nothing to delete is no error
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Could not save task: Cannot create task: a task with id 'done' already exists",
			"POST", "/task/create", map[string]any{"id": "done"}) // in history only

		_, task := startApprovalTask(t, a, nil)
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Could not delete task: The task cannot be deleted because is part of a running process",
			"DELETE", "/task/"+task, nil)
	})
}

// The older parameter names Camunda still takes filter as the new ones;
// orQueries, which bpmnlite cannot run, are refused, not ignored, as are
// the combinations of parameters Camunda refuses.
func TestRESTTaskQueryRules(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "due", "due": "2030-01-01T00:00:00.000+0000", "followUp": "2029-01-01T00:00:00.000+0000"})
		time.Sleep(2 * time.Millisecond) // created a millisecond apart
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "other"})
		created := field(a.ok(http.StatusOK, "GET", "/task/due", nil), "created").(string)
		for _, q := range []string{"due=2030-01-01T00:00:00.000%2B0000", "followUp=2029-01-01T00:00:00.000%2B0000", "created=" + strings.ReplaceAll(created, "+", "%2B")} {
			if got := a.ok(http.StatusOK, "GET", "/task?"+q, nil).([]any); len(got) != 1 || field(got[0], "id") != "due" {
				t.Errorf("GET /task?%s: %v, want task due", q, got)
			}
		}
		status, out := a.call("POST", "/task", map[string]any{"orQueries": []any{map[string]any{"name": "x"}}})
		if status != http.StatusBadRequest || !strings.Contains(field(out, "message").(string), "orQueries") {
			t.Errorf("POST /task with orQueries: %d %v, want 400 naming them", status, out)
		}
		// Combinations Camunda refuses.
		for query, message := range map[string]string{
			"candidateUser=a&candidateGroup=b":         "Invalid query usage: cannot set both candidateUser and candidateGroup",
			"candidateUser=a&candidateGroupLike=b":     "Invalid query usage: cannot set both candidateGroupLike and candidateUser",
			"withoutDueDate=true&dueBefore=" + created: "Invalid query usage: cannot set both dueDate, dueBefore or dueAfter and withoutDueDate filters.",
			"delegationState=later":                    "Valid values for property 'delegationState' are 'PENDING' or 'RESOLVED', but was 'later'",
			"includeAssignedTasks=true":                "Invalid query usage: candidateUser, candidateGroup, candidateGroupLike, candidateGroupIn, withCandidateGroups, withoutCandidateGroups, withCandidateUsers, withoutCandidateUsers has to be called before 'includeAssignedTasks'.",
		} {
			query = strings.ReplaceAll(query, "+", "%2B")
			wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", message, "GET", "/task?"+query, nil)
			wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", message, "GET", "/task/count?"+query, nil)
		}
	})
}

func TestRESTTaskAssignmentAndDelegation(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/claim", map[string]any{"userId": "ann"})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/claim", map[string]any{"userId": "ann"}) // hers already
		wantExactError(t, a, http.StatusInternalServerError, "TaskAlreadyClaimedException", "Task '"+task+"' is already claimed by someone else.",
			"POST", "/task/"+task+"/claim", map[string]any{"userId": "bob"})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/delegate", map[string]any{"userId": "dave"})
		got := a.ok(http.StatusOK, "GET", "/task/"+task, nil)
		if field(got, "owner") != "ann" || field(got, "assignee") != "dave" || field(got, "delegationState") != "PENDING" {
			t.Fatalf("delegated task: %v", got)
		}
		wantExactError(t, a, http.StatusInternalServerError, "RestException",
			"Cannot complete task "+task+": A delegated task cannot be completed, but should be resolved instead.",
			"POST", "/task/"+task+"/complete", map[string]any{})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/resolve", map[string]any{"variables": map[string]any{"checked": map[string]any{"value": true}}})
		got = a.ok(http.StatusOK, "GET", "/task/"+task, nil)
		if field(got, "owner") != "ann" || field(got, "assignee") != "ann" || field(got, "delegationState") != "RESOLVED" {
			t.Fatalf("resolved task: %v", got)
		}
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil); field(v, "checked", "value") != true {
			t.Errorf("variables after resolve: %v", v)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/unclaim", nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/assignee", map[string]any{"userId": "bob"})
		if got := a.ok(http.StatusOK, "GET", "/task/"+task, nil); field(got, "assignee") != "bob" {
			t.Errorf("assignee: %v", got)
		}
		if h := a.ok(http.StatusOK, "GET", "/history/task?taskId="+task, nil).([]any); field(h[0], "assignee") != "bob" || field(h[0], "owner") != "ann" {
			t.Errorf("history follows the task: %v", h)
		}
		if err := a.eng.SuspendProcessInstance(t.Context(), pi); err != nil {
			t.Fatal(err)
		}
		for _, op := range []string{"claim", "delegate", "complete"} {
			wantExactError(t, a, http.StatusBadRequest, "BadUserRequestException", "task with id '"+task+"' is suspended.", "POST", "/task/"+task+"/"+op, map[string]any{"userId": "x"})
		}
		if status, _ := a.call("PUT", "/task/"+task, map[string]any{"name": "x"}); status != http.StatusBadRequest {
			t.Errorf("PUT of a suspended task: %d, want 400", status)
		}
		for _, op := range []string{"claim", "unclaim", "assignee", "delegate", "resolve", "complete", "submit-form"} {
			wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "POST", "/task/nope/"+op, map[string]any{"userId": "x"})
		}
	})
}

func TestRESTTaskCompleteWithVariablesInReturn(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApprovalTask(t, a, map[string]any{"amount": map[string]any{"value": 5, "type": "Integer"}})
		out := a.ok(http.StatusOK, "POST", "/task/"+task+"/complete", map[string]any{"withVariablesInReturn": true,
			"variables": map[string]any{"approved": map[string]any{"value": true, "type": "Boolean"}, "count": map[string]any{"value": 3, "type": "Short"}}})
		if field(out, "amount", "value") != float64(5) || field(out, "approved", "value") != true || field(out, "approved", "type") != "Boolean" ||
			field(out, "count", "type") != "Short" {
			t.Errorf("variables in return: %v", out)
		}
		// The last task: the instance ends, its variables come back as they were.
		archive := openTasks(t, a, pi)[0]
		out = a.ok(http.StatusOK, "POST", "/task/"+archive+"/submit-form", map[string]any{"withVariablesInReturn": true,
			"variables": map[string]any{"archived": map[string]any{"value": "yes"}}})
		if field(out, "archived", "value") != "yes" || field(out, "approved", "value") != true {
			t.Errorf("variables in return as the instance ended: %v", out)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/process-instance/count?processInstanceIds="+pi, nil), "count"); n != float64(0) {
			t.Errorf("instance still running: %v", n)
		}
		// A delegated task's form submission resolves it.
		pi, task = startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/delegate", map[string]any{"userId": "dave"})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/submit-form", map[string]any{})
		if got := a.ok(http.StatusOK, "GET", "/task/"+task, nil); field(got, "delegationState") != "RESOLVED" {
			t.Errorf("submitted delegated task: %v", got)
		}
		if status, out := a.call("POST", "/task/"+task+"/complete", map[string]any{"variables": map[string]any{"x": map[string]any{"value": "no", "type": "Boolean"}}}); status != http.StatusBadRequest ||
			!strings.Contains(field(out, "message").(string), "'x'") {
			t.Errorf("a bad variable: %d %v, want 400 naming it", status, out)
		}
	})
}

// Tasks show their variables when asked: all they see, or their own.
func TestRESTTaskVariablesInReturn(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApprovalTask(t, a, map[string]any{"amount": map[string]any{"value": 5, "type": "Short"}})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/localVariables", map[string]any{"modifications": map[string]any{"note": map[string]any{"value": "x"}}})
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "alone"})
		for _, c := range []struct{ path, want string }{
			{"/task/" + task + "?withTaskVariablesInReturn=true", "amount note"},
			{"/task/" + task + "?withTaskLocalVariablesInReturn=true", "note"},
			{"/task?processInstanceId=" + pi + "&withTaskVariablesInReturn=true", "amount note"},
			{"/task?processInstanceId=" + pi + "&withTaskLocalVariablesInReturn=true", "note"},
			{"/task/alone?withTaskVariablesInReturn=true", ""},
		} {
			got := a.ok(http.StatusOK, "GET", c.path, nil)
			if list, ok := got.([]any); ok {
				got = list[0]
			}
			vars, _ := field(got, "variables").(map[string]any)
			var names []string
			for name := range vars {
				names = append(names, name)
			}
			slices.Sort(names)
			if vars == nil || strings.Join(names, " ") != c.want {
				t.Errorf("GET %s: variables %v, want %s", c.path, field(got, "variables"), c.want)
			}
			if c.want == "amount note" && field(vars, "amount", "type") != "Short" {
				t.Errorf("GET %s: amount %v, want its declared type Short", c.path, field(vars, "amount"))
			}
		}
		if got := a.ok(http.StatusOK, "GET", "/task/"+task, nil); field(got, "variables") != nil {
			t.Errorf("a task not asked for its variables shows them: %v", got)
		}
	})
}

func TestRESTTaskBpmnErrorAndEscalation(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/bpmnError", map[string]any{"errorCode": "REJECT", "errorMessage": "too expensive",
			"variables": map[string]any{"note": map[string]any{"value": "see mail"}}})
		if keys := taskKeys(t, a, pi); !slices.Equal(keys, []string{"fix"}) {
			t.Errorf("after the error: tasks %v, want [fix]", keys)
		}
		vars := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil)
		if field(vars, "code", "value") != "REJECT" || field(vars, "why", "value") != "too expensive" || field(vars, "note", "value") != "see mail" {
			t.Errorf("variables after the error: %v", vars)
		}
		if h := a.ok(http.StatusOK, "GET", "/history/task?taskId="+task, nil).([]any); field(h[0], "deleteReason") != "deleted" {
			t.Errorf("history of the task the error cancelled: %v", h)
		}
		// Uncaught: the path ends, the task with it.
		pi, task = startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/bpmnError", map[string]any{"errorCode": "OTHER"})
		if keys := taskKeys(t, a, pi); len(keys) != 0 {
			t.Errorf("after an uncaught error: tasks %v", keys)
		}

		pi, task = startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/bpmnEscalation", map[string]any{"escalationCode": "LATE"})
		if keys := taskKeys(t, a, pi); !slices.Equal(keys, []string{"approve", "remind"}) {
			t.Errorf("after a non-interrupting escalation: tasks %v, want [approve remind]", keys)
		}
		wantExactError(t, a, http.StatusInternalServerError, "ProcessEngineException",
			"Execution with id 'approve' throws an escalation event with escalationCode 'NONE', but no escalation handler was defined. ",
			"POST", "/task/"+task+"/bpmnEscalation", map[string]any{"escalationCode": "NONE"})
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/bpmnEscalation", map[string]any{"escalationCode": "ABORT"})
		if keys := taskKeys(t, a, pi); !slices.Equal(keys, []string{"remind"}) {
			t.Errorf("after an interrupting escalation: tasks %v, want [remind]", keys)
		}

		remind := openTasks(t, a, pi)[0]
		for _, path := range []string{"/bpmnError", "/bpmnEscalation"} {
			wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "POST", "/task/nope"+path,
				map[string]any{"errorCode": "X", "escalationCode": "X"})
			if status, out := a.call("POST", "/task/"+remind+path, map[string]any{}); status != http.StatusBadRequest {
				t.Errorf("POST %s without a code: %d %v, want 400", path, status, out)
			}
		}
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "alone"})
		if status, out := a.call("POST", "/task/alone/bpmnError", map[string]any{"errorCode": "X"}); status != http.StatusBadRequest {
			t.Errorf("BPMN error at a standalone task: %d %v, want 400", status, out)
		}
	})
}

func TestRESTTaskIdentityLinks(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		_, task := startApprovalTask(t, a, nil)
		links := func(query string) []string {
			var out []string
			for _, l := range a.ok(http.StatusOK, "GET", "/task/"+task+"/identity-links"+query, nil).([]any) {
				who := field(l, "userId")
				if who == nil {
					who = "group:" + field(l, "groupId").(string)
				}
				out = append(out, field(l, "type").(string)+" "+who.(string))
			}
			return out
		}
		if got := links(""); !slices.Equal(got, []string{"candidate group:sales", "candidate group:support"}) {
			t.Errorf("links from the model: %v", got)
		}
		path := "/task/" + task + "/identity-links"
		a.ok(http.StatusNoContent, "POST", path, map[string]any{"userId": "carl", "type": "candidate"})
		a.ok(http.StatusNoContent, "POST", path, map[string]any{"userId": "ann", "type": "assignee"})
		a.ok(http.StatusNoContent, "POST", path, map[string]any{"userId": "olga", "type": "owner"})
		a.ok(http.StatusNoContent, "POST", path+"/delete", map[string]any{"groupId": "sales", "type": "candidate"})
		if got := links(""); !slices.Equal(got, []string{"candidate group:support", "candidate carl", "assignee ann", "owner olga"}) {
			t.Errorf("links: %v", got)
		}
		if got := links("?type=candidate"); !slices.Equal(got, []string{"candidate group:support", "candidate carl"}) {
			t.Errorf("candidate links: %v", got)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/task/count?candidateUser=carl&includeAssignedTasks=true", nil), "count"); n != float64(1) {
			t.Errorf("tasks of candidate carl: %v", n)
		}
		a.ok(http.StatusNoContent, "POST", path+"/delete", map[string]any{"userId": "ann", "type": "assignee"})
		if got := a.ok(http.StatusOK, "GET", "/task/"+task, nil); field(got, "assignee") != nil || field(got, "owner") != "olga" {
			t.Errorf("task after its assignee link went: %v", got)
		}
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Identity Link requires userId or groupId, but not both.",
			"POST", path, map[string]any{"userId": "a", "groupId": "b", "type": "candidate"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Identity Link requires userId or groupId.",
			"POST", path+"/delete", map[string]any{"type": "candidate"})
		for _, bad := range []map[string]any{{"userId": "a", "type": "watcher"}, {"groupId": "g", "type": "owner"}, {"userId": "a"}} {
			if status, out := a.call("POST", path, bad); status != http.StatusBadRequest {
				t.Errorf("POST identity link %v: %d %v, want 400", bad, status, out)
			}
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "GET", "/task/nope/identity-links", nil)
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "POST", "/task/nope/identity-links",
			map[string]any{"userId": "a", "type": "candidate"})
	})
}

func TestRESTTaskComments(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApprovalTask(t, a, nil)
		path := "/task/" + task + "/comment"
		first := a.ok(http.StatusOK, "POST", path+"/create", map[string]any{"message": "first", "processInstanceId": pi})
		if field(first, "message") != "first" || field(first, "taskId") != task || field(first, "processInstanceId") != pi || field(first, "rootProcessInstanceId") != pi ||
			!strings.HasSuffix(field(first, "links").([]any)[0].(map[string]any)["href"].(string), "/engine-rest"+path+"/"+field(first, "id").(string)) {
			t.Errorf("created comment: %v", first)
		}
		second := a.ok(http.StatusOK, "POST", path+"/create", map[string]any{"message": "second"})
		list := a.ok(http.StatusOK, "GET", path, nil).([]any)
		if len(list) != 2 || field(list[0], "id") != field(second, "id") {
			t.Errorf("comments, newest first: %v", list)
		}
		a.ok(http.StatusNoContent, "PUT", path, map[string]any{"id": field(first, "id"), "message": "first, corrected"})
		if got := a.ok(http.StatusOK, "GET", path+"/"+field(first, "id").(string), nil); field(got, "message") != "first, corrected" {
			t.Errorf("updated comment: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/task/"+task+"?withCommentAttachmentInfo=true", nil); field(got, "lastUpdated") == nil ||
			field(got, "comment") != true || field(got, "attachment") != false {
			t.Errorf("a task with comments: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/task/"+task, nil); field(got, "comment") != nil {
			t.Errorf("a task without withCommentAttachmentInfo: %v", got)
		}
		for _, q := range []string{"GET /task?withCommentAttachmentInfo=true&processInstanceId=" + pi, "POST /task"} {
			method, path, _ := strings.Cut(q, " ")
			list := a.ok(http.StatusOK, method, path, map[string]any{"withCommentAttachmentInfo": true, "processInstanceId": pi}).([]any)
			if len(list) != 1 || field(list[0], "comment") != true || field(list[0], "attachment") != false {
				t.Errorf("%s with comment and attachment info: %v", q, list)
			}
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Task comment with id nope does not exist for task id '"+task+"'.", "GET", path+"/nope", nil)
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No comment exists with commentId: nope and taskId: "+task,
			"PUT", path, map[string]any{"id": "nope", "message": "x"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Not enough parameters submitted", "POST", path+"/create", map[string]any{})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No task found for task id nope", "POST", "/task/nope/comment/create", map[string]any{"message": "x"})
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No task found for task id nope", "GET", "/task/nope/comment", nil)

		a.ok(http.StatusNoContent, "DELETE", path+"/"+field(second, "id").(string), nil)
		if list := a.ok(http.StatusOK, "GET", path, nil).([]any); len(list) != 1 {
			t.Errorf("comments after deleting one: %v", list)
		}
		// Comments outlive their task, as history; an ended task's cannot be deleted.
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		if list := a.ok(http.StatusOK, "GET", path, nil).([]any); len(list) != 1 {
			t.Errorf("comments of the completed task: %v", list)
		}
		a.ok(http.StatusOK, "POST", path+"/create", map[string]any{"message": "afterwards"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No task exists with taskId: "+task, "DELETE", path, nil)
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No task exists with taskId: "+task,
			"PUT", path, map[string]any{"id": field(first, "id"), "message": "too late"})

		archive := openTasks(t, a, pi)[0]
		for _, m := range []string{"one", "two"} {
			a.ok(http.StatusOK, "POST", "/task/"+archive+"/comment/create", map[string]any{"message": m})
		}
		a.ok(http.StatusNoContent, "DELETE", "/task/"+archive+"/comment", nil)
		if list := a.ok(http.StatusOK, "GET", "/task/"+archive+"/comment", nil).([]any); len(list) != 0 {
			t.Errorf("comments after deleting all: %v", list)
		}
	})
}

// upload is a multipart body of parts, a "content" part as a file.
func upload(parts map[string]string) multipartBody {
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	for name, value := range parts {
		if name == "content" {
			fw, _ := w.CreateFormFile(name, "scan.bin")
			_, _ = fw.Write([]byte(value))
			continue
		}
		_ = w.WriteField(name, value)
	}
	_ = w.Close()
	return multipartBody{buf, w.FormDataContentType()}
}

func TestRESTTaskAttachments(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		_, task := startApprovalTask(t, a, nil)
		path := "/task/" + task + "/attachment"
		link := a.ok(http.StatusOK, "POST", path+"/create", upload(map[string]string{"attachment-name": "offer",
			"attachment-description": "the offer", "attachment-type": "text/html", "url": "https://example.com/offer"}))
		if field(link, "name") != "offer" || field(link, "url") != "https://example.com/offer" || field(link, "type") != "text/html" ||
			field(link, "taskId") != task || len(field(link, "links").([]any)) != 1 {
			t.Errorf("created link attachment: %v", link)
		}
		content := "\x00binary\xff"
		file := a.ok(http.StatusOK, "POST", path+"/create", upload(map[string]string{"attachment-name": "scan", "content": content}))
		list := a.ok(http.StatusOK, "GET", path, nil).([]any)
		if len(list) != 2 || field(list[0], "id") != field(link, "id") || field(list[1], "url") != nil {
			t.Errorf("attachments: %v", list)
		}
		fileID := field(file, "id").(string)
		if got := a.ok(http.StatusOK, "GET", path+"/"+fileID, nil); field(got, "name") != "scan" {
			t.Errorf("attachment: %v", got)
		}
		resp, err := http.Get(a.url + path + "/" + fileID + "/data")
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(data) != content || resp.Header.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("attachment data: %d %q %s", resp.StatusCode, data, resp.Header.Get("Content-Type"))
		}
		linkID := field(link, "id").(string)
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException",
			"Attachment content for attachment with id '"+linkID+"' does not exist for task id '"+task+"'.", "GET", path+"/"+linkID+"/data", nil)
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Task attachment with id nope does not exist for task id '"+task+"'.", "GET", path+"/nope", nil)
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No content or url to remote content exists to create the task attachment.",
			"POST", path+"/create", upload(map[string]string{"attachment-name": "empty"}))
		if status, out := a.call("POST", path+"/create", map[string]any{"url": "x"}); status != http.StatusBadRequest {
			t.Errorf("a JSON attachment: %d %v, want 400", status, out)
		}
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "No task found for task id nope",
			"POST", "/task/nope/attachment/create", upload(map[string]string{"url": "x"}))
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No task found for task id nope", "GET", "/task/nope/attachment", nil)

		a.ok(http.StatusNoContent, "DELETE", path+"/"+linkID, nil)
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException",
			"Deletion is not possible. No attachment exists for task id '"+task+"' and attachment id '"+linkID+"'.", "DELETE", path+"/"+linkID, nil)
		if list := a.ok(http.StatusOK, "GET", path, nil).([]any); len(list) != 1 {
			t.Errorf("attachments after a delete: %v", list)
		}
	})
}

// Without history there are no comments or attachments: lists are
// empty, changes forbidden, as in Camunda.
func TestRESTTaskCommentsWithoutHistory(t *testing.T) {
	b := testdb.Backends(t)[0]
	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{
		Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema},
		History:  bpmnlite.HistoryConfig{Level: bpmnlite.HistoryNone},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.New(eng, rest.Options{}))
	defer func() { srv.Close(); _ = eng.Close() }()
	a := &api{t: t, eng: eng, url: srv.URL + "/engine-rest"}
	a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "t"})
	for _, path := range []string{"/task/t/comment", "/task/t/attachment"} {
		if list := a.ok(http.StatusOK, "GET", path, nil).([]any); len(list) != 0 {
			t.Errorf("GET %s: %v", path, list)
		}
	}
	wantExactError(t, a, http.StatusForbidden, "InvalidRequestException", "History is not enabled", "POST", "/task/t/comment/create", map[string]any{"message": "x"})
	wantExactError(t, a, http.StatusForbidden, "InvalidRequestException", "History is not enabled", "POST", "/task/t/attachment/create", upload(map[string]string{"url": "x"}))
	wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "History is not enabled", "GET", "/task/t/comment/c", nil)
}

func TestRESTTaskForms(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		_, task := startApprovalTask(t, a, nil)
		if got := a.ok(http.StatusOK, "GET", "/task/"+task+"/form", nil); field(got, "key") != "embedded:deployment:forms/approve.html" {
			t.Errorf("form: %v", got)
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "The form with the resource name 'forms/approve.html' cannot be found in deployment with id "+
			field(a.ok(http.StatusOK, "GET", "/deployment", nil).([]any)[0], "id").(string), "GET", "/task/"+task+"/deployed-form", nil)
		// Deployed with its form, the task serves it.
		form := `<form><input name="approved" type="checkbox"/></form>`
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("approval with form", map[string]string{
			"approval.bpmn": strings.Replace(approvalProcess, "deployment:forms/approve.html", "deployment:approve.html", 1), "approve.html": form}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/approval/start", map[string]any{}), "id").(string)
		resp, err := http.Get(a.url + "/task/" + openTasks(t, a, pi)[0] + "/deployed-form")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != form || resp.Header.Get("Content-Type") != "application/xhtml+xml" {
			t.Errorf("deployed form: %d %q (%s)", resp.StatusCode, body, resp.Header.Get("Content-Type"))
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching rendered form for task with the id "+task+" found.",
			"GET", "/task/"+task+"/rendered-form", nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		archive := a.ok(http.StatusOK, "GET", "/task?taskDefinitionKey=archive", nil).([]any)
		id := field(archive[0], "id").(string)
		if got := a.ok(http.StatusOK, "GET", "/task/"+id+"/form", nil); field(got, "key") != nil {
			t.Errorf("form of a task without one: %v", got)
		}
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.",
			"GET", "/task/"+id+"/deployed-form", nil)
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "alone"})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "Cannot get form for task alone", "GET", "/task/alone/form", nil)
		for _, p := range []string{"form", "deployed-form", "rendered-form"} {
			wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "GET", "/task/nope/"+p, nil)
		}
	})
}

func TestRESTTaskCandidateGroupReport(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		startApprovalTask(t, a, nil)
		_, claimed := startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/"+claimed+"/claim", map[string]any{"userId": "ann"}) // not counted
		startApprovalTask(t, a, nil)
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "alone"})
		got := a.ok(http.StatusOK, "GET", "/task/report/candidate-group-count", nil).([]any)
		want := []any{
			map[string]any{"groupName": "sales", "taskCount": float64(2)},
			map[string]any{"groupName": "support", "taskCount": float64(2)},
			map[string]any{"groupName": nil, "taskCount": float64(1)},
		}
		if !equalJSON(got, want) {
			t.Errorf("report: %v, want %v", got, want)
		}
		req, _ := http.NewRequest("GET", a.url+"/task/report/candidate-group-count", nil)
		req.Header.Set("Accept", "text/csv")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		csv, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(csv) != "CANDIDATE_GROUP_NAME,TASK_COUNT\nsales,2\nsupport,2\nnull,1" || resp.Header.Get("Content-Type") != "text/csv" {
			t.Errorf("CSV report: %q (%s)", csv, resp.Header.Get("Content-Type"))
		}
	})
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// An update that loses to a concurrent change of the same task answers
// 409 OptimisticLockingException: here the task is completed in a
// transaction that commits while the update waits for its row.
func TestRESTTaskConcurrentUpdate(t *testing.T) {
	b := testdb.Postgres(t)
	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{
		Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.New(eng, rest.Options{}))
	defer func() { srv.Close(); _ = eng.Close() }()
	a := &api{t: t, eng: eng, url: srv.URL + "/engine-rest"}
	_, task := startApprovalTask(t, a, nil)

	pool := harness.CallerPool(t, b)
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(t.Context()) }()
	if err := eng.CompleteTaskTx(t.Context(), tx, task, nil); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		status int
		out    any
	}
	done := make(chan reply, 1)
	go func() {
		status, out := a.call("PUT", "/task/"+task, map[string]any{"name": "renamed"})
		done <- reply{status, out}
	}()
	time.Sleep(300 * time.Millisecond) // the update waits for the task's row
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.status != http.StatusConflict || field(got.out, "type") != "OptimisticLockingException" {
		t.Errorf("update of a task completed meanwhile: %d %v, want 409 OptimisticLockingException", got.status, got.out)
	}
}

// Text the database cannot store (NUL, bytes that are not UTF-8) is bad
// input, 400, wherever it comes: parameters, ids, bodies.
func TestRESTTaskBadText(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "t"})
		for _, path := range []string{"/task?name=a%00b", "/task/count?taskIdIn=a,b%ff", "/history/task?taskId=%00"} {
			if status, out := a.call("GET", path, nil); status != http.StatusBadRequest {
				t.Errorf("GET %s: %d %v, want 400", path, status, out)
			}
		}
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "taskId: not text the database stores (a NUL character, or bytes that are not UTF-8)",
			"GET", "/task/a%00b", nil)
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id a\x00b", "POST", "/task/a%00b/claim", map[string]any{"userId": "x"})
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/task/create", map[string]any{"name": "a\x00b"}},
			{"POST", "/task/create", map[string]any{"id": "a\x00b"}},
			{"PUT", "/task/t", map[string]any{"description": "a\x00b"}},
			{"POST", "/task/t/claim", map[string]any{"userId": "a\x00b"}},
			{"POST", "/task/t/identity-links", map[string]any{"groupId": "a\x00b", "type": "candidate"}},
			{"POST", "/task/t/comment/create", map[string]any{"message": "a\x00b"}},
			{"POST", "/task/t/attachment/create", upload(map[string]string{"url": "a\x00b"})},
		} {
			if status, out := a.call(c.method, c.path, c.body); status != http.StatusBadRequest {
				t.Errorf("%s %s with a NUL: %d %v, want 400", c.method, c.path, status, out)
			}
		}
	})
}
