package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/rest"
)

// End-to-end tests of the runtime operations over HTTP, on the parameter
// test's fixture (seedFixture): jobs, job definitions, incidents,
// executions, event subscriptions, external tasks, messages and signals.

// wantError fails unless the reply is status with Camunda's error body of
// type typ whose message contains text.
func wantError(t *testing.T, a *api, status int, typ, text, method, path string, body any) {
	t.Helper()
	got, out := a.call(method, path, body)
	msg := fmt.Sprint(field(out, "message"))
	if got != status || field(out, "type") != typ || !strings.Contains(msg, text) {
		t.Errorf("%s %s: %d %v, want %d %s with %q", method, path, got, out, status, typ, text)
	}
}

func TestRESTJobOperations(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		job, timer := "/job/"+fx["job1"], "/job/"+fx["jobtimer"]
		if got := a.ok(http.StatusOK, "GET", timer, nil); field(got, "id") != fx["jobtimer"] || field(got, "suspended") != false {
			t.Errorf("GET %s: %v", timer, got)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Job with id nope does not exist", "GET", "/job/nope", nil)

		// A POST query's time bounds as Camunda's objects.
		bounds := map[string]any{"dueDates": []any{map[string]any{"operator": "gt", "value": fx["halfHour"]}},
			"createTimes": []any{map[string]any{"operator": "gt", "value": fx["beforeWait"]}}}
		if got := a.ok(http.StatusOK, "POST", "/job", bounds).([]any); len(got) != 1 || field(got[0], "id") != fx["jobtimer"] {
			t.Errorf("POST /job with dueDates and createTimes objects: %v, want the timer job", got)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "dueDates", "POST", "/job",
			map[string]any{"dueDates": []any{map[string]any{"operator": "eq", "value": fx["halfHour"]}}})

		// The stack trace of the failed job, as text.
		status, ct, _, text := rawGet(t, a, job+"/stacktrace")
		if status != http.StatusOK || !strings.HasPrefix(ct, "text/plain") || !strings.Contains(text, "card declined") {
			t.Errorf("GET %s/stacktrace: %d %q %q", job, status, ct, text)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "nope", "GET", "/job/nope/stacktrace", nil)
		if status, _, _, text := rawGet(t, a, timer+"/stacktrace"); status != http.StatusNoContent || text != "" {
			t.Errorf("stack trace of a job that never failed: %d %q, want 204", status, text)
		}

		// Due dates: set, moved back by recalculation from the timer's
		// definition (an hour after creation), refused for a job that is no timer.
		a.ok(http.StatusNoContent, "PUT", timer+"/duedate", map[string]any{"duedate": "2099-01-01T00:00:00.000+0000", "cascade": true})
		if due := field(a.ok(http.StatusOK, "GET", timer, nil), "dueDate"); due != "2099-01-01T00:00:00.000+0000" {
			t.Errorf("due date set: %v", due)
		}
		a.ok(http.StatusNoContent, "POST", timer+"/duedate/recalculate?creationDateBased=true", nil)
		got := a.ok(http.StatusOK, "GET", timer, nil)
		created, _ := time.Parse("2006-01-02T15:04:05.000-0700", field(got, "createTime").(string))
		due, _ := time.Parse("2006-01-02T15:04:05.000-0700", field(got, "dueDate").(string))
		if d := due.Sub(created); d < time.Hour-time.Second || d > time.Hour+time.Second {
			t.Errorf("recalculated due date %v, created %v: want an hour later", due, created)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Only timer jobs can be recalculated", "POST", job+"/duedate/recalculate", nil)
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "creationDateBased", "POST", timer+"/duedate/recalculate?creationDateBased=maybe", nil)
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Job with id nope does not exist", "PUT", "/job/nope/duedate", map[string]any{"duedate": nil})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "duedate", "PUT", timer+"/duedate", map[string]any{"duedate": "tomorrow"})

		// Priority.
		a.ok(http.StatusNoContent, "PUT", timer+"/priority", map[string]any{"priority": 42})
		if p := field(a.ok(http.StatusOK, "GET", timer, nil), "priority"); p != float64(42) {
			t.Errorf("priority %v, want 42", p)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Priority for job '"+fx["jobtimer"]+"' cannot be null.", "PUT", timer+"/priority", map[string]any{})
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "does not exist", "PUT", "/job/nope/priority", map[string]any{"priority": 1})

		// Suspension: one job, then by query.
		a.ok(http.StatusNoContent, "PUT", timer+"/suspended", map[string]any{"suspended": true})
		if s := field(a.ok(http.StatusOK, "GET", timer, nil), "suspended"); s != true {
			t.Errorf("suspended job: %v", s)
		}
		a.ok(http.StatusNoContent, "PUT", "/job/suspended", map[string]any{"processDefinitionKey": "wait", "suspended": false})
		a.ok(http.StatusNoContent, "PUT", "/job/suspended", map[string]any{"processInstanceId": fx["pi1"], "suspended": true})
		if n := field(a.ok(http.StatusOK, "GET", "/job/count?suspended=true", nil), "count"); n != float64(1) {
			t.Errorf("suspended jobs after the query updates: %v, want job1 alone", n)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Only one of jobId, jobDefinitionId", "PUT", "/job/suspended",
			map[string]any{"processInstanceId": fx["pi1"], "processDefinitionKey": "wait", "suspended": true})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Either jobId, jobDefinitionId", "PUT", "/job/suspended", map[string]any{"suspended": true})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "processDefinitionTenantId", "PUT", "/job/suspended",
			map[string]any{"processDefinitionKey": "wait", "processDefinitionTenantId": "t1", "suspended": true})

		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "must not be negative", "POST", "/job/retries", map[string]any{"retries": -1, "jobIds": []string{fx["job1"]}})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "dueDate", "PUT", job+"/retries", map[string]any{"retries": 1, "dueDate": "2099-01-01T00:00:00.000+0000"})

		// A cascading change moves a cycle with a start date; a cron
		// cycle cannot move.
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("cycles", map[string]string{"cycles.bpmn": timerCycles}))
		for key, want := range map[string]int{"hourly": http.StatusNoContent, "cron": http.StatusBadRequest} {
			defs := a.ok(http.StatusOK, "GET", "/process-definition?key="+key, nil).([]any)
			jobs := a.ok(http.StatusOK, "GET", "/job?processDefinitionId="+field(defs[0], "id").(string), nil).([]any)
			status, out := a.call("PUT", "/job/"+field(jobs[0], "id").(string)+"/duedate", map[string]any{"duedate": "2099-01-01T00:00:00.000+0000", "cascade": true})
			if status != want || want == http.StatusBadRequest && !strings.Contains(fmt.Sprint(field(out, "message")), "cannot cascade") {
				t.Errorf("cascading due date of the %s timer: %d %v, want %d", key, status, out, want)
			}
			jd := a.ok(http.StatusOK, "GET", "/job-definition/"+field(jobs[0], "jobDefinitionId").(string), nil)
			if field(jd, "jobType") != "timer-start-event" || field(jd, "jobConfiguration") == nil {
				t.Errorf("job definition of the %s start timer: %v", key, jd)
			}
		}

		// Deletion.
		a.ok(http.StatusNoContent, "DELETE", timer, nil)
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "does not exist", "GET", timer, nil)
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "does not exist", "DELETE", timer, nil)
	})
}

