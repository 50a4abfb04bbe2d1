package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/rest"
)

// HTTPOptions configure the REST backend.
type HTTPOptions struct {
	// Client sends the requests. Default: a client without timeout (long
	// polls are bounded by the server).
	Client *http.Client
	// Authorization is sent as the Authorization header when set, e.g.
	// "Bearer <token>" or "Basic <base64 user:password>".
	Authorization string
}

// HTTP is the backend of a worker talking to a Camunda 7 style REST API at
// baseURL (e.g. http://127.0.0.1:8080/engine-rest).
func HTTP(baseURL string, opt HTTPOptions) Backend {
	if opt.Client == nil {
		opt.Client = &http.Client{}
	}
	return &httpBackend{base: strings.TrimSuffix(baseURL, "/"), opt: opt}
}

type httpBackend struct {
	base string
	opt  HTTPOptions
}

// RESTError is a non-2xx reply of the REST API.
type RESTError struct {
	Status  int
	Type    string
	Message string
}

func (e *RESTError) Error() string { return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Type, e.Message) }

func (b *httpBackend) post(ctx context.Context, path string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.base+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if b.opt.Authorization != "" {
		req.Header.Set("Authorization", b.opt.Authorization)
	}
	resp, err := b.opt.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		e := &RESTError{Status: resp.StatusCode}
		if json.Unmarshal(data, e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(data))
		}
		return e
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}

type lockedTask struct {
	ID                   string                     `json:"id"`
	TopicName            string                     `json:"topicName"`
	WorkerID             string                     `json:"workerId"`
	ActivityID           string                     `json:"activityId"`
	ActivityInstanceID   string                     `json:"activityInstanceId"`
	ExecutionID          string                     `json:"executionId"`
	ProcessInstanceID    string                     `json:"processInstanceId"`
	ProcessDefinitionID  string                     `json:"processDefinitionId"`
	ProcessDefinitionKey string                     `json:"processDefinitionKey"`
	BusinessKey          string                     `json:"businessKey"`
	Priority             int64                      `json:"priority"`
	Retries              *int                       `json:"retries"`
	ErrorMessage         string                     `json:"errorMessage"`
	LockExpirationTime   string                     `json:"lockExpirationTime"`
	Variables            map[string]rest.TypedValue `json:"variables"`
	ExtensionProperties  map[string]string          `json:"extensionProperties"`
}

func (b *httpBackend) FetchAndLock(ctx context.Context, req FetchRequest) ([]*Task, error) {
	type topic struct {
		TopicName    string   `json:"topicName"`
		LockDuration int64    `json:"lockDuration"`
		Variables    []string `json:"variables,omitempty"`
		// The activity's properties and the step's traceparent come
		// as extension properties.
		IncludeExtensionProperties bool `json:"includeExtensionProperties"`
	}
	body := struct {
		WorkerID             string  `json:"workerId"`
		MaxTasks             int     `json:"maxTasks"`
		UsePriority          bool    `json:"usePriority"`
		AsyncResponseTimeout int64   `json:"asyncResponseTimeout"`
		Topics               []topic `json:"topics"`
	}{WorkerID: req.WorkerID, MaxTasks: req.MaxTasks, UsePriority: req.UsePriority, AsyncResponseTimeout: req.LongPoll.Milliseconds()}
	for _, t := range req.Topics {
		body.Topics = append(body.Topics, topic{t.Name, t.LockDuration.Milliseconds(), t.Variables, true})
	}
	var locked []lockedTask
	if err := b.post(ctx, "/external-task/fetchAndLock", body, &locked); err != nil {
		return nil, err
	}
	out := make([]*Task, 0, len(locked))
	for _, l := range locked {
		vars, err := rest.DecodePlainVariables(l.Variables)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", l.ID, err)
		}
		if vars == nil {
			vars = map[string]any{}
		}
		t := &Task{ID: l.ID, Topic: l.TopicName, WorkerID: l.WorkerID, ActivityID: l.ActivityID, ActivityInstanceID: l.ActivityInstanceID,
			ExecutionID: l.ExecutionID, ProcessInstanceID: l.ProcessInstanceID, ProcessDefinitionID: l.ProcessDefinitionID,
			ProcessDefinitionKey: l.ProcessDefinitionKey, BusinessKey: l.BusinessKey, Priority: l.Priority, Retries: l.Retries,
			ErrorMessage: l.ErrorMessage, Variables: vars, Headers: l.ExtensionProperties}
		if at, err := time.Parse("2006-01-02T15:04:05.000-0700", l.LockExpirationTime); err == nil {
			t.LockExpiration = at
		}
		out = append(out, t)
	}
	return out, nil
}

func (b *httpBackend) Complete(ctx context.Context, id, workerID string, vars map[string]any) error {
	return b.post(ctx, "/external-task/"+id+"/complete", map[string]any{"workerId": workerID, "variables": rest.EncodeVariables(vars)}, nil)
}

func (b *httpBackend) Failure(ctx context.Context, id, workerID string, f Failure) error {
	return b.post(ctx, "/external-task/"+id+"/failure", map[string]any{"workerId": workerID, "errorMessage": f.ErrorMessage,
		"errorDetails": f.ErrorDetails, "retries": f.Retries, "retryTimeout": f.RetryTimeout.Milliseconds()}, nil)
}

func (b *httpBackend) BpmnError(ctx context.Context, id, workerID string, e *BpmnError) error {
	return b.post(ctx, "/external-task/"+id+"/bpmnError", map[string]any{"workerId": workerID, "errorCode": e.Code,
		"errorMessage": e.Message, "variables": rest.EncodeVariables(e.Variables)}, nil)
}

func (b *httpBackend) ExtendLock(ctx context.Context, id, workerID string, d time.Duration) error {
	return b.post(ctx, "/external-task/"+id+"/extendLock", map[string]any{"workerId": workerID, "newDuration": d.Milliseconds()}, nil)
}
