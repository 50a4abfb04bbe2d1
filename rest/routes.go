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

// queried runs the query q, its fields set from r's parameters (those its
// tags name under key), with run.
func queried[Q, T any](r *http.Request, key string, q Q, run func(context.Context, Q) ([]*T, error)) ([]*T, error) {
	if err := bindQuery(r.URL.Query(), &q, key); err != nil {
		return nil, err
	}
	return run(r.Context(), q)
}

// listRoutes registers GET path, a page of what list gives, and GET
// path/count, how many it gives.
func (h *Handler) listRoutes(path string, list func(*http.Request) ([]object, error)) {
	h.handle("GET "+path, func(w http.ResponseWriter, r *http.Request) error {
		out, err := list(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET "+path+"/count", func(w http.ResponseWriter, r *http.Request) error {
		out, err := list(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(out)})
		return nil
	})
}

// byIDRoute registers GET path/{id}: what list gives for the parameter
// idParam set to the id, or a 404 with the message missing makes.
func (h *Handler) byIDRoute(path, idParam string, list func(*http.Request) ([]object, error), missing func(id string) string) {
	h.handle("GET "+path+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		r.URL.RawQuery = idParam + "=" + r.PathValue("id")
		out, err := list(r)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			return &notFound{missing(r.PathValue("id"))}
		}
		writeJSON(w, http.StatusOK, out[0])
		return nil
	})
}
