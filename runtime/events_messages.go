package runtime

import (
	"context"
	"fmt"
	"maps"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Messages and signals: correlation, message start events, signal
// broadcasts.

// CorrelateRequest delivers a message.
type CorrelateRequest struct {
	MessageName       string
	BusinessKey       string         // only instances with this business key
	ProcessInstanceID string         // only this instance
	CorrelationKeys   map[string]any // only instances whose variables have these values
	// LocalCorrelationKeys: only executions whose own (local) variables
	// have these values (Camunda's localCorrelationKeys).
	LocalCorrelationKeys map[string]any
	Variables            map[string]any // set on the receiving execution (or the new instance)
	// LocalVariables are set local to the receiving execution (on a new
	// instance: its variables), as Camunda's processVariablesLocal.
	LocalVariables map[string]any
	// All delivers to every matching subscription; otherwise exactly one must match.
	All bool
}

// Correlate delivers a message to the executions waiting for it, or starts
// an instance at a message start event when none waits. It returns the ids
// of the process instances that received it.
func (e *Core) Correlate(ctx context.Context, t persistence.Tx, req CorrelateRequest) ([]string, error) {
	cs, err := e.CorrelateWithResult(ctx, t, req)
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ProcessInstanceID
	}
	return ids, err
}

// Correlation is one delivery of a message: to an execution waiting for
// it, or to a message start event, which started an instance.
type Correlation struct {
	ExecutionID         string // the receiving execution; the new instance's
	ProcessInstanceID   string
	ProcessDefinitionID string
	BusinessKey         string
	StartedInstance     bool // a message start event received it
}

// CorrelateWithResult is Correlate, telling where each delivery went.
func (e *Core) CorrelateWithResult(ctx context.Context, t persistence.Tx, req CorrelateRequest) ([]Correlation, error) {
	var ids []Correlation
	err := e.command(ctx, t, "correlate", func(c *command) error {
		if e.tracing() {
			annotate(c.cc, attrMessageName.String(req.MessageName))
		}
		ids = nil
		subs, err := tx.Select(c.cc, persistence.SubscriptionsTo(persistence.SubscriptionMessage, req.MessageName))
		if err != nil {
			return err
		}
		var matches, starts []*persistence.EventSubscription
		for _, s := range subs {
			if s.ExecutionID == "" {
				starts = append(starts, s)
				continue
			}
			ok, err := c.correlates(s, req)
			if err != nil {
				return err
			}
			if ok {
				matches = append(matches, s)
			}
		}
		if len(matches) > 1 && !req.All {
			return fmt.Errorf("message %q matches %d executions; narrow the correlation or deliver to all: %w", req.MessageName, len(matches), ErrAmbiguous)
		}
		for _, s := range matches {
			x, err := c.execution(s.ExecutionID)
			if err != nil {
				return err
			}
			// A non-interrupting boundary event keeps listening while its
			// activity runs, as in Camunda, and so does a non-interrupting
			// event subprocess start while its scope runs.
			if !keepsListening(x.inst.def.Process.Activity(s.ActivityID)) {
				c.cc.Delete(s)
			}
			if err := x.setVariables(req.LocalVariables, true); err != nil {
				return err
			}
			ids = append(ids, Correlation{ExecutionID: x.ID, ProcessInstanceID: x.ProcessInstanceID,
				ProcessDefinitionID: x.inst.def.ID, BusinessKey: x.inst.root.BusinessKey})
			if err := c.trigger(x, s.ActivityID, req.Variables); err != nil {
				return err
			}
		}
		if len(matches) == 0 && req.ProcessInstanceID == "" && len(req.CorrelationKeys) == 0 && len(req.LocalCorrelationKeys) == 0 {
			for _, s := range starts {
				def, err := c.definition(s.ProcessDefinitionID)
				if err != nil {
					return err
				}
				vars := req.Variables
				if len(req.LocalVariables) > 0 {
					vars = maps.Clone(vars)
					if vars == nil {
						vars = map[string]any{}
					}
					maps.Copy(vars, req.LocalVariables)
				}
				in, err := c.startInstance(def, req.BusinessKey, "", vars, def.Process.Activity(s.ActivityID))
				if err != nil {
					return err
				}
				ids = append(ids, Correlation{ExecutionID: in.root.ID, ProcessInstanceID: in.root.ID,
					ProcessDefinitionID: def.ID, BusinessKey: req.BusinessKey, StartedInstance: true})
				if !req.All {
					break
				}
			}
		}
		if len(ids) == 0 {
			return fmt.Errorf("message %q: no process instance or message start event is waiting for it: %w", req.MessageName, ErrNoMatch)
		}
		return nil
	})
	return ids, err
}

