package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

func begin(t *testing.T, db persistence.DB) persistence.Tx {
	t.Helper()
	tx, err := db.Begin(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(context.Background()) })
	return tx
}

func commit(t *testing.T, tx persistence.Tx) {
	t.Helper()
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func execution(id string) *persistence.Execution {
	return &persistence.Execution{ID: id, ProcessInstanceID: id, ProcessDefinitionID: "p:1:x", StartTime: at(0, 0)}
}

func ins(e persistence.Entity) persistence.Op {
	return persistence.Op{Kind: persistence.OpInsert, Entity: e}
}
func upd(e persistence.Entity) persistence.Op {
	return persistence.Op{Kind: persistence.OpUpdate, Entity: e}
}
func del(e persistence.Entity) persistence.Op {
	return persistence.Op{Kind: persistence.OpDelete, Entity: e}
}

func exists(t *testing.T, tx persistence.Tx, table *persistence.Table, id string) bool {
	t.Helper()
	_, err := persistence.Get(t.Context(), tx, table, id)
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestOptimisticLock(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		e := execution("e1")
		if err := persistence.Insert(ctx, tx, e); err != nil {
			t.Fatal(err)
		}
		stale := *e
		e.ActivityID = "a"
		if err := persistence.Update(ctx, tx, e); err != nil {
			t.Fatal(err)
		}

		err := persistence.Update(ctx, tx, &stale)
		var lockErr *persistence.OptimisticLockError
		if !errors.Is(err, persistence.ErrOptimisticLock) || !errors.As(err, &lockErr) {
			t.Fatalf("stale update: %v, want ErrOptimisticLock", err)
		}
		if got, want := err.Error(), "Execution[e1] was updated by another transaction concurrently"; got != want {
			t.Errorf("message %q, want %q", got, want)
		}
		if lockErr.Op != persistence.OpUpdate || lockErr.Entity != "Execution" || lockErr.ID != "e1" || lockErr.Rev != 1 {
			t.Errorf("error fields %+v", lockErr)
		}
		if stale.Rev != 1 {
			t.Errorf("failed update bumped the revision to %d", stale.Rev)
		}

		err = persistence.Delete(ctx, tx, &stale)
		if !errors.Is(err, persistence.ErrOptimisticLock) || err.Error() != "Execution[e1] was updated or deleted by another transaction concurrently" {
			t.Errorf("stale delete: %v", err)
		}
		got, err := persistence.GetAs[*persistence.Execution](ctx, tx, "e1")
		if err != nil || got.Rev != 2 || got.ActivityID != "a" {
			t.Fatalf("row after conflicts: %v %+v", err, got)
		}
		// A bump-only update (as at a join) of an unchanged entity conflicts too.
		if err := persistence.Update(ctx, tx, got); err != nil || got.Rev != 3 {
			t.Fatalf("bump: %v rev %d", err, got.Rev)
		}
		if err := persistence.Update(ctx, tx, e); !errors.Is(err, persistence.ErrOptimisticLock) {
			t.Errorf("update after bump: %v", err)
		}

		// Immutable rows have no revision; deleting a missing one conflicts.
		d := &persistence.Deployment{ID: "d", DeployTime: at(0, 0)}
		if err := persistence.Insert(ctx, tx, d); err != nil {
			t.Fatal(err)
		}
		if err := persistence.Delete(ctx, tx, d); err != nil {
			t.Fatal(err)
		}
		if err := persistence.Delete(ctx, tx, d); !errors.Is(err, persistence.ErrOptimisticLock) || !strings.Contains(err.Error(), "Deployment[d]") {
			t.Errorf("second delete: %v", err)
		}
	})
}

