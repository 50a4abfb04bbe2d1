package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

const approval = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="approval" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="approve"/>
    <userTask id="approve"/><sequenceFlow id="f2" sourceRef="approve" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// startApproval deploys approval (once) and starts it: the instance and
// its task.
func startApproval(t *testing.T, a *api) (pi, task string) {
	t.Helper()
	a.ok(http.StatusOK, "POST", "/deployment/create", deployment("approval", map[string]string{"approval.bpmn": approval}))
	pi = field(a.ok(http.StatusOK, "POST", "/process-definition/key/approval/start", map[string]any{}), "id").(string)
	task = field(a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0], "id").(string)
	return pi, task
}

// Every Camunda value type round-trips with its valueInfo: put one by
// one, read back one by one and all together, the same on both backends.
func TestRESTVariableTypesRoundTrip(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, _ := startApproval(t, a)
		for _, c := range []struct {
			name string
			in   map[string]any // as sent
			want map[string]any // as read back
		}{
			{"s", map[string]any{"value": "text", "type": "String"}, nil},
			{"i", map[string]any{"value": 42, "type": "Integer"}, nil},
			{"sh", map[string]any{"value": 7, "type": "Short"}, nil},
			{"l", map[string]any{"value": 5, "type": "Long"}, nil},
			{"big", map[string]any{"value": int64(1) << 40, "type": "long"}, map[string]any{"value": float64(int64(1) << 40), "type": "Long"}},
			{"d", map[string]any{"value": 2.5, "type": "Double"}, nil},
			{"whole", map[string]any{"value": 3, "type": "Double"}, map[string]any{"value": float64(3), "type": "Double"}},
			{"b", map[string]any{"value": true, "type": "Boolean"}, nil},
			{"when", map[string]any{"value": "2026-01-25T13:33:42.000+0100", "type": "Date"},
				map[string]any{"value": "2026-01-25T12:33:42.000+0000", "type": "Date"}},
			{"raw", map[string]any{"value": "aGk=", "type": "Bytes"}, nil},
			{"file", map[string]any{"value": "aGk=", "type": "File", "valueInfo": map[string]any{"filename": "hi.txt", "mimeType": "text/plain", "encoding": "UTF-8"}},
				map[string]any{"value": nil, "type": "File", "valueInfo": map[string]any{"filename": "hi.txt", "mimeType": "text/plain", "encoding": "UTF-8"}}},
			{"doc", map[string]any{"value": `{"a":[true],"b":1.50}`, "type": "Json"}, nil}, // keys in order, numbers as written
			{"xml", map[string]any{"value": "<a>1</a>", "type": "Xml"}, nil},
			{"obj", map[string]any{"value": `{"id":7}`, "type": "Object", "valueInfo": map[string]any{"objectTypeName": "com.example.Order", "serializationDataFormat": "application/json"}},
				map[string]any{"value": map[string]any{"id": float64(7)}, "type": "Object", "valueInfo": map[string]any{"objectTypeName": "com.example.Order", "serializationDataFormat": "application/json"}}},
			{"none", map[string]any{"value": nil, "type": "Null"}, nil},
			{"nullString", map[string]any{"value": nil, "type": "String"}, nil},
		} {
			a.ok(http.StatusNoContent, "PUT", "/process-instance/"+pi+"/variables/"+c.name, c.in)
			want := c.want
			if want == nil {
				want = c.in
			}
			if want["valueInfo"] == nil {
				want["valueInfo"] = map[string]any{}
			}
			if want["value"] != nil {
				if n, ok := want["value"].(int); ok {
					want["value"] = float64(n)
				}
			}
			got := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/"+c.name, nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: read back %v, want %v", c.name, got, want)
			}
			if all := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil), c.name); !reflect.DeepEqual(all, want) {
				t.Errorf("%s in all variables: %v, want %v", c.name, all, want)
			}
		}
		// Serialized: an Object's document as text.
		if v := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/obj?deserializeValue=false", nil), "value"); v != `{"id":7}` {
			t.Errorf("Object serialized: %v", v)
		}
		if v := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables?deserializeValues=false", nil), "obj", "value"); v != `{"id":7}` {
			t.Errorf("Object serialized in all: %v", v)
		}
		if status, _ := a.call("GET", "/process-instance/"+pi+"/variables/obj?deserializeValue=maybe", nil); status != http.StatusBadRequest {
			t.Errorf("deserializeValue=maybe: %d, want 400", status)
		}
		// A transient variable is not stored.
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+pi+"/variables/tmp", map[string]any{"value": "x", "type": "String", "valueInfo": map[string]any{"transient": true}})
		if status, out := a.call("GET", "/process-instance/"+pi+"/variables/tmp", nil); status != http.StatusNotFound ||
			field(out, "message") != "process instance variable with name tmp does not exist" {
			t.Errorf("transient variable read back: %d %v, want 404", status, out)
		}
		// Changing a variable's type keeps its name, the new type wins.
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+pi+"/variables/sh", map[string]any{"value": "now text", "type": "String"})
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/sh", nil); field(v, "type") != "String" || field(v, "value") != "now text" {
			t.Errorf("retyped: %v", v)
		}
	})
}

