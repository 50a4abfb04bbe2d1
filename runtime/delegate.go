package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Delegate is Go code a process calls: the implementation of a service task
// (camunda:class, camunda:delegateExpression) or an execution listener.
// Returning an error rolls the command back to the last wait state; a
// *BpmnError is thrown as a BPMN error instead, to be caught by an error
// boundary event.
type Delegate interface {
	Execute(ctx context.Context, ex *Execution) error
}

// DelegateFunc adapts a function to Delegate.
type DelegateFunc func(ctx context.Context, ex *Execution) error

// Execute calls f.
func (f DelegateFunc) Execute(ctx context.Context, ex *Execution) error { return f(ctx, ex) }

// BpmnError is a business error thrown by a delegate; the nearest error
// boundary event catching Code handles it.
type BpmnError struct {
	Code    string
	Message string
}

func (e *BpmnError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("BPMN error %q: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("BPMN error %q", e.Code)
}

// Execution is the handle delegates, listeners and expressions get on the
// execution being run. Its JUEL-style methods (GetVariable, SetVariable,
// GetProcessInstanceId ...) are what ${execution.getVariable('x')} calls.
type Execution struct {
	x     *execution
	event string
	// process: a process-level listener runs, so there is no current
	// activity even though the instance's execution runs a path.
	process bool
	fields  map[string]any    // camunda:field values for the delegate
	task    *persistence.Task // the user task of a task listener
}

// TaskID returns the user task's id in a task listener ("" elsewhere).
func (h *Execution) TaskID() string {
	if h.task == nil {
		return ""
	}
	return h.task.ID
}

// TaskAssignee returns the user task's assignee in a task listener.
func (h *Execution) TaskAssignee() string {
	if h.task == nil {
		return ""
	}
	return h.task.Assignee
}

// SetTaskAssignee assigns the user task in a task listener (a create
// listener's choice is stored with the task). Elsewhere it does nothing.
func (h *Execution) SetTaskAssignee(userID string) {
	if h.task != nil {
		h.task.Assignee = userID
	}
}

// Field returns the value of a camunda:field injected into the delegate
// being called: the string as written, or what its expression gave on this
// execution at this call; ok is false when the element declares no such
// field.
func (h *Execution) Field(name string) (value any, ok bool) {
	value, ok = h.fields[name]
	return value, ok
}

func (c *command) handle(x *execution, event string) *Execution {
	return &Execution{x: x, event: event}
}

// ID returns the execution id.
func (h *Execution) ID() string { return h.x.ID }

// ProcessInstanceID returns the process instance id.
func (h *Execution) ProcessInstanceID() string { return h.x.ProcessInstanceID }

// ProcessDefinitionID returns the process definition id.
func (h *Execution) ProcessDefinitionID() string { return h.x.ProcessDefinitionID }

// ActivityID returns the current activity id ("" in process listeners).
func (h *Execution) ActivityID() string {
	if h.process {
		return ""
	}
	return h.x.ActivityID
}

// BusinessKey returns the process instance's business key.
func (h *Execution) BusinessKey() string { return h.x.inst.root.BusinessKey }

// EventName returns the listener event (start, end, take) or "".
func (h *Execution) EventName() string { return h.event }

// Variable returns the value of name visible from this execution.
func (h *Execution) Variable(name string) (any, bool, error) { return h.x.variable(name) }

// Variables returns every variable visible from this execution.
func (h *Execution) Variables() (map[string]any, error) { return h.x.variables() }

// IsTransient reports whether name, as visible from this execution, is a
// transient variable (set with Transient in this command).
func (h *Execution) IsTransient(name string) (bool, error) { return h.x.isTransient(name) }

// SetVariable sets name where it is defined, else on the process instance.
// A value wrapped by Transient sets a transient variable.
func (h *Execution) SetVariable(name string, v any) error { return h.x.setVariable(name, v) }

// SetVariableLocal sets name in this execution's own scope.
func (h *Execution) SetVariableLocal(name string, v any) error { return h.x.setLocal(name, v) }

// RemoveVariable removes name from the nearest scope defining it.
func (h *Execution) RemoveVariable(name string) error { return h.x.removeVariable(name) }

// VariableLocal returns the value of name in this execution's own scope.
func (h *Execution) VariableLocal(name string) (any, bool, error) {
	found, err := h.x.lookup(name)
	if err != nil || found.scope != h.x {
		return nil, false, err
	}
	v, err := decodeVariable(found.row)
	return v, err == nil, err
}

// RemoveVariableLocal removes name from this execution's own scope (a
// variable of an enclosing scope stays).
func (h *Execution) RemoveVariableLocal(name string) error {
	if found, err := h.x.lookup(name); err != nil || found.scope != h.x {
		return err
	}
	return h.x.removeVariable(name)
}

// GetVariable is the JUEL spelling: the value of name, or nil.
func (h *Execution) GetVariable(name string) (any, error) {
	v, _, err := h.x.variable(name)
	return v, err
}

// GetId is the JUEL spelling of ID.
func (h *Execution) GetId() string { return h.x.ID }

// GetProcessInstanceId is the JUEL spelling of ProcessInstanceID.
func (h *Execution) GetProcessInstanceId() string { return h.x.ProcessInstanceID }

// GetActivityId is the JUEL spelling of ActivityID.
func (h *Execution) GetActivityId() string { return h.x.ActivityID }

// GetBusinessKey is the JUEL spelling of BusinessKey.
func (h *Execution) GetBusinessKey() string { return h.BusinessKey() }

// GetProcessBusinessKey is Camunda's execution.processBusinessKey, as in
// camunda:in businessKey="#{execution.processBusinessKey}".
func (h *Execution) GetProcessBusinessKey() string { return h.BusinessKey() }

// GetEventName is the JUEL spelling of EventName.
func (h *Execution) GetEventName() string { return h.event }

// resolver resolves names in expressions against an execution's variables,
// then the engine's beans; "execution" is the execution handle.
type resolver struct {
	e    *Core
	h    *Execution     // nil: no execution (timer start events)
	vars map[string]any // without an execution: the variables a condition sees
	// readErr, when set, receives the first variable that could not be
	// read, which Resolve can only report as unknown.
	readErr *error
}

func (r resolver) Resolve(name string) (any, bool) {
	if r.h != nil {
		if name == "execution" {
			return r.h, true
		}
		v, ok, err := r.h.x.variable(name)
		if err == nil && ok {
			return v, true
		}
		if err != nil && r.readErr != nil && *r.readErr == nil {
			*r.readErr = err // it names the variable
		}
	}
	if v, ok := r.vars[name]; ok {
		return plainValue(v), true
	}
	return r.e.bean(name)
}

// eval evaluates an expression text in x's context (x may be nil).
func (c *command) eval(x *execution, src string) (any, error) {
	return evalWith(src, c.resolver(x))
}

// evalWith compiles (or takes from the cache) and evaluates src with r.
func evalWith(src string, r resolver) (any, error) {
	ex, err := expression.Compile(src)
	if err != nil {
		return nil, err
	}
	return ex.Eval(r)
}

func (c *command) resolver(x *execution) resolver {
	r := resolver{e: c.e}
	if x != nil {
		r.h = c.handle(x, "")
	}
	return r
}

// callDelegate runs the implementation named by class, delegateExpression or
// expression on x; what names the element in errors (formatted only then,
// so the operation loop pays nothing for it).
func (c *command) callDelegate(x *execution, event string, class, delegateExpr, expr, resultVar string, fields []bpmn.Field, what fmt.Stringer) error {
	h := c.handle(x, event)
	h.task = c.listenedTask
	if l, ok := what.(listenerOf); ok {
		_, h.process = l.owner.(*bpmn.Process)
	}
	if len(fields) > 0 {
		h.fields = make(map[string]any, len(fields))
		for _, f := range fields {
			v := any(f.Value)
			if f.Expression {
				var err error
				if v, err = c.eval(x, f.Value); err != nil {
					return failAt(what, "camunda:field '%s': %w", f.Name, err)
				}
			}
			h.fields[f.Name] = v
		}
	}
	switch {
	case class != "":
		d, ok := c.e.delegate(class)
		if !ok {
			return failAt(what, "delegate %q is not registered (camunda:class)", class)
		}
		return c.invoke(d, h, what)
	case delegateExpr != "":
		v, err := evalWith(delegateExpr, resolver{e: c.e, h: h})
		if err != nil {
			return failAt(what, "%w", err)
		}
		var d Delegate
		switch t := v.(type) {
		case Delegate:
			d = t
		case func(context.Context, *Execution) error:
			d = DelegateFunc(t)
		default:
			return failAt(what, "delegate expression %s resolved to %T, which does not implement Delegate", delegateExpr, v)
		}
		return c.invoke(d, h, what)
	case expr != "":
		v, err := evalWith(expr, resolver{e: c.e, h: h})
		if err != nil {
			return failAt(what, "%w", err)
		}
		if resultVar != "" {
			return x.setVariable(resultVar, v)
		}
	}
	return nil
}

func (c *command) invoke(d Delegate, h *Execution, what fmt.Stringer) error {
	if err := d.Execute(c.cc, h); err != nil {
		if _, ok := err.(*BpmnError); ok {
			return err
		}
		return &DelegateError{Element: what.String(), ActivityID: activityIDOf(what), Err: err}
	}
	return nil
}

// DelegateError is an error returned by a delegate or listener, with the
// element that called it.
type DelegateError struct {
	Element    string
	ActivityID string // the activity it ran for ("" for a sequence flow or the process)
	Err        error
}

func (e *DelegateError) Error() string { return e.Element + ": " + e.Err.Error() }

// Unwrap returns the delegate's error.
func (e *DelegateError) Unwrap() error { return e.Err }

// fireListeners calls the listeners of event on x. A BPMN error from a
// listener of an activity (but not from one that runs while the activity is
// cancelled: a delete listener, an end listener then) is thrown from the
// activity, as Camunda does:
// caught by an error boundary event, or ending the path; the operation
// that ran the listener then stops (errListenerThrew).
func (c *command) fireListeners(x *execution, ls []bpmn.Listener, event string, owner fmt.Stringer) error {
	if c.skipCustomListeners {
		return nil
	}
	for _, l := range ls {
		if l.Event != event {
			continue
		}
		var err error
		if l.Script != nil {
			err = c.scriptListener(x, l.Script, event, listenerOf{owner, event})
		} else {
			err = c.callDelegate(x, event, l.Class, l.DelegateExpression, l.Expression, "", l.Fields, listenerOf{owner, event})
		}
		var be *BpmnError
		if _, isActivity := owner.(*bpmn.Activity); isActivity && event != "delete" && c.cancelling == 0 && errors.As(err, &be) {
			x.endListened = event == "end"
			if err := c.throwError(x, be.Code, be.Message, listenerOf{owner, event}.String()); err != nil {
				return err
			}
			return errListenerThrew
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errListenerThrew stops the operation whose listener threw a BPMN error
// that was thrown on from the activity; the command goes on.
var errListenerThrew = errors.New("a listener threw a BPMN error")

// fireTaskListeners calls a's task listeners of event for task t, which
// they see (and may assign) through the Execution handle.
func (c *command) fireTaskListeners(x *execution, a *bpmn.Activity, t *persistence.Task, event string) error {
	if a.User == nil || len(a.User.TaskListeners) == 0 {
		return nil
	}
	c.listenedTask = t
	defer func() { c.listenedTask = nil }()
	return c.fireListeners(x, a.User.TaskListeners, event, a)
}

// listenerOf names an execution listener in errors: "serviceTask 'x' end listener".
type listenerOf struct {
	owner fmt.Stringer
	event string
}

func (l listenerOf) String() string { return l.owner.String() + " " + l.event + " listener" }
