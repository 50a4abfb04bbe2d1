package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/rest"
)

// fixtureQuick is a process that ends as soon as it starts.
const fixtureQuick = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="quick" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

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
		a.wantError(http.StatusNotFound, "Historic process instance with id nope does not exist", "GET", "/history/process-instance/nope", nil)

		if err := a.eng.SuspendProcessInstance(t.Context(), fx["pi2"]); err != nil {
			t.Fatal(err)
		}
		if s := field(a.ok(http.StatusOK, "GET", "/history/process-instance/"+fx["pi2"], nil), "state"); s != "SUSPENDED" {
			t.Errorf("suspended instance's state in history: %v", s)
		}
		if ids := idsInOrder(a.ok(http.StatusOK, "GET", "/history/process-instance?suspended=true", nil).([]any)); len(ids) != 1 || ids[0] != fx["pi2"] {
			t.Errorf("suspended=true: %v, want %s", ids, fx["pi2"])
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count?active=true", nil), "count"); n != 3.0 {
			t.Errorf("active=true count: %v, want 3 (pi1, pi3, pi4)", n)
		}
		a.wantError(http.StatusBadRequest, "Already querying for historic process instance with another state", "GET", "/history/process-instance?active=true&completed=true", nil)
		// Conditions on incidents, activity instances and job log entries
		// hold for one row together, beside the instance's own.
		for query, want := range map[string]int{
			"incidentType=failedJob&incidentStatus=open&withRootIncidents=true&processDefinitionKey=review":                              1,
			"incidentType=failedJob&incidentStatus=resolved":                                                                             0,
			"incidentIdIn=nope,x&incidentType=failedJob":                                                                                 0,
			"executedActivityAfter=2000-01-01T00:00:00.000%2B0000&executedActivityBefore=2100-01-01T00:00:00.000%2B0000&unfinished=true": 4,
			"executedJobAfter=2000-01-01T00:00:00.000%2B0000&executedJobBefore=2100-01-01T00:00:00.000%2B0000&incidentStatus=open":       2, // pi1, pi4
		} {
			if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count?"+query, nil), "count"); n != float64(want) {
				t.Errorf("count?%s: %v, want %d", query, n, want)
			}
		}
		a.wantError(http.StatusBadRequest, "startedAfter", "GET", "/history/process-instance?startedAfter=yesterday", nil)
		a.wantError(http.StatusBadRequest, "Invalid variable comparator specified: is", "GET", "/history/process-instance?variables=x_is_1", nil)
		a.wantError(http.StatusBadRequest, "orQueries", "POST", "/history/process-instance", map[string]any{"orQueries": []any{map[string]any{"completed": true}}})

		// Deleting: a running instance's history stays (404, as Camunda).
		a.wantError(http.StatusNotFound, "Historic process instance with id "+fx["pi1"]+" does not exist", "DELETE", "/history/process-instance/"+fx["pi1"], nil)
		a.ok(http.StatusOK, "GET", "/history/process-instance/"+fx["pi1"], nil)
		a.wantError(http.StatusNotFound, "Historic process instance with id nope does not exist", "DELETE", "/history/process-instance/nope", nil)
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/nope?failIfNotExists=false", nil)
		a.wantError(http.StatusBadRequest, "failIfNotExists", "DELETE", "/history/process-instance/nope?failIfNotExists=maybe", nil)

		// The variables of the ended instance, then the instance.
		a.wantError(http.StatusNotFound, "No historic process instance found with id: nope", "DELETE", "/history/process-instance/nope/variable-instances", nil)
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
		a.wantError(http.StatusNotFound, "does not exist", "GET", "/history/process-instance/"+done, nil)
		if n := field(a.ok(http.StatusOK, "GET", "/history/activity-instance/count?processInstanceId="+done, nil), "count"); n != 0.0 {
			t.Errorf("activity instances after the deletion: %v", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count", nil), "count"); n != 4.0 {
			t.Errorf("other instances after the deletion: %v, want 4", n)
		}

		a.wantError(http.StatusBadRequest, "historicProcessInstanceIds is empty", "POST", "/history/process-instance/delete", map[string]any{"historicProcessInstanceIds": []string{}})

		// Activity instances by id.
		act := a.ok(http.StatusOK, "GET", "/history/activity-instance/"+fx["act2check"], nil)
		if field(act, "activityId") != "check" || field(act, "processInstanceId") != fx["pi2"] {
			t.Errorf("GET /history/activity-instance/%s: %v", fx["act2check"], act)
		}
		a.wantError(http.StatusNotFound, "Historic activity instance with id 'nope' does not exist", "GET", "/history/activity-instance/nope", nil)
	})
}

