package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Managing jobs and job definitions: retries, due dates, priorities,
// suspension. Every change goes through the entity cache with revision
// checks, so it conflicts with a job or command changing the same rows
// concurrently instead of overwriting it.

func (e *Core) job(cc *tx.Context, id string) (*persistence.Job, error) {
	// The texts are Camunda's, which the acceptance corpus checks.
	return rowByID[*persistence.Job](cc, persistence.JobTable, id, "Job id must not be null", "No job found with id '%s'")
}

func (e *Core) jobDefinitionRow(cc *tx.Context, id string) (*persistence.JobDefinition, error) {
	return rowByID[*persistence.JobDefinition](cc, persistence.JobDefinitionTable, id, "jobDefinitionId is null", "job definition with id '%s' does not exist")
}

// rowByID reads the row of table with id, failing with empty when id is
// empty and with notFound (formatted with id, wrapping ErrNotFound) when
// there is none.
func rowByID[T persistence.Entity](cc *tx.Context, table *persistence.Table, id, empty, notFound string) (T, error) {
	var zero T
	if id == "" {
		return zero, errors.New(empty)
	}
	ent, err := cc.Get(table, id)
	if err != nil {
		return zero, fmt.Errorf(notFound+": %w", id, persistence.ErrNotFound)
	}
	return ent.(T), nil
}

// SetJobRetries sets a job's retries. Retries above 0 resolve the job's
// incident and make it acquirable again; 0 raises an incident.
func (e *Core) SetJobRetries(ctx context.Context, jobID string, retries int) error {
	if retries < 0 {
		return fmt.Errorf("retries must be 0 or more, got %d", retries)
	}
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		return e.setRetries(cc, j, retries)
	})
}

// SetJobRetriesByDefinition sets the retries of the failed jobs (0 retries
// left) of a job definition, as Camunda does: their incidents stay open
// until the job succeeds, and a job that fails again keeps its incident.
func (e *Core) SetJobRetriesByDefinition(ctx context.Context, jobDefinitionID string, retries int) error {
	if retries < 0 {
		return fmt.Errorf("retries must be 0 or more, got %d", retries)
	}
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		if _, err := e.jobDefinitionRow(cc, jobDefinitionID); err != nil {
			return err
		}
		jobs, err := tx.Select(cc, persistence.JobsOfJobDefinition(jobDefinitionID))
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if j.Retries == 0 {
				j.Retries = retries
				cc.Update(j)
			}
		}
		return nil
	})
}

func (e *Core) setRetries(cc *tx.Context, j *persistence.Job, retries int) error {
	had := j.Retries
	j.Retries = retries
	cc.Update(j)
	switch {
	case retries > 0 && had == 0:
		return e.endJobIncidents(cc, j, persistence.IncidentResolved)
	case retries == 0 && had > 0:
		return e.createIncident(cc, j)
	}
	return nil
}

// SetJobDueDate sets when a job becomes due (nil: at once); a repeating
// timer's later runs stay on their schedule.
func (e *Core) SetJobDueDate(ctx context.Context, jobID string, due *time.Time) error {
	return e.SetJobDueDateCascade(ctx, jobID, due, false)
}

// SetJobPriority sets one job's priority.
func (e *Core) SetJobPriority(ctx context.Context, jobID string, priority int64) error {
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		j.Priority = priority
		cc.Update(j)
		return nil
	})
}

// SetOverridingJobPriority makes every new job of the job definition get
// priority (nil clears the override: new jobs take their priority from the
// BPMN again); cascade also sets it on the definition's existing jobs.
func (e *Core) SetOverridingJobPriority(ctx context.Context, jobDefinitionID string, priority *int64, cascade bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		jd, err := e.jobDefinitionRow(cc, jobDefinitionID)
		if err != nil {
			return err
		}
		jd.OverridingPriority = priority
		cc.Update(jd)
		cc.AfterCommit(func() { e.forgetJobDefinitions(jd.ProcessDefinitionID) })
		if !cascade || priority == nil {
			return nil
		}
		jobs, err := tx.Select(cc, persistence.JobsOfJobDefinition(jobDefinitionID))
		if err != nil {
			return err
		}
		for _, j := range jobs {
			j.Priority = *priority
			cc.Update(j)
		}
		return nil
	})
}

