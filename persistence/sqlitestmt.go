package persistence

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	_ "modernc.org/sqlite" // registers "sqlite"
)

// sqliteDriverName is modernc's SQLite driver with a prepared-statement
// cache per connection. database/sql prepares and finalizes a statement on
// every call made inside a transaction; parsing was a fifth of the CPU time
// of a job on SQLite. The engine's SQL comes in a bounded set of shapes, so
// each connection keeps its statements (up to maxCachedStmts).
const sqliteDriverName = "bpmnlite-sqlite"

const maxCachedStmts = 1000

func init() {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		panic(err) // sql.Open of a registered driver makes no connection and cannot fail
	}
	sql.Register(sqliteDriverName, &cachingDriver{inner: db.Driver()})
	db.Close()
}

type cachingDriver struct{ inner driver.Driver }

func (d *cachingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: c, stmts: make(map[string]driver.Stmt)}, nil
}

// cachingConn is used by one goroutine at a time (database/sql's contract).
type cachingConn struct {
	driver.Conn
	stmts map[string]driver.Stmt
}

// cached returns the prepared statement for query, or nil when it is not
// cacheable (scripts with several statements, or the cache is full).
func (c *cachingConn) cached(ctx context.Context, query string) (driver.Stmt, error) {
	if st := c.stmts[query]; st != nil {
		return st, nil
	}
	if strings.Contains(query, ";") || len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	return st.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	return st.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *cachingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *cachingConn) Close() error {
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
	return c.Conn.Close()
}
