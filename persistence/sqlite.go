package persistence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite has one writer at a time. Writes go through a pool of a single
// connection whose transactions begin IMMEDIATE (taking the write lock up
// front, so a transaction never fails to upgrade from reading to writing);
// callers queue for that connection in database/sql. File databases run in
// WAL mode and get a separate pool of read-only connections for read-only
// transactions, which then do not wait for the writer.
type sqliteDB struct {
	w   *sql.DB
	r   *sql.DB       // nil for in-memory databases: every connection would be a new database
	ck  *checkpointer // nil for in-memory databases
	log *slog.Logger
	// existing: open only a current database (Options.Existing).
	existing bool
	trace    *sqliteTracer // nil: no spans
}

func openSQLite(ctx context.Context, path string, opts Options) (DB, error) {
	syncMode := strings.ToUpper(opts.Synchronous)
	switch syncMode {
	case "":
		syncMode = "NORMAL"
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return nil, fmt.Errorf("persistence: SQLite Synchronous %q: want NORMAL or FULL", opts.Synchronous)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	busyParam := "_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10)
	mem := isSQLiteMemory(path)
	if opts.Existing && !mem {
		file := strings.TrimPrefix(path, "file:")
		if i := strings.IndexByte(file, '?'); i >= 0 {
			file = file[:i]
		}
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
		}
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	// Savepoints (one per job) write the pages they change to a
	// sub-journal: a temporary file unless temp_store is MEMORY, and those
	// writes took a third of the job executor's time. The page cache is
	// 8 MiB: a larger one made every commit slower (SQLite walks the
	// cache's hash table when a write transaction ends) without saving reads.
	params := "_txlock=immediate&" + busyParam + "&_synchronous=" + syncMode +
		"&_pragma=temp_store(MEMORY)&_pragma=cache_size(-8192)&" + caseSensitiveLike
	if !mem {
		params += "&_journal_mode=WAL&_pragma=wal_autocheckpoint(" + strconv.Itoa(walWriterCheckpoint) + ")"
	}
	w, err := sql.Open(sqliteDriverName, path+sep+params)
	if err != nil {
		return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
	}
	// One connection that is never closed while the DB is open: it is the
	// only writer, and for :memory: it is the database.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	db := &sqliteDB{w: w, log: opts.logger(), existing: opts.Existing, trace: newSQLiteTracer(opts.TracerProvider)}
	if opts.IntegrityCheck && !mem {
		if err := checkIntegrity(ctx, w, "quick_check"); err != nil {
			w.Close()
			return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
		}
	}
	if err := db.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
	}
	if !mem {
		r, err := sql.Open(sqliteDriverName, path+sep+busyParam+"&_query_only=1&"+caseSensitiveLike)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
		}
		n := opts.MaxConns
		if n <= 0 {
			n = 4
		}
		r.SetMaxOpenConns(n)
		r.SetMaxIdleConns(n)
		db.r = r
		if db.ck, err = startCheckpointer(path+sep+busyParam, db.log); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("persistence: open SQLite %q: %w", path, err)
		}
	}
	return db, nil
}

func isSQLiteMemory(path string) bool {
	return path == ":memory:" || strings.HasPrefix(path, ":memory:?") ||
		strings.HasPrefix(path, "file::memory:") || strings.Contains(path, "mode=memory")
}

func (d *sqliteDB) migrate(ctx context.Context) error {
	// Look first without the write lock: a second process opening a current
	// database must not wait for the writer of the first, which may hold it
	// for one job group after another.
	if current, err := d.schemaCurrent(ctx); err == nil && current {
		return nil
	}
	tx, err := d.Begin(ctx, false)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx) // a no-op after Commit
	if err := applyMigrations(ctx, tx, SQLite, d.log, d.existing); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// CheckSQLiteFile runs SQLite's full integrity check on the database file
// at path without opening it for writing or migrating it: nil when the
// file is sound, else an error wrapping ErrCorrupt with what was found.
func CheckSQLiteFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("persistence: check SQLite %q: %w", path, err)
	}
	db, err := sql.Open(sqliteDriverName, path+"?_query_only=1")
	if err != nil {
		return fmt.Errorf("persistence: check SQLite %q: %w", path, err)
	}
	defer db.Close()
	if err := checkIntegrity(ctx, db, "integrity_check"); err != nil {
		return fmt.Errorf("persistence: check SQLite %q: %w", path, err)
	}
	return nil
}

// checkIntegrity runs PRAGMA quick_check or integrity_check and reports
// what they found (at most ten problems).
func checkIntegrity(ctx context.Context, db *sql.DB, pragma string) error {
	rows, err := db.QueryContext(ctx, "PRAGMA "+pragma+"(10)")
	if err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_CORRUPT || se.Code()&0xff == sqlite3.SQLITE_NOTADB) {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			found = append(found, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(found, "; "))
	}
	return nil
}

