package bpmnlite_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/metrics"
)

// BenchmarkStart starts instances of start → user task from parallel
// callers (-cpu sets their number), on SQLite, and on PostgreSQL when
// BPMNLITE_TEST_DATABASE_URL is set. cmd/bpmnbench reports the same with a
// pgbench reference; this one is for profiling.
func BenchmarkStart(b *testing.B) {
	backends := map[string]string{"sqlite": b.TempDir() + "/bench.db"}
	if url := os.Getenv("BPMNLITE_TEST_DATABASE_URL"); url != "" {
		backends["postgres"] = url
	}
	for name, url := range backends {
		b.Run(name, func(b *testing.B) {
			cfg := bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: slog.New(slog.DiscardHandler)}
			if name == "postgres" {
				cfg.Database.Schema = "bench_start"
			}
			eng, err := bpmnlite.Open(b.Context(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			if _, err := eng.Deploy(b.Context(), bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(userTaskOnly)}}}); err != nil {
				b.Fatal(err)
			}
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := eng.Start(b.Context(), bpmnlite.StartRequest{Key: "p"}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

const userTaskOnly = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" />
  </process>
</definitions>`

// BenchmarkJobsTracing runs chains of asynchronous no-op jobs on SQLite
// through a job executor that reports to the Prometheus collector, as
// serve's does, with tracing off and on (an SDK whose exporter drops the
// spans): one op is one job. Compare the pair's ns/op on a quiet machine
// (go test -run '^$' -bench JobsTracing -count 6); allocs/op do not need
// one.
func BenchmarkJobsTracing(b *testing.B) {
	for _, traced := range []bool{false, true} {
		b.Run(fmt.Sprintf("tracing=%v", traced), func(b *testing.B) {
			cfg := bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: filepath.Join(b.TempDir(), "jobs.db")}, Logger: slog.New(slog.DiscardHandler)}
			if traced {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				defer tp.Shutdown(context.Background())
				cfg.TracerProvider = tp
			}
			eng, err := bpmnlite.Open(b.Context(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			const steps = 20
			if _, err := eng.Deploy(b.Context(), bpmnlite.DeployRequest{Name: "chain", Resources: []bpmnlite.Resource{{Name: "chain.bpmn", Bytes: []byte(asyncChain(steps))}}}); err != nil {
				b.Fatal(err)
			}
			for range (b.N + steps - 1) / steps {
				if _, err := eng.Start(b.Context(), bpmnlite.StartRequest{Key: "chain"}); err != nil {
					b.Fatal(err)
				}
			}
			done := &jobCounter{all: make(chan struct{}), want: int64(b.N)}
			x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 4, Logger: slog.New(slog.DiscardHandler),
				Metrics: countingCollector{metrics.New(eng).JobExecutorMetrics(), done}}, eng)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := x.Start(b.Context()); err != nil {
				b.Fatal(err)
			}
			<-done.all
			b.StopTimer()
			_ = x.Stop(context.Background())
		})
	}
}

// asyncChain is a process of steps asynchronous no-op service tasks.
func asyncChain(steps int) string {
	var s strings.Builder
	s.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t"><process id="chain" isExecutable="true"><startEvent id="s0"/>`)
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&s, `<sequenceFlow id="f%d" sourceRef="s%d" targetRef="s%d"/><serviceTask id="s%d" camunda:asyncBefore="true" camunda:expression="${true}"/>`, i, i-1, i, i)
	}
	fmt.Fprintf(&s, `<sequenceFlow id="fEnd" sourceRef="s%d" targetRef="end"/><endEvent id="end"/></process></definitions>`, steps)
	return s.String()
}

// jobCounter closes all once want jobs have run.
type jobCounter struct {
	n, want int64
	all     chan struct{}
	once    sync.Once
}

func (c *jobCounter) ran() {
	if atomic.AddInt64(&c.n, 1) == c.want {
		c.once.Do(func() { close(c.all) })
	}
}

// countingCollector is the metrics collector (traced when the engine
// traces) that also counts the jobs run.
type countingCollector struct {
	jobexecutor.Metrics
	done *jobCounter
}

func (c countingCollector) Executed(d time.Duration) { c.Metrics.Executed(d); c.done.ran() }
func (c countingCollector) ExecutedTraced(d time.Duration, span trace.SpanContext) {
	c.Metrics.(jobexecutor.TracedMetrics).ExecutedTraced(d, span)
	c.done.ran()
}
func (c countingCollector) PickupLatencyTraced(d time.Duration, span trace.SpanContext) {
	c.Metrics.(jobexecutor.TracedMetrics).PickupLatencyTraced(d, span)
}
