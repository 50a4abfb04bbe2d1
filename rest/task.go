package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The task resource: user tasks and standalone tasks: queries, creation
// and updates, completion, claiming, delegation, identity links, BPMN
// errors and escalations, forms, and the candidate group report. Comments
// and attachments are in task_comment.go and task_attachment.go.

// taskJSON is a task as Camunda's REST API shows it (TaskDto), with
// whether it has attachments and comments when asked
// (withCommentAttachmentInfo).
var taskJSON = newShape[taskView](`id name? assignee? created=CreateTime due=DueDate followUp=FollowUpDate lastUpdated
	delegationState? description? executionId? owner? parentTaskId? priority processDefinitionId? processInstanceId?
	taskDefinitionKey? caseExecutionId:null caseInstanceId:null caseDefinitionId:null suspended() formKey?
	camundaFormRef() tenantId? attachment! comment! variables=Variables!`)

// taskView is a task as the REST API shows it.
type taskView struct {
	*bpmnlite.Task
	Attachment, Comment *bool                  // nil unless asked for
	Variables           *map[string]TypedValue // nil unless asked for
}

// taskViews are the tasks q selects, with whether they have attachments
// and comments if q asks.
func (h *Handler) taskViews(ctx context.Context, q bpmnlite.TaskQuery) ([]*taskView, error) {
	tasks, err := h.eng.Tasks(ctx, q)
	if err != nil {
		return nil, err
	}
	views := make([]*taskView, len(tasks))
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		views[i], ids[i] = &taskView{Task: t}, t.ID
	}
	if q.WithCommentAttachmentInfo {
		comments, attachments, err := h.eng.TasksWithCommentsAndAttachments(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, v := range views {
			hasAttachment, hasComment := attachments[v.ID], comments[v.ID]
			v.Attachment, v.Comment = &hasAttachment, &hasComment
		}
	}
	if q.WithTaskVariablesInReturn || q.WithTaskLocalVariablesInReturn {
		for _, v := range views {
			vars := map[string]TypedValue{} // a standalone task has none
			if v.ExecutionID != "" {
				scope := bpmnlite.VariableScope{TaskID: v.ID, Local: !q.WithTaskVariablesInReturn}
				found, err := h.eng.ScopeVariables(ctx, scope)
				if err != nil {
					return nil, err
				}
				vars = encodeInstances(found, true)
			}
			v.Variables = &vars
		}
	}
	return views, nil
}

// taskRoutes registers the task resource.
func (h *Handler) taskRoutes() {
	listRoutes(h, "/task", "param", bpmnlite.TaskQuery{}, h.taskViews, taskJSON)
	h.handle("GET /task/{id}", h.getTask)
	h.handle("POST /task/create", h.createTask)
	h.handle("PUT /task/{id}", h.updateTask)
	h.handle("DELETE /task/{id}", func(w http.ResponseWriter, r *http.Request) error {
		return taskDone(w, r, "Could not delete task: ", h.eng.DeleteTask(r.Context(), r.PathValue("id")))
	})
	h.handle("POST /task/{id}/complete", h.completeTask("Cannot complete task %s: ", false))
	h.handle("POST /task/{id}/submit-form", h.completeTask("Cannot submit task form %s: ", true))
	h.handle("POST /task/{id}/resolve", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables map[string]TypedValue `json:"variables"`
			// Resolving answers 204 whatever it says, as Camunda's.
			WithVariablesInReturn ignored `json:"withVariablesInReturn"`
		}
		vars, err := readVariablesBody(r, &body, &body.Variables)
		if err != nil {
			return err
		}
		return taskDone(w, r, "Cannot resolve task "+r.PathValue("id")+": ", h.eng.ResolveTask(r.Context(), r.PathValue("id"), vars))
	})
	h.handle("POST /task/{id}/claim", h.assign(h.eng.ClaimTask))
	h.handle("POST /task/{id}/assignee", h.assign(h.eng.SetTaskAssignee))
	h.handle("POST /task/{id}/delegate", h.assign(h.eng.DelegateTask))
	h.handle("POST /task/{id}/unclaim", func(w http.ResponseWriter, r *http.Request) error {
		return taskDone(w, r, "", h.eng.SetTaskAssignee(r.Context(), r.PathValue("id"), ""))
	})
	h.handle("POST /task/{id}/bpmnError", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			ErrorCode    string                `json:"errorCode"`
			ErrorMessage string                `json:"errorMessage"`
			Variables    map[string]TypedValue `json:"variables"`
		}
		vars, err := readVariablesBody(r, &body, &body.Variables)
		if err != nil {
			return err
		}
		return taskDone(w, r, "", h.eng.HandleTaskBpmnError(r.Context(), r.PathValue("id"), body.ErrorCode, body.ErrorMessage, vars))
	})
	h.handle("POST /task/{id}/bpmnEscalation", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			EscalationCode string                `json:"escalationCode"`
			Variables      map[string]TypedValue `json:"variables"`
		}
		vars, err := readVariablesBody(r, &body, &body.Variables)
		if err != nil {
			return err
		}
		err = h.eng.HandleTaskEscalation(r.Context(), r.PathValue("id"), body.EscalationCode, vars)
		if errors.Is(err, bpmnlite.ErrUncaughtEscalation) {
			return &serverError{typ: "ProcessEngineException", msg: err.Error()}
		}
		return taskDone(w, r, "", err)
	})
	h.identityLinkRoutes()
	h.taskFormRoutes()
	h.handle("GET /task/report/candidate-group-count", h.candidateGroupCount)
	h.taskCommentRoutes()
	h.taskAttachmentRoutes()
}