func TestRESTJobDefinitionOperations(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		def := "/job-definition/" + fx["jobdef1"]
		got := a.ok(http.StatusOK, "GET", def, nil)
		if field(got, "activityId") != "charge" || field(got, "jobConfiguration") != "async-before" || field(got, "suspended") != false ||
			field(got, "jobType") != "async-continuation" || field(got, "deploymentId") != fx["deployment1"] ||
			field(got, "processDefinitionKey") != "review" || field(got, "overridingJobPriority") != nil {
			t.Errorf("GET %s: %v", def, got)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Job Definition with id nope does not exist", "GET", "/job-definition/nope", nil)

		// Suspended with its jobs, activated by key without them.
		a.ok(http.StatusNoContent, "PUT", def+"/suspended", map[string]any{"suspended": true, "includeJobs": true})
		if s := field(a.ok(http.StatusOK, "GET", "/job/"+fx["job1"], nil), "suspended"); s != true {
			t.Errorf("job of a definition suspended with includeJobs: suspended %v", s)
		}
		a.ok(http.StatusNoContent, "PUT", "/job-definition/suspended", map[string]any{"processDefinitionKey": "review", "suspended": false})
		if s := field(a.ok(http.StatusOK, "GET", def, nil), "suspended"); s != false {
			t.Errorf("definition activated by key: suspended %v", s)
		}
		if s := field(a.ok(http.StatusOK, "GET", "/job/"+fx["job1"], nil), "suspended"); s != true {
			t.Errorf("job of a definition activated without includeJobs: suspended %v, want still true", s)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Only one of jobDefinitionId, processDefinitionId or processDefinitionKey", "PUT",
			"/job-definition/suspended", map[string]any{"processDefinitionKey": "review", "processDefinitionId": fx["def-review"], "suspended": true})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "executionDate", "PUT", def+"/suspended",
			map[string]any{"suspended": true, "executionDate": "2099-01-01T00:00:00.000+0000"})
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Job Definition with id nope does not exist", "PUT", "/job-definition/nope/suspended", map[string]any{"suspended": true})

		// Overriding priority, onto existing jobs with includeJobs.
		a.ok(http.StatusNoContent, "PUT", def+"/jobPriority", map[string]any{"priority": 7, "includeJobs": true})
		if p := field(a.ok(http.StatusOK, "GET", def, nil), "overridingJobPriority"); p != float64(7) {
			t.Errorf("overriding priority %v", p)
		}
		if p := field(a.ok(http.StatusOK, "GET", "/job/"+fx["job1"], nil), "priority"); p != float64(7) {
			t.Errorf("job priority after includeJobs: %v", p)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Cannot reset priority for job definition", "PUT", def+"/jobPriority", map[string]any{"includeJobs": true})
		a.ok(http.StatusNoContent, "PUT", def+"/jobPriority", map[string]any{})
		if p := field(a.ok(http.StatusOK, "GET", def, nil), "overridingJobPriority"); p != nil {
			t.Errorf("overriding priority cleared: %v", p)
		}

		// Retries of its failed jobs resolve their incident.
		a.ok(http.StatusNoContent, "PUT", def+"/retries", map[string]any{"retries": 2})
		if r := field(a.ok(http.StatusOK, "GET", "/job/"+fx["job1"], nil), "retries"); r != float64(2) {
			t.Errorf("retries of the failed job: %v", r)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Job Definition with id nope does not exist", "PUT", "/job-definition/nope/retries", map[string]any{"retries": 2})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "retries", "PUT", def+"/retries", map[string]any{"retries": -1})
	})
}