// text GETs path and returns the status and the body of a text reply.
func (a *api) text(path string) (int, string) {
	a.t.Helper()
	req, _ := http.NewRequestWithContext(a.t.Context(), "GET", a.url+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") != "text/plain" {
		a.t.Errorf("GET %s: Content-Type %q, want text/plain", path, resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode, string(b)
}

// The job log and the external task log: entries by id, the failure's
// stack trace and error details, and the external task's events as a
// worker fails and completes it and as its instance is deleted.
func TestRESTHistoryLogs(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		idsOfFixture(t, a, fx)

		failed := a.ok(http.StatusOK, "GET", "/history/job-log/"+fx["jlfailed1"], nil)
		if field(failed, "jobExceptionMessage") != "card declined" || field(failed, "failureLog") != true || field(failed, "creationLog") != false ||
			field(failed, "failedActivityId") != "charge" || field(failed, "deploymentId") != fx["deployment1"] || field(failed, "processDefinitionKey") != "review" ||
			field(failed, "jobDefinitionType") != "async-continuation" || field(failed, "jobDefinitionConfiguration") != "async-before" {
			t.Errorf("failure entry: %v", failed)
		}
		if status, stack := a.text("/history/job-log/" + fx["jlfailed1"] + "/stacktrace"); status != http.StatusOK || !strings.Contains(stack, "card declined") {
			t.Errorf("stack trace of a failure: %d %q", status, stack)
		}
		if status, body := a.text("/history/job-log/" + fx["jlcreated"] + "/stacktrace"); status != http.StatusNoContent || body != "" {
			t.Errorf("stack trace of a creation: %d %q, want 204", status, body)
		}
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("hour", map[string]string{"hour.bpmn": fixtureHour}))
		a.ok(http.StatusOK, "POST", "/process-definition/key/hourly/start", map[string]any{})
		timer := a.ok(http.StatusOK, "GET", "/history/job-log?jobDefinitionType=timer-intermediate-transition&processDefinitionKey=hourly", nil).([]any)
		if len(timer) != 1 || field(timer[0], "jobDefinitionConfiguration") != "DURATION: PT1H" || field(timer[0], "creationLog") != true {
			t.Errorf("timer's job log: %v", timer)
		}
		a.wantError(http.StatusNotFound, "Historic job log with id nope does not exist", "GET", "/history/job-log/nope", nil)
		a.wantError(http.StatusNotFound, "No historic job log found with id nope", "GET", "/history/job-log/nope/stacktrace", nil)
		a.wantError(http.StatusBadRequest, "hostname", "GET", "/history/job-log?hostname=x", nil)
		a.wantError(http.StatusBadRequest, "jobPriorityLowerThanOrEquals", "GET", "/history/job-log?jobPriorityLowerThanOrEquals=high", nil)

		// The external task fails, is fetched again and completed.
		a.ok(http.StatusNoContent, "POST", "/external-task/"+fx["ext3"]+"/failure", map[string]any{
			"workerId": "w1", "errorMessage": "no box", "errorDetails": "out of boxes", "retries": 1, "retryTimeout": 0})
		logs := a.ok(http.StatusOK, "GET", "/history/external-task-log?failureLog=true", nil).([]any)
		if len(logs) != 1 || field(logs[0], "errorMessage") != "no box" || field(logs[0], "retries") != 1.0 ||
			field(logs[0], "workerId") != "w1" || field(logs[0], "externalTaskId") != fx["ext3"] {
			t.Fatalf("failure entries: %v", logs)
		}
		failure := field(logs[0], "id").(string)
		if status, details := a.text("/history/external-task-log/" + failure + "/error-details"); status != http.StatusOK || details != "out of boxes" {
			t.Errorf("error details of the failure: %d %q", status, details)
		}
		if status, _ := a.text("/history/external-task-log/" + fx["etl3created"] + "/error-details"); status != http.StatusNoContent {
			t.Errorf("error details of the creation: %d, want 204", status)
		}
		a.wantError(http.StatusNotFound, "No historic external task log found with id nope", "GET", "/history/external-task-log/nope/error-details", nil)
		a.wantError(http.StatusNotFound, "Historic external task log with id nope does not exist", "GET", "/history/external-task-log/nope", nil)
		if got := a.ok(http.StatusOK, "GET", "/history/external-task-log/"+failure, nil); field(got, "failureLog") != true || field(got, "topicName") != "packing" {
			t.Errorf("GET the failure entry: %v", got)
		}
		a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{
			"workerId": "w1", "maxTasks": 1, "topics": []any{map[string]any{"topicName": "packing", "lockDuration": 600000}}})
		a.ok(http.StatusNoContent, "POST", "/external-task/"+fx["ext3"]+"/complete", map[string]any{"workerId": "w1"})
		if n := field(a.ok(http.StatusOK, "GET", "/history/external-task-log/count?successLog=true&externalTaskId="+fx["ext3"], nil), "count"); n != 1.0 {
			t.Errorf("success entries: %v, want 1", n)
		}

		// A deleted instance's external task is logged deleted.
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/ship/start", map[string]any{}), "id").(string)
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+pi, nil)
		deleted := a.ok(http.StatusOK, "POST", "/history/external-task-log", map[string]any{"processInstanceId": pi, "deletionLog": true}).([]any)
		if len(deleted) != 1 || field(deleted[0], "activityId") != "pack" {
			t.Errorf("deletion entries of the deleted instance: %v", deleted)
		}
		events := a.ok(http.StatusOK, "GET", "/history/external-task-log?processInstanceId="+fx["pi3"]+"&sortBy=timestamp&sortOrder=asc", nil).([]any)
		var seq []string
		for _, e := range events {
			for _, flag := range []string{"creationLog", "failureLog", "successLog", "deletionLog"} {
				if field(e, flag) == true {
					seq = append(seq, flag)
				}
			}
		}
		if strings.Join(seq, " ") != "creationLog failureLog successLog" {
			t.Errorf("events of the external task: %v", seq)
		}
	})
}

