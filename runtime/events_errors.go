package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// BPMN errors: thrown by error end events and delegates, caught by error
// boundary events, across call activities.

// throwError propagates BPMN error code from x to the nearest enclosing
// activity with a matching error boundary event, across call activities
// (the called instances it leaves are deleted). Without a catcher the
// error ends the path like a none end event, as in Camunda.
func (c *command) throwError(x *execution, code, message, source string) error {
	thrower := x.activity()
	for s := x; s != nil; {
		if b := boundaryAt(s, bpmn.ErrorEvent, code); b != nil {
			if err := errorVariables(s, b, code, message); err != nil {
				return err
			}
			return c.triggerBoundary(s, b)
		}
		// The event subprocesses of the scope s runs come before the
		// boundary events of that scope's activity (the next step out), as
		// Camunda gives error start events the higher precedence.
		if start := eventSubprocessAt(s, bpmn.ErrorEvent, code, thrower); start != nil {
			if err := errorVariables(s, start, code, message); err != nil {
				return err
			}
			return c.startEventSubprocess(s, start)
		}
		next, crossed, err := c.above(s)
		if err != nil {
			return err
		}
		if crossed {
			if err := c.deleteInstance(s.inst, "error "+code+" thrown by "+source, persistence.StateDeleted); err != nil {
				return err
			}
		}
		s = next
	}
	c.e.log.Debug("BPMN error not caught; ending the path", "code", code, "source", source)
	a := x.activity()
	if a != nil && a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.endToken(x, nil)
}

// errorVariables sets the caught error's code and message in the variables
// the catching boundary event or event subprocess start names (camunda:errorCodeVariable,
// camunda:errorMessageVariable), as Camunda: from the interrupted path
// (outside the activity's input/output scope), where they exist or else on
// the process instance.
func errorVariables(s *execution, b *bpmn.Activity, code, message string) error {
	vars := map[string]any{}
	if b.ErrorCodeVariable != "" {
		vars[b.ErrorCodeVariable] = code
	}
	if b.ErrorMessageVariable != "" {
		vars[b.ErrorMessageVariable] = message
	}
	if len(vars) == 0 {
		return nil
	}
	return s.outside().setVariables(vars, false)
}

// escalationVariable sets the caught escalation's code in the variable
// the catching event names (camunda:escalationCodeVariable), as
// errorVariables does for errors.
func escalationVariable(s *execution, catch *bpmn.Activity, code string) error {
	if catch.EscalationCodeVariable == "" {
		return nil
	}
	return s.outside().setVariable(catch.EscalationCodeVariable, code)
}

// throwEscalation throws escalation code from x's activity a (an
// intermediate throw or end event): the nearest escalation boundary event
// for the code, up the scopes and across call activities, catches it.
// Caught by an interrupting one, the scope it guards is cancelled, with
// the throwing path; otherwise (non-interrupting, or not caught at all, as
// in Camunda) the throwing path goes on.
func (c *command) throwEscalation(x *execution, a *bpmn.Activity) error {
	x, _, interrupted, err := c.propagateEscalation(x, a, a.EscalationCode)
	if err != nil || interrupted {
		return err // interrupting: the throwing path was cancelled with the scope
	}
	if a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.leave(x, a)
}

// propagateEscalation hands escalation code, thrown at x's activity
// thrower, to the nearest escalation boundary event or event subprocess
// for it, up the scopes and across call activities. It reports whether
// one caught it and whether that cancelled the throwing path
// (interrupted); live is the path that goes on otherwise.
func (c *command) propagateEscalation(x *execution, thrower *bpmn.Activity, code string) (live *execution, caught, interrupted bool, err error) {
	for s := x; s != nil; {
		if b := boundaryAt(s, bpmn.EscalationEvent, code); b != nil {
			if err := escalationVariable(s, b, code); err != nil {
				return x, true, false, err
			}
			return x, true, b.CancelActivity, c.triggerBoundary(s, b)
		}
		if start := eventSubprocessAt(s, bpmn.EscalationEvent, code, thrower); start != nil {
			if err := escalationVariable(s, start, code); err != nil {
				return x, true, false, err
			}
			if err := c.startEventSubprocess(s, start); err != nil || start.CancelActivity {
				return x, true, start.CancelActivity, err
			}
			return x.live(), true, false, nil // when x ran on s, its path went to a concurrent child
		}
		next, _, err := c.above(s)
		if err != nil {
			return x, false, false, err
		}
		s = next
	}
	return x, false, false, nil
}

// above returns the execution whose activity encloses s's: its parent or,
// at the top of a called instance, the calling execution (crossed). nil at
// the top of the hierarchy.
func (c *command) above(s *execution) (next *execution, crossed bool, err error) {
	if s.parent != nil {
		return s.parent, false, nil
	}
	if s.SuperExecutionID == "" {
		return nil, false, nil
	}
	super, err := c.execution(s.SuperExecutionID)
	return super, true, err
}
