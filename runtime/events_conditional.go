package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Conditional events, as Camunda runs them: an intermediate, boundary or
// event subprocess start conditional event subscribes when it is reached,
// its activity starts or its scope starts, and its condition is evaluated
// then, and again whenever a variable
// visible to it changes (set on its execution or on a scope above it),
// filtered by camunda:variableName and camunda:variableEvents. A command
// evaluates once its agenda is drained, so a condition sees the variables
// as the operations left them; what the events trigger runs in the same
// command, and may change variables again.

// variableChange is one variable written or removed by a command.
type variableChange struct {
	in          *instance
	executionID string // the execution that owns the variable
	name, event string // event: create, update or delete
}

// changed records a variable change of x's instance for its conditional
// events; instances of processes without any cost nothing.
func (x *execution) changed(owner, name, event string) {
	if !x.inst.def.Process.HasConditionalEvents {
		return
	}
	c := x.inst.c
	c.varChanges = append(c.varChanges, variableChange{x.inst, owner, name, event})
}

// subscribeCondition makes x wait for conditional event a; the condition
// is evaluated when the agenda drains.
func (c *command) subscribeCondition(x *execution, a *bpmn.Activity) *persistence.EventSubscription {
	sub := c.subscribe(x, a, persistence.SubscriptionConditional, "")
	if c.freshConditions == nil {
		c.freshConditions = make(map[string]*instance)
	}
	c.freshConditions[sub.ID] = x.inst
	return sub
}

// conditionRound is the conditional events a batch of variable changes
// and new subscriptions concerns, listed once when the batch is taken up.
// They are evaluated and fired one at a time, each at most once: what one
// runs may remove the waits of the others (an interrupting event
// subprocess cancels its scope), so the next is evaluated after it.
type conditionRound struct {
	candidates []conditionCandidate
	next       int
}

type conditionCandidate struct {
	in  *instance
	sub *persistence.EventSubscription
	a   *bpmn.Activity
}

// evaluateConditions puts the next conditional event whose condition holds
// on the agenda, of the current round or of a new one made of the changes
// and subscriptions since; it reports whether it did.
func (c *command) evaluateConditions() (bool, error) {
	for {
		if c.conditions == nil {
			if len(c.varChanges) == 0 && len(c.freshConditions) == 0 {
				return false, nil
			}
			round, err := c.newConditionRound(c.varChanges, c.freshConditions)
			c.varChanges, c.freshConditions = nil, nil
			if err != nil {
				return false, err
			}
			c.conditions = round
		}
		round := c.conditions
		for round.next < len(round.candidates) {
			cand := round.candidates[round.next]
			round.next++
			x := cand.in.execs[cand.sub.ExecutionID] // its path may have moved since the round began
			if c.cc.IsDeleted(cand.sub) || x == nil || x.removed || cand.in.root.Suspension == persistence.Suspended {
				continue
			}
			ok, err := holds(c.resolver(x), cand.a.Condition)
			if err != nil {
				return false, failAt(cand.a, "condition: %w", err)
			}
			if ok {
				c.push(func() error { return c.fireCondition(cand.sub, x, cand.a) })
				return true, nil
			}
		}
		c.conditions = nil
	}
}

// newConditionRound lists the conditional events that changes concern and
// the fresh subscriptions, in the order their waits were made.
func (c *command) newConditionRound(changes []variableChange, fresh map[string]*instance) (*conditionRound, error) {
	var instances []*instance
	for _, ch := range changes {
		if !slices.Contains(instances, ch.in) {
			instances = append(instances, ch.in)
		}
	}
	for _, in := range fresh {
		if !slices.Contains(instances, in) {
			instances = append(instances, in)
		}
	}
	round := &conditionRound{}
	for _, in := range instances {
		if c.cc.IsDeleted(in.root) {
			continue
		}
		subs, err := c.conditionalSubscriptions(in)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(subs, byCreation)
		for _, sub := range subs {
			x := in.execs[sub.ExecutionID]
			a := in.def.Process.Activity(sub.ActivityID)
			if x == nil || a == nil {
				continue
			}
			if _, isNew := fresh[sub.ID]; isNew || concerns(changes, in, x, a) {
				round.candidates = append(round.candidates, conditionCandidate{in, sub, a})
			}
		}
	}
	return round, nil
}

