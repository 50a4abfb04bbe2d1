package runtime

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
)

// Variables the multi-instance body keeps, as in Camunda.
const (
	varNrOfInstances          = "nrOfInstances"
	varNrOfCompletedInstances = "nrOfCompletedInstances"
	varNrOfActiveInstances    = "nrOfActiveInstances"
	varLoopCounter            = "loopCounter"
)

// enterBody starts the multi-instance body of a: x waits at the body, whose
// scope execution holds the loop variables and one inner instance per
// element (concurrent ones for parallel, one at a time for sequential).
func (c *command) enterBody(x *execution, a *bpmn.Activity, skipAsync bool) error {
	x.ActivityID = a.MultiInstanceBodyID()
	x.IsActive = true
	c.update(x)
	s := settingsFor(x, a)
	if s.before && !skipAsync {
		x.IsActive = false
		_, err := c.createAsyncJob(x, a, s, handlerAsyncBefore, "")
		return err
	}
	c.historyStart(x, x.ActivityID, a)
	if err := c.armBoundaries(x, a); err != nil {
		return err
	}
	items, n, err := c.loopItems(x, a)
	if err != nil {
		return err
	}
	x.IsActive = false
	body := c.newScope(x)
	body.ActivityID, body.IsActive = x.ActivityID, false
	mi := a.MultiInstance
	active := n
	if mi.Sequential && n > 0 {
		active = 1
	}
	if err := body.setLocal(varNrOfInstances, int64(n)); err != nil {
		return err
	}
	if err := body.setLocal(varNrOfCompletedInstances, int64(0)); err != nil {
		return err
	}
	if err := body.setLocal(varNrOfActiveInstances, int64(active)); err != nil {
		return err
	}
	if n == 0 {
		return c.endBody(body, a)
	}
	if mi.Sequential {
		return c.startInner(body, a, 0, items)
	}
	for i := 0; i < n; i++ {
		if err := c.startInner(body, a, i, items); err != nil {
			return err
		}
	}
	return nil
}

// loopItems returns the collection items (nil for a cardinality) and the
// number of instances.
func (c *command) loopItems(x *execution, a *bpmn.Activity) ([]any, int, error) {
	mi := a.MultiInstance
	if mi.Collection != "" {
		var v any
		var err error
		if expression.IsExpression(mi.Collection) {
			v, err = c.eval(x, mi.Collection)
		} else {
			var ok bool
			v, ok, err = x.variable(mi.Collection)
			if err == nil && !ok {
				err = fmt.Errorf("variable %q is not defined", mi.Collection)
			}
		}
		if err != nil {
			return nil, 0, failAt(a, "multi-instance collection: %w", err)
		}
		items, err := toSlice(v)
		if err != nil {
			return nil, 0, failAt(a, "multi-instance collection %s: %w", mi.Collection, err)
		}
		return items, len(items), nil
	}
	n, err := c.integer(x, mi.LoopCardinality)
	if err != nil {
		return nil, 0, failAt(a, "loopCardinality: %w", err)
	}
	if n < 0 {
		return nil, 0, failAt(a, "loopCardinality must be 0 or more, got %d", n)
	}
	return nil, int(n), nil
}

// integer evaluates a number that may be written plainly ("5", the common
// spelling of a loop cardinality) or as an expression giving an integer.
func (c *command) integer(x *execution, src string) (int64, error) {
	if !expression.IsExpression(src) {
		n, err := strconv.ParseInt(strings.TrimSpace(src), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer", src)
		}
		return n, nil
	}
	ex, err := expression.Compile(src)
	if err != nil {
		return 0, err
	}
	return ex.EvalInt64(c.resolver(x))
}

func toSlice(v any) ([]any, error) {
	if v == nil {
		return nil, fmt.Errorf("collection is null")
	}
	if s, ok := v.([]any); ok {
		return s, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("collection is a %T, not a list", v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// startInner creates inner instance i in the body's scope execution.
func (c *command) startInner(body *execution, a *bpmn.Activity, i int, items []any) error {
	ch := c.newChild(body)
	ch.ActivityID = a.ID
	ch.IsConcurrent = !a.MultiInstance.Sequential
	if err := ch.setLocal(varLoopCounter, int64(i)); err != nil {
		return err
	}
	if items != nil && a.MultiInstance.ElementVariable != "" {
		if err := ch.setLocal(a.MultiInstance.ElementVariable, items[i]); err != nil {
			return err
		}
	}
	c.push(func() error { return c.enterActivity(ch, a, false) })
	return nil
}

// innerDone records a finished inner instance on the body and completes the
// body when every instance is done or the completion condition holds.
func (c *command) innerDone(ch *execution, a *bpmn.Activity) error {
	if ch.removed {
		return nil // an event fired at a save point cancelled the body meanwhile
	}
	body := ch.parent
	counter, err := intVar(ch, varLoopCounter)
	if err != nil {
		return err
	}
	counts, err := intVars(body, varNrOfInstances, varNrOfCompletedInstances, varNrOfActiveInstances)
	if err != nil {
		return err
	}
	n, done, active := counts[0], counts[1], counts[2]
	done++
	active--
	if err := body.setLocal(varNrOfCompletedInstances, done); err != nil {
		return err
	}
	if err := body.setLocal(varNrOfActiveInstances, active); err != nil {
		return err
	}
	// A parallel body is also done when no other inner instance is left
	// (Camunda's rule: a modification may have cancelled some).
	finished := done >= n || (!a.MultiInstance.Sequential && len(body.activeChildren()) == 1)
	if !finished && a.MultiInstance.CompletionCondition != "" {
		var err error
		if finished, err = holds(c.resolver(ch), a.MultiInstance.CompletionCondition); err != nil {
			return failAt(a, "completionCondition: %w", err)
		}
	}
	if err := c.removeExecution(ch); err != nil {
		return err
	}
	c.touch(body)
	if finished {
		for _, other := range body.activeChildren() {
			if err := c.cancel(other, "multi-instance completion condition"); err != nil {
				return err
			}
		}
		return c.endBody(body, a)
	}
	if a.MultiInstance.Sequential {
		items, _, err := c.loopItems(body, a)
		if err != nil {
			return err
		}
		if err := body.setLocal(varNrOfActiveInstances, int64(1)); err != nil {
			return err
		}
		return c.startInner(body, a, int(counter)+1, items)
	}
	return nil
}

// endBody removes the body's scope execution; the path waiting at the body
// leaves it.
func (c *command) endBody(body *execution, a *bpmn.Activity) error {
	return c.returnToOwner(body, body.parent, a)
}

// intVars reads several of x's multi-instance variables (see intVar).
func intVars(x *execution, names ...string) ([]int64, error) {
	out := make([]int64, len(names))
	for i, name := range names {
		var err error
		if out[i], err = intVar(x, name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func intVar(x *execution, name string) (int64, error) {
	v, ok, err := x.variable(name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%s: multi-instance variable %q missing", x, name)
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%s: multi-instance variable %q is %T, not an integer", x, name, v)
	}
	return n, nil
}
