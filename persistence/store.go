package persistence

import (
	"context"
	"errors"
)

// Errors translated from both drivers, so upper layers never see pgx or
// database/sql errors.
var (
	// ErrOptimisticLock: an update or delete matched no row at the revision
	// read; another transaction changed or removed it concurrently.
	ErrOptimisticLock = errors.New("optimistic lock")
	// ErrNotFound: no row with that id.
	ErrNotFound = errors.New("not found")
	// ErrDuplicate: a unique constraint was violated.
	ErrDuplicate = errors.New("duplicate key")
	// ErrSerialization: the database aborted the transaction (deadlock or
	// serialization failure); the command may be retried.
	ErrSerialization = errors.New("serialization failure")
	// ErrCorrupt: an integrity check found the database file damaged.
	ErrCorrupt = errors.New("database file is damaged")
)

// IsConflict reports whether err is a concurrency conflict: an
// optimistic-lock failure, or a deadlock or serialization failure the
// database aborted. The work can simply run again; a job spends no retry.
func IsConflict(err error) bool {
	return errors.Is(err, ErrOptimisticLock) || errors.Is(err, ErrSerialization)
}

// Dialect names a backend.
type Dialect string

// Backends.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// DB is an open database with the engine's schema migrated.
type DB interface {
	// Dialect names the backend, for messages; behaviour that differs
	// between backends is asked for through Capabilities.
	Dialect() Dialect
	Capabilities() Capabilities
	// Begin opens a transaction. SQLite write transactions begin IMMEDIATE.
	Begin(ctx context.Context, readOnly bool) (Tx, error)
	Close() error
}

// Tx is an open transaction. Arguments use $1, $2 ... placeholders on both
// backends; time.Time, *time.Time, bool, []byte, string, int, int64, *int64,
// float64 arguments are converted as each backend needs.
type Tx interface {
	Dialect() Dialect
	// Exec runs a statement and returns the number of rows affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a query; scan with Rows.Scan, which accepts the same
	// pointer types as the arguments above (including **time.Time, *[]byte).
	// NULL scans into *string as "". Close the Rows before the next
	// statement: a PostgreSQL connection runs one statement at a time.
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// Batch runs statements in order, in one round trip where the backend
	// allows it, and returns the rows affected by each. On error it returns
	// the counts of the statements before the failing one.
	Batch(ctx context.Context, stmts []Stmt) ([]int64, error)
	Savepoint(ctx context.Context, name string) error
	RollbackTo(ctx context.Context, name string) error
	Release(ctx context.Context, name string) error
	Commit(ctx context.Context) error
	// Rollback after Commit or Rollback does nothing, so it can be deferred.
	Rollback(ctx context.Context) error
}

// Stmt is a statement with its arguments.
type Stmt struct {
	SQL  string
	Args []any
}

// Rows is a result set.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}
