package persistence

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// sqliteTracer records SQLite statements on the trace of the command or
// job that runs them (Options.TracerProvider), as pgTracer does
// PostgreSQL's. A PostgreSQL statement is a round trip; an SQLite one is a
// function call of microseconds, and a span each cost a fifth of the job
// throughput (docs/benchmarks.md, issue 28). So a statement becomes a
// client span only when it failed or took slowStatement or longer (a
// query: until its rows were read), with its own start and end times.
// A nil *sqliteTracer makes none and costs a nil check.
type sqliteTracer struct{ tracer trace.Tracer }

// slowStatement is the run time from which an SQLite statement is worth a
// span: ten times what the engine's usual statements take. (A variable
// for the tests.)
var slowStatement = 200 * time.Microsecond

var sqliteSystem = attribute.String("db.system.name", "sqlite")

func newSQLiteTracer(tp trace.TracerProvider) *sqliteTracer {
	if tp == nil {
		return nil
	}
	return &sqliteTracer{tracer: tp.Tracer("github.com/bpmnlite/bpmnlite/persistence")}
}

// statement is one traced statement while it runs.
type statement struct {
	ctx   context.Context
	query string
	began time.Time
}

// done records s, ended now with err, as a span under its context's span
// when it failed or was slow.
func (s *sqliteTracer) done(st statement, err error) {
	end := time.Now()
	if err == nil && end.Sub(st.began) < slowStatement {
		return
	}
	_, span := s.tracer.Start(st.ctx, "sqlite "+operation(st.query), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(st.began), trace.WithAttributes(sqliteSystem, attribute.String("db.query.text", st.query)))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End(trace.WithTimestamp(end))
}

// query runs q (a statement that returns rows), recorded when its rows are
// closed, or at once on error.
func (s *sqliteTracer) query(ctx context.Context, sql string, q func(context.Context) (Rows, error)) (Rows, error) {
	if s == nil {
		return q(ctx)
	}
	st := statement{ctx, sql, time.Now()}
	rows, err := q(ctx)
	if err != nil {
		s.done(st, err)
		return nil, err
	}
	if r, ok := rows.(*sqliteRows); ok {
		r.traced, r.statement = s, st
	}
	return rows, nil
}

// exec runs e (a statement without rows) and records it.
func (s *sqliteTracer) exec(ctx context.Context, sql string, e func(context.Context) (int64, error)) (int64, error) {
	if s == nil {
		return e(ctx)
	}
	st := statement{ctx, sql, time.Now()}
	n, err := e(ctx)
	s.done(st, err)
	return n, err
}
