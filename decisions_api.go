package bpmnlite

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/dmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Decisions (DMN): deployed decision definitions and decision requirements
// definitions (from .dmn resources of a deployment), evaluating a decision
// by key or id, and the history of evaluations (history level full). See
// docs/decisions.md for what runs.

// DecisionDefinition is a deployed version of a decision.
type DecisionDefinition = persistence.DecisionDefinition

// DecisionRequirementsDefinition is a deployed version of a DMN file of
// more than one decision.
type DecisionRequirementsDefinition = persistence.DecisionRequirementsDefinition

// DecisionDefinitionQuery filters decision definitions; zero fields match all.
type DecisionDefinitionQuery = persistence.DecisionDefinitionFilter

// DecisionRequirementsDefinitionQuery filters decision requirements
// definitions; zero fields match all.
type DecisionRequirementsDefinitionQuery = persistence.DecisionRequirementsDefinitionFilter

// HistoricDecisionInstance is one evaluation of a decision.
type HistoricDecisionInstance = persistence.HistoricDecisionInstance

// HistoricDecisionInstanceQuery filters evaluations; zero fields match all.
type HistoricDecisionInstanceQuery = persistence.HistoricDecisionInstanceFilter

// DecisionResult is a decision's result, Camunda's DmnDecisionResult: one
// entry list per matched rule (a literal expression's value as one entry);
// List gives it as maps, SingleResult, SingleEntry and CollectEntries as
// Camunda's accessors do.
type DecisionResult = dmn.Result

// DecisionSelector names the decision to evaluate: ID, or Key with
// TenantID (or WithoutTenant; neither: the one tenant, or none, that has
// the key).
type DecisionSelector = runtime.DecisionSelector

// EvaluateDecision evaluates the decision sel names with variables, as
// Camunda's DecisionService does, and returns its result and definition.
func (e *Engine) EvaluateDecision(ctx context.Context, sel DecisionSelector, variables map[string]any) (DecisionResult, *DecisionDefinition, error) {
	return e.rt.EvaluateDecision(ctx, sel, variables)
}

// EvaluateDecisionByKey evaluates the latest version of decision key.
func (e *Engine) EvaluateDecisionByKey(ctx context.Context, key string, variables map[string]any) (DecisionResult, error) {
	r, _, err := e.EvaluateDecision(ctx, DecisionSelector{Key: key}, variables)
	return r, err
}

// EvaluateDecisionByID evaluates decision definition id.
func (e *Engine) EvaluateDecisionByID(ctx context.Context, id string, variables map[string]any) (DecisionResult, error) {
	r, _, err := e.EvaluateDecision(ctx, DecisionSelector{ID: id}, variables)
	return r, err
}

