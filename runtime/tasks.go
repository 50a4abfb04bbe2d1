package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Tasks: service and send tasks (delegates, expressions, external tasks),
// user tasks, receive tasks.

// serviceTask runs a service or send task: an external task waits for a
// worker; otherwise its delegate, expression or delegate expression runs
// and a BPMN error it returns is thrown from the task.
func (c *command) serviceTask(x *execution, a *bpmn.Activity) error {
	if a.External {
		return c.createExternalTask(x, a)
	}
	if err := c.callDelegate(x, "", a.Class, a.DelegateExpression, a.Expression, a.ResultVariable, a.Fields, a); err != nil {
		var be *BpmnError
		if errors.As(err, &be) {
			return c.throwError(x, be.Code, be.Message, a.String())
		}
		return err
	}
	return c.leave(x, a)
}

// receiveTask waits for its message (correlate) or for a trigger.
func (c *command) receiveTask(x *execution, a *bpmn.Activity) error {
	if a.MessageName != "" {
		c.subscribe(x, a, persistence.SubscriptionMessage, a.MessageName)
	}
	x.IsActive = false
	return nil
}

// createTask creates the user task row x waits on.
func (c *command) createTask(x *execution, a *bpmn.Activity) error {
	u := a.User
	if u == nil {
		return failAt(a, "no user task settings") // not parsed as a user task
	}
	x.IsActive = false
	t := &persistence.Task{
		ID:                  newID(),
		Rev:                 1,
		Name:                a.Name,
		ExecutionID:         x.ID,
		ProcessInstanceID:   x.ProcessInstanceID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		TaskDefinitionKey:   a.ID,
		Priority:            50,
		CreateTime:          c.cc.Now().UTC(),
		Suspension:          persistence.Active,
		TenantID:            x.inst.def.TenantID,
	}
	var err error
	if t.Assignee, err = c.text(x, u.Assignee); err != nil {
		return failAt(a, "assignee: %w", err)
	}
	if t.CandidateGroups, err = c.text(x, u.CandidateGroups); err != nil {
		return failAt(a, "candidateGroups: %w", err)
	}
	if t.CandidateUsers, err = c.text(x, u.CandidateUsers); err != nil {
		return failAt(a, "candidateUsers: %w", err)
	}
	if t.FormKey, err = c.text(x, u.FormKey); err != nil {
		return failAt(a, "formKey: %w", err)
	}
	if u.Priority != "" {
		p, err := c.constOrExpr(x, u.Priority, "", "priority")
		if err != nil {
			return failAt(a, "%w", err)
		}
		t.Priority = int(p)
	}
	if t.DueDate, err = c.taskDate(x, u.DueDate, t.CreateTime); err != nil {
		return failAt(a, "dueDate: %w", err)
	}
	if t.FollowUpDate, err = c.taskDate(x, u.FollowUpDate, t.CreateTime); err != nil {
		return failAt(a, "followUpDate: %w", err)
	}
	// As in Camunda, an assignee set at creation fires assignment before create.
	if t.Assignee != "" {
		if err := c.fireTaskListeners(x, a, t, "assignment"); err != nil {
			return err
		}
	}
	assignee := t.Assignee
	if err := c.fireTaskListeners(x, a, t, "create"); err != nil {
		return err
	}
	if t.Assignee != assignee && t.Assignee != "" {
		if err := c.fireTaskListeners(x, a, t, "assignment"); err != nil {
			return err
		}
	}
	c.cc.Insert(t)
	if h := c.history[x.ActivityInstanceID]; h != nil {
		h.TaskID = t.ID
		c.cc.Update(h)
	}
	c.historyTaskStart(t, x)
	return nil
}

// taskDate evaluates a user task's due or follow-up date: nil when src is
// empty or gives nil; a time; an ISO 8601 date; or an ISO 8601 duration
// counted from created.
func (c *command) taskDate(x *execution, src string, created time.Time) (*time.Time, error) {
	if src == "" {
		return nil, nil
	}
	v := any(src)
	if expression.IsExpression(src) {
		var err error
		if v, err = c.eval(x, src); err != nil {
			return nil, err
		}
	}
	switch t := v.(type) {
	case nil:
		return nil, nil
	case time.Time:
		u := t.UTC()
		return &u, nil
	case string:
		due, err := timer.ParseDueDate(t, created, time.UTC)
		if err != nil {
			return nil, fmt.Errorf("'%s' is neither an ISO 8601 date nor a duration: %w", strings.TrimSpace(t), err)
		}
		due = due.UTC()
		return &due, nil
	}
	return nil, fmt.Errorf("gives %T, want a time or an ISO 8601 date or duration", v)
}

