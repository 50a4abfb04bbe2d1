package runtime

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// History time to live, as Camunda's removal-time-based cleanup: when a
// root process instance ends, its whole hierarchy's history gets a removal
// time, its end plus the root definition's camunda:historyTimeToLive (or
// Config.History.TimeToLive); one job, HistoryCleanupJobID, run by the job
// executor like any other, removes what is due in batches.

// handlerHistoryCleanup runs the one job (HistoryCleanupJobID) that
// removes expired history.
const handlerHistoryCleanup = "history-cleanup"

func init() {
	registerJobHandler(handlerHistoryCleanup, jobHandler{detached: true,
		run: func(c *command, j *persistence.Job, _ *execution, _ *bpmn.Activity) error {
			return c.historyCleanupJob(j)
		}})
}

// HistoryCleanupJobID is the id of the one history cleanup job.
const HistoryCleanupJobID = "history-cleanup"

// timeToLive is how long the history of an instance of def is kept after
// its root instance ends; ok is false when it is kept for good.
func (e *Core) timeToLive(def *Definition) (ttl time.Duration, ok bool) {
	if days := def.HistoryTimeToLive; days != nil {
		return time.Duration(*days) * 24 * time.Hour, true
	}
	return e.Config.History.TimeToLive, e.Config.History.TimeToLive > 0
}

// setRemovalTime gives an ending root instance's hierarchy its removal time.
func (c *command) setRemovalTime(in *instance, end time.Time) {
	if in.root.SuperExecutionID != "" {
		return // the root of the hierarchy decides, when it ends
	}
	if ttl, ok := c.e.timeToLive(in.def); ok {
		c.cc.Write(persistence.SetRemovalTime(in.root.ID, end.Add(ttl)))
	}
}

// scheduleHistoryCleanup makes sure the history cleanup job exists (due
// now), in cc's transaction.
func (e *Core) scheduleHistoryCleanup(cc *tx.Context) {
	now := cc.Now().UTC()
	cc.Write(persistence.EnsureJob(&persistence.Job{
		ID: HistoryCleanupJobID, Rev: 1, Type: persistence.JobMessage, HandlerType: handlerHistoryCleanup,
		Retries: e.Config.Jobs.DefaultRetries, DueDate: &now, Suspension: persistence.Active, CreateTime: now,
	}))
}

// ScheduleHistoryCleanup creates the history cleanup job unless it exists.
// Deploying a definition with camunda:historyTimeToLive does it too.
func (e *Core) ScheduleHistoryCleanup(ctx context.Context) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		e.scheduleHistoryCleanup(cc)
		return nil
	})
}

// CleanUpHistory removes one batch of history whose removal time has
// passed and reports how many process instances and decision
// evaluations outside processes it removed.
func (e *Core) CleanUpHistory(ctx context.Context) (removed int, err error) {
	err = e.cmd.Run(ctx, func(cc *tx.Context) error {
		removed, err = e.removeExpiredHistory(cc)
		return err
	})
	return removed, err
}

func (e *Core) removeExpiredHistory(cc *tx.Context) (int, error) {
	decisions, err := e.removeExpiredDecisions(cc)
	if err != nil {
		return 0, err
	}
	expired, err := tx.Select(cc, persistence.ExpiredHistory(cc.Now().UTC(), e.Config.History.CleanupBatchSize))
	if err != nil || len(expired) == 0 {
		return decisions, err
	}
	ids := make([]string, len(expired))
	for i, h := range expired {
		ids[i] = h.ID
	}
	cc.Write(persistence.RemoveHistory(ids)...)
	e.meters.addAtCommit(cc, MeterHistoryCleanupRemoved, int64(len(ids)))
	return decisions + len(ids), nil
}

// historyCleanupJob runs a batch and keeps the job for its next run: at
// once while batches come full, else after the cleanup interval.
func (c *command) historyCleanupJob(j *persistence.Job) error {
	removed, err := c.e.removeExpiredHistory(c.cc)
	if err != nil {
		return err
	}
	next := c.cc.Now().UTC()
	if removed < c.e.Config.History.CleanupBatchSize {
		next = next.Add(c.e.Config.History.CleanupInterval)
	}
	if removed > 0 {
		c.e.log.Info("history cleanup removed the history of ended process instances", "instances", removed)
	}
	j.DueDate = &next
	c.rescheduled = true
	return nil
}
