package bpmnlite

import (
	"context"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/runtime"
)

// SetJobRetries sets a job's retries: above 0 it resolves the job's
// incident and the job becomes acquirable again; 0 raises an incident.
func (e *Engine) SetJobRetries(ctx context.Context, jobID string, retries int) error {
	return e.rt.SetJobRetries(ctx, jobID, retries)
}

// SetJobRetriesByDefinition sets the retries of the failed jobs (no
// retries left) of a job definition, as Camunda does. Their incidents stay
// open until the job succeeds; a job that fails again keeps its incident.
func (e *Engine) SetJobRetriesByDefinition(ctx context.Context, jobDefinitionID string, retries int) error {
	return e.rt.SetJobRetriesByDefinition(ctx, jobDefinitionID, retries)
}

// DeleteJob deletes a job and its incident. A job a job executor is running
// (its lock holds) is refused with ErrJobLocked. Nothing continues the
// job's execution afterwards: use it for jobs that must not run.
func (e *Engine) DeleteJob(ctx context.Context, jobID string) error {
	return e.rt.DeleteJob(ctx, jobID)
}

// SetJobRepeat changes the cycle of a repeating timer job (a timer start
// event or a non-interrupting boundary timer with a timeCycle). The job
// keeps its due date; the runs after it follow the new cycle, stored as
// given, as Camunda stores it: "R5/2026-12-01T10:00:00/PT1M" runs on that
// grid until its five runs after the start date are done, a cron expression
// on its schedule; "R5/PT1M" (no start date) runs a minute after each run
// and, as in Camunda, its count does not end it.
func (e *Engine) SetJobRepeat(ctx context.Context, jobID, cycle string) error {
	return e.rt.SetJobRepeat(ctx, jobID, cycle)
}

// CleanUpHistory removes one batch of history whose time to live has
// passed (see Config.History.TimeToLive) and reports how many process
// instances' history it removed; the history cleanup job does the same in
// the background.
func (e *Engine) CleanUpHistory(ctx context.Context) (int, error) {
	return e.rt.CleanUpHistory(ctx)
}

// ScheduleHistoryCleanup creates the history cleanup job unless it exists
// (a time to live in Config or on a deployed definition does it too), and
// with immediatelyDue makes it due now.
func (e *Engine) ScheduleHistoryCleanup(ctx context.Context, immediatelyDue bool) error {
	if err := e.rt.ScheduleHistoryCleanup(ctx); err != nil {
		return err
	}
	if !immediatelyDue {
		return nil
	}
	now := e.Now()
	return e.rt.SetJobDueDate(ctx, HistoryCleanupJobID, &now)
}

// HistoryCleanupJobID is the id of the job that removes history whose
// time to live has passed.
const HistoryCleanupJobID = runtime.HistoryCleanupJobID

// SetJobDueDate sets when a job becomes due (nil: at once).
func (e *Engine) SetJobDueDate(ctx context.Context, jobID string, due *time.Time) error {
	return e.rt.SetJobDueDate(ctx, jobID, due)
}

// SetJobPriority sets one job's priority.
func (e *Engine) SetJobPriority(ctx context.Context, jobID string, priority int64) error {
	return e.rt.SetJobPriority(ctx, jobID, priority)
}

// SetOverridingJobPriority gives every new job of the job definition this
// priority, above what the BPMN says; cascade sets it on existing jobs too
// (running jobs are not preempted).
func (e *Engine) SetOverridingJobPriority(ctx context.Context, jobDefinitionID string, priority int64, cascade bool) error {
	return e.rt.SetOverridingJobPriority(ctx, jobDefinitionID, &priority, cascade)
}

// ClearOverridingJobPriority lets new jobs of the job definition take their
// priority from the BPMN again.
func (e *Engine) ClearOverridingJobPriority(ctx context.Context, jobDefinitionID string) error {
	return e.rt.SetOverridingJobPriority(ctx, jobDefinitionID, nil, false)
}

// SuspendJob suspends a job: it is not acquired until activated.
func (e *Engine) SuspendJob(ctx context.Context, jobID string) error {
	return e.rt.SuspendJob(ctx, jobID, true)
}

