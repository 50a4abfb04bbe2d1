package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Scopes: embedded subprocesses, ending paths and scopes, terminate and
// cancellation.

// enterSubProcess starts the embedded subprocess a entered by path x: x
// waits at a while a new scope execution, where a's event subprocesses are
// armed, runs the subprocess's path from its none start event (an event
// subprocess's from its start event).
func (c *command) enterSubProcess(x *execution, a *bpmn.Activity) error {
	start := a.InitialEvent()
	if start == nil {
		return fmt.Errorf("%s has no none start event", a)
	}
	x.IsActive = false
	scope := c.newScope(x)
	if err := c.armEventSubprocesses(scope); err != nil {
		return err
	}
	c.push(func() error { return c.enter(scope, start, false) })
	return nil
}

// endEvent ends the path: a terminate end event its whole scope, an error
// end event by throwing its error, a signal end event after broadcasting
// its signal.
func (c *command) endEvent(x *execution, a *bpmn.Activity) error {
	switch a.Event {
	case bpmn.TerminateEvent:
		return c.terminate(x, a)
	case bpmn.ErrorEvent:
		code, err := c.text(x, a.ErrorCode)
		if err != nil {
			return failAt(a, "errorCode: %w", err)
		}
		message, err := c.text(x, a.ErrorMessage)
		if err != nil {
			return failAt(a, "camunda:errorMessage: %w", err)
		}
		return c.throwError(x, code, message, fmt.Sprintf("error end event '%s'", a.ID))
	case bpmn.EscalationEvent:
		return c.throwEscalation(x, a)
	case bpmn.SignalEvent:
		if err := c.throwSignal(a.SignalName, nil); err != nil {
			return err
		}
	case bpmn.CompensationEvent:
		return c.throwCompensation(x, a)
	case bpmn.CancelEvent:
		return c.cancelEnd(x, a)
	case bpmn.MessageEvent:
		if a.HasImplementation() {
			// Its delegate runs, or its external task waits; then it ends
			// the path (leave finds no outgoing flow).
			return c.serviceTask(x, a)
		}
	}
	return c.endToken(x, a)
}

// endToken ends the path of x (it reached an end event or an activity
// without outgoing flows): a path alone in its scope completes the scope; a
// concurrent one goes, and the scope completes when no path is left.
// Without an end event (an uncaught BPMN error) the path may end inside an
// activity's input/output scope, which closes without mapping anything out.
func (c *command) endToken(x *execution, end *bpmn.Activity) error {
	var err error
	if end != nil {
		if x, err = c.completeActivity(x, end); err != nil {
			return err
		}
		x.inst.lastEnd = end.ID
	} else if x, err = c.closeIOScope(x, false); err != nil {
		return err
	}
	if x.parent != nil && x.parent.isBodyScope() {
		// An inner instance of a multi-instance activity whose path ended
		// (an uncaught BPMN error) is done like one that completed.
		return c.innerDone(x, x.activity())
	}
	if !x.IsConcurrent {
		return c.completeScope(x)
	}
	scope := x.parent
	if err := c.removeExecution(x); err != nil {
		return err
	}
	c.touch(scope)
	return c.scopeCheck(scope)
}

// scopeCheck follows the end of one of scope's concurrent paths: no path
// left completes the scope; one left moves back onto the scope
// (compaction), and when it waits at an inclusive gateway, the gateway may
// now fire. With several left, a waiting inclusive join is re-examined.
func (c *command) scopeCheck(scope *execution) error {
	live := scope.activeChildren()
	if len(live) == 0 {
		return c.completeScope(scope)
	}
	last, err := c.compact(scope)
	if err != nil {
		return err
	}
	if last != nil {
		live = []*execution{last}
	}
	for _, ch := range live {
		if a := ch.activity(); a != nil && a.Kind == bpmn.InclusiveGateway && !ch.IsActive {
			ch := ch
			c.push(func() error { return c.inclusiveCheck(ch, ch.activity()) })
			break
		}
	}
	if scope.inst.def.Process.HasCompensation {
		c.compensationDone(live)
	}
	return nil
}

// completeScope ends a scope execution whose path has ended: the process
// instance, or a subprocess's or multi-instance inner subprocess's scope,
// whose owner then leaves the subprocess.
func (c *command) completeScope(scope *execution) error {
	owner := scope.parent
	if owner == nil {
		return c.endInstance(scope.inst, persistence.StateCompleted, "")
	}
	a := owner.activity()
	if a == nil {
		return fmt.Errorf("%s: scope without activity", owner)
	}
	return c.returnToOwner(scope, owner, a)
}

// returnToOwner ends scope, the scope execution of activity a, and
// continues owner, the path waiting at a, out of a: the compensations the
// scope collected pass to owner.
func (c *command) returnToOwner(scope, owner *execution, a *bpmn.Activity) error {
	if err := c.passCompensations(scope, owner, a); err != nil {
		return err
	}
	if err := c.removeExecution(scope); err != nil {
		return err
	}
	owner.IsActive = true
	c.update(owner)
	return c.leave(owner, a)
}

// terminate ends every path of the terminate end event's scope, then the scope.
func (c *command) terminate(x *execution, a *bpmn.Activity) error {
	x, err := c.completeActivity(x, a)
	if err != nil {
		return err
	}
	x.inst.lastEnd = a.ID
	scope := x.scope()
	if scope != x {
		if err := c.removeExecution(x); err != nil {
			return err
		}
		for _, ch := range scope.activeChildren() {
			if err := c.cancel(ch, "terminated by end event '"+a.ID+"'"); err != nil {
				return err
			}
		}
		c.touch(scope)
	}
	return c.completeScope(scope)
}

// cancel removes x and everything below it: children, tasks, subscriptions,
// jobs, external tasks, called instances; history marks them canceled. The
// process instance's execution itself stays (its caller removes it).
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
	if a == nil || x.isMIBody() || x.endListened {
		return nil
	}
	c.cancelling++
	defer func() { c.cancelling-- }()
	return c.fireListeners(x, a.Listeners, "end", a)
}
