package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"
)

// Task is a locked external task handed to a handler.
type Task struct {
	ID                   string
	Topic                string
	WorkerID             string
	ActivityID           string
	ActivityInstanceID   string
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	BusinessKey          string
	Priority             int64
	Retries              *int // nil until the first failure
	ErrorMessage         string
	LockExpiration       time.Time
	Variables            map[string]any
	Headers              map[string]string // the activity's camunda:properties
}

// Handler does a task's work. A nil error completes the task with the
// returned variables; a *BpmnError throws a business error from the task;
// any other error is a failure, retried as the subscription says. A value
// wrapped by bpmnlite.Transient is a transient variable, in-process and
// over HTTP alike.
type Handler func(ctx context.Context, t *Task) (map[string]any, error)

// BpmnError is a business error a handler returns: error boundary events
// with its code catch it.
type BpmnError struct {
	Code      string
	Message   string
	Variables map[string]any
}

func (e *BpmnError) Error() string { return fmt.Sprintf("BPMN error %s: %s", e.Code, e.Message) }

// Backend is where tasks come from: an engine in-process, or a REST API.
type Backend interface {
	FetchAndLock(ctx context.Context, req FetchRequest) ([]*Task, error)
	Complete(ctx context.Context, id, workerID string, vars map[string]any) error
	Failure(ctx context.Context, id, workerID string, f Failure) error
	BpmnError(ctx context.Context, id, workerID string, e *BpmnError) error
	ExtendLock(ctx context.Context, id, workerID string, d time.Duration) error
}

// FetchRequest is one fetch for a worker.
type FetchRequest struct {
	WorkerID    string
	MaxTasks    int
	LongPoll    time.Duration
	UsePriority bool
	Topics      []Topic
}

// Topic is a topic a worker fetches, with its lock duration and the
// variables its handler needs (nil: all).
type Topic struct {
	Name         string
	LockDuration time.Duration
	Variables    []string
}

// Failure is a failed run reported to the engine.
type Failure struct {
	ErrorMessage string
	ErrorDetails string
	Retries      int
	RetryTimeout time.Duration
}

// Config configures a worker. Zero values take the defaults named.
type Config struct {
	// WorkerID names the worker in locks. Default "worker-<random>".
	WorkerID string
	// Concurrency is how many handlers run at once. Default 4.
	Concurrency int
	// LongPoll is how long a fetch waits for tasks. Default 30s.
	LongPoll time.Duration
	// UsePriority fetches the highest priority first.
	UsePriority bool
	// Backoff after a failed fetch, doubling up to MaxBackoff. Defaults 1s, 30s.
	Backoff, MaxBackoff time.Duration
	Logger              *slog.Logger
}

// Subscription options of one topic.
type Subscription struct {
	// LockDuration of fetched tasks; the lock is extended at half of it
	// while the handler runs. Default 1 minute.
	LockDuration time.Duration
	// Variables to fetch (nil: all).
	Variables []string
	// Retries a task gets at its first failure (then one less each time;
	// at 0 an incident). Default 3.
	Retries int
	// RetryTimeout before a failed task is fetched again. Default 10s.
	RetryTimeout time.Duration
}

type subscription struct {
	Subscription
	topic   string
	handler Handler
}

// Worker runs handlers for the topics it subscribed to.
type Worker struct {
	b    Backend
	cfg  Config
	mu   sync.Mutex
	subs map[string]*subscription
}

