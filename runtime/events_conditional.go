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
// filtered by camunda:variableName and camunda:variableEvents. A condition
// that reads a variable not set yet does not hold (tryHolds). Changes are
// evaluated where Camunda dispatches them: as an activity's behaviour
// starts, as it leaves and after take listeners (settle), and once the
// command's agenda is drained; what the events trigger runs in the same
// command, and may change variables again.

// variableChange is one variable written or removed by a command.
type variableChange struct {
	in          *instance
	executionID string // the execution that owns the variable
	name, event string // event: create, update or delete
	seq         int    // order among the command's changes and new waits
}

// freshWait is a conditional wait made by the command, not evaluated yet.
type freshWait struct {
	in  *instance
	seq int // order among the command's changes and new waits
}

// changed records a variable change of x's instance for its conditional
// events; instances of processes without any cost nothing.
func (x *execution) changed(owner, name, event string) {
	if !x.inst.def.Process.HasConditionalEvents {
		return
	}
	c := x.inst.c
	c.conditionSeq++
	c.varChanges = append(c.varChanges, variableChange{x.inst, owner, name, event, c.conditionSeq})
}

// subscribeCondition makes x wait for conditional event a; the condition
// is evaluated at the next save point (settle) or when the agenda drains.
func (c *command) subscribeCondition(x *execution, a *bpmn.Activity) *persistence.EventSubscription {
	sub := c.subscribe(x, a, persistence.SubscriptionConditional, "")
	if c.freshConditions == nil {
		c.freshConditions = make(map[string]freshWait)
	}
	c.conditionSeq++
	c.freshConditions[sub.ID] = freshWait{x.inst, c.conditionSeq}
	return sub
}

// conditionRound is the conditional events a batch of variable changes
// and new subscriptions concerns, listed once when the batch is taken up
// (a wait once per change it concerns, see newConditionRound). They are
// evaluated and fired one at a time: what one runs may remove the waits
// of the others (an interrupting event subprocess cancels its scope), so
// the next is evaluated after it.
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
			x, ok, err := c.conditionMet(cand)
			if err != nil {
				return false, err
			}
			if ok {
				c.push(func() error { return c.fireCondition(cand.sub, x, cand.a) })
				return true, nil
			}
		}
		c.conditions = nil
	}
}

// conditionMet reports whether candidate cand still waits (its path may
// have moved since its round began) and its condition holds, with the
// execution that waits.
func (c *command) conditionMet(cand conditionCandidate) (*execution, bool, error) {
	x := cand.in.execs[cand.sub.ExecutionID]
	if c.cc.IsDeleted(cand.sub) || x == nil || x.removed || cand.in.root.Suspension == persistence.Suspended {
		return nil, false, nil
	}
	var ok bool
	var err error
	if sc := cand.a.ConditionScript; sc != nil {
		y := conditionScope(x, cand.a)
		ok, err = c.scriptHolds(c.handle(y, ""), nil, y.inst.def, sc, cand.a, true)
	} else {
		ok, err = tryHolds(c.resolver(conditionScope(x, cand.a)), cand.a.Condition)
	}
	if err != nil {
		return nil, false, failAt(cand.a, "condition: %w", err)
	}
	return x, ok, nil
}

// settle is where Camunda dispatches the variable events it delayed: as
// an activity's behaviour starts (after its input mapping, start listeners
// and boundary events), as it leaves, and after take listeners; and where
// it evaluates conditional events as they are reached (an intermediate
// event, the events behind an event-based gateway). The changes of x's
// instance and its new conditional waits since the last evaluation are
// evaluated now, and each event whose condition holds fires before x goes
// on, so that a variable its delegate, listeners or mappings set can
// trigger a boundary event of the activity itself. It returns the
// execution that goes on with x's path, or nil when a fired event took
// the path off the activity instance x ran (an interrupting boundary event
// or event subprocess).
func (c *command) settle(x *execution) (*execution, error) {
	if c.settling || len(c.varChanges) == 0 && len(c.freshConditions) == 0 {
		return x, nil // within a firing: its changes wait for the next point
	}
	x = x.live()
	changes, fresh := c.takeConditionWork(x.inst)
	if len(changes) == 0 && len(fresh) == 0 {
		return x, nil
	}
	round, err := c.newConditionRound(changes, fresh)
	if err != nil {
		return nil, err
	}
	activity, instance := x.ActivityID, x.ActivityInstanceID
	c.settling = true
	defer func() { c.settling = false }()
	for _, cand := range round.candidates {
		w, ok, err := c.conditionMet(cand)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := c.fireCondition(cand.sub, w, cand.a); err != nil {
				return nil, err
			}
		}
	}
	if x = x.live(); x.removed || x.ActivityID != activity || x.ActivityInstanceID != instance {
		return nil, nil
	}
	return x, nil
}

// takeConditionWork removes in's variable changes and new conditional
// waits from those the command has yet to evaluate, and returns them.
func (c *command) takeConditionWork(in *instance) ([]variableChange, map[string]freshWait) {
	var mine, others []variableChange
	for _, ch := range c.varChanges {
		if ch.in == in {
			mine = append(mine, ch)
		} else {
			others = append(others, ch)
		}
	}
	c.varChanges = others
	var fresh map[string]freshWait
	for id, f := range c.freshConditions {
		if f.in == in {
			if fresh == nil {
				fresh = make(map[string]freshWait)
			}
			fresh[id] = f
			delete(c.freshConditions, id)
		}
	}
	return mine, fresh
}

