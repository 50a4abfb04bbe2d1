package persistence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openSQLiteFile(t *testing.T) (DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wal.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

// The checkpointer copies committed pages from the WAL into the database
// file long before the WAL reaches the writer's own checkpoint threshold.
func TestSQLiteCheckpointsInTheBackground(t *testing.T) {
	db, path := openSQLiteFile(t)
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	// About 400 pages of 4 KiB: a tenth of the writer's threshold.
	blob := strings.Repeat("x", 4000)
	for i := range 400 {
		tx, err := db.Begin(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(t.Context(), "INSERT INTO deployment (id, name, source, deploy_time) VALUES ($1, $2, '', 0)", string(rune('a'+i%26))+time.Now().Format(time.RFC3339Nano), blob); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for size() < before+400*4096 {
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes after 400 commits of 4 KB (%d before): the WAL was not checkpointed", size(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Cancelling the context of a write transaction fails its next statement
// and rolls it back at once, releasing the one writer even while the
// transaction is idle.
func TestSQLiteCancelRollsBackWriteTransaction(t *testing.T) {
	db, _ := openSQLiteFile(t)
	ctx, cancel := context.WithCancel(t.Context())
	tx, err := db.Begin(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO deployment (id, name, source, deploy_time) VALUES ('d1', 'one', '', 0)"); err != nil {
		t.Fatal(err)
	}
	cancel()
	// The writer is free again without the cancelled transaction ending.
	wctx, wcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer wcancel()
	other, err := db.Begin(wctx, false)
	if err != nil {
		t.Fatalf("begin after the cancelled transaction: %v", err)
	}
	var n int
	rows, err := other.Query(wctx, "SELECT count(*) FROM deployment WHERE id = 'd1'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	if err := other.Rollback(wctx); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("the cancelled transaction's insert is visible")
	}
	if _, err := tx.Exec(t.Context(), "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("statement after cancel: %v, want context.Canceled", err)
	}
	if err := tx.Commit(t.Context()); err == nil {
		t.Fatal("commit after cancel succeeded")
	}
}

// A transaction waiting for the one writer gives up when its context ends.
func TestSQLiteBeginWaitsForTheWriterUntilItsContextEnds(t *testing.T) {
	db, _ := openSQLiteFile(t)
	held, err := db.Begin(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		tx, err := db.Begin(ctx, false)
		if err == nil {
			tx.Rollback(context.Background())
		}
		got <- err
	}()
	select {
	case err := <-got:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("begin while the writer is held: %v, want the deadline exceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("begin still waiting for the writer 5 s after its context ended")
	}
}
