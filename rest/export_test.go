package rest

import "net/http"

// ServedRoute is an operation the handler serves, for the tests.
type ServedRoute struct {
	Method, Path string
	// Documented are the query parameters Camunda documents for it (nil
	// when Camunda has no such operation), Accepted those it honours.
	Documented map[string]bool
	SortBy     []string
	Accepted   []string
}

// ServedRoutes are the operations h (a *Handler) serves.
func ServedRoutes(h http.Handler) []ServedRoute {
	var out []ServedRoute
	for _, r := range h.(*Handler).served {
		sr := ServedRoute{Method: r.method, Path: r.path, Accepted: r.accepts}
		if r.op != nil {
			sr.Documented, sr.SortBy = r.op.params, r.op.sortBy
		}
		out = append(out, sr)
	}
	return out
}