// TestConcurrentUpdate runs two transactions that read the same execution
// at the same revision and both update it: exactly one may commit.
func TestConcurrentUpdate(t *testing.T) {
	db := testdb.Postgres(t).Open(t)
	ctx := t.Context()
	tx := begin(t, db)
	if err := persistence.Insert(ctx, tx, execution("pi")); err != nil {
		t.Fatal(err)
	}
	commit(t, tx)

	for round := range 5 {
		var read, done sync.WaitGroup
		read.Add(2)
		errs := make([]error, 2)
		for i := range 2 {
			done.Go(func() {
				errs[i] = func() error {
					tx, err := db.Begin(ctx, false)
					if err != nil {
						read.Done()
						return err
					}
					defer tx.Rollback(ctx)
					e, err := persistence.GetAs[*persistence.Execution](ctx, tx, "pi")
					read.Done()
					if err != nil {
						return err
					}
					read.Wait() // both have read the same revision
					e.ActivityID = fmt.Sprintf("branch%d", i)
					if err := persistence.Flush(ctx, tx, []persistence.Op{upd(e)}); err != nil {
						return err
					}
					return tx.Commit(ctx)
				}()
			})
		}
		done.Wait()
		var ok, conflicts int
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, persistence.ErrOptimisticLock):
				conflicts++
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if ok != 1 || conflicts != 1 {
			t.Fatalf("round %d: %d commits, %d conflicts; want 1 and 1", round, ok, conflicts)
		}
		tx := begin(t, db)
		e, err := persistence.GetAs[*persistence.Execution](ctx, tx, "pi")
		if err != nil || e.Rev != round+2 {
			t.Fatalf("round %d: rev %d, err %v", round, e.Rev, err)
		}
		tx.Rollback(ctx)
	}
}

// recordingTx records the statements Flush batches.
type recordingTx struct {
	persistence.Tx
	batches [][]persistence.Stmt
}

func (r *recordingTx) Batch(ctx context.Context, stmts []persistence.Stmt) ([]int64, error) {
	r.batches = append(r.batches, stmts)
	return r.Tx.Batch(ctx, stmts)
}

func TestFlush(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		oldExec, oldVar, oldJob := execution("old"), &persistence.Variable{ID: "oldv", Name: "x", Type: persistence.VarLong}, &persistence.Job{ID: "oldj", Type: persistence.JobMessage, HandlerType: "h", Suspension: 1, CreateTime: at(0, 0)}
		updated := execution("upd")
		for _, e := range []persistence.Entity{oldExec, oldVar, oldJob, updated} {
			if err := persistence.Insert(ctx, tx, e); err != nil {
				t.Fatal(err)
			}
		}
		updated.ActivityID = "next"
		dep := &persistence.Deployment{ID: "dep", DeployTime: at(0, 0)}
		def := &persistence.ProcessDefinition{ID: "p:1:x", Key: "p", Version: 1, DeploymentID: "dep", Suspension: 1}
		child, parent := execution("child"), execution("parent")
		child.ParentID = "parent"
		v := &persistence.Variable{ID: "v", Name: "n", Type: persistence.VarString, ExecutionID: "child", Text: "t"}
		hist := &persistence.HistoricProcessInstance{ID: "parent", ProcessDefinitionID: "p:1:x", StartTime: at(0, 0), State: persistence.StateActive}
		ops := []persistence.Op{
			del(oldExec),
			ins(hist),
			del(oldJob),
			ins(v),
			upd(updated),
			ins(child),
			ins(parent),
			del(oldVar),
			ins(def),
			ins(dep),
		}
		rec := &recordingTx{Tx: tx}
		if err := persistence.Flush(ctx, rec, ops); err != nil {
			t.Fatal(err)
		}
		if len(rec.batches) != 1 {
			t.Fatalf("%d batches, want 1", len(rec.batches))
		}
		var got []string
		for _, st := range rec.batches[0] {
			words := strings.Fields(st.SQL)
			table := words[2] // INSERT INTO t, DELETE FROM t
			if words[0] == "UPDATE" {
				table = words[1]
			}
			got = append(got, words[0]+" "+table+" "+st.Args[0].(string))
		}
		want := []string{
			"INSERT deployment dep", "INSERT process_definition p:1:x",
			"INSERT execution child", "INSERT execution parent", // stable: the caller's order within a table
			"INSERT variable v", "INSERT hist_process_instance parent",
			"UPDATE execution upd",
			"DELETE job oldj", "DELETE variable oldv", "DELETE execution old",
			"INSERT count_delta hpi", // the kept counts' change: one statement, last
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("flush order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if updated.Rev != 2 || v.Rev != 1 || persistence.Revision(dep) != 1 {
			t.Errorf("revisions: updated %d, v %d", updated.Rev, v.Rev)
		}
		for _, c := range []struct {
			table *persistence.Table
			id    string
			want  bool
		}{
			{persistence.ExecutionTable, "old", false}, {persistence.VariableTable, "oldv", false},
			{persistence.JobTable, "oldj", false}, {persistence.ExecutionTable, "child", true},
			{persistence.DeploymentTable, "dep", true}, {persistence.HistoricProcessInstanceTable, "parent", true},
		} {
			if exists(t, tx, c.table, c.id) != c.want {
				t.Errorf("%s[%s] exists: %v", c.table.Name, c.id, !c.want)
			}
		}
		if err := persistence.Flush(ctx, tx, nil); err != nil {
			t.Errorf("empty flush: %v", err)
		}
	})
}

