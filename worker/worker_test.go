package worker_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/worker"
)

const process = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <error id="e" errorCode="DECLINED"/>
  <process id="charge" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="charge"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="done"/>
    <userTask id="done"/>
    <boundaryEvent id="declined" attachedToRef="work"><errorEventDefinition errorRef="e"/></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="declined" targetRef="handle"/>
    <userTask id="handle"/>
  </process>
</definitions>`

// The same handler runs in-process and over HTTP, on both backends:
// completions with variables, BPMN errors, failures retried until they
// succeed, and a handler slower than its lock, whose lock is extended.
func TestWorker(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			eng, backends := servedEngine(t, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema}})
			for _, tc := range backends {
				t.Run(tc.name, func(t *testing.T) { runWorker(t, eng, tc.backend) })
			}
		})
	}
}

// namedBackend is one way a worker reaches the engine.
type namedBackend struct {
	name    string
	backend worker.Backend
}

// servedEngine opens an engine with cfg, serves its REST API and deploys
// the charge process; it returns the engine and the two ways a worker
// reaches it: in-process and over HTTP.
func servedEngine(t *testing.T, cfg bpmnlite.Config) (*bpmnlite.Engine, []namedBackend) {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.New(eng, rest.Options{Auth: "Bearer t0ken-t0ken-t0ken"}))
	t.Cleanup(func() {
		eng.AnswerWaitingFetches()
		srv.Close()
		_ = eng.Close()
	})
	if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "w", Resources: []bpmnlite.Resource{{Name: "charge.bpmn", Bytes: []byte(process)}}}); err != nil {
		t.Fatal(err)
	}
	return eng, []namedBackend{
		{"engine", worker.Engine(eng)},
		{"http", worker.HTTP(srv.URL+"/engine-rest", worker.HTTPOptions{Authorization: "Bearer t0ken-t0ken-t0ken"})},
	}
}

func runWorker(t *testing.T, eng *bpmnlite.Engine, backend worker.Backend) {
	var mu sync.Mutex
	calls := map[string]int{}
	w := worker.New(backend, worker.Config{Concurrency: 4, LongPoll: 2 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	w.Subscribe("charge", func(ctx context.Context, task *worker.Task) (map[string]any, error) {
		mu.Lock()
		calls[task.ProcessInstanceID]++
		n := calls[task.ProcessInstanceID]
		mu.Unlock()
		amount, _ := task.Variables["amount"].(int64)
		switch {
		case amount < 0:
			return nil, &worker.BpmnError{Code: "DECLINED", Message: "negative", Variables: map[string]any{"reason": "negative amount"}}
		case amount == 13 && n == 1:
			return nil, errors.New("unlucky the first time")
		case amount == 99:
			select { // slower than the lock: it must be extended
			case <-time.After(900 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return map[string]any{"charged": amount * 2}, nil
	}, worker.Subscription{LockDuration: 400 * time.Millisecond, RetryTimeout: 50 * time.Millisecond})

	start := func(amount int) string {
		id, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "charge", Variables: map[string]any{"amount": amount}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	var normal []string
	for i := range 6 {
		normal = append(normal, start(i+1))
	}
	declined, unlucky, slow := start(-5), start(13), start(99)

	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	waitingAt := func(pi string) string {
		tasks, err := eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil || len(tasks) != 1 {
			return ""
		}
		return tasks[0].TaskDefinitionKey
	}
	deadline := time.Now().Add(20 * time.Second)
	all := append(append([]string{}, normal...), declined, unlucky, slow)
	for _, pi := range all {
		for waitingAt(pi) == "" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop")
	}
	for i, pi := range normal {
		if at := waitingAt(pi); at != "done" {
			t.Fatalf("instance %d waits at %q, want done", i, at)
		}
		if v, _, _ := eng.Variable(t.Context(), pi, "charged"); v != int64(2*(i+1)) {
			t.Errorf("instance %d: charged = %v", i, v)
		}
	}
	if at := waitingAt(declined); at != "handle" {
		t.Errorf("declined instance waits at %q, want handle", at)
	}
	if v, _, _ := eng.Variable(t.Context(), declined, "reason"); v != "negative amount" {
		t.Errorf("reason = %v", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if at := waitingAt(unlucky); at != "done" || calls[unlucky] != 2 {
		t.Errorf("unlucky instance at %q after %d calls, want done after 2", at, calls[unlucky])
	}
	if at := waitingAt(slow); at != "done" || calls[slow] != 1 {
		t.Errorf("slow instance at %q after %d calls, want done after 1 (its lock extended)", at, calls[slow])
	}
}