// SuspendJob suspends (or, with suspend false, activates) one job.
func (e *Core) SuspendJob(ctx context.Context, jobID string, suspend bool) error {
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		setSuspension(cc, []persistence.Entity{j}, suspend)
		return nil
	})
}

// SuspendJobDefinition suspends (or activates) a job definition: new jobs
// of it are created suspended; with includeJobs its existing jobs follow.
func (e *Core) SuspendJobDefinition(ctx context.Context, jobDefinitionID string, suspend, includeJobs bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		jd, err := e.jobDefinitionRow(cc, jobDefinitionID)
		if err != nil {
			return err
		}
		return e.suspendJobDefinition(cc, jd, suspend, includeJobs)
	})
}

func (e *Core) suspendJobDefinition(cc *tx.Context, jd *persistence.JobDefinition, suspend, includeJobs bool) error {
	if jd.Suspension != suspension(suspend) {
		jd.Suspension = suspension(suspend)
		cc.Update(jd)
		cc.AfterCommit(func() { e.forgetJobDefinitions(jd.ProcessDefinitionID) })
	}
	if !includeJobs {
		return nil
	}
	jobs, err := tx.Select(cc, persistence.JobsOfJobDefinition(jd.ID))
	if err != nil {
		return err
	}
	setSuspension(cc, jobs, suspend)
	return nil
}

// deleteJob removes a job whose activity ended or was cancelled, and the
// incident of a job that failed. The job a command is running is left to
// its runner, which deletes it on success.
func (c *command) deleteJob(j *persistence.Job) error {
	if j == c.running || c.cc.IsDeleted(j) {
		return nil
	}
	if j.ExceptionMessage != "" || j.Retries == 0 {
		if err := c.e.endJobIncidents(c.cc, j, persistence.IncidentDeleted); err != nil {
			return err
		}
	}
	c.cc.Delete(j)
	c.e.logJob(c.cc, j, persistence.JobLogDeleted, "", nil)
	return nil
}

// DeleteJob deletes a job and its incident, as Camunda's deleteJob: not
// while it runs (locked by an executor whose lock holds). Its execution
// stays where it is; nothing continues it.
func (e *Core) DeleteJob(ctx context.Context, jobID string) error {
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		if j.LockOwner != "" && j.LockExpiration != nil && j.LockExpiration.After(cc.Now()) {
			return fmt.Errorf("job %q is being executed by %s: delete it once its run ended: %w", jobID, j.LockOwner, ErrJobLocked)
		}
		return e.newCommand(cc).deleteJob(j)
	})
}

// ErrJobLocked: the job is locked by a job executor running it.
var ErrJobLocked = errors.New("job is locked")

// SetJobRepeat changes the cycle of a repeating timer job: the job keeps
// its due date, and the runs after it follow the new cycle, stored as it is
// given, as Camunda stores it. A cycle with a start date ("R5/2026-…/PT1M")
// ends after its runs; one without ("R5/PT1M") counts from each run and is
// not ended by its count, as in Camunda. The cycle is any timeCycle notation
// (Rn/P, Rn/start/P, Rn/P/end, cron).
func (e *Core) SetJobRepeat(ctx context.Context, jobID, cycle string) error {
	cy, err := timer.ParseCycle(cycle)
	if err != nil {
		return err
	}
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		if j.Type != persistence.JobTimer || j.Repeat == "" {
			return fmt.Errorf("job %q is not a repeating timer", jobID)
		}
		j.Repeat = cy.String()
		cc.Update(j)
		return nil
	})
}

// withJob runs fn as a command on the job with id jobID (ErrNotFound when
// there is none).
func (e *Core) withJob(ctx context.Context, jobID string, fn func(cc *tx.Context, j *persistence.Job) error) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		j, err := e.job(cc, jobID)
		if err != nil {
			return err
		}
		return fn(cc, j)
	})
}