func TestFlushConflict(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		a, b := execution("a"), execution("b")
		for _, e := range []persistence.Entity{a, b} {
			if err := persistence.Insert(ctx, tx, e); err != nil {
				t.Fatal(err)
			}
		}
		staleB := *b
		if err := persistence.Update(ctx, tx, b); err != nil {
			t.Fatal(err)
		}
		err := persistence.Flush(ctx, tx, []persistence.Op{
			upd(a),
			upd(&staleB),
			ins(execution("c")),
		})
		var lockErr *persistence.OptimisticLockError
		if !errors.Is(err, persistence.ErrOptimisticLock) || !errors.As(err, &lockErr) || lockErr.ID != "b" ||
			!strings.Contains(err.Error(), "Execution[b] was updated by another transaction concurrently") {
			t.Fatalf("flush with a stale entity: %v", err)
		}
		if a.Rev != 1 {
			t.Errorf("a failed flush bumped a's revision to %d", a.Rev)
		}
	})
}

func TestDuplicate(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		if err := tx.Savepoint(ctx, "before"); err != nil {
			t.Fatal(err)
		}
		if err := persistence.Insert(ctx, tx, execution("e")); err != nil {
			t.Fatal(err)
		}
		err := persistence.Insert(ctx, tx, execution("e"))
		if !errors.Is(err, persistence.ErrDuplicate) || !strings.Contains(err.Error(), "Execution[e]") {
			t.Fatalf("duplicate id: %v", err)
		}
		// PostgreSQL aborts the transaction on an error; go back to before it.
		if err := tx.RollbackTo(ctx, "before"); err != nil {
			t.Fatal(err)
		}
		err = persistence.Flush(ctx, tx, []persistence.Op{
			ins(&persistence.ProcessDefinition{ID: "p:1:a", Key: "p", Version: 1, DeploymentID: "d", Suspension: 1}),
			ins(&persistence.ProcessDefinition{ID: "p:1:b", Key: "p", Version: 1, DeploymentID: "d", Suspension: 1}),
		})
		if !errors.Is(err, persistence.ErrDuplicate) || !strings.Contains(err.Error(), "insert ProcessDefinition[p:1:b]") {
			t.Fatalf("duplicate key and version: %v", err)
		}
	})
}

func TestSavepoints(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		if err := persistence.Insert(ctx, tx, execution("kept")); err != nil {
			t.Fatal(err)
		}
		if err := tx.Savepoint(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		if err := persistence.Insert(ctx, tx, execution("undone")); err != nil {
			t.Fatal(err)
		}
		if err := tx.RollbackTo(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		if err := persistence.Insert(ctx, tx, execution("after")); err != nil {
			t.Fatal(err)
		}
		if err := tx.Release(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		commit(t, tx)

		tx = begin(t, db)
		for id, want := range map[string]bool{"kept": true, "undone": false, "after": true} {
			if exists(t, tx, persistence.ExecutionTable, id) != want {
				t.Errorf("%s exists: %v, want %v", id, !want, want)
			}
		}
		for _, bad := range []string{"", "1x", "a b", "x; DROP TABLE job", strings.Repeat("a", 64)} {
			if err := tx.Savepoint(ctx, bad); err == nil {
				t.Errorf("savepoint %q accepted", bad)
			}
		}
		// PostgreSQL sends RELEASE with the next statement, so the error may
		// surface there rather than at Release.
		err := tx.Release(ctx, "never_set")
		if err == nil {
			_, err = tx.Exec(ctx, "SELECT 1")
		}
		if err == nil {
			t.Error("release of an unknown savepoint succeeded")
		}
	})
}

func TestRollback(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		if err := persistence.Insert(ctx, tx, execution("gone")); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Errorf("second rollback: %v", err)
		}
		tx = begin(t, db)
		if exists(t, tx, persistence.ExecutionTable, "gone") {
			t.Error("rolled back row exists")
		}
		commit(t, tx)
		if err := tx.Rollback(ctx); err != nil {
			t.Errorf("rollback after commit: %v", err)
		}
	})
}

