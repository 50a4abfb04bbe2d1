package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Runtime management as Camunda's REST API offers it: events delivered to
// one execution, incidents raised and annotated by hand, jobs and job
// definitions suspended by query, due dates recalculated.

// ErrNoSubscription: the execution waits for no such message or signal.
var ErrNoSubscription = errors.New("no such event subscription")

// DeliverToExecution delivers the message or signal name (eventType
// persistence.SubscriptionMessage or SubscriptionSignal) to execution
// executionID only, as Camunda's messageEventReceived and a signal with an
// executionId: the execution must be subscribed to it (ErrNoSubscription).
func (e *Core) DeliverToExecution(ctx context.Context, t persistence.Tx, eventType, name, executionID string, vars map[string]any) error {
	return e.command(ctx, t, "deliver_"+eventType, func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		subs, err := tx.Select(c.cc, persistence.SubscriptionFilter{ExecutionID: executionID, EventType: eventType, EventName: name}.Query())
		if err != nil {
			return err
		}
		switch {
		case len(subs) == 0 && eventType == persistence.SubscriptionSignal:
			return fmt.Errorf("Execution '%s' has not subscribed to a signal event with name '%s'.: %w", executionID, name, ErrNoSubscription)
		case len(subs) == 0:
			return fmt.Errorf("Execution with id '%s' does not have a subscription to a message event with name '%s': %w", executionID, name, ErrNoSubscription)
		}
		s := subs[0]
		if !keepsListening(x.inst.def.Process.Activity(s.ActivityID)) {
			c.cc.Delete(s)
		}
		return c.trigger(x, s.ActivityID, vars)
	})
}

// CreateIncident raises an incident of a type of the caller's on an
// execution that is at an activity, as Camunda's createIncident: it stays
// open until resolved (ResolveIncident) or its instance ends.
func (e *Core) CreateIncident(ctx context.Context, executionID, incidentType, configuration, message string) (*persistence.Incident, error) {
	var in *persistence.Incident
	err := e.command(ctx, nil, "create_incident", func(c *command) error {
		switch {
		case executionID == "":
			return fmt.Errorf("Execution id cannot be null: %w", ErrInvalidArgument)
		case incidentType == "":
			return fmt.Errorf("incidentType is null: %w", ErrInvalidArgument)
		}
		x, err := c.execution(executionID)
		if errors.Is(err, persistence.ErrNotFound) {
			return fmt.Errorf("Cannot find an execution with executionId '%s': execution is null: %w", executionID, ErrInvalidArgument)
		}
		if err != nil {
			return err
		}
		if x.ActivityID == "" {
			return fmt.Errorf("Execution must be related to an activity: activity is null: %w", ErrInvalidArgument)
		}
		in = &persistence.Incident{Type: incidentType, Message: message, ExecutionID: x.ID, ActivityID: x.ActivityID,
			ProcessInstanceID: x.ProcessInstanceID, ProcessDefinitionID: x.ProcessDefinitionID,
			Configuration: configuration, FailedActivityID: x.ActivityID}
		return e.raiseIncident(c.cc, in)
	})
	if err != nil {
		return nil, err
	}
	return in, nil
}

// ErrInvalidArgument: a management call's argument does not fit the state.
var ErrInvalidArgument = errors.New("invalid argument")

// SetIncidentAnnotation sets (with "", clears) an open incident's
// annotation, and its history record's.
func (e *Core) SetIncidentAnnotation(ctx context.Context, id, annotation string) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.IncidentTable, id)
		if err != nil {
			return fmt.Errorf("incident %q: %w", id, err)
		}
		in := ent.(*persistence.Incident)
		in.Annotation = annotation
		cc.Update(in)
		cc.Write(persistence.AnnotateHistoricIncident(id, annotation))
		return nil
	})
}

// SuspendJobs suspends (or activates) the jobs q selects, in one command.
func (e *Core) SuspendJobs(ctx context.Context, q persistence.JobFilter, suspend bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		jobs, err := tx.Select(cc, q.At(cc.Now()))
		if err != nil {
			return err
		}
		setSuspension(cc, jobs, suspend)
		return nil
	})
}