// text evaluates an attribute that may contain expressions to a string.
func (c *command) text(x *execution, src string) (string, error) {
	if !expression.IsExpression(src) {
		return src, nil
	}
	ex, err := expression.Compile(src)
	if err != nil {
		return "", err
	}
	v, err := ex.Eval(c.resolver(x))
	if err != nil {
		return "", err
	}
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case []string:
		return strings.Join(t, ","), nil
	case []any:
		parts := make([]string, len(t))
		for i, p := range t {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ","), nil
	}
	return fmt.Sprint(v), nil
}

// createExternalTask creates the external task row x waits on.
func (c *command) createExternalTask(x *execution, a *bpmn.Activity) error {
	x.IsActive = false
	prio, err := c.constOrExpr(x, a.TaskPriority, x.inst.def.Process.TaskPriority, "taskPriority")
	if err != nil {
		return failAt(a, "%w", err)
	}
	topic, err := c.text(x, a.Topic)
	if err != nil {
		return failAt(a, "topic: %w", err)
	}
	c.externalTasksReady()
	task := &persistence.ExternalTask{
		ID:                   newID(),
		Rev:                  1,
		Topic:                topic,
		ExecutionID:          x.ID,
		ProcessInstanceID:    x.ProcessInstanceID,
		ProcessDefinitionID:  x.ProcessDefinitionID,
		ProcessDefinitionKey: x.inst.def.Key,
		ActivityID:           a.ID,
		ActivityInstanceID:   x.ActivityInstanceID,
		Priority:             prio,
		Suspension:           persistence.Active,
		BusinessKey:          x.inst.root.BusinessKey,
		CreateTime:           c.cc.Now().UTC(),
		TraceParent:          traceParent(c.cc),
		TenantID:             x.inst.def.TenantID,
	}
	c.cc.Insert(task)
	c.logExternalTask(task, persistence.ExternalTaskLogCreated)
	return nil
}

// CompleteTask completes a user task, sets vars (visible from the task's
// execution, created on the process instance when new) and continues.
func (e *Core) CompleteTask(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any) error {
	return e.command(ctx, t, "complete_task", func(c *command) error {
		if e.tracing() {
			annotate(c.cc, attrTaskID.String(taskID))
		}
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
		a := x.activity()
		if a == nil {
			return fmt.Errorf("task %q: execution is at no activity", taskID)
		}
		if err := c.fireTaskListeners(x, a, task, "complete"); err != nil {
			return err
		}
		c.cc.Delete(task)
		c.cc.Write(persistence.DeleteVariablesOfTask(task.ID))
		c.historyTaskEnd(task, persistence.TaskCompleted)
		x.IsActive = true
		return c.leave(x, a)
	})
}

// ClaimTask makes userID the assignee of task id, unless another user
// already has it (ErrTaskClaimed).
func (e *Core) ClaimTask(ctx context.Context, t persistence.Tx, id, userID string) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		if task.Assignee != "" && task.Assignee != userID {
			return fmt.Errorf("Cannot claim task '%s': task is already claimed by someone else: %w", id, ErrTaskClaimed)
		}
		task.Assignee = userID
		return nil
	})
}

// SetTaskAssignee sets (or, with "", clears) the assignee of task id.
func (e *Core) SetTaskAssignee(ctx context.Context, t persistence.Tx, id, userID string) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		task.Assignee = userID
		return nil
	})
}

// ErrTaskClaimed: the task is assigned to another user.
var ErrTaskClaimed = errors.New("task already claimed")

func (e *Core) updateTask(ctx context.Context, t persistence.Tx, id string, change func(*persistence.Task) error) error {
	return e.command(ctx, t, "update_task", func(c *command) error {
		ent, err := c.cc.Get(persistence.TaskTable, id)
		if err != nil {
			return fmt.Errorf("task %q: %w", id, err)
		}
		task := ent.(*persistence.Task)
		before := task.Assignee
		if err := change(task); err != nil {
			return err
		}
		if task.Assignee != before && task.Assignee != "" {
			x, err := c.execution(task.ExecutionID)
			if err != nil {
				return err
			}
			if a := x.activity(); a != nil {
				if err := c.fireTaskListeners(x, a, task, "assignment"); err != nil {
					return err
				}
			}
		}
		c.cc.Update(task)
		if c.e.history(config.HistoryActivity) {
			c.cc.Write(persistence.SetHistoricTaskAssignee(task.ID, task.Assignee))
		}
		return nil
	})
}
