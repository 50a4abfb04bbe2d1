// Package metrics exports a bpmnlite engine's and job executor's metrics to
// Prometheus, names prefixed bpmnlite_: register the Collector with a
// registry and pass its JobExecutorMetrics to the job executor.
//
//	c := metrics.New(eng)
//	registry.MustRegister(c)
//	x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{Metrics: c.JobExecutorMetrics()}, eng)
//
// A [Collector] owns the job executor's counters, gauges and histograms
// (acquisitions, runs, failures, conflicts, queue depth, pickup and run
// times, busy workers), fed through [Collector.JobExecutorMetrics]. At each
// scrape it reads the engine's counts from Engine.Stats (instances,
// external tasks, retries, the definition cache) and counts the open
// incidents with Engine.Incidents.
//
// It reads the engine through the public bpmnlite API only, and the
// executor through the jobexecutor.Metrics interface: no runtime, no
// persistence, no SQL. `bpmnlite serve` serves it at /metrics.
package metrics
