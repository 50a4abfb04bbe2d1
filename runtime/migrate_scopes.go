package runtime

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Migrations that add or remove scopes, as Camunda's: an activity instance
// whose target lies in embedded subprocesses that its source does not
// (they are not mapped to) gets new instances of them, and the instance
// of a source embedded subprocess that the plan does not map is removed,
// its paths moving to the enclosing scope.
//
// A removed subprocess instance ends as Camunda's deleteCascade ends it,
// innermost first: its end listeners run (unless SkipCustomListeners), its
// output mappings too (unless SkipIOMappings), its history is ended as
// canceled, its boundary events and event subprocess triggers go, and so
// do its local variables; the variables of the paths inside it move with
// them. New subprocess instances are created after the rest of the
// instance migrated, as Camunda's instantiateScopes: start listeners,
// input mappings, history, boundary events and event subprocess triggers,
// never an asynchronous continuation. Paths that need the same new scope
// below the same migrated scope instance share one instance of it; a path
// alone in a new scope runs on its scope execution, its local variables
// moving there (Camunda's compaction). A multi-instance body the plan does
// not map is removed the same way (removeBodyInstance), its inner
// instances becoming instances of the plain target activity.

// removableScope reports whether x is (or is the input/output scope of)
// the path at an embedded subprocess instance that an unmapped source
// subprocess may be removed from: it has an inside.
func removableScope(x *execution) bool {
	x = x.outside()
	a := x.activity()
	return a != nil && !x.isMIBody() && isEmbeddedSubprocess(a) && innerScope(x) != nil
}

// removableBody reports whether x is (or is the scope execution of) the
// path at a multi-instance body instance that an unmapped source body may
// be removed from: it runs inner instances.
func removableBody(x *execution) bool {
	if x.isBodyScope() {
		x = x.parent
	}
	return x.isMIBody() && bodyScope(x) != nil
}

// bodyScope returns the scope execution of the body path x waits at, nil
// when it has none (the body waits for an asynchronous continuation).
func bodyScope(x *execution) *execution {
	for _, ch := range x.activeChildren() {
		if ch.isBodyScope() {
			return ch
		}
	}
	return nil
}

// removeUnmappedScopes removes the instances of the embedded subprocesses
// and multi-instance bodies that m does not map, innermost first
// (Camunda's DeleteUnmappedInstanceVisitor walks bottom up), in's
// definition still the source's.
func (c *command) removeUnmappedScopes(in *instance, m *migration) error {
	var owners []*execution // parents before children
	for _, x := range liveExecutions(in) {
		if !x.isIOScope() && !x.isBodyScope() && m.by[x.ActivityID] == nil && (removableScope(x) || removableBody(x)) {
			owners = append(owners, x)
		}
	}
	if len(owners) == 0 {
		return nil
	}
	for i := len(owners) - 1; i >= 0; i-- {
		remove := c.removeScopeInstance
		if owners[i].isMIBody() {
			remove = c.removeBodyInstance
		}
		if err := remove(owners[i]); err != nil {
			return err
		}
	}
	return c.cc.Flush()
}

// removeBodyInstance removes the multi-instance body instance path x waits
// at, as Camunda removes an unmapped body: its history ends as canceled,
// its boundary events go, and so do its scope execution and the loop
// variables there (nrOfInstances, nrOfActiveInstances,
// nrOfCompletedInstances). Each inner instance becomes a path of x's
// scope: concurrent ones when several are left, else x itself runs it.
// The inner instance of a parallel body keeps its local variables
// (loopCounter, the element variable), which Camunda keeps on its
// concurrent execution; those of a sequential body's inner instance go,
// as Camunda keeps them on the body's scope execution.
func (c *command) removeBodyInstance(x *execution) error {
	body := bodyScope(x)
	sequential := x.activity().MultiInstance.Sequential
	if err := c.deleteWaits(x, false); err != nil {
		return err
	}
	c.historyEnd(x, true)
	paths := body.activeChildren()
	switch {
	case len(paths) == 1:
		ch := paths[0]
		if err := c.movePath(ch, x); err != nil {
			return err
		}
		if !sequential {
			c.moveVariables(ch, x)
		}
		if err := c.removeExecution(ch); err != nil {
			return err
		}
		paths = []*execution{x}
	case len(paths) > 1:
		c.liftPaths(x, paths)
	default:
		return fmt.Errorf("%w: the instance of multi-instance body '%s' to remove runs no inner instance", ErrMigration, x.ActivityID)
	}
	return c.dropRemovedScope(x, paths, body)
}

