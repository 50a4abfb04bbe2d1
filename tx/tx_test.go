package tx_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

var now = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)

func executor(db persistence.DB) *tx.Executor {
	return &tx.Executor{DB: db, Clock: func() time.Time { return now }, Log: slog.New(slog.DiscardHandler)}
}

func execution(id string) *persistence.Execution {
	return &persistence.Execution{ID: id, ProcessInstanceID: id, ProcessDefinitionID: "p:1:x", IsActive: true, Suspension: persistence.Active, StartTime: now}
}

// stored reads execution id in a command of its own; nil when there is none.
func stored(t *testing.T, x *tx.Executor, id string) *persistence.Execution {
	t.Helper()
	var out *persistence.Execution
	err := x.Run(t.Context(), func(cc *tx.Context) error {
		e, err := cc.Get(persistence.ExecutionTable, id)
		if errors.Is(err, persistence.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		out = e.(*persistence.Execution)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return out
}

func insert(t *testing.T, x *tx.Executor, ids ...string) {
	t.Helper()
	err := x.Run(t.Context(), func(cc *tx.Context) error {
		for _, id := range ids {
			cc.Insert(execution(id))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A command commits when its function returns nil and stores nothing
// otherwise; a panic is an error with its stack; after-commit hooks run
// after a commit only.
func TestRun(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		hooks := 0
		if err := x.Run(t.Context(), func(cc *tx.Context) error {
			cc.Insert(execution("kept"))
			cc.AfterCommit(func() { hooks++ })
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		if err := x.Run(t.Context(), func(cc *tx.Context) error {
			cc.Insert(execution("failed"))
			cc.AfterCommit(func() { hooks++ })
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("failing command: %v", err)
		}
		err := x.Run(t.Context(), func(cc *tx.Context) error {
			cc.Insert(execution("panicked"))
			cc.AfterCommit(func() { hooks++ })
			panic("oops")
		})
		var pe *tx.PanicError
		if !errors.As(err, &pe) || pe.Value != "oops" || !strings.Contains(pe.Stack, "tx_test.go") {
			t.Fatalf("panicking command: %v, want a PanicError with the stack", err)
		}
		if stored(t, x, "kept") == nil || stored(t, x, "failed") != nil || stored(t, x, "panicked") != nil {
			t.Error("kept, failed, panicked: want only kept stored")
		}
		if hooks != 1 {
			t.Errorf("after-commit hooks ran %d times, want once", hooks)
		}
	})
}

// The cache is an identity map: one instance per row in a command; what
// the command inserted, updated or deleted is seen as such, and written
// once with its final state.
func TestIdentityMap(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		insert(t, x, "one", "gone")
		err := x.Run(t.Context(), func(cc *tx.Context) error {
			a, err := cc.Get(persistence.ExecutionTable, "one")
			if err != nil {
				return err
			}
			b, _ := cc.Get(persistence.ExecutionTable, "one")
			if a != b {
				t.Error("two reads of one row gave two instances")
			}
			g, _ := cc.Get(persistence.ExecutionTable, "gone")
			cc.Delete(g)
			if !cc.IsDeleted(g) {
				t.Error("IsDeleted is false after Delete")
			}
			if _, err := cc.Get(persistence.ExecutionTable, "gone"); !errors.Is(err, persistence.ErrNotFound) {
				t.Errorf("Get of a deleted row: %v, want ErrNotFound", err)
			}
			n := execution("new")
			cc.Insert(n)
			n.ActivityID = "final"
			cc.Update(n) // written by the insert, with its final state
			tmp := execution("temporary")
			cc.Insert(tmp)
			cc.Delete(tmp) // never written
			cached := cc.Cached(persistence.ExecutionTable, func(e persistence.Entity) bool { return persistence.EntityID(e) == "new" })
			if len(cached) != 1 || cached[0] != n {
				t.Errorf("Cached found %d rows, want the inserted one", len(cached))
			}
			rows, err := tx.Select(cc, persistence.ExecutionsOfInstance("one"))
			if err != nil || len(rows) != 1 || rows[0] != a.(*persistence.Execution) {
				t.Errorf("Select gave %d rows (%v), want the cached instance", len(rows), err)
			}
			if rows, _ := tx.Select(cc, persistence.ExecutionsOfInstance("gone")); len(rows) != 0 {
				t.Error("Select returned a row the command deleted")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := stored(t, x, "new"); n == nil || n.ActivityID != "final" || n.Rev != 1 {
			t.Errorf("inserted then updated: %+v, want activity final at revision 1", n)
		}
		if stored(t, x, "gone") != nil || stored(t, x, "temporary") != nil {
			t.Error("a deleted row is still stored")
		}
	})
}

// Two commands that read the same row and both change it, concurrently:
// exactly one commits, the other fails with ErrOptimisticLock. With a
// single writer the second command begins only after the first ended, so
// both commit, one after the other.
func TestConcurrentUpdatesConflict(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		insert(t, x, "shared")
		if db.Capabilities().SingleWriter {
			for _, activity := range []string{"left", "right"} {
				if err := x.Run(t.Context(), func(cc *tx.Context) error {
					e, err := cc.Get(persistence.ExecutionTable, "shared")
					if err != nil {
						return err
					}
					e.(*persistence.Execution).ActivityID = activity
					cc.Update(e)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if e := stored(t, x, "shared"); e.Rev != 3 || e.ActivityID != "right" {
				t.Errorf("after two updates: %+v, want right at revision 3", e)
			}
			return
		}
		read := sync.WaitGroup{}
		read.Add(2)
		errs := make(chan error, 2)
		for _, activity := range []string{"left", "right"} {
			go func() {
				errs <- x.Run(t.Context(), func(cc *tx.Context) error {
					e, err := cc.Get(persistence.ExecutionTable, "shared")
					read.Done()
					if err != nil {
						return err
					}
					read.Wait() // both have read revision 1 before either writes
					e.(*persistence.Execution).ActivityID = activity
					cc.Update(e)
					return nil
				})
			}()
		}
		var won, lost int
		for range 2 {
			switch err := <-errs; {
			case err == nil:
				won++
			case errors.Is(err, persistence.ErrOptimisticLock):
				lost++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if won != 1 || lost != 1 {
			t.Errorf("%d commits and %d conflicts, want 1 and 1", won, lost)
		}
		if e := stored(t, x, "shared"); e.Rev != 2 || (e.ActivityID != "left" && e.ActivityID != "right") {
			t.Errorf("after the race: %+v, want one writer's activity at revision 2", e)
		}
	})
}

// Rolling back to a savepoint undoes what followed it, in the database and
// in the cache, and drops the hooks registered since; what came before
// commits.
func TestSavepoints(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		insert(t, x, "changed")
		var ran []string
		err := x.Run(t.Context(), func(cc *tx.Context) error {
			cc.Insert(execution("before"))
			cc.AfterCommit(func() { ran = append(ran, "before") })
			if err := cc.Savepoint("sp"); err != nil {
				return err
			}
			cc.Insert(execution("after"))
			e, err := cc.Get(persistence.ExecutionTable, "changed")
			if err != nil {
				return err
			}
			e.(*persistence.Execution).ActivityID = "rolled back"
			cc.Update(e)
			cc.AfterCommit(func() { ran = append(ran, "after") })
			if err := cc.Flush(); err != nil {
				return err
			}
			if err := cc.RollbackTo("sp"); err != nil {
				return err
			}
			if _, err := cc.Get(persistence.ExecutionTable, "after"); !errors.Is(err, persistence.ErrNotFound) {
				t.Errorf("a row inserted after the savepoint is still found: %v", err)
			}
			e, err = cc.Get(persistence.ExecutionTable, "changed")
			if err != nil || e.(*persistence.Execution).ActivityID != "" {
				t.Errorf("after the rollback the cache still has the change: %+v %v", e, err)
			}
			if err := cc.Savepoint("kept"); err != nil {
				return err
			}
			cc.Insert(execution("released"))
			return cc.Release("kept")
		})
		if err != nil {
			t.Fatal(err)
		}
		if stored(t, x, "before") == nil || stored(t, x, "after") != nil || stored(t, x, "released") == nil {
			t.Error("want before and released stored, after rolled back")
		}
		if e := stored(t, x, "changed"); e.ActivityID != "" || e.Rev != 1 {
			t.Errorf("changed: %+v, want untouched", e)
		}
		if strings.Join(ran, ",") != "before" {
			t.Errorf("hooks ran: %v, want only the one registered before the savepoint", ran)
		}
	})
}

// A command run in the caller's transaction commits and rolls back with
// it; a failing one rolls back only to its own savepoint.
func TestRunIn(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		ctx := t.Context()
		for _, commit := range []bool{true, false} {
			caller, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			id := map[bool]string{true: "committed", false: "rolled-back"}[commit]
			if err := x.RunIn(ctx, caller, func(cc *tx.Context) error {
				if !cc.InCallerTx {
					t.Error("InCallerTx is false in RunIn")
				}
				cc.Insert(execution(id))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			if err := x.RunIn(ctx, caller, func(cc *tx.Context) error {
				cc.Insert(execution(id + "-failed"))
				return boom
			}); !errors.Is(err, boom) {
				t.Fatalf("failing command: %v", err)
			}
			if commit {
				err = caller.Commit(ctx)
			} else {
				err = caller.Rollback(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := stored(t, x, id) != nil; got != commit {
				t.Errorf("%s: stored %v", id, got)
			}
			if stored(t, x, id+"-failed") != nil {
				t.Errorf("%s-failed is stored", id)
			}
		}
	})
}

// Flush writes pending changes and reports a conflict as ErrOptimisticLock
// in the same transaction; Commit then fails, and the command rolls back.
func TestFlushConflict(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		x := executor(db)
		insert(t, x, "row")
		err := x.Run(context.Background(), func(cc *tx.Context) error {
			e, err := cc.Get(persistence.ExecutionTable, "row")
			if err != nil {
				return err
			}
			stale := *e.(*persistence.Execution)
			stale.Rev = 7 // a revision the row never had
			cc.Reset()
			cc.Update(&stale)
			return cc.Flush()
		})
		if !errors.Is(err, persistence.ErrOptimisticLock) {
			t.Fatalf("flush of a stale row: %v, want ErrOptimisticLock", err)
		}
		if e := stored(t, x, "row"); e.Rev != 1 {
			t.Errorf("row at revision %d after the failed command, want 1", e.Rev)
		}
	})
}