func noMatchingTask(id string) string { return "No matching task with id " + id }

// getTask answers GET /task/{id}; withCommentAttachmentInfo adds whether
// the task has attachments and comments, withTaskVariablesInReturn and
// withTaskLocalVariablesInReturn its variables, as Camunda's query
// parameters (which its API reference leaves out) do.
func (h *Handler) getTask(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	id := r.PathValue("id")
	views, err := h.taskViews(r.Context(), bpmnlite.TaskQuery{ID: id, WithCommentAttachmentInfo: q.Get("withCommentAttachmentInfo") == "true",
		WithTaskVariablesInReturn: q.Get("withTaskVariablesInReturn") == "true", WithTaskLocalVariablesInReturn: q.Get("withTaskLocalVariablesInReturn") == "true"})
	view, err := first(views, err, noMatchingTask(id))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, taskJSON.of(view))
	return nil
}

// taskError is err of an operation on task r's {id} as Camunda reports it:
// an unknown task 404, an operation it refuses 400 (its message after
// prefix), a delegated task completed 500.
func taskError(r *http.Request, prefix string, err error) error {
	switch {
	case isNotFound(err):
		return &notFound{"Cannot find task with id " + r.PathValue("id")}
	case errors.Is(err, bpmnlite.ErrNotValid):
		return badRequest("%s%v", prefix, err)
	case errors.Is(err, bpmnlite.ErrDelegated):
		return &serverError{typ: "RestException", msg: prefix + err.Error()}
	case errors.As(err, new(*bpmnlite.FormFieldError)):
		return &requestError{msg: prefix + err.Error(), typ: "RestException"}
	case errors.Is(err, bpmnlite.ErrTaskClaimed):
		return &conflict{typ: "TaskAlreadyClaimedException", msg: err.Error()}
	}
	return err
}

// taskDone answers 204, or err as taskError reports it.
func taskDone(w http.ResponseWriter, r *http.Request, prefix string, err error) error {
	if err != nil {
		return taskError(r, prefix, err)
	}
	return noContent(w)
}

// readVariablesBody reads a JSON body into body and decodes its variables.
func readVariablesBody(r *http.Request, body any, vars *map[string]TypedValue) (map[string]any, error) {
	if err := readJSON(r, body); err != nil {
		return nil, err
	}
	return DecodeVariables(*vars)
}

