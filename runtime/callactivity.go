package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Call activities: starting the called process, mapping variables in and out.

// callProcess starts the called process of call activity a, waiting in x.
func (c *command) callProcess(x *execution, a *bpmn.Activity) error {
	call := a.Call
	if call == nil {
		return failAt(a, "no called element") // not parsed as a call activity
	}
	key, err := c.text(x, call.CalledElement)
	if err != nil {
		return failAt(a, "calledElement: %w", err)
	}
	def, err := c.calledDefinition(x, call, key)
	if err != nil {
		return failAt(a, "%w", err)
	}
	vars := make(map[string]any)
	businessKey := ""
	for _, m := range call.In {
		if m.BusinessKey != "" {
			if businessKey, err = c.text(x, m.BusinessKey); err != nil {
				return failAt(a, "businessKey: %w", err)
			}
			continue
		}
		if err := c.mapVariable(x, m, vars); err != nil {
			return failAt(a, "camunda:in: %w", err)
		}
	}
	if err := c.mapInputs(x, a, vars); err != nil {
		return err
	}
	in, err := c.startInstance(def, businessKey, x.ID, vars, def.Process.NoneStartEvent())
	if err != nil {
		return err
	}
	if h := c.history[x.ActivityInstanceID]; h != nil {
		h.CalledProcessInstanceID = in.root.ID
		c.cc.Update(h)
	}
	return nil
}

// calledDefinition is the version of process key that call activity a
// starts from x, by its camunda:calledElementBinding.
func (c *command) calledDefinition(x *execution, a *bpmn.CallInfo, key string) (*Definition, error) {
	switch a.CalledBinding {
	case "deployment":
		return c.definitionFrom(persistence.DefinitionFilter{Key: key, DeploymentID: x.inst.def.DeploymentID, Tenants: persistence.OfTenant(x.inst.def.TenantID)}.Query(), key,
			" in the deployment of the calling process")
	case "version":
		n, err := c.integer(x, a.CalledVersion)
		if err != nil {
			return nil, fmt.Errorf("calledElementVersion: %w", err)
		}
		if n < 1 {
			return nil, fmt.Errorf("calledElementVersion %d is not a version number", n)
		}
		version := int(n)
		return c.definitionFrom(persistence.DefinitionFilter{Key: key, Version: &version, Tenants: persistence.OfTenant(x.inst.def.TenantID)}.Query(), key, fmt.Sprintf(" at version %d", n))
	case "versionTag":
		tag, err := c.text(x, a.CalledVersionTag)
		if err != nil {
			return nil, fmt.Errorf("calledElementVersionTag: %w", err)
		}
		return c.latestDefinition(key, x.inst.def.TenantID, tag)
	}
	// The called process is the calling one's tenant's, as Camunda's
	// default calledElementTenantId.
	return c.latestDefinition(key, x.inst.def.TenantID, "")
}

type mappedVars struct{ vars, local map[string]any }

// outputs computes the camunda:out mappings of call activity call from the
// ending called instance's root.
func (c *command) outputs(root *execution, call *bpmn.Activity) (mappedVars, error) {
	out := mappedVars{vars: map[string]any{}, local: map[string]any{}}
	if call == nil || call.Call == nil {
		return out, nil
	}
	for _, m := range call.Call.Out {
		dst := out.vars
		if m.Local {
			dst = out.local
		}
		if err := c.mapVariable(root, m, dst); err != nil {
			return out, failAt(call, "camunda:out: %w", err)
		}
	}
	return out, nil
}

// mapVariable applies one camunda:in/out mapping read from x into dst. A
// transient variable copied by name stays transient, as in Camunda; an
// expression's value is stored.
func (c *command) mapVariable(x *execution, m bpmn.VariableMapping, dst map[string]any) error {
	switch {
	case m.All:
		all, err := x.variablesMarked(true)
		if err != nil {
			return err
		}
		for k, v := range all {
			dst[k] = v
		}
	case m.SourceExpression != "":
		ex, err := expression.Compile(m.SourceExpression)
		if err != nil {
			return err
		}
		v, err := ex.Eval(c.resolver(x))
		if err != nil {
			return err
		}
		dst[m.Target] = v
	case m.Source != "":
		v, _, err := x.variableMarked(m.Source, true)
		if err != nil {
			return err
		}
		target := m.Target
		if target == "" {
			target = m.Source
		}
		dst[target] = v
	}
	return nil
}
