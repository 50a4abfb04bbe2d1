package persistence_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// An SQLite statement is a span under its caller's span only when it was
// slow or failed: a quick one (most of them, a few microseconds) is not
// worth a span's cost. A query's time runs until its rows are closed.
func TestSQLiteStatementSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	b := testdb.SQLiteFile(t)
	b.Options.TracerProvider = tp
	db := b.Open(t)
	ctx, parent := tp.Tracer("test").Start(t.Context(), "caller")
	defer parent.End()
	spanOf := func(query string) (sdktrace.ReadOnlySpan, bool) {
		for _, s := range rec.Ended() {
			for _, a := range s.Attributes() {
				if a.Key == "db.query.text" && a.Value.AsString() == query {
					return s, true
				}
			}
		}
		return nil, false
	}
	run := func(query string) error {
		tx, err := db.Begin(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(context.Background())
		rows, err := tx.Query(ctx, query)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		return nil
	}
	persistence.SetSlowStatement(t, time.Hour) // every statement is quick
	if err := run("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := spanOf("SELECT 1"); ok {
		t.Error("a quick statement has a span")
	}
	if err := run("SELECT * FROM nowhere"); err == nil {
		t.Fatal("a query of no table ran")
	}
	if s, ok := spanOf("SELECT * FROM nowhere"); !ok || s.Status().Code != codes.Error {
		t.Errorf("the failed statement's span: %v %v", ok, s)
	}
	persistence.SetSlowStatement(t, 0) // every statement is slow
	if err := run("SELECT 2"); err != nil {
		t.Fatal(err)
	}
	s, ok := spanOf("SELECT 2")
	if !ok {
		t.Fatalf("the slow statement has no span (spans: %d)", len(rec.Ended()))
	}
	if s.Name() != "sqlite SELECT" || s.Parent().SpanID() != parent.SpanContext().SpanID() || s.EndTime().Before(s.StartTime()) {
		t.Errorf("slow statement span %q under %v, from %v to %v", s.Name(), s.Parent().SpanID(), s.StartTime(), s.EndTime())
	}
}
