package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Meters: the engine's counters under Camunda's metric names, reported to
// the meter_log table (MeterLog) for Camunda's metrics queries: each
// report adds what a counter grew since the previous one.
const (
	MeterRootInstanceStart     = "root-process-instance-start"
	MeterActivityInstanceStart = "activity-instance-start"
	MeterActivityInstanceEnd   = "activity-instance-end"
	MeterJobSuccessful         = "job-successful"
	MeterJobFailed             = "job-failed"
	MeterJobAcquisitionAttempt = "job-acquisition-attempt"
	MeterJobAcquiredSuccess    = "job-acquired-success"
	MeterHistoryCleanupRemoved = "history-cleanup-removed-process-instances"
	// Decisions evaluated (required ones too) and their elements: a
	// table's (inputs + outputs) × rules, a literal expression 1, as
	// Camunda's DMN engine counts them.
	MeterDecisionInstances = "executed-decision-instances"
	MeterDecisionElements  = "executed-decision-elements"
	// decisions evaluated outside processes whose history the cleanup removed
	MeterHistoryCleanupRemovedDecisions = "history-cleanup-removed-decision-instances"
)

// MeterNames are the meters the engine counts.
var MeterNames = []string{MeterRootInstanceStart, MeterActivityInstanceStart, MeterActivityInstanceEnd, MeterJobSuccessful,
	MeterJobFailed, MeterJobAcquisitionAttempt, MeterJobAcquiredSuccess, MeterHistoryCleanupRemoved,
	MeterDecisionInstances, MeterDecisionElements, MeterHistoryCleanupRemovedDecisions}

// meters counts what is not reported yet.
type meters struct {
	counts map[string]*atomic.Int64 // fixed at start: read without a lock
	flush  sync.Mutex               // one report at a time
}

func newMeters() *meters {
	m := &meters{counts: map[string]*atomic.Int64{}}
	for _, n := range MeterNames {
		m.counts[n] = new(atomic.Int64)
	}
	return m
}

func (m *meters) add(name string, n int64) { m.counts[name].Add(n) }

// addAtCommit counts n for name once cc's work commits (not if it is
// rolled back to a savepoint before that).
func (m *meters) addAtCommit(cc *tx.Context, name string, n int64) {
	if n > 0 {
		cc.AfterCommit(func() { m.add(name, n) })
	}
}

// ReportMeters writes what each meter grew since the last report to the
// meter_log table, one row per meter that grew, as reporter at the engine
// clock's time. A failed write keeps the counts for the next report.
func (e *Core) ReportMeters(ctx context.Context, reporter string) error {
	e.meters.flush.Lock()
	defer e.meters.flush.Unlock()
	taken := map[string]int64{}
	for name, c := range e.meters.counts {
		if n := c.Swap(0); n > 0 {
			taken[name] = n
		}
	}
	if len(taken) == 0 {
		return nil
	}
	err := e.cmd.Run(ctx, func(cc *tx.Context) error {
		now := cc.Now().UTC()
		for name, n := range taken {
			cc.Insert(&persistence.MeterLog{ID: newID(), Name: name, Reporter: reporter, Value: n, Timestamp: now})
		}
		return nil
	})
	if err != nil {
		for name, n := range taken {
			e.meters.add(name, n)
		}
	}
	return err
}

// ReportMetersEvery reports the meters every interval until ctx ends,
// then once more.
func (e *Core) ReportMetersEvery(ctx context.Context, interval time.Duration, reporter string) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := e.ReportMeters(final, reporter); err != nil {
				e.log.Warn("reporting the meters failed", "error", err)
			}
			return
		case <-t.C:
			if err := e.ReportMeters(ctx, reporter); err != nil && ctx.Err() == nil {
				e.log.Warn("reporting the meters failed; the counts wait for the next report", "error", err)
			}
		}
	}
}
