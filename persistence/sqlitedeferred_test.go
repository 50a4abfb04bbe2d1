package persistence_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// deferredFile opens an SQLite file, a DeferredWriter.
func deferredFile(t *testing.T) (persistence.DB, persistence.DeferredWriter) {
	t.Helper()
	db, err := persistence.Open(t.Context(), filepath.Join(t.TempDir(), "deferred.db"), persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d, ok := db.(persistence.DeferredWriter)
	if !ok || !db.Capabilities().DeferredWriter {
		t.Fatal("an SQLite file is not a DeferredWriter")
	}
	return db, d
}

func beginDeferred(t *testing.T, d persistence.DeferredWriter) persistence.Tx {
	t.Helper()
	tx, err := d.BeginDeferred(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

// Until its first write a deferred transaction reads without the writer,
// and commits without it: another transaction holding the writer does not
// hold it up.
func TestDeferredTxReadsBesideTheWriter(t *testing.T) {
	db, d := deferredFile(t)
	seed := begin(t, db)
	if err := persistence.Insert(t.Context(), seed, execution("e1")); err != nil {
		t.Fatal(err)
	}
	if err := seed.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	holder := begin(t, db) // holds the writer until the test ends
	if _, err := holder.Exec(t.Context(), "UPDATE execution SET activity_id = 'held' WHERE id = 'e1'"); err != nil {
		t.Fatal(err)
	}
	tx := beginDeferred(t, d)
	if err := tx.Savepoint(t.Context(), "sp"); err != nil {
		t.Fatal(err)
	}
	got, err := persistence.GetAs[*persistence.Execution](t.Context(), tx, "e1")
	if err != nil {
		t.Fatalf("read beside the writer: %v", err)
	}
	if got.ActivityID != "" {
		t.Fatalf("read %q: a deferred transaction saw an uncommitted write", got.ActivityID)
	}
	if err := tx.RollbackTo(t.Context(), "sp"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Release(t.Context(), "sp"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatalf("commit of a transaction that wrote nothing: %v", err)
	}
	// Its first write waits for the writer, as long as the context of its
	// begin allows.
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	w, err := d.BeginDeferred(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback(context.Background())
	if err := persistence.Insert(ctx, w, execution("e2")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first write while another holds the writer: %v, want the wait to end with the context", err)
	}
}

// Savepoints taken before the first write are set when the writer is
// taken: rolling back to one undoes the writes made after it.
func TestDeferredTxSavepointsBeforeTheFirstWrite(t *testing.T) {
	db, d := deferredFile(t)
	tx := beginDeferred(t, d)
	ctx := t.Context()
	for _, name := range []string{"outer", "inner"} {
		if err := tx.Savepoint(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.RollbackTo(ctx, "outer"); err != nil { // forgets "inner"
		t.Fatal(err)
	}
	if err := tx.Release(ctx, "inner"); err == nil {
		t.Fatal("released a savepoint rolled back past")
	}
	if err := persistence.Insert(ctx, tx, execution("undone")); err != nil {
		t.Fatal(err)
	}
	if err := tx.RollbackTo(ctx, "outer"); err != nil {
		t.Fatalf("roll back to a savepoint taken before the writer: %v", err)
	}
	if err := persistence.Insert(ctx, tx, execution("kept")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Release(ctx, "outer"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := begin(t, db)
	if _, err := persistence.GetAs[*persistence.Execution](ctx, r, "kept"); err != nil {
		t.Fatalf("kept: %v", err)
	}
	if _, err := persistence.GetAs[*persistence.Execution](ctx, r, "undone"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("undone: %v, want not found", err)
	}
}

// A row read before another transaction changed it fails the deferred
// transaction's flush with an optimistic-lock error; rolled back, the
// other transaction's change stays.
func TestDeferredTxFlushChecksRevisions(t *testing.T) {
	db, d := deferredFile(t)
	ctx := t.Context()
	seed := begin(t, db)
	if err := persistence.Insert(ctx, seed, execution("e1")); err != nil {
		t.Fatal(err)
	}
	if err := seed.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx := beginDeferred(t, d)
	mine, err := persistence.GetAs[*persistence.Execution](ctx, tx, "e1")
	if err != nil {
		t.Fatal(err)
	}
	other := begin(t, db)
	theirs, err := persistence.GetAs[*persistence.Execution](ctx, other, "e1")
	if err != nil {
		t.Fatal(err)
	}
	theirs.ActivityID = "theirs"
	if err := persistence.Update(ctx, other, theirs); err != nil {
		t.Fatal(err)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	mine.ActivityID = "mine"
	err = persistence.FlushCommit(ctx, tx, []persistence.Op{{Kind: persistence.OpUpdate, Entity: mine}})
	if !persistence.IsConflict(err) {
		t.Fatalf("flush of a stale row: %v, want a conflict", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := begin(t, db)
	got, err := persistence.GetAs[*persistence.Execution](ctx, r, "e1")
	if err != nil || got.ActivityID != "theirs" {
		t.Fatalf("row after the conflict: %+v %v", got, err)
	}
}
