package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/script"
	"github.com/bpmnlite/bpmnlite/tx"
)

// JavaScript (package script) where Camunda runs scripts: script tasks,
// script conditions (sequence flows, conditional events), camunda:script
// parameter values and script listeners. A script sees the variables
// visible from its execution as global names, and `execution` (and `task`
// in a task listener): objects whose methods go through the same
// *Execution handle Go delegates get. Its error fails the command as a
// delegate's does.

// scriptTask runs a's script and leaves; a non-null result goes to its
// camunda:resultVariable, as Camunda's ScriptTaskActivityBehavior does.
func (c *command) scriptTask(x *execution, a *bpmn.Activity) error {
	v, err := c.runScript(c.handle(x, ""), nil, x.inst.def, a.Script)
	if err != nil {
		return &DelegateError{Element: a.String(), ActivityID: a.ID, Err: err}
	}
	if v != nil && a.ResultVariable != "" {
		if err := x.setVariable(a.ResultVariable, v); err != nil {
			return failAt(a, "camunda:resultVariable: %w", err)
		}
	}
	return c.leave(x, a)
}

// scriptListener runs a script execution or task listener.
func (c *command) scriptListener(x *execution, sc *bpmn.Script, event string, what listenerOf) error {
	h := c.handle(x, event)
	h.task = c.listenedTask
	_, h.process = what.owner.(*bpmn.Process)
	if _, err := c.runScript(h, nil, x.inst.def, sc); err != nil {
		return &DelegateError{Element: what.String(), ActivityID: activityIDOf(what), Err: err}
	}
	return nil
}

// scriptHolds evaluates a script condition; what names its element. As
// Camunda's ScriptCondition, its result must be a boolean; with try (a
// conditional event), a script that fails does not hold.
func (c *command) scriptHolds(h *Execution, vars map[string]any, def *Definition, sc *bpmn.Script, what fmt.Stringer, try bool) (bool, error) {
	v, err := c.runScript(h, vars, def, sc)
	var se *script.Error
	switch {
	case try && errors.As(err, &se) && !errors.Is(err, script.ErrTimeout):
		return false, nil
	case err != nil:
		return false, failAt(what, "condition: %w", err)
	}
	b, ok := v.(bool)
	if !ok {
		return false, failAt(what, "condition script returns %s, not a boolean", describe(v))
	}
	return b, nil
}

