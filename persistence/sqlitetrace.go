package persistence

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// sqliteTracer makes a span of each SQLite statement (Options.
// TracerProvider), as pgTracer does of PostgreSQL's; a query's span lasts
// until its rows are closed. A nil *sqliteTracer makes none and costs a
// nil check.
type sqliteTracer struct{ tracer trace.Tracer }

var sqliteSystem = attribute.String("db.system.name", "sqlite")

func newSQLiteTracer(tp trace.TracerProvider) *sqliteTracer {
	if tp == nil {
		return nil
	}
	return &sqliteTracer{tracer: tp.Tracer("github.com/bpmnlite/bpmnlite/persistence")}
}

// start begins the span of statement query under ctx's span.
func (s *sqliteTracer) start(ctx context.Context, query string) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, "sqlite "+operation(query), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(sqliteSystem, attribute.String("db.query.text", query)))
}

// query runs q (a statement that returns rows) under a span that ends with
// the rows, or at once on error.
func (s *sqliteTracer) query(ctx context.Context, sql string, q func(context.Context) (Rows, error)) (Rows, error) {
	if s == nil {
		return q(ctx)
	}
	ctx, span := s.start(ctx, sql)
	rows, err := q(ctx)
	if err != nil {
		endSpan(span, err)
		return nil, err
	}
	if r, ok := rows.(*sqliteRows); ok {
		r.span = span
		return r, nil
	}
	return rows, nil // another transaction's rows: its own span
}

// exec runs e (a statement without rows) under a span.
func (s *sqliteTracer) exec(ctx context.Context, sql string, e func(context.Context) (int64, error)) (int64, error) {
	if s == nil {
		return e(ctx)
	}
	ctx, span := s.start(ctx, sql)
	n, err := e(ctx)
	endSpan(span, err)
	return n, err
}
