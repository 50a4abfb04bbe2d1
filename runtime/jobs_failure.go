package runtime

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// A job's failures: retries, the next attempt from the retry cycle,
// incidents, and the job log.

// recordFailure re-reads the job after the rollback and writes the failure:
// an optimistic-lock conflict only releases the lock (noting the conflict
// as the job's exception message); any other error spends a retry,
// schedules the next attempt from the retry cycle and raises an incident
// when no retry is left. failedAt is the activity the job's command was in.
func (e *Core) recordFailure(cc *tx.Context, jobID string, lock *JobLock, workErr error, failedAt string, start *time.Time) error {
	ent, err := cc.Get(persistence.JobTable, jobID)
	if err != nil {
		return err
	}
	job := ent.(*persistence.Job)
	if err := lock.check(job); err != nil {
		return err // taken over meanwhile: the new holder owns the record
	}
	// The log entries name the lock owner that ran the job, so the lock is
	// released after logging.
	if persistence.IsConflict(workErr) {
		job.ExceptionMessage = truncate(workErr.Error(), 4000)
		e.logJob(cc, job, persistence.JobLogFailed, "optimistic lock conflict, retried without spending a retry: "+workErr.Error(), start)
		job.LockOwner, job.LockExpiration = "", nil
		cc.Update(job)
		return nil
	}
	now := cc.Now().UTC()
	first := job.ExceptionStack == "" // no failure recorded before (a conflict records none)
	c := e.newCommand(cc)
	x, a := e.jobScope(c, job)
	cycle, fromExpression := e.retryCycle(c, job, x)
	rc, cycleErr := timer.ParseRetryCycle(cycle)
	if cycle != "" && cycleErr != nil && fromExpression {
		e.log.Warn("retry cycle expression gave no valid cycle; the job gets no delay", "job", job.ID, "error", cycleErr)
	}
	if first && fromExpression && cycleErr == nil {
		// A constant cycle set the retries at creation; an expression's is
		// known only now, as in Camunda.
		job.Retries = max(rc.Retries, 1)
	}
	if job.Retries > 0 {
		job.Retries--
	}
	job.Failures++
	message, activityID := failureOf(workErr, failedAt)
	job.ExceptionMessage = truncate(message, 4000)
	job.FailedActivityID = activityID
	job.ExceptionStack = fmt.Sprintf("%+v", workErr)
	var pe *tx.PanicError
	if errors.As(workErr, &pe) {
		job.ExceptionStack = pe.Stack
	}
	job.DueDate = nil
	if cycle != "" && cycleErr == nil {
		due := rc.Delay(now, job.Retries)
		if due.After(now) {
			job.DueDate = &due
		}
	}
	if h := jobHandlers[job.HandlerType]; first && job.Repeat != "" && a != nil && h.firstFailure != nil {
		if err := h.firstFailure(c, job, x, a); err != nil {
			return err
		}
	}
	e.logJob(cc, job, persistence.JobLogFailed, job.ExceptionMessage, start)
	job.LockOwner, job.LockExpiration = "", nil
	cc.Update(job)
	// Logged once the failure is stored, on every path that runs jobs.
	logged := *job
	cc.AfterCommit(func() {
		if logged.Retries > 0 {
			e.counts.retried.Add(1)
		} else {
			e.counts.exhausted.Add(1)
		}
		e.log.Warn("job failed", "job", logged.ID, "activity", logged.ActivityID, "failedActivity", logged.FailedActivityID,
			"instance", logged.ProcessInstanceID, "retriesLeft", logged.Retries, "error", logged.ExceptionMessage)
	})
	if job.Retries == 0 {
		return e.createIncident(cc, job)
	}
	return nil
}

// recordExpiredLocks raises the incident of a job whose locks expired
// without a result until no retry was left (a poison job: running it again
// could kill another node), and releases it.
func (e *Core) recordExpiredLocks(ctx context.Context, j AcquiredJob) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.JobTable, j.ID)
		if err != nil {
			return err
		}
		job := ent.(*persistence.Job)
		if err := j.Lock.check(job); err != nil {
			return err
		}
		job.ExceptionMessage = fmt.Sprintf("%s (%d times)", persistence.LockExpiredMessage, job.FailedAttempts)
		e.logJob(cc, job, persistence.JobLogFailed, job.ExceptionMessage, nil)
		job.LockOwner, job.LockExpiration = "", nil
		cc.Update(job)
		return e.createIncident(cc, job)
	})
}

