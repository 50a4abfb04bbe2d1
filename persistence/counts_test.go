package persistence_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// A large backlog of count rows merges into one row per group (and, on
// PostgreSQL, the count table is vacuumed after it), on both backends.
func TestCompactCountsLargeBacklog(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx, err := db.Begin(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		insert := "INSERT INTO task_count (task_definition_key, n) WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 12000) SELECT CASE WHEN x % 3 = 0 THEN 'a' ELSE 'b' END, 1 FROM g"
		if _, err := tx.Exec(t.Context(), insert); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := persistence.CompactCounts(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string]int{
			"SELECT count(*) FROM task_count":                          2,
			"SELECT n FROM task_count WHERE task_definition_key = 'a'": 4000,
			"SELECT n FROM task_count WHERE task_definition_key = 'b'": 8000,
		} {
			if got := countRows(t, db, q); got != want {
				t.Errorf("%s: %d, want %d", q, got, want)
			}
		}
		if db.Dialect() == persistence.Postgres {
			// The pages the backlog took are given back: a count reads
			// only what is left.
			if size := countRows(t, db, "SELECT pg_relation_size('task_count')"); size > 64<<10 {
				t.Errorf("task_count takes %d bytes after its compaction", size)
			}
		}
	})
}
