package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Event subprocesses, as Camunda runs them. While a scope (the process
// instance, or an embedded subprocess) runs, the start events of its event
// subprocesses are armed on its scope execution: message and signal
// subscriptions and timer jobs that stay there whatever path the execution
// runs; error and escalation starts are looked up when one is thrown. They
// go when the scope ends. An interrupting start cancels everything else in
// the scope and runs the event subprocess on the scope execution, so the
// scope completes with it; a non-interrupting one runs it on a concurrent
// path beside the others.

// eventSubprocessStarts returns the start events armed on s: those of the
// process for the process instance, those of the subprocess whose content
// s runs for a subprocess's scope execution, none for other executions.
func eventSubprocessStarts(s *execution) []*bpmn.Activity {
	if s.parent == nil {
		return s.inst.def.Process.EventSubprocessStarts()
	}
	if !s.IsScope || s.isIOScope() || s.isBodyScope() {
		return nil
	}
	a := s.parent.activity()
	if a == nil || a.Kind != bpmn.SubProcess || s.parent.ActivityID != a.ID {
		return nil // the parent is a multi-instance body, not the subprocess
	}
	return a.EventSubprocessStarts()
}

// armEventSubprocesses arms the message, signal and timer start events of
// the event subprocesses of the scope that scope runs.
func (c *command) armEventSubprocesses(scope *execution) error {
	for _, start := range eventSubprocessStarts(scope) {
		if err := c.armEventSubprocess(scope, start); err != nil {
			return err
		}
	}
	return nil
}

// armEventSubprocess arms the trigger of one event subprocess start event.
func (c *command) armEventSubprocess(scope *execution, start *bpmn.Activity) error {
	switch start.Event {
	case bpmn.TimerEvent:
		_, err := c.createTimerJob(scope, start, handlerTimerEventSubprocess)
		return err
	case bpmn.MessageEvent:
		c.subscribe(scope, start, persistence.SubscriptionMessage, start.MessageName).Configuration = persistence.EventSubprocessTrigger
	case bpmn.SignalEvent:
		c.subscribe(scope, start, persistence.SubscriptionSignal, start.SignalName).Configuration = persistence.EventSubprocessTrigger
	case bpmn.ConditionalEvent:
		c.subscribeCondition(scope, start).Configuration = persistence.EventSubprocessTrigger
	}
	return nil
}

// isTrigger reports whether a subscription or job arms an event
// subprocess: it stays on its scope execution until the scope ends.
func isTrigger(e persistence.Entity) bool {
	switch r := e.(type) {
	case *persistence.EventSubscription:
		return r.Configuration == persistence.EventSubprocessTrigger
	case *persistence.Job:
		return r.HandlerType == handlerTimerEventSubprocess
	}
	return false
}

// disarmEventSubprocesses removes the triggers armed on scope: the scope
// ended, or an interrupting event subprocess took it over.
func (c *command) disarmEventSubprocesses(scope *execution) error {
	if len(eventSubprocessStarts(scope)) == 0 {
		return nil
	}
	return c.deleteOwned(scope, isTrigger)
}

// keepsListening reports whether the subscription of a stays after it
// fired: a non-interrupting boundary event's while its activity runs, a
// non-interrupting event subprocess start's while its scope runs.
func keepsListening(a *bpmn.Activity) bool {
	return a != nil && (a.Kind == bpmn.BoundaryEvent || a.IsEventSubprocessStart()) && !a.CancelActivity
}

// startEventSubprocess runs the event subprocess of start, which fired in
// scope (start's trigger is armed there).
func (c *command) startEventSubprocess(scope *execution, start *bpmn.Activity) error {
	esp := start.Parent
	path := scope
	if start.CancelActivity {
		reason := "event subprocess '" + esp.ID + "'"
		if err := c.cancelActivity(scope, reason); err != nil {
			return err
		}
		if err := c.disarmEventSubprocesses(scope); err != nil {
			return err
		}
		scope.replacedBy = nil // it runs the event subprocess itself
	} else {
		var err error
		if path, err = c.besides(scope); err != nil {
			return err
		}
	}
	return c.enterActivity(path, esp, false)
}

// besides returns a new concurrent path of scope beside the ones it runs.
func (c *command) besides(scope *execution) (*execution, error) {
	if scope.ActivityID == "" {
		return c.newConcurrent(scope), nil // concurrent paths run there already
	}
	paths, err := c.fork(scope, 2)
	if err != nil {
		return nil, err
	}
	return paths[1], nil
}

// eventSubprocessAt returns the start event of an event subprocess armed
// on s that catches the error or escalation code thrown by thrower: for
// errors one naming the code before a catch-all one, as Camunda orders
// them. As in Camunda, an event subprocess does not catch an error thrown
// inside itself, nor an escalation thrown directly in its content.
func eventSubprocessAt(s *execution, typ bpmn.EventType, code string, thrower *bpmn.Activity) *bpmn.Activity {
	starts := eventSubprocessStarts(s)
	if len(starts) == 0 {
		return nil
	}
	return catcher(starts, typ, code, func(start *bpmn.Activity) bool {
		if thrower == nil {
			return false
		}
		if typ == bpmn.ErrorEvent {
			return thrower.IsWithin(start.Parent)
		}
		return thrower.Parent == start.Parent
	})
}

// catcher returns, among events, the one of type typ that catches code:
// one naming the code wins over a catch-all one; skip rules some out.
func catcher(events []*bpmn.Activity, typ bpmn.EventType, code string, skip func(*bpmn.Activity) bool) *bpmn.Activity {
	var all *bpmn.Activity
	for _, e := range events {
		ec := e.ErrorCode
		if typ == bpmn.EscalationEvent {
			ec = e.EscalationCode
		}
		switch {
		case e.Event != typ || (skip != nil && skip(e)):
		case ec == code:
			return e
		case ec == "" && all == nil:
			all = e
		}
	}
	return all
}

// deleteOwned deletes the event subscriptions and jobs of x that match.
func (c *command) deleteOwned(x *execution, match func(persistence.Entity) bool) error {
	subs, err := owned(c, x, persistence.SubscriptionsOfExecution(x.ID))
	if err != nil {
		return err
	}
	for _, s := range subs {
		if match(s) {
			c.cc.Delete(s)
		}
	}
	jobs, err := owned(c, x, persistence.JobsOfExecution(x.ProcessInstanceID, x.ID))
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if match(j) {
			if err := c.deleteJob(j); err != nil {
				return err
			}
		}
	}
	return nil
}

// owned returns the rows x owns that q selects, with those this command
// created and has not written yet.
func owned[T persistence.Entity](c *command, x *execution, q persistence.Query[T]) ([]T, error) {
	return selectWithNew(c, q, ownedBy[T](x.ID))
}
