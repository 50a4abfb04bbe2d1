package worker

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Engine is the backend of a worker running in the engine's process.
func Engine(eng *bpmnlite.Engine) Backend { return engineBackend{eng} }

type engineBackend struct{ eng *bpmnlite.Engine }

func (b engineBackend) FetchAndLock(ctx context.Context, req FetchRequest) ([]*Task, error) {
	r := bpmnlite.FetchRequest{WorkerID: req.WorkerID, MaxTasks: req.MaxTasks, UsePriority: req.UsePriority, AsyncResponseTimeout: req.LongPoll}
	for _, t := range req.Topics {
		r.Topics = append(r.Topics, bpmnlite.FetchTopic{Topic: t.Name, LockDuration: t.LockDuration, Variables: t.Variables})
	}
	locked, err := b.eng.FetchAndLock(ctx, r)
	if err != nil {
		return nil, err
	}
	out := make([]*Task, len(locked))
	for i, l := range locked {
		out[i] = &Task{ID: l.ID, Topic: l.Topic, WorkerID: l.WorkerID, ActivityID: l.ActivityID, ActivityInstanceID: l.ActivityInstanceID,
			ExecutionID: l.ExecutionID, ProcessInstanceID: l.ProcessInstanceID, ProcessDefinitionID: l.ProcessDefinitionID,
			ProcessDefinitionKey: l.ProcessDefinitionKey, BusinessKey: l.BusinessKey, Priority: l.Priority, Retries: l.Retries,
			ErrorMessage: l.ErrorMessage, Variables: l.Variables, Headers: l.Headers}
		if l.LockExpiration != nil {
			out[i].LockExpiration = *l.LockExpiration
		}
	}
	return out, nil
}

func (b engineBackend) Complete(ctx context.Context, id, workerID string, vars map[string]any) error {
	return b.eng.CompleteExternalTask(ctx, id, workerID, vars, nil)
}

func (b engineBackend) Failure(ctx context.Context, id, workerID string, f Failure) error {
	return b.eng.HandleExternalTaskFailure(ctx, id, workerID, bpmnlite.ExternalTaskFailure{
		ErrorMessage: f.ErrorMessage, ErrorDetails: f.ErrorDetails, Retries: f.Retries, RetryTimeout: f.RetryTimeout})
}

func (b engineBackend) BpmnError(ctx context.Context, id, workerID string, e *BpmnError) error {
	return b.eng.HandleExternalTaskBpmnError(ctx, id, workerID, e.Code, e.Message, e.Variables)
}

func (b engineBackend) ExtendLock(ctx context.Context, id, workerID string, d time.Duration) error {
	return b.eng.ExtendExternalTaskLock(ctx, id, workerID, d)
}
