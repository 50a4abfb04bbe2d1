package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// The task operations of Camunda's task service: standalone tasks
// (created by the API, in no process), updates, delegation, identity
// links, BPMN errors and escalations thrown at a user task, comments and
// attachments.

// TaskFields are what the API sets of a task, all at once, as Camunda's
// saveTask of a task resource's JSON replaces them.
type TaskFields struct {
	Name, Description string
	Assignee, Owner   string
	// DelegationState: "", persistence.DelegationPending or DelegationResolved.
	DelegationState string
	ParentTaskID    string
	Priority        int
	DueDate         *time.Time
	FollowUpDate    *time.Time
	// TenantID: a standalone task's tenant ("": none); a subtask has its
	// parent's, a task keeps the one it has.
	TenantID string
}

// ErrNotValid is a task operation Camunda refuses as not valid (its
// NotValidException or BadUserRequestException): the error's message
// says why.
var ErrNotValid = errors.New("not valid")

// camundaError is a sentinel error (kind) with Camunda's message alone.
type camundaError struct {
	kind error
	msg  string
}

func (e *camundaError) Error() string { return e.msg }
func (e *camundaError) Unwrap() error { return e.kind }

// NotValidf is an ErrNotValid whose message is the format's.
func NotValidf(format string, args ...any) error {
	return &camundaError{ErrNotValid, fmt.Sprintf(format, args...)}
}

// NotFoundf is a persistence.ErrNotFound whose message is the format's.
func NotFoundf(format string, args ...any) error {
	return &camundaError{persistence.ErrNotFound, fmt.Sprintf(format, args...)}
}

func refuse(format string, args ...any) error { return NotValidf(format, args...) }

// checkTexts refuses (ErrNotValid) text a task operation would store that
// the database cannot (see checkText); named are pairs of a member's name
// and its text.
func checkTexts(named ...string) error {
	for i := 0; i+1 < len(named); i += 2 {
		if why := checkText(named[i], named[i+1]); why != "" {
			return refuse("%s", why)
		}
	}
	return nil
}

// checkTaskTexts is checkTexts of the texts of task.
func checkTaskTexts(task *persistence.Task) error {
	return checkTexts("id", task.ID, "name", task.Name, "description", task.Description, "assignee", task.Assignee,
		"owner", task.Owner, "parentTaskId", task.ParentTaskID, "candidate groups", task.CandidateGroups,
		"candidate users", task.CandidateUsers, "tenantId", task.TenantID)
}

// CreateTask creates a standalone task with id (a new one when "") and
// returns its id.
func (e *Core) CreateTask(ctx context.Context, t persistence.Tx, id string, f TaskFields) (string, error) {
	if id == "" {
		id = newID()
	}
	err := e.command(ctx, t, "create_task", func(c *command) error {
		for _, table := range []*persistence.Table{persistence.TaskTable, persistence.HistoricTaskTable} {
			if _, err := c.cc.Get(table, id); err == nil {
				return refuse("Cannot create task: a task with id '%s' already exists", id)
			} else if !errors.Is(err, persistence.ErrNotFound) {
				return err
			}
		}
		parent, err := c.activeParentTask(f.ParentTaskID)
		if err != nil {
			return err
		}
		task := &persistence.Task{ID: id, Rev: 1, CreateTime: taskCreateTime(c), Suspension: persistence.Active, TenantID: f.TenantID}
		if parent != nil {
			if f.TenantID != "" && f.TenantID != parent.TenantID {
				return refuse("Cannot set different tenantId on subtask than on parent Task. Parent taskId: '%s', tenantId: '%s', tenant id to set '%s'",
					parent.ID, orNull(parent.TenantID), f.TenantID)
			}
			task.TenantID = parent.TenantID
		}
		setTaskFields(task, f)
		if err := checkTaskTexts(task); err != nil {
			return err
		}
		c.cc.Insert(task)
		c.historyTaskStart(task, nil)
		return nil
	})
	return id, err
}