// The history cleanup job, its list form and the cleanup configuration.
func TestRESTHistoryCleanupJob(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		status, out := a.call("GET", "/history/cleanup/job", nil)
		if status != http.StatusNotFound || field(out, "type") != "RestException" || field(out, "message") != "History cleanup job does not exist" {
			t.Errorf("cleanup job before any: %d %v", status, out)
		}
		a.wantError(http.StatusNotFound, "History cleanup jobs are empty", "GET", "/history/cleanup/jobs", nil)
		scheduled := a.ok(http.StatusOK, "POST", "/history/cleanup?immediatelyDue=false", nil)
		job := a.ok(http.StatusOK, "GET", "/history/cleanup/job", nil)
		if field(job, "id") != field(scheduled, "id") {
			t.Errorf("cleanup job %v, scheduled %v", job, scheduled)
		}
		if jobs := a.ok(http.StatusOK, "GET", "/history/cleanup/jobs", nil).([]any); len(jobs) != 1 || field(jobs[0], "id") != field(job, "id") {
			t.Errorf("cleanup jobs: %v", jobs)
		}
		conf := a.ok(http.StatusOK, "GET", "/history/cleanup/configuration", nil)
		if field(conf, "enabled") != true || field(conf, "batchWindowStartTime") != nil {
			t.Errorf("cleanup configuration: %v", conf)
		}
	})
}

