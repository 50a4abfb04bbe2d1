package bpmnlite

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Camunda's metrics: the engine counts activity instances, root process
// instances, job runs and acquisitions and the history removed, under
// Camunda's metric names, and writes what they grew every
// Config.Metrics.ReportInterval (and when it closes) to the database, where
// every node's reports add up.

// The metric names the engine reports.
const (
	MetricRootProcessInstanceStart = runtime.MeterRootInstanceStart
	MetricActivityInstanceStart    = runtime.MeterActivityInstanceStart
	MetricActivityInstanceEnd      = runtime.MeterActivityInstanceEnd
	MetricJobSuccessful            = runtime.MeterJobSuccessful
	MetricJobFailed                = runtime.MeterJobFailed
	MetricJobAcquisitionAttempt    = runtime.MeterJobAcquisitionAttempt
	MetricJobAcquiredSuccess       = runtime.MeterJobAcquiredSuccess
	MetricHistoryCleanupRemoved    = runtime.MeterHistoryCleanupRemoved
	// Decisions: each evaluated decision (required ones too), their
	// elements (a table's (inputs + outputs) × rules), and those outside
	// processes the history cleanup removed.
	MetricDecisionInstances              = runtime.MeterDecisionInstances
	MetricDecisionElements               = runtime.MeterDecisionElements
	MetricHistoryCleanupRemovedDecisions = runtime.MeterHistoryCleanupRemovedDecisions
)

// metricAliases are Camunda's public names of metrics it keeps under
// another name.
var metricAliases = map[string]string{
	"flow-node-instances": MetricActivityInstanceStart,
	"process-instances":   MetricRootProcessInstanceStart,
	"decision-instances":  MetricDecisionInstances,
}

// MaxMetricIntervals bounds the intervals one Metrics query returns, as
// Camunda bounds them.
const MaxMetricIntervals = 200

// MetricsQuery selects reported metrics.
type MetricsQuery struct {
	Name     string // a metric name (or Camunda's flow-node-instances, process-instances); "": all
	Reporter string // "": all reporters
	// StartDate (inclusive) and EndDate (exclusive) bound the reports.
	StartDate, EndDate *time.Time
	// Interval is the width of the buckets Metrics sums reports in,
	// aligned to the Unix epoch. Default 15 minutes.
	Interval time.Duration
	// AggregateByReporter sums every reporter's reports in one value per
	// bucket (its Reporter "").
	AggregateByReporter bool
	// FirstResult and MaxResults page the buckets, newest first;
	// MaxResults defaults to and may not exceed MaxMetricIntervals.
	FirstResult, MaxResults int
}

// MetricInterval is what one metric grew in one interval (at one
// reporter, unless aggregated).
type MetricInterval struct {
	Timestamp time.Time // the interval's start
	Name      string
	Reporter  string
	Value     int64
}

func (q MetricsQuery) filter() persistence.MeterLogFilter {
	name := q.Name
	if internal, ok := metricAliases[name]; ok {
		name = internal
	}
	return persistence.MeterLogFilter{Name: name, Reporter: q.Reporter, StartDate: q.StartDate, EndDate: q.EndDate}
}

// MetricsSum is the sum of the reports q selects (its Name required; its
// interval and paging aside).
func (e *Engine) MetricsSum(ctx context.Context, q MetricsQuery) (int64, error) {
	if q.Name == "" {
		return 0, fmt.Errorf("%w: a metrics sum needs a metric name", ErrInvalidQuery)
	}
	return persistence.Sum(ctx, e.db, q.filter().Query(), "value")
}

// Metrics sums the reports q selects in intervals, newest first (then by
// name and reporter).
func (e *Engine) Metrics(ctx context.Context, q MetricsQuery) ([]MetricInterval, error) {
	if q.MaxResults > MaxMetricIntervals {
		return nil, fmt.Errorf("%w: Metrics interval query row limit can't be set larger than %d.", ErrInvalidQuery, MaxMetricIntervals)
	}
	if q.MaxResults <= 0 {
		q.MaxResults = MaxMetricIntervals
	}
	if q.Interval <= 0 {
		q.Interval = 15 * time.Minute
	}
	rows, err := persistence.List(ctx, e.db, q.filter().Query())
	if err != nil {
		return nil, err
	}
	type key struct {
		at             int64
		name, reporter string
	}
	sums := map[key]int64{}
	width := q.Interval.Milliseconds()
	for _, r := range rows {
		k := key{at: r.Timestamp.UnixMilli() / width * width, name: r.Name, reporter: r.Reporter}
		if q.AggregateByReporter {
			k.reporter = ""
		}
		sums[k] += r.Value
	}
	out := make([]MetricInterval, 0, len(sums))
	for k, v := range sums {
		name := k.name
		if q.Name != "" {
			name = q.Name // as asked for, alias or not
		}
		out = append(out, MetricInterval{Timestamp: time.UnixMilli(k.at).UTC(), Name: name, Reporter: k.reporter, Value: v})
	}
	slices.SortFunc(out, func(a, b MetricInterval) int {
		return cmp.Or(b.Timestamp.Compare(a.Timestamp), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Reporter, b.Reporter))
	})
	first := min(max(q.FirstResult, 0), len(out))
	return out[first:min(first+q.MaxResults, len(out))], nil
}

// ReportMetrics writes what the engine's meters grew since the last
// report now, instead of at the next interval (Camunda's reportNow).
func (e *Engine) ReportMetrics(ctx context.Context) error {
	return e.rt.ReportMeters(ctx, e.cfg.Metrics.Reporter)
}
