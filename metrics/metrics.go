package metrics

import (
	"context"
	"sort"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
)

// Collector is a prometheus.Collector of one engine.
type Collector struct {
	eng *bpmnlite.Engine

	acquired, cycles, executed, failed, conflicts prometheus.Counter
	queueDepth, busy                              prometheus.Gauge
	pickup, duration, acquisition                 prometheus.Histogram
	// pickupExemplars and durationExemplars admit the exemplars of pickup
	// and duration.
	pickupExemplars, durationExemplars *exemplarGate

	started, ended, fetched, completed, waiting, incidents, retried, exhausted *prometheus.Desc
	defsCached, defCacheBytes                                                  *prometheus.Desc
}

// New returns the collector of eng.
func New(eng *bpmnlite.Engine) *Collector {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "bpmnlite_" + name, Help: help})
	}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("bpmnlite_"+name, help, nil, nil)
	}
	latency := []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	return &Collector{
		eng:               eng,
		pickupExemplars:   newExemplarGate(latency),
		durationExemplars: newExemplarGate(latency),
		acquired:          counter("jobs_acquired_total", "Jobs locked by acquisition."),
		cycles:            counter("acquisition_cycles_total", "Acquisition cycles that locked jobs."),
		executed:          counter("jobs_executed_total", "Jobs run successfully."),
		failed:            counter("jobs_failed_total", "Job runs that failed (each retry counts)."),
		conflicts:         counter("jobs_conflicts_total", "Job runs that met an optimistic-locking conflict (run again without spending a retry)."),
		queueDepth:        prometheus.NewGauge(prometheus.GaugeOpts{Name: "bpmnlite_job_queue_depth", Help: "Acquired jobs waiting for a worker."}),
		pickup: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "bpmnlite_job_pickup_seconds",
			Help: "Time from acquisition to a worker starting the job.", Buckets: latency}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "bpmnlite_job_duration_seconds",
			Help: "Run time of successful jobs.", Buckets: latency}),
		acquisition: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "bpmnlite_acquisition_seconds",
			Help: "Duration of each acquisition (the statement that locks jobs).", Buckets: latency}),
		busy:          prometheus.NewGauge(prometheus.GaugeOpts{Name: "bpmnlite_workers_busy", Help: "Job executor workers running jobs."}),
		started:       desc("instances_started_total", "Process instances started."),
		ended:         desc("instances_ended_total", "Process instances ended (completed or deleted)."),
		fetched:       desc("external_tasks_fetched_total", "External tasks fetched and locked by workers."),
		completed:     desc("external_tasks_completed_total", "External tasks completed by workers."),
		waiting:       desc("external_task_fetches_waiting", "Long-polling fetches waiting for tasks."),
		defsCached:    desc("definitions_cached", "Parsed process definitions the engine keeps."),
		defCacheBytes: desc("definition_cache_bytes", "Estimated memory of the parsed process definitions kept (bounded by DefinitionCacheBytes)."),
		incidents:     desc("incidents_open", "Open incidents."),
		retried:       desc("jobs_retried_total", "Failed job runs with retries left: the job runs again."),
		exhausted:     desc("jobs_exhausted_total", "Failed job runs that used the last retry (an incident)."),
	}
}

// JobExecutorMetrics is what to set as the job executor's Metrics.
func (c *Collector) JobExecutorMetrics() jobexecutor.Metrics { return executorMetrics{c} }

type executorMetrics struct{ c *Collector }

func (m executorMetrics) Acquired(n int) {
	m.c.cycles.Inc()
	m.c.acquired.Add(float64(n))
}
func (m executorMetrics) Executed(d time.Duration) {
	m.c.executed.Inc()
	m.c.duration.Observe(d.Seconds())
}

// ExecutedTraced and PickupLatencyTraced attach the job's trace to the
// observation as an exemplar (shown by the OpenMetrics exposition).
func (m executorMetrics) ExecutedTraced(d time.Duration, span trace.SpanContext) {
	m.c.executed.Inc()
	observe(m.c.duration, m.c.durationExemplars, d, span)
}
func (m executorMetrics) PickupLatencyTraced(d time.Duration, span trace.SpanContext) {
	observe(m.c.pickup, m.c.pickupExemplars, d, span)
}