// fixtureHour waits an hour at a timer.
const fixtureHour = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="hourly" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="hour"/>
    <intermediateCatchEvent id="hour"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="hour" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// fixtureKept ends at once; its history may be removed as soon as it ends.
const fixtureKept = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="brief" name="Brief" isExecutable="true" camunda:historyTimeToLive="0">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// The cleanable process instance report counts finished instances and
// those whose removal time has come; the activity statistics count an
// activity's running, finished and canceled instances and its incidents.
func TestRESTHistoryReports(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("brief", map[string]string{"brief.bpmn": fixtureKept}))
		for range 2 {
			a.ok(http.StatusOK, "POST", "/process-definition/key/brief/start", map[string]any{})
		}
		const report = "/history/process-definition/cleanable-process-instance-report"
		rows := a.ok(http.StatusOK, "GET", report+"?compact=true", nil).([]any)
		if len(rows) != 1 || field(rows[0], "processDefinitionKey") != "brief" || field(rows[0], "finishedProcessInstanceCount") != 2.0 ||
			field(rows[0], "cleanableProcessInstanceCount") != 2.0 || field(rows[0], "historyTimeToLive") != 0.0 ||
			field(rows[0], "processDefinitionName") != "Brief" || field(rows[0], "processDefinitionVersion") != 1.0 {
			t.Errorf("compact report: %v", rows)
		}
		if n := field(a.ok(http.StatusOK, "GET", report+"/count", nil), "count"); n != 5.0 {
			t.Errorf("report count: %v, want 5 definitions", n)
		}
		byFinished := a.ok(http.StatusOK, "GET", report+"?sortBy=finished&sortOrder=desc", nil).([]any)
		if len(byFinished) != 5 || field(byFinished[0], "processDefinitionKey") != "brief" || field(byFinished[1], "cleanableProcessInstanceCount") != 0.0 {
			t.Errorf("report by finished: %v", byFinished)
		}
		a.wantError(http.StatusBadRequest, "tenantIdIn", "GET", report+"?tenantIdIn=a", nil)

		stats := "/history/process-definition/" + fx["def-review"] + "/statistics"
		got := func(query string) string {
			var out []string
			for _, s := range a.ok(http.StatusOK, "GET", stats+query, nil).([]any) {
				out = append(out, fmt.Sprintf("%v:%v/%v/%v/%v", field(s, "id"), field(s, "instances"), field(s, "finished"), field(s, "canceled"), field(s, "openIncidents")))
			}
			return strings.Join(out, " ")
		}
		for query, want := range map[string]string{
			"":               "check:1/0/0/0",
			"?finished=true": "check:1/1/0/0 start:0/2/0/0",
			"?finished=true&sortBy=activityId&sortOrder=desc": "start:0/2/0/0 check:1/1/0/0",
			"?incidents=true": "charge:0/0/0/1 check:1/0/0/0",
			"?finished=true&canceled=true&processInstanceIdIn=" + fx["pi1"]: "check:0/1/0/0 start:0/1/0/0",
			"?finished=true&startedAfter=2100-01-01T00:00:00.000%2B0000":    "",
			"?finished=true&startedBefore=2100-01-01T00:00:00.000%2B0000":   "check:1/1/0/0 start:0/2/0/0",
		} {
			if g := got(query); g != want {
				t.Errorf("statistics%s: %q, want %q", query, g, want)
			}
		}
		a.wantError(http.StatusBadRequest, "sortBy", "GET", stats+"?sortBy=nope&sortOrder=asc", nil)
		a.wantError(http.StatusBadRequest, "completeScope", "GET", stats+"?completeScope=true", nil)
		a.wantError(http.StatusBadRequest, "finished", "GET", stats+"?finished=often", nil)
		if none := a.ok(http.StatusOK, "GET", "/history/process-definition/nope/statistics", nil).([]any); len(none) != 0 {
			t.Errorf("statistics of an unknown definition: %v", none)
		}
	})
}

