package runtime

import (
	"context"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
)

// VariableMapping maps a call activity's variables in Go, as Camunda's
// DelegateVariableMapping: camunda:variableMappingClass names one
// registered with RegisterBean, camunda:variableMappingDelegateExpression
// an expression resolving to one. MapInputVariables runs after the
// camunda:in mappings and may add to vars, the called instance's start
// variables; MapOutputVariables runs when the called instance ends,
// after the camunda:out mappings, and sets what it wants on caller from
// sub, the called instance's variables. An error (a *BpmnError too, as in
// Camunda: no boundary event catches it) fails the command.
type VariableMapping interface {
	MapInputVariables(ctx context.Context, caller *Execution, vars map[string]any) error
	MapOutputVariables(ctx context.Context, caller *Execution, sub map[string]any) error
}

// variableMapping resolves call activity a's variable mapping on x; nil
// without one.
func (c *command) variableMapping(x *execution, a *bpmn.Activity) (VariableMapping, string, error) {
	call := a.Call
	var v any
	var name string
	switch {
	case call.VariableMappingClass != "":
		name = "camunda:variableMappingClass '" + call.VariableMappingClass + "'"
		b, ok := c.e.bean(call.VariableMappingClass)
		if !ok {
			return nil, name, failAt(a, "%s: no bean of that name is registered (RegisterBean)", name)
		}
		v = b
	case call.VariableMappingDelegateExpression != "":
		name = "camunda:variableMappingDelegateExpression " + call.VariableMappingDelegateExpression
		b, err := c.eval(x, call.VariableMappingDelegateExpression)
		if err != nil {
			return nil, name, failAt(a, "%s: %w", name, err)
		}
		v = b
	default:
		return nil, "", nil
	}
	m, ok := v.(VariableMapping)
	if !ok {
		return nil, name, failAt(a, "%s resolved to %T, which does not implement VariableMapping", name, v)
	}
	return m, name, nil
}

// mapInputs runs call activity a's variable mapping on the variables
// the called instance starts with.
func (c *command) mapInputs(x *execution, a *bpmn.Activity, vars map[string]any) error {
	m, name, err := c.variableMapping(x, a)
	if err != nil || m == nil {
		return err
	}
	if err := m.MapInputVariables(c.cc, c.handle(x, ""), vars); err != nil {
		return mappingFailed(a, name, err)
	}
	return nil
}

// mapOutputs runs call activity a's variable mapping when its called
// instance ended with variables sub; super is the calling execution.
func (c *command) mapOutputs(super *execution, a *bpmn.Activity, sub map[string]any) error {
	if a == nil || a.Call == nil {
		return nil
	}
	m, name, err := c.variableMapping(super, a)
	if err != nil || m == nil {
		return err
	}
	if err := m.MapOutputVariables(c.cc, c.handle(super, ""), sub); err != nil {
		return mappingFailed(a, name, err)
	}
	return nil
}

// mappingFailed is the error of a variable mapping: not wrapped, so that a
// BPMN error it returned fails the command instead of being caught.
func mappingFailed(a *bpmn.Activity, name string, err error) error {
	return failAt(a, "%s failed: %s", name, fmt.Sprint(err))
}