// activeParentTask is a new task's parent (nil for none), which must
// exist and be active, as Camunda checks.
func (c *command) activeParentTask(parentID string) (*persistence.Task, error) {
	if parentID == "" {
		return nil, nil
	}
	ent, err := c.cc.Get(persistence.TaskTable, parentID)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, refuse("Parent task with id '%s' does not exist", parentID)
	}
	if err != nil {
		return nil, err
	}
	parent := ent.(*persistence.Task)
	if parent.Suspension == persistence.Suspended {
		return nil, &camundaError{ErrSuspended, fmt.Sprintf("parent task with id '%s' is suspended.", parentID)}
	}
	return parent, nil
}

// orNull is s, or null as Camunda's messages print a missing value.
func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func setTaskFields(task *persistence.Task, f TaskFields) {
	task.Name, task.Description, task.Assignee, task.Owner = f.Name, f.Description, f.Assignee, f.Owner
	task.DelegationState, task.ParentTaskID, task.Priority = f.DelegationState, f.ParentTaskID, f.Priority
	task.DueDate, task.FollowUpDate = utc(f.DueDate), utc(f.FollowUpDate)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// UpdateTask replaces the fields of task id with f; its tenant cannot
// change.
func (e *Core) UpdateTask(ctx context.Context, t persistence.Tx, id string, f TaskFields) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		if f.TenantID != task.TenantID {
			return refuse("Cannot change tenantId of Task '%s'. Current tenant id '%s', Tenant id to set '%s'", id, orNull(task.TenantID), orNull(f.TenantID))
		}
		setTaskFields(task, f)
		return nil
	})
}

// SetTaskOwner sets (or, with "", clears) the owner of task id.
func (e *Core) SetTaskOwner(ctx context.Context, t persistence.Tx, id, userID string) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		task.Owner = userID
		return nil
	})
}

// DelegateTask hands task id to userID until they resolve it: its
// assignee becomes its owner (unless it has one) and userID its assignee,
// pending.
func (e *Core) DelegateTask(ctx context.Context, t persistence.Tx, id, userID string) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		task.DelegationState = persistence.DelegationPending
		if task.Owner == "" {
			task.Owner = task.Assignee
		}
		task.Assignee = userID
		return nil
	})
}

// ResolveTask hands a delegated task back to its owner, resolved, with
// vars set as completing it would set them.
func (e *Core) ResolveTask(ctx context.Context, t persistence.Tx, id string, vars map[string]any) error {
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		resolve(task)
		return nil
	}, vars)
}

// resolve hands a delegated task back to its owner.
func resolve(task *persistence.Task) {
	task.DelegationState, task.Assignee = persistence.DelegationResolved, task.Owner
}

