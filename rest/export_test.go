package rest

import (
	"net/http"
	"slices"
)

// ServedRoute is an operation the handler serves, for the tests.
type ServedRoute struct {
	Method, Path string
	// Documented are the query parameters Camunda documents for it (nil
	// when Camunda has no such operation), Accepted those it honours.
	Documented map[string]bool
	SortBy     []string
	Accepted   []string
	Body       map[string]bool // the members of its documented JSON body
}

// ServedRoutes are the operations h (a *Handler) serves.
func ServedRoutes(h http.Handler) []ServedRoute {
	var out []ServedRoute
	for _, r := range h.(*Handler).served {
		sr := ServedRoute{Method: r.method, Path: r.path, Accepted: r.accepts}
		if r.op != nil {
			sr.Documented, sr.SortBy, sr.Body = r.op.params, r.op.sortBy, r.op.body
		}
		out = append(out, sr)
	}
	return out
}

// OpKey names an operation as camunda_api.txt does.
func OpKey(method, path string) string { return opKey(method, path) }

// CamundaOperations are Camunda's operations, sorted.
func CamundaOperations() []string {
	var ops []string
	for op := range camundaAPI {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	return ops
}
