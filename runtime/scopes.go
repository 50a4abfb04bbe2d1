package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Scopes: embedded subprocesses, ending paths and scopes, terminate and
// cancellation.

// enterSubProcess makes x the scope of the embedded subprocess and starts a
// path at its none start event.
func (c *command) enterSubProcess(x *execution, a *bpmn.Activity) error {
	start := a.NoneStartEvent()
	if start == nil {
		return fmt.Errorf("%s has no none start event", a)
	}
	x.IsScope = true
	x.IsActive = false
	child := c.newChild(x)
	c.push(func() error { return c.enter(child, start, false) })
	return nil
}

// endEvent ends the path: a terminate end event its whole scope, an error
// end event by throwing its error.
func (c *command) endEvent(x *execution, a *bpmn.Activity) error {
	switch a.Event {
	case bpmn.TerminateEvent:
		return c.terminate(x, a)
	case bpmn.ErrorEvent:
		return c.throwError(x, a.ErrorCode, fmt.Sprintf("error end event '%s'", a.ID))
	}
	return c.endToken(x, a)
}

// endToken ends the path of x (it reached an end event or an activity
// without outgoing flows) and completes its scope when no path is left.
func (c *command) endToken(x *execution, end *bpmn.Activity) error {
	if end != nil {
		if err := c.finishActivity(x, end, false); err != nil {
			return err
		}
		x.inst.lastEnd = end.ID
	}
	scope := x.parent
	if scope == nil {
		// The process instance itself (only for a start before an activity
		// at process level that ended at once).
		return c.endInstance(x.inst, persistence.StateCompleted, "")
	}
	if err := c.removeExecution(x); err != nil {
		return err
	}
	c.touch(scope)
	return c.scopeCheck(scope)
}

// closeScope ends the variable scope x opened for its activity (subprocess,
// multi-instance body): its local variables go. A multi-instance inner
// instance keeps its variables (loopCounter, the element variable) for the
// body, which removes them with it.
func (c *command) closeScope(x *execution) error {
	if !x.IsScope || x.parent == nil {
		return nil
	}
	x.IsScope = false
	if x.parent.isMIBody() {
		return nil
	}
	return c.deleteLocalVariables(x)
}

// scopeCheck completes scope when it has no paths left, or re-examines
// waiting inclusive joins that a finished path may have released.
func (c *command) scopeCheck(scope *execution) error {
	live := scope.activeChildren()
	if len(live) == 0 {
		return c.completeScope(scope)
	}
	for _, ch := range live {
		if a := ch.activity(); a != nil && a.Kind == bpmn.InclusiveGateway && !ch.IsActive {
			ch := ch
			c.push(func() error { return c.inclusiveCheck(ch, ch.activity()) })
			break
		}
	}
	return nil
}

// completeScope ends a scope whose paths have all ended: the process
// instance, a subprocess or a multi-instance inner subprocess.
func (c *command) completeScope(scope *execution) error {
	if scope.parent == nil {
		return c.endInstance(scope.inst, persistence.StateCompleted, "")
	}
	a := scope.activity()
	if a == nil {
		return fmt.Errorf("%s: scope without activity", scope)
	}
	return c.leave(scope, a)
}

// terminate ends every path of the terminate end event's scope, then the scope.
func (c *command) terminate(x *execution, a *bpmn.Activity) error {
	if err := c.finishActivity(x, a, false); err != nil {
		return err
	}
	x.inst.lastEnd = a.ID
	scope := x.parent
	if scope == nil {
		return c.endInstance(x.inst, persistence.StateCompleted, "")
	}
	if err := c.removeExecution(x); err != nil {
		return err
	}
	for _, ch := range scope.activeChildren() {
		if err := c.cancel(ch, "terminated by end event '"+a.ID+"'"); err != nil {
			return err
		}
	}
	c.touch(scope)
	return c.completeScope(scope)
}

// cancel removes x and everything below it: children, tasks, subscriptions,
// jobs, external tasks, called instances; history marks them canceled.
func (c *command) cancel(x *execution, reason string) error {
	if x.removed {
		return nil
	}
	for _, ch := range x.activeChildren() {
		if err := c.cancel(ch, reason); err != nil {
			return err
		}
	}
	if x.ActivityInstanceID != "" {
		if err := c.cancelListeners(x); err != nil {
			return err
		}
	}
	if err := c.cancelWaits(x, reason); err != nil {
		return err
	}
	if x.ActivityInstanceID != "" {
		c.historyEnd(x, true)
	}
	if x.parent == nil {
		return nil
	}
	return c.removeExecution(x)
}

// cancelListeners fires the end listeners of the activity x is running, cut
// short by a boundary event, a terminate end event or a deletion: Camunda
// calls them on cancellation too.
func (c *command) cancelListeners(x *execution) error {
	a := x.activity()
	if a == nil || x.isMIBody() {
		return nil
	}
	return c.fireListeners(x, a.Listeners, "end", a)
}
