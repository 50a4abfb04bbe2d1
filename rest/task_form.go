package rest

import (
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// Forms of tasks and start events, as Camunda's FormService answers them:
// the form (key, Camunda Form reference), the deployed form (the resource
// a form key names, or the Camunda Form a reference resolves to), the
// form variables and the submission (task_form.go for tasks;
// process_definition.go routes the start form's here).

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
		f, err := h.eng.TaskForm(r.Context(), id)
		if err != nil {
			return taskError(r, "", err)
		}
		writeJSON(w, http.StatusOK, formJSON(f, "task/"+id))
		return nil
	})
	h.handle("GET /task/{id}/deployed-form", func(w http.ResponseWriter, r *http.Request) error {
		name, content, err := h.eng.TaskDeployedForm(r.Context(), r.PathValue("id"))
		if isNotFound(err) && !strings.HasPrefix(err.Error(), "task ") {
			return &notFound{err.Error()} // the form, not the task
		}
		if err != nil {
			return taskError(r, "", err)
		}
		return writeForm(w, name, content)
	})
	h.handle("GET /task/{id}/rendered-form", func(w http.ResponseWriter, r *http.Request) error {
		html, err := h.eng.RenderedTaskForm(r.Context(), r.PathValue("id"))
		if err != nil {
			return taskError(r, "", err)
		}
		return writeRenderedForm(w, html, "No matching rendered form for task with the id "+r.PathValue("id")+" found.")
	})
	h.handle("GET /task/{id}/form-variables", func(w http.ResponseWriter, r *http.Request) error {
		deserialize, err := boolParam(r, "deserializeValues")
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		vars, err := h.eng.TaskFormVariables(r.Context(), id, variableNamesParam(r))
		if isNotFound(err) {
			return &notFound{"Cannot get form variables for task " + id + ": task " + id + " doesn't exist"}
		}
		if err != nil {
			return taskError(r, "Cannot get form variables for task "+id+": ", err)
		}
		writeJSON(w, http.StatusOK, encodeInstances(vars, deserialize))
		return nil
	}, "variableNames", "deserializeValues")
}

// formJSON is Camunda's FormDto of f: a generated form (fields, no key)
// has the key of its rendered form, as Camunda's REST API gives it.
func formJSON(f bpmnlite.Form, renderedPath string) object {
	var key, ref any
	switch {
	case f.Key != "":
		key = f.Key
	case len(f.Fields) > 0:
		key = "embedded:engine://engine/:engine/" + renderedPath + "/rendered-form"
	}
	if f.Ref != nil {
		ref = formRefJSON(f.Ref.Key, f.Ref.Binding, f.Ref.Version)
	}
	return object{{"key", key}, {"camundaFormRef", ref}, {"contextPath", nil}}
}

// formRefJSON is Camunda's CamundaFormRef (null when key is "").
func formRefJSON(key, binding string, version *int) any {
	if key == "" {
		return nil
	}
	return object{{"key", key}, {"binding", binding}, {"version", version}}
}

// writeForm answers a deployed form: a Camunda Form as JSON, others as
// XHTML, as Camunda's ContentTypeUtil.
func writeForm(w http.ResponseWriter, name string, content []byte) error {
	contentType := "application/xhtml+xml"
	if strings.HasSuffix(name, ".form") {
		contentType = "application/json"
	}
	w.Header().Set("Content-Type", contentType)
	_, err := w.Write(content)
	return err
}

// writeRenderedForm answers GET .../rendered-form: the generated form's
// HTML, or 404 with notFoundMsg when the form has no fields, as Camunda.
func writeRenderedForm(w http.ResponseWriter, html, notFoundMsg string) error {
	if html == "" {
		return &notFound{notFoundMsg}
	}
	w.Header().Set("Content-Type", "application/xhtml+xml")
	_, err := w.Write([]byte(html))
	return err
}

// variableNamesParam is the variableNames query parameter, split (nil
// when absent).
func variableNamesParam(r *http.Request) []string {
	if s := r.URL.Query().Get("variableNames"); s != "" {
		return strings.Split(s, ",")
	}
	return nil
}
