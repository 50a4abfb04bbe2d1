package persistence

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
)

// Statements of the project's tools (cmd/bpmnbench, cmd/bpmnchaos), kept
// here with every other statement: administration of the PostgreSQL
// databases they make, and the reference transaction the benchmark
// compares the engine with.

var databaseName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// CreateDatabase creates PostgreSQL database name (dropping it first when
// fresh is set) through the server adminURL points to, and returns its URL.
func CreateDatabase(ctx context.Context, adminURL, name string, fresh bool) (string, error) {
	if !databaseName.MatchString(name) {
		return "", fmt.Errorf("persistence: database name %q: want lower-case letters, digits and _", name)
	}
	if fresh {
		if err := DropDatabase(ctx, adminURL, name); err != nil {
			return "", err
		}
	}
	if err := adminExec(ctx, adminURL, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name), nil
}

// DropDatabase drops PostgreSQL database name, closing its connections.
func DropDatabase(ctx context.Context, adminURL, name string) error {
	if !databaseName.MatchString(name) {
		return fmt.Errorf("persistence: database name %q: want lower-case letters, digits and _", name)
	}
	return adminExec(ctx, adminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

// Checkpoint makes the PostgreSQL server write a checkpoint now, so that a
// measurement starts on a clean slate.
func Checkpoint(ctx context.Context, adminURL string) error {
	return adminExec(ctx, adminURL, "CHECKPOINT")
}

// adminExec runs one statement on a connection of its own to adminURL.
// Analyze refreshes a table's planner statistics on PostgreSQL, as a DBA
// would after a bulk load: a benchmark loads its backlog faster than
// autovacuum notices.
func Analyze(ctx context.Context, url, table string) error {
	return adminExec(ctx, url, "ANALYZE "+pgx.Identifier{table}.Sanitize())
}

// DropSchema drops a PostgreSQL schema and everything in it (test
// engines of their own schema clean up with it).
func DropSchema(ctx context.Context, url, schema string) error {
	return adminExec(ctx, url, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

func adminExec(ctx context.Context, adminURL, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, interpretPgError(err))
	}
	return nil
}

// SQLiteJobReference commits, for d, the reference job transaction of the
// benchmark on a fresh SQLite file through one writer connection (with the
// synchronous pragma sync): read the execution, lock the job, bump the
// execution's revision, insert the next job, delete the executed one,
// commit. It returns the transactions per second: what a job costs SQLite
// with nothing of the engine around it.
func SQLiteJobReference(ctx context.Context, sync string, d time.Duration) (float64, error) {
	dir, err := os.MkdirTemp("", "bpmnbench")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "ref.db")+"?_txlock=immediate&_journal_mode=WAL&_synchronous="+sync)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE execution (id INTEGER PRIMARY KEY, rev INTEGER NOT NULL, act_id TEXT)`,
		`CREATE TABLE job (id INTEGER PRIMARY KEY, rev INTEGER NOT NULL, type TEXT, execution_id INTEGER, retries INTEGER, duedate INTEGER, priority INTEGER, handler_type TEXT, handler_cfg TEXT)`,
		`CREATE INDEX job_acq ON job (priority DESC, duedate)`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return 0, err
		}
	}
	const n = 10000
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	for i := 1; i <= n; i++ {
		tx.ExecContext(ctx, `INSERT INTO execution VALUES ($1, 1, 'a')`, i)
		tx.ExecContext(ctx, `INSERT INTO job VALUES ($1, 1, 'message', $2, 3, 0, 0, 'async', 'c')`, int64(i)*10000000000+1, i)
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(d)
	count := 0
	begin := time.Now()
	for time.Now().Before(deadline) {
		pi := int64(count%n + 1)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		var rev int64
		if err := tx.QueryRowContext(ctx, `SELECT rev FROM execution WHERE id = $1`, pi).Scan(&rev); err != nil {
			tx.Rollback()
			return 0, err
		}
		jid := pi*10000000000 + rev
		var id int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM job WHERE id = $1`, jid).Scan(&id); err != nil {
			tx.Rollback()
			return 0, err
		}
		tx.ExecContext(ctx, `UPDATE execution SET rev = rev + 1, act_id = 'b' WHERE id = $1 AND rev = $2`, pi, rev)
		tx.ExecContext(ctx, `INSERT INTO job VALUES ($1, 1, 'message', $2, 3, 0, 0, 'async', 'c')`, jid+1, pi)
		tx.ExecContext(ctx, `DELETE FROM job WHERE id = $1`, jid)
		if err := tx.Commit(); err != nil {
			return 0, err
		}
		count++
	}
	return float64(count) / time.Since(begin).Seconds(), nil
}

// CreateSequence creates sequence name starting at start in the PostgreSQL
// database at url (the benchmark's start reference numbers its instances
// with one).
func CreateSequence(ctx context.Context, url, name string, start int64) error {
	if !databaseName.MatchString(name) {
		return fmt.Errorf("persistence: sequence name %q: want lower-case letters, digits and _", name)
	}
	return adminExec(ctx, url, fmt.Sprintf("CREATE SEQUENCE %s START %d", name, start))
}
