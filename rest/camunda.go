package rest

import (
	"context"
	_ "embed"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Camunda's REST reference, as data: camunda_api.txt lists every operation
// of Camunda 7's REST API with its query parameters (generated from
// Camunda's OpenAPI templates by internal/tools/camundaapi). The server
// refuses a documented parameter it does not honour, rather than ignore
// it and answer as if it had; the tests count coverage against it.

//go:embed camunda_api.txt
var camundaAPIText string

// camundaOp is one operation of Camunda's REST API.
type camundaOp struct {
	op     string          // "GET /task/{}": path parameters as {}
	params map[string]bool // its documented query parameters
	sortBy []string        // its documented sortBy values
	body   map[string]bool // the members of its documented JSON body
}

var camundaAPI = parseCamundaAPI(camundaAPIText)

func parseCamundaAPI(text string) map[string]*camundaOp {
	ops := map[string]*camundaOp{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		op := &camundaOp{op: opKey(f[0], f[1]), params: map[string]bool{}, body: map[string]bool{}}
		for _, p := range f[2:] {
			name, values, _ := strings.Cut(p, "=")
			if name == "body" {
				for _, m := range strings.Split(values, ",") {
					op.body[m] = true
				}
				continue
			}
			op.params[name] = true
			if name == "sortBy" && values != "" {
				op.sortBy = strings.Split(values, ",")
			}
		}
		ops[op.op] = op
	}
	return ops
}

var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// opKey names an operation the way camundaAPI does: path parameters as {}.
func opKey(method, path string) string {
	return method + " " + pathParam.ReplaceAllString(path, "{}")
}

// ignored is a member of a request body Camunda takes and does nothing
// with, so neither does bpmnlite (a field of this type accepts it).
type ignored = json.RawMessage

// opKeyType is the context key of the Camunda operation a request is for.
type opKeyType struct{}

// withOperation is r with op in its context, for readJSON.
func withOperation(r *http.Request, op *camundaOp) *http.Request {
	if op == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), opKeyType{}, op))
}

// refuseUnsupportedMembers is a 400 naming the first member of a JSON body
// that Camunda documents for the request's operation but v (the struct the
// handler decodes the body into) has no field for. Members Camunda does
// not know stay ignored, as Camunda ignores them; bodies decoded into maps
// are the handler's to check (POST queries).
func refuseUnsupportedMembers(r *http.Request, body []byte, v any) error {
	op, _ := r.Context().Value(opKeyType{}).(*camundaOp)
	t := reflect.TypeOf(v)
	if op == nil || len(op.body) == 0 || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return nil // not an object: the decoding reports it
	}
	fields := jsonFields(t.Elem())
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if op.body[name] && !fields[name] {
			return badRequest("bpmnlite does not support the member %s of %s (Camunda's REST API has it; bpmnlite refuses it rather than ignore it)",
				name, strings.Replace(op.op, "{}", "{id}", 1))
		}
	}
	return nil
}

// jsonFields are the JSON names of struct type t's fields, embedded
// structs' included.
func jsonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

// refuseUnsupported is a 400 naming the first query parameter of the
// request that Camunda documents for operation op but the handler does
// not honour (accepted); parameters Camunda does not know stay ignored,
// as Camunda ignores them.
func refuseUnsupported(op *camundaOp, query map[string][]string, accepted map[string]bool) error {
	if op == nil {
		return nil
	}
	for name := range query {
		if op.params[name] && !accepted[name] {
			return badRequest("bpmnlite does not support the query parameter %s of %s (Camunda's REST API has it; bpmnlite refuses it rather than ignore it)",
				name, strings.Replace(op.op, "{}", "{id}", 1))
		}
	}
	return nil
}
