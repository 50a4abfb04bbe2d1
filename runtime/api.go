package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Errors of runtime commands.
var (
	// ErrSuspended: the definition or instance is suspended.
	ErrSuspended = errors.New("suspended")
	// ErrNoMatch: a message or signal found nobody waiting for it.
	ErrNoMatch = errors.New("no matching subscription")
	// ErrAmbiguous: a correlation for exactly one receiver matched several.
	ErrAmbiguous = errors.New("ambiguous correlation")
)

// command runs fn as one command with runtime state, then drains the agenda.
func (e *Engine) command(ctx context.Context, t persistence.Tx, fn func(c *command) error) error {
	body := func(cc *tx.Context) error {
		c := e.newCommand(cc)
		if err := fn(c); err != nil {
			return err
		}
		return c.run()
	}
	if t != nil {
		return e.cmd.RunIn(ctx, t, body)
	}
	return e.cmd.Run(ctx, body)
}

// StartRequest starts a process instance.
type StartRequest struct {
	DefinitionID string // or Key: the latest version of the process with this key
	Key          string
	BusinessKey  string
	Variables    map[string]any
	// StartBefore starts the instance directly before this activity, skipping
	// the start event (process instance modification).
	StartBefore string
}

// Start starts a process instance and runs it to its first wait states, all
// in one transaction (t, when not nil, is the caller's). It returns the
// process instance id.
func (e *Engine) Start(ctx context.Context, t persistence.Tx, req StartRequest) (string, error) {
	var id string
	err := e.command(ctx, t, func(c *command) error {
		var def *Definition
		var err error
		switch {
		case req.DefinitionID != "":
			def, err = e.Definition(c.cc, req.DefinitionID)
		case req.Key != "":
			def, err = e.LatestDefinition(c.cc, req.Key)
		default:
			err = errors.New("start: a process definition id or key is required")
		}
		if err != nil {
			return err
		}
		start := initialActivity(def)
		if req.StartBefore != "" {
			start = def.Process.Activity(req.StartBefore)
			if start == nil {
				return fmt.Errorf("start before %q: no such activity in process %q: %w", req.StartBefore, def.Key, persistence.ErrNotFound)
			}
		}
		in, err := c.startInstance(def, req.BusinessKey, "", req.Variables, start)
		if err != nil {
			return err
		}
		id = in.root.ID
		return nil
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// CompleteTask completes a user task, sets vars (visible from the task's
// execution, created on the process instance when new) and continues.
func (e *Engine) CompleteTask(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any) error {
	return e.command(ctx, t, func(c *command) error {
		ent, err := c.cc.Get(persistence.TaskTable, taskID)
		if err != nil {
			return fmt.Errorf("task %q: %w", taskID, err)
		}
		task := ent.(*persistence.Task)
		if task.Suspension == persistence.Suspended {
			return fmt.Errorf("task %q: %w", taskID, ErrSuspended)
		}
		x, err := c.execution(task.ExecutionID)
		if err != nil {
			return err
		}
		if err := x.setVariables(vars, false); err != nil {
			return err
		}
		c.cc.Delete(task)
		a := x.activity()
		if a == nil {
			return fmt.Errorf("task %q: execution is at no activity", taskID)
		}
		x.IsActive = true
		return c.leave(x, a)
	})
}

// Trigger continues an execution waiting at a receive task or catch event
// (Camunda's runtimeService.signal(executionId)).
func (e *Engine) Trigger(ctx context.Context, t persistence.Tx, executionID string, vars map[string]any) error {
	return e.command(ctx, t, func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		if x.ActivityID == "" || x.IsActive {
			return fmt.Errorf("%s is not waiting", x)
		}
		// Only receive tasks and catch events wait for a trigger: a user
		// task waits for its completion, a call activity for its instance.
		if a := x.activity(); a == nil || (a.Kind != bpmn.ReceiveTask && a.Kind != bpmn.IntermediateCatchEvent) {
			return fmt.Errorf("%s cannot be triggered: only receive tasks and intermediate catch events wait for a trigger", x)
		}
		return c.trigger(x, x.ActivityID, vars)
	})
}

// CorrelateRequest delivers a message.
type CorrelateRequest struct {
	MessageName       string
	BusinessKey       string         // only instances with this business key
	ProcessInstanceID string         // only this instance
	CorrelationKeys   map[string]any // only instances whose variables have these values
	Variables         map[string]any // set on the receiving execution (or the new instance)
	// All delivers to every matching subscription; otherwise exactly one must match.
	All bool
}

// Correlate delivers a message to the executions waiting for it, or starts
// an instance at a message start event when none waits. It returns the ids
// of the process instances that received it.
func (e *Engine) Correlate(ctx context.Context, t persistence.Tx, req CorrelateRequest) ([]string, error) {
	var ids []string
	err := e.command(ctx, t, func(c *command) error {
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
			// activity runs, as in Camunda.
			if b := x.inst.def.Process.Activity(s.ActivityID); b == nil || b.Kind != bpmn.BoundaryEvent || b.CancelActivity {
				c.cc.Delete(s)
			}
			if err := c.trigger(x, s.ActivityID, req.Variables); err != nil {
				return err
			}
			ids = append(ids, x.ProcessInstanceID)
		}
		if len(matches) == 0 && req.ProcessInstanceID == "" && len(req.CorrelationKeys) == 0 {
			for _, s := range starts {
				def, err := e.Definition(c.cc, s.ProcessDefinitionID)
				if err != nil {
					return err
				}
				in, err := c.startInstance(def, req.BusinessKey, "", req.Variables, def.Process.Activity(s.ActivityID))
				if err != nil {
					return err
				}
				ids = append(ids, in.root.ID)
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
	if req.BusinessKey == "" && len(req.CorrelationKeys) == 0 {
		return true, nil
	}
	x, err := c.execution(s.ExecutionID)
	if err != nil {
		return false, err
	}
	if req.BusinessKey != "" && x.inst.root.BusinessKey != req.BusinessKey {
		return false, nil
	}
	for k, want := range req.CorrelationKeys {
		got, ok, err := x.variable(k)
		if err != nil || !ok {
			return false, err
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return false, nil
		}
	}
	return true, nil
}

// Signal broadcasts a signal to every execution waiting for it.
func (e *Engine) Signal(ctx context.Context, t persistence.Tx, name string, vars map[string]any) error {
	return e.command(ctx, t, func(c *command) error { return c.throwSignal(name, vars) })
}

// SetVariables sets variables visible from an execution (local: in its own
// scope). A process instance id is its root execution's id.
func (e *Engine) SetVariables(ctx context.Context, t persistence.Tx, executionID string, vars map[string]any, local bool) error {
	return e.command(ctx, t, func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		return x.setVariables(vars, local)
	})
}

// Variables returns the variables visible from an execution.
func (e *Engine) Variables(ctx context.Context, executionID string) (map[string]any, error) {
	var out map[string]any
	err := e.command(ctx, nil, func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		out, err = x.variables()
		return err
	})
	return out, err
}

// DeleteProcessInstance cancels a running process instance.
func (e *Engine) DeleteProcessInstance(ctx context.Context, t persistence.Tx, id, reason string) error {
	return e.command(ctx, t, func(c *command) error {
		in, err := c.loadInstance(id)
		if err != nil {
			return err
		}
		if in.root.SuperExecutionID != "" {
			return fmt.Errorf("process instance %s was started by a call activity; delete the calling instance", id)
		}
		return c.deleteInstance(in, reason, persistence.StateExternallyTerminated)
	})
}

// initialActivity is where a plain start begins: the none start event, or
// the only start event of a process that has no none start event (a timer
// or message start event started by hand, as Camunda allows).
func initialActivity(def *Definition) *bpmn.Activity {
	if s := def.Process.NoneStartEvent(); s != nil {
		return s
	}
	if starts := def.Process.StartEvents(); len(starts) == 1 {
		return starts[0]
	}
	return nil
}