// ActivateJob activates a suspended job.
func (e *Engine) ActivateJob(ctx context.Context, jobID string) error {
	return e.rt.SuspendJob(ctx, jobID, false)
}

// SuspendJobDefinition suspends a job definition: its new jobs are created
// suspended; includeJobs suspends its existing jobs too.
func (e *Engine) SuspendJobDefinition(ctx context.Context, jobDefinitionID string, includeJobs bool) error {
	return e.rt.SuspendJobDefinition(ctx, jobDefinitionID, true, includeJobs)
}

// ActivateJobDefinition activates a job definition (and, with includeJobs,
// its jobs).
func (e *Engine) ActivateJobDefinition(ctx context.Context, jobDefinitionID string, includeJobs bool) error {
	return e.rt.SuspendJobDefinition(ctx, jobDefinitionID, false, includeJobs)
}

// SuspendProcessDefinition suspends a process definition: no new instances,
// and none of its jobs (timer start jobs included) is acquired;
// includeInstances suspends its running instances too.
func (e *Engine) SuspendProcessDefinition(ctx context.Context, definitionID string, includeInstances bool) error {
	return e.rt.SuspendProcessDefinition(ctx, definitionID, true, includeInstances)
}

// ActivateProcessDefinition activates a process definition (and, with
// includeInstances, its instances).
func (e *Engine) ActivateProcessDefinition(ctx context.Context, definitionID string, includeInstances bool) error {
	return e.rt.SuspendProcessDefinition(ctx, definitionID, false, includeInstances)
}

// SuspendProcessInstance suspends a process instance: its tasks cannot be
// completed and its jobs are not acquired.
func (e *Engine) SuspendProcessInstance(ctx context.Context, id string) error {
	return e.rt.SuspendProcessInstance(ctx, id, true)
}

// ActivateProcessInstance activates a suspended process instance.
func (e *Engine) ActivateProcessInstance(ctx context.Context, id string) error {
	return e.rt.SuspendProcessInstance(ctx, id, false)
}

// SetProcessInstancesSuspended suspends (suspended true) or activates
// process instances in one transaction; an unknown id (ErrNotFound)
// changes none of them.
func (e *Engine) SetProcessInstancesSuspended(ctx context.Context, ids []string, suspended bool) error {
	return e.rt.SuspendProcessInstances(ctx, ids, suspended)
}

// ActivityInstance is a node of a process instance's activity instance
// tree; TransitionInstance an execution between activities (async).
type (
	ActivityInstance   = runtime.ActivityInstance
	TransitionInstance = runtime.TransitionInstance
)

// ActivityInstances is the activity instance tree of a running process
// instance, as Camunda's getActivityInstance: the instance at the root,
// the activities running in it, the subprocesses and multi-instance
// bodies with theirs.
func (e *Engine) ActivityInstances(ctx context.Context, processInstanceID string) (*ActivityInstance, error) {
	return e.rt.ActivityInstanceTree(ctx, processInstanceID)
}

// ResolveIncident resolves an incident; a failed job gets one retry.
func (e *Engine) ResolveIncident(ctx context.Context, id string) error {
	return e.rt.ResolveIncident(ctx, id)
}

// RegisterDeployment lets this engine's job executor acquire the jobs of a
// deployment made elsewhere (deployment-aware acquisition). Deployments
// made through this engine are registered already.
func (e *Engine) RegisterDeployment(ctx context.Context, deploymentID string) error {
	ok, err := e.rt.DeploymentExists(ctx, deploymentID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("deployment %s does not exist: %w", deploymentID, ErrNotFound)
	}
	e.rt.RegisterDeployment(deploymentID)
	return nil
}

// UnregisterDeployment stops this engine's job executor from acquiring the
// jobs of a deployment.
func (e *Engine) UnregisterDeployment(deploymentID string) { e.rt.UnregisterDeployment(deploymentID) }

// RegisteredDeployments lists the deployments this engine's job executor serves.
func (e *Engine) RegisteredDeployments() []string { return e.rt.RegisteredDeployments() }

// DeleteDeployment deletes a deployment and its definitions; running
// instances make it fail unless cascade deletes them.
func (e *Engine) DeleteDeployment(ctx context.Context, deploymentID string, cascade bool) error {
	return e.rt.DeleteDeployment(ctx, deploymentID, cascade)
}
