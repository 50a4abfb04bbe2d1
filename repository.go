package bpmnlite

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// The repository: deployments, their resources and process definitions,
// read and changed one by one (lists: Deployments, ProcessDefinitions).

// DeploymentResource is one file of a deployment, as deployed: a BPMN
// model, or a file kept as it is (a form, a decision table, a script, an
// image).
type DeploymentResource = persistence.Resource

// IsProcessModel reports whether a deployment's resource of this name is
// parsed as BPMN (*.bpmn, *.bpmn20.xml, other *.xml files but DMN and
// CMMN ones, names without an extension); other files are kept as they
// are.
func IsProcessModel(name string) bool { return runtime.IsProcessModel(name) }

// AmbiguousKeyError is a process definition key that several tenants
// have, started by key without a tenant (StartRequest.TenantID or
// WithoutTenantID tell which).
type AmbiguousKeyError = runtime.AmbiguousKeyError

// ErrHasInstances is a process definition (or deployment) deleted without
// cascade while it has running instances.
var ErrHasInstances = runtime.ErrHasInstances

// Deployment returns one deployment (without its definitions), or
// ErrNotFound.
func (e *Engine) Deployment(ctx context.Context, id string) (*Deployment, error) {
	rows, err := e.Deployments(ctx, DeploymentQuery{ID: id})
	return only(rows, err, "deployment", id)
}

// DeploymentResources lists the files of a deployment, in the order they
// were deployed; an unknown deployment is ErrNotFound.
func (e *Engine) DeploymentResources(ctx context.Context, deploymentID string) ([]*DeploymentResource, error) {
	rows, err := persistence.List(ctx, e.db, persistence.ResourcesOfDeployment(deploymentID))
	if err == nil && len(rows) == 0 {
		if _, err := e.Deployment(ctx, deploymentID); err != nil {
			return nil, err
		}
	}
	return rows, err
}

// ProcessDefinition returns one process definition, or ErrNotFound.
func (e *Engine) ProcessDefinition(ctx context.Context, id string) (*ProcessDefinition, error) {
	rows, err := e.ProcessDefinitions(ctx, DefinitionQuery{ID: id})
	return only(rows, err, "process definition", id)
}

// ProcessModel returns the BPMN file a process definition was deployed
// from, as deployed.
func (e *Engine) ProcessModel(ctx context.Context, definitionID string) ([]byte, error) {
	pd, err := e.ProcessDefinition(ctx, definitionID)
	if err != nil {
		return nil, err
	}
	rows, err := persistence.List(ctx, e.db, persistence.ResourceNamed(pd.DeploymentID, pd.ResourceName))
	r, err := only(rows, err, "resource", pd.ResourceName)
	if err != nil {
		return nil, err
	}
	return r.Bytes, nil
}

// CalledProcessDefinition is a process definition a call activity of
// another calls statically (its key and version binding constants).
type CalledProcessDefinition struct {
	*ProcessDefinition
	CallingProcessDefinitionID string
	CalledFromActivityIDs      []string // the calling call activities, in the model's order
}

// StaticCalledProcessDefinitions are the process definitions the call
// activities of a process definition call (at any depth) whose called
// element and version are constants, resolved as the call would be now
// (binding, the caller's tenant), as Camunda's
// getStaticCalledProcessDefinitions; those not deployed are left out.
func (e *Engine) StaticCalledProcessDefinitions(ctx context.Context, definitionID string) ([]*CalledProcessDefinition, error) {
	pd, proc, err := e.processOf(ctx, definitionID)
	if err != nil {
		return nil, err
	}
	var out []*CalledProcessDefinition
	for _, a := range proc.AllActivities() {
		call := a.Call
		if call == nil || expression.IsExpression(call.CalledElement) || expression.IsExpression(call.CalledVersion) || expression.IsExpression(call.CalledVersionTag) {
			continue
		}
		q := DefinitionQuery{Key: call.CalledElement, Tenants: persistence.OfTenant(pd.TenantID)}
		q.Sort = []SortKey{{By: "version", Desc: true}}
		switch call.CalledBinding {
		case "deployment":
			q.DeploymentID = pd.DeploymentID
		case "version":
			v, err := strconv.Atoi(strings.TrimSpace(call.CalledVersion))
			if err != nil {
				continue
			}
			q.Version = &v
		case "versionTag":
			q.VersionTag = call.CalledVersionTag
		}
		called, err := e.ProcessDefinitions(ctx, q)
		if err != nil {
			return nil, err
		}
		if len(called) == 0 {
			continue
		}
		i := slices.IndexFunc(out, func(c *CalledProcessDefinition) bool { return c.ID == called[0].ID })
		if i < 0 {
			out = append(out, &CalledProcessDefinition{ProcessDefinition: called[0], CallingProcessDefinitionID: pd.ID})
			i = len(out) - 1
		}
		out[i].CalledFromActivityIDs = append(out[i].CalledFromActivityIDs, a.ID)
	}
	return out, nil
}