// Values a declared type cannot hold, and values that cannot be stored,
// are a 400 naming the variable; nothing changes.
func TestRESTVariableBadValues(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, _ := startApproval(t, a)
		a.ok(http.StatusNoContent, "PUT", "/process-instance/"+pi+"/variables/kept", map[string]any{"value": 1, "type": "Short"})
		for name, v := range map[string]map[string]any{
			"nan":       {"value": "NaN", "type": "Double"},
			"nul":       {"value": "a\x00b", "type": "String"},
			"deep":      {"value": strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "type": "Json"},
			"short":     {"value": 70000, "type": "Short"},
			"int":       {"value": int64(1) << 40, "type": "Integer"},
			"notInt":    {"value": "abc", "type": "Integer"},
			"noName":    {"value": "aGk=", "type": "File"},
			"objNoText": {"value": map[string]any{"a": 1}, "type": "Object"},
			"objXML":    {"value": "<a/>", "type": "Object", "valueInfo": map[string]any{"serializationDataFormat": "application/xml"}},
			"notJSON":   {"value": "{", "type": "Json"},
			"kept":      {"value": "x", "type": "Rational"},
		} {
			status, out := a.call("PUT", "/process-instance/"+pi+"/variables/"+name, v)
			msg := fmt.Sprint(field(out, "message"))
			if status != http.StatusBadRequest || !strings.Contains(msg, name) {
				t.Errorf("PUT %s %v: %d %v, want 400 naming it", name, v, status, out)
			}
			status, out = a.call("POST", "/process-instance/"+pi+"/variables", map[string]any{"modifications": map[string]any{name: v, "other": map[string]any{"value": 1, "type": "Integer"}}})
			if msg := fmt.Sprint(field(out, "message")); status != http.StatusBadRequest || !strings.Contains(msg, name) {
				t.Errorf("POST modifications %s: %d %v, want 400 naming it", name, status, out)
			}
		}
		vars := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil).(map[string]any)
		if len(vars) != 1 || field(vars, "kept", "type") != "Short" {
			t.Errorf("variables after refused changes: %v, want only kept (Short)", vars)
		}
	})
}

// rawGet is GET path's status, content type, content disposition and body.
func rawGet(t *testing.T, a *api, path string) (int, string, string, string) {
	t.Helper()
	resp, err := http.Get(a.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), string(body)
}

