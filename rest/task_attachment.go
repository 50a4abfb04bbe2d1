package rest

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// Task attachments, kept as history: Camunda's TaskAttachmentResource. An
// attachment is a file uploaded (content) or a link (url), created from a
// multipart form as Camunda takes it.

// attachmentJSON is an attachment as Camunda shows it; removal times are
// not kept.
var attachmentJSON = newShape[bpmnlite.TaskAttachment](`id name? taskId? description? type? url=URL? createTime
	removalTime:null rootProcessInstanceId? links:[]`)

func (h *Handler) taskAttachmentRoutes() {
	h.handle("GET /task/{id}/attachment", func(w http.ResponseWriter, r *http.Request) error {
		if !h.eng.TaskHistoryKept() {
			writeJSON(w, http.StatusOK, []any{})
			return nil
		}
		if err := h.historicTaskExists(r, http.StatusNotFound); err != nil {
			return err
		}
		attachments, err := h.eng.TaskAttachments(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, attachmentJSON.list(attachments))
		return nil
	})
	h.handle("GET /task/{id}/attachment/{attachmentId}", func(w http.ResponseWriter, r *http.Request) error {
		a, err := h.taskAttachment(r)
		if err != nil {
			return err
		}
		if a == nil {
			return &notFound{"Task attachment with id " + r.PathValue("attachmentId") + " does not exist for task id '" + r.PathValue("id") + "'."}
		}
		writeJSON(w, http.StatusOK, attachmentJSON.of(a))
		return nil
	})
	h.handle("GET /task/{id}/attachment/{attachmentId}/data", func(w http.ResponseWriter, r *http.Request) error {
		a, err := h.taskAttachment(r)
		if err != nil {
			return err
		}
		if a == nil || a.Content == nil {
			return &notFound{"Attachment content for attachment with id '" + r.PathValue("attachmentId") + "' does not exist for task id '" + r.PathValue("id") + "'."}
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, err = w.Write(a.Content)
		return err
	})
	h.handle("DELETE /task/{id}/attachment/{attachmentId}", func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		err := h.eng.DeleteTaskAttachment(r.Context(), r.PathValue("id"), r.PathValue("attachmentId"))
		if isNotFound(err) {
			return &notFound{"Deletion is not possible. No attachment exists for task id '" + r.PathValue("id") + "' and attachment id '" + r.PathValue("attachmentId") + "'."}
		}
		return taskDone(w, r, "", err)
	})
	h.handle("POST /task/{id}/attachment/create", func(w http.ResponseWriter, r *http.Request) error {
		if h.historyForbidden(w) {
			return nil
		}
		if err := h.historicTaskExists(r, http.StatusBadRequest); err != nil {
			return err
		}
		a, err := readAttachment(r)
		if err != nil {
			return err
		}
		created, err := h.eng.AddTaskAttachment(r.Context(), r.PathValue("id"), a)
		if err != nil {
			return taskError(r, "", err)
		}
		writeJSON(w, http.StatusOK, attachmentJSON.of(created).set("links", selfLink(r, h.opt.BasePath, "/task/"+created.TaskID+"/attachment/"+created.ID)))
		return nil
	})
}

// taskAttachment is attachment {attachmentId} of task {id}, nil when the
// task has no such attachment; 404 when the engine keeps no history.
func (h *Handler) taskAttachment(r *http.Request) (*bpmnlite.TaskAttachment, error) {
	if !h.eng.TaskHistoryKept() {
		return nil, &notFound{"History is not enabled"}
	}
	return findAttachment(r.Context(), h.eng, r.PathValue("id"), r.PathValue("attachmentId"))
}

func findAttachment(ctx context.Context, eng *bpmnlite.Engine, id, attachmentID string) (*bpmnlite.TaskAttachment, error) {
	all, err := eng.TaskAttachments(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, a := range all {
		if a.ID == attachmentID {
			return a, nil
		}
	}
	return nil, nil
}

// readAttachment reads Camunda's multipart form of a new attachment: the
// parts attachment-name, attachment-description, attachment-type, and
// content (a file) or url.
func readAttachment(r *http.Request) (bpmnlite.TaskAttachment, error) {
	var a bpmnlite.TaskAttachment
	mr, err := r.MultipartReader()
	if err != nil {
		return a, badRequest("an attachment is created from a multipart/form-data body: %v", err)
	}
	var hasContent, hasURL bool
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return a, badRequestOrTooBig(err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return a, badRequestOrTooBig(err)
		}
		switch p.FormName() {
		case "attachment-name":
			a.Name = string(b)
		case "attachment-description":
			a.Description = string(b)
		case "attachment-type":
			a.Type = string(b)
		case "content":
			a.Content, hasContent = b, true
		case "url":
			a.URL, hasURL = string(b), true
		}
	}
	switch {
	case !hasContent && !hasURL:
		return a, badRequest("No content or url to remote content exists to create the task attachment.")
	case hasContent:
		a.URL = "" // content wins, as in Camunda
		if a.Content == nil {
			a.Content = []byte{}
		}
	}
	return a, nil
}

// badRequestOrTooBig is a multipart body that cannot be read: too large,
// or malformed.
func badRequestOrTooBig(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	return badRequest("the multipart body cannot be read: %v", err)
}
