package bpmnlite

import (
	"context"
	"fmt"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// The task service: standalone tasks, updates, delegation, identity
// links, BPMN errors and escalations thrown at user tasks, comments and
// attachments, as Camunda's TaskService has them. Each call runs in a
// transaction of its own.

// TaskFields are the fields of a task the API sets, all at once (Camunda's
// task JSON): a zero field clears what the task had.
type TaskFields = runtime.TaskFields

// Delegation states (Task.DelegationState).
const (
	DelegationPending  = persistence.DelegationPending
	DelegationResolved = persistence.DelegationResolved
)

// IdentityLink relates a user or group to a task: a candidate, its
// assignee or its owner.
type IdentityLink = runtime.IdentityLink

// Identity link types (IdentityLink.Type).
const (
	IdentityLinkCandidate = runtime.IdentityLinkCandidate
	IdentityLinkAssignee  = runtime.IdentityLinkAssignee
	IdentityLinkOwner     = runtime.IdentityLinkOwner
)

// TaskComment is a comment on a task; it outlives the task, as history.
type TaskComment = persistence.TaskComment

// TaskAttachment is a file (Content) or a link (URL) attached to a task;
// it outlives the task, as history.
type TaskAttachment = persistence.TaskAttachment

// GroupTaskCount is how many unassigned tasks a candidate group has
// (Group "": the tasks without one).
type GroupTaskCount = persistence.GroupTaskCount

var (
	// ErrNotValid: a task operation Camunda refuses as not valid (a
	// standalone task's parent that does not exist, deleting a task of a
	// process, an identity link without a user or group, ...); the error
	// says why.
	ErrNotValid = runtime.ErrNotValid
	// ErrDelegated: a delegated task must be resolved, not completed.
	ErrDelegated = runtime.ErrDelegated
	// ErrUncaughtEscalation: no boundary event or event subprocess catches
	// the escalation thrown at a user task; nothing changed.
	ErrUncaughtEscalation = runtime.ErrUncaughtEscalation
)

// CreateTask creates a standalone task, in no process, with id (a new one
// when "") and fields f, and returns its id. Its history is written as a
// user task's is.
func (e *Engine) CreateTask(ctx context.Context, id string, f TaskFields) (string, error) {
	return e.rt.CreateTask(ctx, nil, id, f)
}

// UpdateTask replaces the fields of task id (a standalone task or a user
// task) with f. A new assignee fires the user task's assignment listeners.
func (e *Engine) UpdateTask(ctx context.Context, id string, f TaskFields) error {
	return e.rt.UpdateTask(ctx, nil, id, f)
}

// SetTaskOwner sets (or, with "", clears) a task's owner.
func (e *Engine) SetTaskOwner(ctx context.Context, id, userID string) error {
	return e.rt.SetTaskOwner(ctx, nil, id, userID)
}

// DeleteTask deletes a standalone task and its standalone subtasks (their
// history ends as deleted). A task of a process instance cannot be
// deleted (ErrNotValid); an unknown id is no error, as in Camunda.
func (e *Engine) DeleteTask(ctx context.Context, id string) error {
	return e.rt.DeleteTask(ctx, nil, id)
}

// DelegateTask hands a task to userID until they resolve it: the
// assignee becomes its owner (unless it has one), userID its assignee,
// and its delegation state DelegationPending.
func (e *Engine) DelegateTask(ctx context.Context, id, userID string) error {
	return e.rt.DelegateTask(ctx, nil, id, userID)
}

// ResolveTask hands a delegated task back to its owner (DelegationResolved)
// and sets vars as CompleteTask would.
func (e *Engine) ResolveTask(ctx context.Context, id string, vars map[string]any) error {
	return e.rt.ResolveTask(ctx, nil, id, vars)
}

// CompleteTaskReturning is CompleteTask returning the variables of the
// task's process instance once it went on to its next wait states (as it
// ended, if it did): Camunda's completion withVariablesInReturn.
func (e *Engine) CompleteTaskReturning(ctx context.Context, id string, vars map[string]any) (map[string]any, error) {
	return e.rt.CompleteTaskReturning(ctx, nil, id, vars)
}

// SubmitTaskForm submits task id's form with vars, as Camunda's form
// service: it completes the task, or resolves it if it was delegated
// (DelegationPending). With returning, it returns the variables of the
// task's process instance as CompleteTaskReturning does.
func (e *Engine) SubmitTaskForm(ctx context.Context, id string, vars map[string]any, returning bool) (map[string]any, error) {
	return e.rt.SubmitTaskForm(ctx, nil, id, vars, returning)
}

// TaskIdentityLinks are the candidate groups and users of task id, then
// its assignee and owner.
func (e *Engine) TaskIdentityLinks(ctx context.Context, id string) ([]IdentityLink, error) {
	task, err := e.Task(ctx, id)
	if err != nil {
		return nil, err
	}
	return runtime.TaskIdentityLinks(task), nil
}

// Task is open task id (ErrNotFound when there is none).
func (e *Engine) Task(ctx context.Context, id string) (*Task, error) {
	tasks, err := e.Tasks(ctx, TaskQuery{ID: id})
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("task %q: %w", id, ErrNotFound)
	}
	return tasks[0], nil
}

