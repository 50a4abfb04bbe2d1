package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

func exec(t *testing.T, db persistence.DB, sql string, args ...any) {
	t.Helper()
	tx, err := db.Begin(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func countOf(t *testing.T, db persistence.DB, f any) int {
	t.Helper()
	n, err := persistence.CountFilter(t.Context(), db, f, time.Now())
	if err != nil {
		t.Fatalf("count %+v: %v", f, err)
	}
	return n
}

// Counts over the kept dimensions read count_total and count_delta (a
// planted total shows through), with the tenancy filters; others count
// the rows.
func TestKeptCountsRead(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		exec(t, db, "INSERT INTO count_total (kind, definition_key, definition_id, tenant_id, sub, total) VALUES"+
			" ('hpi', 'k', 'k:1', '', 'ACTIVE', 40), ('hpi', 'k', 'k:1', '', 'COMPLETED', 2), ('hpi', 'o', 'o:1', 'a', 'ACTIVE', 5),"+
			" ('task', '', 'k:1', '', 'work', 7), ('task', '', 'k:1', 'a', 'work', 3), ('task', '', 'k:1', 'b', 'check', 1)")
		exec(t, db, "INSERT INTO count_delta (kind, definition_key, definition_id, tenant_id, sub, delta) VALUES"+
			" ('hpi', 'k', 'k:1', '', 'ACTIVE', -1), ('hpi', 'k', 'k:1', '', 'COMPLETED', 1)")
		tx, err := db.Begin(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := persistence.FlushCommit(t.Context(), tx, []persistence.Op{{Kind: persistence.OpInsert,
			Entity: &persistence.ProcessDefinition{ID: "k:1", Key: "k", Version: 1, DeploymentID: "d", Suspension: 1}}}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			f    any
			want int
		}{
			{persistence.HistoricProcessInstanceFilter{}, 47},
			{persistence.HistoricProcessInstanceFilter{ProcessDefinitionKey: "k"}, 42},
			{persistence.HistoricProcessInstanceFilter{ProcessDefinitionKey: "k", Finished: true}, 3},
			{persistence.HistoricProcessInstanceFilter{Unfinished: true}, 44},
			{persistence.HistoricProcessInstanceFilter{ProcessDefinitionID: "o:1", Completed: true}, 0},
			{persistence.HistoricProcessInstanceFilter{ProcessDefinitionKeyIn: []string{"k", "o"}, State: "ACTIVE"}, 44},
			{persistence.HistoricProcessInstanceFilter{BusinessKey: "b"}, 0}, // the rows: none
			{persistence.TaskFilter{}, 11},
			{persistence.TaskFilter{TaskDefinitionKey: "work"}, 10},
			{persistence.TaskFilter{ProcessDefinitionKey: "k"}, 11},
			{persistence.TaskFilter{ProcessDefinitionKey: "none"}, 0},
			{persistence.TaskFilter{Tenants: persistence.Tenants{TenantIDIn: []string{"a", "b"}}}, 4},
			{persistence.TaskFilter{Tenants: persistence.Tenants{WithoutTenantID: true}}, 7},
			{persistence.TaskFilter{TaskDefinitionKeyIn: []string{"check"}, Tenants: persistence.Tenants{TenantIDIn: []string{"b"}}}, 1},
			{persistence.TaskFilter{Assigned: true}, 0},                                         // the rows: none
			{persistence.TaskFilter{Tenants: persistence.Tenants{TenantIDIn: []string{""}}}, 0}, // the rows: "" is no tenant's id
		} {
			if got := countOf(t, db, c.f); got != c.want {
				t.Errorf("count %+v = %d, want %d", c.f, got, c.want)
			}
		}
		if err := persistence.MergeCounts(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, "SELECT count(*) FROM count_delta"); n != 0 {
			t.Errorf("%d deltas left after a merge", n)
		}
		if got := countOf(t, db, persistence.HistoricProcessInstanceFilter{ProcessDefinitionKey: "k", Finished: true}); got != 3 {
			t.Errorf("after the merge: %d finished, want 3", got)
		}
	})
}

// Writers on several connections start, end, complete and remove rows
// while merges run, two at a time; at the end every kept count equals
// count(*).
func TestKeptCountsConcurrentMerges(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db, other := b.Open(t), b.Open(t)
			ctx := t.Context()
			stop := make(chan struct{})
			var merges sync.WaitGroup
			mergeErrs := make(chan error, 2)
			for _, d := range []persistence.DB{db, other} {
				merges.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						time.Sleep(time.Millisecond)
						if err := persistence.MergeCounts(ctx, d); err != nil {
							mergeErrs <- err
							return
						}
					}
				})
			}
			var writers sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				writers.Go(func() {
					for i := range 30 {
						if err := writeRound(ctx, db, fmt.Sprintf("w%d-%d", w, i), w); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			writers.Wait()
			close(stop)
			merges.Wait()
			close(errs)
			close(mergeErrs)
			for err := range errs {
				t.Fatal(err)
			}
			for err := range mergeErrs {
				t.Fatal(err)
			}
			for _, f := range []any{
				persistence.HistoricProcessInstanceFilter{},
				persistence.HistoricProcessInstanceFilter{Finished: true},
				persistence.HistoricProcessInstanceFilter{Completed: true},
				persistence.HistoricProcessInstanceFilter{ExternallyTerminated: true},
				persistence.HistoricProcessInstanceFilter{ProcessDefinitionKey: "k1"},
				persistence.TaskFilter{},
				persistence.TaskFilter{TaskDefinitionKey: "work"},
				persistence.TaskFilter{Tenants: persistence.Tenants{TenantIDIn: []string{"t1"}}},
			} {
				var want int
				var err error
				switch f := f.(type) {
				case persistence.HistoricProcessInstanceFilter:
					want, err = persistence.Count(ctx, db, f.Query())
				case persistence.TaskFilter:
					want, err = persistence.Count(ctx, db, f.Query())
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := countOf(t, db, f); got != want || want == 0 {
					t.Errorf("count %+v = %d, count(*) %d", f, got, want)
				}
			}
		})
	}
}

