package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func countRows(t *testing.T, db persistence.DB, query string, args ...any) int {
	t.Helper()
	tx, err := db.Begin(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	rows, err := tx.Query(t.Context(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	if !rows.Next() {
		t.Fatalf("%s: no row: %v", query, rows.Err())
	}
	if err := rows.Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMigrationsIdempotent opens one database several times, at once on
// PostgreSQL, and checks that the schema was applied once.
func TestMigrationsIdempotent(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			first := b.Open(t)
			tx := begin(t, first)
			if err := persistence.Insert(t.Context(), tx, execution("survivor")); err != nil {
				t.Fatal(err)
			}
			commit(t, tx)

			var wg sync.WaitGroup
			dbs := make([]persistence.DB, 3)
			errs := make([]error, len(dbs))
			for i := range dbs {
				wg.Go(func() { dbs[i], errs[i] = persistence.Open(t.Context(), b.URL, b.Options) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("open %d: %v", i, err)
				}
				t.Cleanup(func() { dbs[i].Close() })
			}
			if n, want := countRows(t, dbs[2], "SELECT count(*) FROM bpmnlite_migration"), migrationFiles(t, b.Dialect); n != want {
				t.Errorf("%d migrations recorded, want %d", n, want)
			}
			if n := countRows(t, dbs[1], "SELECT count(*) FROM execution WHERE id = $1", "survivor"); n != 1 {
				t.Errorf("reopening lost data")
			}
		})
	}
}

// TestConcurrentMigration opens a new PostgreSQL schema from several pools
// at once: the advisory lock lets one migrate while the others wait.
func TestConcurrentMigration(t *testing.T) {
	b := testdb.Postgres(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := persistence.Open(t.Context(), b.URL, b.Options)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, want := countRows(t, b.Open(t), "SELECT count(*) FROM bpmnlite_migration"), migrationFiles(t, b.Dialect); n != want {
		t.Errorf("%d migrations recorded, want %d", n, want)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	for _, c := range []struct {
		url  string
		opts persistence.Options
		want string
	}{
		{"", persistence.Options{}, "empty database URL"},
		{":memory:", persistence.Options{Schema: "s"}, "Schema is for PostgreSQL"},
		{":memory:", persistence.Options{Synchronous: "SOMETIMES"}, `Synchronous "SOMETIMES"`},
		{t.TempDir() + "/no/such/dir/x.db", persistence.Options{}, "open SQLite"},
		{"postgres://x:y@[bad", persistence.Options{}, "PostgreSQL URL"},
	} {
		db, err := persistence.Open(ctx, c.url, c.opts)
		if err == nil {
			db.Close()
			t.Errorf("Open(%q, %+v) succeeded", c.url, c.opts)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q, %+v): %v, want %q", c.url, c.opts, err, c.want)
		}
	}
	for _, url := range []string{"sqlite::memory:", "sqlite:" + t.TempDir() + "/a.db", "file:" + t.TempDir() + "/b.db?_pragma=cache_size(-4000)"} {
		db, err := persistence.Open(ctx, url, persistence.Options{Synchronous: "full"})
		if err != nil {
			t.Errorf("Open(%q): %v", url, err)
			continue
		}
		if db.Dialect() != persistence.SQLite {
			t.Errorf("Open(%q): dialect %s", url, db.Dialect())
		}
		db.Close()
	}
}

// TestReadOnly checks that read-only transactions see committed data and
// cannot write, on both backends.
func TestReadOnly(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db := b.Open(t)
			ctx := t.Context()
			tx := begin(t, db)
			if err := persistence.Insert(ctx, tx, execution("e")); err != nil {
				t.Fatal(err)
			}
			commit(t, tx)
			// A write transaction in progress does not block readers.
			w := begin(t, db)
			if err := persistence.Insert(ctx, w, execution("uncommitted")); err != nil {
				t.Fatal(err)
			}
			ro, err := db.Begin(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Rollback(ctx)
			if !exists(t, ro, persistence.ExecutionTable, "e") || exists(t, ro, persistence.ExecutionTable, "uncommitted") {
				t.Error("read-only transaction sees the wrong rows")
			}
			if err := persistence.Insert(ctx, ro, execution("x")); err == nil {
				t.Error("insert in a read-only transaction succeeded")
			}
		})
	}
}

// TestBusy checks that a second SQLite handle waiting on the write lock
// longer than BusyTimeout fails with ErrSerialization.
func TestBusy(t *testing.T) {
	b := testdb.SQLiteFile(t)
	b.Options.BusyTimeout = 50 * time.Millisecond
	one, two := b.Open(t), b.Open(t)
	tx := begin(t, one)
	start := time.Now()
	_, err := two.Begin(t.Context(), false)
	if !errors.Is(err, persistence.ErrSerialization) {
		t.Fatalf("begin while locked: %v, want ErrSerialization", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	commit(t, tx)
	tx2, err := two.Begin(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	tx2.Rollback(t.Context())
}

// TestDeadlock checks that a PostgreSQL deadlock surfaces as ErrSerialization.
func TestDeadlock(t *testing.T) {
	db := testdb.Postgres(t).Open(t)
	ctx := t.Context()
	tx := begin(t, db)
	a, b := execution("a"), execution("b")
	for _, e := range []persistence.Entity{a, b} {
		if err := persistence.Insert(ctx, tx, e); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, tx)

	t1, t2 := begin(t, db), begin(t, db)
	for _, tx := range []persistence.Tx{t1, t2} {
		if _, err := tx.Exec(ctx, "SET LOCAL deadlock_timeout = '20ms'"); err != nil {
			t.Fatal(err)
		}
	}
	lock := func(tx persistence.Tx, id string) error {
		_, err := tx.Exec(ctx, "UPDATE execution SET rev = rev WHERE id = $1", id)
		return err
	}
	if err := lock(t1, "a"); err != nil {
		t.Fatal(err)
	}
	if err := lock(t2, "b"); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() { errs <- lock(t1, "b") }()
	go func() { errs <- lock(t2, "a") }()
	var deadlocks int
	for range 2 {
		err := <-errs
		// PostgreSQL releases the victim's locks at once, so the other goes on.
		if errors.Is(err, persistence.ErrSerialization) {
			deadlocks++
		} else if err != nil {
			t.Errorf("lock: %v", err)
		}
	}
	if deadlocks != 1 {
		t.Errorf("%d deadlocks reported, want 1", deadlocks)
	}
}

// pgxPool opens a pgx pool on the backend's schema, for the caller-side
// tests of JoinPgx and OpenPool.
func pgxPool(t *testing.T, b testdb.Backend) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = b.Options.Schema
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func TestJoinPgx(t *testing.T) {
	b := testdb.Postgres(t)
	db := b.Open(t) // migrates the schema
	pool := pgxPool(t, b)
	ctx := t.Context()

	insertOwn := func(caller pgx.Tx, id string) {
		t.Helper()
		if _, err := caller.Exec(ctx, "INSERT INTO deployment (id, deploy_time) VALUES ($1, now())", id); err != nil {
			t.Fatal(err)
		}
	}
	present := func(id string) bool {
		t.Helper()
		return countRows(t, db, "SELECT count(*) FROM deployment WHERE id = $1", id) == 1
	}
	engineInsert := func(caller pgx.Tx, id string, commitIt bool) {
		t.Helper()
		tx, err := persistence.JoinPgx(ctx, caller)
		if err != nil {
			t.Fatal(err)
		}
		if tx.Dialect() != persistence.Postgres {
			t.Errorf("dialect %s", tx.Dialect())
		}
		if err := persistence.Insert(ctx, tx, &persistence.Deployment{ID: id, DeployTime: at(0, 0)}); err != nil {
			t.Fatal(err)
		}
		end := tx.Rollback
		if commitIt {
			end = tx.Commit
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// The engine commits, the caller rolls back: nothing stays.
	caller, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	insertOwn(caller, "caller1")
	engineInsert(caller, "engine1", true)
	if err := caller.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if present("caller1") || present("engine1") {
		t.Error("rows survived the caller's rollback")
	}

	// The engine rolls back, the caller commits: only the caller's rows stay.
	caller, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	insertOwn(caller, "caller2")
	engineInsert(caller, "engine2", false)
	engineInsert(caller, "engine3", true)
	if err := caller.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !present("caller2") || present("engine2") || !present("engine3") {
		t.Errorf("after commit: caller2 %v, engine2 %v, engine3 %v; want true false true",
			present("caller2"), present("engine2"), present("engine3"))
	}
}

func TestOpenPool(t *testing.T) {
	b := testdb.Postgres(t)
	pool := pgxPool(t, b)
	ctx := t.Context()
	if _, err := persistence.OpenPool(ctx, pool, persistence.Options{Schema: "x"}); err == nil {
		t.Error("OpenPool accepted a Schema")
	}
	db, err := persistence.OpenPool(ctx, pool, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx := begin(t, db)
	if err := persistence.Insert(ctx, tx, execution("e")); err != nil {
		t.Fatal(err)
	}
	commit(t, tx)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Close left the caller's pool open.
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM execution").Scan(&n); err != nil || n != 1 {
		t.Errorf("pool after Close: %v, %d rows", err, n)
	}
}

// TestContextCancel checks that a cancelled command does not leave the
// SQLite writer connection inside a transaction.
func TestContextCancel(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx, cancel := context.WithCancel(t.Context())
		tx, err := db.Begin(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := persistence.Insert(ctx, tx, execution("cancelled")); err != nil {
			t.Fatal(err)
		}
		cancel()
		tx.Rollback(context.Background())
		tx2 := begin(t, db)
		if exists(t, tx2, persistence.ExecutionTable, "cancelled") {
			t.Error("cancelled transaction's row exists")
		}
		if err := persistence.Insert(t.Context(), tx2, execution("next")); err != nil {
			t.Fatal(err)
		}
		commit(t, tx2)
	})
}

// migrationFiles counts the migrations shipped for a dialect.
func migrationFiles(t *testing.T, d persistence.Dialect) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("migrations", string(d)))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A second process may open an SQLite file whose writer is busy: opening
// a current database takes no write lock. Its writes wait for the writer,
// and when they cannot get it in time the error says why.
func TestSQLiteSecondProcess(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shared.db")
	first, err := persistence.Open(ctx, path, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// The first process writes one transaction after another, as an
	// executor running job groups does.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			tx, err := first.Begin(ctx, false)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(50 * time.Millisecond)
			if err := tx.Commit(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	second, err := persistence.Open(ctx, path, persistence.Options{BusyTimeout: time.Second})
	close(stop)
	<-stopped
	if err != nil {
		t.Fatalf("a second process could not open the database while the first wrote: %v", err)
	}
	defer second.Close()

	held, err := first.Begin(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(ctx)
	third, err := persistence.Open(ctx, path, persistence.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if tx, err := third.Begin(ctx, false); err == nil {
		tx.Rollback(ctx)
		t.Fatal("a write transaction began while another process held the write lock")
	} else if !errors.Is(err, persistence.ErrSerialization) || !strings.Contains(err.Error(), "one process writes an SQLite file at a time") {
		t.Errorf("error %v, want ErrSerialization saying one process writes at a time", err)
	}
	if n := countRows(t, second, "SELECT COUNT(*) FROM job"); n != 0 {
		t.Errorf("reading while the first writes: %d jobs", n)
	}
}

// A file with a valid header and damaged pages: the integrity check at
// Open (and CheckSQLiteFile) finds it before anything is written.
func TestSQLiteIntegrityCheck(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "damaged.db")
	db, err := persistence.Open(ctx, path, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx := begin(t, db)
	for i := range 2000 {
		e := execution(fmt.Sprintf("x%05d", i))
		if err := persistence.Insert(ctx, tx, e); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, tx)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := persistence.CheckSQLiteFile(ctx, path); err != nil {
		t.Fatalf("a sound file: %v", err)
	}
	if _, err := persistence.Open(ctx, path, persistence.Options{IntegrityCheck: true}); err != nil {
		t.Fatalf("opening a sound file with the check: %v", err)
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	for off := int64(8192); off+4096 < info.Size(); off += 4 * 4096 { // keep the header page
		if _, err := f.WriteAt(garbage, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	if err := persistence.CheckSQLiteFile(ctx, path); !errors.Is(err, persistence.ErrCorrupt) {
		t.Errorf("check of the damaged file: %v, want ErrCorrupt", err)
	}
	if db, err := persistence.Open(ctx, path, persistence.Options{IntegrityCheck: true}); !errors.Is(err, persistence.ErrCorrupt) {
		if db != nil {
			db.Close()
		}
		t.Errorf("opening the damaged file with the check: %v, want ErrCorrupt", err)
	}
}
