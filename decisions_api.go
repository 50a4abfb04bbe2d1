package bpmnlite

import (
	"context"

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

// HistoricDecisionInput is an input's value in an evaluation.
type HistoricDecisionInput = persistence.HistoricDecisionInput

// HistoricDecisionOutput is a matched rule's output value in an evaluation.
type HistoricDecisionOutput = persistence.HistoricDecisionOutput

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

// HistoricDecisionInputs are the inputs of evaluations ids.
func (e *Engine) HistoricDecisionInputs(ctx context.Context, ids []string) ([]*HistoricDecisionInput, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return persistence.List(ctx, e.db, persistence.DecisionInputsOf(ids))
}

// HistoricDecisionOutputs are the outputs of evaluations ids, by rule.
func (e *Engine) HistoricDecisionOutputs(ctx context.Context, ids []string) ([]*HistoricDecisionOutput, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return persistence.List(ctx, e.db, persistence.DecisionOutputsOf(ids))
}
