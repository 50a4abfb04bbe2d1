package persistence

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// AcquireParams select the jobs a job executor locks in one acquisition.
type AcquireParams struct {
	// Now is the clock's time: jobs due at or before it are acquirable, and
	// locks that expired before it no longer count.
	Now time.Time
	// LockOwner identifies the executor (node); required.
	LockOwner string
	// LockUntil is the new lock expiration; after Now.
	LockUntil time.Time
	// Limit is the most jobs to lock; positive.
	Limit int
	// Orderings, combined in this precedence (as in Camunda): highest
	// priority first, then timers before other jobs, then earliest due date
	// (no due date first). With none, the order is unspecified.
	ByPriority   bool
	PreferTimers bool
	ByDueDate    bool
	// PriorityMin and PriorityMax, when set, bound the priorities acquired.
	PriorityMin, PriorityMax *int64
	// DeploymentIDs makes acquisition deployment-aware: only jobs of these
	// deployments, or of none, are acquired. nil: any deployment.
	DeploymentIDs []string
	// LogLocked writes a "locked" job log entry per job acquired (history).
	LogLocked bool
	// ExclusiveOverHierarchies treats a root process instance and the
	// instances its call activities started as one instance for exclusive
	// jobs: none is acquired while an exclusive job of the same hierarchy
	// is locked.
	ExclusiveOverHierarchies bool
	// ExcludeHandlerTypes leaves the jobs of these handler types out (a job
	// executor whose share of batch jobs is taken leaves batch jobs to
	// later acquisitions). nil: every handler type.
	ExcludeHandlerTypes []string
}

func (p AcquireParams) validate() error {
	var errs []error
	if p.Now.IsZero() {
		errs = append(errs, errors.New("Now is not set"))
	}
	if p.LockOwner == "" {
		errs = append(errs, errors.New("LockOwner is empty"))
	}
	if !p.LockUntil.After(p.Now) {
		errs = append(errs, fmt.Errorf("LockUntil %s is not after Now %s", p.LockUntil.Format(time.RFC3339Nano), p.Now.Format(time.RFC3339Nano)))
	}
	if p.Limit <= 0 {
		errs = append(errs, fmt.Errorf("Limit %d is not positive", p.Limit))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("acquire jobs: %w", err)
	}
	return nil
}

// AcquireJobs locks up to p.Limit acquirable jobs for p.LockOwner until
// p.LockUntil and returns them, locked, in the requested order. A job is
// acquirable when it has retries left, is active, is due (a nil due date is
// due at once), is not locked or its lock has expired, and, when it is
// exclusive, no other exclusive job of its process instance holds a live
// lock. Re-acquiring a job whose lock expired counts a failed attempt: its
// last executor died, hung or overran the lock without a result, so the
// job loses a retry and gets LockExpiredMessage; a job that comes back with
// 0 retries must not run (it would kill its next node too) but get an
// incident.
//
// Several exclusive jobs of one process instance may come back from one
// acquisition: the executor runs them one after another. On PostgreSQL this is
// one statement that skips rows other acquirers are locking (FOR UPDATE SKIP
// LOCKED), so concurrent acquirers never get the same job; two acquirers
// committing at once may still each take an exclusive job of the same
// instance, which optimistic locking on the instance's executions resolves,
// as in Camunda. On SQLite the surrounding transaction holds the write lock.
func AcquireJobs(ctx context.Context, tx Tx, p AcquireParams) ([]*Job, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	d := dialectOf(tx)
	query, args := acquireStatement(d, p)
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("acquire jobs: %w", err)
	}
	jobs, err := scanJobs(rows)
	if err != nil {
		return nil, err
	}
	if p.LogLocked && !d.writingWith {
		if err := logLocked(ctx, tx, jobs, p); err != nil {
			return nil, err
		}
	}
	sortAcquired(jobs, p)
	return jobs, nil
}

