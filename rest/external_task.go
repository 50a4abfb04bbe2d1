package rest

import (
	"net/http"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The external task resource: fetch and lock (with long polling), the
// worker's reports, management and queries.

type fetchTopicDto struct {
	TopicName             string    `json:"topicName"`
	LockDuration          *int64    `json:"lockDuration"`
	Variables             *[]string `json:"variables"`
	LocalVariables        bool      `json:"localVariables"`
	BusinessKey           string    `json:"businessKey"`
	ProcessDefinitionID   string    `json:"processDefinitionId"`
	ProcessDefinitionIDIn []string  `json:"processDefinitionIdIn"`
	ProcessDefinitionKey  string    `json:"processDefinitionKey"`
	ProcessDefinitionKeys []string  `json:"processDefinitionKeyIn"`
	// IncludeExtensionProperties hands over the activity's
	// camunda:properties (Camunda's default: not).
	IncludeExtensionProperties bool `json:"includeExtensionProperties"`
	// DeserializeValues: an Object variable as its JSON document, not as
	// the document's text (Camunda's default: not).
	DeserializeValues bool `json:"deserializeValues"`
}

type fetchDto struct {
	WorkerID             string          `json:"workerId"`
	MaxTasks             *int            `json:"maxTasks"`
	UsePriority          bool            `json:"usePriority"`
	AsyncResponseTimeout *int64          `json:"asyncResponseTimeout"`
	Topics               []fetchTopicDto `json:"topics"`
}

// externalTaskMembers are the members of an external task as GET
// /external-task gives it; a fetched task has its variables too
// (lockedTaskJSON).
const externalTaskMembers = `activityId activityInstanceId errorMessage? executionId id lockExpirationTime=LockExpiration
	processDefinitionId processDefinitionKey processInstanceId retries suspended() workerId? topicName=Topic tenantId?
	priority businessKey?`

var (
	externalTaskJSON = newShape[bpmnlite.ExternalTask](externalTaskMembers)
	lockedTaskJSON   = newShape[bpmnlite.LockedExternalTask](externalTaskMembers + " errorDetails? variables:{} extensionProperties=Headers")
)

func (h *Handler) externalTaskRoutes() {
	h.externalTaskManageRoutes()
	h.handle("POST /external-task/fetchAndLock", h.fetchAndLock)
	h.handle("POST /external-task/{id}/complete", h.completeExternalTask)
	h.handle("POST /external-task/{id}/failure", h.externalTaskFailure)
	h.handle("POST /external-task/{id}/bpmnError", h.externalTaskBpmnError)
	h.handle("POST /external-task/{id}/extendLock", h.extendLock)
	h.handle("POST /external-task/{id}/lock", h.lockExternalTask)
	h.handle("POST /external-task/{id}/unlock", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.eng.UnlockExternalTask(r.Context(), r.PathValue("id")); err != nil {
			return h.externalTaskError(r, err)
		}
		return noContent(w)
	})
	h.handle("PUT /external-task/{id}/retries", func(w http.ResponseWriter, r *http.Request) error {
		retries, err := readRetries(r)
		if err != nil {
			return err
		}
		if err := h.eng.SetExternalTaskRetries(r.Context(), r.PathValue("id"), retries); err != nil {
			return h.externalTaskError(r, err)
		}
		return noContent(w)
	})
	h.handle("PUT /external-task/{id}/priority", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Priority *int64 `json:"priority"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.Priority == nil {
			return badRequest("priority is required")
		}
		if err := h.eng.SetExternalTaskPriority(r.Context(), r.PathValue("id"), *body.Priority); err != nil {
			return h.externalTaskError(r, err)
		}
		return noContent(w)
	})
	listRoutes(h, "/external-task", "param", bpmnlite.ExternalTaskQuery{}, h.eng.ExternalTasks, externalTaskJSON)
	h.handle("GET /external-task/{id}", func(w http.ResponseWriter, r *http.Request) error {
		t, err := h.externalTask(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, externalTaskJSON.of(t))
		return nil
	})
	h.handle("GET /external-task/{id}/errorDetails", func(w http.ResponseWriter, r *http.Request) error {
		t, err := h.externalTask(r)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/plain")
		_, err = w.Write([]byte(t.ErrorDetails))
		return err
	})
}

func (h *Handler) externalTask(r *http.Request) (*bpmnlite.ExternalTask, error) {
	id := r.PathValue("id")
	ts, err := h.eng.ExternalTasks(r.Context(), bpmnlite.ExternalTaskQuery{ID: id})
	return first(ts, err, "External task with id "+id+" does not exist")
}

// externalTaskError words an unknown task as Camunda does.
func (h *Handler) externalTaskError(r *http.Request, err error) error {
	if isNotFound(err) {
		return &notFound{"External task with id " + r.PathValue("id") + " does not exist"}
	}
	return err
}

func (h *Handler) fetchAndLock(w http.ResponseWriter, r *http.Request) error {
	var body fetchDto
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.WorkerID == "" {
		return badRequest("workerId is required")
	}
	if body.MaxTasks == nil || *body.MaxTasks < 0 {
		return badRequest("maxTasks is required and must not be negative")
	}
	req := bpmnlite.FetchRequest{WorkerID: body.WorkerID, MaxTasks: *body.MaxTasks, UsePriority: body.UsePriority}
	if body.AsyncResponseTimeout != nil {
		d := time.Duration(*body.AsyncResponseTimeout) * time.Millisecond
		if d < 0 || d > h.opt.MaxAsyncResponseTimeout {
			return badRequest("asyncResponseTimeout must be between 0 and %d ms", h.opt.MaxAsyncResponseTimeout.Milliseconds())
		}
		req.AsyncResponseTimeout = d
	}
	for _, t := range body.Topics {
		if t.TopicName == "" || t.LockDuration == nil || *t.LockDuration <= 0 {
			return badRequest("each topic needs a topicName and a positive lockDuration")
		}
		ft := bpmnlite.FetchTopic{Topic: t.TopicName, LockDuration: time.Duration(*t.LockDuration) * time.Millisecond,
			LocalVariables: t.LocalVariables, BusinessKey: t.BusinessKey,
			ProcessDefinitionIDs: t.ProcessDefinitionIDIn, ProcessDefinitionKeys: t.ProcessDefinitionKeys}
		if t.Variables != nil {
			ft.Variables = append([]string{}, *t.Variables...)
		}
		if t.ProcessDefinitionID != "" {
			ft.ProcessDefinitionIDs = append(ft.ProcessDefinitionIDs, t.ProcessDefinitionID)
		}
		if t.ProcessDefinitionKey != "" {
			ft.ProcessDefinitionKeys = append(ft.ProcessDefinitionKeys, t.ProcessDefinitionKey)
		}
		req.Topics = append(req.Topics, ft)
	}
	var tasks []*bpmnlite.LockedExternalTask
	if req.MaxTasks > 0 && len(req.Topics) > 0 {
		var err error
		if tasks, err = h.eng.FetchAndLock(r.Context(), req); err != nil {
			if r.Context().Err() != nil {
				return nil // the client went away while waiting
			}
			return err
		}
	}
	include, deserialize := map[string]bool{}, map[string]bool{}
	for _, t := range body.Topics {
		include[t.TopicName] = include[t.TopicName] || t.IncludeExtensionProperties
		deserialize[t.TopicName] = deserialize[t.TopicName] || t.DeserializeValues
	}
	out := lockedTaskJSON.list(tasks)
	for i, t := range tasks {
		out[i].set("variables", encodeInstances(t.VariableInstances, deserialize[t.Topic]))
		if !include[t.Topic] {
			out[i].set("extensionProperties", map[string]string{})
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) completeExternalTask(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkerID       string                `json:"workerId"`
		Variables      map[string]TypedValue `json:"variables"`
		LocalVariables map[string]TypedValue `json:"localVariables"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	local, err := DecodeVariables(body.LocalVariables)
	if err != nil {
		return err
	}
	if err := h.eng.CompleteExternalTask(r.Context(), r.PathValue("id"), body.WorkerID, vars, local); err != nil {
		return h.externalTaskError(r, err)
	}
	return noContent(w)
}

func (h *Handler) externalTaskFailure(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkerID       string                `json:"workerId"`
		ErrorMessage   string                `json:"errorMessage"`
		ErrorDetails   string                `json:"errorDetails"`
		Retries        int                   `json:"retries"` // missing: 0, an incident (as Camunda)
		RetryTimeout   int64                 `json:"retryTimeout"`
		Variables      map[string]TypedValue `json:"variables"`
		LocalVariables map[string]TypedValue `json:"localVariables"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.Retries < 0 || body.RetryTimeout < 0 {
		return badRequest("retries and retryTimeout must not be negative")
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	local, err := DecodeVariables(body.LocalVariables)
	if err != nil {
		return err
	}
	f := bpmnlite.ExternalTaskFailure{ErrorMessage: body.ErrorMessage, ErrorDetails: body.ErrorDetails,
		Retries: body.Retries, RetryTimeout: time.Duration(body.RetryTimeout) * time.Millisecond, Variables: vars, LocalVariables: local}
	if err := h.eng.HandleExternalTaskFailure(r.Context(), r.PathValue("id"), body.WorkerID, f); err != nil {
		return h.externalTaskError(r, err)
	}
	return noContent(w)
}

func (h *Handler) externalTaskBpmnError(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkerID     string                `json:"workerId"`
		ErrorCode    string                `json:"errorCode"`
		ErrorMessage string                `json:"errorMessage"`
		Variables    map[string]TypedValue `json:"variables"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.ErrorCode == "" {
		return badRequest("errorCode is required")
	}
	vars, err := DecodeVariables(body.Variables)
	if err != nil {
		return err
	}
	if err := h.eng.HandleExternalTaskBpmnError(r.Context(), r.PathValue("id"), body.WorkerID, body.ErrorCode, body.ErrorMessage, vars); err != nil {
		return h.externalTaskError(r, err)
	}
	return noContent(w)
}

func (h *Handler) extendLock(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkerID    string `json:"workerId"`
		NewDuration int64  `json:"newDuration"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.NewDuration <= 0 {
		return badRequest("newDuration must be positive")
	}
	if err := h.eng.ExtendExternalTaskLock(r.Context(), r.PathValue("id"), body.WorkerID, time.Duration(body.NewDuration)*time.Millisecond); err != nil {
		return h.externalTaskError(r, err)
	}
	return noContent(w)
}

func (h *Handler) lockExternalTask(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkerID     string `json:"workerId"`
		LockDuration int64  `json:"lockDuration"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.WorkerID == "" || body.LockDuration <= 0 {
		return badRequest("workerId and a positive lockDuration are required")
	}
	if err := h.eng.LockExternalTask(r.Context(), r.PathValue("id"), body.WorkerID, time.Duration(body.LockDuration)*time.Millisecond); err != nil {
		return h.externalTaskError(r, err)
	}
	return noContent(w)
}
