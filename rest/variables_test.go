package rest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

// everyInput takes variables at each endpoint that has them: start, an
// external task (complete, BPMN error), a user task, a message, a signal;
// "whenGo" starts on POST /condition.
const everyInput = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <message id="m" name="m"/>
  <signal id="s" name="s"/>
  <process id="inputs" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
    <userTask id="task"/>
    <intermediateCatchEvent id="msg"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
    <intermediateCatchEvent id="sig"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
    <userTask id="wait"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="ext"/>
    <sequenceFlow id="f2" sourceRef="ext" targetRef="task"/>
    <sequenceFlow id="f3" sourceRef="task" targetRef="msg"/>
    <sequenceFlow id="f4" sourceRef="msg" targetRef="sig"/>
    <sequenceFlow id="f5" sourceRef="sig" targetRef="wait"/>
  </process>
  <process id="whenGo" isExecutable="true">
    <startEvent id="cstart"><conditionalEventDefinition><condition>${go == true}</condition></conditionalEventDefinition></startEvent>
    <userTask id="ctask"/>
    <sequenceFlow id="g1" sourceRef="cstart" targetRef="ctask"/>
  </process>
  <process id="nan" isExecutable="true">
    <startEvent id="nstart"/>
    <serviceTask id="setsNaN" camunda:class="setsNaN"/>
    <userTask id="ntask"/>
    <sequenceFlow id="h1" sourceRef="nstart" targetRef="setsNaN"/>
    <sequenceFlow id="h2" sourceRef="setsNaN" targetRef="ntask"/>
  </process>
</definitions>`

// Variables the engine cannot store, or that do not decode from Camunda's
// typed form, are the request's fault on every endpoint that takes
// variables: 400 InvalidRequestException naming the variable, and nothing
// changes. One a delegate sets is the model's: 500.
func TestRESTInvalidVariables(t *testing.T) {
	bad := map[string]map[string]any{
		"nan":      {"value": "NaN", "type": "Double"},
		"nul":      {"value": "a\x00b", "type": "String"},
		"deep":     {"value": strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "type": "Json"},
		"":         {"value": "x", "type": "String"},
		"notInt":   {"value": "abc", "type": "Integer"},
		"notBytes": {"value": "!!", "type": "Bytes"},
	}
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("setsNaN", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return ex.SetVariable("n", math.NaN())
		}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("inputs", map[string]string{"inputs.bpmn": everyInput}))
		refused := func(method, path string, body func(vars map[string]any) map[string]any) {
			t.Helper()
			for name, v := range bad {
				status, out := a.call(method, path, body(map[string]any{name: v, "go": map[string]any{"value": true, "type": "Boolean"}}))
				if status != http.StatusBadRequest || field(out, "type") != "InvalidRequestException" || !strings.Contains(fmt.Sprint(field(out, "message")), fmt.Sprintf("'%s'", name)) && !strings.Contains(fmt.Sprint(field(out, "message")), fmt.Sprintf("%q", name)) {
					t.Errorf("%s %s with %q: %d %v, want 400 InvalidRequestException naming it", method, path, name, status, out)
				}
			}
		}
		vars := func(key string) func(map[string]any) map[string]any {
			return func(v map[string]any) map[string]any { return map[string]any{key: v} }
		}
		refused("POST", "/process-definition/key/inputs/start", vars("variables"))
		huge := map[string]any{"variables": map[string]any{"huge": map[string]any{"value": strings.Repeat("x", 4<<20+1), "type": "String"}}}
		if status, out := a.call("POST", "/process-definition/key/inputs/start", huge); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), "limit of 4194304") {
			t.Errorf("a variable over MaxVariableBytes: %d %v, want 400 naming the limit", status, out)
		}
		refused("POST", "/condition", vars("variables"))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/inputs/start", map[string]any{}), "id").(string)
		refused("POST", "/process-instance/"+pi+"/variables", vars("modifications"))

		locked, _ := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{"workerId": "w", "maxTasks": 1,
			"topics": []any{map[string]any{"topicName": "t", "lockDuration": 60000}}}).([]any)
		if len(locked) != 1 {
			t.Fatalf("fetched %v", locked)
		}
		ext := "/external-task/" + field(locked[0], "id").(string)
		refused("POST", ext+"/complete", func(v map[string]any) map[string]any { return map[string]any{"workerId": "w", "variables": v} })
		refused("POST", ext+"/complete", func(v map[string]any) map[string]any { return map[string]any{"workerId": "w", "localVariables": v} })
		refused("POST", ext+"/bpmnError", func(v map[string]any) map[string]any {
			return map[string]any{"workerId": "w", "errorCode": "E", "variables": v}
		})
		a.ok(http.StatusNoContent, "POST", ext+"/complete", map[string]any{"workerId": "w"})

		tasks, err := a.eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("tasks %v, %v", tasks, err)
		}
		refused("POST", "/task/"+tasks[0].ID+"/complete", vars("variables"))
		a.ok(http.StatusNoContent, "POST", "/task/"+tasks[0].ID+"/complete", map[string]any{})
		refused("POST", "/message", func(v map[string]any) map[string]any {
			return map[string]any{"messageName": "m", "processVariables": v}
		})
		a.ok(http.StatusNoContent, "POST", "/message", map[string]any{"messageName": "m"})
		refused("POST", "/signal", func(v map[string]any) map[string]any { return map[string]any{"name": "s", "variables": v} })
		a.ok(http.StatusNoContent, "POST", "/signal", map[string]any{"name": "s"})

		if vs, err := a.eng.Variables(t.Context(), pi); err != nil || len(vs) != 0 {
			t.Errorf("variables %v (%v), want none: refused calls change nothing", vs, err)
		}
		if status, out := a.call("POST", "/process-definition/key/nan/start", map[string]any{}); status != http.StatusInternalServerError || !strings.Contains(fmt.Sprint(field(out, "message")), `variable "n"`) {
			t.Errorf("a delegate setting NaN: %d %v, want 500 naming the variable", status, out)
		}
	})
}

// zeros reads as n bytes of '0'; read counts what was read of it.
type zeros struct{ n, read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n-z.read)
	for i := range p[:k] {
		p[i] = '0'
	}
	z.read += k
	return int(k), nil
}

// A 100 MB body is refused at the request limit (16 MiB): unread when it
// says its length, and read no further than the limit when it does not.
func TestRESTHugeBodyIsRefusedUnread(t *testing.T) {
	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	h := rest.New(eng, rest.Options{Logger: slog.New(slog.DiscardHandler)})
	const size = 100 << 20
	for _, length := range []int64{size, -1} {
		body := &zeros{n: size}
		req := httptest.NewRequest("POST", "/engine-rest/process-definition/key/p/start",
			io.MultiReader(strings.NewReader(`{"variables":{"big":{"type":"String","value":"`), body, strings.NewReader(`"}}}`)))
		req.ContentLength = length
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "larger than 16777216 bytes") {
			t.Errorf("Content-Length %d: %d %s, want 413 naming the limit", length, rec.Code, rec.Body)
		}
		if length > 0 && body.read > 0 || body.read > 16<<20 {
			t.Errorf("Content-Length %d: read %d bytes of the variable, want none when the length is known, at most the limit otherwise", length, body.read)
		}
	}
}
