package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/rest"
)

// GET /engine names the one engine; every path is served under
// /engine/default too, and another engine's name is refused as Camunda
// refuses it.
func TestRESTEnginePrefix(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		engines := a.ok(http.StatusOK, "GET", "/engine", nil).([]any)
		if len(engines) != 1 || field(engines[0], "name") != "default" {
			t.Errorf("GET /engine: %v", engines)
		}
		a.ok(http.StatusOK, "POST", "/engine/default/deployment/create", deployment("review", map[string]string{"review.bpmn": reviewThenCharge}))
		if defs := a.ok(http.StatusOK, "GET", "/engine/default/process-definition?key=review", nil).([]any); len(defs) != 1 {
			t.Errorf("definitions under /engine/default: %v", defs)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/process-definition/count", nil), "count"); n != float64(1) {
			t.Errorf("count without the prefix: %v", n)
		}
		status, out := a.call("GET", "/engine/other/process-definition", nil)
		if status != http.StatusBadRequest || field(out, "message") != "No process engine available" {
			t.Errorf("another engine: %d %v", status, out)
		}
	})
}

// A Camunda operation bpmnlite does not serve answers 501 saying why; a
// path Camunda does not have either answers 404.
func TestRESTNotServed(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		for path, why := range map[string]string{
			"GET /user":                            "identity and authorization are out of scope",
			"POST /authorization/create":           "identity and authorization are out of scope",
			"GET /case-definition":                 "CMMN is not supported",
			"POST /history/batch/set-removal-time": "does not serve it yet",
		} {
			method, p, _ := strings.Cut(path, " ")
			status, out := a.call(method, strings.ReplaceAll(p, "{x}", "some-id"), nil)
			if msg := fmt.Sprint(field(out, "message")); status != http.StatusNotImplemented || !strings.Contains(msg, why) || field(out, "type") != "RestException" {
				t.Errorf("%s: %d %v, want 501 saying %q", path, status, out, why)
			}
		}
		if status, out := a.call("GET", "/no-such-thing", nil); status != http.StatusNotFound {
			t.Errorf("unknown path: %d %v, want 404", status, out)
		}
	})
}

// The OpenAPI document lists exactly the operations served, each with the
// query parameters it honours.
func TestRESTOpenAPI(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		doc := a.ok(http.StatusOK, "GET", "/openapi.json", nil)
		if field(doc, "openapi") != "3.0.3" {
			t.Fatalf("openapi version %v", field(doc, "openapi"))
		}
		paths := field(doc, "paths").(map[string]any)
		documented := 0
		for _, ops := range paths {
			documented += len(ops.(map[string]any))
		}
		routes := rest.ServedRoutes(rest.New(a.eng, rest.Options{}))
		if documented != len(routes) {
			t.Errorf("%d operations documented, %d served", documented, len(routes))
		}
		for _, r := range routes {
			op, ok := field(paths, r.Path, strings.ToLower(r.Method)).(map[string]any)
			if !ok {
				t.Errorf("%s %s served but not in the OpenAPI document", r.Method, r.Path)
				continue
			}
			var query []string
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				if field(p, "in") == "query" {
					query = append(query, field(p, "name").(string))
				}
			}
			if strings.Join(query, ",") != strings.Join(r.Accepted, ",") {
				t.Errorf("%s %s: documented query parameters %v, honoured %v", r.Method, r.Path, query, r.Accepted)
			}
		}
	})
}

// A JSON body member Camunda documents for an operation and bpmnlite does
// not honour is a 400 naming it; one Camunda does not know is ignored, as
// Camunda ignores it; one Camunda takes and ignores is taken. (A failure's
// variables, once ignored, are set as Camunda sets them.)
func TestRESTBodyMembers(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("charge", map[string]string{"charge.bpmn": oneExternalTask}))
		a.ok(http.StatusOK, "POST", "/process-definition/key/charge/start", map[string]any{})
		locked := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{
			"workerId": "w", "maxTasks": 1, "topics": []any{map[string]any{"topicName": "charge", "lockDuration": 60000}},
		}).([]any)
		task := field(locked[0], "id").(string)
		failure := map[string]any{"workerId": "w", "errorMessage": "down", "retries": 1, "retryTimeout": 0,
			"variables": map[string]any{"x": map[string]any{"value": 1, "type": "Integer"}}, "unknownToCamunda": true}
		a.ok(http.StatusNoContent, "POST", "/external-task/"+task+"/failure", failure)
		pi := field(locked[0], "processInstanceId").(string)
		if x := field(a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/x", nil), "value"); x != float64(1) {
			t.Errorf("a failure's variables: x = %v, want 1", x)
		}
		status, out := a.call("POST", "/condition", map[string]any{"variables": map[string]any{}, "tenantId": "acme"})
		if msg := fmt.Sprint(field(out, "message")); status != http.StatusBadRequest || !strings.Contains(msg, "member tenantId") {
			t.Errorf("condition with tenantId: %d %v, want 400 naming tenantId", status, out)
		}
		a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": "standalone", "name": "Call back"})
		got := a.ok(http.StatusOK, "GET", "/task/standalone", nil).(map[string]any)
		got["name"] = "Call back later"
		a.ok(http.StatusNoContent, "PUT", "/task/standalone", got) // the task as it came, read-only members and all
		if name := field(a.ok(http.StatusOK, "GET", "/task/standalone", nil), "name"); name != "Call back later" {
			t.Errorf("task after the update: %v", name)
		}
	})
}
