package jobexecutor_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Helpers of the job executor behaviour tests (prefixed je).

// jeAcquirable returns what an acquisition with p's ordering and filters
// would lock at the fake clock's time (p.Now when set), in its order,
// without locking anything: the acquisition's transaction is rolled back.
// This is Camunda's "acquirable list".
func (e *env) jeAcquirable(p persistence.AcquireParams) []*persistence.Job {
	e.T.Helper()
	if p.Now.IsZero() {
		p.Now = e.Clock.Now()
	}
	p.LockOwner = "probe"
	p.LockUntil = p.Now.Add(time.Minute)
	if p.Limit == 0 {
		p.Limit = 1000
	}
	t, err := harness.Store(e.Eng).Begin(e.Ctx, false)
	if err != nil {
		e.T.Fatalf("begin: %v", err)
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(e.Ctx)) }()
	jobs, err := persistence.AcquireJobs(e.Ctx, t, p)
	if err != nil {
		e.T.Fatalf("acquire jobs: %v", err)
	}
	return jobs
}

// jeLock acquires (and commits) the jobs p selects for owner until
// lockUntil, as a node's acquisition would, and returns them locked.
func (e *env) jeLock(owner string, lockUntil time.Time, p persistence.AcquireParams) []*persistence.Job {
	e.T.Helper()
	p.Now, p.LockOwner, p.LockUntil = e.Clock.Now(), owner, lockUntil
	if p.Limit == 0 {
		p.Limit = 1000
	}
	t, err := harness.Store(e.Eng).Begin(e.Ctx, false)
	if err != nil {
		e.T.Fatalf("begin: %v", err)
	}
	jobs, err := persistence.AcquireJobs(e.Ctx, t, p)
	if err == nil {
		err = t.Commit(e.Ctx)
	}
	if err != nil {
		_ = t.Rollback(context.WithoutCancel(e.Ctx))
		e.T.Fatalf("lock jobs for %s: %v", owner, err)
	}
	return jobs
}

// jeJob returns job id, failing the test when it is gone.
func (e *env) jeJob(id string) *bpmnlite.Job {
	e.T.Helper()
	js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: id})
	if err != nil || len(js) != 1 {
		e.T.Fatalf("job %s: %d rows, %v", id, len(js), err)
	}
	return js[0]
}

// jeJobGone reports whether job id no longer exists.
func (e *env) jeJobGone(id string) bool {
	e.T.Helper()
	js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: id})
	if err != nil {
		e.T.Fatalf("jobs: %v", err)
	}
	return len(js) == 0
}

// jeIncidents returns the open incidents matching q.
func (e *env) jeIncidents(q bpmnlite.IncidentQuery) []*bpmnlite.Incident {
	e.T.Helper()
	in, err := e.Eng.Incidents(e.Ctx, q)
	if err != nil {
		e.T.Fatalf("incidents: %v", err)
	}
	return in
}

// jeTimeoutProcess is a user task "work" with an interrupting boundary
// timer "late" of duration; the timer's path leads to a user task
// "escalate" when escalate is set, else straight to an end event.
func jeTimeoutProcess(key, duration string, escalate bool) string {
	afterTimer := `
    <sequenceFlow id="f3" sourceRef="late" targetRef="end2" />`
	if escalate {
		afterTimer = `
    <sequenceFlow id="f3" sourceRef="late" targetRef="escalate" />
    <userTask id="escalate" />
    <sequenceFlow id="f4" sourceRef="escalate" targetRef="end2" />`
	}
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <userTask id="work" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />
    <boundaryEvent id="late" attachedToRef="work">
      <timerEventDefinition><timeDuration>`+duration+`</timeDuration></timerEventDefinition>
    </boundaryEvent>`+afterTimer+`
    <endEvent id="end2" />`)
}

// jeWaitEnded waits until every instance of pis has ended.
func (e *env) jeWaitEnded(pis []string, timeout time.Duration) {
	e.T.Helper()
	harness.WaitFor(e.T, "every instance to end", timeout, func() bool {
		for _, pi := range pis {
			if !e.Ended(pi) {
				return false
			}
		}
		return true
	})
}

// jeStartBefore starts n instances of key directly before activity.
func (e *env) jeStartBefore(key, activity string, n int) []string {
	e.T.Helper()
	var pis []string
	for range n {
		pis = append(pis, e.StartBefore(key, activity))
	}
	return pis
}

// jePriorities lists the jobs' priorities, in their order.
func jePriorities(js []*persistence.Job) []int64 {
	out := make([]int64, len(js))
	for i, j := range js {
		out[i] = j.Priority
	}
	return out
}

// jeRepeat expands (value, count) pairs into a list, for expected
// priority lists.
func jeRepeat(groups ...[2]int64) []int64 {
	var out []int64
	for _, g := range groups {
		for range g[1] {
			out = append(out, g[0])
		}
	}
	return out
}

func jeIDs(js []*persistence.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

// jeDescribe shows jobs as type/priority/due for failure messages.
func jeDescribe(js []*persistence.Job) string {
	var s []string
	for _, j := range js {
		due := "-"
		if j.DueDate != nil {
			due = j.DueDate.Format("15:04:05")
		}
		s = append(s, fmt.Sprintf("%s@%s(p%d,%s)", j.Type, j.ActivityID, j.Priority, due))
	}
	return strings.Join(s, " ")
}
