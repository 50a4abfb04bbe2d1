package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

const bodySuffix = "#multiInstanceBody"

func isBodyID(id string) bool    { return strings.HasSuffix(id, bodySuffix) }
func stripBody(id string) string { return strings.TrimSuffix(id, bodySuffix) }

// asyncSettings are the job settings that apply where x is: the activity's
// own for a plain activity or a multi-instance body, those of the loop
// characteristics for an inner instance.
type asyncSettings struct {
	before, after bool
	exclusive     bool
	retryCycle    string
	activityID    string // as recorded on jobs: the body's id for a body
}

func settingsFor(x *execution, a *bpmn.Activity) asyncSettings {
	if a.MultiInstance != nil && !x.isMIBody() {
		mi := a.MultiInstance
		return asyncSettings{mi.AsyncBefore, mi.AsyncAfter, mi.Exclusive, mi.RetryTimeCycle, a.ID}
	}
	id := a.ID
	if a.MultiInstance != nil {
		id = a.MultiInstanceBodyID()
	}
	return asyncSettings{a.AsyncBefore, a.AsyncAfter, a.Exclusive, a.RetryTimeCycle, id}
}

// take moves x along flow: take listeners, then the target activity.
func (c *command) take(x *execution, f *bpmn.SequenceFlow) error {
	if err := c.fireListeners(x, f.Listeners, "take", f); err != nil {
		return err
	}
	c.push(func() error { return c.enter(x, f.Target, false) })
	return nil
}

// enter moves x into a: into the multi-instance body when a has loop
// characteristics, else into the activity itself.
func (c *command) enter(x *execution, a *bpmn.Activity, skipAsync bool) error {
	if a.MultiInstance != nil {
		return c.enterBody(x, a, skipAsync)
	}
	return c.enterActivity(x, a, skipAsync)
}

// enterActivity runs the activity's start: the async-before break, start
// listeners, history, boundary events, then its behaviour.
func (c *command) enterActivity(x *execution, a *bpmn.Activity, skipAsync bool) error {
	x.ActivityID = a.ID
	x.IsActive = true
	c.update(x)
	s := settingsFor(x, a)
	if s.before && !skipAsync {
		x.IsActive = false
		handler := persistence.HandlerAsyncBefore
		if a.Kind == bpmn.StartEvent && a.Parent == nil {
			handler = persistence.HandlerProcessStart
		}
		_, err := c.createAsyncJob(x, a, s, handler, "")
		return err
	}
	if err := c.startActivity(x, a); err != nil {
		return err
	}
	return c.behave(x, a)
}

// startActivity fires start listeners, records history and arms boundary events.
func (c *command) startActivity(x *execution, a *bpmn.Activity) error {
	if a.Kind == bpmn.StartEvent && a.Parent == nil && x.parent == x.inst.root && !x.inst.started {
		x.inst.started = true
		if err := c.fireListeners(x.inst.root, a.Process.Listeners, "start", a.Process); err != nil {
			return err
		}
	}
	c.historyStart(x, a.ID, a)
	if err := c.fireListeners(x, a.Listeners, "start", a); err != nil {
		return err
	}
	if a.MultiInstance != nil {
		// The boundary events of a multi-instance activity belong to its
		// body (armed in enterBody), not to each inner instance.
		return nil
	}
	return c.armBoundaries(x, a)
}

// behave runs what the activity does once entered.
func (c *command) behave(x *execution, a *bpmn.Activity) error {
	switch a.Kind {
	case bpmn.StartEvent, bpmn.Task, bpmn.ManualTask, bpmn.BoundaryEvent:
		return c.leave(x, a)
	case bpmn.IntermediateThrowEvent:
		if a.Event == bpmn.SignalEvent {
			if err := c.throwSignal(a.SignalName, nil); err != nil {
				return err
			}
		}
		return c.leave(x, a)
	case bpmn.EndEvent:
		switch a.Event {
		case bpmn.TerminateEvent:
			return c.terminate(x, a)
		case bpmn.ErrorEvent:
			return c.throwError(x, a.ErrorCode, fmt.Sprintf("error end event '%s'", a.ID))
		}
		return c.endToken(x, a)
	case bpmn.ServiceTask, bpmn.SendTask:
		if a.External {
			return c.createExternalTask(x, a)
		}
		if err := c.callDelegate(x, "", a.Class, a.DelegateExpression, a.Expression, a.ResultVariable, a); err != nil {
			var be *BpmnError
			if errors.As(err, &be) {
				return c.throwError(x, be.Code, a.String())
			}
			return err
		}
		return c.leave(x, a)
	case bpmn.UserTask:
		return c.createTask(x, a)
	case bpmn.ReceiveTask:
		if a.MessageName != "" {
			c.subscribe(x, a, persistence.SubscriptionMessage, a.MessageName)
		}
		x.IsActive = false
		return nil
	case bpmn.IntermediateCatchEvent:
		x.IsActive = false
		return c.armEvent(x, a)
	case bpmn.ExclusiveGateway:
		f, err := c.chooseExclusive(x, a)
		if err != nil {
			return err
		}
		return c.leaveVia(x, a, []*bpmn.SequenceFlow{f})
	case bpmn.ParallelGateway:
		return c.parallelJoin(x, a)
	case bpmn.InclusiveGateway:
		return c.inclusiveArrive(x, a)
	case bpmn.EventBasedGateway:
		x.IsActive = false
		for _, f := range a.Outgoing {
			if err := c.armEvent(x, f.Target); err != nil {
				return err
			}
		}
		return nil
	case bpmn.SubProcess:
		start := a.NoneStartEvent()
		if start == nil {
			return fmt.Errorf("%s has no none start event", a)
		}
		x.IsScope = true
		x.IsActive = false
		child := c.newChild(x)
		c.push(func() error { return c.enter(child, start, false) })
		return nil
	case bpmn.CallActivity:
		x.IsActive = false
		return c.callProcess(x, a)
	}
	return fmt.Errorf("%s: element type is not executable", a)
}

