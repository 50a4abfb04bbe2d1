package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// Version is the Camunda REST API version this server follows.
const Version = "7.20.0"

// routes registers every resource; each lives in a file of its own, named
// as Camunda's REST services are (deployment.go, task.go, job.go, ...).
func (h *Handler) routes() {
	h.handle("GET /version", func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
		return nil
	})
	h.engineRoutes()
	h.deploymentRoutes()
	h.definitionRoutes()
	h.instanceRoutes()
	h.modificationRoutes()
	h.messageRoutes()
	h.signalRoutes()
	h.conditionRoutes()
	h.taskRoutes()
	h.externalTaskRoutes()
	h.jobRoutes()
	h.jobDefinitionRoutes()
	h.incidentRoutes()
	h.executionRoutes()
	h.eventSubscriptionRoutes()
	h.historyRoutes()
	h.decisionRoutes()
	h.variableRoutes()
	h.variableInstanceRoutes()
	h.metricsRoutes()
	h.migrationRoutes()
	h.batchRoutes()
	h.changesAsyncRoutes()
	h.openAPIRoute()
	h.mux.HandleFunc("/", h.notServed)
}

func isNotFound(err error) bool { return errors.Is(err, bpmnlite.ErrNotFound) }

// listRoutes registers GET path: the rows list finds for the query the
// request's parameters make of base (bound by their key tags, see
// bindQuery), paged and sorted in the database, in shape s; and GET
// path/count: how many rows the query selects. Where Camunda has them, the
// POST forms too: the same parameters as a JSON body (lists as arrays,
// sorting as "sorting": [{"sortBy", "sortOrder"}]), paging in the query.
func listRoutes[Q, T any](h *Handler, path, key string, base Q, list func(context.Context, Q) ([]*T, error), s listJSON[T]) {
	accepts := queryParams(reflect.TypeFor[Q](), key)
	getOp := camundaAPI[opKey("GET", path)]
	read := func(r *http.Request) (Q, error) {
		q, params := base, r.URL.Query()
		if r.Method == http.MethodPost {
			body, err := readQueryBody(r, getOp, accepts)
			if err != nil {
				return q, err
			}
			for k, v := range body {
				params[k] = v
			}
		}
		return q, bindQuery(params, &q, key, getOp)
	}
	rows := func(w http.ResponseWriter, r *http.Request) error {
		q, err := read(r)
		if err != nil {
			return err
		}
		var rows []*T
		if r.URL.Query().Get("maxResults") != "0" { // 0 rows asked for, as Camunda's listPage(first, 0)
			if rows, err = list(r.Context(), q); err != nil {
				return err
			}
		}
		writeJSON(w, http.StatusOK, s.list(rows))
		return nil
	}
	count := func(w http.ResponseWriter, r *http.Request) error {
		q, err := read(r)
		if err != nil {
			return err
		}
		n, err := h.eng.Count(r.Context(), q)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": n})
		return nil
	}
	h.handle("GET "+path, rows, accepts...)
	h.handle("GET "+path+"/count", count, accepts...)
	if postOp := camundaAPI[opKey("POST", path)]; postOp != nil {
		// Its query parameters: paging, and those of accepts it documents
		// (deserializeValues).
		postAccepts := []string{"firstResult", "maxResults"}
		for _, p := range accepts {
			if postOp.params[p] && !slices.Contains(pageParams, p) {
				postAccepts = append(postAccepts, p)
			}
		}
		h.handle("POST "+path, rows, postAccepts...)
		h.handle("POST "+path+"/count", count)
	}
}

// readQueryBody is the JSON body of a POST query as query parameters:
// strings, numbers and booleans as written, arrays of them joined by
// commas, sorting as sortBy and sortOrder pairs, other values (arrays of
// objects such as variables) as their JSON text. A member Camunda
// documents (as its GET form's parameter, op) that accepts lacks is a 400.
func readQueryBody(r *http.Request, op *camundaOp, accepts []string) (url.Values, error) {
	var body map[string]json.RawMessage
	if err := readJSON(r, &body); err != nil {
		return nil, err
	}
	return jsonQuery(body, op, accepts)
}

// jsonQuery is a JSON query object (a POST query's body, or a query a
// body member holds) as query parameters: see readQueryBody.
func jsonQuery(body map[string]json.RawMessage, op *camundaOp, accepts []string) (url.Values, error) {
	out := url.Values{}
	for name, raw := range body {
		if string(raw) == "null" {
			continue
		}
		if name == "sorting" {
			var sorting []struct{ SortBy, SortOrder string }
			if err := json.Unmarshal(raw, &sorting); err != nil {
				return nil, badRequest("sorting: want an array of {\"sortBy\": ..., \"sortOrder\": ...}: %v", err)
			}
			for _, s := range sorting {
				out.Add("sortBy", s.SortBy)
				out.Add("sortOrder", s.SortOrder)
			}
			continue
		}
		// orQueries: Camunda's alternatives of a task or history query,
		// which bpmnlite's queries do not have.
		if op != nil && op.params[name] && !slices.Contains(accepts, name) || slices.Contains(pageParams, name) || name == "orQueries" {
			return nil, badRequest("bpmnlite does not support the member %s of a POST query (Camunda's REST API has it; bpmnlite refuses it rather than ignore it)", name)
		}
		out.Set(name, queryValue(raw))
	}
	return out, nil
}

// queryValue is a JSON value as a query parameter's text.
func queryValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		texts := make([]string, len(list))
		for i, x := range list {
			switch x := x.(type) {
			case string:
				texts[i] = x
			case float64, bool:
				texts[i] = fmt.Sprint(x)
			default:
				return string(raw) // objects: the JSON itself
			}
		}
		return strings.Join(texts, ",")
	}
	return string(raw) // numbers, booleans, objects
}

// byIDRoute registers GET path/{id}: the row find gives for the id, in
// shape s, or a 404 with the message missing makes.
func byIDRoute[T any](h *Handler, path string, find func(ctx context.Context, id string) ([]*T, error), s shape[T], missing func(id string) string) {
	h.handle("GET "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		all, err := find(r.Context(), r.PathValue("id"))
		x, err := first(all, err, missing(r.PathValue("id")))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, s.of(x))
		return nil
	})
}

// first is the first of rows, or err, or a 404 with message missing when
// there are none.
func first[T any](rows []*T, err error, missing string) (*T, error) {
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &notFound{missing}
	}
	return rows[0], nil
}
