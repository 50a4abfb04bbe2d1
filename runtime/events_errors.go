package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// BPMN errors: thrown by error end events and delegates, caught by error
// boundary events, across call activities.

// throwError propagates BPMN error code from x to the nearest enclosing
// activity with a matching error boundary event, across call activities.
// Without a catcher the error ends the path like a none end event, as in
// Camunda.
func (c *command) throwError(x *execution, code, message, source string) error {
	for s := x; s != nil; {
		// An inner instance of a multi-instance activity leaves the
		// activity's error boundary events to the body.
		// The body's boundary events belong to the path waiting at the
		// body, not to the body's scope execution.
		if a := s.activity(); a != nil && (a.MultiInstance == nil || s.isMIBody()) && !s.isBodyScope() {
			if b := errorCatcher(a, code); b != nil {
				if err := errorVariables(s, b, code, message); err != nil {
					return err
				}
				return c.triggerBoundary(s, b)
			}
		}
		if s.parent != nil {
			s = s.parent
			continue
		}
		if s.SuperExecutionID == "" {
			break
		}
		super, err := c.execution(s.SuperExecutionID)
		if err != nil {
			return err
		}
		if err := c.deleteInstance(s.inst, "error "+code+" thrown by "+source, persistence.StateDeleted); err != nil {
			return err
		}
		s = super
	}
	c.e.log.Debug("BPMN error not caught; ending the path", "code", code, "source", source)
	a := x.activity()
	if a != nil && a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.endToken(x, nil)
}

// errorVariables sets the caught error's code and message in the variables
// the catching boundary event names (camunda:errorCodeVariable,
// camunda:errorMessageVariable), as Camunda: from the interrupted path,
// where they exist or else on the process instance.
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
	return s.setVariables(vars, false)
}

// errorCatcher returns a's error boundary event for code: one naming the
// code wins over a catch-all one, wherever it is declared (as in Camunda).
func errorCatcher(a *bpmn.Activity, code string) *bpmn.Activity {
	return boundaryFor(a, bpmn.ErrorEvent, func(b *bpmn.Activity) string { return b.ErrorCode }, code)
}

// throwEscalation throws escalation code from x's activity a (an
// intermediate throw or end event): the nearest escalation boundary event
// for the code, up the scopes and across call activities, catches it.
// Caught by an interrupting one, the scope it guards is cancelled, with
// the throwing path; otherwise (non-interrupting, or not caught at all, as
// in Camunda) the throwing path goes on.
func (c *command) throwEscalation(x *execution, a *bpmn.Activity) error {
	s, b, err := c.escalationCatcher(x, a.EscalationCode)
	if err != nil {
		return err
	}
	if b != nil {
		if err := c.triggerBoundary(s, b); err != nil {
			return err
		}
		if b.CancelActivity {
			return nil // the throwing path was cancelled with the scope
		}
	} else {
		c.e.log.Debug("escalation not caught; the path goes on", "code", a.EscalationCode, "activity", a.ID)
	}
	if a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.leave(x, a)
}

// escalationCatcher finds the execution and boundary event that catch
// code thrown on x, looking up x's scopes and the call activities above.
func (c *command) escalationCatcher(x *execution, code string) (*execution, *bpmn.Activity, error) {
	for s := x; s != nil; {
		if a := s.activity(); a != nil && (a.MultiInstance == nil || s.isMIBody()) && !s.isBodyScope() {
			if b := boundaryFor(a, bpmn.EscalationEvent, func(b *bpmn.Activity) string { return b.EscalationCode }, code); b != nil {
				return s, b, nil
			}
		}
		if s.parent != nil {
			s = s.parent
			continue
		}
		if s.SuperExecutionID == "" {
			break
		}
		super, err := c.execution(s.SuperExecutionID)
		if err != nil {
			return nil, nil, err
		}
		s = super
	}
	return nil, nil, nil
}

// boundaryFor returns a's boundary event of type typ for code: one naming
// the code wins over a catch-all one.
func boundaryFor(a *bpmn.Activity, typ bpmn.EventType, codeOf func(*bpmn.Activity) string, code string) *bpmn.Activity {
	var all *bpmn.Activity
	for _, b := range a.Boundaries {
		switch {
		case b.Event != typ:
		case codeOf(b) == code:
			return b
		case codeOf(b) == "" && all == nil:
			all = b
		}
	}
	return all
}
