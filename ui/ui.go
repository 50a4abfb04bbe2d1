// Package ui serves bpmnlite's browser UI: a cockpit (definitions as
// diagrams with their running tokens and incidents, instances, jobs,
// retries) and a tasklist (claim, complete with a Camunda Form). The pages
// are static files embedded in the binary (bpmn-js and form-js as their
// published builds, the UI's own code as plain JavaScript modules, no
// build step); they call the REST API of package rest from the browser.
//
// Mount it beside the REST handler, behind the same authentication, and
// refuse cross-site state-changing requests (Mount does all three):
//
//	api := rest.New(eng, rest.Options{Auth: "demo:secret"})
//	http.ListenAndServe(":8080", ui.Mount(eng, api, ui.Options{}))
package ui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/bpmnio"
	"github.com/bpmnlite/bpmnlite/rest"
)

//go:embed assets
var assets embed.FS

// Options configure the UI. Zero values take the defaults named.
type Options struct {
	// Path is where the UI is served, a folder below / (the REST handler
	// keeps / itself; New and Mount panic at another, as http.ServeMux
	// does at a bad pattern). Default "/app/".
	Path string
	// RESTPath is the base path of the REST API the pages call. Default
	// "/engine-rest" (rest.Options.BasePath's default).
	RESTPath string
	// PollInterval is how often an open dashboard or definition page reads
	// its counts again (while its tab is visible). Default 10 seconds.
	PollInterval time.Duration
	// Groups, when set, names the groups of the logged-in user (the basic
	// authentication's user, "" with a bearer token): the tasklist's
	// "My groups' tasks" are the unassigned tasks they are candidates of.
	// Default: nobody is in a group (the tasklist then asks for groups).
	Groups func(ctx context.Context, user string) ([]string, error)
}

func (o *Options) defaults() {
	if o.Path == "" {
		o.Path = "/app/"
	}
	if !strings.HasPrefix(o.Path, "/") || strings.Trim(o.Path, "/") == "" {
		panic(fmt.Sprintf("ui: Options.Path %q: want a folder below /, like /app/", o.Path))
	}
	if !strings.HasSuffix(o.Path, "/") {
		o.Path += "/"
	}
	if o.RESTPath == "" {
		o.RESTPath = "/engine-rest"
	}
	o.RESTPath = strings.TrimSuffix(o.RESTPath, "/")
	if o.PollInterval <= 0 {
		o.PollInterval = 10 * time.Second
	}
}

// ContentSecurityPolicy is sent with every page and asset: scripts and
// styles only from the UI's own files (no inline script or style
// attribute, no eval), requests only to its own origin, no framing.
// bpmn-js and form-js (with flatpickr) style what they draw through the
// CSSOM, which the policy allows.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'self'"

// Mount serves the UI on api (behind its authentication) at opt.Path, and
// "/" redirects there. The handler returned refuses state-changing
// requests a browser sends from another origin (http.CrossOriginProtection):
// with basic authentication a browser would otherwise send the credentials
// it keeps along with another site's form posts. Clients that are not
// browsers (curl, workers) are unaffected.
func Mount(eng *bpmnlite.Engine, api *rest.Handler, opt Options) http.Handler {
	opt.defaults()
	api.Handle(opt.Path, New(eng, opt))
	api.Handle("GET /{$}", http.RedirectHandler(opt.Path, http.StatusFound))
	return http.NewCrossOriginProtection().Handler(api)
}

// New returns the handler of the UI's pages and assets at opt.Path, and of
// what the pages show that Camunda's REST API has not: opt.Path +
// "api/job-executors" (the job executors' reports), "api/jobs/{id}/explain"
// (Engine.ExplainJob), "api/process-definitions/{id}/activity-durations"
// (Engine.ActivityDurations), "api/job-throughput" (the jobs that
// succeeded and failed per minute, from the engines' metrics reports) and
// "api/me" (the logged-in user and, from Options.Groups, their groups). It
// authenticates nobody: put it behind the REST handler's authentication
// (rest.Handler.Handle), as Mount does.
func New(eng *bpmnlite.Engine, opt Options) http.Handler {
	opt.defaults()
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree has that directory
	}
	index := template.Must(template.ParseFS(static, "index.html"))
	// bpmn-js's build is shared with the test kit's coverage report.
	files := staticFiles{}
	if err := errors.Join(files.add("", static), files.add("vendor/bpmn-js/", bpmnio.Files)); err != nil {
		panic(err) // reading the embedded trees does not fail
	}
	page := func(w http.ResponseWriter, r *http.Request) {
		user, _, _ := r.BasicAuth()
		var page bytes.Buffer
		err := index.Execute(&page, map[string]any{"Base": opt.Path, "REST": opt.RESTPath, "User": user, "PollMs": opt.PollInterval.Milliseconds()})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(page.Bytes())
	}
	// GET patterns take HEAD too; other methods are answered 405.
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+opt.Path+"{$}", page)
	mux.HandleFunc("GET "+opt.Path+"index.html", page)
	mux.HandleFunc("GET "+opt.Path, func(w http.ResponseWriter, r *http.Request) {
		files.serve(w, r, strings.TrimPrefix(r.URL.Path, opt.Path))
	})
	mux.HandleFunc("GET "+opt.Path+"api/job-executors", func(w http.ResponseWriter, r *http.Request) {
		infos, err := eng.JobExecutors(r.Context())
		writeJSON(w, executorReports(infos), err)
	})
	mux.HandleFunc("GET "+opt.Path+"api/jobs/{id}/explain", func(w http.ResponseWriter, r *http.Request) {
		conditions, err := eng.ExplainJob(r.Context(), r.PathValue("id"))
		writeJSON(w, conditions, err)
	})
	mux.HandleFunc("GET "+opt.Path+"api/process-definitions/{id}/activity-durations", func(w http.ResponseWriter, r *http.Request) {
		durations, err := eng.ActivityDurations(r.Context(), r.PathValue("id"))
		writeJSON(w, activityDurations(durations), err)
	})
	mux.HandleFunc("GET "+opt.Path+"api/job-throughput", func(w http.ResponseWriter, r *http.Request) {
		minutes, err := jobThroughput(r.Context(), eng, throughputMinutes)
		writeJSON(w, minutes, err)
	})
	mux.HandleFunc("GET "+opt.Path+"api/me", func(w http.ResponseWriter, r *http.Request) {
		me := struct {
			User   string   `json:"user"`
			Groups []string `json:"groups"`
		}{Groups: []string{}}
		me.User, _, _ = r.BasicAuth()
		var err error
		if opt.Groups != nil && me.User != "" {
			var groups []string
			if groups, err = opt.Groups(r.Context(), me.User); len(groups) > 0 {
				me.Groups = groups
			}
		}
		writeJSON(w, me, err)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		mux.ServeHTTP(w, r)
	})
}

