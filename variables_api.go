package bpmnlite

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Variables with their Camunda types: reading and changing the variables
// of an execution or a task by name, and listing stored variables and
// their history.

// TypedValue is a variable value declared with one of Camunda's value
// types (Short, Object with its objectTypeName, File with its filename,
// Xml, ...): put it in any variables map the engine takes. The type and
// its valueInfo are stored with the value and come back in a
// VariableInstance; the command, and Variables, see the plain value.
type TypedValue = runtime.TypedValue

// VariableScope names the variables ScopeVariables reads and
// ModifyVariables changes: an execution's (a process instance is its
// root execution) or a user task's; Local: only the scope's own.
type VariableScope = runtime.VariableScope

// VariableCondition is one condition on a variable's value, with Camunda's
// operators (eq, neq, gt, gteq, lt, lteq, like), for the query types'
// variable fields (TaskQuery.ProcessVariables, ...).
type VariableCondition = persistence.VariableCondition

// VariableConditions are conditions that must all hold.
type VariableConditions = persistence.VariableConditions

// VariableInstanceQuery filters stored variables (Camunda's variable
// instances); zero fields match all.
type VariableInstanceQuery = persistence.VariableFilter

// HistoricVariableInstanceQuery filters the history of variables: the
// last value of each variable, kept when its scope ends (written unless
// Config.History.Level is below HistoryAudit).
type HistoricVariableInstanceQuery = persistence.HistoricVariableFilter

// VariableInstance is one stored variable with its Camunda type.
type VariableInstance struct {
	ID   string
	Name string
	// Type is Camunda's type name (String, Integer, Object, ...): the one
	// it was declared with (TypedValue), else the one its value implies.
	Type  string
	Value any // the Go value, as Variables gives it
	// ValueInfo is Camunda's valueInfo of Type (objectTypeName,
	// serializationDataFormat; filename, mimeType, encoding).
	ValueInfo map[string]any
	// Serialized is a Json or Object value's document as stored.
	Serialized           string
	ProcessInstanceID    string
	ExecutionID          string
	TaskID               string // a task-local variable's task
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	// State is a variable's state in history: "CREATED", or "DELETED"
	// once removed; "" for a stored variable.
	State string
	// CreateTime: in history, when the variable was created (nil when
	// unknown: recorded before bpmnlite kept it).
	CreateTime *time.Time
}

// variableInstance is r as a VariableInstance (its definition not set).
func variableInstance(r *persistence.Variable) (*VariableInstance, error) {
	value, err := runtime.DecodeVariable(r)
	if err != nil {
		return nil, err
	}
	return instanceOf(r, value), nil
}

// instanceOf is r, whose value decodes to value, as a VariableInstance.
func instanceOf(r *persistence.Variable, value any) *VariableInstance {
	typ, info := runtime.TypeOf(r)
	v := &VariableInstance{ID: r.ID, Name: r.Name, Type: typ, Value: value, ValueInfo: info,
		ProcessInstanceID: r.ProcessInstanceID, ExecutionID: r.ExecutionID, TaskID: r.TaskID}
	if r.Type == persistence.VarJSON {
		v.Serialized = r.Text
	}
	return v
}

// ScopeVariables returns the stored variables of scope s by name (a
// task's local ones hide its execution's, inner scopes outer ones); an
// unknown execution or task is ErrNotFound.
func (e *Engine) ScopeVariables(ctx context.Context, s VariableScope) (map[string]*VariableInstance, error) {
	rows, err := e.rt.ScopeVariables(ctx, s)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*VariableInstance, len(rows))
	for name, r := range rows {
		if out[name], err = variableInstance(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ModifyVariables sets the variables of set in scope s, then removes those
// named in remove, in one transaction. Not Local, a variable is set where
// it is visible from the scope (on the process instance when new) and
// removed from the nearest scope that has it. A task's local variables
// end with the task.
func (e *Engine) ModifyVariables(ctx context.Context, s VariableScope, set map[string]any, remove []string) error {
	return e.rt.ModifyVariables(ctx, s, set, remove)
}

// VariableInstances lists stored variables, by name.
func (e *Engine) VariableInstances(ctx context.Context, q VariableInstanceQuery) ([]*VariableInstance, error) {
	rows, err := persistence.List(ctx, e.db, q.Query())
	if err != nil {
		return nil, err
	}
	return variableInstances(ctx, e, rows, func(r *persistence.Variable) *persistence.Variable { return r })
}

// HistoricVariableInstances lists the history of variables, by name.
func (e *Engine) HistoricVariableInstances(ctx context.Context, q HistoricVariableInstanceQuery) ([]*VariableInstance, error) {
	rows, err := persistence.List(ctx, e.db, q.Query())
	if err != nil {
		return nil, err
	}
	vs, err := variableInstances(ctx, e, rows, func(r *persistence.HistoricVariable) *persistence.Variable { return &r.Variable })
	for i, v := range vs {
		v.State, v.CreateTime = rows[i].State, rows[i].CreateTime
	}
	return vs, err
}

// variableInstances converts rows, with their instances' definitions
// (one look-up per instance).
func variableInstances[R any](ctx context.Context, e *Engine, rows []R, variable func(R) *persistence.Variable) ([]*VariableInstance, error) {
	out := make([]*VariableInstance, len(rows))
	instances := map[string]*HistoricProcessInstance{}
	for i, row := range rows {
		v, err := variableInstance(variable(row))
		if err != nil {
			return nil, err
		}
		p, seen := instances[v.ProcessInstanceID]
		if !seen && v.ProcessInstanceID != "" {
			ps, err := e.HistoricProcessInstances(ctx, HistoricProcessInstanceQuery{ID: v.ProcessInstanceID})
			if err != nil {
				return nil, err
			}
			if len(ps) > 0 {
				p = ps[0]
			}
			instances[v.ProcessInstanceID] = p
		}
		if p != nil {
			v.ProcessDefinitionID, v.ProcessDefinitionKey = p.ProcessDefinitionID, p.ProcessDefinitionKey
		}
		out[i] = v
	}
	return out, nil
}

// DeleteHistoricVariableInstance deletes the history of variable id
// (ErrNotFound when there is none).
func (e *Engine) DeleteHistoricVariableInstance(ctx context.Context, id string) error {
	return e.rt.DeleteHistoricVariable(ctx, id)
}

// ValueTypeName is Camunda's spelling of value type name typ (read in any
// case), or "" when Camunda has no such type.
func ValueTypeName(typ string) string { return runtime.ValueTypeName(typ) }
