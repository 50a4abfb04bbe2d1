package jobexecutor

import "github.com/bpmnlite/bpmnlite/config"

// Config configures a job executor: the JobExecutor part of the engine's
// configuration (package config), which documents every field.
type Config = config.JobExecutor

// Metrics receives the executor's counters (see config.ExecutorMetrics).
type Metrics = config.ExecutorMetrics

// CycleMetrics is implemented by Metrics that also want each acquisition's
// duration and the number of workers busy running jobs.
type CycleMetrics = config.CycleMetrics

// TracedMetrics is implemented by Metrics that want the job's trace beside
// its pickup latency and run time (exemplars).
type TracedMetrics = config.TracedMetrics