// removeScopeInstance removes the subprocess instance path p waits at:
// the subprocess ends (listeners, output mappings, history, triggers,
// local variables) and its paths take p's place in p's scope.
func (c *command) removeScopeInstance(p *execution) error {
	run := p // the execution that runs the subprocess: its input/output scope, if any
	for _, ch := range p.activeChildren() {
		if ch.isIOScope() {
			run = ch
		}
	}
	inner := innerScope(p)
	if err := c.cancelListeners(run); err != nil {
		return err
	}
	if run != p && !c.skipIoMappings {
		a := run.activity()
		for _, o := range a.IO.Outputs {
			v, err := c.parameterValue(run, o.Value)
			if err == nil {
				err = p.setVariable(o.Name, v)
			}
			if err != nil {
				return failAt(a, "camunda:outputParameter '%s': %w", o.Name, err)
			}
		}
	}
	if err := c.cancelWaits(run, migrationReason); err != nil {
		return err
	}
	c.historyEnd(run, true)
	if err := c.disarmEventSubprocesses(inner); err != nil {
		return err
	}
	var paths []*execution
	for _, ch := range inner.activeChildren() {
		if ch.IsConcurrent {
			paths = append(paths, ch)
		}
	}
	switch {
	case len(paths) > 0:
		c.liftPaths(p, paths)
	case inner.ActivityID != "":
		paths = []*execution{p}
		if err := c.movePath(inner, p); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: the instance of subprocess '%s' to remove runs no path", ErrMigration, p.ActivityID)
	}
	if run != p {
		return c.dropRemovedScope(p, paths, inner, run)
	}
	return c.dropRemovedScope(p, paths, inner)
}

// liftPaths makes paths, the concurrent paths inside a scope instance
// being removed that path p waits at, concurrent paths of p's scope; p
// leaves its activity, or goes (dropRemovedScope) when it is one of
// several paths itself.
func (c *command) liftPaths(p *execution, paths []*execution) {
	scope := p.scope()
	for _, ch := range paths {
		c.reparent(ch, scope)
	}
	if p == scope {
		p.ActivityID, p.ActivityInstanceID, p.TransitionID, p.IsActive = "", "", "", false
		c.update(p)
	}
}

// dropRemovedScope ends the removal of the scope instance path p waited
// at, whose paths now run as paths (p itself when it runs the only one):
// their history follows (markReparented), the removed scope's executions
// go, innermost first, and so does p when it is a concurrent path left
// with nothing to run.
func (c *command) dropRemovedScope(p *execution, paths []*execution, scopes ...*execution) error {
	for _, x := range paths {
		c.markReparented(x)
	}
	for _, s := range scopes {
		if err := c.removeExecution(s); err != nil {
			return err
		}
	}
	if p.IsConcurrent && paths[0] != p {
		return c.removeExecution(p)
	}
	return nil
}

const migrationReason = "migration"

// reparent makes path x a concurrent path of scope s.
func (c *command) reparent(x, s *execution) {
	if old := x.parent; old != nil {
		kept := old.children[:0]
		for _, ch := range old.children {
			if ch != x {
				kept = append(kept, ch)
			}
		}
		old.children = kept
	}
	x.parent, x.ParentID, x.IsConcurrent = s, s.ID, true
	s.children = append(s.children, x)
	c.update(x)
}

// markReparented records that the activity instance path x runs has a new
// parent activity instance: its history follows at the end of the
// migration (reparentHistory).
func (c *command) markReparented(x *execution) {
	if x.ActivityInstanceID == "" {
		return
	}
	if c.reparented == nil {
		c.reparented = map[string]bool{}
	}
	c.reparented[x.ActivityInstanceID] = true
}

// pathsOf returns the paths of scope execution s: its concurrent
// children, or s itself when it runs its only path.
func pathsOf(s *execution) []*execution {
	var out []*execution
	for _, ch := range s.activeChildren() {
		if ch.IsConcurrent {
			out = append(out, ch)
		}
	}
	if len(out) == 0 && s.ActivityID != "" {
		out = append(out, s)
	}
	return out
}

