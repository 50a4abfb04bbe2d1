package persistence

import (
	"context"
	"fmt"
)

// Counts kept as rows change (migration 0026): for a counted table,
// triggers write one row per change to its count table, +1 for a row as it
// is now and -1 for a row as it was, under the columns the countable
// conditions of its filters read (a column that matters only as set or
// not holds a stand-in). A filter whose conditions are all countable
// (`countable` in its fields' tags) is counted by summing n over the count
// rows its conditions select, which costs the same at a million rows as at
// a thousand; CompactCounts keeps the count table small.

// countTable is the count table of a counted table.
type countTable struct {
	counted, name string
	columns       string // what its rows are grouped by
}

var countTables = []countTable{
	{HistoricProcessInstanceTable.Name, "hist_process_instance_count",
		"process_definition_id, process_definition_key, tenant_id, state, end_time, super_process_instance_id"},
	{TaskTable.Name, "task_count",
		"process_definition_id, task_definition_key, assignee, candidate_groups, candidate_users, suspension, tenant_id"},
}

// CountTables names the tables of kept counts: the rows of the counted
// tables are counted there too, so emptying those tables leaves -1 rows
// behind, to be removed after them.
func CountTables() []string {
	names := make([]string, len(countTables))
	for i, c := range countTables {
		names[i] = c.name
	}
	return names
}

// countedFrom is what a count of a query of table reads: its count table,
// named as the table so that the conditions apply unchanged, when q's
// conditions are all countable; else the table.
func countedFrom(table string, countable bool) (from, expr string) {
	for _, c := range countTables {
		if c.counted == table && countable {
			return c.name + " AS " + table, "CAST(COALESCE(SUM(n), 0) AS BIGINT)"
		}
	}
	return table, "count(*)"
}

// CompactCounts merges the rows of each count table into one per group
// (none for a group whose changes cancel out), each table in a
// transaction of its own. Rows written meanwhile stay as they are, so
// counts never change by it.
func CompactCounts(ctx context.Context, db DB) error {
	for _, c := range countTables {
		if err := compactCount(ctx, db, c); err != nil {
			return fmt.Errorf("compact %s: %w", c.name, err)
		}
	}
	return nil
}

func compactCount(ctx context.Context, db DB, c countTable) error {
	if merged, err := isMerged(ctx, db, c); err != nil || merged {
		return err
	}
	removed, err := mergeCount(ctx, db, c)
	if v, ok := db.(vacuumer); ok && err == nil && removed >= vacuumAfter {
		// The rows deleted stay in PostgreSQL's pages until a vacuum, and
		// every count would read them until autovacuum came by. A vacuum
		// frees them but keeps the pages up to the merged rows, written
		// last: written again, the merged rows go to the freed pages at
		// the start, and a second vacuum cuts off the rest.
		err = v.vacuum(ctx, c.name)
		if err == nil {
			_, err = mergeCount(ctx, db, c)
		}
		if err == nil {
			err = v.vacuum(ctx, c.name)
		}
	}
	return err
}

// mergeCount merges c's rows into one per group and returns how many rows
// it removed (0 when another compactor holds c).
func mergeCount(ctx context.Context, db DB, c countTable) (int64, error) {
	t, err := db.Begin(ctx, false)
	if err != nil {
		return 0, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	if lock := dialectOf(db).tryTableLock; lock != "" {
		// Compactions of a table take turns (two deletes of a whole table
		// that scan from different pages deadlock); a busy one is left to
		// the compactor at work.
		var got bool
		if err := queryValue(ctx, t, &got, lock, c.name); err != nil || !got {
			return 0, err
		}
	}
	merge := "INSERT INTO " + c.name + " (" + c.columns + ", n) SELECT " + c.columns + ", SUM(n) FROM %s GROUP BY " + c.columns + " HAVING SUM(n) <> 0"
	var removed int64
	if dialectOf(db).writingWith {
		// One statement: what it deletes is exactly what it sums.
		err = queryValue(ctx, t, &removed, "WITH gone AS (DELETE FROM "+c.name+" RETURNING "+c.columns+", n), "+
			"merged AS ("+fmt.Sprintf(merge, "gone")+") SELECT count(*) FROM gone")
	} else {
		// One writer: nothing is written between the statements, and the
		// merged rows get rowids above the last one read.
		var last *int64
		if err = queryValue(ctx, t, &last, "SELECT MAX(rowid) FROM "+c.name); err != nil || last == nil {
			return 0, err
		}
		if _, err = t.Exec(ctx, fmt.Sprintf(merge, c.name+" WHERE rowid <= $1"), *last); err == nil {
			_, err = t.Exec(ctx, "DELETE FROM "+c.name+" WHERE rowid <= $1", *last)
		}
	}
	if err != nil {
		return 0, err
	}
	return removed, t.Commit(ctx)
}

// vacuumAfter is how many rows a compaction removes before it vacuums the
// count table itself.
const vacuumAfter = 10000

// vacuumer is a database whose deleted rows take space until a vacuum
// (PostgreSQL).
type vacuumer interface {
	vacuum(ctx context.Context, table string) error
}

// isMerged reports whether c has one row per group already: then a
// compaction would rewrite every row for nothing (an idle engine would
// churn its database every round).
func isMerged(ctx context.Context, db DB, c countTable) (bool, error) {
	n, err := backlog(ctx, db, c)
	return n == 0, err
}

// backlog is how many rows c has beyond one per group.
func backlog(ctx context.Context, db DB, c countTable) (int64, error) {
	t, err := db.Begin(ctx, true)
	if err != nil {
		return 0, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	var extra int64
	err = queryValue(ctx, t, &extra, "SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT "+c.columns+" FROM "+c.name+") g) FROM "+c.name)
	return extra, err
}

// CountsBacklog is how many rows the count tables have beyond one per
// group: what the next compaction merges.
func CountsBacklog(ctx context.Context, db DB) (int64, error) {
	var sum int64
	for _, c := range countTables {
		n, err := backlog(ctx, db, c)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}
