package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

type pgDB struct {
	schema string // Options.Schema, "" for the search_path's
	pool   *pgxpool.Pool
	owned  bool // Close closes the pool only when Open created it
	log    *slog.Logger
	notify notifier
	// existing: open only a current database (Options.Existing).
	existing bool
	// countsVacuumed: when this handle last vacuumed count_delta (unix
	// nanoseconds); countsMerged: it merged deltas since (see MergeCounts).
	countsVacuumed atomic.Int64
	countsMerged   atomic.Bool
}

// DefaultPostgresConns is the PostgreSQL pool's default size. A running
// job holds a connection while its delegates run (its transaction is
// open), so pgxpool's own default, max(4, CPUs), would let only four of a
// job executor's workers run at once on a small machine.
const DefaultPostgresConns = 20

func openPostgres(ctx context.Context, url string, opts Options) (DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("persistence: PostgreSQL URL: %w", err)
	}
	switch {
	case opts.MaxConns > 0:
		cfg.MaxConns = int32(opts.MaxConns)
	case !strings.Contains(url, "pool_max_conns"):
		cfg.MaxConns = DefaultPostgresConns
	}
	if opts.Schema != "" {
		// A startup parameter costs no extra round trip per connection.
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	if opts.TracerProvider != nil {
		cfg.ConnConfig.Tracer = &pgTracer{tracer: opts.TracerProvider.Tracer("github.com/bpmnlite/bpmnlite/persistence")}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("persistence: connect to PostgreSQL: %w", err)
	}
	db := &pgDB{pool: pool, owned: true, log: opts.logger(), schema: opts.Schema, existing: opts.Existing}
	if err := db.migrate(ctx, opts.Schema); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// OpenPool uses an existing pool (whose connections must already have the
// wanted search_path) and applies the migrations. Close leaves the pool open.
func OpenPool(ctx context.Context, pool *pgxpool.Pool, opts Options) (DB, error) {
	if pool == nil {
		return nil, errors.New("persistence: OpenPool: nil pool")
	}
	if opts.Schema != "" {
		return nil, errors.New("persistence: OpenPool: Options.Schema is not supported; set search_path in the pool's ConnConfig.RuntimeParams")
	}
	db := &pgDB{pool: pool, log: opts.logger(), existing: opts.Existing}
	if err := db.migrate(ctx, ""); err != nil {
		return nil, err
	}
	return db, nil
}

// JoinPgx runs the engine inside the caller's transaction: it opens a
// savepoint there, Commit releases it (the caller still commits or rolls back
// its transaction) and Rollback rolls back to it, keeping the caller's work.
func JoinPgx(ctx context.Context, tx pgx.Tx) (Tx, error) {
	if tx == nil {
		return nil, errors.New("persistence: JoinPgx: nil transaction")
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("persistence: JoinPgx: %w", interpretPgError(err))
	}
	return &pgTx{q: sp, joined: sp}, nil
}

func (d *pgDB) Dialect() Dialect { return Postgres }

func (d *pgDB) Capabilities() Capabilities {
	return Capabilities{ListenNotify: true, NeedsHeartbeat: true, CallerTransactions: true}
}

// TxJoiner is a database whose commands can run inside a transaction the
// caller owns.
type TxJoiner interface {
	// Join wraps the caller's transaction (see JoinPgx).
	Join(ctx context.Context, tx pgx.Tx) (Tx, error)
}

func (d *pgDB) Join(ctx context.Context, tx pgx.Tx) (Tx, error) { return JoinPgx(ctx, tx) }

// Begin takes a connection; BEGIN itself is sent with the transaction's
// first statement, saving a round trip per command.
func (d *pgDB) Begin(ctx context.Context, readOnly bool) (Tx, error) {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", interpretPgError(err))
	}
	begin := "BEGIN"
	if readOnly {
		begin = "BEGIN READ ONLY"
	}
	return &pgTx{q: conn, conn: conn, pending: []string{begin}}, nil
}

func (d *pgDB) Close() error {
	d.notify.close()
	if d.owned {
		d.pool.Close()
	}
	return nil
}

// migrate applies the migrations under a transaction-scoped advisory lock,
// so that processes opening the same database at once apply them once.
func (d *pgDB) migrate(ctx context.Context, schema string) error {
	tx, err := d.Begin(ctx, false)
	if err != nil {
		return fmt.Errorf("persistence: migrate: %w", err)
	}
	defer tx.Rollback(ctx) // a no-op after Commit
	// The lock key is per schema, so that test schemas migrate in parallel.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", migrationLockClass, schema); err != nil {
		return fmt.Errorf("persistence: migrate: lock: %w", err)
	}
	if schema != "" {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return fmt.Errorf("persistence: migrate: create schema %q: %w", schema, err)
		}
	}
	if err := applyMigrations(ctx, tx, Postgres, d.log, d.existing); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("persistence: migrate: commit: %w", err)
	}
	return nil
}