// jobScope loads, into c, what a failing job's retry cycle is evaluated on
// and its timer rescheduled from: its execution (nil for a timer start job,
// or when its instance is gone) and its activity (nil when unknown).
func (e *Core) jobScope(c *command, j *persistence.Job) (*execution, *bpmn.Activity) {
	def, err := c.definition(j.ProcessDefinitionID)
	if err != nil {
		return nil, nil
	}
	c.startDef = def
	var x *execution
	if j.ProcessInstanceID != "" {
		if _, err := c.loadInstance(j.ProcessInstanceID); err == nil {
			x, _ = c.execution(j.ExecutionID)
		}
	}
	return x, def.Process.Activity(stripBody(j.ActivityID))
}

// retryCycle returns the failedJobRetryTimeCycle that governs job: the one
// of its activity (the multi-instance body's for a body job, the loop
// characteristics' for an inner one), else the engine default. An
// expression is evaluated now, on the job's execution x, so a changed
// variable changes the next interval; fromExpression tells so. An
// expression that fails gives "" (no delay), as in Camunda.
func (e *Core) retryCycle(c *command, j *persistence.Job, x *execution) (cycle string, fromExpression bool) {
	if def, err := c.definition(j.ProcessDefinitionID); err == nil {
		switch a := def.Process.Activity(stripBody(j.ActivityID)); {
		case a == nil:
		case a.MultiInstance != nil && !isBodyID(j.ActivityID) && j.Type == persistence.JobMessage:
			cycle = a.MultiInstance.RetryTimeCycle
		default:
			cycle = a.RetryTimeCycle
		}
	}
	if cycle == "" {
		cycle = e.Config.Jobs.DefaultRetryCycle
	}
	if !expression.IsExpression(cycle) {
		return cycle, false
	}
	v, err := c.text(x, cycle)
	if err != nil {
		e.log.Warn("failedJobRetryTimeCycle expression failed; the job gets no delay", "job", j.ID, "expression", cycle, "error", err)
		return "", true
	}
	return v, true
}

// createIncident records that job has no retries left: an incident at the
// job's execution, and, as Camunda does, one more in each calling process
// instance up the call activity chain, each caused by the one below and all
// pointing to the job's incident as root cause.
//
// A job has one open incident however often it fails: when it already has
// one (its retries were set through its job definition, or it was run by
// hand at 0 retries), that one stays.
func (e *Core) createIncident(cc *tx.Context, j *persistence.Job) error {
	open, err := tx.Select(cc, persistence.IncidentsOfJob(j.ID))
	if err != nil || len(open) > 0 {
		return err
	}
	return e.raiseIncident(cc, &persistence.Incident{
		Type: persistence.IncidentFailedJob, Message: j.ExceptionMessage, ExecutionID: j.ExecutionID, ActivityID: j.ActivityID,
		ProcessInstanceID: j.ProcessInstanceID, ProcessDefinitionID: j.ProcessDefinitionID,
		Configuration: j.ID, JobDefinitionID: j.JobDefinitionID, FailedActivityID: j.FailedActivityID,
	})
}

// raiseIncident inserts root, and one incident more in each calling process
// instance up the call activity chain, each caused by the one below.
func (e *Core) raiseIncident(cc *tx.Context, root *persistence.Incident) error {
	now := cc.Now().UTC()
	root.ID, root.Rev, root.Timestamp = newID(), 1, now
	root.CauseIncidentID, root.RootCauseIncidentID = root.ID, root.ID
	e.insertIncident(cc, root)
	cause, instance := root, root.ProcessInstanceID
	for depth := 0; instance != "" && depth < 100; depth++ {
		ent, err := cc.Get(persistence.ExecutionTable, instance)
		if err != nil || ent.(*persistence.Execution).SuperExecutionID == "" {
			break // a timer start job has no instance; a top-level instance ends the chain
		}
		ent, err = cc.Get(persistence.ExecutionTable, ent.(*persistence.Execution).SuperExecutionID)
		if err != nil {
			return err
		}
		super := ent.(*persistence.Execution)
		in := &persistence.Incident{
			ID: newID(), Rev: 1, Type: root.Type, Timestamp: now,
			ExecutionID: super.ID, ActivityID: super.ActivityID, ProcessInstanceID: super.ProcessInstanceID,
			ProcessDefinitionID: super.ProcessDefinitionID, CauseIncidentID: cause.ID, RootCauseIncidentID: root.ID,
		}
		e.insertIncident(cc, in)
		cause, instance = in, super.ProcessInstanceID
	}
	return nil
}