// newConditionRound lists the conditional events to evaluate for changes
// and fresh waits, as Camunda dispatches them: a new wait once as it is
// made (Camunda's default evaluation, whatever its variable filters), and
// every wait for each later change it concerns, so that a non-interrupting
// event fires once per change that finds its condition true. Changes and
// new waits are taken in the order they happened, the waits a change
// concerns in the order they were made.
func (c *command) newConditionRound(changes []variableChange, fresh map[string]freshWait) (*conditionRound, error) {
	var instances []*instance
	for _, ch := range changes {
		if !slices.Contains(instances, ch.in) {
			instances = append(instances, ch.in)
		}
	}
	for _, f := range fresh {
		if !slices.Contains(instances, f.in) {
			instances = append(instances, f.in)
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
		type wait struct {
			conditionCandidate
			x    *execution
			made int // 0: before the command
		}
		var waits, made []wait // made: the fresh ones, in the order made
		for _, sub := range subs {
			x := in.execs[sub.ExecutionID]
			a := in.def.Process.Activity(sub.ActivityID)
			if x == nil || a == nil {
				continue
			}
			w := wait{conditionCandidate{in, sub, a}, x, 0}
			if f, isNew := fresh[sub.ID]; isNew {
				w.made = f.seq
				made = append(made, w)
			}
			waits = append(waits, w)
		}
		slices.SortFunc(made, func(a, b wait) int { return a.made - b.made })
		for _, ch := range changes {
			if ch.in != in {
				continue
			}
			for len(made) > 0 && made[0].made < ch.seq {
				round.candidates = append(round.candidates, made[0].conditionCandidate)
				made = made[1:]
			}
			for _, w := range waits {
				if w.made < ch.seq && concerns(ch, w.x, w.a) {
					round.candidates = append(round.candidates, w.conditionCandidate)
				}
			}
		}
		for _, w := range made {
			round.candidates = append(round.candidates, w.conditionCandidate)
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
// created by this command. The stored ones are read once per command (each
// save point asks): the command's cache holds them from then on, with
// those it makes, and leaves out those it deletes.
func (c *command) conditionalSubscriptions(in *instance) ([]*persistence.EventSubscription, error) {
	mine := func(s *persistence.EventSubscription) bool {
		return s.EventType == persistence.SubscriptionConditional && s.ProcessInstanceID == in.root.ID
	}
	if !c.conditionsRead[in.root.ID] {
		subs, err := selectWithNew(c, persistence.ConditionalSubscriptionsOf(in.root.ID), mine)
		if err == nil {
			if c.conditionsRead == nil {
				c.conditionsRead = make(map[string]bool)
			}
			c.conditionsRead[in.root.ID] = true
		}
		return subs, err
	}
	var subs []*persistence.EventSubscription
	for _, e := range c.cc.Cached(persistence.EventSubscriptionTable, func(e persistence.Entity) bool { return mine(e.(*persistence.EventSubscription)) }) {
		subs = append(subs, e.(*persistence.EventSubscription))
	}
	return subs, nil
}

// concerns reports whether change ch is seen by conditional event a that
// x waits for: a variable of x or of a scope above it, of the name and
// kind of change the event listens to.
func concerns(ch variableChange, x *execution, a *bpmn.Activity) bool {
	if a.ConditionVariable != "" && ch.name != a.ConditionVariable {
		return false
	}
	if len(a.ConditionVariableEvents) > 0 && !slices.Contains(a.ConditionVariableEvents, ch.event) {
		return false
	}
	for s := conditionScope(x, a); s != nil; s = s.parent {
		if s.ID == ch.executionID {
			return true
		}
	}
	return false
}

// conditionScope is the execution whose variables conditional event a,
// which x waits for, sees: x, but for a boundary event of a subprocess or
// a multi-instance activity the scope execution that activity runs below
// x (the subprocess's, the body's with nrOfInstances...). In Camunda one
// execution carries both the boundary event and that scope's variables,
// so a variable local to it, or set by a task inside the subprocess on its
// execution, is seen (testSubProcessVariableCondition).
func conditionScope(x *execution, a *bpmn.Activity) *execution {
	if a.AttachedTo == nil || a.AttachedTo.Kind != bpmn.SubProcess && a.AttachedTo.MultiInstance == nil {
		return x
	}
	for _, ch := range x.activeChildren() {
		if ch.IsScope {
			return ch
		}
	}
	return x
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
// Camunda's condition evaluation does, and returns their ids. A condition
// on a variable the request does not give does not hold, nor does one
// whose camunda:variableName is not among them. Suspended definitions are
// skipped; with none deployed it fails with ErrNoConditionalStart.
func (e *Core) EvaluateStartConditions(ctx context.Context, t persistence.Tx, req ConditionEvaluation) ([]string, error) {
	var started []string
	err := e.command(ctx, t, "evaluate_start_conditions", func(c *command) error {
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
			// As Camunda's condition handler: a start event listening to
			// one variable needs it among the request's.
			if _, given := req.Variables[start.ConditionVariable]; start.ConditionVariable != "" && !given {
				continue
			}
			var ok bool
			if start.ConditionScript != nil {
				ok, err = c.scriptHolds(nil, req.Variables, def, start.ConditionScript, start, true)
			} else {
				ok, err = tryHolds(resolver{e: c.e, vars: req.Variables}, start.Condition)
			}
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