func TestRESTIncidentOperations(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		custom := "/incident/" + fx["incident2"]
		got := a.ok(http.StatusOK, "GET", custom, nil)
		if field(got, "incidentType") != "custom" || field(got, "configuration") != "cfg" || field(got, "incidentMessage") != "manual check" ||
			field(got, "executionId") != fx["pi4"] || field(got, "activityId") != "gw" || field(got, "annotation") != nil {
			t.Errorf("GET %s: %v", custom, got)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching incident with id nope", "GET", "/incident/nope", nil)

		// Annotations, in history too.
		a.ok(http.StatusNoContent, "PUT", custom+"/annotation", map[string]any{"annotation": "on it"})
		if got := field(a.ok(http.StatusOK, "GET", custom, nil), "annotation"); got != "on it" {
			t.Errorf("annotation %v", got)
		}
		if hist, _ := a.eng.HistoricIncidents(t.Context(), historicIncident(fx["incident2"])); len(hist) != 1 || hist[0].Annotation != "on it" {
			t.Errorf("historic incident's annotation: %v", hist)
		}
		a.ok(http.StatusNoContent, "DELETE", custom+"/annotation", nil)
		if got := field(a.ok(http.StatusOK, "GET", custom, nil), "annotation"); got != nil {
			t.Errorf("annotation after clearing: %v", got)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find an incident with id 'nope'", "PUT", "/incident/nope/annotation", map[string]any{"annotation": "x"})

		// Camunda resolves only incidents raised by hand.
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Cannot resolve an incident of type failedJob", "DELETE", "/incident/"+fx["incident1"], nil)
		a.ok(http.StatusNoContent, "DELETE", custom, nil)
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching incident", "GET", custom, nil)
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find an incident with id", "DELETE", custom, nil)

		// Raising one: on an execution at an activity, with a type.
		raised := a.ok(http.StatusOK, "POST", "/execution/"+fx["pi2"]+"/create-incident", map[string]any{"incidentType": "review", "message": "look"})
		if field(raised, "activityId") != "check" || field(raised, "incidentType") != "review" || field(raised, "processInstanceId") != fx["pi2"] {
			t.Errorf("raised incident %v", raised)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "incidentType is null", "POST", "/execution/"+fx["pi2"]+"/create-incident", map[string]any{})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Cannot find an execution with executionId 'nope'", "POST", "/execution/nope/create-incident", map[string]any{"incidentType": "x"})
	})
}

