package rest

import (
	_ "embed"
	"regexp"
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
}

var camundaAPI = parseCamundaAPI(camundaAPIText)

func parseCamundaAPI(text string) map[string]*camundaOp {
	ops := map[string]*camundaOp{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		op := &camundaOp{op: opKey(f[0], f[1]), params: map[string]bool{}}
		for _, p := range f[2:] {
			name, values, _ := strings.Cut(p, "=")
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
