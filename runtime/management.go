package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Management commands: suspension of definitions and instances, incidents,
// deployments (jobs and job definitions: jobs_manage.go). Every change goes
// through the entity cache with revision checks, so it conflicts with a job
// or command changing the same rows concurrently instead of overwriting it.

func suspension(suspend bool) int {
	if suspend {
		return persistence.Suspended
	}
	return persistence.Active
}

// setSuspension suspends or activates the rows (executions, tasks, external
// tasks, jobs) that are not in that state yet.
func setSuspension[T persistence.Entity](cc *tx.Context, rows []T, suspend bool) {
	want := suspension(suspend)
	for _, r := range rows {
		var state *int
		switch x := any(r).(type) {
		case *persistence.Execution:
			state = &x.Suspension
		case *persistence.Task:
			state = &x.Suspension
		case *persistence.ExternalTask:
			state = &x.Suspension
		case *persistence.Job:
			state = &x.Suspension
		default:
			continue
		}
		if *state != want {
			*state = want
			cc.Update(r)
		}
	}
}

// SuspendProcessDefinition suspends (or activates) a process definition: no
// new instances start, its job definitions and their jobs (timer start jobs
// included) are suspended, so nothing of it is acquired; with
// includeInstances its running instances are suspended too.
func (e *Core) SuspendProcessDefinition(ctx context.Context, definitionID string, suspend, includeInstances bool) error {
	return e.SuspendProcessDefinitions(ctx, []string{definitionID}, suspend, includeInstances)
}

// SuspendProcessDefinitions is SuspendProcessDefinition of several
// definitions at once: all or none change.
func (e *Core) SuspendProcessDefinitions(ctx context.Context, definitionIDs []string, suspend, includeInstances bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		for _, id := range definitionIDs {
			if err := e.suspendDefinition(cc, id, suspend, includeInstances); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *Core) suspendDefinition(cc *tx.Context, definitionID string, suspend, includeInstances bool) error {
	ent, err := cc.Get(persistence.ProcessDefinitionTable, definitionID)
	if err != nil {
		return fmt.Errorf("process definition %q: %w", definitionID, err)
	}
	pd := ent.(*persistence.ProcessDefinition)
	if pd.Suspension != suspension(suspend) {
		pd.Suspension = suspension(suspend)
		cc.Update(pd)
	}
	row := *pd
	cc.AfterCommit(func() { e.defs.refresh(&row) })
	jds, err := tx.Select(cc, persistence.JobDefinitionsOf(pd.ID))
	if err != nil {
		return err
	}
	for _, jd := range jds {
		if err := e.suspendJobDefinition(cc, jd, suspend, true); err != nil {
			return err
		}
	}
	if !includeInstances {
		return nil
	}
	roots, err := tx.Select(cc, persistence.InstancesOfDefinition(pd.ID))
	if err != nil {
		return err
	}
	for _, r := range roots {
		if err := e.suspendInstance(cc, r.ID, suspend); err != nil {
			return err
		}
	}
	return nil
}

// SuspendProcessInstance suspends (or activates) a process instance: its
// executions, tasks, jobs and external tasks. A suspended instance's tasks
// cannot be completed and its jobs are not acquired.
func (e *Core) SuspendProcessInstance(ctx context.Context, id string, suspend bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error { return e.suspendInstance(cc, id, suspend) })
}

// SuspendProcessInstances suspends (or activates) process instances, all
// in one transaction: an unknown id changes none of them.
func (e *Core) SuspendProcessInstances(ctx context.Context, ids []string, suspend bool) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		for _, id := range ids {
			if err := e.suspendInstance(cc, id, suspend); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *Core) suspendInstance(cc *tx.Context, id string, suspend bool) error {
	execs, err := tx.Select(cc, persistence.ExecutionsOfInstance(id))
	if err != nil {
		return err
	}
	if len(execs) == 0 {
		return fmt.Errorf("process instance %q: %w", id, persistence.ErrNotFound)
	}
	setSuspension(cc, execs, suspend)
	tasks, err := tx.Select(cc, persistence.TasksOfInstance(id))
	if err != nil {
		return err
	}
	setSuspension(cc, tasks, suspend)
	ets, err := tx.Select(cc, persistence.ExternalTasksOfInstance(id))
	if err != nil {
		return err
	}
	setSuspension(cc, ets, suspend)
	if !suspend && len(ets) > 0 {
		cc.AfterCommit(e.extWake.wake)
	}
	jobs, err := tx.Select(cc, persistence.JobsOfInstance(id))
	if err != nil {
		return err
	}
	setSuspension(cc, jobs, suspend)
	return nil
}

// ResolveIncident resolves an incident. A failed-job incident is resolved
// by giving its job one retry (as setting retries would).
func (e *Core) ResolveIncident(ctx context.Context, id string) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.IncidentTable, id)
		if err != nil {
			return fmt.Errorf("incident %q: %w", id, err)
		}
		in := ent.(*persistence.Incident)
		if in.Type == persistence.IncidentFailedJob {
			j, err := e.job(cc, in.Configuration)
			if err == nil {
				return e.setRetries(cc, j, 1)
			}
		}
		// With the incidents it caused in calling instances.
		return e.endIncidents(cc, persistence.IncidentFilter{ID: in.ID}.Query(), persistence.IncidentResolved)
	})
}

// DeploymentExists reports whether a deployment with id exists.
func (e *Core) DeploymentExists(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := e.cmd.Run(ctx, func(cc *tx.Context) error {
		_, err := cc.Get(persistence.DeploymentTable, id)
		switch {
		case err == nil:
			ok = true
		case errors.Is(err, persistence.ErrNotFound):
		default:
			return err
		}
		return nil
	})
	return ok, err
}

// DeleteDeployment deletes a deployment with its definitions, job
// definitions, start timers and subscriptions. Running instances of its
// definitions make it fail unless cascade, which deletes them (and their
// history stays). The deployment is unregistered from the job executor.
func (e *Core) DeleteDeployment(ctx context.Context, id string, cascade bool) error {
	var defIDs []string
	err := e.cmd.Run(ctx, func(cc *tx.Context) error {
		defIDs = nil
		dep, err := cc.Get(persistence.DeploymentTable, id)
		if err != nil {
			return fmt.Errorf("deployment %q: %w", id, err)
		}
		defs, err := tx.Select(cc, persistence.DefinitionsOfDeployment(id))
		if err != nil {
			return err
		}
		c := e.newCommand(cc)
		for _, pd := range defs {
			defIDs = append(defIDs, pd.ID)
			if err := c.deleteDefinition(pd, cascade, "deployment deleted"); err != nil {
				return err
			}
		}
		if err := c.run(); err != nil {
			return err
		}
		cc.Write(persistence.DeleteDecisionsOfDeployment(id)...)
		cc.Write(persistence.DeleteResourcesOfDeployment(id))
		cc.Write(persistence.DeleteFormDefinitionsOfDeployment(id))
		cc.Delete(dep)
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range defIDs {
		e.defs.remove(d)
	}
	e.mu.Lock()
	delete(e.deployments, id)
	e.mu.Unlock()
	return nil
}