// migrationLockClass is the first key of the migration advisory lock.
const migrationLockClass int32 = 0x62706d6e // "bpmn"

// pgQuerier is what pgTx needs of a pooled connection or a pgx.Tx.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pgTx is a transaction on a pooled connection (conn set) or a savepoint in
// a caller's transaction (joined set). Statements that return nothing the
// engine needs (BEGIN, SAVEPOINT, RELEASE) wait in pending and travel with
// the next statement, saving a round trip each.
type pgTx struct {
	q       pgQuerier
	conn    *pgxpool.Conn
	joined  pgx.Tx
	pending []string
	begun   bool // BEGIN was sent (pool transactions)
	done    bool
}

func (t *pgTx) Dialect() Dialect { return Postgres }

// send queues the pending statements, then stmts, in one batch; the
// results of the pending ones are consumed here.
func (t *pgTx) send(ctx context.Context, stmts []Stmt) (pgx.BatchResults, error) {
	var b pgx.Batch
	for _, p := range t.pending {
		b.Queue(p)
	}
	for _, s := range stmts {
		b.Queue(s.SQL, s.Args...)
	}
	n := len(t.pending)
	t.pending = t.pending[:0]
	if t.conn != nil {
		t.begun = true
	}
	br := t.q.SendBatch(ctx, &b)
	for range n {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, interpretPgError(err)
		}
	}
	return br, nil
}

func (t *pgTx) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if len(t.pending) > 0 {
		counts, err := t.Batch(ctx, []Stmt{{SQL: sql, Args: args}})
		if err != nil {
			return 0, err
		}
		return counts[0], nil
	}
	tag, err := t.q.Exec(ctx, sql, args...)
	if err != nil {
		return 0, interpretPgError(err)
	}
	return tag.RowsAffected(), nil
}

func (t *pgTx) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	if len(t.pending) > 0 {
		br, err := t.send(ctx, []Stmt{{SQL: sql, Args: args}})
		if err != nil {
			return nil, err
		}
		rows, err := br.Query()
		if err != nil {
			br.Close()
			return nil, interpretPgError(err)
		}
		return &pgRows{rows: rows, batch: br}, nil
	}
	rows, err := t.q.Query(ctx, sql, args...)
	if err != nil {
		return nil, interpretPgError(err)
	}
	return &pgRows{rows: rows}, nil
}

// Batch pipelines the statements (after the pending ones): one round trip
// once pgx has the statements in its per-connection cache. On error the
// results hold the counts of the statements before the failing one.
func (t *pgTx) Batch(ctx context.Context, stmts []Stmt) ([]int64, error) {
	switch {
	case len(stmts) == 0:
		return nil, nil
	case len(stmts) == 1 && len(t.pending) == 0:
		n, err := t.Exec(ctx, stmts[0].SQL, stmts[0].Args...)
		if err != nil {
			return nil, err
		}
		return []int64{n}, nil
	}
	br, err := t.send(ctx, stmts)
	if err != nil {
		return nil, err
	}
	counts := make([]int64, 0, len(stmts))
	for range stmts {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return counts, interpretPgError(err)
		}
		counts = append(counts, tag.RowsAffected())
	}
	if err := br.Close(); err != nil {
		return counts, interpretPgError(err)
	}
	return counts, nil
}

func (t *pgTx) Savepoint(ctx context.Context, name string) error {
	if err := checkSavepointName(name); err != nil {
		return err
	}
	t.pending = append(t.pending, "SAVEPOINT "+name)
	return nil
}

func (t *pgTx) RollbackTo(ctx context.Context, name string) error {
	if err := checkSavepointName(name); err != nil {
		return err
	}
	if t.dropPending("SAVEPOINT " + name) {
		return nil // nothing ran since the savepoint
	}
	return t.savepointCmd(ctx, "ROLLBACK TO SAVEPOINT ", name)
}

func (t *pgTx) Release(ctx context.Context, name string) error {
	if err := checkSavepointName(name); err != nil {
		return err
	}
	if !t.dropPending("SAVEPOINT " + name) {
		t.pending = append(t.pending, "RELEASE SAVEPOINT "+name)
	}
	return nil
}

// dropPending removes stmt when it is the last pending statement.
func (t *pgTx) dropPending(stmt string) bool {
	if n := len(t.pending); n > 0 && t.pending[n-1] == stmt {
		t.pending = t.pending[:n-1]
		return true
	}
	return false
}

func (t *pgTx) savepointCmd(ctx context.Context, cmd, name string) error {
	if _, err := t.Exec(ctx, cmd+name); err != nil {
		return fmt.Errorf("%s%s: %w", cmd, name, interpretPgError(err))
	}
	return nil
}

