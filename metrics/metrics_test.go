package metrics_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/metrics"
)

// The collector counts what the engine and its job executor committed, on
// both backends: starts and ends, jobs run and failed, open incidents.
// collected opens an engine on b with cfg, deploys an async process "ok"
// whose job succeeds and "bad" whose job fails, and runs a job executor
// that reports to a collector registered in the registry returned.
func collected(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) (*bpmnlite.Engine, *prometheus.Registry) {
	cfg.Database = bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema}
	cfg.Logger = slog.New(slog.DiscardHandler)
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	eng.RegisterDelegate("ok", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
	if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "m", Resources: []bpmnlite.Resource{
		{Name: "ok.bpmn", Bytes: []byte(enginetest.AsyncService("ok", "ok", ""))},
		{Name: "bad.bpmn", Bytes: []byte(enginetest.AsyncService("bad", "unregistered", ""))},
	}}); err != nil {
		t.Fatal(err)
	}
	c := metrics.New(eng)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2, WaitTime: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond,
		Metrics: c.JobExecutorMetrics(), Logger: slog.New(slog.DiscardHandler)}, eng)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Stop(context.Background()) })
	return eng, reg
}

func TestCollector(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			eng, reg := collected(t, b, bpmnlite.Config{})
			for range 3 {
				if _, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "ok"}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "bad"}); err != nil {
				t.Fatal(err)
			}
			gather := func() map[string]float64 {
				families, err := reg.Gather()
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]float64{}
				for _, f := range families {
					m := f.Metric[0]
					switch {
					case m.Counter != nil:
						got[f.GetName()] = m.Counter.GetValue()
					case m.Gauge != nil:
						got[f.GetName()] = m.Gauge.GetValue()
					case m.Histogram != nil:
						got[f.GetName()] = float64(m.Histogram.GetSampleCount())
					}
				}
				return got
			}
			got := gather()
			// Executor counters move when a run returns, the engine's after
			// its commit, and the open incidents are read at each scrape:
			// wait for all of them.
			settled := func() bool {
				return got["bpmnlite_jobs_failed_total"] >= 3 && got["bpmnlite_instances_ended_total"] >= 3 &&
					got["bpmnlite_jobs_exhausted_total"] >= 1 && got["bpmnlite_incidents_open"] >= 1
			}
			for deadline := time.Now().Add(20 * time.Second); !settled(); got = gather() {
				if time.Now().After(deadline) {
					t.Fatalf("metrics %v", got)
				}
				time.Sleep(20 * time.Millisecond)
			}
			for name, want := range map[string]float64{
				"bpmnlite_instances_started_total": 4, "bpmnlite_instances_ended_total": 3, "bpmnlite_jobs_executed_total": 3,
				"bpmnlite_jobs_failed_total": 3, "bpmnlite_incidents_open": 1, "bpmnlite_job_duration_seconds": 3,
				"bpmnlite_jobs_retried_total": 2, "bpmnlite_jobs_exhausted_total": 1,
			} {
				if got[name] != want {
					t.Errorf("%s = %v, want %v", name, got[name], want)
				}
			}
			for name, atLeast := range map[string]float64{"bpmnlite_acquisition_seconds": 1, "bpmnlite_workers_busy": 0, "bpmnlite_definitions_cached": 1, "bpmnlite_definition_cache_bytes": 1000} {
				if v, ok := got[name]; !ok || v < atLeast {
					t.Errorf("%s = %v (reported %v), want at least %v", name, v, ok, atLeast)
				}
			}
		})
	}
}

// With a TracerProvider, each job's run time and pickup latency carry the
// trace of its run as an exemplar, on both backends (PostgreSQL runs jobs
// one by one, SQLite in groups); without one there are none.
func TestExemplars(t *testing.T) {
	for _, traced := range []bool{true, false} {
		for _, b := range testdb.Backends(t) {
			t.Run(fmt.Sprintf("%s/traced=%v", b.Name, traced), func(t *testing.T) {
				rec := tracetest.NewSpanRecorder()
				cfg := bpmnlite.Config{}
				if traced {
					cfg.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
				}
				eng, reg := collected(t, b, cfg)
				for range 3 {
					if _, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "ok"}); err != nil {
						t.Fatal(err)
					}
				}
				var exemplars map[string][]*dto.Exemplar
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					families, err := reg.Gather()
					if err != nil {
						t.Fatal(err)
					}
					exemplars = map[string][]*dto.Exemplar{}
					done := false
					for _, f := range families {
						for _, m := range f.Metric {
							h := m.GetHistogram()
							if h == nil {
								continue
							}
							if f.GetName() == "bpmnlite_job_duration_seconds" {
								done = h.GetSampleCount() == 3
							}
							for _, bucket := range h.Bucket {
								if e := bucket.GetExemplar(); e != nil {
									exemplars[f.GetName()] = append(exemplars[f.GetName()], e)
								}
							}
						}
					}
					if done {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the three jobs did not run (exemplars so far: %v)", exemplars)
					}
				}
				if !traced {
					if len(exemplars) != 0 {
						t.Fatalf("exemplars without tracing: %v", exemplars)
					}
					return
				}
				jobSpans := map[string]string{} // trace id → span id of the job runs
				for _, s := range rec.Ended() {
					if s.Name() == "bpmnlite.job" {
						jobSpans[s.SpanContext().TraceID().String()] = s.SpanContext().SpanID().String()
					}
				}
				for _, name := range []string{"bpmnlite_job_duration_seconds", "bpmnlite_job_pickup_seconds"} {
					if len(exemplars[name]) == 0 {
						t.Fatalf("%s has no exemplar", name)
					}
					for _, e := range exemplars[name] {
						labels := map[string]string{}
						for _, l := range e.Label {
							labels[l.GetName()] = l.GetValue()
						}
						if span, ok := jobSpans[labels["trace_id"]]; !ok || span != labels["span_id"] {
							t.Errorf("%s exemplar %v is no job run's span (%v)", name, labels, jobSpans)
						}
					}
				}
			})
		}
	}
}