func TestRESTExecutionOperations(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		if got := a.ok(http.StatusOK, "GET", "/execution/"+fx["pi4"], nil); field(got, "processInstanceId") != fx["pi4"] || field(got, "ended") != false {
			t.Errorf("GET execution: %v", got)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Execution with id nope does not exist", "GET", "/execution/nope", nil)

		sub := a.ok(http.StatusOK, "GET", "/execution/"+fx["pi4"]+"/messageSubscriptions/go", nil)
		if field(sub, "id") != fx["sub-go"] || field(sub, "eventType") != "message" || field(sub, "activityId") != "go" || field(sub, "createdDate") == nil {
			t.Errorf("message subscription %v", sub)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Message event subscription for execution "+fx["pi4"]+" named stop does not exist",
			"GET", "/execution/"+fx["pi4"]+"/messageSubscriptions/stop", nil)
		wantError(t, a, http.StatusInternalServerError, "RestException", "Cannot trigger message nope for execution "+fx["pi4"],
			"POST", "/execution/"+fx["pi4"]+"/messageSubscriptions/nope/trigger", map[string]any{})

		// The trigger moves the instance past its gateway, to its end.
		a.ok(http.StatusNoContent, "POST", "/execution/"+fx["pi4"]+"/messageSubscriptions/go/trigger",
			map[string]any{"variables": map[string]any{"why": map[string]any{"value": "go", "type": "String"}}})
		if n := field(a.ok(http.StatusOK, "GET", "/execution/count?processInstanceId="+fx["pi4"], nil), "count"); n != float64(0) {
			t.Errorf("executions of the triggered instance: %v, want 0 (ended)", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/event-subscription/count?processInstanceId="+fx["pi4"], nil), "count"); n != float64(0) {
			t.Errorf("subscriptions of the ended instance: %v", n)
		}

		// POST /execution/{id}/signal moves a receive task on, with variables.
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("receive", map[string]string{"receive.bpmn": receiveThenTask}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/receiving/start", map[string]any{}), "id").(string)
		a.ok(http.StatusNoContent, "POST", "/execution/"+pi+"/signal", map[string]any{"variables": map[string]any{"ok": map[string]any{"value": true, "type": "Boolean"}}})
		tasks := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)
		if len(tasks) != 1 || field(tasks[0], "taskDefinitionKey") != "after" {
			t.Errorf("after the signal: tasks %v, want the one after the receive task", tasks)
		}
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil); field(v, "ok", "value") != true {
			t.Errorf("variables after the signal: %v", v)
		}

		// Only what waits for a trigger can be signalled.
		wantError(t, a, http.StatusInternalServerError, "RestException", "Cannot signal execution "+fx["pi2"], "POST", "/execution/"+fx["pi2"]+"/signal", map[string]any{})
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot signal execution nope", "POST", "/execution/nope/signal", map[string]any{})
	})
}

// A signal aimed at one execution moves only it; one to all moves every
// waiting instance.
func TestRESTSignalToOneExecution(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		start := func() string {
			return field(a.ok(http.StatusOK, "POST", "/process-definition/key/wait/start", map[string]any{}), "id").(string)
		}
		pi5, pi6 := start(), start()
		a.ok(http.StatusNoContent, "POST", "/signal", map[string]any{"name": "stop", "executionId": pi5})
		waiting := func(pi string) bool {
			return field(a.ok(http.StatusOK, "GET", "/execution/count?processInstanceId="+pi, nil), "count") == float64(1)
		}
		if waiting(pi5) || !waiting(pi6) || !waiting(fx["pi4"]) {
			t.Errorf("signal to %s: waiting %v %v %v, want only it moved", pi5, waiting(pi5), waiting(pi6), waiting(fx["pi4"]))
		}
		wantError(t, a, http.StatusInternalServerError, "RestException", "Execution '"+pi6+"' has not subscribed to a signal event with name 'nope'.",
			"POST", "/signal", map[string]any{"name": "nope", "executionId": pi6})
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find execution with id 'nope'", "POST", "/signal", map[string]any{"name": "stop", "executionId": "nope"})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "tenantId", "POST", "/signal", map[string]any{"name": "stop", "tenantId": "t1"})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "No signal name given", "POST", "/signal", map[string]any{})
		a.ok(http.StatusNoContent, "POST", "/signal", map[string]any{"name": "stop"})
		if waiting(pi6) || waiting(fx["pi4"]) {
			t.Errorf("a broadcast left instances waiting")
		}
	})
}