// commitBatch sends statements that end with COMMIT. When all succeed the
// transaction is over and the connection goes back to the pool; on error
// it stays open (aborted) for a rollback.
func (t *pgTx) commitBatch(ctx context.Context, stmts []Stmt) ([]int64, error) {
	if t.done {
		return nil, fmt.Errorf("commit: %w", pgx.ErrTxClosed)
	}
	if !t.begun && len(stmts) == 1 {
		// Nothing was sent and nothing is to be written.
		t.done = true
		t.conn.Release()
		return []int64{0}, nil
	}
	counts, err := t.Batch(ctx, stmts)
	if err != nil {
		return counts, err
	}
	t.done = true
	t.conn.Release()
	return counts, nil
}

// queryCommit runs a query and COMMIT in one round trip (after the pending
// statements); scan reads the query's rows. On error the transaction stays
// open for a rollback.
func (t *pgTx) queryCommit(ctx context.Context, sql string, args []any, scan func(Rows) error) error {
	if t.done {
		return fmt.Errorf("commit: %w", pgx.ErrTxClosed)
	}
	br, err := t.send(ctx, []Stmt{{SQL: sql, Args: args}, {SQL: "COMMIT"}})
	if err != nil {
		return err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return interpretPgError(err)
	}
	if err := scan(&pgRows{rows: rows}); err != nil {
		br.Close()
		return err
	}
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fmt.Errorf("commit: %w", interpretPgError(err))
	}
	if err := br.Close(); err != nil {
		return interpretPgError(err)
	}
	t.done = true
	t.conn.Release()
	return nil
}

