package rest

import (
	"net/http"
	"strings"
)

// Task forms: bpmnlite keeps a user task's camunda:formKey (or formRef)
// as written and has no generated forms (form fields), so the form is its
// key, the deployed form the deployment's resource the key names, and no
// task has a rendered form.

func (h *Handler) taskFormRoutes() {
	h.handle("GET /task/{id}/form", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		task, err := h.eng.Task(r.Context(), id)
		if err != nil {
			return taskError(r, "", err)
		}
		if task.ExecutionID == "" {
			return badRequest("Cannot get form for task %s", id) // a standalone task has no form definition
		}
		var key any
		if task.FormKey != "" {
			key = task.FormKey
		}
		writeJSON(w, http.StatusOK, object{{"key", key}, {"camundaFormRef", nil}, {"contextPath", nil}})
		return nil
	})
	h.handle("GET /task/{id}/deployed-form", func(w http.ResponseWriter, r *http.Request) error {
		name, content, err := h.eng.TaskDeployedForm(r.Context(), r.PathValue("id"))
		switch {
		case isNotFound(err) && strings.HasPrefix(err.Error(), "The form"):
			return &notFound{err.Error()}
		case err != nil:
			return taskError(r, "", err)
		}
		contentType := "application/xhtml+xml"
		if strings.HasSuffix(name, ".form") {
			contentType = "application/json"
		}
		w.Header().Set("Content-Type", contentType)
		_, err = w.Write(content)
		return err
	})
	h.handle("GET /task/{id}/rendered-form", func(w http.ResponseWriter, r *http.Request) error {
		if _, err := h.eng.Task(r.Context(), r.PathValue("id")); err != nil {
			return taskError(r, "", err)
		}
		return &notFound{"No matching rendered form for task with the id " + r.PathValue("id") + " found."}
	})
}
