package rest

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The OpenAPI 3 document of what this server serves, made from the route
// table itself, so that it cannot drift from it: each operation with its
// path parameters and the query parameters it honours.

// openAPIRoute: GET /openapi.json.
func (h *Handler) openAPIRoute() {
	var once sync.Once
	var doc map[string]any
	h.handle("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) error {
		once.Do(func() { doc = h.openAPI() })
		writeJSON(w, http.StatusOK, doc)
		return nil
	})
}

var pathParamName = regexp.MustCompile(`\{([^}]*)\}`)

// integerParams are the query parameters whose values are numbers.
var integerParams = []string{"firstResult", "maxResults"}

func (h *Handler) openAPI() map[string]any {
	paths := map[string]map[string]any{}
	for _, rt := range h.served {
		var params []map[string]any
		for _, m := range pathParamName.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]string{"type": "string"}})
		}
		for _, q := range rt.accepts {
			typ := "string"
			if slices.Contains(integerParams, q) {
				typ = "integer"
			}
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]string{"type": typ}})
		}
		op := map[string]any{
			"operationId": operationID(rt.method, rt.path),
			"responses": map[string]any{
				"default": map[string]any{"description": "as Camunda 7's REST API answers; errors as {type, message, code}"},
			},
			"x-camunda": rt.op != nil,
		}
		if params != nil {
			op["parameters"] = params
		}
		if paths[rt.path] == nil {
			paths[rt.path] = map[string]any{}
		}
		paths[rt.path][strings.ToLower(rt.method)] = op
	}
	return map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{
			"title":       "bpmnlite REST API",
			"version":     Version,
			"description": "The operations of Camunda 7's REST API that bpmnlite serves (x-camunda), with the query parameters each honours; every path is also served under /engine/default.",
		},
		"servers": []map[string]string{{"url": h.opt.BasePath}},
		"paths":   paths,
	}
}

// operationID names an operation: its method and path in camel case
// (getTaskById for GET /task/{id}).
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '-' }) {
		if m := pathParamName.FindStringSubmatch(seg); m != nil {
			seg = "By" + strings.ToUpper(m[1][:1]) + m[1][1:]
		}
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}
