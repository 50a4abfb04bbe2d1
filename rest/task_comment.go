package rest

import (
	"context"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// Task comments, kept as history: Camunda's TaskCommentResource. Without
// history, lists are empty and changes are forbidden (403), as in Camunda.

// commentJSON is a comment as Camunda shows it; removal times are not kept.
var commentJSON = newShape[bpmnlite.TaskComment](`links:[] id userId? taskId? processInstanceId? time message?
	removalTime:null rootProcessInstanceId?`)

func (h *Handler) taskCommentRoutes() {
	h.handle("GET /task/{id}/comment", func(w http.ResponseWriter, r *http.Request) error {
		if !h.eng.TaskHistoryKept() {
			writeJSON(w, http.StatusOK, []any{})
			return nil
		}
		if err := h.historicTaskExists(r, http.StatusNotFound); err != nil {
			return err
		}
		comments, err := h.eng.TaskComments(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, commentJSON.list(comments))
		return nil
	})
	h.handle("GET /task/{id}/comment/{commentId}", func(w http.ResponseWriter, r *http.Request) error {
		if !h.eng.TaskHistoryKept() {
			return &notFound{"History is not enabled"}
		}
		comment, err := h.taskComment(r.Context(), r.PathValue("id"), r.PathValue("commentId"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, commentJSON.of(comment))
		return nil
	})
	h.handle("POST /task/{id}/comment/create", func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		if err := h.historicTaskExists(r, http.StatusBadRequest); err != nil {
			return err
		}
		var body struct {
			Message           *string `json:"message"`
			ProcessInstanceID string  `json:"processInstanceId"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Message == nil {
			return badRequest("Not enough parameters submitted")
		}
		comment, err := h.eng.AddTaskComment(r.Context(), r.PathValue("id"), body.ProcessInstanceID, "", *body.Message)
		if err != nil {
			return taskError(r, "", err)
		}
		writeJSON(w, http.StatusOK, commentJSON.of(comment).set("links", selfLink(r, h.opt.BasePath, "/task/"+comment.TaskID+"/comment/"+comment.ID)))
		return nil
	})
	taskInHistory := func(r *http.Request) error { return h.historicTaskExists(r, http.StatusNotFound) }
	h.handle("PUT /task/{id}/comment", h.commentUpdate(taskInHistory, h.eng.UpdateTaskComment))
	deleteComments := func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		if err := h.historicTaskExists(r, http.StatusNotFound); err != nil {
			return err
		}
		err := h.eng.DeleteTaskComments(r.Context(), r.PathValue("id"), r.PathValue("commentId"))
		if isNotFound(err) { // in history only: Camunda's NullValueException
			return badRequest("No task exists with taskId: %s", r.PathValue("id"))
		}
		return taskDone(w, r, "", err)
	}
	h.handle("DELETE /task/{id}/comment", deleteComments)
	h.handle("DELETE /task/{id}/comment/{commentId}", deleteComments)
}

// commentUpdate answers PUT .../comment of a comment's owner ({id}): the
// body's comment id and message, the owner checked by exists (history kept,
// else 403), the change made by update.
func (h *Handler) commentUpdate(exists func(*http.Request) error, update func(ctx context.Context, id, commentID, message string) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		if err := exists(r); err != nil {
			return err
		}
		var body struct {
			ID      string  `json:"id"`
			Message *string `json:"message"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		switch {
		case body.ID == "":
			return badRequest("commentId is null")
		case body.Message == nil:
			return badRequest("message is null")
		}
		return taskDone(w, r, "", update(r.Context(), r.PathValue("id"), body.ID, *body.Message))
	}
}

// taskComment is comment commentID of task id, or Camunda's 404.
func (h *Handler) taskComment(ctx context.Context, id, commentID string) (*bpmnlite.TaskComment, error) {
	comments, err := h.eng.TaskComments(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, c := range comments {
		if c.ID == commentID {
			return c, nil
		}
	}
	return nil, &notFound{"Task comment with id " + commentID + " does not exist for task id '" + id + "'."}
}

// historyForbidden answers 403 when the engine keeps no history, where
// Camunda refuses to change comments and attachments.
func (h *Handler) historyForbidden(w http.ResponseWriter) bool {
	if h.eng.TaskHistoryKept() {
		return false
	}
	writeError(w, http.StatusForbidden, "InvalidRequestException", "History is not enabled")
	return true
}

// historicTaskExists is nil when task r's {id} is in history, or the error
// of status Camunda answers otherwise.
func (h *Handler) historicTaskExists(r *http.Request, status int) error {
	ok, err := h.eng.HistoricTaskExists(r.Context(), r.PathValue("id"))
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case status == http.StatusNotFound:
		return &notFound{"No task found for task id " + r.PathValue("id")}
	}
	return badRequest("No task found for task id %s", r.PathValue("id"))
}

// selfLink is the links member of a created resource at path.
func selfLink(r *http.Request, basePath, path string) []object {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return []object{{{"method", "GET"}, {"href", scheme + "://" + r.Host + basePath + path}, {"rel", "self"}}}
}
