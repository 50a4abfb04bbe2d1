package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// startInstance creates a process instance of def and schedules its first
// token at start (a start event, or any activity for a start before it).
func (c *command) startInstance(def *Definition, businessKey, superExecutionID string, vars map[string]any, start *bpmn.Activity) (*instance, error) {
	if def.Suspension == persistence.Suspended {
		return nil, fmt.Errorf("process definition %s is suspended: %w", def.ID, ErrSuspended)
	}
	if start == nil {
		return nil, fmt.Errorf("process %q has no none start event; start it by message, timer or before an activity", def.Key)
	}
	in := c.newInstance(def, businessKey, superExecutionID)
	c.historyInstanceStart(in, start.ID)
	if err := in.root.setVariables(vars, true); err != nil {
		return nil, err
	}
	c.e.log.Debug("process instance started", "instance", in.root.ID, "definition", def.ID, "businessKey", businessKey)
	token := c.newChild(in.root)
	if start.Kind != bpmn.StartEvent || start.Parent != nil {
		// Starting before an activity skips the process start: no start
		// event, no process start listeners.
		in.started = true
	}
	c.push(func() error { return c.enter(token, start, false) })
	return in, nil
}

// endInstance ends a process instance whose paths have all completed,
// resuming the calling process when it was started by a call activity.
func (c *command) endInstance(in *instance, state, reason string) error {
	root := in.root
	if root.removed {
		return nil
	}
	if err := c.fireListeners(root, in.def.Process.Listeners, "end", in.def.Process); err != nil {
		return err
	}
	var resume func() error
	if root.SuperExecutionID != "" {
		super, err := c.execution(root.SuperExecutionID)
		if err != nil {
			return err
		}
		call := super.activity()
		out, err := c.outputs(root, call)
		if err != nil {
			return err
		}
		resume = func() error {
			if err := super.setVariables(out.vars, false); err != nil {
				return err
			}
			if err := super.setVariables(out.local, true); err != nil {
				return err
			}
			super.IsActive = true
			return c.leave(super, call)
		}
	}
	for _, ch := range root.activeChildren() {
		if err := c.cancel(ch, reason); err != nil {
			return err
		}
	}
	c.historyInstanceEnd(in, state, reason, in.lastEnd)
	c.cc.Write(persistence.DeleteIncidentsOfInstance(root.ID))
	c.e.log.Debug("process instance ended", "instance", root.ID, "definition", in.def.ID, "state", state)
	if err := c.removeExecution(root); err != nil {
		return err
	}
	if resume != nil {
		c.push(resume)
	}
	return nil
}

// deleteInstance cancels a process instance (API delete, or a called
// instance whose caller was cancelled or caught its error).
func (c *command) deleteInstance(in *instance, reason, state string) error {
	root := in.root
	if root.removed {
		return nil
	}
	for _, ch := range root.activeChildren() {
		if err := c.cancel(ch, reason); err != nil {
			return err
		}
	}
	// As in Camunda, a deleted instance's end listeners run too.
	if err := c.fireListeners(root, in.def.Process.Listeners, "end", in.def.Process); err != nil {
		return err
	}
	c.historyInstanceEnd(in, state, reason, "")
	c.cc.Write(persistence.DeleteIncidentsOfInstance(root.ID))
	return c.removeExecution(root)
}

// callProcess starts the called process of call activity a, waiting in x.
func (c *command) callProcess(x *execution, a *bpmn.Activity) error {
	key, err := c.text(x, a.CalledElement)
	if err != nil {
		return fmt.Errorf("%s: calledElement: %w", a, err)
	}
	def, err := c.e.LatestDefinition(c.cc, key)
	if err != nil {
		return fmt.Errorf("%s: %w", a, err)
	}
	vars := make(map[string]any)
	businessKey := ""
	for _, m := range a.In {
		if m.BusinessKey != "" {
			if businessKey, err = c.text(x, m.BusinessKey); err != nil {
				return fmt.Errorf("%s: businessKey: %w", a, err)
			}
			continue
		}
		if err := c.mapVariable(x, m, vars); err != nil {
			return fmt.Errorf("%s: camunda:in: %w", a, err)
		}
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

type mappedVars struct{ vars, local map[string]any }

// outputs computes the camunda:out mappings of call activity call from the
// ending called instance's root.
func (c *command) outputs(root *execution, call *bpmn.Activity) (mappedVars, error) {
	out := mappedVars{vars: map[string]any{}, local: map[string]any{}}
	if call == nil {
		return out, nil
	}
	for _, m := range call.Out {
		dst := out.vars
		if m.Local {
			dst = out.local
		}
		if err := c.mapVariable(root, m, dst); err != nil {
			return out, fmt.Errorf("%s: camunda:out: %w", call, err)
		}
	}
	return out, nil
}

// mapVariable applies one camunda:in/out mapping read from x into dst.
func (c *command) mapVariable(x *execution, m bpmn.VariableMapping, dst map[string]any) error {
	switch {
	case m.All:
		all, err := x.variables()
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
		v, _, err := x.variable(m.Source)
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