// DecisionDefinitions lists decision definitions by key and version.
func (e *Engine) DecisionDefinitions(ctx context.Context, q DecisionDefinitionQuery) ([]*DecisionDefinition, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// DecisionDefinition returns the decision definition with id (ErrNotFound).
func (e *Engine) DecisionDefinition(ctx context.Context, id string) (*DecisionDefinition, error) {
	rows, err := e.DecisionDefinitions(ctx, DecisionDefinitionQuery{ID: id})
	return only(rows, err, "decision definition", id)
}

// DecisionRequirementsDefinitions lists decision requirements definitions.
func (e *Engine) DecisionRequirementsDefinitions(ctx context.Context, q DecisionRequirementsDefinitionQuery) ([]*DecisionRequirementsDefinition, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// DecisionRequirementsDefinition returns the decision requirements
// definition with id (ErrNotFound).
func (e *Engine) DecisionRequirementsDefinition(ctx context.Context, id string) (*DecisionRequirementsDefinition, error) {
	rows, err := e.DecisionRequirementsDefinitions(ctx, DecisionRequirementsDefinitionQuery{ID: id})
	return only(rows, err, "decision requirements definition", id)
}

// DecisionModel returns the DMN file a decision or decision requirements
// definition was deployed from, as deployed.
func (e *Engine) DecisionModel(ctx context.Context, deploymentID, resourceName string) ([]byte, error) {
	rows, err := persistence.List(ctx, e.db, persistence.ResourceNamed(deploymentID, resourceName))
	r, err := only(rows, err, "resource", resourceName)
	if err != nil {
		return nil, err
	}
	return r.Bytes, nil
}

// HistoricDecisionInstances lists evaluations, oldest first.
func (e *Engine) HistoricDecisionInstances(ctx context.Context, q HistoricDecisionInstanceQuery) ([]*HistoricDecisionInstance, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// HistoricDecisionValue is an input or output of an evaluation, with its
// value decoded; RuleID, RuleOrder and VariableName are an output's.
type HistoricDecisionValue struct {
	ID                 string
	DecisionInstanceID string
	ClauseID           string
	ClauseName         string
	RuleID             string
	RuleOrder          int
	VariableName       string
	Value              *VariableInstance
	CreateTime         time.Time
}

// HistoricDecisionInputs are the inputs of evaluations ids.
func (e *Engine) HistoricDecisionInputs(ctx context.Context, ids []string) ([]*HistoricDecisionValue, error) {
	return decisionValues(ctx, e, ids, persistence.DecisionInputsOf, func(r *persistence.HistoricDecisionInput) (*persistence.Variable, HistoricDecisionValue) {
		return &r.Variable, HistoricDecisionValue{ID: r.ID, DecisionInstanceID: r.DecisionInstanceID, ClauseID: r.ClauseID, ClauseName: r.Name, CreateTime: r.CreateTime}
	})
}

// HistoricDecisionOutputs are the outputs of evaluations ids, by rule.
func (e *Engine) HistoricDecisionOutputs(ctx context.Context, ids []string) ([]*HistoricDecisionValue, error) {
	return decisionValues(ctx, e, ids, persistence.DecisionOutputsOf, func(r *persistence.HistoricDecisionOutput) (*persistence.Variable, HistoricDecisionValue) {
		return &r.Variable, HistoricDecisionValue{ID: r.ID, DecisionInstanceID: r.DecisionInstanceID, ClauseID: r.ClauseID, ClauseName: r.ClauseName,
			RuleID: r.RuleID, RuleOrder: r.RuleOrder, VariableName: r.Name, CreateTime: r.CreateTime}
	})
}

// decisionValues reads the rows query gives for evaluations ids, their
// values decoded.
func decisionValues[R persistence.Entity](ctx context.Context, e *Engine, ids []string, query func([]string) persistence.Query[R],
	value func(R) (*persistence.Variable, HistoricDecisionValue)) ([]*HistoricDecisionValue, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := persistence.List(ctx, e.db, query(ids))
	if err != nil {
		return nil, err
	}
	out := make([]*HistoricDecisionValue, len(rows))
	for i, r := range rows {
		v, hv := value(r)
		if hv.Value, err = variableInstance(v); err != nil {
			return nil, err
		}
		out[i] = &hv
	}
	return out, nil
}

// SetDecisionHistoryTimeToLive sets a decision definition's history time
// to live in days (nil: Config.History.TimeToLive).
func (e *Engine) SetDecisionHistoryTimeToLive(ctx context.Context, id string, days *int) error {
	return e.rt.SetDecisionHistoryTimeToLive(ctx, id, days)
}

// DecisionStatistic is how often one decision of a decision requirements
// definition was evaluated.
type DecisionStatistic = persistence.DecisionStatistic

// DecisionStatistics counts the evaluations in history of each decision of
// decision requirements definition drdID (ErrNotFound when there is no
// such definition); with rootInstanceID, only within that evaluation.
func (e *Engine) DecisionStatistics(ctx context.Context, drdID, rootInstanceID string) ([]*DecisionStatistic, error) {
	if _, err := e.DecisionRequirementsDefinition(ctx, drdID); err != nil {
		return nil, err
	}
	return persistence.DecisionStatistics(ctx, e.db, drdID, rootInstanceID)
}

// CleanableDecisionReportQuery selects the decision definitions of the
// cleanable decision instance report; zero fields select all.
type CleanableDecisionReportQuery = persistence.CleanableDecisionReportFilter

// CleanableDecisionReportRow is one decision definition in the cleanable
// decision instance report.
type CleanableDecisionReportRow = persistence.CleanableDecisionReportRow

// CleanableDecisionInstanceReport counts, per decision definition, the
// evaluations in history and those the history cleanup may remove now.
func (e *Engine) CleanableDecisionInstanceReport(ctx context.Context, q CleanableDecisionReportQuery) ([]*CleanableDecisionReportRow, error) {
	return persistence.CleanableDecisionReport(ctx, e.db, q, e.Now())
}
