package worker_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/worker"
)

// An external task carries the trace of the step that created it (the
// traceparent header of a locked task), and the worker's handler runs in
// that trace: in-process and over HTTP, on SQLite.
func TestWorkerContinuesTheTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	eng, backends := servedEngine(t, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"},
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))})
	for _, tc := range backends {
		t.Run(tc.name, func(t *testing.T) {
			rec.Reset()
			pi, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "charge"})
			if err != nil {
				t.Fatal(err)
			}
			var start trace.SpanContext
			for _, s := range rec.Ended() {
				if s.Name() == "bpmnlite.start" {
					start = s.SpanContext()
				}
			}
			if !start.IsValid() {
				t.Fatal("no start span")
			}
			got := make(chan trace.SpanContext, 1)
			w := worker.New(tc.backend, worker.Config{LongPoll: time.Second, Logger: slog.New(slog.DiscardHandler)})
			w.Subscribe("charge", func(ctx context.Context, task *worker.Task) (map[string]any, error) {
				if task.ProcessInstanceID == pi {
					got <- trace.SpanContextFromContext(ctx)
				}
				return nil, nil
			}, worker.Subscription{})
			ctx, stop := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			defer func() { stop(); <-done }()
			select {
			case sc := <-got:
				if sc.TraceID() != start.TraceID() || sc.SpanID() != start.SpanID() || !sc.IsRemote() {
					t.Errorf("the handler ran in %v, not under the start span %v", sc, start)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the handler did not run")
			}
		})
	}
}
