package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The task resource: user tasks.

// taskJSON is a user task as Camunda's REST API shows it.
var taskJSON = newShape[bpmnlite.Task](`id name? assignee? created=CreateTime due=DueDate followUp=FollowUpDate formKey?
	executionId processDefinitionId processInstanceId taskDefinitionKey priority suspended() tenantId?`)

// taskRoutes: user tasks: queries, completion, claiming and assignment.
func (h *Handler) taskRoutes() {
	listRoutes(h, "/task", "param", bpmnlite.TaskQuery{}, h.eng.Tasks, taskJSON)
	byIDRoute(h, "/task", func(ctx context.Context, id string) ([]*bpmnlite.Task, error) {
		return h.eng.Tasks(ctx, bpmnlite.TaskQuery{ID: id})
	},
		taskJSON, func(id string) string { return "No matching task with id " + id })
	taskError := func(r *http.Request, err error) error {
		if isNotFound(err) {
			return &notFound{"Cannot find task with id " + r.PathValue("id")}
		}
		return err
	}
	h.handle("POST /task/{id}/complete", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Variables map[string]TypedValue `json:"variables"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		vars, err := DecodeVariables(body.Variables)
		if err != nil {
			return err
		}
		if err := h.eng.CompleteTask(r.Context(), r.PathValue("id"), vars); err != nil {
			return taskError(r, err)
		}
		return noContent(w)
	})
	assign := func(claim bool) func(w http.ResponseWriter, r *http.Request) error {
		return func(w http.ResponseWriter, r *http.Request) error {
			var body struct {
				UserID string `json:"userId"`
			}
			if err := readJSON(r, &body); err != nil {
				return err
			}
			var err error
			if claim {
				err = h.eng.ClaimTask(r.Context(), r.PathValue("id"), body.UserID)
			} else {
				err = h.eng.SetTaskAssignee(r.Context(), r.PathValue("id"), body.UserID)
			}
			if errors.Is(err, bpmnlite.ErrTaskClaimed) {
				return &conflict{typ: "TaskAlreadyClaimedException", msg: err.Error()}
			}
			if err != nil {
				return taskError(r, err)
			}
			return noContent(w)
		}
	}
	h.handle("POST /task/{id}/claim", assign(true))
	h.handle("POST /task/{id}/assignee", assign(false))
	h.handle("POST /task/{id}/unclaim", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.SetTaskAssignee(r.Context(), r.PathValue("id"), ""); err != nil {
			return taskError(r, err)
		}
		return noContent(w)
	})
}
