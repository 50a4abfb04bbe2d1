package rest

import (
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The metrics resource: Camunda's metrics (what the engines' meters
// reported), beside the Prometheus endpoint serve mounts at /metrics.

// metricJSON is one interval of a metric as Camunda's
// MetricsIntervalResultDto shows it.
var metricJSON = newShape[bpmnlite.MetricInterval](`timestamp name reporter? value`)

func (h *Handler) metricsRoutes() {
	h.handle("GET /metrics", func(w http.ResponseWriter, r *http.Request) error {
		q, err := metricsQuery(r)
		if err != nil {
			return err
		}
		params := r.URL.Query()
		for name, dst := range map[string]*int{"firstResult": &q.FirstResult, "maxResults": &q.MaxResults} {
			if s := params.Get(name); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					return badRequest("query parameter %s: %q is not a number of rows", name, s)
				}
				*dst = n
			}
		}
		if s := params.Get("interval"); s != "" {
			secs, err := strconv.ParseInt(s, 10, 64)
			if err != nil || secs <= 0 {
				return badRequest("query parameter interval: %q is not a number of seconds", s)
			}
			q.Interval = time.Duration(secs) * time.Second
		}
		if err := setParam(params, "aggregateByReporter", reflect.ValueOf(&q.AggregateByReporter).Elem()); err != nil {
			return err
		}
		intervals, err := h.eng.Metrics(r.Context(), q)
		if err != nil {
			return err
		}
		out := []object{}
		for i := range intervals {
			out = append(out, metricJSON.of(&intervals[i]))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}, "name", "reporter", "startDate", "endDate", "firstResult", "maxResults", "interval", "aggregateByReporter")
	h.handle("GET /metrics/{name}/sum", func(w http.ResponseWriter, r *http.Request) error {
		q, err := metricsQuery(r)
		if err != nil {
			return err
		}
		q.Name = r.PathValue("name")
		sum, err := h.eng.MetricsSum(r.Context(), q)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int64{"result": sum})
		return nil
	}, "startDate", "endDate")
	// bpmnlite keeps no task worker metrics (Camunda's unique task
	// workers): there is nothing to delete.
	h.handle("DELETE /metrics/task-worker", func(w http.ResponseWriter, r *http.Request) error {
		if s := r.URL.Query().Get("date"); s != "" {
			if _, err := parseTime(s); err != nil {
				return badRequest("date: %v", err)
			}
		}
		return noContent(w)
	}, "date")
}

// metricsQuery reads the filters the metrics resources share.
func metricsQuery(r *http.Request) (bpmnlite.MetricsQuery, error) {
	params := r.URL.Query()
	q := bpmnlite.MetricsQuery{Name: params.Get("name"), Reporter: params.Get("reporter")}
	for name, dst := range map[string]**time.Time{"startDate": &q.StartDate, "endDate": &q.EndDate} {
		if err := setParam(params, name, reflect.ValueOf(dst).Elem()); err != nil {
			return q, err
		}
	}
	return q, nil
}
