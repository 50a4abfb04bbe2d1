package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Boundary events, whole: armed when their activity starts (armBoundaries:
// a timer job, a message or signal subscription, a condition), fired by
// their job, message, signal, condition or a caught error
// (triggerBoundary), and disarmed when the path leaves the activity
// (clearWaits). The due dates of their timers come from events_timers.go.

// handlerTimerBoundary is the job handler of boundary timers.
const handlerTimerBoundary = "timer-transition"

func init() {
	registerJobHandler(handlerTimerBoundary, jobHandler{
		run: func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
			if err := c.rescheduleCycle(j, x, a); err != nil {
				return err
			}
			return c.triggerBoundary(x, a)
		},
		firstFailure: keepLiveCycle,
	})
}

// keepLiveCycle is keepCycle for a timer on a path: a cycle does not die
// with one failing run, unless its instance is gone.
func keepLiveCycle(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
	if x == nil {
		return nil // its instance is gone: no next run
	}
	return keepCycle(c, j, x, a)
}

// armBoundaries creates the timers and subscriptions of a's boundary events
// on x, the execution running a.
func (c *command) armBoundaries(x *execution, a *bpmn.Activity) error {
	for _, b := range a.Boundaries {
		if err := c.armBoundary(x, b); err != nil {
			return err
		}
	}
	return nil
}

// armBoundary creates the timer or subscription of boundary event b on x.
func (c *command) armBoundary(x *execution, b *bpmn.Activity) error {
	switch b.Event {
	case bpmn.TimerEvent:
		_, err := c.createTimerJob(x, b, handlerTimerBoundary)
		return err
	case bpmn.MessageEvent:
		c.subscribe(x, b, persistence.SubscriptionMessage, b.MessageName)
	case bpmn.SignalEvent:
		c.subscribe(x, b, persistence.SubscriptionSignal, b.SignalName)
	case bpmn.ConditionalEvent:
		c.subscribeCondition(x, b)
	}
	return nil
}

// waitsFor reports whether an execution at a may own subscriptions or timer
// jobs, so that plain activities cost no query when they end.
func waitsFor(a *bpmn.Activity) bool {
	if a == nil {
		return false
	}
	if len(a.Boundaries) > 0 || hasTimeoutListeners(a) {
		return true
	}
	switch a.Kind {
	case bpmn.IntermediateCatchEvent, bpmn.ReceiveTask, bpmn.EventBasedGateway:
		return true
	}
	return false
}

// clearWaits removes the subscriptions and timer jobs owned by x at a.
func (c *command) clearWaits(x *execution, a *bpmn.Activity) error {
	if !waitsFor(a) {
		return nil
	}
	return c.deleteWaits(x, true)
}

// triggerBoundary fires boundary event b of the activity x runs: an
// interrupting event cancels the activity and continues x from b; a
// non-interrupting one continues a new path from b and leaves x alone. An
// activity running in an input/output scope is cancelled with its scope
// (without mapping anything out); the path outside continues from b.
func (c *command) triggerBoundary(x *execution, b *bpmn.Activity) error {
	reason := "boundary event '" + b.ID + "'"
	running := x
	x = x.outside()
	if !b.CancelActivity {
		paths, err := c.fork(x, 2)
		if err != nil {
			return err
		}
		t := paths[1]
		t.ActivityID = b.ID
		c.historyStart(t, b.ID, b)
		if err := c.fireListeners(t, b.Listeners, "start", b); err != nil {
			return err
		}
		return c.leave(t, b)
	}
	if running != x {
		if err := c.cancel(running, reason); err != nil {
			return err
		}
	} else if err := c.cancelActivity(x, reason); err != nil {
		return err
	}
	x.ActivityID = b.ID
	x.IsActive = true
	c.update(x)
	c.historyStart(x, b.ID, b)
	if err := c.fireListeners(x, b.Listeners, "start", b); err != nil {
		return err
	}
	return c.leave(x, b)
}

// boundaryAt returns the boundary event of type typ that catches code on
// the activity s runs: one naming the code wins over a catch-all one,
// wherever it is declared (as in Camunda). An inner instance of a
// multi-instance activity leaves the activity's boundary events to the
// body; the body's belong to the path waiting at the body, not to the
// body's scope execution.
func boundaryAt(s *execution, typ bpmn.EventType, code string) *bpmn.Activity {
	a := s.activity()
	if a == nil || (a.MultiInstance != nil && !s.isMIBody()) || s.isBodyScope() {
		return nil
	}
	return catcher(a.Boundaries, typ, code, nil)
}