// New returns a worker on backend b.
func New(b Backend, cfg Config) *Worker {
	if cfg.WorkerID == "" {
		cfg.WorkerID = fmt.Sprintf("worker-%d", time.Now().UnixNano())
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.LongPoll <= 0 {
		cfg.LongPoll = 30 * time.Second
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Worker{b: b, cfg: cfg, subs: map[string]*subscription{}}
}

// Subscribe runs h for the tasks of topic. Subscribe before Run.
func (w *Worker) Subscribe(topic string, h Handler, s Subscription) {
	if s.LockDuration <= 0 {
		s.LockDuration = time.Minute
	}
	if s.Retries <= 0 {
		s.Retries = 3
	}
	if s.RetryTimeout <= 0 {
		s.RetryTimeout = 10 * time.Second
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.subs[topic] = &subscription{Subscription: s, topic: topic, handler: h}
}

// Run fetches and handles tasks until ctx ends, then waits for the
// handlers running (they see ctx end too, and their outcome is reported
// with a context of its own).
func (w *Worker) Run(ctx context.Context) error {
	w.mu.Lock()
	req := FetchRequest{WorkerID: w.cfg.WorkerID, LongPoll: w.cfg.LongPoll, UsePriority: w.cfg.UsePriority}
	for _, s := range w.subs {
		req.Topics = append(req.Topics, Topic{Name: s.topic, LockDuration: s.LockDuration, Variables: s.Variables})
	}
	w.mu.Unlock()
	if len(req.Topics) == 0 {
		return errors.New("worker: no topic subscribed")
	}
	slots := make(chan struct{}, w.cfg.Concurrency)
	var running sync.WaitGroup
	defer running.Wait()
	backoff := w.cfg.Backoff
	for ctx.Err() == nil {
		// Fetch only as many tasks as there are free handler slots.
		slots <- struct{}{}
		free := 1
	fill:
		for free < w.cfg.Concurrency {
			select {
			case slots <- struct{}{}:
				free++
			default:
				break fill
			}
		}
		req.MaxTasks = free
		tasks, err := w.b.FetchAndLock(ctx, req)
		for range free - len(tasks) {
			<-slots
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			w.cfg.Logger.Warn("fetching external tasks failed; backing off", "worker", w.cfg.WorkerID, "backoff", backoff, "error", err)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			backoff = min(2*backoff, w.cfg.MaxBackoff)
			continue
		}
		backoff = w.cfg.Backoff
		for _, t := range tasks {
			running.Add(1)
			go func() {
				defer running.Done()
				defer func() { <-slots }()
				w.handle(ctx, t)
			}()
		}
	}
	return nil
}

// withTrace continues in ctx the trace of the step that created t (its
// traceparent header): spans the handler makes are that step's children.
func withTrace(ctx context.Context, t *Task) context.Context {
	if t.Headers["traceparent"] == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier(t.Headers))
}

// handle runs the handler of t with its lock extended and reports the outcome.
func (w *Worker) handle(ctx context.Context, t *Task) {
	w.mu.Lock()
	s := w.subs[t.Topic]
	w.mu.Unlock()
	if s == nil {
		return
	}
	hctx, cancel := context.WithCancel(ctx)
	extended := make(chan struct{})
	go func() {
		defer close(extended)
		tick := time.NewTicker(s.LockDuration / 2)
		defer tick.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-tick.C:
				if err := w.b.ExtendLock(hctx, t.ID, w.cfg.WorkerID, s.LockDuration); err != nil && hctx.Err() == nil {
					w.cfg.Logger.Warn("extending an external task's lock failed", "task", t.ID, "error", err)
				}
			}
		}
	}()
	vars, err := w.run(withTrace(hctx, t), s, t)
	cancel()
	<-extended
	report, done := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer done()
	var bpmnErr *BpmnError
	switch {
	case err == nil:
		err = w.b.Complete(report, t.ID, w.cfg.WorkerID, vars)
	case errors.As(err, &bpmnErr):
		err = w.b.BpmnError(report, t.ID, w.cfg.WorkerID, bpmnErr)
	default:
		retries := s.Retries - 1
		if t.Retries != nil {
			retries = *t.Retries - 1
		}
		err = w.b.Failure(report, t.ID, w.cfg.WorkerID, Failure{ErrorMessage: err.Error(), Retries: max(retries, 0), RetryTimeout: s.RetryTimeout})
	}
	if err != nil {
		w.cfg.Logger.Warn("reporting an external task failed", "task", t.ID, "topic", t.Topic, "error", err)
	}
}

// run calls the handler, turning a panic into a failure.
func (w *Worker) run(ctx context.Context, s *subscription, t *Task) (vars map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return s.handler(ctx, t)
}