// observe records d in h, with span's ids as its exemplar when valid and
// the gate admits one.
func observe(h prometheus.Histogram, gate *exemplarGate, d time.Duration, span trace.SpanContext) {
	v := d.Seconds()
	if !span.IsValid() || !gate.admit(v, time.Now()) {
		h.Observe(v)
		return
	}
	h.(prometheus.ExemplarObserver).ObserveWithExemplar(v,
		prometheus.Labels{"trace_id": span.TraceID().String(), "span_id": span.SpanID().String()})
}

// exemplarInterval is how often a histogram bucket takes a new exemplar.
const exemplarInterval = time.Second

// exemplarGate admits at most one exemplar per bucket of a histogram per
// exemplarInterval. Prometheus keeps only the newest exemplar of each
// bucket, so a busy bucket's were dropped almost all, and each cost about
// eight allocations (a quarter of what tracing added to a job): now a
// frequent bucket's exemplar is at most a second old, and a rare bucket
// (the slow jobs one looks for) takes every one.
type exemplarGate struct {
	bounds []float64      // upper bounds of the buckets; one more bucket above the last (+Inf)
	last   []atomic.Int64 // per bucket: when it last took an exemplar (UnixNano)
}

func newExemplarGate(bounds []float64) *exemplarGate {
	return &exemplarGate{bounds: bounds, last: make([]atomic.Int64, len(bounds)+1)}
}

// admit reports whether an observation of v at now may carry an exemplar.
func (g *exemplarGate) admit(v float64, now time.Time) bool {
	b := &g.last[sort.SearchFloat64s(g.bounds, v)]
	last, t := b.Load(), now.UnixNano()
	return t-last >= int64(exemplarInterval) && b.CompareAndSwap(last, t)
}

func (m executorMetrics) Failed()                       { m.c.failed.Inc() }
func (m executorMetrics) Conflict()                     { m.c.conflicts.Inc() }
func (m executorMetrics) QueueDepth(n int)              { m.c.queueDepth.Set(float64(n)) }
func (m executorMetrics) PickupLatency(d time.Duration) { m.c.pickup.Observe(d.Seconds()) }
func (m executorMetrics) AcquisitionDuration(d time.Duration) {
	m.c.acquisition.Observe(d.Seconds())
}
func (m executorMetrics) BusyWorkers(n int) { m.c.busy.Set(float64(n)) }

func (c *Collector) own() []prometheus.Collector {
	return []prometheus.Collector{c.acquired, c.cycles, c.executed, c.failed, c.conflicts, c.queueDepth, c.busy, c.pickup, c.duration, c.acquisition}
}

// Describe sends the descriptions of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.own() {
		m.Describe(ch)
	}
	for _, d := range []*prometheus.Desc{c.started, c.ended, c.fetched, c.completed, c.waiting, c.incidents, c.retried, c.exhausted, c.defsCached, c.defCacheBytes} {
		ch <- d
	}
}

// Collect sends the current values; open incidents are counted in the
// database at each scrape.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.own() {
		m.Collect(ch)
	}
	s := c.eng.Stats()
	ch <- prometheus.MustNewConstMetric(c.started, prometheus.CounterValue, float64(s.InstancesStarted))
	ch <- prometheus.MustNewConstMetric(c.ended, prometheus.CounterValue, float64(s.InstancesEnded))
	ch <- prometheus.MustNewConstMetric(c.fetched, prometheus.CounterValue, float64(s.ExternalTasksFetched))
	ch <- prometheus.MustNewConstMetric(c.completed, prometheus.CounterValue, float64(s.ExternalTasksCompleted))
	ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, float64(s.FetchesWaiting))
	ch <- prometheus.MustNewConstMetric(c.retried, prometheus.CounterValue, float64(s.JobsRetried))
	ch <- prometheus.MustNewConstMetric(c.exhausted, prometheus.CounterValue, float64(s.JobsExhausted))
	ch <- prometheus.MustNewConstMetric(c.defsCached, prometheus.GaugeValue, float64(s.DefinitionsCached))
	ch <- prometheus.MustNewConstMetric(c.defCacheBytes, prometheus.GaugeValue, float64(s.DefinitionCacheBytes))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if open, err := c.eng.Count(ctx, bpmnlite.IncidentQuery{}); err == nil {
		ch <- prometheus.MustNewConstMetric(c.incidents, prometheus.GaugeValue, float64(open))
	}
}