const timerCycles = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="hourly" isExecutable="true">
    <startEvent id="start"><timerEventDefinition><timeCycle>R3/PT1H</timeCycle></timerEventDefinition></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
  <process id="cron" isExecutable="true">
    <startEvent id="start2"><timerEventDefinition><timeCycle>0 0 * * * ?</timeCycle></timerEventDefinition></startEvent>
    <sequenceFlow id="f2" sourceRef="start2" targetRef="end2"/><endEvent id="end2"/>
  </process>
</definitions>`

const receiveThenTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="receiving" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="wait"/><receiveTask id="wait"/>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="after"/><userTask id="after"/>
    <sequenceFlow id="f3" sourceRef="after" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

const messageStart = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <message id="m" name="hello"/>
  <process id="greeted" isExecutable="true">
    <startEvent id="start"><messageEventDefinition messageRef="m"/></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="task"/><userTask id="task"/>
    <sequenceFlow id="f2" sourceRef="task" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// POST /message answers Camunda's MessageCorrelationResultDto: the
// instance a message start event started, or the execution a waiting
// event received it in, with the variables when asked.
func TestRESTMessageResults(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("greet", map[string]string{"greeted.bpmn": messageStart}))
		str := func(s string) map[string]any { return map[string]any{"value": s, "type": "String"} }

		started := a.ok(http.StatusOK, "POST", "/message", map[string]any{"messageName": "hello", "businessKey": "b-9", "resultEnabled": true,
			"variablesInResultEnabled": true, "processVariables": map[string]any{"a": str("1")}, "processVariablesLocal": map[string]any{"b": str("2")}}).([]any)
		if len(started) != 1 || field(started[0], "resultType") != "ProcessDefinition" || field(started[0], "execution") != nil ||
			field(started[0], "processInstance", "businessKey") != "b-9" || field(started[0], "processInstance", "ended") != false ||
			!strings.HasPrefix(fmt.Sprint(field(started[0], "processInstance", "definitionId")), "greeted:") ||
			field(started[0], "variables", "a", "value") != "1" || field(started[0], "variables", "b", "value") != "2" {
			t.Errorf("message start result: %v", started)
		}

		caught := a.ok(http.StatusOK, "POST", "/message", map[string]any{"messageName": "go", "processInstanceId": fx["pi4"], "resultEnabled": true,
			"variablesInResultEnabled": true, "processVariablesLocal": map[string]any{"c": str("3")}}).([]any)
		if len(caught) != 1 || field(caught[0], "resultType") != "Execution" || field(caught[0], "processInstance") != nil ||
			field(caught[0], "execution", "id") != fx["pi4"] || field(caught[0], "execution", "processInstanceId") != fx["pi4"] ||
			field(caught[0], "execution", "ended") != true || field(caught[0], "variables", "c", "value") != "3" {
			t.Errorf("intermediate catch result: %v", caught)
		}
		if got := a.ok(http.StatusOK, "POST", "/message", map[string]any{"messageName": "go", "all": true, "resultEnabled": true}).([]any); len(got) != 0 {
			t.Errorf("all: true matching nothing: %v, want []", got)
		}
		a.ok(http.StatusNoContent, "POST", "/message", map[string]any{"messageName": "go", "all": true})
		wantError(t, a, http.StatusBadRequest, "RestException", "Cannot correlate message 'go': No process definition or execution matches the parameters",
			"POST", "/message", map[string]any{"messageName": "go"})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "Parameter 'variablesInResultEnabled' cannot be used without 'resultEnabled' set to true.",
			"POST", "/message", map[string]any{"messageName": "hello", "variablesInResultEnabled": true})
		for _, member := range []string{"tenantId", "processVariablesToTriggeredScope"} {
			wantError(t, a, http.StatusBadRequest, "InvalidRequestException", member, "POST", "/message",
				map[string]any{"messageName": "hello", member: map[string]any{"x": str("y")}})
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "No message name supplied", "POST", "/message", map[string]any{})

		// localCorrelationKeys: the receiving execution's own variables.
		start := func(order string) string {
			return field(a.ok(http.StatusOK, "POST", "/process-definition/key/wait/start",
				map[string]any{"variables": map[string]any{"order": str(order)}}), "id").(string)
		}
		pa, pb := start("a"), start("b")
		got := a.ok(http.StatusOK, "POST", "/message", map[string]any{"messageName": "go", "resultEnabled": true,
			"localCorrelationKeys": map[string]any{"order": str("b")}}).([]any)
		if len(got) != 1 || field(got[0], "execution", "processInstanceId") != pb {
			t.Errorf("local correlation key order=b: %v, want %s alone (not %s)", got, pb, pa)
		}
		wantError(t, a, http.StatusBadRequest, "RestException", "No process definition or execution matches", "POST", "/message",
			map[string]any{"messageName": "hello", "localCorrelationKeys": map[string]any{"order": str("a")}})
	})
}

func TestRESTExternalTaskManagement(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		for query, want := range map[string]string{"": `["packing"]`, "?withLockedTasks=true": `["packing"]`, "?withUnlockedTasks=true": `[]`,
			"?withRetriesLeft=true": `["packing"]`} {
			status, _, _, text := rawGet(t, a, "/external-task/topic-names"+query)
			if status != http.StatusOK || strings.TrimSpace(text) != want {
				t.Errorf("topic names%s: %d %s, want %s", query, status, text, want)
			}
		}
		ext := "/external-task/" + fx["ext3"]
		retries := func() any { return field(a.ok(http.StatusOK, "GET", ext, nil), "retries") }
		a.ok(http.StatusNoContent, "PUT", "/external-task/retries", map[string]any{"retries": 3, "externalTaskIds": []string{fx["ext3"]}})
		if r := retries(); r != float64(3) {
			t.Errorf("retries by id: %v", r)
		}
		a.ok(http.StatusNoContent, "PUT", "/external-task/retries", map[string]any{"retries": 0, "processInstanceIds": []string{fx["pi3"]}})
		if r := retries(); r != float64(0) {
			t.Errorf("retries by instance: %v", r)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/incident/count?incidentType=failedExternalTask", nil), "count"); n != float64(1) {
			t.Errorf("incidents at 0 retries: %v", n)
		}
		a.ok(http.StatusNoContent, "PUT", "/external-task/retries", map[string]any{"retries": 5, "externalTaskQuery": map[string]any{"topicName": "packing"}})
		if r := retries(); r != float64(5) {
			t.Errorf("retries by query: %v", r)
		}
		wantError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find external task with id nope", "PUT", "/external-task/retries",
			map[string]any{"retries": 1, "externalTaskIds": []string{fx["ext3"], "nope"}})
		if r := retries(); r != float64(5) {
			t.Errorf("retries after a failed update: %v, want unchanged", r)
		}
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "The number of retries cannot be null.", "PUT", "/external-task/retries",
			map[string]any{"externalTaskIds": []string{fx["ext3"]}})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "externalTaskIds is empty", "PUT", "/external-task/retries", map[string]any{"retries": 1})
		// A query that selects nothing: none to set, as Camunda refuses it.
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "externalTaskIds is empty", "PUT", "/external-task/retries",
			map[string]any{"retries": 1, "externalTaskQuery": map[string]any{"tenantIdIn": []string{"t"}}})
		wantError(t, a, http.StatusBadRequest, "InvalidRequestException", "externalTaskIds is empty", "POST", "/external-task/retries-async",
			map[string]any{"retries": 1, "externalTaskQuery": map[string]any{"tenantIdIn": []string{"t"}}})
	})
}

// fetchAndLock hands over the activity's extension properties only to a
// topic that asks (includeExtensionProperties), as Camunda.
func TestRESTFetchExtensionProperties(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("ext", map[string]string{"charge.bpmn": oneExternalTask}))
		for _, include := range []bool{false, true} {
			a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start", map[string]any{})
			topic := map[string]any{"topicName": "charge", "lockDuration": 60000}
			if include {
				topic["includeExtensionProperties"] = true
			}
			got := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1, "topics": []any{topic}}).([]any)
			props, _ := field(got[0], "extensionProperties").(map[string]any)
			if include && props["region"] != "eu" || !include && (props == nil || len(props) != 0) {
				t.Errorf("includeExtensionProperties %v: %v", include, field(got[0], "extensionProperties"))
			}
		}
	})
}

// A fetched task's variables come with their Camunda types, as the
// instance's variables do (an Object as Object, a Short as Short, a File
// without its content); an Object is its document's text unless the topic
// asks for deserializeValues. Only the variables named are handed over.
func TestRESTFetchVariableTypes(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("ext", map[string]string{"charge.bpmn": oneExternalTask}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start", map[string]any{"variables": map[string]any{
			"sh":   map[string]any{"value": 7, "type": "Short"},
			"doc":  map[string]any{"value": `{"a":1}`, "type": "Json"},
			"xml":  map[string]any{"value": "<a/>", "type": "Xml"},
			"when": map[string]any{"value": "2026-01-25T13:33:42.000+0000", "type": "Date"},
			"file": map[string]any{"value": "aGk=", "type": "File", "valueInfo": map[string]any{"filename": "hi.txt"}},
			"obj": map[string]any{"value": `{"id":7}`, "type": "Object",
				"valueInfo": map[string]any{"objectTypeName": "com.example.Order", "serializationDataFormat": "application/json"}},
		}}), "id").(string)
		for _, deserialize := range []bool{false, true} {
			topic := map[string]any{"topicName": "charge", "lockDuration": 60000, "deserializeValues": deserialize}
			got := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1, "topics": []any{topic}}).([]any)
			want := a.ok(http.StatusOK, "GET", fmt.Sprintf("/process-instance/%s/variables?deserializeValues=%v", pi, deserialize), nil)
			if vars := field(got[0], "variables"); !reflect.DeepEqual(vars, want) {
				t.Errorf("deserializeValues %v: fetched %v, want %v", deserialize, vars, want)
			}
			a.ok(http.StatusNoContent, "POST", "/external-task/"+field(got[0], "id").(string)+"/unlock", nil)
		}
		if v := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables?deserializeValues=false", nil), "obj", "value"); v != `{"id":7}` {
			t.Fatalf("the instance's Object serialized: %v", v)
		}
		topic := map[string]any{"topicName": "charge", "lockDuration": 60000, "variables": []string{"sh", "missing"}}
		got := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1, "topics": []any{topic}}).([]any)
		if vars := field(got[0], "variables"); !reflect.DeepEqual(vars, map[string]any{"sh": map[string]any{"value": float64(7), "type": "Short", "valueInfo": map[string]any{}}}) {
			t.Errorf("variables [sh missing]: %v", vars)
		}
	})
}

func historicIncident(id string) bpmnlite.HistoricIncidentQuery {
	return bpmnlite.HistoricIncidentQuery{IncidentQuery: bpmnlite.IncidentQuery{ID: id}}
}

// An update that another transaction's committed change overtook is a 409
// OptimisticLockingException, and changes nothing. PostgreSQL only: SQLite
// runs one writer at a time, so there commands never overlap.
func TestRESTConcurrentUpdateConflict(t *testing.T) {
	b := testdb.Postgres(t)
	a := newAPI(t, b, rest.Options{})
	fx := seedFixture(t, a)
	conn, err := pgx.Connect(t.Context(), b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "SET search_path TO "+pgx.Identifier{b.Options.Schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	// Another transaction changes the job and holds its row until the
	// REST update, which read the row before, waits on it.
	other, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(t.Context(), "UPDATE job SET priority = 9, rev = rev + 1 WHERE id = $1", fx["jobtimer"]); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var status int
	var out any
	go func() {
		defer close(done)
		status, out = a.call("PUT", "/job/"+fx["jobtimer"]+"/priority", map[string]any{"priority": 42})
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting int
		if err := other.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break // the REST update waits on this transaction
		}
		if time.Now().After(deadline) {
			t.Fatal("the REST update never waited on the row")
		}
	}
	if err := other.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-done
	if status != http.StatusConflict || field(out, "type") != "OptimisticLockingException" {
		t.Errorf("overtaken update: %d %v, want 409 OptimisticLockingException", status, out)
	}
	if p := field(a.ok(http.StatusOK, "GET", "/job/"+fx["jobtimer"], nil), "priority"); p != float64(9) {
		t.Errorf("priority %v, want the other transaction's 9", p)
	}
}
