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
	if hasTimeoutListeners(a) {
		if err := c.armTimeoutListeners(x, a); err != nil {
			return err
		}
	}
	t := &persistence.Task{
		ID:                  newID(),
		Rev:                 1,
		Name:                a.Name,
		ExecutionID:         x.ID,
		ProcessInstanceID:   x.ProcessInstanceID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		TaskDefinitionKey:   a.ID,
		Priority:            50,
		CreateTime:          taskCreateTime(c),
		Suspension:          persistence.Active,
		ActivityInstanceID:  x.ActivityInstanceID,
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
	if a.Form != nil {
		if t.FormKey, err = c.text(x, a.Form.Key); err != nil {
			return failAt(a, "formKey: %w", err)
		}
		if t.FormRef, t.FormRefBinding, t.FormRefVersion, err = c.formRef(x, a.Form); err != nil {
			return failAt(a, "%w", err)
		}
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

// taskCreateTime is now to the millisecond, as Camunda's REST API shows
// times: a task's creation time as shown finds it (createdOn).
func taskCreateTime(c *command) time.Time { return c.cc.Now().UTC().Truncate(time.Millisecond) }

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
// execution, created on the process instance when new) and continues. A
// standalone task just ends; it takes no variables.
func (e *Core) CompleteTask(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any) error {
	_, err := e.completeTask(ctx, t, taskID, vars, false, false)
	return err
}

// CompleteTaskReturning is CompleteTask returning the variables of the
// task's process instance once the instance went on (as it ended, if it
// did), as Camunda's completeWithVariablesInReturn.
func (e *Core) CompleteTaskReturning(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any) (map[string]any, error) {
	return e.completeTask(ctx, t, taskID, vars, false, true)
}

// SubmitTaskForm is CompleteTask (CompleteTaskReturning with returning),
// except that a delegated task is resolved, as Camunda's form submission
// does.
func (e *Core) SubmitTaskForm(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any, returning bool) (map[string]any, error) {
	return e.completeTask(ctx, t, taskID, vars, true, returning)
}

// ErrDelegated: the task was delegated and must be resolved, not completed.
var ErrDelegated = errors.New("A delegated task cannot be completed, but should be resolved instead.")

// completeTask completes task taskID (submit: resolves it if delegated).
func (e *Core) completeTask(ctx context.Context, t persistence.Tx, taskID string, vars map[string]any, submit, returning bool) (map[string]any, error) {
	var returned *returnedVariables
	err := e.command(ctx, t, "complete_task", func(c *command) error {
		if e.tracing() {
			annotate(c.cc, attrTaskID.String(taskID))
		}
		ent, err := c.cc.Get(persistence.TaskTable, taskID)
		if err != nil {
			return fmt.Errorf("task %q: %w", taskID, err)
		}
		task := ent.(*persistence.Task)
		switch {
		case task.Suspension == persistence.Suspended:
			return taskSuspended(taskID)
		case task.DelegationState == persistence.DelegationPending && !submit:
			return ErrDelegated
		}
		var x *execution
		if task.ExecutionID != "" {
			if x, err = c.execution(task.ExecutionID); err != nil {
				return err
			}
			if returning {
				returned = c.returnVariablesOf(x.inst)
			}
			if submit {
				if vars, err = c.submitTaskForm(task.ID, vars); err != nil {
					return err
				}
			}
			if err := x.setVariables(vars, false); err != nil {
				return err
			}
		} else {
			if len(vars) > 0 {
				return refuse("bpmnlite does not keep variables of standalone tasks: task '%s' belongs to no process", taskID)
			}
			if returning {
				returned = &returnedVariables{vars: map[string]any{}}
			}
		}
		if task.DelegationState == persistence.DelegationPending { // submitted: resolved
			before := task.Assignee
			resolve(task)
			return c.taskUpdated(task, before)
		}
		if x == nil {
			c.cc.Delete(task)
			c.cc.Write(persistence.DeleteVariablesOfTask(task.ID))
			c.historyTaskEnd(task, persistence.TaskCompleted)
			return nil
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
	if err != nil || returned == nil {
		return nil, err
	}
	if returned.vars == nil {
		returned.vars = map[string]any{}
	}
	return returned.vars, nil
}

// ClaimTask makes userID the assignee of task id, unless another user
// already has it (ErrTaskClaimed); userID "" unclaims it, as in Camunda.
func (e *Core) ClaimTask(ctx context.Context, t persistence.Tx, id, userID string) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		if userID != "" && task.Assignee != "" && task.Assignee != userID {
			return &taskClaimed{id}
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

// taskSuspended is ErrSuspended for task id, in Camunda's words.
func taskSuspended(id string) error {
	return &camundaError{ErrSuspended, fmt.Sprintf("task with id '%s' is suspended.", id)}
}

// ErrTaskClaimed: the task is assigned to another user.
var ErrTaskClaimed = errors.New("task already claimed")

// taskClaimed is ErrTaskClaimed with Camunda's message.
type taskClaimed struct{ id string }

func (e *taskClaimed) Error() string {
	return "Task '" + e.id + "' is already claimed by someone else."
}
func (e *taskClaimed) Unwrap() error { return ErrTaskClaimed }

// taskUpdated records a change of task (its assignee was before), as
// Camunda's update event: a user task's update listeners run, then its
// assignment listeners if the assignee changed; the task keeps when, its
// history record follows.
func (c *command) taskUpdated(task *persistence.Task, before string) error {
	if task.ExecutionID != "" {
		x, err := c.execution(task.ExecutionID)
		if err != nil {
			return err
		}
		if a := x.activity(); a != nil {
			if err := c.fireTaskListeners(x, a, task, "update"); err != nil {
				return err
			}
			if task.Assignee != before && task.Assignee != "" {
				if err := c.fireTaskListeners(x, a, task, "assignment"); err != nil {
					return err
				}
			}
		}
	}
	now := c.cc.Now().UTC()
	task.LastUpdated = &now
	c.cc.Update(task)
	if c.e.history(config.HistoryActivity) {
		return c.historyTaskUpdate(task)
	}
	return nil
}

// updateTask changes task id, unless suspended, and records the change
// (taskUpdated); vars (at most one map) are set as completing the task
// would set them.
func (e *Core) updateTask(ctx context.Context, t persistence.Tx, id string, change func(*persistence.Task) error, vars ...map[string]any) error {
	return e.command(ctx, t, "update_task", func(c *command) error {
		ent, err := c.cc.Get(persistence.TaskTable, id)
		if err != nil {
			return fmt.Errorf("task %q: %w", id, err)
		}
		task := ent.(*persistence.Task)
		if task.Suspension == persistence.Suspended { // as Camunda's setters
			return taskSuspended(id)
		}
		before := task.Assignee
		if err := change(task); err != nil {
			return err
		}
		if err := checkTaskTexts(task); err != nil {
			return err
		}
		if task.ExecutionID != "" {
			for _, vs := range vars {
				x, err := c.execution(task.ExecutionID)
				if err != nil {
					return err
				}
				if err := x.setVariables(vs, false); err != nil {
					return err
				}
			}
		} else if len(vars) > 0 && len(vars[0]) > 0 {
			return refuse("bpmnlite does not keep variables of standalone tasks: task '%s' belongs to no process", id)
		}
		return c.taskUpdated(task, before)
	})
}