// byCreation orders subscriptions oldest first: by creation time, then by
// id, which grows with time too (ids made in one command share a time).
func byCreation(a, b *persistence.EventSubscription) int {
	if n := a.Created.Compare(b.Created); n != 0 {
		return n
	}
	return strings.Compare(a.ID, b.ID)
}

// conditionalSubscriptions are in's conditional subscriptions: stored, and
// created by this command.
func (c *command) conditionalSubscriptions(in *instance) ([]*persistence.EventSubscription, error) {
	return selectWithNew(c, persistence.ConditionalSubscriptionsOf(in.root.ID), func(s *persistence.EventSubscription) bool {
		return s.EventType == persistence.SubscriptionConditional && s.ProcessInstanceID == in.root.ID
	})
}

// concerns reports whether one of the changes is seen by conditional event
// a that x waits for: a variable of x or of a scope above it, of the name
// and kind of change the event listens to.
func concerns(changes []variableChange, in *instance, x *execution, a *bpmn.Activity) bool {
	for _, ch := range changes {
		if ch.in != in {
			continue
		}
		if a.ConditionVariable != "" && ch.name != a.ConditionVariable {
			continue
		}
		if len(a.ConditionVariableEvents) > 0 && !slices.Contains(a.ConditionVariableEvents, ch.event) {
			continue
		}
		for s := x; s != nil; s = s.parent {
			if s.ID == ch.executionID {
				return true
			}
		}
	}
	return false
}

// fireCondition triggers conditional event a, which x waits for, unless an
// operation before it removed the wait. A non-interrupting boundary event
// or event subprocess start keeps listening while its scope runs.
func (c *command) fireCondition(sub *persistence.EventSubscription, x *execution, a *bpmn.Activity) error {
	if c.cc.IsDeleted(sub) {
		return nil
	}
	if !keepsListening(a) {
		c.cc.Delete(sub)
	}
	return c.trigger(x, a.ID, nil)
}

// ErrNoConditionalStart: no deployed process (or not the one asked for)
// has a conditional start event.
var ErrNoConditionalStart = errors.New("no conditional start event is deployed")

// ConditionEvaluation asks which processes start on a condition: those of
// the latest definitions (or of ProcessDefinitionID) whose conditional
// start event's condition holds on Variables start, with them.
type ConditionEvaluation struct {
	Variables           map[string]any
	BusinessKey         string
	ProcessDefinitionID string
}

// EvaluateStartConditions starts an instance of every process whose
// conditional start event's condition holds on the request's variables, as
// Camunda's condition evaluation does, and returns their ids. Suspended
// definitions are skipped; with none deployed it fails with
// ErrNoConditionalStart.
func (e *Engine) EvaluateStartConditions(ctx context.Context, t persistence.Tx, req ConditionEvaluation) ([]string, error) {
	var started []string
	err := e.command(ctx, t, func(c *command) error {
		started = nil
		subs, err := tx.Read(c.cc, persistence.ConditionalStarts(req.ProcessDefinitionID))
		if err != nil {
			return err
		}
		if len(subs) == 0 {
			return ErrNoConditionalStart
		}
		for _, sub := range subs {
			def, err := c.definition(sub.ProcessDefinitionID)
			if err != nil {
				return err
			}
			start := def.Process.Activity(sub.ActivityID)
			if def.Suspension == persistence.Suspended || start == nil {
				continue
			}
			ok, err := holds(resolver{e: c.e, vars: req.Variables}, start.Condition)
			if err != nil {
				return failAt(start, "condition: %w", err)
			}
			if !ok {
				continue
			}
			in, err := c.startInstance(def, req.BusinessKey, "", req.Variables, start)
			if err != nil {
				return err
			}
			started = append(started, in.root.ID)
		}
		return nil
	})
	return started, err
}
