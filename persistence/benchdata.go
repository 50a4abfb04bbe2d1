package persistence

import (
	"context"
	"errors"
	"fmt"
)

// FillJobs fills a PostgreSQL job table with total due asynchronous jobs
// (locked of them held by another node, "other-node", for an hour) and
// refreshes the table's statistics, as a long-running table would have
// them: the load of the acquisition benchmark.
func FillJobs(ctx context.Context, db DB, total, locked int) error {
	if !dialectOf(db).arrays { // generate_series is PostgreSQL's
		return errors.New("persistence: FillJobs needs PostgreSQL")
	}
	fill := Stmt{SQL: `INSERT INTO job (id, rev, type, exclusive, process_instance_id, execution_id, retries, due_date, handler_type, priority, suspension, create_time, failed_attempts, lock_owner, lock_expiration)
		SELECT 'j' || g, 1, 'message', true, 'pi' || g, 'x' || g, 3, now() - interval '1 hour', 'async-before', g % 100, 1, now(), 0,
		       CASE WHEN g <= $2 THEN 'other-node' END, CASE WHEN g <= $2 THEN now() + interval '1 hour' END
		FROM generate_series(1, $1::int) g`, Args: []any{total, locked}}
	for _, st := range []Stmt{fill, {SQL: "ANALYZE job"}} {
		t, err := db.Begin(ctx, false)
		if err != nil {
			return err
		}
		if _, err := t.Exec(ctx, st.SQL, st.Args...); err != nil {
			_ = t.Rollback(ctx)
			return fmt.Errorf("fill jobs: %w", err)
		}
		if err := t.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}
