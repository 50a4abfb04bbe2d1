package bpmnlite

import (
	"context"
	"fmt"
	"strings"
	"time"
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
	blocks, detail := lockVerdict(j, executors, now)
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

	blocks, detail = servedBy(j, executors)
	add("executors", blocks, detail)
	return out, nil
}

// lockVerdict tells whether j's lock holds at now and, from the executors'
// reports, whether its owner is alive to extend it.
func lockVerdict(j *Job, executors []*JobExecutorInfo, now time.Time) (bool, string) {
	if j.LockOwner == "" || j.LockExpiration == nil {
		return false, "not locked"
	}
	until := j.LockExpiration.Format(time.RFC3339)
	if !j.LockExpiration.After(now) {
		return false, fmt.Sprintf("the lock of %s expired at %s: the next acquisition takes it over", j.LockOwner, until)
	}
	for _, x := range executors {
		if x.ID == j.LockOwner {
			return true, fmt.Sprintf("locked by %s until %s: running or queued there; that executor is alive (reported %s ago) and extends the lock while the job runs",
				j.LockOwner, until, now.Sub(x.Heartbeat).Round(time.Second))
		}
	}
	return true, fmt.Sprintf("locked by %s until %s, but %s has not reported in the last 30 s: the lock is not being extended; a running job executor takes its locks over, without charging the job, once it has been silent for that executor's DeadOwnerAfter (15 s by default), or when the lock expires",
		j.LockOwner, until, j.LockOwner)
}

// servedBy tells whether a running executor takes j: one that reported
// lately, that is not deployment-aware without j's deployment, whose
// priority range holds j's, and whose pool and queue are not full.
func servedBy(j *Job, executors []*JobExecutorInfo) (bool, string) {
	if len(executors) == 0 {
		return true, "no job executor has reported in the last 30 s: start one (bpmnlite serve, or JobExecutorActivate)"
	}
	var why, busy, serving []string
	for _, x := range executors {
		switch {
		case x.DeploymentAware && j.DeploymentID != "" && !strings.Contains(","+x.Deployments+",", ","+j.DeploymentID+","):
			why = append(why, fmt.Sprintf("%s is deployment-aware and has not registered deployment %s", x.ID, j.DeploymentID))
		case x.PriorityMin != nil && j.Priority < *x.PriorityMin || x.PriorityMax != nil && j.Priority > *x.PriorityMax:
			why = append(why, fmt.Sprintf("%s serves priorities %s, the job has %d", x.ID, priorityRange(x), j.Priority))
		case x.Inflight >= x.PoolSize+x.QueueSize:
			busy = append(busy, fmt.Sprintf("%s (%d jobs acquired, pool %d, queue %d)", x.ID, x.Inflight, x.PoolSize, x.QueueSize))
		default:
			serving = append(serving, fmt.Sprintf("%s (%d of %d busy)", x.ID, min(x.Inflight, x.PoolSize), x.PoolSize))
		}
	}
	switch {
	case len(serving) > 0:
		return false, "served by " + strings.Join(serving, ", ")
	case len(busy) > 0:
		return true, "every executor that serves it is full, queue and pool: " + strings.Join(busy, ", ") + "; it waits its turn"
	}
	return true, "no running executor takes it: " + strings.Join(why, "; ")
}

func priorityRange(x *JobExecutorInfo) string {
	lo, hi := "-∞", "+∞"
	if x.PriorityMin != nil {
		lo = fmt.Sprint(*x.PriorityMin)
	}
	if x.PriorityMax != nil {
		hi = fmt.Sprint(*x.PriorityMax)
	}
	return lo + ".." + hi
}
