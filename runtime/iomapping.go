package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
)

// Input/output mappings (camunda:inputOutput). As Camunda makes such an
// activity a scope, the path entering it waits at the activity while a
// scope execution below it runs the activity: the input parameters are its
// local variables, its listeners, history, waits and boundary events are
// its own. When the activity completes, the output parameters, evaluated in
// the scope, are set from the waiting path outside, and the scope goes with
// its local variables. The inner activity of a multi-instance one gets no
// scope of its own: each inner instance is isolated already and holds the
// input parameters itself.

// isIOScope reports whether x is the scope execution of an activity with
// input/output mappings: a scope at the activity its parent waits at.
func (x *execution) isIOScope() bool {
	return x.IsScope && x.parent != nil && x.ActivityID != "" && x.ActivityID == x.parent.ActivityID && !x.isMIBody()
}

// outside returns the execution that continues when the activity x runs
// ends: the path waiting outside x's input/output scope, or x itself.
func (x *execution) outside() *execution {
	if x.isIOScope() {
		return x.parent
	}
	return x
}

// openIOScope returns the execution that runs a, which path x enters: a
// new scope execution holding a's input parameters when a has input/output
// mappings (x itself for an inner instance of a multi-instance activity),
// else x. The parameters are evaluated from x, before a's start listeners.
func (c *command) openIOScope(x *execution, a *bpmn.Activity) (*execution, error) {
	if a.IO == nil {
		return x, nil
	}
	inputs := a.IO.Inputs
	if c.skipIoMappings {
		inputs = nil
	}
	values := make([]any, len(inputs))
	for i, p := range inputs {
		v, err := c.parameterValue(x, p.Value)
		if err != nil {
			return nil, failAt(a, "camunda:inputParameter '%s': %w", p.Name, err)
		}
		values[i] = v
	}
	run := x
	if a.HasIOScope() {
		x.IsActive = false
		c.update(x)
		run = c.newScope(x)
		run.ActivityID = a.ID
	}
	for i, p := range inputs {
		if err := run.setLocal(p.Name, values[i]); err != nil {
			return nil, failAt(a, "camunda:inputParameter '%s': %w", p.Name, err)
		}
	}
	return run, nil
}

// closeIOScope ends x's input/output scope once its activity has ended and
// returns the path outside, which continues; x itself when x runs no such
// scope. When the activity completed, its output parameters are evaluated
// in the scope and set from the path outside: where the variable exists,
// else on the process instance, as setVariable does. A path ended by an
// uncaught BPMN error maps nothing out.
func (c *command) closeIOScope(x *execution, completed bool) (*execution, error) {
	if !x.isIOScope() {
		return x, nil
	}
	a, owner := x.activity(), x.parent
	if completed && !c.skipIoMappings {
		for _, p := range a.IO.Outputs {
			v, err := c.parameterValue(x, p.Value)
			if err == nil {
				err = owner.setVariable(p.Name, v)
			}
			if err != nil {
				return nil, failAt(a, "camunda:outputParameter '%s': %w", p.Name, err)
			}
		}
	}
	c.historyEnd(x, false)
	if err := c.removeExecution(x); err != nil {
		return nil, err
	}
	owner.IsActive = true
	c.update(owner)
	return owner, nil
}

// parameterValue evaluates a parameter value on x: text as an expression
// (a constant gives itself), lists and maps item by item.
func (c *command) parameterValue(x *execution, v bpmn.Value) (any, error) {
	switch v.Kind {
	case bpmn.TextValue:
		return c.eval(x, v.Text)
	case bpmn.ScriptValue:
		return c.runScript(c.handle(x, ""), nil, x.inst.def, v.Script)
	case bpmn.ListValue:
		out := make([]any, len(v.Items))
		for i, item := range v.Items {
			iv, err := c.parameterValue(x, item)
			if err != nil {
				return nil, fmt.Errorf("list item %d: %w", i+1, err)
			}
			out[i] = iv
		}
		return out, nil
	case bpmn.MapValue:
		out := make(map[string]any, len(v.Entries))
		for _, en := range v.Entries {
			key, err := c.eval(x, en.Key)
			if err != nil {
				return nil, fmt.Errorf("map key %q: %w", en.Key, err)
			}
			if key == nil {
				return nil, fmt.Errorf("map key %q is null", en.Key)
			}
			ev, err := c.parameterValue(x, en.Value)
			if err != nil {
				return nil, fmt.Errorf("map entry %q: %w", en.Key, err)
			}
			out[fmt.Sprint(key)] = ev
		}
		return out, nil
	}
	return nil, nil
}