// writeRound is one writer's round, each step a transaction: two
// instances start with a task each; the first one's task completes and it
// ends (an update of the row it read), the second ends by a write (as an
// instance whose history an earlier transaction wrote); a third instance
// starts and ends in one transaction and its history is removed; a
// fourth one stays with its task open.
func writeRound(ctx context.Context, db persistence.DB, id string, w int) error {
	now := time.Now().UTC()
	tenant := fmt.Sprintf("t%d", w%2)
	key := fmt.Sprintf("k%d", w%3)
	hpi := func(n string) *persistence.HistoricProcessInstance {
		return &persistence.HistoricProcessInstance{ID: id + n, ProcessDefinitionID: key + ":1", ProcessDefinitionKey: key, StartTime: now,
			State: persistence.StateActive, TenantID: tenant}
	}
	task := func(n string) *persistence.Task {
		return &persistence.Task{ID: id + n + "t", ProcessInstanceID: id + n, ProcessDefinitionID: key + ":1", TaskDefinitionKey: "work",
			CreateTime: now, Suspension: 1, TenantID: tenant}
	}
	a, b, d := hpi("a"), hpi("b"), hpi("d")
	ta, tb, td := task("a"), task("b"), task("d")
	flush := func(ops []persistence.Op, writes ...persistence.Write) error {
		for {
			tx, err := db.Begin(ctx, false)
			if err != nil {
				return err
			}
			err = persistence.FlushCommit(ctx, tx, ops, writes...)
			if err == nil {
				return nil
			}
			_ = tx.Rollback(ctx)
			if !errors.Is(err, persistence.ErrSerialization) {
				return err
			}
		}
	}
	ins := func(e persistence.Entity) persistence.Op {
		return persistence.Op{Kind: persistence.OpInsert, Entity: e}
	}
	if err := flush([]persistence.Op{ins(a), ins(b), ins(d), ins(ta), ins(tb), ins(td)}); err != nil {
		return err
	}
	loaded := persistence.Snapshot(a)
	a.EndTime, a.State = &now, persistence.StateCompleted
	err := flush([]persistence.Op{{Kind: persistence.OpDelete, Entity: ta}, {Kind: persistence.OpUpdate, Entity: a, Loaded: loaded}})
	if err != nil {
		return err
	}
	if err := flush([]persistence.Op{{Kind: persistence.OpDelete, Entity: tb}},
		persistence.EndProcessInstance(b.ID, now, persistence.StateExternallyTerminated, "gone", "")); err != nil {
		return err
	}
	c := hpi("c")
	c.EndTime, c.State = &now, persistence.StateCompleted
	if err := flush([]persistence.Op{ins(c)}); err != nil {
		return err
	}
	return flush(nil, persistence.RemoveHistory([]string{c.ID})...)
}

