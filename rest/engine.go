package rest

import (
	"net/http"
	"strings"
)

// The engine resource, the named-engine prefix, and what bpmnlite leaves
// out of Camunda's API.

// EngineName is the name of the one engine a handler serves, as Camunda
// names its default engine.
const EngineName = "default"

// engineRoutes: GET /engine, the engines served.
func (h *Handler) engineRoutes() {
	h.handle("GET /engine", func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, []map[string]string{{"name": EngineName}})
		return nil
	})
}

// namedEngine rewrites a path under /engine/{name}/ to the same path of the
// default engine, as Camunda serves each resource under both. It reports
// false for another engine's name, answered as Camunda does.
func (h *Handler) namedEngine(w http.ResponseWriter, r *http.Request) bool {
	prefix := h.opt.BasePath + "/engine/"
	name, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, prefix), "/")
	if !strings.HasPrefix(r.URL.Path, prefix) || !ok {
		return true
	}
	if name != EngineName {
		writeError(w, http.StatusBadRequest, "InvalidRequestException", "No process engine available")
		return false
	}
	r.URL.Path = h.opt.BasePath + "/" + rest
	r.URL.RawPath = ""
	return true
}

// leftOut says why bpmnlite does not serve a Camunda operation, by the
// first path segment(s) that group it; "" for one not built yet.
var leftOut = []struct{ prefix, why string }{
	{"/user", "identity and authorization are out of scope: bpmnlite keeps no users, groups or tenants as entities"},
	{"/group", "identity and authorization are out of scope: bpmnlite keeps no users, groups or tenants as entities"},
	{"/tenant", "identity and authorization are out of scope: bpmnlite keeps no users, groups or tenants as entities (tenant ids on deployments are kept)"},
	{"/authorization", "identity and authorization are out of scope: bpmnlite has no authorizations"},
	{"/identity", "identity and authorization are out of scope: bpmnlite keeps no users or groups"},
	{"/filter", "task filters are saved queries of users, out of scope with identity"},
	{"/case-", "CMMN is not supported"},
	{"/history/case-", "CMMN is not supported"},
}

// notServed answers a request for a Camunda operation bpmnlite does not
// serve, or for a group it leaves out (CMMN is not in Camunda's OpenAPI
// reference), with 501 saying why; any other path with 404.
func (h *Handler) notServed(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, h.opt.BasePath)
	op := camundaOperation(r.Method, path)
	why := ""
	for _, l := range leftOut {
		if strings.HasPrefix(path, l.prefix) {
			why = l.why
			break
		}
	}
	switch {
	case op == "" && why == "":
		writeError(w, http.StatusNotFound, "NotFoundException", "no resource at "+r.Method+" "+r.URL.Path)
		return
	case op == "":
		op = r.Method + " " + path
	case why == "":
		why = "bpmnlite does not serve it yet"
	}
	writeError(w, http.StatusNotImplemented, "RestException", "bpmnlite does not implement "+op+" of Camunda's REST API: "+why)
}

// camundaOperation is the Camunda operation ("GET /task/{}") a request's
// method and path (below the base path) match, or "": of several, the one
// with the most literal segments (key/{} before {}/{}).
func camundaOperation(method, path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLiterals := "", -1
	for key := range camundaAPI {
		m, p, _ := strings.Cut(key, " ")
		if m != method {
			continue
		}
		want := strings.Split(strings.Trim(p, "/"), "/")
		if len(want) != len(segs) {
			continue
		}
		literals := 0
		for i, w := range want {
			switch {
			case w == segs[i]:
				literals++
			case w != "{}":
				literals = -1
			}
			if literals < 0 {
				break
			}
		}
		if literals > bestLiterals || literals == bestLiterals && key < best {
			best, bestLiterals = key, literals
		}
	}
	return best
}
