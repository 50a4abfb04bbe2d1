package persistence_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Options.Existing neither creates nor migrates: a missing SQLite file and
// a database without the current schema are errors, and leave nothing.
func TestOpenExisting(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := persistence.Open(ctx, missing, persistence.Options{Existing: true}); err == nil {
		t.Fatal("opened a missing file")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the missing file was created")
	}
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := persistence.Open(ctx, empty, persistence.Options{Existing: true}); !errors.Is(err, persistence.ErrSchema) {
		t.Fatalf("an empty file: %v, want ErrSchema", err)
	}
	db, err := persistence.Open(ctx, empty, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = persistence.Open(ctx, empty, persistence.Options{Existing: true})
	if err != nil {
		t.Fatalf("a migrated file: %v", err)
	}
	db.Close()

	url := testdb.URL(t)
	if url == "" {
		return
	}
	schema := fmt.Sprintf("bpmnlite_existing_%d", time.Now().UnixNano())
	if _, err := persistence.Open(ctx, url, persistence.Options{Schema: schema, Existing: true}); !errors.Is(err, persistence.ErrSchema) {
		t.Fatalf("a new PostgreSQL schema: %v, want ErrSchema", err)
	}
	db, err = persistence.Open(ctx, url, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, "SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Errorf("schema %s was created", schema)
	}
}