// AddTaskIdentityLink relates a user or group to a task: a candidate
// (IdentityLinkCandidate), or a user as its assignee or owner.
func (e *Engine) AddTaskIdentityLink(ctx context.Context, id string, l IdentityLink) error {
	return e.rt.AddTaskIdentityLink(ctx, nil, id, l)
}

// DeleteTaskIdentityLink removes a link AddTaskIdentityLink made.
func (e *Engine) DeleteTaskIdentityLink(ctx context.Context, id string, l IdentityLink) error {
	return e.rt.DeleteTaskIdentityLink(ctx, nil, id, l)
}

// HandleTaskBpmnError throws BPMN error code (with message) at user task
// id after setting vars: the nearest matching error boundary event or
// event subprocess catches it, cancelling the task; uncaught, the task's
// path ends, as in Camunda.
func (e *Engine) HandleTaskBpmnError(ctx context.Context, id, code, message string, vars map[string]any) error {
	return e.rt.HandleTaskBpmnError(ctx, nil, id, code, message, vars)
}

// HandleTaskEscalation throws escalation code at user task id after
// setting vars: the nearest matching escalation boundary event or event
// subprocess catches it; an interrupting one cancels the task.
// Uncaught, nothing changes (ErrUncaughtEscalation).
func (e *Engine) HandleTaskEscalation(ctx context.Context, id, code string, vars map[string]any) error {
	return e.rt.HandleTaskEscalation(ctx, nil, id, code, vars)
}

// TaskHistoryKept reports whether the engine writes history, and so keeps
// comments and attachments (Camunda's need any history level but none).
func (e *Engine) TaskHistoryKept() bool { return e.cfg.History.Level > HistoryNone }

// AddTaskComment adds a comment by userID (may be "") to task id, open or
// in history, for processInstanceID (may be ""), and returns it.
func (e *Engine) AddTaskComment(ctx context.Context, id, processInstanceID, userID, message string) (*TaskComment, error) {
	return e.rt.AddTaskComment(ctx, nil, id, processInstanceID, userID, message)
}

// TaskComments are the comments on task id, newest first.
func (e *Engine) TaskComments(ctx context.Context, id string) ([]*TaskComment, error) {
	return persistence.List(ctx, e.db, persistence.CommentsOfTask(id))
}

// ProcessInstanceComments are the comments on process instance id (on
// its tasks, or made for it), newest first.
func (e *Engine) ProcessInstanceComments(ctx context.Context, id string) ([]*TaskComment, error) {
	return persistence.List(ctx, e.db, persistence.CommentsOfInstance(id))
}

// UpdateProcessInstanceComment changes the message of comment commentID of
// process instance id.
func (e *Engine) UpdateProcessInstanceComment(ctx context.Context, id, commentID, message string) error {
	return e.rt.UpdateInstanceComment(ctx, nil, id, commentID, message)
}

// DeleteProcessInstanceComments deletes comment commentID of process
// instance id, or all its comments when commentID is "".
func (e *Engine) DeleteProcessInstanceComments(ctx context.Context, id, commentID string) error {
	return e.rt.DeleteInstanceComments(ctx, nil, id, commentID)
}

// UpdateTaskComment changes the message of a comment on task id
// (ErrNotValid when the task has no such comment).
func (e *Engine) UpdateTaskComment(ctx context.Context, id, commentID, message string) error {
	return e.rt.UpdateTaskComment(ctx, nil, id, commentID, message)
}

// DeleteTaskComments deletes comment commentID of open task id, or all its
// comments when commentID is "".
func (e *Engine) DeleteTaskComments(ctx context.Context, id, commentID string) error {
	return e.rt.DeleteTaskComments(ctx, nil, id, commentID)
}

// AddTaskAttachment attaches a (its Name, Description, Type, and URL or
// Content) to task id, open or in history, and returns it.
func (e *Engine) AddTaskAttachment(ctx context.Context, id string, a TaskAttachment) (*TaskAttachment, error) {
	return e.rt.AddTaskAttachment(ctx, nil, id, a)
}

// TaskAttachments are the attachments of task id, oldest first.
func (e *Engine) TaskAttachments(ctx context.Context, id string) ([]*TaskAttachment, error) {
	return persistence.List(ctx, e.db, persistence.AttachmentsOfTask(id))
}

// DeleteTaskAttachment deletes an attachment of task id (ErrNotFound when
// the task has no such attachment).
func (e *Engine) DeleteTaskAttachment(ctx context.Context, id, attachmentID string) error {
	return e.rt.DeleteTaskAttachment(ctx, nil, id, attachmentID)
}

// TaskCountByCandidateGroup counts the unassigned open tasks of each
// candidate group, by group name, the tasks without one last.
func (e *Engine) TaskCountByCandidateGroup(ctx context.Context) ([]GroupTaskCount, error) {
	return persistence.TaskCountByCandidateGroup(ctx, e.db)
}

// HistoricTaskExists reports whether task id is in history (open or
// ended), where Camunda looks for the task of a comment or attachment.
func (e *Engine) HistoricTaskExists(ctx context.Context, id string) (bool, error) {
	n, err := e.Count(ctx, HistoricTaskQuery{ID: id})
	return n > 0, err
}

// TasksWithCommentsAndAttachments tells which of the tasks ids have
// comments and which have attachments.
func (e *Engine) TasksWithCommentsAndAttachments(ctx context.Context, ids []string) (comments, attachments map[string]bool, err error) {
	return persistence.TasksWithCommentsAndAttachments(ctx, e.db, ids)
}