// Historic details: each value a variable was given, by id with its typed
// value, binary data, the start variables marked initial, and removed with
// the instance's historic variables.
func TestRESTHistoricDetail(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		idsOfFixture(t, a, fx)
		got := a.ok(http.StatusOK, "GET", "/history/detail/"+fx["det2quantity1"], nil)
		if field(got, "type") != "variableUpdate" || field(got, "variableName") != "quantity" || field(got, "value") != 7.0 ||
			field(got, "variableType") != "Integer" || field(got, "revision") != 1.0 || field(got, "initial") != false ||
			field(got, "variableInstanceId") != fx["var2quantity"] || field(got, "processInstanceId") != fx["pi2"] ||
			field(got, "processDefinitionKey") != "review" {
			t.Errorf("GET /history/detail/%s: %v", fx["det2quantity1"], got)
		}
		a.wantError(http.StatusNotFound, "Historic detail with Id 'nope' does not exist.", "GET", "/history/detail/nope", nil)
		a.wantError(http.StatusNotFound, "Historic detail with Id 'nope' does not exist.", "GET", "/history/detail/nope/data", nil)
		a.wantError(http.StatusBadRequest, "is not a binary value", "GET", "/history/detail/"+fx["det2remark0"]+"/data", nil)
		a.wantError(http.StatusBadRequest, "userOperationId", "GET", "/history/detail?userOperationId=x", nil)

		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("quick", map[string]string{"quick.bpmn": fixtureQuick}))
		done := field(a.ok(http.StatusOK, "POST", "/process-definition/key/quick/start", map[string]any{
			"variables": map[string]any{
				"blob":  map[string]any{"value": "AQID", "type": "Bytes"},
				"count": map[string]any{"value": 1, "type": "Integer"},
			},
		}), "id").(string)
		initial := a.ok(http.StatusOK, "GET", "/history/detail?initial=true&sortBy=variableName&sortOrder=asc", nil).([]any)
		if len(initial) != 2 || field(initial[0], "variableName") != "blob" || field(initial[0], "variableType") != "Bytes" || field(initial[1], "initial") != true {
			t.Fatalf("initial details: %v", initial)
		}
		req, _ := http.NewRequestWithContext(t.Context(), "GET", a.url+"/history/detail/"+field(initial[0], "id").(string)+"/data", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/octet-stream" || string(data) != "\x01\x02\x03" {
			t.Errorf("binary data: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), data)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/"+done+"/variable-instances", nil)
		if n := field(a.ok(http.StatusOK, "GET", "/history/detail/count?processInstanceId="+done, nil), "count"); n != 0.0 {
			t.Errorf("details after deleting the historic variables: %v", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/detail/count", nil), "count"); n != 9.0 {
			t.Errorf("the fixture's details: %v, want 9", n)
		}
	})
}

