package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The jobs of asynchronous continuations: before an activity (or a
// multi-instance body), at a process start event, and after an activity.
const (
	handlerAsyncBefore  = "async-before"
	handlerAsyncAfter   = "async-after"
	handlerProcessStart = "process-start" // asyncBefore on a process start event
)

func init() {
	before := jobHandler{kind: kindAsyncBefore, run: func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
		if isBodyID(j.ActivityID) {
			return c.enterBody(x, a, true)
		}
		return c.enterActivity(x, a, true)
	}}
	registerJobHandler(handlerAsyncBefore, before)
	registerJobHandler(handlerProcessStart, before)
	registerJobHandler(handlerAsyncAfter, jobHandler{kind: kindAsyncAfter, run: func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
		x.IsActive = true
		c.update(x)
		if a.MultiInstance != nil && !isBodyID(j.ActivityID) {
			return c.innerDone(x, a)
		}
		if j.HandlerConfig == "" {
			return c.endToken(x, nil)
		}
		f := x.inst.def.Process.Flow(j.HandlerConfig)
		if f == nil {
			return fmt.Errorf("job %s: sequence flow %q not found", j.ID, j.HandlerConfig)
		}
		return c.take(x, f)
	}})
}

// How a path moves: along a sequence flow into an activity (take, enter),
// through its start (async-before break, listeners, history, boundary
// events) and behaviour (dispatched by element family in behave), and out
// along the flows its conditions select (leave).

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
	x = x.live()
	if x.removed {
		return nil // an event fired at a save point cancelled the path meanwhile
	}
	if err := c.fireListeners(x, f.Listeners, "take", f); err != nil {
		return err
	}
	if observe := c.e.Config.SequenceFlowTaken; observe != nil {
		taken := config.FlowTaken{ProcessDefinitionID: x.ProcessDefinitionID, ProcessInstanceID: x.ProcessInstanceID, FlowID: f.ID}
		c.cc.AfterCommit(func() { observe(taken) })
	}
	x, err := c.settle(x) // Camunda's save point after take listeners
	if err != nil || x == nil {
		return err
	}
	c.push(func() error { return c.enter(x, f.Target, false) })
	return nil
}

// enter moves x into a: into the multi-instance body when a has loop
// characteristics, else into the activity itself.
func (c *command) enter(x *execution, a *bpmn.Activity, skipAsync bool) error {
	x = x.live()
	if x.removed {
		return nil // an event fired at a save point cancelled the path meanwhile
	}
	c.entering(a.ID)
	if a.MultiInstance != nil {
		return c.enterBody(x, a, skipAsync)
	}
	return c.enterActivity(x, a, skipAsync)
}

// enterActivity runs the activity's start: the async-before break, the
// scope of its input/output mappings, start listeners, history, boundary
// events, then its behaviour.
func (c *command) enterActivity(x *execution, a *bpmn.Activity, skipAsync bool) error {
	if x.removed {
		return nil // an event fired at a save point cancelled the path meanwhile
	}
	x.ActivityID = a.ID
	x.IsActive = true
	c.update(x)
	s := settingsFor(x, a)
	if s.before && !skipAsync {
		x.IsActive = false
		handler := handlerAsyncBefore
		if a.Kind == bpmn.StartEvent && a.Parent == nil {
			handler = handlerProcessStart
		}
		_, err := c.createAsyncJob(x, a, s, handler, "")
		return err
	}
	run, err := c.openIOScope(x, a)
	if err != nil {
		return err
	}
	if err := c.startActivity(run, a); err != nil {
		return err
	}
	if run, err = c.settle(run); err != nil || run == nil {
		return err
	}
	return c.behave(run, a)
}

