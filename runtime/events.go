package runtime

import (
	"fmt"
	"slices"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// armEvent makes x wait for the catch event a (an intermediate catch event,
// or an event after an event-based gateway).
func (c *command) armEvent(x *execution, a *bpmn.Activity) error {
	handler := handlerTimerCatch
	if x.ActivityID != a.ID {
		handler = handlerTimerEventGateway
	}
	switch {
	case a.Event == bpmn.TimerEvent:
		_, err := c.createTimerJob(x, a, handler)
		return err
	case a.Event == bpmn.MessageEvent || a.Kind == bpmn.ReceiveTask:
		c.subscribe(x, a, persistence.SubscriptionMessage, a.MessageName)
	case a.Event == bpmn.SignalEvent:
		c.subscribe(x, a, persistence.SubscriptionSignal, a.SignalName)
	case a.Event == bpmn.ConditionalEvent:
		c.subscribeCondition(x, a)
	default:
		return failAt(a, "cannot wait for this event")
	}
	return nil
}

func (c *command) subscribe(x *execution, a *bpmn.Activity, typ, name string) *persistence.EventSubscription {
	sub := &persistence.EventSubscription{
		ID:                  newID(),
		Rev:                 1,
		EventType:           typ,
		EventName:           name,
		ExecutionID:         x.ID,
		ProcessInstanceID:   x.ProcessInstanceID,
		ActivityID:          a.ID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		Created:             c.cc.Now().UTC(),
	}
	c.cc.Insert(sub)
	return sub
}

// deleteWaits deletes x's event subscriptions and its jobs (timers only,
// unless all). The triggers of event subprocesses armed on x stay: they go
// with x's scope (disarmEventSubprocesses).
func (c *command) deleteWaits(x *execution, timersOnly bool) error {
	return c.deleteOwned(x, func(e persistence.Entity) bool {
		if isTrigger(e) {
			return false
		}
		j, isJob := e.(*persistence.Job)
		return !isJob || !timersOnly || j.Type == persistence.JobTimer
	})
}

// selectWithNew returns the rows q selects and the rows of its table that
// this command inserted and keep accepts: q does not see those before
// they are flushed.
func selectWithNew[T persistence.Entity](c *command, q persistence.Query[T], keep func(T) bool) ([]T, error) {
	rows, err := tx.Select(c.cc, q)
	if err != nil {
		return nil, err
	}
	var zero T
	for _, e := range c.cc.Cached(persistence.TableOf(zero), func(e persistence.Entity) bool { return keep(e.(T)) }) {
		if !slices.ContainsFunc(rows, func(r T) bool { return persistence.EntityID(r) == persistence.EntityID(e) }) {
			rows = append(rows, e.(T))
		}
	}
	return rows, nil
}

// ownedBy accepts the rows of execution id (jobs, tasks, external tasks,
// subscriptions).
func ownedBy[T persistence.Entity](id string) func(T) bool {
	return func(r T) bool {
		p := executionOf(r)
		return p != nil && *p == id
	}
}

// cancelWaits removes everything x waits on: tasks, external tasks,
// subscriptions, all its jobs, and a called process instance.
func (c *command) cancelWaits(x *execution, reason string) error {
	a := x.activity()
	if a == nil {
		return nil
	}
	if err := c.deleteWaits(x, false); err != nil {
		return err
	}
	switch a.Kind {
	case bpmn.UserTask:
		tasks, err := owned(c, x, persistence.TasksOfExecution(x.ID))
		if err != nil {
			return err
		}
		for _, t := range tasks {
			if err := c.fireTaskListeners(x, a, t, "delete"); err != nil {
				return err
			}
			c.cc.Delete(t)
			c.cc.Write(persistence.DeleteVariablesOfTask(t.ID))
			c.historyTaskEnd(t, persistence.TaskDeleted)
		}
	case bpmn.ServiceTask, bpmn.SendTask, bpmn.BusinessRuleTask:
		if a.External {
			ets, err := owned(c, x, persistence.ExternalTasksOfExecution(x.ID))
			if err != nil {
				return err
			}
			for _, t := range ets {
				c.cc.Delete(t)
				c.logExternalTask(t, persistence.ExternalTaskLogDeleted)
				if err := c.e.endIncidents(c.cc, persistence.IncidentsOfExternalTask(t.ID), persistence.IncidentDeleted); err != nil {
					return err
				}
			}
		}
	case bpmn.CallActivity:
		subs, err := tx.Select(c.cc, persistence.InstancesCalledBy(x.ID))
		if err != nil {
			return err
		}
		for _, s := range subs {
			if c.skipSubprocesses { // it runs on, as an instance of its own
				s.SuperExecutionID = ""
				c.cc.Update(s)
				continue
			}
			in, err := c.loadInstance(s.ProcessInstanceID)
			if err != nil {
				return err
			}
			if err := c.deleteInstance(in, reason, persistence.StateDeleted); err != nil {
				return err
			}
		}
	}
	return nil
}

// trigger continues x, which waits at activity id (a catch event, receive
// task, event after an event-based gateway, or boundary event of x's activity).
func (c *command) trigger(x *execution, activityID string, vars map[string]any) error {
	a := x.inst.def.Process.Activity(activityID)
	if a == nil {
		return fmt.Errorf("activity %q not found in process %q", activityID, x.inst.def.Key)
	}
	if len(vars) > 0 {
		if err := x.setVariables(vars, false); err != nil {
			return err
		}
	}
	if a.Kind == bpmn.BoundaryEvent {
		return c.triggerBoundary(x, a)
	}
	if a.IsEventSubprocessStart() {
		return c.startEventSubprocess(x, a)
	}
	cur := x.activity()
	if cur != nil && cur.Kind == bpmn.EventBasedGateway && a != cur {
		// The first event behind the gateway wins: the others are disarmed.
		if err := c.finishActivity(x, cur, false); err != nil {
			return err
		}
		if err := c.deleteWaits(x, true); err != nil {
			return err
		}
		x.ActivityID = a.ID
		run, err := c.openIOScope(x, a)
		if err != nil {
			return err
		}
		c.historyStart(run, a.ID, a)
		if err := c.fireListeners(run, a.Listeners, "start", a); err != nil {
			return err
		}
		return c.leave(run, a)
	}
	if x.ActivityID != a.ID {
		return fmt.Errorf("%s is not waiting at %s", x, a)
	}
	if err := c.deleteWaits(x, true); err != nil {
		return err
	}
	x.IsActive = true
	return c.leave(x, a)
}

// cancelActivity cancels what x runs at its activity, leaving x in place:
// its child scopes, end listeners, waits and activity instance.
func (c *command) cancelActivity(x *execution, reason string) error {
	for _, ch := range x.activeChildren() {
		if err := c.cancel(ch, reason); err != nil {
			return err
		}
	}
	if err := c.cancelListeners(x); err != nil {
		return err
	}
	if err := c.cancelWaits(x, reason); err != nil {
		return err
	}
	c.historyEnd(x, true)
	return nil
}