// nextScope returns the outermost of the subprocesses between the activity
// path x is at and scope (nil: the process), nil when there is none.
func nextScope(x *execution, scope *bpmn.Activity) *bpmn.Activity {
	a := x.activity()
	if a == nil {
		return nil
	}
	var next *bpmn.Activity
	for fs := a.Parent; fs != nil && fs != scope; fs = fs.Parent {
		next = fs
	}
	return next
}

// addTargetScopes creates, on migrated instance in (its definition the
// target's), the subprocess instances its paths lack, from the process
// instance down.
func (c *command) addTargetScopes(in *instance) error {
	return c.addScopesIn(in.root, nil)
}

// addScopesIn gives the paths of scope execution s, which runs the inside
// of scope (nil: the process), the instances of the subprocesses between
// their activities and scope, one level at a time, then does the same in
// the subprocess instances they run.
func (c *command) addScopesIn(s *execution, scope *bpmn.Activity) error {
	type group struct {
		scope *bpmn.Activity
		paths []*execution
	}
	var groups []*group
	paths := pathsOf(s)
	plain := 0
	for _, x := range paths {
		next := nextScope(x, scope)
		if next == nil {
			plain++
			continue
		}
		var g *group
		for _, h := range groups {
			if h.scope == next {
				g = h
			}
		}
		if g == nil {
			g = &group{scope: next}
			groups = append(groups, g)
		}
		g.paths = append(g.paths, x)
	}
	if len(groups) > 0 && len(paths) == 1 && paths[0] == s {
		// s runs its path itself: the path moves to a concurrent child
		// first, as a fork does, s keeping its variables.
		forked, err := c.fork(s, 1)
		if err != nil {
			return err
		}
		groups[0].paths[0] = forked[0]
		s.replacedBy = nil
	}
	for _, g := range groups {
		holder := s
		if plain+len(groups) > 1 {
			holder = c.newConcurrent(s)
		}
		inner, err := c.openScopes(holder, []*bpmn.Activity{g.scope})
		if err != nil {
			return err
		}
		if len(g.paths) == 1 {
			x := g.paths[0]
			if err := c.movePath(x, inner); err != nil {
				return err
			}
			c.moveVariables(x, inner)
			if err := c.removeExecution(x); err != nil {
				return err
			}
			c.markReparented(inner)
			continue
		}
		inner.IsActive = false
		c.update(inner)
		for _, x := range g.paths {
			c.reparent(x, inner)
			c.markReparented(x)
		}
	}
	for _, x := range pathsOf(s) {
		if a := x.activity(); a != nil && !x.isMIBody() && a.Kind == bpmn.SubProcess && a.MultiInstance == nil {
			if inner := innerScope(x); inner != nil {
				if err := c.addScopesIn(inner, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// reparentHistory gives the open historic activity instances of the paths
// the migration moved their new parent activity instance (and the
// execution running them, when the one they recorded is gone).
func (c *command) reparentHistory(in *instance) error {
	if len(c.reparented) == 0 {
		return nil
	}
	if err := c.cc.Flush(); err != nil {
		return err
	}
	acts, err := tx.Select(c.cc, persistence.HistoricActivityFilter{ProcessInstanceID: in.root.ID, Unfinished: true}.Query())
	if err != nil {
		return err
	}
	byID := map[string]*persistence.HistoricActivityInstance{}
	for _, h := range acts {
		byID[h.ID] = h
	}
	for _, x := range liveExecutions(in) {
		if !c.reparented[x.ActivityInstanceID] || (x.parent != nil && x.parent.ActivityInstanceID == x.ActivityInstanceID) {
			continue
		}
		h := byID[x.ActivityInstanceID]
		if h == nil {
			continue
		}
		if ran := in.execs[h.ExecutionID]; ran == nil || ran.removed {
			h.ExecutionID = x.ID // the execution that ran it went: the one running it now
		}
		h.ParentActivityInstanceID = x.parentActivityInstance()
		c.cc.Update(h)
	}
	c.reparented = nil
	return nil
}