// AcquireJobsAndCommit is AcquireJobs followed by a commit of tx; on
// PostgreSQL (outside a caller's transaction) BEGIN, the acquisition with
// its job log entries and COMMIT take one round trip. On error, tx is left
// to be rolled back.
func AcquireJobsAndCommit(ctx context.Context, tx Tx, p AcquireParams) ([]*Job, error) {
	pg, ok := tx.(*pgTx)
	if !ok || pg.joined != nil {
		jobs, err := AcquireJobs(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		return jobs, tx.Commit(ctx)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	query, args := acquireStatement(postgresSQL, p)
	// The commit need not wait for its WAL flush: a lock is a lease. Should
	// the database crash before the flush, the jobs come back unlocked, and
	// the connections of the executor that took them die with it, so it
	// commits nothing; any later synchronous commit flushes this one too.
	// It saves a flush wait on every job's way to a worker.
	pg.pending = append(pg.pending, "SET LOCAL synchronous_commit TO off")
	var jobs []*Job
	err := pg.queryCommit(ctx, query, args, func(rows Rows) error {
		var err error
		jobs, err = scanJobs(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("acquire jobs: %w", err)
	}
	sortAcquired(jobs, p)
	return jobs, nil
}

func scanJobs(rows Rows) ([]*Job, error) {
	return scanEntities(rows, "acquire jobs", func() *Job { return new(Job) })
}

// scanEntities reads every row of rows (a statement returning a table's
// columns) into a new entity; what names the statement in errors.
func scanEntities[T Entity](rows Rows, what string, newEntity func() T) ([]T, error) {
	defer rows.Close()
	var out []T
	var targets []any
	for rows.Next() {
		e := newEntity()
		if err := scanRow(rows, e, &targets); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// logLocked writes the "locked" job log entries where the acquisition
// statement cannot (SQLite writes nothing inside WITH).
func logLocked(ctx context.Context, tx Tx, jobs []*Job, p AcquireParams) error {
	ops := make([]Op, len(jobs))
	for i, j := range jobs {
		ops[i] = Op{Kind: OpInsert, Entity: &JobLogEntry{
			ID: uuid.Must(uuid.NewV7()).String(), JobID: j.ID, Event: JobLogLocked, Timestamp: p.Now.UTC(),
			LockOwner: p.LockOwner, Retries: j.Retries, JobDefinitionID: j.JobDefinitionID,
			ActivityID: j.ActivityID, ProcessInstanceID: j.ProcessInstanceID, Priority: j.Priority,
		}}
	}
	return Flush(ctx, tx, ops)
}

// sortAcquired puts acquired jobs in the requested order: RETURNING has no
// order of its own.
func sortAcquired(jobs []*Job, p AcquireParams) {
	slices.SortStableFunc(jobs, func(a, b *Job) int {
		if p.ByPriority {
			if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
				return c
			}
		}
		if p.PreferTimers {
			if c := cmp.Compare(b.Type, a.Type); c != 0 { // "timer" > "message"
				return c
			}
		}
		if p.ByDueDate {
			return compareDue(a.DueDate, b.DueDate)
		}
		return 0
	})
}

// compareDue orders due dates with nil (due at once) first.
func compareDue(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

type acquireKey struct {
	dialect                         *sqlDialect
	byPriority, preferTimers, byDue bool
	hasMin, hasMax, deploymentAware bool
	logLocked, byHierarchy          bool
	deployments                     int // bound one by one without arrays
	excluded                        int // handler types left out, bound one by one
	limit                           int // for a literal limit
}

var acquireCache sync.Map // acquireKey → string

// acquireStatement returns the acquisition statement, built once per shape,
// and its arguments: $1 now, $2 owner, $3 lock expiration, $4 limit, then
// the optional filters.
//
// Two candidate sets are locked and merged: unlocked jobs, read through the
// partial acquisition indexes, and jobs whose lock expired, read through the
// small index on locked jobs. Keeping the terms of the partial indexes
// verbatim lets both databases use them (see the migration's comment).
func acquireStatement(d *sqlDialect, p AcquireParams) (string, []any) {
	key := acquireKey{
		dialect: d, byPriority: p.ByPriority, preferTimers: p.PreferTimers, byDue: p.ByDueDate,
		hasMin: p.PriorityMin != nil, hasMax: p.PriorityMax != nil, deploymentAware: p.DeploymentIDs != nil,
		logLocked: p.LogLocked && d.writingWith, byHierarchy: p.ExclusiveOverHierarchies,
	}
	if !d.arrays {
		key.deployments = len(p.DeploymentIDs)
	}
	if d.literalLimit {
		key.limit = p.Limit
	}
	key.excluded = len(p.ExcludeHandlerTypes)
	args := []any{p.Now, p.LockOwner, p.LockUntil, int64(p.Limit)}
	if p.PriorityMin != nil {
		args = append(args, *p.PriorityMin)
	}
	if p.PriorityMax != nil {
		args = append(args, *p.PriorityMax)
	}
	if p.DeploymentIDs != nil {
		if d.arrays {
			args = append(args, p.DeploymentIDs)
		} else {
			for _, id := range p.DeploymentIDs {
				args = append(args, id)
			}
		}
	}
	for _, t := range p.ExcludeHandlerTypes {
		args = append(args, t)
	}
	if key.logLocked {
		ids := make([]string, p.Limit)
		for i := range ids {
			ids[i] = uuid.Must(uuid.NewV7()).String()
		}
		args = append(args, ids)
	}
	if s, ok := acquireCache.Load(key); ok {
		return s.(string), args
	}
	s := buildAcquireStatement(key)
	if key.logLocked {
		s = withLockedLog(s, len(args))
	}
	acquireCache.Store(key, s)
	return s, args
}

func buildAcquireStatement(k acquireKey) string {
	d := k.dialect
	due := d.due
	freshFrom := d.from("job_acquire_due")
	switch {
	case k.byPriority:
		freshFrom = d.from("job_acquire_priority")
	case k.preferTimers:
		freshFrom = d.from("job_acquire_timer")
	}
	expiredFrom := d.from("job_lock_expiration")
	limit := d.limit("$4", k.limit)
	n := 4
	param := func() string { n++; return "$" + strconv.Itoa(n) }

	var filter strings.Builder
	filter.WriteString(" AND " + due + " <= $1")
	if k.hasMin {
		filter.WriteString(" AND priority >= " + param())
	}
	if k.hasMax {
		filter.WriteString(" AND priority <= " + param())
	}
	if k.deploymentAware {
		switch {
		case d.arrays:
			filter.WriteString(" AND (deployment_id IS NULL OR deployment_id = ANY(" + param() + "))")
		case k.deployments == 0:
			filter.WriteString(" AND deployment_id IS NULL")
		default:
			ps := make([]string, k.deployments)
			for i := range ps {
				ps[i] = param()
			}
			filter.WriteString(" AND (deployment_id IS NULL OR deployment_id IN (" + strings.Join(ps, ", ") + "))")
		}
	}
	if k.excluded > 0 {
		ps := make([]string, k.excluded)
		for i := range ps {
			ps[i] = param()
		}
		filter.WriteString(" AND handler_type NOT IN (" + strings.Join(ps, ", ") + ")")
	}
	// Two acquirers do not see each other's uncommitted locks, so two nodes
	// acquiring at once would split the exclusive jobs of an instance between
	// them, and all but one would conflict at its join and run again. On
	// PostgreSQL a transaction-scoped advisory lock per instance makes the
	// second skip the instance instead (try: it never blocks). It is nested
	// after NOT EXISTS, which the planner does not reorder, so that only
	// candidates that pass every other test take one.
	// Across process hierarchies the exclusive unit is the root instance;
	// the locked jobs the subquery reads come from the small index on
	// locked jobs, so the root column needs no index of its own.
	unit := "process_instance_id"
	if k.byHierarchy {
		unit = "root_process_instance_id"
	}
	filter.WriteString(" AND (NOT exclusive OR (NOT EXISTS (SELECT 1 FROM job x" +
		" WHERE x." + unit + " = j." + unit + " AND x.exclusive" +
		" AND x.lock_owner IS NOT NULL AND x.lock_expiration >= $1" + d.subqueryFence + ")" + d.instanceLock(unit) + "))")

	var inner, outer []string
	if k.byPriority {
		inner, outer = append(inner, "priority DESC"), append(outer, "c.priority DESC")
	}
	if k.preferTimers {
		inner, outer = append(inner, "type DESC"), append(outer, "c.type DESC")
	}
	if k.byDue {
		inner, outer = append(inner, due), append(outer, "c.due")
	}
	// Within the same ordering, jobs whose lock expired come first: they
	// were due before the fresh ones and their node is gone, and without an
	// order between the two parts a steady stream of fresh jobs would keep
	// them waiting for as long as it lasts.
	outer = append(outer, "c.stale DESC")
	orderBy := func(terms []string) string {
		if len(terms) == 0 {
			return ""
		}
		return " ORDER BY " + strings.Join(terms, ", ")
	}
	candidates := func(from, lockTerms string, stale int) string {
		return "SELECT id, priority, type, " + due + " AS due, " + strconv.Itoa(stale) + " AS stale FROM " + from + " WHERE " + lockTerms +
			" AND retries > 0 AND suspension = 1" + filter.String() + orderBy(inner) + " LIMIT " + limit + d.lockRows
	}
	return "WITH fresh AS (" + candidates(freshFrom, "lock_owner IS NULL", 0) + ")," +
		" expired AS (" + candidates(expiredFrom, "lock_owner IS NOT NULL AND lock_expiration < $1", 1) + ")," +
		" picked AS (SELECT c.id FROM (SELECT * FROM fresh UNION ALL SELECT * FROM expired) c" + orderBy(outer) + " LIMIT " + limit + ")" +
		" UPDATE job SET lock_owner = $2, lock_expiration = $3, rev = rev + 1," +
		" failed_attempts = failed_attempts + CASE WHEN lock_owner IS NULL THEN 0 ELSE 1 END," +
		" retries = retries - CASE WHEN lock_owner IS NULL THEN 0 ELSE 1 END," +
		" exception_message = CASE WHEN lock_owner IS NULL THEN exception_message ELSE " + quote(LockExpiredMessage) + " END" +
		" WHERE id IN (SELECT id FROM picked) RETURNING " + JobTable.statements().columnList
}

// withLockedLog wraps the PostgreSQL acquisition so that it also writes the
// "locked" job log entries, in the same statement. Their ids come from
// parameter idsParam (time-ordered ids made by the caller, one per job the
// acquisition may lock), so that log entries keep their order.
func withLockedLog(update string, idsParam int) string {
	i := strings.Index(update, " UPDATE job SET ")
	cols := JobTable.statements().columnList
	return update[:i] + ", locked AS (" + update[i+1:] + ")," +
		" logged AS (INSERT INTO job_log (id, job_id, event, timestamp, lock_owner, retries, job_definition_id, activity_id, process_instance_id, priority)" +
		" SELECT ($" + strconv.Itoa(idsParam) + "::text[])[row_number() OVER ()], id, '" + JobLogLocked + "', $1, $2, retries, job_definition_id, activity_id, process_instance_id, priority FROM locked)" +
		" SELECT " + cols + " FROM locked"
}

// instanceLockClass is the first key of the advisory locks acquisition
// takes on process instances.
const instanceLockClass int32 = 0x62706d69 // "bpmi"

// LockExpiredMessage is the exception message of a job whose lock expired
// without a result.
const LockExpiredMessage = "the job's lock expired without a result: the node executing it died, hung or overran the lock"

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