func (t *pgTx) Commit(ctx context.Context) error {
	if t.joined != nil {
		if len(t.pending) > 0 {
			if _, err := t.Batch(ctx, []Stmt{{SQL: "SELECT 1"}}); err != nil {
				return fmt.Errorf("commit: %w", err)
			}
		}
		if err := t.joined.Commit(ctx); err != nil {
			return fmt.Errorf("commit: %w", interpretPgError(err))
		}
		return nil
	}
	if t.done {
		return fmt.Errorf("commit: %w", pgx.ErrTxClosed)
	}
	t.done = true
	defer t.conn.Release()
	if !t.begun {
		return nil // nothing was sent: nothing to commit
	}
	if _, err := t.Batch(ctx, []Stmt{{SQL: "COMMIT"}}); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback after Commit or Rollback does nothing, so it can be deferred.
func (t *pgTx) Rollback(ctx context.Context) error {
	if t.joined != nil {
		if err := t.joined.Rollback(ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
			return fmt.Errorf("rollback: %w", interpretPgError(err))
		}
		return nil
	}
	if t.done {
		return nil
	}
	t.done = true
	// A connection left inside a transaction (say, after a cancelled
	// rollback) is closed by Release rather than returned to the pool.
	defer t.conn.Release()
	if !t.begun {
		return nil
	}
	t.pending = t.pending[:0]
	if _, err := t.conn.Exec(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("rollback: %w", interpretPgError(err))
	}
	return nil
}

// pgRows adapts Scan to the engine's conventions: NULL text reads as "", and
// times read back in UTC.
type pgRows struct {
	rows  pgx.Rows
	batch pgx.BatchResults // the batch that carried pending statements, closed with the rows
	dest  []any
	text  []pgtype.Text
}

func (r *pgRows) Next() bool { return r.rows.Next() }
func (r *pgRows) Close() {
	r.rows.Close()
	if r.batch != nil {
		r.batch.Close()
		r.batch = nil
	}
}

func (r *pgRows) Err() error {
	if err := r.rows.Err(); err != nil {
		return interpretPgError(err)
	}
	return nil
}

func (r *pgRows) Scan(dest ...any) error {
	if cap(r.dest) < len(dest) {
		r.dest = make([]any, len(dest))
		r.text = make([]pgtype.Text, len(dest))
	}
	tmp := r.dest[:len(dest)]
	for i, d := range dest {
		if _, ok := d.(*string); ok {
			tmp[i] = &r.text[i]
		} else {
			tmp[i] = d
		}
	}
	if err := r.rows.Scan(tmp...); err != nil {
		return interpretPgError(err)
	}
	for i, d := range dest {
		switch p := d.(type) {
		case *string:
			*p = r.text[i].String // "" when NULL
		case *time.Time:
			*p = p.UTC()
		case **time.Time:
			if *p != nil {
				u := (*p).UTC() // a new value: the old one may be shared
				*p = &u
			}
		}
	}
	return nil
}

// interpretPgError translates pgx errors into the package's sentinels,
// keeping the original in the chain.
func interpretPgError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return fmt.Errorf("%w: %w", ErrDuplicate, err)
		case "40001", "40P01":
			return fmt.Errorf("%w: %w", ErrSerialization, err)
		case "BL001": // bpmnlite_expect_row: a checked update or delete matched no row
			return fmt.Errorf("%w: %w", ErrOptimisticLock, err)
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// Listener is implemented by backends that deliver notifications from other
// processes (PostgreSQL LISTEN/NOTIFY).
type Listener interface {
	// Listen calls fn with the payload of every notification on channel
	// until ctx ends; it holds a connection of its own.
	Listen(ctx context.Context, channel string, fn func(payload string)) error
}

// Notifier is implemented by backends that can wake other processes
// (PostgreSQL NOTIFY).
type Notifier interface {
	// Notify sends payload on channel soon after the call, in a transaction
	// of its own; calls made while a notification is being sent are merged
	// into the next one.
	Notify(channel, payload string)
	// NotifyAtCommit returns the write that, run in a transaction,
	// sends payload on channel when that transaction commits: for
	// transactions whose commit the engine does not see (a caller's).
	NotifyAtCommit(channel, payload string) Write
}

func (d *pgDB) NotifyAtCommit(channel, payload string) Write {
	return newWrite("SELECT pg_notify($1, $2)", channel, payload)
}

// Notify sends the notification from a connection of its own, outside the
// transaction that created the work. A transaction that notifies holds a
// database-wide lock from its commit until that commit is flushed, so job
// transactions that each notified would commit one at a time, never
// sharing a WAL flush (a fifth of job throughput here). The notifying
// connection commits without waiting for the flush (synchronous_commit
// off): it writes nothing worth keeping, and listeners get the
// notification either way.
func (d *pgDB) Notify(channel, payload string) { d.notify.send(d.pool, channel, payload) }

// notifier sends one notifying statement at a time, merging the requests
// that arrive meanwhile into the next.
type notifier struct {
	mu      sync.Mutex
	pending map[[2]string]bool // channel, payload
	sending bool
	conn    *pgx.Conn // taken from the pool for good; nil until first use
	done    sync.WaitGroup
}

func (n *notifier) send(pool *pgxpool.Pool, channel, payload string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending == nil {
		n.pending = make(map[[2]string]bool)
	}
	n.pending[[2]string{channel, payload}] = true
	if n.sending {
		return
	}
	n.sending = true
	n.done.Add(1)
	go n.loop(pool)
}

func (n *notifier) loop(pool *pgxpool.Pool) {
	defer n.done.Done()
	for {
		n.mu.Lock()
		batch := n.pending
		n.pending = nil
		if len(batch) == 0 {
			n.sending = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		channels, payloads := make([]string, 0, len(batch)), make([]string, 0, len(batch))
		for k := range batch {
			channels, payloads = append(channels, k[0]), append(payloads, k[1])
		}
		// A lost notification only delays the other nodes until they poll.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := n.notify(ctx, pool, channels, payloads); err != nil && n.conn != nil {
			_ = n.conn.Close(ctx)
			n.conn = nil
		}
		cancel()
	}
}

// notify runs on the loop's goroutine only.
func (n *notifier) notify(ctx context.Context, pool *pgxpool.Pool, channels, payloads []string) error {
	if n.conn == nil {
		pc, err := pool.Acquire(ctx)
		if err != nil {
			return err
		}
		conn := pc.Hijack()
		if _, err := conn.Exec(ctx, "SET synchronous_commit TO off"); err != nil {
			_ = conn.Close(ctx)
			return err
		}
		n.conn = conn
	}
	_, err := n.conn.Exec(ctx, "SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS n(c, p)", channels, payloads)
	return err
}

// close waits until no notification is being sent and closes the
// notifier's connection.
func (n *notifier) close() {
	n.done.Wait()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		_ = n.conn.Close(context.Background())
		n.conn = nil
	}
}

// JobChannel returns the NOTIFY channel on which commands that create jobs
// wake the job executors of other nodes: one per schema, so that engines in
// other schemas of the same database (other tenants, other test runs) do
// not wake each other.
func JobChannel(db DB) string { return channelName(db, "bpmnlite_jobs") }

// channelName is base, suffixed per schema.
func channelName(db DB, base string) string {
	pg, ok := db.(*pgDB)
	if !ok || pg.schema == "" {
		return base
	}
	sum := sha256.Sum256([]byte(pg.schema))
	return base + "_" + hex.EncodeToString(sum[:8])
}

func (d *pgDB) Listen(ctx context.Context, channel string, fn func(payload string)) error {
	pc, err := d.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("listen %s: %w", channel, interpretPgError(err))
	}
	// Out of the pool for good: a listening connection is not reusable.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen %s: %w", channel, interpretPgError(err))
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("listen %s: %w", channel, interpretPgError(err))
		}
		fn(n.Payload)
	}
}
