package rest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

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
	h.deploymentRoutes()
	h.definitionRoutes()
	h.instanceRoutes()
	h.messageRoutes()
	h.signalRoutes()
	h.conditionRoutes()
	h.taskRoutes()
	h.externalTaskRoutes()
	h.jobRoutes()
	h.incidentRoutes()
	h.historyRoutes()
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NotFoundException", "no resource at "+r.Method+" "+r.URL.Path)
	})
}

func isNotFound(err error) bool { return errors.Is(err, bpmnlite.ErrNotFound) }

// page applies firstResult and maxResults.
func page[T any](r *http.Request, all []T) []T {
	q := r.URL.Query()
	first, _ := strconv.Atoi(q.Get("firstResult"))
	if first < 0 || first >= len(all) {
		if first > 0 {
			return nil
		}
		first = 0
	}
	all = all[first:]
	if max, err := strconv.Atoi(q.Get("maxResults")); err == nil && max >= 0 && max < len(all) {
		all = all[:max]
	}
	return all
}

// rows reads the rows a list request asks for.
type rows[T any] func(r *http.Request) ([]*T, error)

// query is the rows run finds for a query like q, its fields set from the
// request's parameters that its tags name under key (see bindQuery).
func query[Q, T any](key string, q Q, run func(context.Context, Q) ([]*T, error)) rows[T] {
	return func(r *http.Request) ([]*T, error) {
		q := q
		if err := bindQuery(r.URL.Query(), &q, key); err != nil {
			return nil, err
		}
		return run(r.Context(), q)
	}
}

// listing says what a list resource has besides GET path.
type listing int

const (
	// withCount: GET path/count, how many rows there are.
	withCount listing = 1 << iota
	// nullPastEnd: a page past the end is null, not []. The job, task and
	// process instance lists have always answered so (Camunda answers
	// []); kept for the clients that have seen it.
	nullPastEnd
)

// listRoutes registers GET path: the page of rows asked for (firstResult,
// maxResults), in shape s; and what what adds.
func listRoutes[T any](h *Handler, path string, list rows[T], s shape[T], what listing) {
	h.handle("GET "+path, func(w http.ResponseWriter, r *http.Request) error {
		all, err := list(r)
		if err != nil {
			return err
		}
		out := page(r, all)
		if out == nil && what&nullPastEnd != 0 {
			writeJSON(w, http.StatusOK, nil)
			return nil
		}
		writeJSON(w, http.StatusOK, s.list(out))
		return nil
	})
	if what&withCount == 0 {
		return
	}
	h.handle("GET "+path+"/count", func(w http.ResponseWriter, r *http.Request) error {
		all, err := list(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(all)})
		return nil
	})
}

// byIDRoute registers GET path/{id}: the row list gives for the parameter
// idParam set to the id, in shape s, or a 404 with the message missing
// makes.
func byIDRoute[T any](h *Handler, path, idParam string, list rows[T], s shape[T], missing func(id string) string) {
	h.handle("GET "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		r.URL.RawQuery = idParam + "=" + r.PathValue("id")
		all, err := list(r)
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