// An update with the row as loaded writes only the columns that changed:
// a column changed meanwhile by another statement keeps its value, the
// changed ones are written, times changed in place through a pointer count
// as changed, and the revision check and bump still apply.
func TestUpdateWritesChangedColumns(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		due := at(1, 0)
		j := &persistence.Job{ID: "j1", Type: "message", Exclusive: true, ExecutionID: "x1", ProcessInstanceID: "p1",
			Retries: 3, DueDate: &due, HandlerType: "async-before", Priority: 5, Suspension: persistence.Active, CreateTime: at(0, 0)}
		if err := persistence.Flush(ctx, tx, []persistence.Op{ins(j)}); err != nil {
			t.Fatal(err)
		}
		loaded := persistence.Snapshot(j)
		// Another statement changes the priority; the entity still says 5.
		if _, err := tx.Exec(ctx, "UPDATE job SET priority = 42 WHERE id = $1", "j1"); err != nil {
			t.Fatal(err)
		}
		j.Retries = 2
		*j.DueDate = at(2, 0) // changed in place: the snapshot kept its own copy
		if err := persistence.Flush(ctx, tx, []persistence.Op{{Kind: persistence.OpUpdate, Entity: j, Loaded: loaded}}); err != nil {
			t.Fatal(err)
		}
		got, err := persistence.GetAs[*persistence.Job](ctx, tx, "j1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Retries != 2 || got.DueDate == nil || !got.DueDate.Equal(at(2, 0)) || got.Priority != 42 || got.Rev != 2 || j.Rev != 2 {
			t.Errorf("after the update: retries %d, due %v, priority %d, rev %d (entity rev %d); want 2, %v, 42, 2, 2",
				got.Retries, got.DueDate, got.Priority, got.Rev, j.Rev, at(2, 0))
		}

		// Nothing changed: the update still bumps the revision and checks it.
		stale := *j
		loaded = persistence.Snapshot(j)
		if err := persistence.Flush(ctx, tx, []persistence.Op{{Kind: persistence.OpUpdate, Entity: j, Loaded: loaded}}); err != nil {
			t.Fatal(err)
		}
		if j.Rev != 3 {
			t.Errorf("revision %d after an unchanged update, want 3", j.Rev)
		}
		err = persistence.Flush(ctx, tx, []persistence.Op{{Kind: persistence.OpUpdate, Entity: &stale, Loaded: loaded}})
		if !errors.Is(err, persistence.ErrOptimisticLock) {
			t.Errorf("stale update: %v, want ErrOptimisticLock", err)
		}
	})
}

// Inserts into an insert-only table (the job log) share multi-row
// statements of at most 16 rows; a conflict after them is still reported
// for the entity that caused it.
func TestFlushMultiRowInserts(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		logEntries := func(prefix string, n int) []persistence.Op {
			var ops []persistence.Op
			for i := range n {
				ops = append(ops, ins(&persistence.JobLogEntry{ID: fmt.Sprint(prefix, i), JobID: "j" + prefix,
					Event: persistence.JobLogCreated, Timestamp: at(0, 0), Retries: i, ProcessInstanceID: "p1"}))
			}
			return ops
		}
		e := execution("e1")
		if err := persistence.Flush(ctx, tx, append(logEntries("a", 150), ins(e))); err != nil {
			t.Fatal(err)
		}
		rows, err := persistence.SelectAs[*persistence.JobLogEntry](ctx, tx, "WHERE job_id = $1 ORDER BY retries", "ja")
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 150 || rows[149].Retries != 149 || rows[149].ID != "a149" {
			t.Fatalf("%d job log entries after the flush, want 150 in order", len(rows))
		}

		stale := *e
		stale.Rev = 9
		err = persistence.Flush(ctx, tx, append(logEntries("b", 70), upd(&stale)))
		var lockErr *persistence.OptimisticLockError
		if !errors.As(err, &lockErr) || lockErr.ID != "e1" {
			t.Fatalf("flush with a stale update: %v, want an optimistic-lock error for e1", err)
		}
	})
}