// correlates checks a subscription against the request's instance,
// business key and correlation keys.
func (c *command) correlates(s *persistence.EventSubscription, req CorrelateRequest) (bool, error) {
	if req.ProcessInstanceID != "" && s.ProcessInstanceID != req.ProcessInstanceID {
		return false, nil
	}
	x, err := c.execution(s.ExecutionID)
	if err != nil {
		return false, err
	}
	if x.inst.root.Suspension == persistence.Suspended {
		return false, nil // as Camunda, messages do not correlate to suspended instances
	}
	if req.BusinessKey != "" && x.inst.root.BusinessKey != req.BusinessKey {
		return false, nil
	}
	for k, want := range req.CorrelationKeys {
		got, ok, err := x.variable(k)
		if err != nil || !ok {
			return false, err
		}
		if fmt.Sprint(got) != fmt.Sprint(plainValue(want)) {
			return false, nil
		}
	}
	if len(req.LocalCorrelationKeys) == 0 {
		return true, nil
	}
	local, err := x.localVariables()
	if err != nil {
		return false, err
	}
	for k, want := range req.LocalCorrelationKeys {
		got, ok := local[k]
		if !ok || fmt.Sprint(got) != fmt.Sprint(plainValue(want)) {
			return false, nil
		}
	}
	return true, nil
}

// Signal broadcasts a signal to every execution waiting for it.
func (e *Core) Signal(ctx context.Context, t persistence.Tx, name string, vars map[string]any) error {
	return e.command(ctx, t, "signal", func(c *command) error { return c.throwSignal(name, vars) })
}

// throwSignal triggers every subscription to the signal name. Rows this
// command created are flushed first so that they are seen.
func (c *command) throwSignal(name string, vars map[string]any) error {
	if err := c.cc.Flush(); err != nil {
		return err
	}
	subs, err := tx.Select(c.cc, persistence.SubscriptionsTo(persistence.SubscriptionSignal, name))
	if err != nil {
		return err
	}
	for _, sub := range subs {
		if sub.ExecutionID == "" {
			c.push(func() error { return c.startBySignal(sub, vars) })
			continue
		}
		c.push(func() error {
			x, err := c.execution(sub.ExecutionID)
			if err != nil {
				return err
			}
			if x.inst.root.Suspension == persistence.Suspended {
				return nil // as Camunda, a suspended instance does not receive signals
			}
			// Non-interrupting events keep listening, as for messages.
			if !keepsListening(x.inst.def.Process.Activity(sub.ActivityID)) {
				c.cc.Delete(sub)
			}
			return c.trigger(x, sub.ActivityID, vars)
		})
	}
	return nil
}

// startBySignal starts an instance at a signal start event, unless its
// definition is suspended (as Camunda, which skips those).
func (c *command) startBySignal(sub *persistence.EventSubscription, vars map[string]any) error {
	def, err := c.definition(sub.ProcessDefinitionID)
	if err != nil {
		return err
	}
	if def.Suspension == persistence.Suspended {
		return nil
	}
	_, err = c.startInstance(def, "", "", vars, def.Process.Activity(sub.ActivityID))
	return err
}

// throwEvent runs an intermediate throw event: a signal is broadcast, a
// link jumps to its catching event, a none event passes through.
func (c *command) throwEvent(x *execution, a *bpmn.Activity) error {
	if a.Event == bpmn.MessageEvent && a.HasImplementation() {
		return c.serviceTask(x, a)
	}
	if a.Event == bpmn.EscalationEvent {
		return c.throwEscalation(x, a)
	}
	if a.Event == bpmn.CompensationEvent {
		return c.throwCompensation(x, a)
	}
	if a.Event == bpmn.LinkEvent {
		next, err := c.completeActivity(x, a)
		if err != nil {
			return err
		}
		c.push(func() error { return c.enter(next, a.LinkTarget, false) })
		return nil
	}
	if a.Event == bpmn.SignalEvent {
		if err := c.throwSignal(a.SignalName, nil); err != nil {
			return err
		}
	}
	return c.leave(x, a)
}
