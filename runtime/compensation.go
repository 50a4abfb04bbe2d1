package runtime

import (
	"slices"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Compensation, as Camunda runs it within a scope: each completion of an
// activity with a compensation handler is kept in the scope that ran it
// (a "compensate" subscription). A throwing compensation event runs the
// handlers kept in its scope (those of its activityRef, or all), latest
// completion first, each on a path of its own beside the thrower, which
// waits until every handler path has ended. Handlers of activities that
// were cancelled or are still running are not kept, so they do not run.
// A subprocess that completes without a handler of its own passes what
// its scope kept to the scope around it, as its own: compensating the
// subprocess compensates the activities inside (hierarchically); one with
// a handler is compensated by that handler alone.

// keepForCompensation keeps activity a's handler for its completion by
// path x, in x's scope.
func (c *command) keepForCompensation(x *execution, a *bpmn.Activity) {
	scope := x.scope()
	c.cc.Insert(&persistence.EventSubscription{
		ID:                  newID(),
		Rev:                 1,
		EventType:           persistence.SubscriptionCompensate,
		EventName:           a.CompensationHandler.ID,
		ProcessInstanceID:   x.ProcessInstanceID,
		ActivityID:          a.ID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		Configuration:       scope.ID,
		Created:             c.cc.Now().UTC(),
	})
}

// compensationsOf are the handlers kept in scope's process instance that
// keep accepts, latest completion first.
func (c *command) compensationsOf(scope *execution, keep func(*persistence.EventSubscription) bool) ([]*persistence.EventSubscription, error) {
	subs, err := selectWithNew(c, persistence.CompensationsOf(scope.ProcessInstanceID), func(s *persistence.EventSubscription) bool {
		return s.EventType == persistence.SubscriptionCompensate && s.ProcessInstanceID == scope.ProcessInstanceID
	})
	if err != nil {
		return nil, err
	}
	subs = slices.DeleteFunc(subs, func(s *persistence.EventSubscription) bool { return !keep(s) })
	// Those kept in this command come after the stored ones: order all.
	slices.SortStableFunc(subs, func(a, b *persistence.EventSubscription) int { return byCreation(b, a) })
	return subs, nil
}

// throwCompensation runs the handlers kept in x's scope for throwing
// compensation event a; x waits at a until they are done
// (compensationDone), or goes on at once when there are none.
func (c *command) throwCompensation(x *execution, a *bpmn.Activity) error {
	scope := x.scope()
	subs, err := c.compensationsOf(scope, func(s *persistence.EventSubscription) bool {
		return s.Configuration == scope.ID && (a.CompensateActivity == "" || s.ActivityID == a.CompensateActivity)
	})
	if err != nil {
		return err
	}
	if len(subs) == 0 {
		return c.compensated(x, a)
	}
	instanceID := x.ActivityInstanceID
	paths, err := c.fork(x, len(subs)+1)
	if err != nil {
		return err
	}
	thrower := paths[0]
	thrower.ActivityID, thrower.ActivityInstanceID, thrower.IsActive = a.ID, instanceID, false
	c.update(thrower)
	for i, sub := range subs {
		c.cc.Delete(sub)
		handler, path := x.inst.def.Process.Activity(sub.EventName), paths[i+1]
		if handler == nil {
			return failAt(a, "compensation handler '%s' not found", sub.EventName)
		}
		// At its handler from now on: a handler path that ends first does
		// not take it for done (compensationDone).
		path.ActivityID = handler.ID
		c.push(func() error { return c.enter(path, handler, false) })
	}
	return nil
}

// compensationDone continues a thrower of compensation among the paths of
// a scope once no compensation handler runs there any more.
func (c *command) compensationDone(live []*execution) {
	var thrower *execution
	for _, x := range live {
		a := x.activity()
		switch {
		case a == nil:
		case a.IsForCompensation:
			return // a handler still runs
		case a.Event == bpmn.CompensationEvent && !x.IsActive && (a.Kind == bpmn.IntermediateThrowEvent || a.Kind == bpmn.EndEvent):
			thrower = x
		}
	}
	if thrower != nil {
		thrower.IsActive = true
		c.update(thrower)
		c.push(func() error { return c.compensated(thrower, thrower.activity()) })
	}
}

// compensated continues x past compensation event a: an intermediate
// event leaves, an end event ends the path.
func (c *command) compensated(x *execution, a *bpmn.Activity) error {
	if a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.leave(x, a)
}

// passCompensations hands what the scope of completed subprocess a kept
// to the scope of owner, the path that ran a: as a's own, unless a has a
// compensation handler itself, which then stands for them.
func (c *command) passCompensations(scope, owner *execution, a *bpmn.Activity) error {
	if a.CompensationHandler != nil || !scope.inst.def.Process.HasCompensation {
		return nil // what the scope kept goes with it (dropCompensations)
	}
	subs, err := c.compensationsOf(scope, func(s *persistence.EventSubscription) bool { return s.Configuration == scope.ID })
	if err != nil {
		return err
	}
	for _, s := range subs {
		s.Configuration, s.ActivityID = owner.scope().ID, a.ID
		c.cc.Update(s)
	}
	return nil
}

// dropCompensations removes what scope kept to compensate, as the scope
// execution goes (it completed, was cancelled or deleted); the process
// instance takes all its scopes kept.
func (c *command) dropCompensations(scope *execution) error {
	if !scope.inst.def.Process.HasCompensation || !scope.IsScope && scope.parent != nil {
		return nil
	}
	subs, err := c.compensationsOf(scope, func(s *persistence.EventSubscription) bool {
		return scope.parent == nil || s.Configuration == scope.ID
	})
	if err != nil {
		return err
	}
	for _, s := range subs {
		c.cc.Delete(s)
	}
	return nil
}