// completeTask completes task {id} (submit: or resolves it when it was
// delegated, as Camunda's form submission does), answering 204, or 200
// with the process variables when withVariablesInReturn.
func (h *Handler) completeTask(prefix string, submit bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables             map[string]TypedValue `json:"variables"`
			WithVariablesInReturn bool                  `json:"withVariablesInReturn"`
		}
		vars, err := readVariablesBody(r, &body, &body.Variables)
		if err != nil {
			return err
		}
		ctx, id := r.Context(), r.PathValue("id")
		prefix := fmt.Sprintf(prefix, id)
		var pi string // whose variables come back typed, if it runs on
		if body.WithVariablesInReturn {
			if task, err := h.eng.Task(ctx, id); err == nil {
				pi = task.ProcessInstanceID
			}
		}
		var out map[string]any
		switch {
		case submit:
			out, err = h.eng.SubmitTaskForm(ctx, id, vars, body.WithVariablesInReturn)
		case body.WithVariablesInReturn:
			out, err = h.eng.CompleteTaskReturning(ctx, id, vars)
		default:
			err = h.eng.CompleteTask(ctx, id, vars)
		}
		if err != nil || !body.WithVariablesInReturn {
			return taskDone(w, r, prefix, err)
		}
		if pi != "" {
			if typed, err := h.eng.ScopeVariables(ctx, bpmnlite.VariableScope{ExecutionID: pi}); err == nil {
				writeJSON(w, http.StatusOK, encodeInstances(typed, true)) // with their declared types
				return nil
			}
		}
		writeJSON(w, http.StatusOK, EncodeVariables(out)) // as the instance ended
		return nil
	}
}