// binaryVariable is a multipart body with a data part (file name and
// content type as given) and the other parts named.
func binaryVariable(data, filename, contentType string, parts ...string) multipartBody {
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	for i := 0; i+1 < len(parts); i += 2 {
		_ = w.WriteField(parts[i], parts[i+1])
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="data"; filename=%q`, filename))
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	pw, _ := w.CreatePart(h)
	_, _ = pw.Write([]byte(data))
	_ = w.Close()
	return multipartBody{buf, w.FormDataContentType()}
}

// Each owner's variables resource: read, modify with deletions, one by
// name, binary content; unknown owners and variables are 404s with
// Camunda's messages.
func TestRESTVariableResources(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApproval(t, a)
		for _, o := range []struct{ path, typeName, missing string }{
			{"/process-instance/" + pi + "/variables", "process instance", "execution nope doesn't exist"},
			{"/execution/" + pi + "/localVariables", "execution", "execution nope doesn't exist"},
			{"/task/" + task + "/variables", "task", "task nope doesn't exist"},
			{"/task/" + task + "/localVariables", "task", "task nope doesn't exist"},
		} {
			unknown := strings.Replace(strings.Replace(o.path, pi, "nope", 1), task, "nope", 1)
			if status, out := a.call("GET", unknown, nil); status != http.StatusNotFound || field(out, "message") != o.missing {
				t.Errorf("GET %s: %d %v, want 404 %q", unknown, status, out, o.missing)
			}
			if status, out := a.call("PUT", unknown+"/x", map[string]any{"value": 1, "type": "Integer"}); status != http.StatusNotFound ||
				!strings.Contains(fmt.Sprint(field(out, "message")), o.missing) {
				t.Errorf("PUT %s/x: %d %v, want 404", unknown, status, out)
			}
			if status, _ := a.call("POST", unknown, map[string]any{"modifications": map[string]any{}}); status != http.StatusNotFound {
				t.Errorf("POST %s: %d, want 404", unknown, status)
			}
			a.ok(http.StatusNoContent, "PUT", o.path+"/a", map[string]any{"value": "one", "type": "String"})
			a.ok(http.StatusNoContent, "POST", o.path, map[string]any{
				"modifications": map[string]any{"b": map[string]any{"value": 2, "type": "Integer"}, "a": map[string]any{"value": "uno", "type": "String"}},
				"deletions":     []string{"gone"},
			})
			all := a.ok(http.StatusOK, "GET", o.path, nil)
			if field(all, "a", "value") != "uno" || field(all, "b", "value") != float64(2) {
				t.Errorf("GET %s: %v", o.path, all)
			}
			a.ok(http.StatusNoContent, "POST", o.path, map[string]any{"deletions": []string{"a", "b"}})
			if status, out := a.call("GET", o.path+"/a", nil); status != http.StatusNotFound || field(out, "message") != o.typeName+" variable with name a does not exist" {
				t.Errorf("GET %s/a after deletion: %d %v", o.path, status, out)
			}
			a.ok(http.StatusNoContent, "PUT", o.path+"/c", map[string]any{"value": true, "type": "Boolean"})
			a.ok(http.StatusNoContent, "DELETE", o.path+"/c", nil)
			if status, _ := a.call("GET", o.path+"/c", nil); status != http.StatusNotFound {
				t.Errorf("GET %s/c after DELETE: %d, want 404", o.path, status)
			}
			// Binary content: Bytes by default, File with its file name and type.
			a.ok(http.StatusNoContent, "POST", o.path+"/blob/data", binaryVariable("\x00\x01bin", "b.bin", "application/octet-stream"))
			if status, typ, _, body := rawGet(t, a, o.path+"/blob/data"); status != http.StatusOK || typ != "application/octet-stream" || body != "\x00\x01bin" {
				t.Errorf("GET %s/blob/data: %d %q %q", o.path, status, typ, body)
			}
			if v := a.ok(http.StatusOK, "GET", o.path+"/blob", nil); field(v, "type") != "Bytes" {
				t.Errorf("binary variable: %v, want Bytes", v)
			}
			a.ok(http.StatusNoContent, "POST", o.path+"/doc/data", binaryVariable("hello", "hello.txt", "text/plain; encoding=UTF-8", "valueType", "File"))
			status, typ, disposition, body := rawGet(t, a, o.path+"/doc/data")
			if status != http.StatusOK || typ != "text/plain; charset=UTF-8" || body != "hello" || !strings.Contains(disposition, `filename=hello.txt`) {
				t.Errorf("GET %s/doc/data: %d %q %q %q", o.path, status, typ, disposition, body)
			}
			if v := a.ok(http.StatusOK, "GET", o.path+"/doc", nil); field(v, "type") != "File" || field(v, "valueInfo", "filename") != "hello.txt" || field(v, "valueInfo", "mimeType") != "text/plain" {
				t.Errorf("file variable: %v", v)
			}
			a.ok(http.StatusNoContent, "POST", o.path+"/order/data", binaryVariable(`{"id":1}`, "o.json", "application/json", "type", "com.example.Order"))
			if v := a.ok(http.StatusOK, "GET", o.path+"/order", nil); field(v, "type") != "Object" || field(v, "valueInfo", "objectTypeName") != "com.example.Order" {
				t.Errorf("object from binary: %v", v)
			}
			if status, out := a.call("POST", o.path+"/order/data", binaryVariable(`x`, "o.txt", "text/plain", "type", "com.example.Order")); status != http.StatusBadRequest ||
				!strings.Contains(fmt.Sprint(field(out, "message")), "Unrecognized content type") {
				t.Errorf("object from text: %d %v, want 400", status, out)
			}
			a.ok(http.StatusNoContent, "PUT", o.path+"/text", map[string]any{"value": "t", "type": "String"})
			if status, out := a.call("GET", o.path+"/text/data", nil); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), "is not a binary value") {
				t.Errorf("GET %s/text/data: %d %v, want 400", o.path, status, out)
			}
			if status, _ := a.call("GET", o.path+"/missing/data", nil); status != http.StatusNotFound {
				t.Errorf("GET %s/missing/data: %d, want 404", o.path, status)
			}
			a.ok(http.StatusNoContent, "POST", o.path, map[string]any{"deletions": []string{"blob", "doc", "order", "text"}})
		}
	})
}

// A task's local variables are its own: seen from the task, not from the
// instance, and gone when it completes (their history stays); a task's
// variables that are not local are the instance's.
func TestRESTTaskVariables(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApproval(t, a)
		a.ok(http.StatusNoContent, "PUT", "/task/"+task+"/localVariables/note", map[string]any{"value": "local", "type": "String"})
		a.ok(http.StatusNoContent, "PUT", "/task/"+task+"/variables/shared", map[string]any{"value": "global", "type": "String"})
		if v := a.ok(http.StatusOK, "GET", "/task/"+task+"/variables", nil); field(v, "note", "value") != "local" || field(v, "shared", "value") != "global" {
			t.Errorf("task variables: %v", v)
		}
		if v := a.ok(http.StatusOK, "GET", "/task/"+task+"/localVariables", nil).(map[string]any); len(v) != 1 || field(v, "note") == nil {
			t.Errorf("task local variables: %v, want note only", v)
		}
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil).(map[string]any); len(v) != 1 || field(v, "shared") == nil {
			t.Errorf("instance variables: %v, want shared only", v)
		}
		// The task's variables with the same name as the instance's: the local one hides it.
		a.ok(http.StatusNoContent, "PUT", "/task/"+task+"/localVariables/shared", map[string]any{"value": "mine", "type": "String"})
		if v := field(a.ok(http.StatusOK, "GET", "/task/"+task+"/variables/shared", nil), "value"); v != "mine" {
			t.Errorf("task variable shared: %v, want the local one", v)
		}
		form := a.ok(http.StatusOK, "GET", "/task/"+task+"/form-variables?variableNames=note", nil).(map[string]any)
		if len(form) != 1 || field(form, "note", "value") != "local" {
			t.Errorf("form variables: %v", form)
		}
		if status, _ := a.call("GET", "/task/nope/form-variables", nil); status != http.StatusNotFound {
			t.Errorf("form variables of an unknown task: %d, want 404", status)
		}
		local := a.ok(http.StatusOK, "GET", "/variable-instance?taskIdIn="+task, nil).([]any)
		if len(local) != 2 || field(local[0], "taskId") != task || field(local[0], "executionId") != pi {
			t.Errorf("task-local variable instances: %v", local)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		if n := field(a.ok(http.StatusOK, "GET", "/variable-instance/count?taskIdIn="+task, nil), "count"); n != float64(0) {
			t.Errorf("task-local variables after completion: %v, want 0", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/variable-instance/count?taskIdIn="+task, nil), "count"); n != float64(2) {
			t.Errorf("task-local variables' history after completion: %v, want 2", n)
		}
	})
}

// Variable instances and their history by id, with binary content, and
// history deleted; the instance's variables stay in history when it ends.
func TestRESTVariableInstances(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, task := startApproval(t, a)
		a.ok(http.StatusNoContent, "POST", "/process-instance/"+pi+"/variables", jsonBody(`{"modifications": {
			"amount": {"value": 5, "type": "Short"},
			"raw": {"value": "aGk=", "type": "Bytes"},
			"obj": {"value": "{\"id\": 1}", "type": "Object", "valueInfo": {"objectTypeName": "Order"}}}}`))
		rows := a.ok(http.StatusOK, "GET", "/variable-instance?processInstanceIdIn="+pi+"&sortBy=variableName&sortOrder=asc", nil).([]any)
		if len(rows) != 3 || field(rows[0], "name") != "amount" || field(rows[0], "type") != "Short" || field(rows[0], "activityInstanceId") != pi {
			t.Fatalf("variable instances: %v", rows)
		}
		id := field(rows[0], "id").(string)
		if v := a.ok(http.StatusOK, "GET", "/variable-instance/"+id, nil); field(v, "value") != float64(5) || field(v, "processDefinitionId") == nil {
			t.Errorf("variable instance: %v", v)
		}
		if status, out := a.call("GET", "/variable-instance/nope", nil); status != http.StatusNotFound || field(out, "message") != "Variable instance with Id 'nope' does not exist." {
			t.Errorf("unknown variable instance: %d %v", status, out)
		}
		if status, out := a.call("GET", "/variable-instance/"+id+"/data", nil); status != http.StatusBadRequest ||
			field(out, "message") != "Value of variable with id "+id+" is not a binary value." {
			t.Errorf("data of a Short: %d %v", status, out)
		}
		raw := field(rows[2], "id").(string)
		if status, _, _, body := rawGet(t, a, "/variable-instance/"+raw+"/data"); status != http.StatusOK || body != "hi" {
			t.Errorf("variable instance data: %d %q", status, body)
		}
		obj := a.ok(http.StatusOK, "POST", "/variable-instance?deserializeValues=false", map[string]any{"variableName": "obj"}).([]any)
		if len(obj) != 1 || field(obj[0], "value") != `{"id": 1}` || field(obj[0], "valueInfo", "serializationDataFormat") != "application/json" {
			t.Errorf("serialized object: %v", obj)
		}
		// Typed conditions in the POST form; the GET form compares strings.
		byValue := func(method, path string, body any) int {
			return len(a.ok(http.StatusOK, method, path, body).([]any))
		}
		if n := byValue("POST", "/variable-instance", jsonBody(`{"variableValues": [{"name": "amount", "operator": "lteq", "value": 5}]}`)); n != 1 {
			t.Errorf("POST variableValues amount <= 5: %d rows, want 1", n)
		}
		if n := byValue("GET", "/variable-instance?variableValues=amount_lteq_5", nil); n != 0 {
			t.Errorf("GET variableValues amount <= \"5\": %d rows, want 0 (a string is no number)", n)
		}
		if n := byValue("POST", "/process-instance", jsonBody(`{"variables": [{"name": "amount", "operator": "gt", "value": 4.5}]}`)); n != 1 {
			t.Errorf("POST /process-instance amount > 4.5: %d rows, want 1", n)
		}
		if n := byValue("POST", "/task", jsonBody(`{"processVariables": [{"name": "amount", "operator": "neq", "value": 5}]}`)); n != 0 {
			t.Errorf("POST /task amount != 5: %d rows, want 0", n)
		}
		for _, bad := range []string{"amount_between_5", "amount_eq", "a_b_c_d"} {
			if status, out := a.call("GET", "/process-instance?variables="+bad, nil); status != http.StatusBadRequest || field(out, "message") == nil {
				t.Errorf("variables=%s: %d %v, want 400", bad, status, out)
			}
		}
		if status, out := a.call("POST", "/task", jsonBody(`{"taskVariables": [{"name": "a", "operator": "gt", "value": true}]}`)); status != http.StatusBadRequest ||
			!strings.Contains(fmt.Sprint(field(out, "message")), "boolean") {
			t.Errorf("a boolean compared with gt: %d %v, want 400", status, out)
		}
		if status, out := a.call("GET", "/history/variable-instance?variableValue=5", nil); status != http.StatusBadRequest ||
			!strings.Contains(fmt.Sprint(field(out, "message")), "variable name and value are required") {
			t.Errorf("variableValue without variableName: %d %v, want 400", status, out)
		}
		// A removed variable's history stays, DELETED, listed on request.
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+pi+"/variables/obj", nil)
		if n := field(a.ok(http.StatusOK, "GET", "/history/variable-instance/count?variableName=obj", nil), "count"); n != float64(0) {
			t.Errorf("history of a removed variable, by default: %v, want none", n)
		}
		deleted := a.ok(http.StatusOK, "GET", "/history/variable-instance?variableName=obj&includeDeleted=true", nil).([]any)
		if len(deleted) != 1 || field(deleted[0], "state") != "DELETED" || field(deleted[0], "type") != "Object" {
			t.Errorf("history of a removed variable, includeDeleted: %v", deleted)
		}
		// The instance ends: its variables stay in history, with their types.
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		if n := field(a.ok(http.StatusOK, "GET", "/variable-instance/count?processInstanceIdIn="+pi, nil), "count"); n != float64(0) {
			t.Errorf("variable instances of an ended instance: %v", n)
		}
		hist := a.ok(http.StatusOK, "GET", "/history/variable-instance?processInstanceId="+pi+"&variableTypeIn=short", nil).([]any)
		if len(hist) != 1 || field(hist[0], "id") != id || field(hist[0], "type") != "Short" || field(hist[0], "processDefinitionKey") != "approval" || field(hist[0], "state") != "CREATED" {
			t.Fatalf("history of an ended instance's variable: %v", hist)
		}
		if v := a.ok(http.StatusOK, "GET", "/history/variable-instance/"+id, nil); field(v, "value") != float64(5) || field(v, "createTime") == nil {
			t.Errorf("historic variable instance: %v", v)
		}
		if status, _, _, body := rawGet(t, a, "/history/variable-instance/"+raw+"/data"); status != http.StatusOK || body != "hi" {
			t.Errorf("historic variable data: %d %q", status, body)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/variable-instance/"+id, nil)
		if status, out := a.call("DELETE", "/history/variable-instance/"+id, nil); status != http.StatusNotFound || field(out, "message") != "No historic variable instance found with id: "+id {
			t.Errorf("DELETE twice: %d %v", status, out)
		}
		if status, out := a.call("GET", "/history/variable-instance/"+id, nil); status != http.StatusNotFound ||
			field(out, "message") != "Historic variable instance with Id '"+id+"' does not exist." {
			t.Errorf("deleted historic variable: %d %v", status, out)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/process-instance/"+pi+"/variable-instances", nil)
		if n := field(a.ok(http.StatusOK, "GET", "/history/variable-instance/count?processInstanceId="+pi, nil), "count"); n != float64(0) {
			t.Errorf("variable history after deleting the instance's: %v", n)
		}
		if status, out := a.call("DELETE", "/history/process-instance/nope/variable-instances", nil); status != http.StatusNotFound ||
			field(out, "message") != "No historic process instance found with id: nope: instance is null" {
			t.Errorf("DELETE variable history of an unknown instance: %d %v", status, out)
		}
	})
}

// Concurrent changes of one variable: each succeeds or is a 409
// OptimisticLockingException, and the value is one of those written.
func TestRESTVariableConcurrentUpdates(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		pi, _ := startApproval(t, a)
		path := "/process-instance/" + pi + "/variables/amount"
		a.ok(http.StatusNoContent, "PUT", path, map[string]any{"value": 0, "type": "Integer"})
		const writers = 8
		statuses := make(chan string, writers)
		var wg sync.WaitGroup
		for i := 1; i <= writers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, out := a.call("PUT", path, map[string]any{"value": i, "type": "Integer"})
				statuses <- fmt.Sprint(status, " ", field(out, "type"))
			}()
		}
		wg.Wait()
		close(statuses)
		for s := range statuses {
			if s != "204 <nil>" && s != "409 OptimisticLockingException" {
				t.Errorf("concurrent PUT: %s, want 204 or 409 OptimisticLockingException", s)
			}
		}
		if v := field(a.ok(http.StatusOK, "GET", path, nil), "value").(float64); v < 1 || v > writers {
			t.Errorf("amount after concurrent PUTs: %v", v)
		}
	})
}

// A client reads typed variables as plain Go values.
func TestRESTDecodePlainVariables(t *testing.T) {
	got, err := rest.DecodePlainVariables(map[string]rest.TypedValue{
		"long":  {Value: json.RawMessage(`5`), Type: "Long"},
		"short": {Value: json.RawMessage(`"7"`), Type: "Short"},
		"xml":   {Value: json.RawMessage(`"<a/>"`), Type: "Xml"},
		"obj":   {Value: json.RawMessage(`"{\"id\":1}"`), Type: "Object", ValueInfo: map[string]any{"objectTypeName": "O"}},
		"file":  {Value: json.RawMessage(`"aGk="`), Type: "File", ValueInfo: map[string]any{"filename": "a", "transient": true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"long": int64(5), "short": int64(7), "xml": "<a/>", "obj": map[string]any{"id": json.Number("1")}, "file": bpmnlite.Transient([]byte("hi"))}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plain variables %#v, want %#v", got, want)
	}
}
