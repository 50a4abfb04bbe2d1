package jobexecutor

import (
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The verdicts bpmnlite.Engine.ExplainJob (and `bpmnlite jobs explain`)
// gives from the executors' reports: whether a job's lock holds, and
// whether a running executor takes the job.

// LockVerdict tells whether j's lock holds at now and, from the executors'
// reports, whether its owner is alive to extend it.
func LockVerdict(j *persistence.Job, executors []*persistence.JobExecutorInfo, now time.Time) (bool, string) {
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

// ServedBy tells whether a running executor takes j: one that reported
// lately, that is not deployment-aware without j's deployment, whose
// priority range holds j's, and whose pool and queue are not full.
func ServedBy(j *persistence.Job, executors []*persistence.JobExecutorInfo) (bool, string) {
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

func priorityRange(x *persistence.JobExecutorInfo) string {
	lo, hi := "-∞", "+∞"
	if x.PriorityMin != nil {
		lo = fmt.Sprint(*x.PriorityMin)
	}
	if x.PriorityMax != nil {
		hi = fmt.Sprint(*x.PriorityMax)
	}
	return lo + ".." + hi
}
