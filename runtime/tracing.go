package runtime

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// Tracing: a span per command and per job run when Config.TracerProvider
// is set. Without one, e.tracer is nil and the helpers return at once:
// callers guard the attributes they build with e.tracing(), so that an
// engine without tracing allocates nothing for it.

// tracerName names the engine's instrumentation.
const tracerName = "github.com/bpmnlite/bpmnlite"

// Attribute keys of the engine's spans.
const (
	attrDefinitionKey = attribute.Key("bpmn.process_definition_key")
	attrInstanceID    = attribute.Key("bpmn.process_instance_id")
	attrActivityID    = attribute.Key("bpmn.activity_id")
	attrJobID         = attribute.Key("bpmnlite.job.id")
	attrJobHandler    = attribute.Key("bpmnlite.job.handler")
	attrJobRetries    = attribute.Key("bpmnlite.job.retries")
	attrJobAttempt    = attribute.Key("bpmnlite.job.attempt")
	attrJobOutcome    = attribute.Key("bpmnlite.job.outcome")
	attrTaskID        = attribute.Key("bpmnlite.task.id")
	attrMessageName   = attribute.Key("bpmn.message_name")
)

// tracing reports whether the engine records spans.
func (e *Core) tracing() bool { return e.tracer != nil }

// startSpan starts span name under ctx; end records err (nil: success) and
// ends it. Without tracing it returns ctx and a no-op.
func (e *Core) startSpan(ctx context.Context, name string) (context.Context, func(err error)) {
	if e.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := e.tracer.Start(ctx, name)
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// annotate adds attributes to ctx's span; callers guard it with tracing().
func annotate(ctx context.Context, attrs ...attribute.KeyValue) {
	trace.SpanFromContext(ctx).SetAttributes(attrs...)
}

// jobRun is what a job's span says of the job, taken before it runs (a
// failure's record changes its retries and failure count).
type jobRun struct {
	job              *persistence.Job
	retries, attempt int
}

func runOf(j *persistence.Job) jobRun {
	return jobRun{job: j, retries: j.Retries, attempt: j.Failures + j.FailedAttempts + 1}
}

// attributes are the job span's attributes, with how the run ended
// (workErr), set once when the run is over: each SetAttributes call grows
// the span's attribute slice, and a job is the engine's hottest span.
func (r jobRun) attributes(workErr error) []attribute.KeyValue {
	j := r.job
	return []attribute.KeyValue{
		attrJobID.String(j.ID), attrJobHandler.String(j.HandlerType), attrActivityID.String(j.ActivityID),
		attrInstanceID.String(j.ProcessInstanceID), attrDefinitionKey.String(j.ProcessDefinitionKey),
		attrJobRetries.Int(r.retries), // left before this run
		attrJobAttempt.Int(r.attempt),
		attrJobOutcome.String(jobOutcome(workErr)),
	}
}

// jobOutcome names how a job run ended, for its span.
func jobOutcome(workErr error) string {
	switch {
	case workErr == nil:
		return "succeeded"
	case persistence.IsConflict(workErr):
		return "conflict"
	}
	return "failed"
}

// traceParentHeader is the header (extension property) of a locked
// external task that carries the trace of the step that created it.
const traceParentHeader = "traceparent"

// traceParent is ctx's span as a W3C traceparent, "" without one. It is
// kept whether or not the engine traces itself: a caller's own span
// reaches the worker too.
func traceParent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), carrier)
	return carrier[traceParentHeader]
}
