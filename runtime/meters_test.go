package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

const meteredProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="metered" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/></process>
</definitions>`

// The engine reports its meters every Config.Metrics.ReportInterval and
// once more when it closes; a negative interval keeps none.
func TestMetricsReports(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			open := func(interval time.Duration) *bpmnlite.Engine {
				eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{
					Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema},
					Logger:   slog.New(slog.DiscardHandler),
					Metrics:  bpmnlite.MetricsConfig{ReportInterval: interval},
				})
				if err != nil {
					t.Fatal(err)
				}
				return eng
			}
			rootStarts := func(eng *bpmnlite.Engine) int64 {
				n, err := eng.MetricsSum(context.Background(), bpmnlite.MetricsQuery{Name: bpmnlite.MetricRootProcessInstanceStart})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			start := func(eng *bpmnlite.Engine) {
				if _, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "metered"}); err != nil {
					t.Fatal(err)
				}
			}
			eng := open(-1)
			if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "m", Resources: []bpmnlite.Resource{{Name: "m.bpmn", Bytes: []byte(meteredProcess)}}}); err != nil {
				t.Fatal(err)
			}
			start(eng)
			eng.Close() // a negative interval: no report, not even now
			eng = open(time.Hour)
			if n := rootStarts(eng); n != 0 {
				t.Errorf("reports never: %d root starts reported, want 0", n)
			}
			start(eng)
			start(eng)
			eng.Close() // the last report, on close
			eng = open(20 * time.Millisecond)
			defer eng.Close()
			if n := rootStarts(eng); n != 2 {
				t.Errorf("reported on close: %d root starts, want 2", n)
			}
			start(eng)
			harness.WaitFor(t, "the next report", 10*time.Second, func() bool { return rootStarts(eng) == 3 })
		})
	}
}

// A job that runs counts as job-successful once its run commits; one that
// fails as job-failed.
func TestMetricsJobOutcomes(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("jobs",
		`<startEvent id="s"/><serviceTask id="work" camunda:asyncBefore="true" camunda:class="work"/><endEvent id="e"/>`,
		enginetest.Chain("s", "work", "e")))
	harness.EachBackend(t, bpmnlite.Config{Metrics: bpmnlite.MetricsConfig{ReportInterval: time.Hour}}, func(t *testing.T, e *harness.Env) {
		fail := true
		e.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			if fail {
				return errors.New("not yet")
			}
			return nil
		}))
		e.Deploy("jobs", model)
		job := e.Jobs(e.Start("jobs", nil))[0]
		if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
			t.Fatal("the job did not fail")
		}
		fail = false
		if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.ReportMetrics(e.Ctx); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]int64{bpmnlite.MetricJobSuccessful: 1, bpmnlite.MetricJobFailed: 1} {
			if n, err := e.Eng.MetricsSum(e.Ctx, bpmnlite.MetricsQuery{Name: name}); err != nil || n != want {
				t.Errorf("%s: %d, %v; want %d", name, n, err, want)
			}
		}
	})
}
