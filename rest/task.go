package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The task resource: user tasks.

type taskDto struct {
	ID                  string  `json:"id"`
	Name                *string `json:"name"`
	Assignee            *string `json:"assignee"`
	Created             string  `json:"created"`
	Due                 *string `json:"due"`
	FollowUp            *string `json:"followUp"`
	FormKey             *string `json:"formKey"`
	ExecutionID         string  `json:"executionId"`
	ProcessDefinitionID string  `json:"processDefinitionId"`
	ProcessInstanceID   string  `json:"processInstanceId"`
	TaskDefinitionKey   string  `json:"taskDefinitionKey"`
	Priority            int     `json:"priority"`
	Suspended           bool    `json:"suspended"`
	TenantID            *string `json:"tenantId"`
}

// taskRoutes: user tasks: queries, completion, claiming and assignment.
func (h *Handler) taskRoutes() {
	tasks := func(r *http.Request) ([]taskDto, error) {
		q := r.URL.Query()
		tq := bpmnlite.TaskQuery{ID: q.Get("taskId"), ProcessInstanceID: q.Get("processInstanceId"),
			TaskDefinitionKey: q.Get("taskDefinitionKey"), Assignee: q.Get("assignee"), CandidateGroup: q.Get("candidateGroup"),
			CandidateUser: q.Get("candidateUser"), WithoutDueDate: q.Get("withoutDueDate") == "true"}
		p := params{q: q}
		tq.DueBefore, tq.DueAfter = p.time("dueBefore"), p.time("dueAfter")
		tq.FollowUpBefore, tq.FollowUpAfter = p.time("followUpBefore"), p.time("followUpAfter")
		tq.Priority, tq.MinPriority, tq.MaxPriority = p.int("priority"), p.int("minPriority"), p.int("maxPriority")
		if p.err != nil {
			return nil, p.err
		}
		ts, err := h.eng.Tasks(r.Context(), tq)
		out := []taskDto{}
		for _, t := range ts {
			out = append(out, taskDto{ID: t.ID, Name: optString(t.Name), Assignee: optString(t.Assignee), Created: formatTime(t.CreateTime),
				Due: formatTimePtr(t.DueDate), FollowUp: formatTimePtr(t.FollowUpDate), FormKey: optString(t.FormKey),
				ExecutionID: t.ExecutionID, ProcessDefinitionID: t.ProcessDefinitionID,
				ProcessInstanceID: t.ProcessInstanceID, TaskDefinitionKey: t.TaskDefinitionKey, Priority: t.Priority, Suspended: t.Suspension == 2})
		}
		return out, err
	}
	h.handle("GET /task", func(w http.ResponseWriter, r *http.Request) error {
		out, err := tasks(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page(r, out))
		return nil
	})
	h.handle("GET /task/count", func(w http.ResponseWriter, r *http.Request) error {
		out, err := tasks(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]int{"count": len(out)})
		return nil
	})
	h.handle("GET /task/{id}", func(w http.ResponseWriter, r *http.Request) error {
		r.URL.RawQuery = "taskId=" + r.PathValue("id")
		out, err := tasks(r)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			return &notFound{"No matching task with id " + r.PathValue("id")}
		}
		writeJSON(w, http.StatusOK, out[0])
		return nil
	})
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
