package persistence

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// pgTracer makes a span of each PostgreSQL statement and pipelined batch
// (pgx's QueryTracer and BatchTracer), under the span of the context it
// runs in. The statements carry their arguments as $N parameters, so the
// query text holds no values.
type pgTracer struct{ tracer trace.Tracer }

var dbSystem = attribute.String("db.system.name", "postgresql")

func (p *pgTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx, _ = p.tracer.Start(ctx, "postgresql "+operation(data.SQL), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(dbSystem, attribute.String("db.query.text", data.SQL)))
	return ctx
}

func (p *pgTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	endSpan(trace.SpanFromContext(ctx), data.Err)
}

func (p *pgTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	ctx, _ = p.tracer.Start(ctx, "postgresql batch", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(dbSystem, attribute.Int("db.operation.batch.size", data.Batch.Len())))
	return ctx
}

func (p *pgTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	trace.SpanFromContext(ctx).AddEvent(operation(data.SQL), trace.WithAttributes(attribute.String("db.query.text", data.SQL)))
}

func (p *pgTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	endSpan(trace.SpanFromContext(ctx), data.Err)
}

func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// operation is a statement's first word (SELECT, INSERT, ...), its span's
// name with the database.
func operation(sql string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	return strings.ToUpper(word)
}
