package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The suites fill tables with generated rows in SQL, in statements of the
// database's own: a generate_series on PostgreSQL, a recursive CTE on
// SQLite. A row is generated for each x from $1 to $2.

// seedSQL writes the generated rows' SQL for one dialect.
type seedSQL struct{ pg bool }

// at is the time x seconds after a fixed instant (as SQLite keeps times:
// microseconds).
func (s seedSQL) at(x string) string {
	if s.pg {
		return "(timestamptz '2023-11-14 22:13:20+00' + (" + x + ") * interval '1 second')"
	}
	return "(1700000000000000 + (" + x + ") * 1000000)"
}

// text is integer expression e as text.
func (s seedSQL) text(e string) string {
	if s.pg {
		return "(" + e + ")::text"
	}
	return "CAST(" + e + " AS TEXT)"
}

// insert is an INSERT into table's columns of one row of values per x.
func (s seedSQL) insert(table, columns, values string) string {
	if s.pg {
		return "INSERT INTO " + table + " (" + columns + ") SELECT " + values + " FROM generate_series($1::int, $2::int) AS g(x)"
	}
	return "WITH RECURSIVE g(x) AS (SELECT $1 UNION ALL SELECT x + 1 FROM g WHERE x < $2) INSERT INTO " + table + " (" + columns + ") SELECT " + values + " FROM g"
}

// seed runs fill in one transaction, counts the kept counts anew when
// their tables were filled, then has PostgreSQL analyze tables
// (its planner would otherwise judge them by their size before).
func seed(ctx context.Context, db persistence.DB, tables []string, fill func(persistence.Tx, seedSQL) error) error {
	tx, err := db.Begin(ctx, false)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	s := seedSQL{pg: db.Dialect() == persistence.Postgres}
	if err := fill(tx, s); err != nil {
		return fmt.Errorf("seed %v: %w", tables, err)
	}
	if slices.Contains(tables, "hist_process_instance") || slices.Contains(tables, "task") {
		// The rows bypassed the engine: its kept counts are counted anew.
		if err := persistence.Recount(ctx, tx); err != nil {
			return err
		}
	}
	if s.pg {
		for _, t := range tables {
			if _, err := tx.Exec(ctx, "ANALYZE "+t); err != nil {
				return err
			}
		}
	}
	return tx.Commit(ctx)
}

// rowCount is how many rows table holds.
func rowCount(ctx context.Context, tx persistence.Tx, table string) (int, error) {
	rows, err := tx.Query(ctx, "SELECT count(*) FROM "+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return int(n), err
}
