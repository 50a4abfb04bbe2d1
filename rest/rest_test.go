package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/rest"
)

// api is a REST server on an engine of one backend, and a client for it.
type api struct {
	t   *testing.T
	eng *bpmnlite.Engine
	url string

	mu     sync.Mutex
	header http.Header // the last reply's header (calls may run concurrently)
}

// lastHeader is the header of the last reply.
func (a *api) lastHeader() http.Header {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.header
}

func eachBackend(t *testing.T, opt rest.Options, f func(t *testing.T, a *api)) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { f(t, newAPI(t, b, opt)) })
	}
}

// newAPI is a REST server on an engine of backend b (full history), and a
// client for it.
func newAPI(t *testing.T, b testdb.Backend, opt rest.Options) *api {
	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{
		Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema},
		History:  bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.New(eng, opt))
	t.Cleanup(func() {
		eng.AnswerWaitingFetches()
		srv.Close()
		_ = eng.Close()
	})
	return &api{t: t, eng: eng, url: srv.URL + "/engine-rest"}
}

// call sends body (JSON unless a *bytes.Buffer with contentType) and
// returns the status and the decoded JSON reply (nil when empty).
func (a *api) call(method, path string, body any, header ...string) (int, any) {
	a.t.Helper()
	var rd io.Reader
	contentType := "application/json"
	switch b := body.(type) {
	case nil:
	case multipartBody:
		rd, contentType = b.buf, b.contentType
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(a.t.Context(), method, a.url+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	a.mu.Lock()
	a.header = resp.Header
	a.mu.Unlock()
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) == 0 {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		a.t.Errorf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		a.t.Fatalf("%s %s: reply is not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

// ok calls and expects status want.
func (a *api) ok(want int, method, path string, body any) any {
	a.t.Helper()
	status, out := a.call(method, path, body)
	if status != want {
		a.t.Fatalf("%s %s: status %d (%v), want %d", method, path, status, out, want)
	}
	return out
}

type multipartBody struct {
	buf         *bytes.Buffer
	contentType string
}

func deployment(name string, files map[string]string) multipartBody {
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	_ = w.WriteField("deployment-name", name)
	_ = w.WriteField("enable-duplicate-filtering", "true")
	for fname, content := range files {
		fw, _ := w.CreateFormFile(fname, fname)
		_, _ = fw.Write([]byte(content))
	}
	_ = w.Close()
	return multipartBody{buf, w.FormDataContentType()}
}

const oneExternalTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <error id="e" errorCode="BROKEN"/>
  <process id="charge" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="charge">
      <extensionElements><camunda:properties><camunda:property name="region" value="eu"/></camunda:properties></extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="after"/>
    <userTask id="after"/>
    <sequenceFlow id="f3" sourceRef="after" targetRef="end"/>
    <endEvent id="end"/>
    <boundaryEvent id="caught" attachedToRef="work"><errorEventDefinition errorRef="e"/></boundaryEvent>
    <sequenceFlow id="f4" sourceRef="caught" targetRef="handle"/>
    <userTask id="handle"/>
  </process>
</definitions>`

func field(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func TestRESTAuth(t *testing.T) {
	for _, tc := range []struct{ auth, good, bad string }{
		{"Bearer s3cret-s3cret-s3cret", "Bearer s3cret-s3cret-s3cret", "Bearer s3cret-s3cret-s3creT"},
		{"Bearer s3cret-s3cret-s3cret", "bearer s3cret-s3cret-s3cret", "Bearer s3cret"},
		{"demo:pw", "Basic ZGVtbzpwdw==", "Basic ZGVtbzp4"},
		{"demo:pw", "Basic ZGVtbzpwdw==", "Basic Og=="}, // ":"
		{"demo:pw", "Basic ZGVtbzpwdw==", "Bearer demo:pw"},
	} {
		eachBackend(t, rest.Options{Auth: tc.auth}, func(t *testing.T, a *api) {
			if status, out := a.call("GET", "/version", nil); status != http.StatusUnauthorized || field(out, "type") == nil {
				t.Errorf("no credentials: %d %v, want 401 with an error body", status, out)
			}
			if status, out := a.call("GET", "/version", nil, "Authorization", tc.bad); status != http.StatusUnauthorized || field(out, "type") != "AuthenticationException" || field(out, "message") == nil {
				t.Errorf("wrong credentials %q: %d %v, want 401 with Camunda's error body", tc.bad, status, out)
			}
			if status, out := a.call("GET", "/version", nil, "Authorization", tc.good); status != http.StatusOK || field(out, "version") != rest.Version {
				t.Errorf("credentials: %d %v", status, out)
			}
		})
	}
}

// TestRESTCheckAuth: credentials that mean nothing (empty user or password,
// short or missing tokens, no form at all) are refused with the rule named;
// a handler given one anyway admits nobody.
func TestRESTCheckAuth(t *testing.T) {
	for auth, rule := range map[string]string{
		":":                       "user name",
		":pw":                     "user name",
		"demo:":                   "password",
		"x":                       `"<user>:<password>"`,
		"demo":                    `"<user>:<password>"`,
		"Bearer":                  "at least 16 characters",
		"Bearer ":                 "at least 16 characters",
		"bearer 123456789012345":  "at least 16 characters",
		"Bearer 1234567890 12345": "spaces",
	} {
		if err := rest.CheckAuth(auth); err == nil || !strings.Contains(err.Error(), rule) {
			t.Errorf("CheckAuth(%q) = %v, want an error naming %q", auth, err, rule)
		}
	}
	for _, auth := range []string{"", "demo:secret", "a:b", "demo:pass:word", "Bearer 1234567890123456", "BEARER 1234567890123456"} {
		if err := rest.CheckAuth(auth); err != nil {
			t.Errorf("CheckAuth(%q) = %v, want nil", auth, err)
		}
	}
	eachBackend(t, rest.Options{Auth: "demo:", Logger: slog.New(slog.DiscardHandler)}, func(t *testing.T, a *api) {
		for _, cred := range []string{"", "Basic ZGVtbzo=", "Basic Og=="} {
			if status, _ := a.call("GET", "/version", nil, "Authorization", cred); status != http.StatusUnauthorized {
				t.Errorf("Auth %q, credentials %q: %d, want 401", "demo:", cred, status)
			}
		}
	})
}

// A deployment over MaxDeploymentBytes is answered 400, one over the rate
// 429 with Retry-After, both in Camunda's error format; the files of a
// deployment within the limits are read as they stream in.
func TestRESTDeploymentLimits(t *testing.T) {
	eachBackend(t, rest.Options{MaxDeploymentBytes: 4000, DeploymentsPerMinute: 3}, func(t *testing.T, a *api) {
		big := deployment("big", map[string]string{"big.bpmn": strings.Replace(oneExternalTask, "<process", "<!-- "+strings.Repeat("x", 4000)+" --><process", 1)})
		if status, out := a.call("POST", "/deployment/create", big); status != http.StatusBadRequest || field(out, "type") != "InvalidRequestException" || !strings.Contains(fmt.Sprint(field(out, "message")), "limit of 4000 bytes") {
			t.Errorf("a deployment of 4 kB: %d %v, want 400 naming the limit", status, out)
		}
		for i := range 2 {
			dep := a.ok(http.StatusOK, "POST", "/deployment/create", deployment(fmt.Sprint("d", i), map[string]string{"charge.bpmn": oneExternalTask}))
			if defs, _ := field(dep, "deployedProcessDefinitions").(map[string]any); i == 0 && len(defs) != 1 {
				t.Errorf("deployment %v, want one definition", dep)
			}
		}
		status, out := a.call("POST", "/deployment/create", deployment("d3", map[string]string{"charge.bpmn": oneExternalTask}))
		if status != http.StatusTooManyRequests || a.lastHeader().Get("Retry-After") == "" || field(out, "type") != "RestException" || !strings.Contains(fmt.Sprint(field(out, "message")), "3 deployments per minute") {
			t.Errorf("a fourth deployment within the minute: %d, Retry-After %q, %v; want 429", status, a.lastHeader().Get("Retry-After"), out)
		}
	})
}

func TestRESTDeployStartVariables(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		dep := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("billing", map[string]string{"charge.bpmn": oneExternalTask}))
		defs, _ := field(dep, "deployedProcessDefinitions").(map[string]any)
		if len(defs) != 1 {
			t.Fatalf("deployment %v, want one definition", dep)
		}
		if status, out := a.call("POST", "/deployment/create", deployment("bad", map[string]string{"x.bpmn": "<definitions"})); status != http.StatusBadRequest || field(out, "type") != "InvalidRequestException" {
			t.Errorf("malformed BPMN: %d %v, want 400 InvalidRequestException", status, out)
		}
		vars := map[string]any{
			"s":    map[string]any{"value": "text", "type": "String"},
			"i":    map[string]any{"value": 42, "type": "integer"},
			"l":    map[string]any{"value": int64(1) << 40, "type": "Long"},
			"d":    map[string]any{"value": 2.5, "type": "Double"},
			"b":    map[string]any{"value": true, "type": "Boolean"},
			"when": map[string]any{"value": "2026-01-25T13:33:42.000+0100", "type": "Date"},
			"doc":  map[string]any{"value": `{"a":[1,2]}`, "type": "Json"},
			"none": map[string]any{"value": nil, "type": "Null"},
			"raw":  map[string]any{"value": "aGk=", "type": "Bytes"},
		}
		pi := a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start", map[string]any{"variables": vars, "businessKey": "order-1"})
		id, _ := field(pi, "id").(string)
		if id == "" || field(pi, "businessKey") != "order-1" || field(pi, "ended") != false {
			t.Fatalf("started %v", pi)
		}
		got := a.ok(http.StatusOK, "GET", "/process-instance/"+id+"/variables", nil)
		for name, want := range map[string][2]any{
			"s": {"text", "String"}, "i": {float64(42), "Integer"}, "l": {float64(int64(1) << 40), "Long"}, "d": {2.5, "Double"},
			"b": {true, "Boolean"}, "when": {"2026-01-25T12:33:42.000+0000", "Date"}, "doc": {`{"a":[1,2]}`, "Json"},
			"none": {nil, "Null"}, "raw": {"aGk=", "Bytes"},
		} {
			if v, typ := field(got, name, "value"), field(got, name, "type"); v != want[0] || typ != want[1] {
				t.Errorf("variable %s = %v (%v), want %v (%v)", name, v, typ, want[0], want[1])
			}
		}
		a.ok(http.StatusNoContent, "POST", "/process-instance/"+id+"/variables",
			map[string]any{"modifications": map[string]any{"s": map[string]any{"value": "changed", "type": "String"}}})
		if v := field(a.ok(http.StatusOK, "GET", "/process-instance/"+id+"/variables", nil), "s", "value"); v != "changed" {
			t.Errorf("modified s = %v", v)
		}
		if status, out := a.call("POST", "/process-definition/key/charge/start", map[string]any{"variables": map[string]any{"x": map[string]any{"value": "1", "type": "Rational"}}}); status != http.StatusBadRequest ||
			!strings.Contains(fmt.Sprint(field(out, "message")), "Rational") {
			t.Errorf("unknown variable type: %d %v, want 400 naming it", status, out)
		}
		if status, _ := a.call("POST", "/process-definition/key/nothing/start", map[string]any{}); status != http.StatusNotFound {
			t.Errorf("unknown key: %d, want 404", status)
		}
		if status, out := a.call("POST", "/process-definition/key/charge/start", "{"); status != http.StatusBadRequest {
			t.Errorf("malformed JSON: %d %v, want 400", status, out)
		}
		list, _ := a.ok(http.StatusOK, "GET", "/process-instance?businessKey=order-1", nil).([]any)
		if len(list) != 1 || field(a.ok(http.StatusOK, "GET", "/process-instance/count", nil), "count") != float64(1) {
			t.Errorf("instances %v", list)
		}
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+id, nil)
		a.ok(http.StatusNotFound, "GET", "/process-instance/"+id, nil)
		a.ok(http.StatusNotFound, "DELETE", "/process-instance/"+id, nil)
	})
}

func TestRESTExternalTasks(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("billing", map[string]string{"charge.bpmn": oneExternalTask}))
		start := func() string {
			pi := a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start",
				map[string]any{"variables": map[string]any{"amount": map[string]any{"value": 30, "type": "Integer"}}})
			return field(pi, "id").(string)
		}
		fetch := func(worker string, extra map[string]any) []any {
			body := map[string]any{"workerId": worker, "maxTasks": 5,
				"topics": []any{map[string]any{"topicName": "charge", "lockDuration": 60000, "variables": []string{"amount"}, "includeExtensionProperties": true}}}
			for k, v := range extra {
				body[k] = v
			}
			out, _ := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", body).([]any)
			return out
		}
		pi := start()
		tasks := fetch("w1", nil)
		if len(tasks) != 1 {
			t.Fatalf("fetched %v", tasks)
		}
		task := tasks[0]
		id := field(task, "id").(string)
		if field(task, "processInstanceId") != pi || field(task, "topicName") != "charge" || field(task, "workerId") != "w1" ||
			field(task, "activityId") != "work" || field(task, "variables", "amount", "value") != float64(30) ||
			field(task, "variables", "amount", "type") != "Integer" || field(task, "extensionProperties", "region") != "eu" ||
			field(task, "retries") != nil || field(task, "lockExpirationTime") == nil {
			t.Errorf("fetched task %v", task)
		}
		if got := fetch("w2", nil); len(got) != 0 {
			t.Errorf("fetched a locked task: %v", got)
		}

		// Reports by the wrong worker, on unknown tasks, and bad bodies.
		status, out := a.call("POST", "/external-task/"+id+"/complete", map[string]any{"workerId": "w2"})
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), "It is locked by worker 'w1'.") {
			t.Errorf("complete by w2: %d %v", status, out)
		}
		if status, out := a.call("POST", "/external-task/nope/complete", map[string]any{"workerId": "w1"}); status != http.StatusNotFound ||
			field(out, "message") != "External task with id nope does not exist" {
			t.Errorf("unknown task: %d %v", status, out)
		}
		a.ok(http.StatusBadRequest, "POST", "/external-task/"+id+"/failure", map[string]any{"workerId": "w1", "retries": -1})
		a.ok(http.StatusBadRequest, "POST", "/external-task/fetchAndLock", map[string]any{"maxTasks": 1})

		// Extend, unlock (empty body), refetch, priority, failure to an incident, retries.
		a.ok(http.StatusNoContent, "POST", "/external-task/"+id+"/extendLock", map[string]any{"workerId": "w1", "newDuration": 120000})
		a.ok(http.StatusNoContent, "POST", "/external-task/"+id+"/unlock", nil)
		a.ok(http.StatusNoContent, "PUT", "/external-task/"+id+"/priority", map[string]any{"priority": 7})
		if got := fetch("w2", map[string]any{"usePriority": true}); len(got) != 1 || field(got[0], "priority") != float64(7) {
			t.Fatalf("refetch after unlock: %v", got)
		}
		a.ok(http.StatusNoContent, "POST", "/external-task/"+id+"/failure",
			map[string]any{"workerId": "w2", "errorMessage": "card declined", "errorDetails": "stack", "retries": 0, "retryTimeout": 0})
		incidents, _ := a.eng.Incidents(t.Context(), bpmnlite.IncidentQuery{Configuration: id})
		if len(incidents) != 1 || incidents[0].Type != "failedExternalTask" || incidents[0].Message != "card declined" {
			t.Fatalf("incidents %+v", incidents)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/external-task/count?noRetriesLeft=true", nil), "count"); n != float64(1) {
			t.Errorf("tasks without retries: %v", n)
		}
		got := a.ok(http.StatusOK, "GET", "/external-task/"+id, nil)
		if field(got, "errorMessage") != "card declined" || field(got, "retries") != float64(0) {
			t.Errorf("task %v", got)
		}
		a.ok(http.StatusNoContent, "PUT", "/external-task/"+id+"/retries", map[string]any{"retries": 2})
		if incidents, _ := a.eng.Incidents(t.Context(), bpmnlite.IncidentQuery{Configuration: id}); len(incidents) != 0 {
			t.Errorf("incident left after set retries: %+v", incidents)
		}
		a.ok(http.StatusNoContent, "POST", "/external-task/"+id+"/complete", map[string]any{"workerId": "w2",
			"variables": map[string]any{"charged": map[string]any{"value": true, "type": "Boolean"}}})
		tasksAfter, _ := a.eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if len(tasksAfter) != 1 || tasksAfter[0].TaskDefinitionKey != "after" {
			t.Errorf("tasks after complete: %+v", tasksAfter)
		}

		// A BPMN error caught by the boundary event.
		pi = start()
		id = field(fetch("w1", nil)[0], "id").(string)
		a.ok(http.StatusNoContent, "POST", "/external-task/"+id+"/bpmnError", map[string]any{"workerId": "w1", "errorCode": "BROKEN",
			"errorMessage": "no card", "variables": map[string]any{"why": map[string]any{"value": "expired", "type": "String"}}})
		tasksAfter, _ = a.eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if len(tasksAfter) != 1 || tasksAfter[0].TaskDefinitionKey != "handle" {
			t.Errorf("tasks after the BPMN error: %+v", tasksAfter)
		}
		list, _ := a.ok(http.StatusOK, "GET", "/external-task?topicName=charge", nil).([]any)
		if len(list) != 0 {
			t.Errorf("external tasks left: %v", list)
		}
	})
}

// A long poll over HTTP returns as soon as a task is created.
func TestRESTLongPoll(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("billing", map[string]string{"charge.bpmn": oneExternalTask}))
		type result struct {
			tasks []any
			took  time.Duration
		}
		done := make(chan result, 1)
		go func() {
			start := time.Now()
			_, out := a.call("POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1, "asyncResponseTimeout": 20000,
				"topics": []any{map[string]any{"topicName": "charge", "lockDuration": 1000}}})
			tasks, _ := out.([]any)
			done <- result{tasks, time.Since(start)}
		}()
		time.Sleep(100 * time.Millisecond)
		a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start", map[string]any{})
		select {
		case r := <-done:
			if len(r.tasks) != 1 || r.took > 10*time.Second {
				t.Errorf("long poll: %d tasks after %v", len(r.tasks), r.took)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the long poll did not return")
		}
		if status, _ := a.call("POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1, "asyncResponseTimeout": 3600000,
			"topics": []any{map[string]any{"topicName": "charge", "lockDuration": 1000}}}); status != http.StatusBadRequest {
			t.Errorf("a 1-hour long poll: %d, want 400", status)
		}
	})
}

const reviewThenCharge = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="review" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <userTask id="check" name="Check the order"/><sequenceFlow id="f2" sourceRef="check" targetRef="charge"/>
    <serviceTask id="charge" camunda:asyncBefore="true" camunda:class="boom"/>
    <sequenceFlow id="f3" sourceRef="charge" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

func TestRESTTasksJobsIncidentsHistory(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("card declined")
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("review", map[string]string{"review.bpmn": reviewThenCharge}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/review/start", map[string]any{}), "id").(string)

		tasks, _ := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)
		if len(tasks) != 1 || field(tasks[0], "taskDefinitionKey") != "check" || field(tasks[0], "name") != "Check the order" {
			t.Fatalf("tasks %v", tasks)
		}
		task := field(tasks[0], "id").(string)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/claim", map[string]any{"userId": "ann"})
		if status, out := a.call("POST", "/task/"+task+"/claim", map[string]any{"userId": "bob"}); status != http.StatusInternalServerError ||
			field(out, "type") != "TaskAlreadyClaimedException" {
			t.Errorf("second claim: %d %v", status, out)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/assignee", map[string]any{"userId": "bob"})
		if got := field(a.ok(http.StatusOK, "GET", "/task/"+task, nil), "assignee"); got != "bob" {
			t.Errorf("assignee %v", got)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/task/count?assignee=bob", nil), "count"); n != float64(1) {
			t.Errorf("tasks of bob: %v", n)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{"variables": map[string]any{"ok": map[string]any{"value": true, "type": "Boolean"}}})
		a.ok(http.StatusNotFound, "POST", "/task/"+task+"/complete", map[string]any{})

		jobs, _ := a.ok(http.StatusOK, "GET", "/job?processInstanceId="+pi, nil).([]any)
		if len(jobs) != 1 || field(jobs[0], "retries") != float64(3) {
			t.Fatalf("jobs %v", jobs)
		}
		job := field(jobs[0], "id").(string)
		for range 3 {
			if status, out := a.call("POST", "/job/"+job+"/execute", nil); status != http.StatusInternalServerError ||
				!strings.Contains(fmt.Sprint(field(out, "message")), "card declined") {
				t.Fatalf("execute a failing job: %d %v", status, out)
			}
		}
		got := a.ok(http.StatusOK, "GET", "/job/"+job, nil)
		if field(got, "retries") != float64(0) || !strings.Contains(fmt.Sprint(field(got, "exceptionMessage")), "card declined") {
			t.Errorf("job %v", got)
		}
		incidents, _ := a.ok(http.StatusOK, "GET", "/incident?processInstanceId="+pi, nil).([]any)
		if len(incidents) != 1 || field(incidents[0], "incidentType") != "failedJob" || field(incidents[0], "configuration") != job ||
			field(incidents[0], "activityId") != "charge" {
			t.Fatalf("incidents %v", incidents)
		}
		a.ok(http.StatusNoContent, "PUT", "/job/"+job+"/retries", map[string]any{"retries": 1})
		if incidents, _ := a.ok(http.StatusOK, "GET", "/incident?processInstanceId="+pi, nil).([]any); len(incidents) != 0 {
			t.Errorf("incidents after set retries: %v", incidents)
		}
		a.ok(http.StatusNotFound, "PUT", "/job/nope/retries", map[string]any{"retries": 1})
		a.ok(http.StatusNotFound, "GET", "/job/nope", nil)

		hist, _ := a.ok(http.StatusOK, "GET", "/history/process-instance?processInstanceId="+pi, nil).([]any)
		if len(hist) != 1 || field(hist[0], "state") != "ACTIVE" || field(hist[0], "endTime") != nil || field(hist[0], "startActivityId") != "start" {
			t.Errorf("history %v", hist)
		}
		acts, _ := a.ok(http.StatusOK, "GET", "/history/activity-instance?processInstanceId="+pi+"&activityId=check", nil).([]any)
		if len(acts) != 1 || field(acts[0], "endTime") == nil || field(acts[0], "durationInMillis") == nil || field(acts[0], "activityType") != "userTask" {
			t.Errorf("activity history %v", acts)
		}
	})
}

const datedTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="dated" isExecutable="true" camunda:historyTimeToLive="30">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="sign"/>
    <userTask id="sign" camunda:dueDate="${due}" camunda:followUpDate="2030-01-01T00:00:00Z" camunda:priority="${prio}" camunda:formKey="sign-form"/>
    <sequenceFlow id="f2" sourceRef="sign" targetRef="charge"/>
    <serviceTask id="charge" camunda:asyncBefore="true" camunda:class="boom"/>
    <sequenceFlow id="f3" sourceRef="charge" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// Task filters by dates and priority, user tasks and incidents in history,
// and scheduling the history cleanup, as Camunda's REST API has them.
func TestRESTTaskDatesAndHistory(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("card declined")
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("dated", map[string]string{"dated.bpmn": datedTask}))
		start := func(due string, prio int) string {
			vars := map[string]any{"due": map[string]any{"value": due, "type": "String"}, "prio": map[string]any{"value": prio, "type": "Integer"}}
			return field(a.ok(http.StatusOK, "POST", "/process-definition/key/dated/start", map[string]any{"variables": vars}), "id").(string)
		}
		early, late := start("2029-01-01T00:00:00Z", 80), start("2031-01-01T00:00:00Z", 10)
		count := func(query string) any {
			return field(a.ok(http.StatusOK, "GET", "/task/count?"+query, nil), "count")
		}
		for query, want := range map[string]float64{
			"dueBefore=2030-01-01T00:00:00.000%2B0000": 1,
			"dueAfter=2030-01-01T00:00:00.000%2B0000":  1,
			"followUpBefore=2030-01-02T00:00:00.000Z":  2,
			"minPriority=50":      1,
			"maxPriority=50":      1,
			"priority=10":         1,
			"withoutDueDate=true": 0,
		} {
			if got := count(query); got != want {
				t.Errorf("%s: %v tasks, want %v", query, got, want)
			}
		}
		if status, out := a.call("GET", "/task?dueBefore=tomorrow", nil); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), "dueBefore") {
			t.Errorf("a bad date: %d %v", status, out)
		}
		tasks, _ := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+early, nil).([]any)
		if len(tasks) != 1 || field(tasks[0], "due") != "2029-01-01T00:00:00.000+0000" || field(tasks[0], "followUp") != "2030-01-01T00:00:00.000+0000" ||
			field(tasks[0], "formKey") != "sign-form" || field(tasks[0], "priority") != float64(80) {
			t.Fatalf("task %v", tasks)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+field(tasks[0], "id").(string)+"/complete", map[string]any{})

		hist, _ := a.ok(http.StatusOK, "GET", "/history/task?processInstanceId="+early, nil).([]any)
		if len(hist) != 1 || field(hist[0], "deleteReason") != "completed" || field(hist[0], "endTime") == nil || field(hist[0], "duration") == nil {
			t.Fatalf("historic task %v", hist)
		}
		if open, _ := a.ok(http.StatusOK, "GET", "/history/task?unfinished=true&processInstanceId="+late, nil).([]any); len(open) != 1 {
			t.Fatalf("unfinished %v", open)
		}

		jobs, _ := a.ok(http.StatusOK, "GET", "/job?processInstanceId="+early, nil).([]any)
		job := field(jobs[0], "id").(string)
		for range 3 {
			a.call("POST", "/job/"+job+"/execute", nil)
		}
		incidents, _ := a.ok(http.StatusOK, "GET", "/history/incident?open=true&processInstanceId="+early, nil).([]any)
		if len(incidents) != 1 || field(incidents[0], "open") != true || field(incidents[0], "incidentMessage") != "card declined" || field(incidents[0], "endTime") != nil {
			t.Fatalf("open incidents in history %v", incidents)
		}
		a.ok(http.StatusNoContent, "PUT", "/job/"+job+"/retries", map[string]any{"retries": 1})
		resolved, _ := a.ok(http.StatusOK, "GET", "/history/incident?resolved=true&processInstanceId="+early, nil).([]any)
		if len(resolved) != 1 || field(resolved[0], "resolved") != true || field(resolved[0], "endTime") == nil {
			t.Fatalf("resolved incidents in history %v", resolved)
		}

		cleanup := a.ok(http.StatusOK, "POST", "/history/cleanup", nil)
		if field(cleanup, "id") != bpmnlite.HistoryCleanupJobID || field(cleanup, "dueDate") == nil {
			t.Fatalf("history cleanup job %v", cleanup)
		}
	})
}

// POST /condition starts the processes whose conditional start event's
// condition holds, answering their instances as Camunda does; with none
// deployed it is a 400; a condition on a variable not given is false.
func TestRESTCondition(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		body := map[string]any{"variables": map[string]any{"amount": map[string]any{"value": 500, "type": "Integer"}}, "businessKey": "b-1"}
		if status, out := a.call("POST", "/condition", body); status != http.StatusBadRequest ||
			!strings.Contains(fmt.Sprint(field(out, "message")), "No subscriptions were found") {
			t.Fatalf("nothing deployed: %d %v, want 400", status, out)
		}
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("onLarge", map[string]string{"large.bpmn": `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="large" isExecutable="true">
    <startEvent id="start"><conditionalEventDefinition><condition>${amount > 100}</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" />
  </process>
</definitions>`}))
		out, _ := a.ok(http.StatusOK, "POST", "/condition", body).([]any)
		if len(out) != 1 || field(out[0], "businessKey") != "b-1" || field(out[0], "ended") != false || field(out[0], "id") == "" {
			t.Fatalf("started %v, want one instance of large", out)
		}
		body["variables"] = map[string]any{"amount": map[string]any{"value": 5, "type": "Integer"}}
		if out, _ := a.ok(http.StatusOK, "POST", "/condition", body).([]any); len(out) != 0 {
			t.Fatalf("a false condition started %v", out)
		}
		// As Camunda: a condition on a variable not given does not hold.
		body["variables"] = map[string]any{"other": map[string]any{"value": 5, "type": "Integer"}}
		if out, _ := a.ok(http.StatusOK, "POST", "/condition", body).([]any); len(out) != 0 {
			t.Fatalf("a condition on a missing variable started %v", out)
		}
	})
}

var update = flag.Bool("update", false, "rewrite rest/testdata/golden.txt")

const goldenFile = "testdata/golden.txt"

// TestRESTGolden pins every resource's wire format byte for byte: the
// bodies of a scenario's requests, ids and the varying instants masked,
// against rest/testdata/golden.txt (go test ./rest -run Golden -update
// rewrites it). The clock stands still between the steps.
func TestRESTGolden(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Date(2025, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			step := func() { mu.Lock(); now = now.Add(time.Second); mu.Unlock() }
			eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{
				Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema},
				History:  bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull},
				Logger:   slog.New(slog.DiscardHandler),
				Clock:    clock,
			})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(rest.New(eng, rest.Options{}))
			t.Cleanup(func() {
				eng.AnswerWaitingFetches()
				srv.Close()
				_ = eng.Close()
			})
			eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
				return errors.New("card <declined> & \"refused\"")
			}))
			base := srv.URL + "/engine-rest"
			var out bytes.Buffer
			raw := func(method, path string, body io.Reader, contentType string) []byte {
				t.Helper()
				req, err := http.NewRequestWithContext(t.Context(), method, base+path, body)
				if err != nil {
					t.Fatal(err)
				}
				if body != nil {
					req.Header.Set("Content-Type", contentType)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				fmt.Fprintf(&out, "%s %s\n%d %s\n%s\n", method, path, resp.StatusCode, resp.Header.Get("Content-Type"), got)
				step()
				return got
			}
			call := func(method, path string, body any) any {
				t.Helper()
				var rd io.Reader
				if body != nil {
					j, _ := json.Marshal(body)
					rd = bytes.NewReader(j)
				}
				var v any
				_ = json.Unmarshal(raw(method, path, rd, "application/json"), &v)
				return v
			}
			gets := func(paths ...string) {
				for _, p := range paths {
					call("GET", p, nil)
				}
			}
			deploy := func(name, file, xml string) {
				d := deployment(name, map[string]string{file: xml})
				raw("POST", "/deployment/create", d.buf, d.contentType)
			}
			deploy("dated", "dated.bpmn", datedTask)
			deploy("dated", "dated.bpmn", datedTask) // unchanged: no definitions
			deploy("billing", "charge.bpmn", oneExternalTask)
			gets("/deployment", "/process-definition", "/process-definition?key=charge&latestVersion=true")
			vars := map[string]any{"due": map[string]any{"value": "2029-01-01T00:00:00Z", "type": "String"}, "prio": map[string]any{"value": 80, "type": "Integer"}}
			dated := field(call("POST", "/process-definition/key/dated/start", map[string]any{"variables": vars, "businessKey": "order-1"}), "id").(string)
			vars["due"] = map[string]any{"value": "2031-01-01T00:00:00Z", "type": "String"}
			late := field(call("POST", "/process-definition/key/dated/start", map[string]any{"variables": vars, "withVariablesInReturn": true}), "id").(string)
			charge := field(call("POST", "/process-definition/key/charge/start", map[string]any{"businessKey": "bk"}), "id").(string)
			gets("/process-instance", "/process-instance?businessKey=order-1", "/process-instance?processInstanceIds="+late, "/process-instance/count", "/process-instance/"+dated, "/process-instance?firstResult=10")

			tasks, _ := call("GET", "/task", nil).([]any)
			task := field(tasks[0], "id").(string)
			call("POST", "/task/"+task+"/claim", map[string]any{"userId": "ann"})
			gets("/task/"+task, "/task?assignee=ann&dueBefore=2030-01-01T00:00:00.000%2B0000&minPriority=1&maxPriority=100&priority=80", "/task/count?candidateGroup=x", "/task?dueBefore=tomorrow", "/task?priority=high", "/task?firstResult=10")
			call("POST", "/task/"+task+"/complete", map[string]any{})

			gets("/external-task", "/external-task?locked=true", "/external-task?locked=maybe", "/external-task/count?topicName=charge&notLocked=true")
			call("POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w1", "maxTasks": 5,
				"topics": []any{map[string]any{"topicName": "charge", "lockDuration": 60000}}})
			ets, _ := call("GET", "/external-task?workerId=w1&processInstanceId="+charge, nil).([]any)
			et := field(ets[0], "id").(string)
			call("POST", "/external-task/"+et+"/failure", map[string]any{"workerId": "w1", "errorMessage": "down", "errorDetails": "trace", "retries": 0})
			gets("/external-task/"+et, "/external-task?noRetriesLeft=true&firstResult=10")

			jobs, _ := call("GET", "/job?processInstanceId="+dated, nil).([]any)
			job := field(jobs[0], "id").(string)
			for range 3 {
				call("POST", "/job/"+job+"/execute", nil)
			}
			gets("/job/"+job, "/job?withException=true&noRetriesLeft=true&messages=true", "/job/count?timers=true", "/job?executable=true&firstResult=10", "/incident", "/incident?incidentType=failedJob&firstResult=10", "/history/incident?open=true")
			call("PUT", "/job/"+job+"/retries", map[string]any{"retries": 1})
			call("GET", "/history/incident?resolved=true&processInstanceId="+dated, nil)

			gets("/history/process-instance", "/history/process-instance?unfinished=true&processDefinitionKey=dated")
			call("DELETE", "/process-instance/"+late+"?deleteReason=gone", nil)
			gets("/history/process-instance?finished=true", "/history/process-instance?state=ACTIVE&firstResult=10", "/history/activity-instance?processInstanceId="+dated, "/history/activity-instance?processInstanceId="+late+"&activityId=sign", "/history/task", "/history/task?finished=true&taskDeleteReason=completed&taskAssignee=ann")
			call("POST", "/history/cleanup", nil)
			deploy("onLarge", "large.bpmn", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="large" isExecutable="true">
    <startEvent id="start"><conditionalEventDefinition><condition>${amount > 100}</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="end" /><endEvent id="end" />
  </process>
</definitions>`)
			call("POST", "/condition", map[string]any{"variables": map[string]any{"amount": map[string]any{"value": 500, "type": "Integer"}}, "businessKey": "b-1"})

			got := mask(out.String())
			if *update {
				if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenFile)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := range max(len(gl), len(wl)) {
					g, w := "", ""
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s", goldenFile, i+1, g, w)
					}
				}
			}
		})
	}
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// mask numbers the ids in the order they first appear.
func mask(s string) string {
	seen := map[string]string{}
	return uuidPattern.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := seen[id]; !ok {
			seen[id] = "<id" + strconv.Itoa(len(seen)+1) + ">"
		}
		return seen[id]
	})
}

// A malformed query parameter is a 400 naming it, whatever the resource:
// one parser reads them all from the query types' tags.
func TestRESTMalformedParameters(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		for path, param := range map[string]string{
			"/job?withException=yes":              "withException",
			"/job/count?timers=2":                 "timers",
			"/history/task?finished=perhaps":      "finished",
			"/history/incident?open=x":            "open",
			"/history/process-instance?finished=": "",
			"/process-definition?latestVersion=y": "latestVersion",
			"/task?maxPriority=1.5":               "maxPriority",
			"/external-task?active=no":            "active",
		} {
			status, out := a.call("GET", path, nil)
			switch {
			case param == "" && status != http.StatusOK:
				t.Errorf("%s: %d %v, want 200 (an empty parameter is no parameter)", path, status, out)
			case param != "" && (status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), param)):
				t.Errorf("%s: %d %v, want 400 naming %s", path, status, out, param)
			}
		}
	})
}
