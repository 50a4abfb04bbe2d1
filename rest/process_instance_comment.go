package rest

import (
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// Process instance comments (Camunda's ProcessInstanceCommentResource):
// the comments on an instance's tasks and its own, kept as history. Without
// history, the list is empty and changes are forbidden (403).

func (h *Handler) instanceCommentRoutes() {
	// instanceInHistory is nil when process instance {id} is in history.
	instanceInHistory := func(r *http.Request) error {
		id := r.PathValue("id")
		hs, err := h.eng.HistoricProcessInstances(r.Context(), bpmnlite.HistoricProcessInstanceQuery{ID: id})
		if err == nil && len(hs) == 0 {
			return &notFound{"No process instance found for id " + id}
		}
		return err
	}
	h.handle("GET /process-instance/{id}/comment", func(w http.ResponseWriter, r *http.Request) error {
		if !h.eng.TaskHistoryKept() {
			writeJSON(w, http.StatusOK, []any{})
			return nil
		}
		if err := instanceInHistory(r); err != nil {
			return err
		}
		comments, err := h.eng.ProcessInstanceComments(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, commentJSON.list(comments))
		return nil
	})
	h.handle("PUT /process-instance/{id}/comment", h.commentUpdate(instanceInHistory, h.eng.UpdateProcessInstanceComment))
	deleteComments := func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		if err := instanceInHistory(r); err != nil {
			return err
		}
		return taskDone(w, r, "", h.eng.DeleteProcessInstanceComments(r.Context(), r.PathValue("id"), r.PathValue("commentId")))
	}
	h.handle("DELETE /process-instance/{id}/comment", deleteComments)
	h.handle("DELETE /process-instance/{id}/comment/{commentId}", deleteComments)
}
