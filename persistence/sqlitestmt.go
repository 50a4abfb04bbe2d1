package persistence

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
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
	return &cachingConn{Conn: c, stmts: make(map[string]*cachedStmt)}, nil
}

// cachingConn is used by one goroutine at a time (database/sql's contract).
type cachingConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared statement whose $N parameters were rewritten to
// anonymous ones: modernc binds a $N parameter by formatting every
// argument's ordinal and comparing, for each parameter in turn, which made
// binding a 24-column insert cost more than running it. args[i] holds the
// ordinal (from 1) of the argument the i-th parameter takes.
type cachedStmt struct {
	stmt driver.Stmt
	args []int
}

// cached returns the prepared statement for query, or nil when it is not
// cacheable (scripts with several statements, or the cache is full).
func (c *cachingConn) cached(ctx context.Context, query string) (*cachedStmt, error) {
	if st := c.stmts[query]; st != nil {
		return st, nil
	}
	if strings.Contains(query, ";") || len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	sql, order := anonymousParams(query)
	st, err := c.PrepareContext(ctx, sql)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{stmt: st, args: order}
	c.stmts[query] = cs
	return cs, nil
}

// bindArgs orders args for the statement's anonymous parameters.
func (cs *cachedStmt) bindArgs(args []driver.NamedValue) ([]driver.NamedValue, error) {
	out := make([]driver.NamedValue, len(cs.args))
	for i, n := range cs.args {
		if n > len(args) {
			return nil, fmt.Errorf("missing argument $%d", n)
		}
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: args[n-1].Value}
	}
	return out, nil
}

// anonymousParams replaces each $N outside string literals with ? and
// returns, in order, the N of each.
func anonymousParams(query string) (string, []int) {
	var b strings.Builder
	var order []int
	inString := false
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case ch == '\'':
			inString = !inString
		case ch == '$' && !inString && i+1 < len(query) && isDigit(query[i+1]):
			j := i + 1
			n := 0
			for j < len(query) && isDigit(query[j]) {
				n = n*10 + int(query[j]-'0')
				j++
			}
			order = append(order, n)
			b.WriteByte('?')
			i = j - 1
			continue
		}
		b.WriteByte(ch)
	}
	return b.String(), order
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	if args, err = st.bindArgs(args); err != nil {
		return nil, err
	}
	return st.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	if args, err = st.bindArgs(args); err != nil {
		return nil, err
	}
	return st.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
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
		st.stmt.Close()
	}
	c.stmts = nil
	return c.Conn.Close()
}
