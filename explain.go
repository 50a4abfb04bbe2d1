package bpmnlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/jobexecutor"
)

// JobCondition is one condition of acquisition and how a job stands with
// it (ExplainJob).
type JobCondition struct {
	Condition string `json:"condition"` // due, lock, retries, suspension, exclusive, executors
	Blocks    bool   `json:"blocks"`    // the condition keeps the job from running
	Detail    string `json:"detail"`    // what holds, and what to do when it blocks
}

// ExplainJob checks the job with id against each condition of the job
// executor's acquisition statement (due, lock, retries, suspension,
// exclusive jobs of its instance, executors that take it) and says how it
// stands with each, naming what to do about one that blocks it: why a job
// does not run (bpmnlite jobs explain, the cockpit's instance page). An
// unknown id is ErrNotFound.
func (e *Engine) ExplainJob(ctx context.Context, id string) ([]JobCondition, error) {
	jobs, err := e.Jobs(ctx, JobQuery{ID: id})
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("job %s: %w", id, ErrNotFound)
	}
	j, now := jobs[0], e.Now()
	var out []JobCondition
	add := func(cond string, blocks bool, detail string) { out = append(out, JobCondition{cond, blocks, detail}) }

	if j.DueDate != nil && j.DueDate.After(now) {
		add("due", true, fmt.Sprintf("not due until %s (in %s): a timer or a retry's delay", j.DueDate.Format(time.RFC3339), j.DueDate.Sub(now).Round(time.Second)))
	} else {
		add("due", false, "due now")
	}

	executors, err := e.JobExecutors(ctx)
	if err != nil {
		return nil, err
	}
	blocks, detail := jobexecutor.LockVerdict(j, executors, now)
	add("lock", blocks, detail)

	if j.Retries <= 0 {
		detail := "no retries left: fix the cause, then bpmnlite retry " + j.ID
		if incidents, err := e.Incidents(ctx, IncidentQuery{Configuration: j.ID}); err == nil && len(incidents) > 0 {
			detail += "; incident: " + incidents[0].Message
		}
		add("retries", true, detail)
	} else {
		add("retries", false, fmt.Sprintf("%d left", j.Retries))
	}

	var suspended []string
	if j.Suspension != 1 {
		suspended = append(suspended, "the job")
	}
	if j.ProcessInstanceID != "" {
		if xs, err := e.Executions(ctx, ExecutionQuery{ID: j.ProcessInstanceID}); err == nil && len(xs) == 1 && xs[0].Suspension != 1 {
			suspended = append(suspended, "process instance "+j.ProcessInstanceID)
		}
	}
	if j.ProcessDefinitionID != "" { // a batch's jobs and the history cleanup have none
		if ds, err := e.ProcessDefinitions(ctx, DefinitionQuery{ID: j.ProcessDefinitionID}); err == nil && len(ds) == 1 && ds[0].Suspension != 1 {
			suspended = append(suspended, "process definition "+j.ProcessDefinitionID)
		}
	}
	if j.JobDefinitionID != "" {
		if jds, err := e.JobDefinitions(ctx, j.ProcessDefinitionID, j.ActivityID); err == nil {
			for _, jd := range jds {
				if jd.ID == j.JobDefinitionID && jd.Suspension != 1 {
					suspended = append(suspended, "job definition "+jd.ID)
				}
			}
		}
	}
	if len(suspended) > 0 {
		add("suspension", true, "suspended: "+strings.Join(suspended, ", ")+": activate it")
	} else {
		add("suspension", false, "active")
	}

	if j.Exclusive && j.ProcessInstanceID != "" {
		others, err := e.Jobs(ctx, JobQuery{ProcessInstanceID: j.ProcessInstanceID, Locked: true})
		if err != nil {
			return nil, err
		}
		var busy *Job
		for _, o := range others {
			if o.ID != j.ID && o.Exclusive {
				busy = o
				break
			}
		}
		if busy != nil {
			add("exclusive", true, fmt.Sprintf("exclusive job %s at %s of the same instance is in progress (locked by %s until %s): this one waits for it",
				busy.ID, busy.ActivityID, busy.LockOwner, busy.LockExpiration.Format(time.RFC3339)))
		} else {
			add("exclusive", false, "no other exclusive job of the instance in progress")
		}
	} else {
		add("exclusive", false, "not exclusive")
	}

	blocks, detail = jobexecutor.ServedBy(j, executors)
	add("executors", blocks, detail)
	return out, nil
}