// processOf is a process definition and its process, parsed from the
// deployed model.
func (e *Engine) processOf(ctx context.Context, definitionID string) (*ProcessDefinition, *bpmn.Process, error) {
	pd, err := e.ProcessDefinition(ctx, definitionID)
	if err != nil {
		return nil, nil, err
	}
	b, err := e.ProcessModel(ctx, definitionID)
	if err != nil {
		return nil, nil, err
	}
	model, err := bpmn.Parse(b, bpmn.ParseOptions{File: pd.ResourceName, ForceExecutable: true})
	if err != nil {
		return nil, nil, err
	}
	proc := model.Process(pd.Key)
	if proc == nil {
		return nil, nil, fmt.Errorf("process %q not found in resource %q", pd.Key, pd.ResourceName)
	}
	return pd, proc, nil
}

// RestartRequest restarts ended process instances of a process
// definition (listed, or selected by a historic query): each starts anew
// where Instructions say (start before or after an activity, start a
// sequence flow), with the variables it had when it ended (or, with
// InitialVariables, those it started with) and its business key (unless
// WithoutBusinessKey).
type RestartRequest = runtime.RestartRequest

// ErrCannotRestart is a process instance that cannot be restarted: not
// ended, or of another process definition.
var ErrCannotRestart = runtime.ErrCannotRestart

// RestartProcessInstances restarts process instances of a process
// definition from history, all in one transaction, as Camunda's restart,
// and returns the new instances' ids. An instance not in history is
// ErrNotFound; one still running or of another definition
// ErrCannotRestart; an instruction that does not apply a
// *ModificationError.
func (e *Engine) RestartProcessInstances(ctx context.Context, definitionID string, req RestartRequest) ([]string, error) {
	return e.rt.RestartProcessInstances(ctx, nil, definitionID, req)
}

// SuspendProcessDefinitions suspends (suspend) or activates process
// definitions at once, all or none, as SuspendProcessDefinition and
// ActivateProcessDefinition do one.
func (e *Engine) SuspendProcessDefinitions(ctx context.Context, ids []string, suspend, includeInstances bool) error {
	return e.rt.SuspendProcessDefinitions(ctx, ids, suspend, includeInstances)
}

// DeleteProcessDefinitions deletes process definitions with their job
// definitions, start timers and start subscriptions; running instances
// make it fail (ErrHasInstances) unless cascade deletes them (their end
// listeners run, as in Camunda). Deployments and their resources stay.
func (e *Engine) DeleteProcessDefinitions(ctx context.Context, ids []string, cascade bool) error {
	return e.rt.DeleteProcessDefinitions(ctx, ids, cascade)
}

// SetHistoryTimeToLive sets a process definition's history time to live
// in days (nil: Config.History.TimeToLive): instances that end afterwards
// are removed from history that long after.
func (e *Engine) SetHistoryTimeToLive(ctx context.Context, definitionID string, days *int) error {
	if days != nil && *days < 0 {
		return fmt.Errorf("%w: a history time to live is not negative (%d days)", ErrInvalidQuery, *days)
	}
	return e.rt.SetHistoryTimeToLive(ctx, definitionID, days)
}

// Statistics counts what runs in one process definition or activity.
type Statistics = persistence.Statistics

// IncidentCount is how many open incidents of a type there are.
type IncidentCount = persistence.IncidentCount

// StatisticsOptions say what Statistics count beside instances: failed
// jobs, incidents (of one type, or root causes only).
type StatisticsOptions = persistence.StatisticsOptions

// DefinitionStatistics is a process definition with its statistics.
type DefinitionStatistics struct {
	Statistics
	Definition *ProcessDefinition
}

// ProcessDefinitionStatistics counts, for every process definition, its
// running process instances and, as opt asks, its failed jobs and open
// incidents by type, as Camunda's process definition statistics.
func (e *Engine) ProcessDefinitionStatistics(ctx context.Context, opt StatisticsOptions) ([]*DefinitionStatistics, error) {
	defs, err := e.ProcessDefinitions(ctx, DefinitionQuery{})
	if err != nil {
		return nil, err
	}
	counts, err := persistence.DefinitionStatistics(ctx, e.db, opt)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Statistics, len(counts))
	for _, c := range counts {
		byID[c.ID] = c
	}
	out := make([]*DefinitionStatistics, len(defs))
	for i, d := range defs {
		s := Statistics{ID: d.ID, Incidents: []IncidentCount{}}
		if c := byID[d.ID]; c != nil {
			s = *c
		}
		out[i] = &DefinitionStatistics{Statistics: s, Definition: d}
	}
	return out, nil
}

// ActivityStatistics counts, per activity of a process definition, the
// executions at it (as Executions shows them) and, as opt asks, its
// failed jobs and open incidents by type; activities with nothing to
// count are left out, as in Camunda. An unknown definition is
// ErrNotFound.
func (e *Engine) ActivityStatistics(ctx context.Context, definitionID string, opt StatisticsOptions) ([]*Statistics, error) {
	if _, err := e.ProcessDefinition(ctx, definitionID); err != nil {
		return nil, err
	}
	return persistence.ActivityStatistics(ctx, e.db, definitionID, opt)
}

// only is the one row of rows, or ErrNotFound naming what and id.
func only[T any](rows []*T, err error, what, id string) (*T, error) {
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	return rows[0], nil
}