// schemaCurrent reports whether every migration of this build is applied,
// reading in autocommit (a shared lock, which a WAL writer does not block).
func (d *sqliteDB) schemaCurrent(ctx context.Context) (bool, error) {
	ms, err := loadMigrations(SQLite)
	if err != nil || len(ms) == 0 {
		return false, err
	}
	rows, err := d.w.QueryContext(ctx, "SELECT version FROM bpmnlite_migration")
	if err != nil {
		return false, err // no table yet: a new database
	}
	defer rows.Close()
	applied := make(map[int]bool)
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return false, err
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	for _, m := range ms {
		if !applied[m.version] {
			return false, nil
		}
	}
	return true, nil
}

func (d *sqliteDB) Dialect() Dialect { return SQLite }

// Capabilities: a file database runs jobs outside the writer until their
// flush, so another process on the file could take over a lock that
// expires while a job runs: their locks get a heartbeat, as on PostgreSQL.
func (d *sqliteDB) Capabilities() Capabilities {
	file := d.r != nil
	return Capabilities{SingleWriter: true, DeferredWriter: file, NeedsHeartbeat: file}
}

// Begin starts a read-write transaction with BEGIN IMMEDIATE, or a deferred
// one on a read-only connection. Cancelling ctx rolls the transaction back.
func (d *sqliteDB) Begin(ctx context.Context, readOnly bool) (Tx, error) {
	db := d.w
	if readOnly && d.r != nil {
		db = d.r
	}
	if readOnly {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("begin: %w", interpretSQLiteError(err))
		}
		return &sqliteTx{tx: tx, trace: d.trace}, nil
	}
	// A write transaction's statements run without a cancellable context:
	// the driver starts a goroutine per statement run with one, to
	// interrupt it, which cost the one writer about 4 % of its time under
	// the job executor. Statements of a write transaction are short (they
	// hold the only writer), so cancellation is checked before each
	// statement instead, and rolls the transaction back at once. Waiting
	// for the writer still ends with ctx.
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", interpretSQLiteError(err))
	}
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("begin: %w", interpretSQLiteError(err))
	}
	t := &sqliteTx{tx: tx, conn: conn, cancelled: ctx.Err, trace: d.trace}
	if d.ck != nil {
		t.committed = d.ck.committed
	}
	t.stopRollback = context.AfterFunc(ctx, func() { _ = t.end(tx.Rollback()) })
	return t, nil
}

func (d *sqliteDB) Close() error {
	var errCk, errR error
	if d.ck != nil {
		errCk = d.ck.close()
	}
	if d.r != nil {
		errR = d.r.Close()
	}
	return errors.Join(errCk, errR, d.w.Close())
}

type sqliteTx struct {
	tx           *sql.Tx
	conn         *sql.Conn // the writer, held by a write transaction
	closeConn    sync.Once
	cancelled    func() error // the begin context's Err, for write transactions
	stopRollback func() bool  // stops the rollback on cancellation
	committed    func()       // called after a write transaction commits
	trace        *sqliteTracer
}

// check fails a statement whose context, or whose transaction's, is done.
func (t *sqliteTx) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.cancelled != nil {
		return t.cancelled()
	}
	return nil
}

// stmtContext returns the context to run a statement with: the caller's
// on read-only transactions (a long query is interrupted), none on write
// transactions.
func (t *sqliteTx) stmtContext(ctx context.Context) context.Context {
	if t.cancelled != nil {
		return context.Background()
	}
	return ctx
}

func (t *sqliteTx) Dialect() Dialect { return SQLite }

func (t *sqliteTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := t.check(ctx); err != nil {
		return 0, err
	}
	return t.trace.exec(ctx, query, func(ctx context.Context) (int64, error) { return t.exec(ctx, query, args) })
}

func (t *sqliteTx) exec(ctx context.Context, query string, args []any) (int64, error) {
	res, err := t.tx.ExecContext(t.stmtContext(ctx), query, sqliteArgs(args)...)
	if err != nil {
		return 0, interpretSQLiteError(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, interpretSQLiteError(err)
	}
	return n, nil
}

func (t *sqliteTx) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	if err := t.check(ctx); err != nil {
		return nil, err
	}
	return t.trace.query(ctx, query, func(ctx context.Context) (Rows, error) {
		rows, err := t.tx.QueryContext(t.stmtContext(ctx), query, sqliteArgs(args)...)
		if err != nil {
			return nil, interpretSQLiteError(err)
		}
		return &sqliteRows{rows: rows}, nil
	})
}

