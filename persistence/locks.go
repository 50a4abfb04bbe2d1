package persistence

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// NextWakeup returns the earliest time after now at which a job becomes
// acquirable without anybody writing: the next due date of an unlocked job,
// or the next expiry of a held lock. nil when there is none. It reads the
// acquisition indexes, so it stays cheap with many jobs.
func NextWakeup(ctx context.Context, tx Tx, now time.Time) (*time.Time, error) {
	due := dialectOf(tx).due
	q := "SELECT (SELECT MIN(" + due + ") FROM job WHERE lock_owner IS NULL AND retries > 0 AND suspension = 1 AND " + due + " > $1)," +
		" (SELECT MIN(lock_expiration) FROM job WHERE lock_owner IS NOT NULL AND lock_expiration >= $1)"
	rows, err := tx.Query(ctx, q, now)
	if err != nil {
		return nil, fmt.Errorf("next wakeup: %w", err)
	}
	defer rows.Close()
	var nextDue, nextExpiry *time.Time
	if rows.Next() {
		if err := rows.Scan(&nextDue, &nextExpiry); err != nil {
			return nil, fmt.Errorf("next wakeup: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("next wakeup: %w", err)
	}
	switch {
	case nextDue == nil:
		return nextExpiry, nil
	case nextExpiry == nil || nextDue.Before(*nextExpiry):
		return nextDue, nil
	}
	return nextExpiry, nil
}

// ExtendLock moves the lock expiration of a job still held by owner at
// revision rev; false when the lock was lost (taken over or the job gone).
// The revision is not bumped: it is the holder's fencing token.
func ExtendLock(ctx context.Context, tx Tx, jobID, owner string, rev int, until time.Time) (bool, error) {
	n, err := tx.Exec(ctx, "UPDATE job SET lock_expiration = $1 WHERE id = $2 AND lock_owner = $3 AND rev = $4", until, jobID, owner, rev)
	if err != nil {
		return false, fmt.Errorf("extend lock of job %s: %w", jobID, err)
	}
	return n == 1, nil
}

// UnlockJobs releases the locks owner holds on jobs (job id → the revision
// the lock was taken at), for jobs acquired but never started (shutdown) or
// whose run could not be stored (a database outage). A job locked anew
// since (another revision) is left alone. The revision is bumped so that a
// worker that still holds the old token cannot commit. It returns how many
// jobs it released.
func UnlockJobs(ctx context.Context, tx Tx, owner string, jobs map[string]int) (int, error) {
	ids := make([]string, 0, len(jobs))
	for id := range jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids) // rows locked in one order: concurrent unlocks do not deadlock
	stmts := make([]Stmt, len(ids))
	for i, id := range ids {
		stmts[i] = Stmt{SQL: "UPDATE job SET lock_owner = NULL, lock_expiration = NULL, rev = rev + 1 WHERE id = $1 AND lock_owner = $2 AND rev = $3", Args: []any{id, owner, jobs[id]}}
	}
	counts, err := tx.Batch(ctx, stmts)
	if err != nil {
		return 0, fmt.Errorf("unlock jobs: %w", err)
	}
	n := 0
	for _, c := range counts {
		n += int(c)
	}
	return n, nil
}
