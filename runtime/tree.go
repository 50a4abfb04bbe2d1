package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The execution tree, shaped as Camunda shapes it. A scope execution (the
// process instance; the execution of an embedded subprocess, of a
// multi-instance body or of an activity with input/output mappings, a
// child of the path that entered that activity) runs its only path itself:
// a process without concurrency is one execution row. A fork hands the
// path to a concurrent child and adds concurrent siblings (expansion); when
// a single concurrent path is left, it moves back onto its scope execution
// (compaction). What a path owns (jobs, tasks, external tasks,
// subscriptions, incidents, called instances, child scopes) moves with it,
// so ids that users hold follow Camunda's: a job of a process without
// concurrency references the process instance.
// The subscriptions and timer jobs that arm a scope's event subprocesses
// are the scope execution's own, not its path's: they never move.

// scope returns the scope execution whose path x is: x itself, or its
// parent when x is one of several concurrent paths.
func (x *execution) scope() *execution {
	if x.IsConcurrent {
		return x.parent
	}
	return x
}

// parentActivityInstance is the activity instance that encloses the
// activity x's path is in: the subprocess or multi-instance body instance
// its scope execution belongs to, or the process instance (an input/output
// scope is the activity's own: its path's encloses it).
func (x *execution) parentActivityInstance() string {
	s := x.scope()
	if s.isIOScope() {
		return s.parent.parentActivityInstance()
	}
	owner := s.parent
	if owner != nil && owner.isBodyScope() {
		owner = owner.parent
	}
	if owner == nil {
		return x.ProcessInstanceID
	}
	return owner.ActivityInstanceID
}

// isBodyScope reports whether x is the scope execution of a multi-instance
// body (the parent of its inner instances), as opposed to the path waiting
// at the body, which owns the body's boundary events and history.
func (x *execution) isBodyScope() bool {
	return x.IsScope && x.parent != nil && x.isMIBody() && x.parent.ActivityID == x.ActivityID
}

// newScope creates the scope execution of the scope activity (subprocess,
// multi-instance body, activity with input/output mappings) that path
// owner has entered; it runs the path inside.
func (c *command) newScope(owner *execution) *execution {
	s := c.newChild(owner)
	s.IsScope = true
	return s
}

// newConcurrent adds a concurrent path to scope.
func (c *command) newConcurrent(scope *execution) *execution {
	x := c.newChild(scope)
	x.IsConcurrent = true
	return x
}

// fork returns n paths continuing from x in its scope, x's own path first.
// When x ran alone on its scope execution, that path first moves to a new
// concurrent child, which is returned in its place.
func (c *command) fork(x *execution, n int) ([]*execution, error) {
	if !x.IsConcurrent {
		scope := x
		x = c.newConcurrent(scope)
		if err := c.movePath(scope, x); err != nil {
			return nil, err
		}
		scope.ActivityID, scope.ActivityInstanceID, scope.TransitionID = "", "", ""
		scope.IsActive = false
		c.update(scope)
		// Operations already on the agenda for the path (an event
		// subprocess may fork the scope under them) continue on x.
		scope.replacedBy = x
	}
	paths := []*execution{x}
	for len(paths) < n {
		paths = append(paths, c.newConcurrent(x.parent))
	}
	return paths, nil
}

// compact moves the last concurrent path of scope back onto scope and
// returns scope; with more than one path left it returns nil.
func (c *command) compact(scope *execution) (*execution, error) {
	live := scope.activeChildren()
	if len(live) != 1 || !live[0].IsConcurrent || scope.isBodyScope() {
		return nil, nil // inner instances stay below their body
	}
	last := live[0]
	if err := c.movePath(last, scope); err != nil {
		return nil, err
	}
	c.moveVariables(last, scope)
	if err := c.removeExecution(last); err != nil {
		return nil, err
	}
	scope.replacedBy = nil // it runs the path again
	last.replacedBy = scope
	return scope, nil
}

// live returns the execution that now runs x's path: x, the scope
// execution it was compacted into, or the concurrent child a scope's path
// moved to.
func (x *execution) live() *execution {
	for x.replacedBy != nil {
		x = x.replacedBy
	}
	return x
}

// movePath moves the path of from onto to: its position and everything it
// owns. The moved rows are flushed at once, so that later queries of this
// command by execution find them.
func (c *command) movePath(from, to *execution) error {
	to.ActivityID, to.ActivityInstanceID, to.TransitionID = from.ActivityID, from.ActivityInstanceID, from.TransitionID
	to.IsActive = from.IsActive
	c.update(to)
	owns := from.mayOwnRows()
	var kept []*execution
	for _, ch := range from.children {
		if ch == to || ch.removed {
			kept = append(kept, ch)
			continue
		}
		ch.parent, ch.ParentID = to, to.ID
		to.children = append(to.children, ch)
		c.update(ch)
	}
	from.children = kept
	if !owns {
		return nil
	}
	for _, t := range []*persistence.Table{persistence.JobTable, persistence.TaskTable, persistence.ExternalTaskTable,
		persistence.EventSubscriptionTable, persistence.IncidentTable} {
		for _, e := range c.cc.Cached(t, func(e persistence.Entity) bool {
			return executionOf(e) != nil && *executionOf(e) == from.ID && !isTrigger(e)
		}) {
			*executionOf(e) = to.ID
		}
	}
	for _, in := range c.instances {
		if in.root.SuperExecutionID == from.ID {
			in.root.SuperExecutionID = to.ID
		}
	}
	c.cc.Write(persistence.MovePath(from.ProcessInstanceID, from.ID, to.ID, handlerTimerEventSubprocess)...)
	return c.cc.Flush()
}

// executionOf points at the execution id field of a row a path owns.
func executionOf(e persistence.Entity) *string {
	switch r := e.(type) {
	case *persistence.Job:
		return &r.ExecutionID
	case *persistence.Task:
		return &r.ExecutionID
	case *persistence.ExternalTask:
		return &r.ExecutionID
	case *persistence.EventSubscription:
		return &r.ExecutionID
	case *persistence.Incident:
		return &r.ExecutionID
	}
	return nil
}

// mayOwnRows reports whether the path of x may own rows in other tables:
// it waits (in a job, a task, for an event, at a join) or has a child
// scope. An active path between activities owns none, so forks at
// gateways and joins cost no extra statement.
func (x *execution) mayOwnRows() bool {
	if !x.IsActive || len(x.activeChildren()) > 0 {
		return true
	}
	a := x.activity()
	return a != nil && (waitsFor(a) || a.External || a.Kind == bpmn.UserTask || a.Kind == bpmn.CallActivity)
}

// moveVariables moves the local variables of a concurrent path to its scope
// on compaction, replacing scope variables of the same name, as Camunda
// does. Unloaded variables move in the database; loadVariables applies
// the moves this command made to what it reads.
func (c *command) moveVariables(from, to *execution) {
	in := from.inst
	if !in.varsLoaded {
		c.cc.Write(persistence.MoveVariables(from.ID, to.ID)...)
		in.movedVars = append(in.movedVars, [2]string{from.ID, to.ID})
		return
	}
	for name, r := range in.vars[from.ID] {
		if old := in.vars[to.ID][name]; old != nil {
			c.cc.Delete(old)
		}
		delete(in.transient[to.ID], name)
		r.ExecutionID = to.ID
		c.cc.Update(r)
		if in.vars[to.ID] == nil {
			in.vars[to.ID] = make(map[string]*persistence.Variable)
		}
		in.vars[to.ID][name] = r
	}
	delete(in.vars, from.ID)
	// Transient variables (only ever set with the variables loaded) move
	// the same way, in memory.
	for name, r := range in.transient[from.ID] {
		if old := in.vars[to.ID][name]; old != nil {
			c.cc.Delete(old)
			delete(in.vars[to.ID], name)
		}
		r.ExecutionID = to.ID
		if in.transient[to.ID] == nil {
			in.transient[to.ID] = make(map[string]*persistence.Variable)
		}
		in.transient[to.ID][name] = r
	}
	delete(in.transient, from.ID)
}