// Batch runs the statements one by one: SQLite is in-process, there is no
// round trip to save.
func (t *sqliteTx) Batch(ctx context.Context, stmts []Stmt) ([]int64, error) {
	counts := make([]int64, 0, len(stmts))
	for _, s := range stmts {
		n, err := t.Exec(ctx, s.SQL, s.Args...)
		if err != nil {
			return counts, err
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func (t *sqliteTx) Savepoint(ctx context.Context, name string) error {
	return t.savepointCmd(ctx, "SAVEPOINT ", name)
}

func (t *sqliteTx) RollbackTo(ctx context.Context, name string) error {
	return t.savepointCmd(ctx, "ROLLBACK TO SAVEPOINT ", name)
}

func (t *sqliteTx) Release(ctx context.Context, name string) error {
	return t.savepointCmd(ctx, "RELEASE SAVEPOINT ", name)
}

func (t *sqliteTx) savepointCmd(ctx context.Context, cmd, name string) error {
	if err := checkSavepointName(name); err != nil {
		return err
	}
	if err := t.check(ctx); err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.stmtContext(ctx), cmd+name); err != nil {
		return fmt.Errorf("%s%s: %w", cmd, name, interpretSQLiteError(err))
	}
	return nil
}

func (t *sqliteTx) Commit(ctx context.Context) error {
	t.stop()
	if err := t.check(ctx); err != nil {
		_ = t.end(t.tx.Rollback())
		return err
	}
	if err := t.end(t.tx.Commit()); err != nil {
		return fmt.Errorf("commit: %w", interpretSQLiteError(err))
	}
	if t.committed != nil {
		t.committed()
	}
	return nil
}

// Rollback after Commit or Rollback does nothing, so it can be deferred.
func (t *sqliteTx) Rollback(context.Context) error {
	t.stop()
	if err := t.end(t.tx.Rollback()); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", interpretSQLiteError(err))
	}
	return nil
}

// end returns the writer to its pool after the commit or rollback that
// returned err, which ended the transaction either way.
func (t *sqliteTx) end(err error) error {
	if t.conn != nil {
		t.closeConn.Do(func() { t.conn.Close() })
	}
	return err
}

func (t *sqliteTx) stop() {
	if t.stopRollback != nil {
		t.stopRollback()
	}
}

// sqliteArgs stores times as INTEGER microseconds since the Unix epoch (UTC);
// every other argument type is bound by database/sql as it is. The caller's
// slice is copied only when it holds a time.
func sqliteArgs(args []any) []any {
	out, copied := args, false
	for i, a := range args {
		var v any
		switch x := a.(type) {
		case time.Time:
			v = x.UnixMicro()
		case *time.Time:
			if x != nil {
				v = x.UnixMicro()
			}
		default:
			continue
		}
		if !copied {
			out, copied = append([]any(nil), args...), true
		}
		out[i] = v
	}
	return out
}

// sqliteRows adapts Scan to the engine's conventions: NULL text reads as "",
// and INTEGER microseconds read back as UTC times.
type sqliteRows struct {
	rows *sql.Rows
	// traced records the query's statement when the rows close (nil:
	// untraced).
	traced    *sqliteTracer
	statement statement
	dest      []any
	text      []sql.NullString
	micro     []sql.NullInt64
}

func (r *sqliteRows) Next() bool { return r.rows.Next() }
func (r *sqliteRows) Close() {
	r.rows.Close()
	if r.traced != nil {
		r.traced.done(r.statement, r.rows.Err())
		r.traced = nil
	}
}

func (r *sqliteRows) Err() error {
	if err := r.rows.Err(); err != nil {
		return interpretSQLiteError(err)
	}
	return nil
}

func (r *sqliteRows) Scan(dest ...any) error {
	if cap(r.dest) < len(dest) {
		r.dest = make([]any, len(dest))
		r.text = make([]sql.NullString, len(dest))
		r.micro = make([]sql.NullInt64, len(dest))
	}
	tmp := r.dest[:len(dest)]
	for i, d := range dest {
		switch d.(type) {
		case *string:
			tmp[i] = &r.text[i]
		case *time.Time, **time.Time:
			tmp[i] = &r.micro[i]
		default:
			tmp[i] = d
		}
	}
	if err := r.rows.Scan(tmp...); err != nil {
		return interpretSQLiteError(err)
	}
	for i, d := range dest {
		switch p := d.(type) {
		case *string:
			*p = r.text[i].String
		case *time.Time:
			if !r.micro[i].Valid {
				return fmt.Errorf("column %d: NULL read into a time.Time", i)
			}
			*p = time.UnixMicro(r.micro[i].Int64).UTC()
		case **time.Time:
			if r.micro[i].Valid {
				t := time.UnixMicro(r.micro[i].Int64).UTC()
				*p = &t
			} else {
				*p = nil
			}
		}
	}
	return nil
}

// interpretSQLiteError translates SQLite errors into the package's sentinels,
// keeping the original in the chain.
// busyHint explains a write lock that was not obtained in time.
const busyHint = "another connection held the SQLite write lock for longer than the busy timeout; " +
	"one process writes an SQLite file at a time (others may read it and wait for the writer), " +
	"so run several engine processes on PostgreSQL"

func interpretSQLiteError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch code := se.Code(); {
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", ErrDuplicate, err)
		case code&0xff == sqlite3.SQLITE_BUSY || code&0xff == sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %w: %s", ErrSerialization, err, busyHint)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// caseSensitiveLike makes LIKE case-sensitive, as PostgreSQL's: a filter's
// like matches the same rows on both backends.
const caseSensitiveLike = "_pragma=case_sensitive_like(1)"
