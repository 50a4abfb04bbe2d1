package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable with the PostgreSQL test database.
const EnvURL = "BPMNLITE_TEST_DATABASE_URL"

// Backend is one fresh database a test runs on.
type Backend struct {
	// Name is the subtest name: "sqlite" or "postgres".
	Name    string
	Dialect persistence.Dialect
	// URL is what Open gets: an SQLite path or ":memory:", or the PostgreSQL URL.
	URL string
	// Options are passed to Open; for PostgreSQL, Schema is the test's own.
	Options persistence.Options
}

// Open opens a handle on the backend's database, closed when the test ends.
// Handles share the database, except on ":memory:" where each is a new one.
func (b Backend) Open(t testing.TB) persistence.DB {
	t.Helper()
	db, err := persistence.Open(t.Context(), b.URL, b.Options)
	if err != nil {
		t.Fatalf("open %s test database: %v", b.Name, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close %s test database: %v", b.Name, err)
		}
	})
	return db
}

// Run runs f once per backend as subtests "sqlite" (in memory) and
// "postgres" (an empty schema), each with its own open database. Without
// BPMNLITE_TEST_DATABASE_URL the PostgreSQL half is skipped with the reason,
// or fails under CI=true.
func Run(t *testing.T, f func(t *testing.T, db persistence.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		f(t, Backend{Name: "sqlite", Dialect: persistence.SQLite, URL: ":memory:"}.Open(t))
	})
	t.Run("postgres", func(t *testing.T) {
		f(t, Postgres(t).Open(t))
	})
}

// Backends returns one fresh backend per available database: an SQLite file
// in the test's temporary directory, and an empty PostgreSQL schema when
// BPMNLITE_TEST_DATABASE_URL is set (logged when it is not; fatal under CI).
// Use it when a test needs several handles on one database.
func Backends(t testing.TB) []Backend {
	t.Helper()
	bs := []Backend{SQLiteFile(t)}
	if url := URL(t); url != "" {
		bs = append(bs, newPostgres(t, url))
	} else {
		t.Logf("PostgreSQL not tested: %s is not set", EnvURL)
	}
	return bs
}

// SQLiteFile returns an SQLite backend on a new file in t.TempDir().
func SQLiteFile(t testing.TB) Backend {
	return Backend{Name: "sqlite", Dialect: persistence.SQLite, URL: filepath.Join(t.TempDir(), "test.db")}
}

// Postgres returns a PostgreSQL backend on an empty schema of the test's
// own. Without BPMNLITE_TEST_DATABASE_URL it skips the test, or fails it
// under CI=true.
func Postgres(t testing.TB) Backend {
	t.Helper()
	url := URL(t)
	if url == "" {
		t.Skipf("PostgreSQL not tested: %s is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", EnvURL)
	}
	return newPostgres(t, url)
}

// URL returns the PostgreSQL test database URL, or "" when it is not set;
// under CI=true an unset URL fails the test.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(EnvURL)
	if url == "" && os.Getenv("CI") == "true" {
		t.Fatalf("%s must be set under CI", EnvURL)
	}
	return url
}

// Creating and dropping a migrated schema costs a few hundred milliseconds
// on PostgreSQL, so a test binary keeps the schemas of finished tests,
// emptied, for the next tests. Schemas left behind by earlier runs are
// dropped once they are an hour old.
var schemas struct {
	sync.Mutex
	idle   map[string][]string // by URL
	swept  map[string]bool
	serial int
}

const schemaPrefix = "bpmnlite_test_"

func newPostgres(t testing.TB, url string) Backend {
	t.Helper()
	schema := takeSchema(t, url)
	// Registered before any Open, so it runs after the handles are closed.
	t.Cleanup(func() { returnSchema(t, url, schema) })
	return Backend{Name: "postgres", Dialect: persistence.Postgres, URL: url, Options: persistence.Options{Schema: schema}}
}

func takeSchema(t testing.TB, url string) string {
	schemas.Lock()
	defer schemas.Unlock()
	if !schemas.swept[url] {
		sweepSchemas(t, url)
		if schemas.swept == nil {
			schemas.swept = map[string]bool{}
			schemas.idle = map[string][]string{}
		}
		schemas.swept[url] = true
	}
	if idle := schemas.idle[url]; len(idle) > 0 {
		schemas.idle[url] = idle[:len(idle)-1]
		return idle[len(idle)-1]
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schemas.serial++
	return fmt.Sprintf("%s%d_%s_%d", schemaPrefix, time.Now().Unix(), hex.EncodeToString(b[:]), schemas.serial)
}

// returnSchema empties the engine's tables and keeps the schema for the
// next test; a failed test's schema is dropped instead, in case the failure
// left it in a state the next test should not inherit.
func returnSchema(t testing.TB, url, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("clean up test schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	quoted := pgx.Identifier{schema}.Sanitize()
	if !t.Failed() {
		var b strings.Builder
		for _, tab := range persistence.Tables() {
			b.WriteString("DELETE FROM " + quoted + "." + tab.Name + ";")
		}
		for _, tab := range persistence.KeptCountTables {
			b.WriteString("DELETE FROM " + quoted + "." + tab + ";")
		}
		if _, err := conn.Exec(ctx, b.String()); err == nil {
			schemas.Lock()
			schemas.idle[url] = append(schemas.idle[url], schema)
			schemas.Unlock()
			return
		}
		// Not migrated (the test never opened it) or altered: drop it.
	}
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+quoted+" CASCADE"); err != nil {
		t.Errorf("drop test schema %s: %v", schema, err)
	}
}

// sweepSchemas drops test schemas more than an hour old: left by test
// binaries that ended, since no test runs that long.
func sweepSchemas(t testing.TB, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)", schemaPrefix)
	if err != nil {
		t.Fatalf("list test schemas: %v", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("list test schemas: %v", err)
	}
	cutoff := time.Now().Add(-time.Hour).Unix()
	for _, name := range names {
		created, _, _ := strings.Cut(strings.TrimPrefix(name, schemaPrefix), "_")
		if sec, err := strconv.ParseInt(created, 10, 64); err != nil || sec >= cutoff {
			continue
		}
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Logf("drop stale test schema %s: %v", name, err)
		}
	}
}
