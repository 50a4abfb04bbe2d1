package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Process instances: start, end, delete.

// startInstance creates a process instance of def and schedules its first
// token at start (a start event, or any activity for a start before it).
func (c *command) startInstance(def *Definition, businessKey, superExecutionID string, vars map[string]any, start *bpmn.Activity) (*instance, error) {
	if start == nil {
		return nil, fmt.Errorf("process %q has no none start event; start it by message, signal, timer or before an activity", def.Key)
	}
	in, err := c.createInstance(def, businessKey, superExecutionID, vars, start.ID)
	if err != nil {
		return nil, err
	}
	if start.Kind != bpmn.StartEvent || start.Parent != nil {
		// Starting before an activity skips the process start: no start
		// event, no process start listeners.
		in.started = true
	}
	c.push(func() error { return c.enter(in.root, start, false) })
	return in, nil
}

// createInstance creates a process instance of def with its variables,
// without any path yet; startActivity is recorded in history.
func (c *command) createInstance(def *Definition, businessKey, superExecutionID string, vars map[string]any, startActivity string) (*instance, error) {
	if def.Suspension == persistence.Suspended {
		return nil, fmt.Errorf("process definition %s is suspended: %w", def.ID, ErrSuspended)
	}
	in := c.newInstance(def, businessKey, superExecutionID)
	c.historyInstanceStart(in, startActivity)
	c.initialVars = in.root.ID
	err := in.root.setVariables(c.withInitiator(def, vars), true)
	c.initialVars = ""
	if err != nil {
		return nil, err
	}
	if err := c.armEventSubprocesses(in.root); err != nil {
		return nil, err
	}
	c.e.log.Debug("process instance started", "instance", in.root.ID, "definition", def.ID, "businessKey", businessKey)
	return in, nil
}

// startBefore starts a path of in directly before activity a (process
// instance modification): on the process instance's execution, or on a
// concurrent one when the instance gets several paths. The embedded
// subprocesses around a are entered without their start events, and vars
// are local to the execution that enters a (a job priority expression on a
// sees them).
func (c *command) startBefore(in *instance, a *bpmn.Activity, vars map[string]any, concurrent bool) error {
	scopes, err := flowScopes(a)
	if err != nil {
		return fmt.Errorf("start before %s: %w", a, err)
	}
	in.started = true // no process start event, no process start listeners
	token := in.root
	if concurrent {
		in.root.IsActive = false
		token = c.newConcurrent(in.root)
	}
	token, err = c.openScopes(token, scopes)
	if err != nil {
		return err
	}
	if err := token.setVariables(vars, true); err != nil {
		return err
	}
	c.push(func() error { return c.enter(token, a, false) })
	return nil
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
		var sub map[string]any // what a variable mapping reads
		if call != nil && call.Call != nil && (call.Call.VariableMappingClass != "" || call.Call.VariableMappingDelegateExpression != "") {
			if sub, err = root.variables(); err != nil {
				return err
			}
		}
		resume = func() error {
			if super.removed {
				return nil // an event fired at a save point cancelled the call meanwhile
			}
			if err := super.setVariables(out.vars, false); err != nil {
				return err
			}
			if err := super.setVariables(out.local, true); err != nil {
				return err
			}
			if err := c.mapOutputs(super, call, sub); err != nil {
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
	c.ended++
	if err := c.keepEndVariables(in); err != nil {
		return err
	}
	c.deleteIncidentsOfInstance(root.ID)
	c.e.log.Debug("process instance ended", "instance", root.ID, "definition", in.def.ID, "state", state)
	if err := c.removeExecution(root); err != nil {
		return err
	}
	if resume != nil {
		c.push(resume)
	}
	return nil
}

// deleteByAPI deletes process instance in as the API asks (a single
// delete, or a batch's): an instance a call activity started is deleted
// with its caller only.
func (c *command) deleteByAPI(in *instance, opt DeleteOptions) error {
	if in.root.SuperExecutionID != "" {
		return fmt.Errorf("process instance %s was started by a call activity; delete the calling instance", in.root.ID)
	}
	c.skipCustomListeners, c.skipSubprocesses = opt.SkipCustomListeners, opt.SkipSubprocesses
	return c.deleteInstance(in, opt.Reason, persistence.StateExternallyTerminated)
}

// deleteInstance cancels a process instance (API delete, or a called
// instance whose caller was cancelled or caught its error).
func (c *command) deleteInstance(in *instance, reason, state string) error {
	root := in.root
	if root.removed {
		return nil
	}
	if err := c.cancel(root, reason); err != nil {
		return err
	}
	// As in Camunda, a deleted instance's end listeners run too.
	if err := c.fireListeners(root, in.def.Process.Listeners, "end", in.def.Process); err != nil {
		return err
	}
	c.historyInstanceEnd(in, state, reason, "")
	c.ended++
	if err := c.keepEndVariables(in); err != nil {
		return err
	}
	c.deleteIncidentsOfInstance(root.ID)
	return c.removeExecution(root)
}

// initialActivity is where a plain start begins: the none start event, or
// the only start event of a process that has no none start event (a timer
// or message start event started by hand, as Camunda allows).
func initialActivity(def *Definition) *bpmn.Activity {
	if s := def.Process.NoneStartEvent(); s != nil {
		return s
	}
	if starts := def.Process.StartEvents(); len(starts) == 1 {
		return starts[0]
	}
	return nil
}
