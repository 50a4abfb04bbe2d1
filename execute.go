package bpmnlite

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// ExecuteJob runs one job now, whatever its due date, as the job executor
// would: in its own transaction, rolled back to a savepoint on failure with
// the failure recorded on the job (retries, message, next due date, an
// incident at 0 retries). The job's error is returned.
func (e *Engine) ExecuteJob(ctx context.Context, jobID string) error {
	return e.rt.ExecuteJob(ctx, jobID, nil)
}

// ExecuteAvailableJobs runs every job with retries left, ignoring due dates
// (except the history cleanup job's), until none is left or max runs were
// made (Camunda's test helper executeAvailableJobs). Failures are recorded
// and skipped. It returns the number of successful runs.
func (e *Engine) ExecuteAvailableJobs(ctx context.Context, max int) (int, error) {
	return e.drain(ctx, max, false)
}

// ExecuteDueJobs is ExecuteAvailableJobs for the jobs due at the engine
// clock's time and not suspended.
func (e *Engine) ExecuteDueJobs(ctx context.Context, max int) (int, error) {
	return e.drain(ctx, max, true)
}

func (e *Engine) drain(ctx context.Context, max int, dueOnly bool) (int, error) {
	ok, runs := 0, 0
	for runs < max {
		f := persistence.JobFilter{WithRetriesLeft: true, DueFirst: true, Executable: dueOnly}
		jobs, err := persistence.List(ctx, e.db, f.At(e.Now()))
		if err != nil {
			return ok, err
		}
		// The history cleanup job is the engine's housekeeping, not a
		// process's: it runs only when due, or it would reschedule itself
		// and run again for ever.
		now := e.Now()
		jobs = slices.DeleteFunc(jobs, func(j *persistence.Job) bool {
			return j.ID == HistoryCleanupJobID && j.DueDate != nil && j.DueDate.After(now)
		})
		if len(jobs) == 0 {
			return ok, nil
		}
		for _, j := range jobs {
			if runs >= max {
				break
			}
			runs++
			err := e.ExecuteJob(ctx, j.ID)
			switch {
			case err == nil:
				ok++
			case errors.Is(err, persistence.ErrNotFound):
				// Removed by an earlier job of this round (its scope ended).
			case ctx.Err() != nil:
				return ok, ctx.Err()
			}
		}
	}
	return ok, fmt.Errorf("bpmnlite: jobs still left after %d runs", max)
}
