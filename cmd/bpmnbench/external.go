package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/worker"
)

// The external task suite: tasks completed per second by 4 concurrent
// workers (in-process and over HTTP), and the long-poll hand-off latency
// (task committed → a waiting worker's handler has it).

const externalBench = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="ext" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="bench"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="e"/><endEvent id="e"/>
  </process>
  <process id="handoff" isExecutable="true">
    <startEvent id="hs"/><sequenceFlow id="hf1" sourceRef="hs" targetRef="hwork"/>
    <serviceTask id="hwork" camunda:type="external" camunda:topic="handoff"/>
    <sequenceFlow id="hf2" sourceRef="hwork" targetRef="he"/><endEvent id="he"/>
  </process>
</definitions>`

func externalSuite(ctx context.Context, o options, w io.Writer) error {
	type backend struct {
		name string
		open func() (*bpmnlite.Engine, string, error) // the engine and its PostgreSQL URL
	}
	var backends []backend
	if !o.skipPG {
		backends = append(backends, backend{"postgres", func() (*bpmnlite.Engine, string, error) {
			url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench")
			if err != nil {
				return nil, "", err
			}
			eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url, MaxConns: 24}, Logger: slog.New(slog.DiscardHandler)})
			return eng, url, err
		}})
	}
	backends = append(backends, backend{"sqlite NORMAL", func() (*bpmnlite.Engine, string, error) {
		dir, err := os.MkdirTemp("", "bpmnbench")
		if err != nil {
			return nil, "", err
		}
		eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: filepath.Join(dir, "ext.db")}, Logger: slog.New(slog.DiscardHandler)})
		return eng, "", err
	}})
	fmt.Fprintf(w, "External tasks, %s per throughput figure: 4 workers, each handling up to 4 tasks at once; hand-off: one worker in its long poll, 200 tasks started one by one\n\n", o.duration)
	fmt.Fprintf(w, "%-34s %-14s %10s %14s %14s  %s\n", "scenario", "backend", "tasks/s", "hand-off p50", "hand-off p99", "note")
	for _, b := range backends {
		for _, transport := range []string{"in-process", "HTTP"} {
			eng, url, err := b.open()
			if err != nil {
				return err
			}
			load := loadNote()
			rate, p50, p99, err := measureExternal(ctx, o, eng, url, transport == "HTTP")
			eng.AnswerWaitingFetches()
			eng.Close()
			if err != nil {
				return fmt.Errorf("external tasks %s on %s: %w", transport, b.name, err)
			}
			fmt.Fprintf(w, "%-34s %-14s %10.0f %14s %14s  %s\n", "complete, "+transport, b.name, rate, ms(p50), ms(p99), load)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// measureExternal measures completions per second of 4 workers on a
// backlog of tasks, then the hand-off latency of a waiting worker.
func measureExternal(ctx context.Context, o options, eng *bpmnlite.Engine, pgURL string, overHTTP bool) (float64, time.Duration, time.Duration, error) {
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "ext", Resources: []bpmnlite.Resource{{Name: "ext.bpmn", Bytes: []byte(externalBench)}}}); err != nil {
		return 0, 0, 0, err
	}
	newBackend := func() worker.Backend { return worker.Engine(eng) }
	if overHTTP {
		srv := httptest.NewServer(rest.New(eng, rest.Options{Logger: slog.New(slog.DiscardHandler)}))
		defer srv.Close()
		newBackend = func() worker.Backend { return worker.HTTP(srv.URL+"/engine-rest", worker.HTTPOptions{}) }
	}
	// A backlog the workers cannot finish within the measurement.
	backlog := int(o.duration.Seconds() * 3000)
	if err := startMany(ctx, eng, "ext", backlog, 8); err != nil {
		return 0, 0, 0, err
	}
	if pgURL != "" {
		if err := persistence.Analyze(ctx, pgURL, "external_task"); err != nil {
			return 0, 0, 0, err
		}
	}
	var completed atomic.Int64
	// Hand-offs are timed from the start's return (its commit) to the
	// handler; a handler that ran before the start returned counts as 0.
	var handoff struct {
		sync.Mutex
		committed, handled map[string]time.Time
	}
	handoff.committed, handoff.handled = map[string]time.Time{}, map[string]time.Time{}
	handler := func(_ context.Context, t *worker.Task) (map[string]any, error) {
		if t.BusinessKey != "" {
			handoff.Lock()
			handoff.handled[t.BusinessKey] = time.Now()
			handoff.Unlock()
		}
		completed.Add(1)
		return nil, nil
	}
	runWorkers := func(topic string, n int) func() {
		runCtx, stop := context.WithCancel(ctx)
		var running sync.WaitGroup
		for i := range n {
			wk := worker.New(newBackend(), worker.Config{WorkerID: fmt.Sprint(topic, "-", i), Concurrency: 4, LongPoll: 10 * time.Second,
				Logger: slog.New(slog.DiscardHandler)})
			wk.Subscribe(topic, handler, worker.Subscription{LockDuration: time.Minute})
			running.Add(1)
			go func() {
				defer running.Done()
				_ = wk.Run(runCtx)
			}()
		}
		return func() { stop(); running.Wait() }
	}
	stop := runWorkers("bench", 4)
	time.Sleep(time.Second) // warm up
	from, t0 := completed.Load(), time.Now()
	time.Sleep(o.duration)
	rate := float64(completed.Load()-from) / time.Since(t0).Seconds()
	stop()
	// Single tasks of another topic, started one by one while one worker
	// waits in its long poll.
	stop = runWorkers("handoff", 1)
	time.Sleep(200 * time.Millisecond)
	for i := range 200 {
		key := fmt.Sprint("handoff-", i)
		if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "handoff", BusinessKey: key}); err != nil {
			stop()
			return 0, 0, 0, err
		}
		handoff.Lock()
		handoff.committed[key] = time.Now()
		handoff.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	stop()
	handoff.Lock()
	defer handoff.Unlock()
	var took []time.Duration
	for key, at := range handoff.committed {
		if h, ok := handoff.handled[key]; ok {
			took = append(took, max(h.Sub(at), 0))
		}
	}
	if len(took) < len(handoff.committed) {
		return 0, 0, 0, fmt.Errorf("%d of %d hand-off tasks were not handled", len(handoff.committed)-len(took), len(handoff.committed))
	}
	p50, p99 := percentiles(took)
	return rate, p50, p99, nil
}
