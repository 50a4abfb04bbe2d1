package runtime

import (
	"context"
	"fmt"
	"sort"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// VariableScope names whose variables a read or a change is about: an
// execution's (a process instance is its root execution) or a user task's.
// Local: the scope's own variables only; else every variable visible from
// it, as Camunda's getVariables and setVariables see them.
type VariableScope struct {
	ExecutionID string
	TaskID      string
	Local       bool
}

// ScopeVariables returns the stored variables of scope s, by name: a
// task's local ones hide its execution's, inner scopes hide outer ones.
func (e *Core) ScopeVariables(ctx context.Context, s VariableScope) (map[string]*persistence.Variable, error) {
	out := map[string]*persistence.Variable{}
	err := e.command(ctx, nil, "scope_variables", func(c *command) error {
		sc, err := c.scopeOf(s)
		if err != nil {
			return err
		}
		for name, r := range sc.taskVars {
			out[name] = r
		}
		if sc.task != nil && s.Local {
			return nil
		}
		x := sc.x
		if err := x.inst.loadVariables(); err != nil {
			return err
		}
		for at := x; at != nil; at = at.parent {
			for name, r := range x.inst.vars[at.ID] {
				if out[name] == nil {
					out[name] = r
				}
			}
			if s.Local {
				break
			}
		}
		return nil
	})
	return out, err
}

// ModifyVariables sets the variables of set in scope s, then removes those
// named in remove, in one command, as Camunda's PATCH of variables does.
// Not local, a variable is set where it is visible from the scope (on the
// process instance when new) and removed from the nearest scope that has
// it; removing a variable that does not exist does nothing.
func (e *Core) ModifyVariables(ctx context.Context, s VariableScope, set map[string]any, remove []string) error {
	return e.command(ctx, nil, "modify_variables", func(c *command) error {
		sc, err := c.scopeOf(s)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(set))
		for name := range set {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := sc.set(name, set[name], s.Local); err != nil {
				return err
			}
		}
		for _, name := range remove {
			if err := sc.remove(name, s.Local); err != nil {
				return err
			}
		}
		return nil
	})
}

// variableScope is a scope loaded in a command: its execution, and its
// task with the task's local variables when it is a task's.
type variableScope struct {
	c        *command
	x        *execution
	task     *persistence.Task
	taskVars map[string]*persistence.Variable
}

func (c *command) scopeOf(s VariableScope) (*variableScope, error) {
	if s.TaskID == "" {
		x, err := c.execution(s.ExecutionID)
		return &variableScope{c: c, x: x}, err
	}
	ent, err := c.cc.Get(persistence.TaskTable, s.TaskID)
	if err != nil {
		return nil, fmt.Errorf("task %q: %w", s.TaskID, err)
	}
	sc := &variableScope{c: c, task: ent.(*persistence.Task), taskVars: map[string]*persistence.Variable{}}
	if sc.x, err = c.execution(sc.task.ExecutionID); err != nil {
		return nil, err
	}
	rows, err := tx.Select(c.cc, persistence.VariablesOfTask(s.TaskID))
	for _, r := range rows {
		sc.taskVars[r.Name] = r
	}
	return sc, err
}

// set writes name: in the task's own scope when local or already there,
// else as the execution's setLocal or setVariable.
func (sc *variableScope) set(name string, v any, local bool) error {
	r := sc.taskVars[name]
	switch {
	case sc.task == nil && local:
		return sc.x.setLocal(name, v)
	case sc.task == nil || r == nil && !local:
		return sc.x.setVariable(name, v)
	}
	value, transient := unwrapTransient(v)
	if transient {
		return invalid(name, "a task-local variable cannot be transient")
	}
	limit := sc.c.e.Config.Limits.MaxVariableBytes
	if r != nil {
		if err := encodeVariable(r, value, limit); err != nil {
			return err
		}
		sc.c.cc.Update(r)
		sc.c.recordVariable(r)
		return nil
	}
	r = &persistence.Variable{ID: newID(), Rev: 1, Name: name, ExecutionID: sc.task.ExecutionID,
		ProcessInstanceID: sc.task.ProcessInstanceID, TaskID: sc.task.ID}
	if err := encodeVariable(r, value, limit); err != nil {
		return err
	}
	sc.c.cc.Insert(r)
	sc.c.recordVariable(r)
	sc.taskVars[name] = r
	return nil
}

// remove deletes name from the nearest scope that has it (local: from the
// scope itself), if any.
func (sc *variableScope) remove(name string, local bool) error {
	if r := sc.taskVars[name]; r != nil {
		sc.c.cc.Delete(r)
		sc.c.forgetVariable(r)
		delete(sc.taskVars, name)
		return nil
	}
	if local {
		if sc.task != nil {
			return nil
		}
		if err := sc.x.inst.loadVariables(); err != nil {
			return err
		}
		if r, _ := sc.x.inst.local(sc.x.ID, name); r == nil {
			return nil
		}
	}
	return sc.x.removeVariable(name)
}

// DeleteHistoricVariable deletes the history of variable id.
func (e *Core) DeleteHistoricVariable(ctx context.Context, id string) error {
	return e.command(ctx, nil, "delete_historic_variable", func(c *command) error {
		ent, err := c.cc.Get(persistence.HistoricVariableTable, id)
		if err != nil {
			return fmt.Errorf("historic variable instance %q: %w", id, err)
		}
		c.cc.Delete(ent)
		return nil
	})
}
