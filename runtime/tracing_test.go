package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// spanSeen records the span a delegate found in its context, by activity.
type spanSeen struct {
	mu   sync.Mutex
	seen map[string][]trace.SpanContext
}

func (s *spanSeen) delegate(fail bool) bpmnlite.Delegate {
	return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		s.mu.Lock()
		s.seen[ex.ActivityID()] = append(s.seen[ex.ActivityID()], trace.SpanFromContext(ctx).SpanContext())
		s.mu.Unlock()
		if fail {
			return errors.New("card declined")
		}
		return nil
	})
}

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, a := range s.Attributes() {
		m[string(a.Key)] = a.Value.Emit()
	}
	return m
}

func spansNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// With a TracerProvider every command and every job run is a span with the
// process, instance, activity and job it concerns, and delegates run under
// it; a failing job's span carries the error. On SQLite the job executor
// runs jobs in groups: each job still has its own span, its delegates'
// parent.
func TestTracing(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("traced",
		`<startEvent id="s"/><serviceTask id="check" camunda:class="check"/>`+
			`<serviceTask id="charge" camunda:asyncBefore="true" camunda:class="charge"/><endEvent id="e"/>`,
		enginetest.Chain("s", "check", "charge", "e")))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	harness.EachBackendRealTime(t, bpmnlite.Config{TracerProvider: tp}, func(t *testing.T, e *harness.Env) {
		rec.Reset()
		seen := &spanSeen{seen: map[string][]trace.SpanContext{}}
		e.Eng.RegisterDelegate("check", seen.delegate(false))
		e.Eng.RegisterDelegate("charge", seen.delegate(false))
		e.Deploy("traced", model)
		pi := e.Start("traced", nil)

		starts := spansNamed(rec, "bpmnlite.start")
		if len(starts) != 1 {
			t.Fatalf("%d start spans", len(starts))
		}
		if a := attrs(starts[0]); a["bpmn.process_definition_key"] != "traced" || a["bpmn.process_instance_id"] != pi {
			t.Errorf("start span attributes %v", a)
		}
		if got := seen.seen["check"]; len(got) != 1 || got[0].SpanID() != starts[0].SpanContext().SpanID() {
			t.Errorf("the delegate of the start ran under %v, not the start's span %v", got, starts[0].SpanContext().SpanID())
		}
		// The start's statements are spans under it, named for the backend
		// (on SQLite only the slow ones: persistence's TestSQLiteStatementSpans).
		system := map[string]string{"postgres": "postgresql", "sqlite": "sqlite"}[e.Eng.Dialect()]
		var statements int
		for _, s := range rec.Ended() {
			if attrs(s)["db.system.name"] == system && s.Parent().SpanID() == starts[0].SpanContext().SpanID() {
				statements++
				if !strings.HasPrefix(s.Name(), system+" ") || attrs(s)["db.query.text"] == "" && s.Name() != "postgresql batch" {
					t.Errorf("statement span %q %v", s.Name(), attrs(s))
				}
			}
		}
		if statements == 0 && system == "postgresql" {
			t.Errorf("%s: no statement spans under the start", e.Eng.Dialect())
		}

		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		harness.WaitFor(t, "the job ran", 10*time.Second, func() bool { return e.State(pi) == bpmnlite.StateCompleted })
		var jobs []sdktrace.ReadOnlySpan
		harness.WaitFor(t, "the job's span ended", 5*time.Second, func() bool {
			jobs = spansNamed(rec, "bpmnlite.job")
			return len(jobs) == 1
		})
		a := attrs(jobs[0])
		if a["bpmn.activity_id"] != "charge" || a["bpmn.process_instance_id"] != pi || a["bpmnlite.job.outcome"] != "succeeded" ||
			a["bpmnlite.job.id"] == "" || a["bpmnlite.job.handler"] != "async-before" || a["bpmn.process_definition_key"] != "traced" {
			t.Errorf("job span attributes %v", a)
		}
		if got := seen.seen["charge"]; len(got) != 1 || got[0].SpanID() != jobs[0].SpanContext().SpanID() {
			t.Errorf("the job's delegate ran under %v, not the job's span %v", got, jobs[0].SpanContext().SpanID())
		}
	})
}

// A failing job's span has the error status and the outcome failed; run by
// hand (ExecuteJob) it is a span too.
func TestTracingFailedJob(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("declined",
		`<startEvent id="s"/><serviceTask id="charge" camunda:asyncBefore="true" camunda:class="charge"/><endEvent id="e"/>`,
		enginetest.Chain("s", "charge", "e")))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	harness.EachBackend(t, bpmnlite.Config{TracerProvider: tp}, func(t *testing.T, e *harness.Env) {
		rec.Reset()
		seen := &spanSeen{seen: map[string][]trace.SpanContext{}}
		e.Eng.RegisterDelegate("charge", seen.delegate(true))
		e.Deploy("declined", model)
		pi := e.Start("declined", nil)
		job := e.Jobs(pi)[0]
		if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
			t.Fatal("the job did not fail")
		}
		jobs := spansNamed(rec, "bpmnlite.job")
		if len(jobs) != 1 {
			t.Fatalf("%d job spans", len(jobs))
		}
		if a := attrs(jobs[0]); a["bpmnlite.job.outcome"] != "failed" || a["bpmnlite.job.id"] != job.ID || a["bpmnlite.job.retries"] != "3" ||
			a["bpmnlite.job.attempt"] != "1" {
			t.Errorf("failed job span attributes %v", a)
		}
		// The next run is the second attempt, retries set by hand or not.
		if err := e.Eng.SetJobRetries(e.Ctx, job.ID, 5); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
			t.Fatal("the job did not fail")
		}
		if jobs = spansNamed(rec, "bpmnlite.job"); len(jobs) != 2 || attrs(jobs[1])["bpmnlite.job.attempt"] != "2" || attrs(jobs[1])["bpmnlite.job.retries"] != "5" {
			t.Errorf("second run's span: %d spans, last %v", len(jobs), attrs(jobs[len(jobs)-1]))
		}
		if st := jobs[0].Status(); st.Code.String() != "Error" || st.Description == "" {
			t.Errorf("failed job span status %v", st)
		}
	})
}