// SuspendJobDefinitions suspends (or activates) the job definitions q
// selects, and with includeJobs their jobs.
func (e *Core) SuspendJobDefinitions(ctx context.Context, q persistence.JobDefinitionFilter, suspend, includeJobs bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		jds, err := tx.Select(cc, q.Query())
		if err != nil {
			return err
		}
		for _, jd := range jds {
			if err := e.suspendJobDefinition(cc, jd, suspend, includeJobs); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetExternalTasksRetries sets the retries of several external tasks in
// one command: all or, when one is missing, none.
func (e *Core) SetExternalTasksRetries(ctx context.Context, ids []string, retries int) error {
	return e.command(ctx, nil, "set_external_task_retries", func(c *command) error {
		for _, id := range ids {
			ent, err := c.cc.Get(persistence.ExternalTaskTable, id)
			if errors.Is(err, persistence.ErrNotFound) {
				return fmt.Errorf("Cannot find external task with id %s: externalTask is null: %w", id, err)
			}
			if err != nil {
				return err
			}
			task := ent.(*persistence.ExternalTask)
			if err := c.setExternalTaskRetries(task, retries); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetJobDueDateCascade sets a job's due date; cascade shifts the runs of a
// repeating timer after it by as much (its cycle's start date moves), as
// Camunda's setJobDuedate with cascade. Without cascade they stay on
// their schedule.
func (e *Core) SetJobDueDateCascade(ctx context.Context, jobID string, due *time.Time, cascade bool) error {
	return e.withJob(ctx, jobID, func(cc *tx.Context, j *persistence.Job) error {
		if cascade && j.Repeat != "" && j.DueDate != nil && due != nil {
			repeat, err := shiftCycle(j.Repeat, due.Sub(*j.DueDate))
			if err != nil {
				return err
			}
			j.Repeat = repeat
		}
		if due != nil {
			d := due.UTC()
			due = &d
		}
		j.DueDate = due
		cc.Update(j)
		return nil
	})
}

// shiftCycle moves the start date of a stored cycle (Rn/start/P, as
// timers store them) by d.
func shiftCycle(cycle string, d time.Duration) (string, error) {
	parts := strings.Split(cycle, "/")
	if len(parts) == 3 {
		if start, err := time.Parse(cycleStartLayout, parts[1]); err == nil {
			parts[1] = start.Add(d).Format(cycleStartLayout)
			return strings.Join(parts, "/"), nil
		}
	}
	return "", fmt.Errorf("cannot cascade a due date change to the cycle %q: only cycles with a start date (Rn/start/P) shift: %w", cycle, ErrInvalidArgument)
}

// cycleStartLayout is the start date of a cycle as timers store it.
const cycleStartLayout = "2006-01-02T15:04:05"

// RecalculateJobDueDate computes a timer job's due date again from its
// timer definition: from the job's creation time when creationDateBased,
// else from now, as Camunda's recalculateJobDuedate.
func (e *Core) RecalculateJobDueDate(ctx context.Context, jobID string, creationDateBased bool) error {
	return e.command(ctx, nil, "recalculate_due_date", func(c *command) error {
		j, err := e.job(c.cc, jobID)
		if err != nil {
			return err
		}
		if j.Type != persistence.JobTimer {
			return fmt.Errorf("Only timer jobs can be recalculated, but the job with id '%s' is of type '%s': %w", jobID, j.Type, ErrInvalidArgument)
		}
		var x *execution
		var a *bpmn.Activity
		var td *bpmn.TimerDefinition
		if j.ExecutionID != "" {
			if x, err = c.execution(j.ExecutionID); err != nil {
				return err
			}
			a, td = jobTimer(x.inst.def.Process, j.HandlerConfig)
		} else {
			def, err := c.definition(j.ProcessDefinitionID)
			if err != nil {
				return err
			}
			c.startDef = def
			a, td = jobTimer(def.Process, j.HandlerConfig)
		}
		if a == nil || td == nil {
			return fmt.Errorf("job %q: its timer event %q is not in its process: %w", jobID, j.HandlerConfig, ErrInvalidArgument)
		}
		base := c.cc.Now()
		if creationDateBased {
			base = j.CreateTime
		}
		due, repeat, err := c.timerDue(x, a, td, base)
		if err != nil {
			return err
		}
		j.DueDate = &due
		if j.Repeat != "" {
			j.Repeat = repeat
		}
		c.cc.Update(j)
		return nil
	})
}
