package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
)

// Gateways: exclusive choice, parallel fork and join, inclusive fork and
// join, the event-based gateway.

// exclusiveGateway leaves by the one flow its conditions choose.
func (c *command) exclusiveGateway(x *execution, a *bpmn.Activity) error {
	f, err := c.chooseExclusive(x, a)
	if err != nil {
		return err
	}
	return c.leaveVia(x, a, []*bpmn.SequenceFlow{f})
}

// chooseExclusive picks the first flow whose condition holds (a flow without
// condition counts as true), else the default flow.
func (c *command) chooseExclusive(x *execution, a *bpmn.Activity) (*bpmn.SequenceFlow, error) {
	if out, err := c.holdingFlows(x, a, true); err != nil || len(out) > 0 {
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}
	if a.DefaultFlow != nil {
		return a.DefaultFlow, nil
	}
	return nil, failAt(a, "no outgoing sequence flow condition is true and there is no default flow")
}

// parallelJoin waits at a parallel gateway until one path has arrived per
// incoming flow, then continues on one execution along every outgoing flow.
// Each arrival bumps the scope execution's revision, so of two concurrent
// arrivals in separate transactions exactly one commits.
func (c *command) parallelJoin(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	c.update(x)
	waiting := []*execution{x}
	if x.IsConcurrent {
		scope := x.parent
		c.touch(scope)
		waiting = waiting[:0]
		for _, ch := range scope.activeChildren() {
			if ch.arrivedAt(a) {
				waiting = append(waiting, ch)
			}
		}
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

// merge continues x out of a join, ending the other waiting paths; when x
// is then its scope's last path, it continues on the scope execution.
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
	if x.IsConcurrent {
		scope, err := c.compact(x.parent)
		if err != nil {
			return err
		}
		if scope != nil {
			x = scope
		}
	}
	return c.leaveVia(x, a, flows)
}

// inclusiveArrive parks x at an inclusive gateway and checks whether the
// join can fire.
func (c *command) inclusiveArrive(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	c.update(x)
	c.touch(x.scope())
	return c.inclusiveCheck(x, a)
}

// inclusiveCheck fires the inclusive gateway a when no other path of the
// scope can still reach it: the waiting paths merge and continue along every
// flow whose condition holds (else the default flow).
func (c *command) inclusiveCheck(x *execution, a *bpmn.Activity) error {
	x = x.live()
	if x.removed || x.IsActive || x.ActivityID != a.ID {
		return nil
	}
	waiting := []*execution{x}
	if x.IsConcurrent {
		scope := x.parent
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
	flows, err := c.holdingFlows(x, a, false)
	if err != nil {
		return err
	}
	if len(flows) == 0 {
		if a.DefaultFlow == nil && len(a.Outgoing) > 0 {
			return failAt(a, "no outgoing sequence flow condition is true and there is no default flow")
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

// eventGateway waits for the first of the events behind it.
func (c *command) eventGateway(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	for _, f := range a.Outgoing {
		if err := c.armEvent(x, f.Target); err != nil {
			return err
		}
	}
	// Camunda evaluates the conditional events behind the gateway as it is
	// reached: the first whose condition holds wins.
	_, err := c.settle(x)
	return err
}
