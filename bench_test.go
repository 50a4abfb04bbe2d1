package bpmnlite_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/bpmnlite/bpmnlite"
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