// An instance's end and a removal of history in one flush, in either
// order, leave the kept counts exact.
func TestKeptCountsEndAndRemovalInOneFlush(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		now := time.Now().UTC()
		flush := func(ops []persistence.Op, writes ...persistence.Write) {
			t.Helper()
			tx, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := persistence.FlushCommit(ctx, tx, ops, writes...); err != nil {
				t.Fatal(err)
			}
		}
		var ops []persistence.Op
		for _, id := range []string{"x", "y", "z", "w"} {
			ops = append(ops, persistence.Op{Kind: persistence.OpInsert, Entity: &persistence.HistoricProcessInstance{ID: id,
				ProcessDefinitionID: "k:1", ProcessDefinitionKey: "k", StartTime: now, State: persistence.StateActive}})
		}
		flush(ops)
		end := func(id string) persistence.Write {
			return persistence.EndProcessInstance(id, now, persistence.StateCompleted, "", "end")
		}
		flush(nil, append([]persistence.Write{end("x")}, persistence.RemoveHistory([]string{"x"})...)...)
		flush(nil, append(persistence.RemoveHistory([]string{"y"}), end("y"))...)
		flush(nil, append(append([]persistence.Write{end("z")}, persistence.RemoveHistory([]string{"w"})...), end("zz"))...)
		for _, c := range []struct {
			f    persistence.HistoricProcessInstanceFilter
			want int
		}{{persistence.HistoricProcessInstanceFilter{}, 1}, {persistence.HistoricProcessInstanceFilter{Finished: true}, 1}, {persistence.HistoricProcessInstanceFilter{Unfinished: true}, 0}} {
			if got := countOf(t, db, c.f); got != c.want {
				t.Errorf("count %+v = %d, want %d", c.f, got, c.want)
			}
			if n, err := persistence.Count(ctx, db, c.f.Query()); err != nil || n != c.want {
				t.Errorf("count(*) %+v = %d (%v), want %d", c.f, n, err, c.want)
			}
		}
	})
}

// On PostgreSQL a merge vacuums the deltas it deleted: count_delta keeps
// no dead rows for the counts to scan, even with autovacuum off.
func TestKeptCountsVacuumed(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		if db.Dialect() != persistence.Postgres {
			t.Skip("SQLite frees deleted rows' pages")
		}
		exec(t, db, "INSERT INTO count_delta (kind, definition_key, definition_id, tenant_id, sub, delta)"+
			" SELECT 'hpi', 'k', 'k:1', '', 'ACTIVE', 1 FROM generate_series(1, 20000)")
		if err := persistence.MergeCounts(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, "SELECT pg_relation_size('count_delta')"); n != 0 {
			// Another session's open snapshot keeps dead rows from any vacuum.
			if countRows(t, db, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_xmin IS NOT NULL AND pid <> pg_backend_pid()") > 0 {
				t.Skipf("count_delta keeps %d bytes: another session's snapshot holds its dead rows", n)
			}
			t.Errorf("count_delta keeps %d bytes after a merge", n)
		}
		if got := countOf(t, db, persistence.HistoricProcessInstanceFilter{}); got != 20000 {
			t.Errorf("count %d, want 20000", got)
		}
	})
}
