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
// waits until every handler path has ended. A thrower inside an event
// subprocess reaches what the scopes around it kept too, as Camunda's
// event subprocesses do not consume compensation. Handlers of activities
// that were cancelled or are still running are not kept, so they do not
// run.
//
// A scope that completes (a subprocess without a handler of its own, a
// multi-instance body, an inner instance of a multi-instance subprocess)
// passes what it kept to the scope around it as a group: a subscription
// of the scope's activity, whose members are kept in it (Configuration is
// the group's id) with a snapshot of the completed scope's local
// variables (variable rows of the group's id). Compensating the group
// compensates its members, latest first, each handler seeing the
// snapshots of its groups: a multi-instance activity is so compensated
// once per completed inner instance, seeing that instance's loopCounter
// and element variable. A subprocess with a handler is compensated by that
// handler alone.

// keeper is the scope execution that keeps what path x completes: the
// multi-instance body for an inner instance (each instance is compensated
// on its own), else x's scope.
func keeper(x *execution) *execution {
	if isInner(x) {
		return x.parent
	}
	return x.scope()
}

// isInner reports whether x is an inner instance of a multi-instance body.
func isInner(x *execution) bool { return x.parent != nil && x.parent.isBodyScope() }

// keep records, in where (a scope execution or a group), that name (a
// compensation handler, or a group of them) runs when the compensation of
// activityID is thrown there.
func (c *command) keep(x *execution, name, activityID, where string) *persistence.EventSubscription {
	s := &persistence.EventSubscription{
		ID:                  newID(),
		Rev:                 1,
		EventType:           persistence.SubscriptionCompensate,
		EventName:           name,
		ProcessInstanceID:   x.ProcessInstanceID,
		ActivityID:          activityID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		Configuration:       where,
		Created:             c.cc.Now().UTC(),
	}
	c.cc.Insert(s)
	return s
}

// keepForCompensation keeps activity a's handler for its completion by
// path x; an inner instance of a multi-instance activity keeps a snapshot
// of its local variables (loopCounter, the element variable) with it.
func (c *command) keepForCompensation(x *execution, a *bpmn.Activity) error {
	s := c.keep(x, a.CompensationHandler.ID, a.ID, keeper(x).ID)
	if !isInner(x) {
		return nil
	}
	return c.snapshot(s.ID, x)
}

// snapshot copies the local variables of scopes (later ones hiding
// earlier ones of the same name) to rows of id, a group or handler kept
// for compensation.
func (c *command) snapshot(id string, scopes ...*execution) error {
	in := scopes[0].inst
	if err := in.loadVariables(); err != nil {
		return err
	}
	rows := make(map[string]*persistence.Variable)
	for _, x := range scopes {
		for name, r := range in.vars[x.ID] {
			cp := *r
			cp.ID, cp.Rev, cp.ExecutionID, cp.TaskID = newID(), 1, id, ""
			rows[name] = &cp
		}
	}
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		c.cc.Insert(r)
	}
	in.vars[id] = rows
	return nil
}

// compensations are the compensations kept in x's process instance,
// latest first.
func (c *command) compensations(x *execution) ([]*persistence.EventSubscription, error) {
	subs, err := selectWithNew(c, persistence.CompensationsOf(x.ProcessInstanceID), func(s *persistence.EventSubscription) bool {
		return s.EventType == persistence.SubscriptionCompensate && s.ProcessInstanceID == x.ProcessInstanceID
	})
	if err != nil {
		return nil, err
	}
	// Those kept in this command come after the stored ones: order all.
	slices.SortStableFunc(subs, func(a, b *persistence.EventSubscription) int { return byCreation(b, a) })
	return subs, nil
}

// keptIn groups subs, latest first, by where they are kept.
func keptIn(subs []*persistence.EventSubscription) map[string][]*persistence.EventSubscription {
	m := make(map[string][]*persistence.EventSubscription)
	for _, s := range subs {
		m[s.Configuration] = append(m[s.Configuration], s)
	}
	return m
}