// writeJSON answers v as JSON, or err: 404 for ErrNotFound, else 500.
func writeJSON(w http.ResponseWriter, v any, err error) {
	switch {
	case errors.Is(err, bpmnlite.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// jobExecutor is a job executor's report as the dashboard shows it.
type jobExecutor struct {
	ID              string    `json:"id"`
	DeploymentAware bool      `json:"deploymentAware"`
	Deployments     []string  `json:"deployments"`
	PriorityMin     *int64    `json:"priorityMin"`
	PriorityMax     *int64    `json:"priorityMax"`
	PoolSize        int       `json:"poolSize"`
	QueueSize       int       `json:"queueSize"`
	Inflight        int       `json:"inflight"`
	Heartbeat       time.Time `json:"heartbeat"`
}

// executorReports are the reports as the dashboard reads them.
func executorReports(infos []*bpmnlite.JobExecutorInfo) []jobExecutor {
	out := make([]jobExecutor, 0, len(infos))
	for _, x := range infos {
		var deployments []string
		if x.Deployments != "" {
			deployments = strings.Split(x.Deployments, ",")
		}
		out = append(out, jobExecutor{ID: x.ID, DeploymentAware: x.DeploymentAware, Deployments: deployments,
			PriorityMin: x.PriorityMin, PriorityMax: x.PriorityMax, PoolSize: x.PoolSize, QueueSize: x.QueueSize,
			Inflight: x.Inflight, Heartbeat: x.Heartbeat})
	}
	return out
}

// activityDuration is an activity's finished instances and their mean
// duration as the heat map shows them.
type activityDuration struct {
	ActivityID string  `json:"activityId"`
	Finished   int     `json:"finished"`
	MeanMillis float64 `json:"meanMillis"`
}

func activityDurations(ds []*bpmnlite.ActivityDuration) []activityDuration {
	out := make([]activityDuration, 0, len(ds))
	for _, d := range ds {
		out = append(out, activityDuration{ActivityID: d.ActivityID, Finished: d.Finished, MeanMillis: float64(d.Mean.Microseconds()) / 1000})
	}
	return out
}

// throughputMinutes is how many minutes the dashboard's throughput chart
// shows, the current one last.
const throughputMinutes = 15

// throughputMinute is what jobs did in one minute.
type throughputMinute struct {
	Start     time.Time `json:"start"`
	Succeeded int64     `json:"succeeded"`
	Failed    int64     `json:"failed"`
}

// jobThroughput is the jobs that succeeded and failed in each of the last
// n minutes by the engine's clock (the current one last), as the engines
// reported them in Camunda's metrics (job-successful, job-failed) of all
// reporters: a node's runs show once it reported them
// (Config.Metrics.ReportInterval).
func jobThroughput(ctx context.Context, eng *bpmnlite.Engine, n int) ([]throughputMinute, error) {
	from := eng.Now().UTC().Truncate(time.Minute).Add(-time.Duration(n-1) * time.Minute)
	out := make([]throughputMinute, n)
	for i := range out {
		out[i].Start = from.Add(time.Duration(i) * time.Minute)
	}
	for _, name := range []string{bpmnlite.MetricJobSuccessful, bpmnlite.MetricJobFailed} {
		intervals, err := eng.Metrics(ctx, bpmnlite.MetricsQuery{Name: name, StartDate: &from, Interval: time.Minute, AggregateByReporter: true})
		if err != nil {
			return nil, err
		}
		for _, iv := range intervals {
			i := int(iv.Timestamp.Sub(from) / time.Minute)
			if i < 0 || i >= n {
				continue // reported with a clock ahead of this one
			}
			if name == bpmnlite.MetricJobFailed {
				out[i].Failed += iv.Value
			} else {
				out[i].Succeeded += iv.Value
			}
		}
	}
	return out, nil
}