// startActivity fires start listeners, records history and arms boundary events.
func (c *command) startActivity(x *execution, a *bpmn.Activity) error {
	if a.Kind == bpmn.StartEvent && a.Parent == nil && x.scope() == x.inst.root && !x.inst.started {
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

// behave runs what the activity does once entered. Each element family
// keeps its behaviour in a file of its own: tasks.go, gateways.go,
// events*.go, scopes.go, callactivity.go, multiinstance.go.
func (c *command) behave(x *execution, a *bpmn.Activity) error {
	switch a.Kind {
	case bpmn.StartEvent, bpmn.Task, bpmn.ManualTask, bpmn.BoundaryEvent:
		return c.leave(x, a)
	case bpmn.ServiceTask, bpmn.SendTask:
		return c.serviceTask(x, a)
	case bpmn.ScriptTask:
		return c.scriptTask(x, a)
	case bpmn.BusinessRuleTask:
		if a.Decision != nil {
			return c.businessRuleTask(x, a)
		}
		return c.serviceTask(x, a)
	case bpmn.UserTask:
		return c.createTask(x, a)
	case bpmn.ReceiveTask:
		return c.receiveTask(x, a)
	case bpmn.IntermediateThrowEvent:
		return c.throwEvent(x, a)
	case bpmn.IntermediateCatchEvent:
		if a.Event == bpmn.LinkEvent {
			return c.leave(x, a) // reached by its throwing link
		}
		x.IsActive = false
		if err := c.armEvent(x, a); err != nil || a.Event != bpmn.ConditionalEvent {
			return err
		}
		_, err := c.settle(x) // Camunda evaluates the condition as the event is reached
		return err
	case bpmn.EndEvent:
		return c.endEvent(x, a)
	case bpmn.ExclusiveGateway:
		return c.exclusiveGateway(x, a)
	case bpmn.ParallelGateway:
		return c.parallelJoin(x, a)
	case bpmn.InclusiveGateway:
		return c.inclusiveArrive(x, a)
	case bpmn.EventBasedGateway:
		return c.eventGateway(x, a)
	case bpmn.SubProcess:
		return c.enterSubProcess(x, a)
	case bpmn.CallActivity:
		x.IsActive = false
		return c.callProcess(x, a)
	}
	return failAt(a, "element type is not executable")
}

// leave completes an activity that finished its work and continues along the
// outgoing flows its conditions select (or back to the multi-instance body),
// unless a conditional event its work triggered took the path (settle).
func (c *command) leave(x *execution, a *bpmn.Activity) error {
	x, err := c.settle(x)
	if err != nil || x == nil {
		return err
	}
	if a.MultiInstance != nil && !x.isMIBody() && x.parent != nil && x.parent.isBodyScope() {
		if err := c.finishActivity(x, a, false); err != nil {
			return err
		}
		if a.CompensationHandler != nil {
			if err := c.keepForCompensation(x, a); err != nil {
				return err
			}
		}
		s := settingsFor(x, a)
		if s.after {
			_, err := c.createAsyncJob(x, a, s, handlerAsyncAfter, "")
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
	out, err := c.holdingFlows(x, a, false)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 && a.DefaultFlow != nil {
		out = append(out, a.DefaultFlow)
	}
	if len(out) == 0 && len(a.Outgoing) > 0 {
		return nil, failAt(a, "no outgoing sequence flow could be selected for continuing the process (all conditions are false and there is no default flow)")
	}
	return out, nil
}

func (c *command) condition(x *execution, f *bpmn.SequenceFlow) (bool, error) {
	if f.Condition == "" {
		return true, nil
	}
	if f.ConditionScript != nil {
		return c.scriptHolds(c.handle(x, ""), nil, x.inst.def, f.ConditionScript, f, false)
	}
	ok, err := holds(c.resolver(x), f.Condition)
	if err != nil {
		return false, fmt.Errorf("sequenceFlow '%s': %w", f.ID, err)
	}
	return ok, nil
}

// holds evaluates condition src with r (flow conditions, completion
// conditions, conditional events). A variable that cannot be read fails it
// (not "unknown", which a conditional event would take for false).
func holds(r resolver, src string) (bool, error) {
	ex, err := expression.Compile(src)
	if err != nil {
		return false, err
	}
	var readErr error
	r.readErr = &readErr
	ok, err := ex.EvalBool(r)
	if readErr != nil {
		return false, readErr
	}
	return ok, err
}

// tryHolds is holds for conditional events: like Camunda's tryEvaluate, a
// condition that reads a variable not set yet (or a property a value does
// not have) does not hold; any other failure, a result that is not a
// boolean or is null among them, stays an error.
func tryHolds(r resolver, src string) (bool, error) {
	ok, err := holds(r, src)
	if errors.Is(err, expression.ErrUnknownName) || errors.Is(err, expression.ErrUnknownProperty) {
		return false, nil
	}
	return ok, err
}

// leaveVia finishes a and continues x along flows (from outside a's
// input/output scope): several flows fork x into concurrent paths. With
// asyncAfter each path stops at a job that will take its flow.
func (c *command) leaveVia(x *execution, a *bpmn.Activity, flows []*bpmn.SequenceFlow) error {
	x, err := c.completeActivity(x, a)
	if err != nil {
		return err
	}
	s := settingsFor(x, a)
	if len(flows) == 0 {
		if s.after {
			_, err := c.createAsyncJob(x, a, s, handlerAsyncAfter, "")
			return err
		}
		return c.endToken(x, nil)
	}
	paths := []*execution{x}
	if len(flows) > 1 {
		if paths, err = c.fork(x, len(flows)); err != nil {
			return err
		}
	}
	for i, f := range flows {
		t := paths[i]
		if i > 0 {
			t.ActivityID = a.ID
		}
		if s.after {
			t.IsActive = false
			if _, err := c.createAsyncJob(t, a, s, handlerAsyncAfter, f.ID); err != nil {
				return err
			}
			continue
		}
		f, t := f, t
		c.push(func() error { return c.take(t, f) })
	}
	return nil
}

// completeActivity finishes a, which x ran to its end, and closes its
// input/output scope: it returns the execution that continues.
func (c *command) completeActivity(x *execution, a *bpmn.Activity) (*execution, error) {
	if err := c.finishActivity(x, a, false); err != nil {
		return nil, err
	}
	next, err := c.closeIOScope(x, true)
	if err == nil && a.CompensationHandler != nil && !x.isMIBody() {
		// (A multi-instance body passes what its instances kept: endBody.)
		err = c.keepForCompensation(next, a)
	}
	return next, err
}

// finishActivity fires end listeners, closes history and removes what the
// activity left behind (boundary timers and subscriptions).
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
	x.IsActive = true
	c.update(x)
	return nil
}

// holdingFlows returns a's outgoing flows other than the default whose
// condition holds (a flow without one holds), in document order; with
// first, only the first of them.
func (c *command) holdingFlows(x *execution, a *bpmn.Activity, first bool) ([]*bpmn.SequenceFlow, error) {
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
			if first {
				break
			}
		}
	}
	return out, nil
}