// compensationScopes are the scope executions whose compensations a
// thrower on path x reaches: its scope, and while that is an event
// subprocess's, the scope around it.
func compensationScopes(x *execution) []*execution {
	s := x.scope()
	out := []*execution{s}
	for s.parent != nil {
		a := s.parent.activity()
		if a == nil || !a.TriggeredByEvent {
			break
		}
		if a.IsForCompensation {
			// A compensation event subprocess reaches what its subprocess
			// kept, handed to the path running it (throwCompensation).
			return append(out, s.parent)
		}
		s = s.parent.scope()
		out = append(out, s)
	}
	return out
}

// handlerRun is one handler to run: its subscription and the snapshots it
// sees, those of the groups it is in (outermost first), then its own.
type handlerRun struct {
	sub       *persistence.EventSubscription
	snapshots []string
}

// handlerOf returns the compensation handler s runs, or nil for a group.
func handlerOf(x *execution, s *persistence.EventSubscription) *bpmn.Activity {
	if h := x.inst.def.Process.Activity(s.EventName); h != nil && h.IsForCompensation {
		return h
	}
	return nil
}

// due lists the handlers that throwing compensation event a on path x
// runs, latest first, groups replaced by their members, and every kept
// compensation the throw consumes.
func (c *command) due(x *execution, a *bpmn.Activity) (runs []handlerRun, consumed []*persistence.EventSubscription, err error) {
	all, err := c.compensations(x)
	if err != nil {
		return nil, nil, err
	}
	kept := keptIn(all)
	var top []*persistence.EventSubscription
	for _, s := range compensationScopes(x) {
		for _, sub := range kept[s.ID] {
			if a.CompensateActivity == "" || sub.ActivityID == a.CompensateActivity {
				top = append(top, sub)
			}
		}
	}
	slices.SortStableFunc(top, func(a, b *persistence.EventSubscription) int { return byCreation(b, a) })
	var expand func(s *persistence.EventSubscription, outer []string) error
	expand = func(s *persistence.EventSubscription, outer []string) error {
		consumed = append(consumed, s)
		snapshots := append(slices.Clip(outer), s.ID)
		if handlerOf(x, s) != nil {
			runs = append(runs, handlerRun{s, snapshots})
			return nil
		}
		if len(kept[s.ID]) == 0 {
			return failAt(a, "compensation '%s' kept for activity '%s' names no compensation handler", s.EventName, s.ActivityID)
		}
		for _, m := range kept[s.ID] {
			if err := expand(m, snapshots); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range top {
		if err := expand(s, nil); err != nil {
			return nil, nil, err
		}
	}
	return runs, consumed, nil
}

// throwCompensation runs the handlers kept for throwing compensation event
// a; x waits at a until they are done (compensationDone), or goes on at
// once when there are none.
func (c *command) throwCompensation(x *execution, a *bpmn.Activity) error {
	runs, consumed, err := c.due(x, a)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range consumed {
			c.forget(x.inst, s)
		}
	}()
	if len(runs) == 0 {
		return c.compensated(x, a)
	}
	instanceID := x.ActivityInstanceID
	paths, err := c.fork(x, len(runs)+1)
	if err != nil {
		return err
	}
	thrower := paths[0]
	thrower.ActivityID, thrower.ActivityInstanceID, thrower.IsActive = a.ID, instanceID, false
	c.update(thrower)
	for i, run := range runs {
		handler, path := handlerOf(x, run.sub), paths[i+1]
		for _, id := range run.snapshots {
			if err := c.restore(path, id); err != nil {
				return err
			}
		}
		if handler.TriggeredByEvent {
			// A compensation event subprocess: what its subprocess kept
			// goes to its path, where throws inside it find it.
			c.handOver(x, run.sub.ID, path.ID)
		}
		// At its handler from now on: a handler path that ends first does
		// not take it for done (compensationDone).
		path.ActivityID = handler.ID
		c.push(func() error { return c.enter(path, handler, false) })
	}
	return nil
}

// handOver moves the compensations kept in from (a group) to to.
func (c *command) handOver(x *execution, from, to string) {
	all, err := c.compensations(x)
	if err != nil {
		return
	}
	for _, s := range keptIn(all)[from] {
		s.Configuration = to
		c.cc.Update(s)
	}
}

// restore sets the snapshot kept under id as local variables of path.
func (c *command) restore(path *execution, id string) error {
	if err := path.inst.loadVariables(); err != nil {
		return err
	}
	vars := make(map[string]any, len(path.inst.vars[id]))
	for name, r := range path.inst.vars[id] {
		v, err := declaredValue(r)
		if err != nil {
			return err
		}
		vars[name] = v
	}
	return path.setVariables(vars, true)
}

// forget deletes compensation s and its snapshot.
func (c *command) forget(in *instance, s *persistence.EventSubscription) {
	c.cc.Delete(s)
	c.deleteVariablesOf(in, s.ID)
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
		case (a.Event == bpmn.CompensationEvent || a.Event == bpmn.CancelEvent) && !x.IsActive && (a.Kind == bpmn.IntermediateThrowEvent || a.Kind == bpmn.EndEvent):
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
// event leaves, an end event ends the path, a cancel end event leaves its
// transaction by the cancel boundary event.
func (c *command) compensated(x *execution, a *bpmn.Activity) error {
	if a.Event == bpmn.CancelEvent {
		return c.transactionCancelled(x, a)
	}
	if a.Kind == bpmn.EndEvent {
		return c.endToken(x, a)
	}
	return c.leave(x, a)
}

// passCompensations hands what completed scope kept (a subprocess's or a
// multi-instance body's execution; owner is the path that ran a) to
// keeper(owner), as a group for a with a snapshot of the scope's local
// variables, and of owner's for an inner instance of a multi-instance
// subprocess. A subprocess with a handler of its own passes nothing: the
// handler stands for what it kept, which goes with it (dropCompensations).
func (c *command) passCompensations(scope, owner *execution, a *bpmn.Activity) error {
	if !scope.inst.def.Process.HasCompensation || a.CompensationHandler != nil && !scope.isBodyScope() {
		return nil
	}
	if a.TriggeredByEvent && a.IsForCompensation {
		// A compensation event subprocess ran: what it was handed and
		// did not compensate goes with it, as Camunda's event scope.
		return c.dropKept(scope, owner.ID)
	}
	all, err := c.compensations(scope)
	if err != nil {
		return err
	}
	members := keptIn(all)[scope.ID]
	// A subprocess with a compensation event subprocess is kept even with
	// nothing inside to compensate: the event subprocess is its handler.
	handled := a.CompensationEventSubprocess != nil && !scope.isBodyScope()
	if len(members) == 0 && !handled {
		return nil
	}
	name := a.ID
	switch {
	case scope.isBodyScope():
		name = a.MultiInstanceBodyID()
	case handled:
		name = a.CompensationEventSubprocess.ID
	}
	// A subprocess with input/output mappings ran in an input/output
	// scope, which closes with it: the group is kept outside, with the
	// scope's local variables (its input parameters) in the snapshot.
	holder, seen := owner, []*execution{scope}
	if owner.isIOScope() {
		holder, seen = owner.parent, []*execution{owner, scope}
	}
	group := c.keep(holder, name, a.ID, keeper(holder).ID)
	for _, s := range members {
		s.Configuration = group.ID
		c.cc.Update(s)
	}
	if isInner(holder) {
		seen = append([]*execution{holder}, seen...)
	}
	return c.snapshot(group.ID, seen...)
}

// dropCompensations removes what scope kept to compensate, with the groups'
// members, as the scope execution goes (it completed, was cancelled or
// deleted); the process instance takes all its scopes kept.
func (c *command) dropCompensations(scope *execution) error {
	if !scope.inst.def.Process.HasCompensation || !scope.IsScope && scope.parent != nil {
		return nil
	}
	if scope.parent != nil {
		return c.dropKept(scope, scope.ID)
	}
	all, err := c.compensations(scope)
	if err != nil {
		return err
	}
	for _, s := range all {
		c.forget(scope.inst, s)
	}
	return nil
}

// dropKept forgets what is kept in id (an execution or a group), with the
// groups' members.
func (c *command) dropKept(x *execution, id string) error {
	all, err := c.compensations(x)
	if err != nil {
		return err
	}
	kept := keptIn(all)
	var drop func(id string)
	drop = func(id string) {
		for _, s := range kept[id] {
			c.forget(x.inst, s)
			drop(s.ID)
		}
	}
	drop(id)
	return nil
}