// assign answers a {"userId": ...} body with set (claim, assignee,
// delegate).
func (h *Handler) assign(set func(ctx context.Context, id, userID string) error) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			UserID string `json:"userId"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return taskDone(w, r, "", set(r.Context(), r.PathValue("id"), body.UserID))
	}
}

// taskBody is Camunda's task JSON as POST /task/create and PUT /task/{id}
// take it: the members a task's fields are set from (all of them: a
// missing one clears its field, as in Camunda); the others it shows are
// not set by them.
type taskBody struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	Description     string  `json:"description"`
	Assignee        string  `json:"assignee"`
	Owner           string  `json:"owner"`
	DelegationState string  `json:"delegationState"`
	ParentTaskID    string  `json:"parentTaskId"`
	Priority        int     `json:"priority"`
	Due             *string `json:"due"`
	FollowUp        *string `json:"followUp"`
	CaseInstanceID  *string `json:"caseInstanceId"`
	TenantID        *string `json:"tenantId"`
	// The members a task shows that no update sets: a client sends the
	// task back as it got it, and Camunda ignores them.
	CamundaFormRef      ignored `json:"camundaFormRef"`
	Created             ignored `json:"created"`
	ExecutionID         ignored `json:"executionId"`
	FormKey             ignored `json:"formKey"`
	LastUpdated         ignored `json:"lastUpdated"`
	ProcessDefinitionID ignored `json:"processDefinitionId"`
	ProcessInstanceID   ignored `json:"processInstanceId"`
	Suspended           ignored `json:"suspended"`
	TaskDefinitionKey   ignored `json:"taskDefinitionKey"`
	TaskState           ignored `json:"taskState"`
	CaseDefinitionID    ignored `json:"caseDefinitionId"`
	CaseExecutionID     ignored `json:"caseExecutionId"`
}

// fields are the task fields of b, or a 400 naming what is wrong.
func (b taskBody) fields() (bpmnlite.TaskFields, error) {
	f := bpmnlite.TaskFields{Name: b.Name, Description: b.Description, Assignee: b.Assignee, Owner: b.Owner,
		ParentTaskID: b.ParentTaskID, Priority: b.Priority}
	if b.CaseInstanceID != nil {
		return f, badRequest("bpmnlite has no case instances (CMMN): caseInstanceId must be null")
	}
	if b.TenantID != nil {
		f.TenantID = *b.TenantID
	}
	if b.DelegationState != "" {
		f.DelegationState = strings.ToUpper(b.DelegationState)
		if f.DelegationState != bpmnlite.DelegationPending && f.DelegationState != bpmnlite.DelegationResolved {
			return f, badRequest("Valid values for property 'delegationState' are 'PENDING' or 'RESOLVED', but was '%s'", b.DelegationState)
		}
	}
	for _, d := range []struct {
		name string
		text *string
		dst  **time.Time
	}{{"due", b.Due, &f.DueDate}, {"followUp", b.FollowUp, &f.FollowUpDate}} {
		if d.text == nil {
			continue
		}
		t, err := parseTime(*d.text)
		if err != nil {
			return f, badRequest("%s: %v", d.name, err)
		}
		*d.dst = &t
	}
	return f, nil
}

// createTask creates a standalone task (POST /task/create).
func (h *Handler) createTask(w http.ResponseWriter, r *http.Request) error {
	var body taskBody
	if err := readJSON(r, &body); err != nil {
		return err
	}
	f, err := body.fields()
	if err != nil {
		return err
	}
	if _, err := h.eng.CreateTask(r.Context(), body.ID, f); err != nil {
		if errors.Is(err, bpmnlite.ErrNotValid) {
			return badRequest("Could not save task: %v", err)
		}
		return err
	}
	return noContent(w)
}

// updateTask replaces a task's fields (PUT /task/{id}).
func (h *Handler) updateTask(w http.ResponseWriter, r *http.Request) error {
	var body taskBody
	if err := readJSON(r, &body); err != nil {
		return err
	}
	f, err := body.fields()
	if err != nil {
		return err
	}
	err = h.eng.UpdateTask(r.Context(), r.PathValue("id"), f)
	if isNotFound(err) {
		return &notFound{noMatchingTask(r.PathValue("id"))}
	}
	return taskDone(w, r, "", err)
}

// identityLinkJSON is an identity link as Camunda shows it.
var identityLinkJSON = newShape[bpmnlite.IdentityLink](`userId? groupId? type`)

func (h *Handler) identityLinkRoutes() {
	h.handle("GET /task/{id}/identity-links", func(w http.ResponseWriter, r *http.Request) error {
		links, err := h.eng.TaskIdentityLinks(r.Context(), r.PathValue("id"))
		if err != nil {
			return taskError(r, "", err)
		}
		var shown []*bpmnlite.IdentityLink
		for i, l := range links {
			if typ := r.URL.Query().Get("type"); typ == "" || typ == l.Type {
				shown = append(shown, &links[i])
			}
		}
		writeJSON(w, http.StatusOK, identityLinkJSON.list(shown))
		return nil
	}, "type")
	link := func(change func(ctx context.Context, id string, l bpmnlite.IdentityLink) error) func(w http.ResponseWriter, r *http.Request) error {
		return func(w http.ResponseWriter, r *http.Request) error {
			var body struct {
				UserID  *string `json:"userId"`
				GroupID *string `json:"groupId"`
				Type    string  `json:"type"`
			}
			if err := readJSON(r, &body); err != nil {
				return err
			}
			switch {
			case body.UserID != nil && body.GroupID != nil:
				return badRequest("Identity Link requires userId or groupId, but not both.")
			case body.UserID == nil && body.GroupID == nil:
				return badRequest("Identity Link requires userId or groupId.")
			}
			l := bpmnlite.IdentityLink{Type: body.Type}
			if body.UserID != nil {
				l.UserID = *body.UserID
			} else {
				l.GroupID = *body.GroupID
			}
			return taskDone(w, r, "", change(r.Context(), r.PathValue("id"), l))
		}
	}
	h.handle("POST /task/{id}/identity-links", link(h.eng.AddTaskIdentityLink))
	h.handle("POST /task/{id}/identity-links/delete", link(h.eng.DeleteTaskIdentityLink))
}

// candidateGroupCount answers the candidate group report, in JSON or, as
// the Accept header asks, CSV.
func (h *Handler) candidateGroupCount(w http.ResponseWriter, r *http.Request) error {
	counts, err := h.eng.TaskCountByCandidateGroup(r.Context())
	if err != nil {
		return err
	}
	if accept := r.Header.Get("Accept"); strings.Contains(accept, "text/csv") || strings.Contains(accept, "application/csv") {
		mediaType := "text/csv"
		if strings.Contains(accept, "application/csv") && !strings.Contains(accept, "text/csv") {
			mediaType = "application/csv"
		}
		var b strings.Builder
		b.WriteString("CANDIDATE_GROUP_NAME,TASK_COUNT")
		for _, c := range counts {
			group := c.Group
			if group == "" {
				group = "null" // as Java prints it
			}
			fmt.Fprintf(&b, "\n%s,%d", group, c.Count)
		}
		w.Header().Set("Content-Type", mediaType)
		w.Header().Set("Content-Disposition", `attachment; filename="task-count-by-candidate-group.csv"`)
		_, err := w.Write([]byte(b.String()))
		return err
	}
	out := []object{}
	for _, c := range counts {
		var group any
		if c.Group != "" {
			group = c.Group
		}
		out = append(out, object{{"groupName", group}, {"taskCount", c.Count}})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