// insertIncident inserts an open incident, and its history record.
func (e *Core) insertIncident(cc *tx.Context, in *persistence.Incident) {
	cc.Insert(in)
	if e.history(config.HistoryFull) {
		cc.Insert(&persistence.HistoricIncident{
			ID: in.ID, Rev: 1, Type: in.Type, CreateTime: in.Timestamp, State: persistence.IncidentOpen,
			Message: in.Message, ExecutionID: in.ExecutionID, ActivityID: in.ActivityID,
			FailedActivityID: in.FailedActivityID, ProcessInstanceID: in.ProcessInstanceID,
			ProcessDefinitionID: in.ProcessDefinitionID, CauseIncidentID: in.CauseIncidentID,
			RootCauseIncidentID: in.RootCauseIncidentID, Configuration: in.Configuration, JobDefinitionID: in.JobDefinitionID,
			HistoryConfiguration: failureLogged(cc, in),
		})
	}
}

// endJobIncidents ends the incident of job and the incidents it caused in
// calling instances: resolved (the job succeeded or got retries) or
// deleted (with the job).
func (e *Core) endJobIncidents(cc *tx.Context, j *persistence.Job, state string) error {
	return e.endIncidents(cc, persistence.IncidentsOfJob(j.ID), state)
}

// endIncidents removes the incidents q selects and those they caused, and
// closes their history records with state.
func (e *Core) endIncidents(cc *tx.Context, q persistence.Query[*persistence.Incident], state string) error {
	roots, err := tx.Select(cc, q)
	if err != nil {
		return err
	}
	for _, r := range roots {
		chain, err := tx.Select(cc, persistence.IncidentsCausedBy(r.ID))
		if err != nil {
			return err
		}
		for _, in := range chain {
			e.deleteIncident(cc, in, state)
		}
		e.deleteIncident(cc, r, state)
	}
	return nil
}

// deleteIncident removes one incident and closes its history record.
func (e *Core) deleteIncident(cc *tx.Context, in *persistence.Incident, state string) {
	if cc.IsDeleted(in) {
		return // also in the chain of another root
	}
	cc.Delete(in)
	if e.history(config.HistoryFull) {
		cc.Write(persistence.EndHistoricIncident(in.ID, cc.Now().UTC(), state))
	}
}

// logJob records an event of job in the job log (when history is on). The
// lock owner is the job's; start is when the run being reported began.
func (e *Core) logJob(cc *tx.Context, j *persistence.Job, event, message string, start *time.Time) {
	if event == persistence.JobLogFailed { // successes count with their command (committed)
		e.meters.addAtCommit(cc, MeterJobFailed, 1)
	}
	if !e.history(config.HistoryFull) {
		return
	}
	entry := &persistence.JobLogEntry{
		ID:                    newID(),
		JobID:                 j.ID,
		Event:                 event,
		Timestamp:             cc.Now().UTC(),
		LockOwner:             j.LockOwner,
		Retries:               j.Retries,
		Message:               message,
		JobDefinitionID:       j.JobDefinitionID,
		ActivityID:            j.ActivityID,
		ProcessInstanceID:     j.ProcessInstanceID,
		Priority:              j.Priority,
		ExecutionStart:        start,
		ExecutionID:           j.ExecutionID,
		ProcessDefinitionID:   j.ProcessDefinitionID,
		ProcessDefinitionKey:  j.ProcessDefinitionKey,
		DeploymentID:          j.DeploymentID,
		RootProcessInstanceID: j.RootProcessInstanceID,
		JobDueDate:            copyTime(j.DueDate),
		FailedActivityID:      j.FailedActivityID,
	}
	if event == persistence.JobLogFailed {
		entry.ExceptionStack = j.ExceptionStack
	}
	entry.JobDefinitionType, entry.JobDefinitionConfiguration = jobDefinitionOf(cc, j)
	cc.Insert(entry)
}

func stack() string { return string(debug.Stack()) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
