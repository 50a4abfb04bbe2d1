package persistence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Options configure Open.
type Options struct {
	// Schema (PostgreSQL only) is created when missing and put on every
	// connection's search_path, so that several engines or tests can share one
	// database. Default: the server's search_path.
	Schema string
	// MaxConns bounds the connection pool: PostgreSQL's pool (default
	// DefaultPostgresConns, or the URL's pool_max_conns), and SQLite's
	// read-only pool for file databases (default 4).
	// SQLite always writes through a single connection.
	MaxConns int
	// Synchronous is SQLite's synchronous pragma: "NORMAL" (default; durable
	// across process crashes, may lose the last commits on power loss in WAL
	// mode) or "FULL".
	Synchronous string
	// BusyTimeout (SQLite only) is how long a transaction waits for another
	// process's write lock on the file before failing with ErrSerialization.
	// Default: 5s.
	BusyTimeout time.Duration
	// IntegrityCheck (SQLite files only) runs SQLite's quick_check before
	// the database is used, and fails Open with ErrCorrupt when it finds
	// damage. It reads the whole file, so it is off by default.
	IntegrityCheck bool
	// Logger receives migration and connection messages. Default: discarded.
	Logger *slog.Logger
	// TracerProvider, when set, gets a span per PostgreSQL statement and
	// pipelined batch, a child of the span in the statement's context (the
	// engine's command or job). Nil: none. SQLite's statements, in the
	// engine's own process, are not traced.
	TracerProvider trace.TracerProvider
	// Existing opens only a database that is there and current: a missing
	// SQLite file is an error (instead of a new file), and so is a schema
	// that needs a migration (ErrSchema): tools that only read must not
	// create or migrate databases.
	Existing bool
}

// ErrSchema: Options.Existing found no bpmnlite schema, or an older one.
var ErrSchema = errors.New("the database has no current bpmnlite schema")

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Open opens the database at url and applies the schema migrations.
// postgres:// and postgresql:// URLs open PostgreSQL; anything else is an
// SQLite database: ":memory:" or a file path, optionally prefixed with
// "sqlite:" (a "file:" URI is passed to SQLite as it is).
func Open(ctx context.Context, url string, opts Options) (DB, error) {
	if url == "" {
		return nil, fmt.Errorf("persistence: empty database URL")
	}
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		return openPostgres(ctx, url, opts)
	}
	if opts.Schema != "" {
		return nil, fmt.Errorf("persistence: Options.Schema is for PostgreSQL, not the SQLite database %q", url)
	}
	path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite://"), "sqlite:")
	return openSQLite(ctx, path, opts)
}

// checkSavepointName accepts SQL identifiers only: the name is spliced into
// the statement.
func checkSavepointName(name string) error {
	if name == "" || len(name) > 63 {
		return fmt.Errorf("savepoint name %q: want 1 to 63 letters, digits or underscores", name)
	}
	for i, c := range name {
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return fmt.Errorf("savepoint name %q: want letters, digits or underscores, not starting with a digit", name)
	}
	return nil
}