// The duration reports of process instances and tasks, and the task count
// report, with Camunda's errors for a missing or wrong report type or
// period unit.
func TestRESTHistoryDurationReports(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("quick", map[string]string{"quick.bpmn": fixtureQuick}))
		for range 2 {
			a.ok(http.StatusOK, "POST", "/process-definition/key/quick/start", map[string]any{})
		}
		month := int(time.Now().UTC().Month())
		const instances = "/history/process-instance/report?reportType=duration"
		rows := a.ok(http.StatusOK, "GET", instances+"&periodUnit=month", nil).([]any)
		if len(rows) != 1 || field(rows[0], "period") != float64(month) || field(rows[0], "periodUnit") != "MONTH" ||
			field(rows[0], "minimum").(float64) > field(rows[0], "maximum").(float64) {
			t.Errorf("instance duration report by month: %v", rows)
		}
		rows = a.ok(http.StatusOK, "GET", instances+"&periodUnit=quarter&processDefinitionKeyIn=quick,review", nil).([]any)
		if len(rows) != 1 || field(rows[0], "period") != float64((month+2)/3) || field(rows[0], "periodUnit") != "QUARTER" {
			t.Errorf("instance duration report by quarter: %v", rows)
		}
		if rows := a.ok(http.StatusOK, "GET", instances+"&periodUnit=month&processDefinitionIdIn="+fx["def-review"], nil).([]any); len(rows) != 0 {
			t.Errorf("report of a definition without finished instances: %v", rows)
		}
		a.wantError(http.StatusBadRequest, "Unknown report type null", "GET", "/history/process-instance/report?periodUnit=month", nil)
		a.wantError(http.StatusBadRequest, "Unknown report type count", "GET", "/history/process-instance/report?reportType=count", nil)
		a.wantError(http.StatusBadRequest, "reportType parameter has invalid value: sum", "GET", "/history/process-instance/report?reportType=sum", nil)
		a.wantError(http.StatusBadRequest, "periodUnit is null", "GET", instances, nil)
		a.wantError(http.StatusBadRequest, "periodUnit", "GET", instances+"&periodUnit=week", nil)
		req, _ := http.NewRequestWithContext(t.Context(), "GET", a.url+instances+"&periodUnit=month", nil)
		req.Header.Set("Accept", "text/csv")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		csv, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if lines := strings.Split(string(csv), "\n"); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv" ||
			len(lines) != 2 || lines[0] != "PERIOD,PERIOD_UNIT,MINIMUM,MAXIMUM,AVERAGE" || !strings.HasPrefix(lines[1], fmt.Sprint(month)+",MONTH,") ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), `filename="process-instance-report.csv"`) {
			t.Errorf("CSV report: %d %q %q", resp.StatusCode, resp.Header, csv)
		}
		for _, path := range []string{instances + "&periodUnit=month", "/history/task/report?reportType=count"} {
			accept := map[bool]string{true: "application/xml", false: "text/csv"}[strings.HasPrefix(path, instances)]
			if status, out := a.call("GET", path, nil, "Accept", accept); status != http.StatusNotAcceptable || field(out, "message") != "No acceptable content-type found" {
				t.Errorf("GET %s as %s: %d %v, want 406", path, accept, status, out)
			}
		}

		const tasks = "/history/task/report"
		counts := a.ok(http.StatusOK, "GET", tasks+"?reportType=count", nil).([]any)
		if len(counts) != 1 || field(counts[0], "taskName") != "Check the order" || field(counts[0], "count") != 1.0 ||
			field(counts[0], "processDefinitionId") != fx["def-review"] || field(counts[0], "processDefinitionName") != "Review" {
			t.Errorf("task count report: %v", counts)
		}
		counts = a.ok(http.StatusOK, "GET", tasks+"?reportType=count&groupBy=processDefinition", nil).([]any)
		if len(counts) != 1 || field(counts[0], "taskName") != nil || field(counts[0], "processDefinitionKey") != "review" {
			t.Errorf("task count report by definition: %v", counts)
		}
		if counts := a.ok(http.StatusOK, "GET", tasks+"?reportType=count&completedBefore=2000-01-01T00:00:00.000%2B0000", nil).([]any); len(counts) != 0 {
			t.Errorf("tasks completed before 2000: %v", counts)
		}
		rows = a.ok(http.StatusOK, "GET", tasks+"?reportType=duration&periodUnit=month", nil).([]any)
		if len(rows) != 1 || field(rows[0], "period") != float64(month) {
			t.Errorf("task duration report: %v", rows)
		}
		a.wantError(http.StatusBadRequest, "Parameter reportType is not set.", "GET", tasks, nil)
		a.wantError(http.StatusBadRequest, "groupBy parameter has invalid value: user", "GET", tasks+"?reportType=count&groupBy=user", nil)
		a.wantError(http.StatusBadRequest, "periodUnit is null", "GET", tasks+"?reportType=duration", nil)
	})
}
