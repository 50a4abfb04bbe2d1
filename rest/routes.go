package rest

import (
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
