package persistence

import "strconv"

// Capabilities tell the layers above what a backend does differently, so
// that they ask for a behaviour instead of checking which database it is.
type Capabilities struct {
	// SingleWriter: one write transaction at a time for the whole database
	// (SQLite). Job executors then run queued jobs together in one
	// transaction, and no other node can take over a running job's lock.
	SingleWriter bool
	// DeferredWriter: the database is a DeferredWriter (SQLite files): a
	// job reads without the write lock and takes it for its flush, so the
	// delegates of several jobs run side by side on a single writer.
	DeferredWriter bool
	// ListenNotify: nodes sharing the database can wake each other
	// (PostgreSQL LISTEN/NOTIFY; see Listener and Notifier).
	ListenNotify bool
	// NeedsHeartbeat: a running job's lock must be extended while it runs,
	// since other nodes may take over an expired lock concurrently.
	NeedsHeartbeat bool
	// CallerTransactions: commands can run inside a transaction the caller
	// owns (see TxJoiner).
	CallerTransactions bool
}

// sqlDialect is what the SQL of the two backends differs in, written once
// per backend.
type sqlDialect struct {
	name Dialect
	// due is a job's due date where "none" sorts first and is due at once.
	due string
	// timeType is the column type of timestamps.
	timeType string
	// lockRows locks the rows a candidate read returns, skipping rows that
	// other acquirers are locking; "" where the transaction holds the only
	// write lock anyway.
	lockRows string
	// pinIndexes: the planner may scan the job table for an acquisition
	// read unless the read names its index (INDEXED BY). Pinning also fails
	// the statement should its terms ever stop matching the index's.
	pinIndexes bool
	// literalLimit: a bound LIMIT in a subquery makes SQLite prepare the
	// statement again at every run (it plans with the value); a literal
	// costs a statement per limit instead, and saved two thirds of the time.
	literalLimit bool
	// arrays: a list binds as one array parameter (= ANY($n)); otherwise
	// as one parameter per item (IN ($n, ...)).
	arrays bool
	// subqueryFence keeps PostgreSQL from turning the exclusive-job check
	// into a hashed subplan that reads every locked job: it stays one index
	// probe per candidate, so acquisition does not slow down as locked jobs
	// pile up.
	subqueryFence string
	// instanceLocks: acquisition takes a transaction-scoped advisory lock
	// per process instance (see instanceLock).
	instanceLocks bool
	// writingWith: a statement may write inside WITH, so the acquisition
	// writes its job log entries in the same statement.
	writingWith bool
}

var (
	postgresSQL = &sqlDialect{
		name:          Postgres,
		due:           "COALESCE(due_date, '-infinity'::timestamptz)",
		timeType:      "timestamptz",
		lockRows:      " FOR UPDATE SKIP LOCKED",
		arrays:        true,
		subqueryFence: " OFFSET 0",
		instanceLocks: true,
		writingWith:   true,
	}
	sqliteSQL = &sqlDialect{
		name:         SQLite,
		due:          "COALESCE(due_date, -9223372036854775808)",
		timeType:     "INTEGER",
		pinIndexes:   true,
		literalLimit: true,
	}
)

// dialectOf returns the SQL dialect of a database's or transaction's backend.
func dialectOf(b interface{ Dialect() Dialect }) *sqlDialect {
	if b.Dialect() == SQLite {
		return sqliteSQL
	}
	return postgresSQL
}

// from names the job table for a read through index.
func (d *sqlDialect) from(index string) string {
	if d.pinIndexes {
		return "job j INDEXED BY " + index
	}
	return "job j"
}

// limit is the LIMIT of a statement that binds it as param.
func (d *sqlDialect) limit(param string, n int) string {
	if d.literalLimit {
		return strconv.Itoa(n)
	}
	return param
}

// instanceLock is the term that takes the advisory lock of a candidate
// job's process instance, or of its root instance (unit names the column),
// see buildAcquireStatement; or "".
func (d *sqlDialect) instanceLock(unit string) string {
	if !d.instanceLocks {
		return ""
	}
	return " AND (j." + unit + " IS NULL OR pg_try_advisory_xact_lock(" +
		strconv.Itoa(int(instanceLockClass)) + ", hashtext(j." + unit + ")))"
}