// DeleteTask deletes standalone task id and its standalone subtasks; its
// history ends as deleted, its comments and attachments stay. A task of a
// process instance cannot be deleted (ErrNotValid); an unknown id is no
// error, as in Camunda.
func (e *Core) DeleteTask(ctx context.Context, t persistence.Tx, id string) error {
	return e.command(ctx, t, "delete_task", func(c *command) error {
		ent, err := c.cc.Get(persistence.TaskTable, id)
		if errors.Is(err, persistence.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		task := ent.(*persistence.Task)
		if task.ExecutionID != "" {
			return refuse("The task cannot be deleted because is part of a running process")
		}
		return c.deleteStandaloneTask(task)
	})
}

func (c *command) deleteStandaloneTask(task *persistence.Task) error {
	subtasks, err := tx.Select(c.cc, persistence.SubtasksOf(task.ID))
	if err != nil {
		return err
	}
	for _, sub := range subtasks {
		if sub.ExecutionID == "" {
			if err := c.deleteStandaloneTask(sub); err != nil {
				return err
			}
		}
	}
	c.cc.Write(persistence.DeleteVariablesOfTask(task.ID))
	c.cc.Delete(task)
	c.historyTaskEnd(task, persistence.TaskDeleted)
	return nil
}

// IdentityLink is a user or group related to a task: a candidate, its
// assignee or its owner (Camunda's identity link types).
type IdentityLink struct {
	UserID, GroupID string
	Type            string // IdentityLinkCandidate, IdentityLinkAssignee, IdentityLinkOwner
}

// Identity link types.
const (
	IdentityLinkCandidate = "candidate"
	IdentityLinkAssignee  = "assignee"
	IdentityLinkOwner     = "owner"
)

// TaskIdentityLinks are the candidate groups and users of task, then its
// assignee and owner, as Camunda lists them.
func TaskIdentityLinks(task *persistence.Task) []IdentityLink {
	var links []IdentityLink
	for _, g := range entries(task.CandidateGroups) {
		links = append(links, IdentityLink{GroupID: g, Type: IdentityLinkCandidate})
	}
	for _, u := range entries(task.CandidateUsers) {
		links = append(links, IdentityLink{UserID: u, Type: IdentityLinkCandidate})
	}
	if task.Assignee != "" {
		links = append(links, IdentityLink{UserID: task.Assignee, Type: IdentityLinkAssignee})
	}
	if task.Owner != "" {
		links = append(links, IdentityLink{UserID: task.Owner, Type: IdentityLinkOwner})
	}
	return links
}

// entries are the entries of a comma-separated list.
func entries(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// AddTaskIdentityLink relates a user or group to task id: a candidate
// user or group, or (a user) its assignee or owner. Other types are not
// stored (ErrNotValid).
func (e *Core) AddTaskIdentityLink(ctx context.Context, t persistence.Tx, id string, l IdentityLink) error {
	return e.changeIdentityLink(ctx, t, id, l, true)
}

// DeleteTaskIdentityLink removes a link AddTaskIdentityLink made.
func (e *Core) DeleteTaskIdentityLink(ctx context.Context, t persistence.Tx, id string, l IdentityLink) error {
	return e.changeIdentityLink(ctx, t, id, l, false)
}

func (e *Core) changeIdentityLink(ctx context.Context, t persistence.Tx, id string, l IdentityLink, add bool) error {
	switch {
	case l.UserID != "" && l.GroupID != "":
		return refuse("Identity Link requires userId or groupId, but not both.")
	case l.UserID == "" && l.GroupID == "":
		return refuse("userId and groupId cannot both be null")
	case l.Type == "":
		return refuse("type is required when adding a new task identity link")
	case (l.Type == IdentityLinkAssignee || l.Type == IdentityLinkOwner) && l.GroupID != "":
		return refuse("Incompatible usage: cannot use type '%s' together with a groupId", l.Type)
	case strings.Contains(l.UserID+l.GroupID, ","):
		return refuse("bpmnlite keeps candidates as comma-separated lists: a user or group id cannot contain a comma")
	case !slices.Contains([]string{IdentityLinkCandidate, IdentityLinkAssignee, IdentityLinkOwner}, l.Type):
		return refuse("bpmnlite stores the identity link types candidate, assignee and owner, not '%s'", l.Type)
	}
	return e.updateTask(ctx, t, id, func(task *persistence.Task) error {
		switch {
		case l.Type == IdentityLinkAssignee:
			task.Assignee = keepOrClear(task.Assignee, l.UserID, add)
		case l.Type == IdentityLinkOwner:
			task.Owner = keepOrClear(task.Owner, l.UserID, add)
		case l.GroupID != "":
			task.CandidateGroups = withEntry(task.CandidateGroups, l.GroupID, add)
		default:
			task.CandidateUsers = withEntry(task.CandidateUsers, l.UserID, add)
		}
		return nil
	})
}

// keepOrClear is user when adding; "" when removing user, who had it.
func keepOrClear(current, user string, add bool) string {
	switch {
	case add:
		return user
	case current == user:
		return ""
	}
	return current
}

// withEntry is a comma-separated list with entry added (once) or removed.
func withEntry(list, entry string, add bool) string {
	es := slices.DeleteFunc(entries(list), func(e string) bool { return e == entry })
	if add {
		es = append(es, entry)
	}
	return strings.Join(es, ",")
}

// ErrUncaughtEscalation: an escalation thrown at a user task that no
// boundary event or event subprocess catches.
var ErrUncaughtEscalation = errors.New("escalation not caught")

// HandleTaskBpmnError throws BPMN error code at user task id, after
// setting vars as completing it would: the nearest matching error boundary
// event or event subprocess catches it (its task is deleted as the
// activity is cancelled); uncaught, the path ends, as in Camunda.
func (e *Core) HandleTaskBpmnError(ctx context.Context, t persistence.Tx, id, code, message string, vars map[string]any) error {
	if code == "" {
		return refuse("errorCode is empty")
	}
	if err := checkTexts("errorCode", code, "errorMessage", message); err != nil {
		return err
	}
	return e.command(ctx, t, "handle_task_bpmn_error", func(c *command) error {
		x, task, err := c.throwingTask(id, vars)
		if err != nil {
			return err
		}
		source := fmt.Sprintf("user task '%s'", task.TaskDefinitionKey)
		c.settled = func() error {
			if !c.cc.IsDeleted(task) { // uncaught: the path ended without it
				c.cc.Delete(task)
				c.historyTaskEnd(task, persistence.TaskDeleted)
			}
			return nil
		}
		return c.throwError(x, code, message, source)
	})
}

// HandleTaskEscalation throws escalation code at user task id, after
// setting vars: the nearest matching escalation boundary event or event
// subprocess catches it; an interrupting one cancels the task, a
// non-interrupting one leaves it open. Uncaught, nothing changes and the
// error wraps ErrUncaughtEscalation, as Camunda refuses it.
func (e *Core) HandleTaskEscalation(ctx context.Context, t persistence.Tx, id, code string, vars map[string]any) error {
	if code == "" {
		return refuse("escalationCode is empty")
	}
	if err := checkTexts("escalationCode", code); err != nil {
		return err
	}
	return e.command(ctx, t, "handle_task_escalation", func(c *command) error {
		x, _, err := c.throwingTask(id, vars)
		if err != nil {
			return err
		}
		_, caught, _, err := c.propagateEscalation(x, x.activity(), code)
		if err == nil && !caught {
			err = &camundaError{ErrUncaughtEscalation, fmt.Sprintf(
				"Execution with id '%s' throws an escalation event with escalationCode '%s', but no escalation handler was defined. ", x.ActivityID, code)}
		}
		return err
	})
}

// throwingTask is user task id, active and of a process instance, and the
// execution waiting at it, with vars set.
func (c *command) throwingTask(id string, vars map[string]any) (*execution, *persistence.Task, error) {
	ent, err := c.cc.Get(persistence.TaskTable, id)
	if err != nil {
		return nil, nil, fmt.Errorf("Cannot find task with id %s: %w", id, err)
	}
	task := ent.(*persistence.Task)
	switch {
	case task.Suspension == persistence.Suspended:
		return nil, nil, taskSuspended(id)
	case task.ExecutionID == "":
		return nil, nil, refuse("Task '%s' is a standalone task: it belongs to no process that could catch what it throws", id)
	}
	x, err := c.execution(task.ExecutionID)
	if err != nil {
		return nil, nil, err
	}
	if x.activity() == nil {
		return nil, nil, fmt.Errorf("task %q: execution is at no activity", id)
	}
	return x, task, x.setVariables(vars, false)
}

// keepEndVariables keeps the variables of instance in as it ends, when the
// command returns them (see CompleteTaskReturning).
func (c *command) keepEndVariables(in *instance) error {
	if c.returnVars == nil || c.returnVars.instanceID != in.root.ID {
		return nil
	}
	if err := in.loadVariables(); err != nil {
		return err
	}
	c.returnVars.vars = map[string]any{}
	return in.decodeScope(in.root.ID, c.returnVars.vars, false)
}

// returnVariablesOf makes the command return the variables of instance
// in: as it ends (keepEndVariables), or as they are once the command's
// agenda is done.
func (c *command) returnVariablesOf(in *instance) *returnedVariables {
	returned := &returnedVariables{instanceID: in.root.ID}
	c.returnVars = returned
	c.settled = func() error {
		if returned.vars != nil || in.root.removed {
			return nil
		}
		if err := in.loadVariables(); err != nil {
			return err
		}
		returned.vars = map[string]any{}
		return in.decodeScope(in.root.ID, returned.vars, false)
	}
	return returned
}

// returnedVariables are the process variables a command returns: those of
// its instance as it ended, or as they are when the command is done.
type returnedVariables struct {
	instanceID string
	vars       map[string]any // nil until known
}

// AddTaskComment adds a comment by userID to task id (an open task or one
// in history) for processInstanceID (may be ""), and returns it.
func (e *Core) AddTaskComment(ctx context.Context, t persistence.Tx, id, processInstanceID, userID, message string) (*persistence.TaskComment, error) {
	if err := checkTexts("message", message, "processInstanceId", processInstanceID, "userId", userID); err != nil {
		return nil, err
	}
	var comment *persistence.TaskComment
	err := e.command(ctx, t, "add_task_comment", func(c *command) error {
		root, err := c.taskOrHistory(id)
		if err != nil {
			return err
		}
		comment = &persistence.TaskComment{ID: newID(), Rev: 1, TaskID: id, ProcessInstanceID: processInstanceID,
			RootProcessInstanceID: root, UserID: userID, Time: c.cc.Now().UTC(), Message: message}
		c.cc.Insert(comment)
		return c.touchTask(id)
	})
	return comment, err
}

// taskOrHistory finds task id open or in history (ErrNotFound otherwise)
// and returns the root of its process instance's hierarchy.
func (c *command) taskOrHistory(id string) (root string, err error) {
	pi := ""
	if ent, err := c.cc.Get(persistence.TaskTable, id); err == nil {
		pi = ent.(*persistence.Task).ProcessInstanceID
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return "", err
	} else if ent, err := c.cc.Get(persistence.HistoricTaskTable, id); err == nil {
		pi = ent.(*persistence.HistoricTask).ProcessInstanceID
	} else {
		return "", fmt.Errorf("task %q: %w", id, err)
	}
	if pi == "" {
		return "", nil
	}
	if ent, err := c.cc.Get(persistence.HistoricProcessInstanceTable, pi); err == nil {
		return ent.(*persistence.HistoricProcessInstance).RootProcessInstanceID, nil
	}
	if ent, err := c.cc.Get(persistence.ExecutionTable, pi); err == nil {
		return ent.(*persistence.Execution).RootProcessInstanceID, nil
	}
	return pi, nil
}

// touchTask records that open task id changed (its comments or
// attachments), as Camunda's update event does (see taskUpdated); a task
// in history only is left as it is.
func (c *command) touchTask(id string) error {
	ent, err := c.cc.Get(persistence.TaskTable, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	task := ent.(*persistence.Task)
	return c.taskUpdated(task, task.Assignee)
}

// UpdateTaskComment changes the message of comment commentID of open task
// id.
func (e *Core) UpdateTaskComment(ctx context.Context, t persistence.Tx, id, commentID, message string) error {
	if err := checkTexts("message", message); err != nil {
		return err
	}
	return e.command(ctx, t, "update_task_comment", func(c *command) error {
		comment, err := taskChild(c, persistence.TaskCommentTable, id, commentID, func(x *persistence.TaskComment) string { return x.TaskID })
		if err != nil {
			return refuse("No comment exists with commentId: %s and taskId: %s", commentID, id)
		}
		if _, err := c.cc.Get(persistence.TaskTable, id); err != nil {
			return refuse("No task exists with taskId: %s", id) // ended: its comments stay as they are
		}
		comment.Message = message
		c.cc.Update(comment)
		return c.touchTask(id)
	})
}

// DeleteTaskComments deletes comment commentID of open task id, or all its
// comments when commentID is ""; a comment it does not have is no error,
// as in Camunda.
func (e *Core) DeleteTaskComments(ctx context.Context, t persistence.Tx, id, commentID string) error {
	return e.command(ctx, t, "delete_task_comments", func(c *command) error {
		if _, err := c.cc.Get(persistence.TaskTable, id); err != nil {
			return fmt.Errorf("No task exists with taskId: %s: %w", id, err)
		}
		comments, err := tx.Select(c.cc, persistence.CommentsOfTask(id))
		if err != nil {
			return err
		}
		for _, comment := range comments {
			if commentID == "" || comment.ID == commentID {
				c.cc.Delete(comment)
			}
		}
		return c.touchTask(id)
	})
}

// UpdateInstanceComment changes the message of comment commentID of
// process instance id (refused, ErrNotValid, when the instance has no such
// comment).
func (e *Core) UpdateInstanceComment(ctx context.Context, t persistence.Tx, id, commentID, message string) error {
	if err := checkTexts("message", message); err != nil {
		return err
	}
	return e.command(ctx, t, "update_instance_comment", func(c *command) error {
		ent, err := c.cc.Get(persistence.TaskCommentTable, commentID)
		if err != nil || ent.(*persistence.TaskComment).ProcessInstanceID != id {
			return refuse("No comment exists with commentId: %s and processInstanceId: %s", commentID, id)
		}
		comment := ent.(*persistence.TaskComment)
		comment.Message = message
		c.cc.Update(comment)
		return nil
	})
}

// DeleteInstanceComments deletes comment commentID of process instance id,
// or all its comments when commentID is ""; a comment it does not have is
// no error, as in Camunda.
func (e *Core) DeleteInstanceComments(ctx context.Context, t persistence.Tx, id, commentID string) error {
	return e.command(ctx, t, "delete_instance_comments", func(c *command) error {
		comments, err := tx.Select(c.cc, persistence.CommentsOfInstance(id))
		if err != nil {
			return err
		}
		for _, comment := range comments {
			if commentID == "" || comment.ID == commentID {
				c.cc.Delete(comment)
			}
		}
		return nil
	})
}

// taskChild is the comment or attachment childID of task id (ErrNotFound
// for one of another task).
func taskChild[T persistence.Entity](c *command, table *persistence.Table, id, childID string, taskOf func(T) string) (T, error) {
	var zero T
	ent, err := c.cc.Get(table, childID)
	if err != nil {
		return zero, err
	}
	child := ent.(T)
	if taskOf(child) != id {
		return zero, persistence.ErrNotFound
	}
	return child, nil
}

// AddTaskAttachment attaches a to task id (an open task or one in history)
// and returns it with its id and time.
func (e *Core) AddTaskAttachment(ctx context.Context, t persistence.Tx, id string, a persistence.TaskAttachment) (*persistence.TaskAttachment, error) {
	if err := checkTexts("attachment-name", a.Name, "attachment-description", a.Description, "attachment-type", a.Type, "url", a.URL); err != nil {
		return nil, err
	}
	err := e.command(ctx, t, "add_task_attachment", func(c *command) error {
		root, err := c.taskOrHistory(id)
		if err != nil {
			return err
		}
		a.ID, a.Rev, a.TaskID, a.RootProcessInstanceID, a.CreateTime = newID(), 1, id, root, c.cc.Now().UTC()
		c.cc.Insert(&a)
		return c.touchTask(id)
	})
	return &a, err
}

// DeleteTaskAttachment deletes attachment attachmentID of task id
// (ErrNotFound when the task has no such attachment).
func (e *Core) DeleteTaskAttachment(ctx context.Context, t persistence.Tx, id, attachmentID string) error {
	return e.command(ctx, t, "delete_task_attachment", func(c *command) error {
		a, err := taskChild(c, persistence.TaskAttachmentTable, id, attachmentID, func(x *persistence.TaskAttachment) string { return x.TaskID })
		if err != nil {
			return err
		}
		c.cc.Delete(a)
		return c.touchTask(id)
	})
}
