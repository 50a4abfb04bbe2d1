package persistence

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DeferredWriter is a database whose read-write transactions can start
// without the write lock: BeginDeferred's transaction reads, statement by
// statement, on the read-only connections, and takes the writer at its
// first write (SQLite files). A job's delegate then runs without holding
// the one writer, and its writes, checked against each row's revision at
// the flush, conflict as on PostgreSQL when another transaction changed
// the rows meanwhile.
type DeferredWriter interface {
	BeginDeferred(ctx context.Context) (Tx, error)
}

// BeginDeferred opens a transaction that takes the writer at its first
// write; an in-memory database, with no read-only connections, begins a
// write transaction at once.
func (d *sqliteDB) BeginDeferred(ctx context.Context) (Tx, error) {
	if d.r == nil {
		return d.Begin(ctx, false)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &sqliteDeferredTx{db: d, ctx: ctx}, nil
}

// sqliteDeferredTx reads like PostgreSQL's READ COMMITTED until its first
// write: each read sees what was committed when it ran. Savepoints taken
// before that write are only remembered (nothing is there to roll back)
// and are set on the writer when it is taken.
type sqliteDeferredTx struct {
	db         *sqliteDB
	ctx        context.Context // the begin context: it bounds the wait for the writer
	w          Tx              // the write transaction, once taken
	savepoints []string        // savepoints taken before the writer
	done       bool
}

func (t *sqliteDeferredTx) Dialect() Dialect { return SQLite }

// writer takes the write lock, with the savepoints taken so far.
func (t *sqliteDeferredTx) writer() (Tx, error) {
	if t.w != nil {
		return t.w, nil
	}
	if t.done {
		return nil, errors.New("sqlite: transaction already ended")
	}
	w, err := t.db.Begin(t.ctx, false)
	if err != nil {
		return nil, err
	}
	for _, name := range t.savepoints {
		if err := w.Savepoint(t.ctx, name); err != nil {
			_ = w.Rollback(context.WithoutCancel(t.ctx))
			return nil, err
		}
	}
	t.w, t.savepoints = w, nil
	return w, nil
}

func (t *sqliteDeferredTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	w, err := t.writer()
	if err != nil {
		return 0, err
	}
	return w.Exec(ctx, query, args...)
}

// Query reads on a read-only connection until the writer is taken. A
// statement that turns out to write (a WITH ... UPDATE) is refused by the
// read-only connection before it changes anything, and runs on the writer.
func (t *sqliteDeferredTx) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	if t.w == nil && !t.done && readsOnly(query) {
		refused := false
		rows, err := t.db.trace.query(ctx, query, func(ctx context.Context) (Rows, error) {
			rows, err := t.db.r.QueryContext(ctx, query, sqliteArgs(args)...)
			if err != nil {
				refused = isReadOnlyRefusal(err)
				return nil, interpretSQLiteError(err)
			}
			return &sqliteRows{rows: rows}, nil
		})
		if !refused {
			return rows, err
		}
	}
	w, err := t.writer()
	if err != nil {
		return nil, err
	}
	return w.Query(ctx, query, args...)
}

// readsOnly reports whether a statement may run on a read-only connection.
func readsOnly(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 4 && (strings.EqualFold(q[:4], "WITH") || len(q) >= 6 && strings.EqualFold(q[:6], "SELECT"))
}

func isReadOnlyRefusal(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

func (t *sqliteDeferredTx) Batch(ctx context.Context, stmts []Stmt) ([]int64, error) {
	if len(stmts) == 0 {
		return nil, nil
	}
	w, err := t.writer()
	if err != nil {
		return nil, err
	}
	return w.Batch(ctx, stmts)
}

func (t *sqliteDeferredTx) Savepoint(ctx context.Context, name string) error {
	if t.w != nil {
		return t.w.Savepoint(ctx, name)
	}
	if err := checkSavepointName(name); err != nil {
		return err
	}
	t.savepoints = append(t.savepoints, name)
	return nil
}

// RollbackTo before the first write keeps the savepoint and forgets the
// ones taken after it, as SQLite does.
func (t *sqliteDeferredTx) RollbackTo(ctx context.Context, name string) error {
	if t.w != nil {
		return t.w.RollbackTo(ctx, name)
	}
	i, err := t.savepointAt(name)
	if err != nil {
		return err
	}
	t.savepoints = t.savepoints[:i+1]
	return nil
}

func (t *sqliteDeferredTx) Release(ctx context.Context, name string) error {
	if t.w != nil {
		return t.w.Release(ctx, name)
	}
	i, err := t.savepointAt(name)
	if err != nil {
		return err
	}
	t.savepoints = t.savepoints[:i]
	return nil
}

// savepointAt finds the latest savepoint of that name, as SQLite does.
func (t *sqliteDeferredTx) savepointAt(name string) (int, error) {
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if t.savepoints[i] == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no such savepoint: %s", name)
}

// Commit of a transaction that never wrote has nothing to do.
func (t *sqliteDeferredTx) Commit(ctx context.Context) error {
	if t.w != nil {
		return t.w.Commit(ctx)
	}
	t.done = true
	return ctx.Err()
}

func (t *sqliteDeferredTx) Rollback(ctx context.Context) error {
	t.done = true
	if t.w != nil {
		return t.w.Rollback(ctx)
	}
	return nil
}