// leave completes an activity that finished its work and continues along the
// outgoing flows its conditions select (or back to the multi-instance body).
func (c *command) leave(x *execution, a *bpmn.Activity) error {
	if a.MultiInstance != nil && !x.isMIBody() && x.parent != nil && x.parent.isMIBody() {
		if err := c.finishActivity(x, a, false); err != nil {
			return err
		}
		s := settingsFor(x, a)
		if s.after {
			_, err := c.createAsyncJob(x, a, s, persistence.HandlerAsyncAfter, "")
			return err
		}
		c.push(func() error { return c.innerDone(x, a) })
		return nil
	}
	flows, err := c.selectOutgoing(x, a)
	if err != nil {
		return err
	}
	return c.leaveVia(x, a, flows)
}

// selectOutgoing applies Camunda's default outgoing behaviour: every flow
// without a condition or with a true one; else the default flow; no flow
// at all ends the path.
func (c *command) selectOutgoing(x *execution, a *bpmn.Activity) ([]*bpmn.SequenceFlow, error) {
	if len(a.Outgoing) == 1 && a.Outgoing[0].Condition == "" {
		return a.Outgoing, nil
	}
	var out []*bpmn.SequenceFlow
	for _, f := range a.Outgoing {
		if f == a.DefaultFlow {
			continue
		}
		ok, err := c.condition(x, f)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	if len(out) == 0 && a.DefaultFlow != nil {
		out = append(out, a.DefaultFlow)
	}
	if len(out) == 0 && len(a.Outgoing) > 0 {
		return nil, fmt.Errorf("%s: no outgoing sequence flow could be selected for continuing the process (all conditions are false and there is no default flow)", a)
	}
	return out, nil
}

func (c *command) condition(x *execution, f *bpmn.SequenceFlow) (bool, error) {
	if f.Condition == "" {
		return true, nil
	}
	ex, err := expression.Compile(f.Condition)
	if err != nil {
		return false, fmt.Errorf("sequenceFlow '%s': %w", f.ID, err)
	}
	ok, err := ex.EvalBool(c.resolver(x))
	if err != nil {
		return false, fmt.Errorf("sequenceFlow '%s': %w", f.ID, err)
	}
	return ok, nil
}

// leaveVia finishes a and continues x along flows: the first flow on x,
// each further one on a new concurrent execution. With asyncAfter each path
// stops at a job that will take its flow.
func (c *command) leaveVia(x *execution, a *bpmn.Activity, flows []*bpmn.SequenceFlow) error {
	if err := c.finishActivity(x, a, false); err != nil {
		return err
	}
	s := settingsFor(x, a)
	if len(flows) == 0 {
		if s.after {
			_, err := c.createAsyncJob(x, a, s, persistence.HandlerAsyncAfter, "")
			return err
		}
		return c.endToken(x, nil)
	}
	for i, f := range flows {
		t := x
		if i > 0 {
			t = c.newChild(x.parent)
			t.ActivityID = a.ID
		}
		if s.after {
			t.IsActive = false
			if _, err := c.createAsyncJob(t, a, s, persistence.HandlerAsyncAfter, f.ID); err != nil {
				return err
			}
			continue
		}
		f, t := f, t
		c.push(func() error { return c.take(t, f) })
	}
	return nil
}

// finishActivity fires end listeners, closes history and removes what the
// activity left behind (boundary timers and subscriptions, local scope
// variables).
func (c *command) finishActivity(x *execution, a *bpmn.Activity, canceled bool) error {
	if !canceled && !x.isMIBody() {
		if err := c.fireListeners(x, a.Listeners, "end", a); err != nil {
			return err
		}
	}
	c.historyEnd(x, canceled)
	if err := c.clearWaits(x, a); err != nil {
		return err
	}
	if err := c.closeScope(x); err != nil {
		return err
	}
	x.IsActive = true
	c.update(x)
	return nil
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

// chooseExclusive picks the first flow whose condition holds (a flow without
// condition counts as true), else the default flow.
func (c *command) chooseExclusive(x *execution, a *bpmn.Activity) (*bpmn.SequenceFlow, error) {
	for _, f := range a.Outgoing {
		if f == a.DefaultFlow {
			continue
		}
		ok, err := c.condition(x, f)
		if err != nil {
			return nil, err
		}
		if ok {
			return f, nil
		}
	}
	if a.DefaultFlow != nil {
		return a.DefaultFlow, nil
	}
	return nil, fmt.Errorf("%s: no outgoing sequence flow condition is true and there is no default flow", a)
}

// parallelJoin waits at a parallel gateway until one path has arrived per
// incoming flow, then continues on one execution along every outgoing flow.
// Each arrival bumps the scope execution's revision, so of two concurrent
// arrivals in separate transactions exactly one commits.
func (c *command) parallelJoin(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	c.update(x)
	scope := x.parent
	if scope != nil {
		c.touch(scope)
	}
	var waiting []*execution
	if scope != nil {
		for _, ch := range scope.activeChildren() {
			if ch.arrivedAt(a) {
				waiting = append(waiting, ch)
			}
		}
	} else {
		waiting = []*execution{x}
	}
	if len(waiting) < len(a.Incoming) {
		return nil
	}
	return c.merge(x, a, waiting, a.Outgoing)
}

// arrivedAt reports whether x waits at the join a, as opposed to being
// parked before it in an async-before job (it has no activity instance yet).
func (x *execution) arrivedAt(a *bpmn.Activity) bool {
	return x.ActivityID == a.ID && !x.IsActive && x.ActivityInstanceID != ""
}

// merge continues x out of a join, ending the other waiting paths.
func (c *command) merge(x *execution, a *bpmn.Activity, waiting []*execution, flows []*bpmn.SequenceFlow) error {
	for _, w := range waiting {
		if w == x {
			continue
		}
		c.historyEnd(w, false)
		if err := c.removeExecution(w); err != nil {
			return err
		}
	}
	x.IsActive = true
	return c.leaveVia(x, a, flows)
}

// inclusiveArrive parks x at an inclusive gateway and checks whether the
// join can fire.
func (c *command) inclusiveArrive(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	c.update(x)
	if x.parent != nil {
		c.touch(x.parent)
	}
	return c.inclusiveCheck(x, a)
}

// inclusiveCheck fires the inclusive gateway a when no other path of the
// scope can still reach it: the waiting paths merge and continue along every
// flow whose condition holds (else the default flow).
func (c *command) inclusiveCheck(x *execution, a *bpmn.Activity) error {
	if x.removed || x.IsActive || x.ActivityID != a.ID {
		return nil
	}
	scope := x.parent
	waiting := []*execution{x}
	if scope != nil {
		waiting = waiting[:0]
		for _, ch := range scope.activeChildren() {
			if ch.arrivedAt(a) {
				waiting = append(waiting, ch)
				continue
			}
			if ch.ActivityID == a.ID {
				return nil // parked in an async-before job: it will arrive
			}
			if from := ch.activity(); from != nil && canReach(from, a) {
				return nil
			}
		}
	}
	var flows []*bpmn.SequenceFlow
	for _, f := range a.Outgoing {
		if f == a.DefaultFlow {
			continue
		}
		ok, err := c.condition(x, f)
		if err != nil {
			return err
		}
		if ok {
			flows = append(flows, f)
		}
	}
	if len(flows) == 0 {
		if a.DefaultFlow == nil && len(a.Outgoing) > 0 {
			return fmt.Errorf("%s: no outgoing sequence flow condition is true and there is no default flow", a)
		}
		if a.DefaultFlow != nil {
			flows = append(flows, a.DefaultFlow)
		}
	}
	return c.merge(x, a, waiting, flows)
}

// canReach reports whether target is reachable from from along sequence
// flows (and boundary events) within the same scope.
func canReach(from, target *bpmn.Activity) bool {
	seen := map[*bpmn.Activity]bool{}
	stack := []*bpmn.Activity{from}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[a] {
			continue
		}
		seen[a] = true
		next := make([]*bpmn.Activity, 0, len(a.Outgoing)+len(a.Boundaries))
		for _, f := range a.Outgoing {
			next = append(next, f.Target)
		}
		next = append(next, a.Boundaries...)
		for _, n := range next {
			if n == target {
				return true
			}
			stack = append(stack, n)
		}
	}
	return false
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