func describe(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// runScript runs sc of definition def on h's execution; without one (a
// conditional start event) the script sees vars only.
func (c *command) runScript(h *Execution, vars map[string]any, def *Definition, sc *bpmn.Script) (any, error) {
	prog, err := c.scriptProgram(h, def, sc)
	if err != nil {
		return nil, err
	}
	globals := make(map[string]any)
	if h != nil {
		if vars, err = h.Variables(); err != nil {
			return nil, err
		}
	}
	for k, v := range vars {
		globals[k] = plainValue(v)
	}
	if h != nil {
		globals["execution"] = executionObject(h)
		if h.task != nil {
			globals["task"] = taskObject(h)
		}
	}
	v, err := prog.Run(c.cc, globals, script.Options{Timeout: c.e.Config.Limits.ScriptTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s %w", sc.Format, err)
	}
	return v, nil
}

// scriptProgram returns sc's compiled program: its inline source's, or
// its resource's, read from def's deployment and compiled at its first run.
// A resource is "deployment://name", or a name (Camunda's classpath
// resources, which bpmnlite looks for among the deployment's).
func (c *command) scriptProgram(h *Execution, def *Definition, sc *bpmn.Script) (*script.Program, error) {
	if sc.Program != nil {
		return sc.Program, nil
	}
	name := sc.Resource
	if strings.Contains(name, "${") || strings.Contains(name, "#{") {
		r := resolver{e: c.e, h: h}
		v, err := evalWith(name, r)
		if err != nil {
			return nil, fmt.Errorf("camunda:resource %s: %w", name, err)
		}
		name = fmt.Sprint(v)
	}
	name = bpmn.ResourceName(name)
	if p, ok := def.scripts.Load(name); ok {
		return p.(*script.Program), nil
	}
	res, err := tx.Read(c.cc, persistence.ResourceNamed(def.DeploymentID, name))
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("camunda:resource %q: the deployment %s has no resource %q", sc.Resource, def.DeploymentID, name)
	}
	p, err := script.Compile(name, string(res[0].Bytes), c.e.Config.Limits.MaxScriptBytes)
	if err != nil {
		return nil, fmt.Errorf("%s resource %q %w", sc.Format, name, err)
	}
	p2, _ := def.scripts.LoadOrStore(name, p)
	return p2.(*script.Program), nil
}

// executionObject is `execution` in a script: Camunda's DelegateExecution
// methods on h.
func executionObject(h *Execution) script.Object {
	return script.Object{
		"getVariable": func(a []any) (any, error) {
			return h.GetVariable(argString(a, 0))
		},
		"getVariableLocal": func(a []any) (any, error) {
			v, _, err := h.VariableLocal(argString(a, 0))
			return v, err
		},
		"hasVariable": func(a []any) (any, error) {
			_, ok, err := h.Variable(argString(a, 0))
			return ok, err
		},
		"hasVariableLocal": func(a []any) (any, error) {
			_, ok, err := h.VariableLocal(argString(a, 0))
			return ok, err
		},
		"setVariable": func(a []any) (any, error) {
			return nil, h.SetVariable(argString(a, 0), arg(a, 1))
		},
		"setVariableLocal": func(a []any) (any, error) {
			return nil, h.SetVariableLocal(argString(a, 0), arg(a, 1))
		},
		"removeVariable": func(a []any) (any, error) {
			return nil, h.RemoveVariable(argString(a, 0))
		},
		"removeVariableLocal": func(a []any) (any, error) {
			return nil, h.RemoveVariableLocal(argString(a, 0))
		},
		"getVariables": func([]any) (any, error) {
			vs, err := h.Variables()
			return plainValues(vs), err
		},
		"getVariablesLocal": func([]any) (any, error) {
			vs, err := h.x.localVariables()
			return plainValues(vs), err
		},
		"getVariableNames": func([]any) (any, error) {
			vs, err := h.Variables()
			names := make([]any, 0, len(vs))
			for k := range vs {
				names = append(names, k)
			}
			return names, err
		},
		"getId":                  constant(h.ID()),
		"getProcessInstanceId":   constant(h.ProcessInstanceID()),
		"getProcessDefinitionId": constant(h.ProcessDefinitionID()),
		"getBusinessKey":         constant(h.BusinessKey()),
		"getProcessBusinessKey":  constant(h.BusinessKey()),
		"getActivityId":          constant(h.ActivityID()),
		"getCurrentActivityId":   constant(h.ActivityID()),
		"getActivityInstanceId":  constant(h.x.ActivityInstanceID),
		"getParentId":            constant(h.x.ParentID),
		"getEventName":           constant(h.EventName()),
		"getTenantId":            constant(h.x.TenantID),
	}
}

// taskObject is `task` in a script task listener: Camunda's DelegateTask
// methods that bpmnlite's task listeners offer.
func taskObject(h *Execution) script.Object {
	t := h.task
	o := script.Object{
		"getId":                  constant(t.ID),
		"getName":                constant(t.Name),
		"getDescription":         constant(t.Description),
		"getTaskDefinitionKey":   constant(t.TaskDefinitionKey),
		"getProcessInstanceId":   constant(t.ProcessInstanceID),
		"getProcessDefinitionId": constant(t.ProcessDefinitionID),
		"getExecutionId":         constant(t.ExecutionID),
		"getTenantId":            constant(t.TenantID),
		"getPriority":            constant(int64(t.Priority)),
		"getEventName":           constant(h.EventName()),
		"getAssignee":            func([]any) (any, error) { return t.Assignee, nil },
		"setAssignee": func(a []any) (any, error) {
			h.SetTaskAssignee(argString(a, 0))
			return nil, nil
		},
		"getExecution": func([]any) (any, error) { return executionObject(h), nil },
	}
	// Its variables are the execution's (a user task has no variables of
	// its own in bpmnlite).
	x := executionObject(h)
	for _, m := range []string{"getVariable", "hasVariable", "setVariable", "getVariables", "getVariableNames"} {
		o[m] = x[m]
	}
	return o
}

func constant(v any) script.Func { return func([]any) (any, error) { return v, nil } }

func arg(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

func argString(a []any, i int) string {
	if s, ok := arg(a, i).(string); ok {
		return s
	}
	return fmt.Sprint(arg(a, i))
}

func plainValues(vs map[string]any) map[string]any {
	for k, v := range vs {
		vs[k] = plainValue(v)
	}
	return vs
}
