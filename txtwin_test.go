package bpmnlite_test

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// A service starts a process atomically with its own rows: both commit
// together or neither does.
func TestStartTxJoinsTheCallersTransaction(t *testing.T) {
	b := testdb.Postgres(t)
	e := openEnv(t, b, bpmnlite.Config{})
	e.Deploy("p", harness.UserTaskProcess)
	pool := harness.CallerPool(t, b)
	if _, err := pool.Exec(e.Ctx, "CREATE TABLE orders (id text PRIMARY KEY, process_instance text)"); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var n int
		if err := pool.QueryRow(e.Ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Rolled back by the caller: neither the order nor the instance exists.
	tx, err := pool.Begin(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	pi, err := e.Eng.StartTx(e.Ctx, tx, bpmnlite.StartRequest{Key: "p", BusinessKey: "o1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.Ctx, "INSERT INTO orders VALUES ('o1', $1)", pi); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if n := count("SELECT count(*) FROM orders") + count("SELECT count(*) FROM execution"); n != 0 {
		t.Fatalf("after the caller's rollback %d rows remain", n)
	}

	// Committed by the caller: both exist, and the task completes in a
	// second caller transaction.
	tx, _ = pool.Begin(e.Ctx)
	pi, err = e.Eng.StartTx(e.Ctx, tx, bpmnlite.StartRequest{Key: "p", BusinessKey: "o2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.Ctx, "INSERT INTO orders VALUES ('o2', $1)", pi); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.TaskKeys(pi); got != "work" {
		t.Fatalf("open tasks %q", got)
	}
	e.Eng.RegisterDelegate("after", harness.SetVars(map[string]any{"archived": true}))
	tx, _ = pool.Begin(e.Ctx)
	if err := e.Eng.CompleteTaskTx(e.Ctx, tx, e.Tasks(pi)[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.Ctx, "UPDATE orders SET id = 'o2-done' WHERE id = 'o2'"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.State(pi); got != "COMPLETED" || count("SELECT count(*) FROM orders WHERE id = 'o2-done'") != 1 {
		t.Fatalf("state %s after CompleteTaskTx", got)
	}

	// A failing command inside the caller's transaction rolls back only
	// its own work: the caller's rows stay and the caller may commit.
	tx, _ = pool.Begin(e.Ctx)
	if _, err := tx.Exec(e.Ctx, "INSERT INTO orders VALUES ('o3', '')"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eng.StartTx(e.Ctx, tx, bpmnlite.StartRequest{Key: "missing"}); !errors.Is(err, bpmnlite.ErrNotFound) {
		t.Fatalf("start of an unknown key: %v", err)
	}
	if err := tx.Commit(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if count("SELECT count(*) FROM orders WHERE id = 'o3'") != 1 {
		t.Fatal("the caller's row was lost with the failed command")
	}
}

func TestTxTwinsNeedPostgres(t *testing.T) {
	e := openEnv(t, testdb.SQLiteFile(t), bpmnlite.Config{})
	if _, err := e.Eng.StartTx(e.Ctx, nil, bpmnlite.StartRequest{Key: "p"}); !errors.Is(err, bpmnlite.ErrBackend) {
		t.Fatalf("StartTx on SQLite: %v, want ErrBackend", err)
	}
}

// Deploying from an fs.FS (an embed.FS in a service) picks the BPMN files.
func TestDeployFS(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		fsys := fstest.MapFS{
			"processes/p.bpmn":   {Data: []byte(harness.UserTaskProcess)},
			"processes/notes.md": {Data: []byte("not BPMN")},
		}
		d, err := e.Eng.DeployFS(e.Ctx, "svc", fsys, "processes/*.bpmn")
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Definitions) != 1 || d.Definitions[0].Key != "p" {
			t.Fatalf("deployed %+v", d.Definitions)
		}
		if _, err := e.Eng.DeployFS(e.Ctx, "svc", fsys, "nothing/*.bpmn"); err == nil {
			t.Fatal("a pattern matching nothing deployed")
		}
	})
}

// MigrateTx migrates in the caller's transaction: a rollback leaves the
// instance in its version, a commit moves it.
func TestMigrateTxJoinsTheCallersTransaction(t *testing.T) {
	b := testdb.Postgres(t)
	e := openEnv(t, b, bpmnlite.Config{})
	e.Deploy("v1", harness.UserTaskProcess)
	pi := e.Start("p", nil)
	e.Deploy("v2", harness.UserTaskProcess+"<!-- v2 -->")
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "p"})
	if err != nil || len(defs) != 2 {
		t.Fatal(defs, err)
	}
	src, tgt := defs[0].ID, defs[1].ID
	if defs[0].Version == 2 {
		src, tgt = tgt, src
	}
	plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt, false)
	if err != nil {
		t.Fatal(err)
	}
	pool := harness.CallerPool(t, b)
	definitionOfTask := func() string { return e.Tasks(pi)[0].ProcessDefinitionID }
	for _, commit := range []bool{false, true} {
		tx, err := pool.Begin(e.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.MigrateTx(e.Ctx, tx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: []string{pi}}); err != nil {
			t.Fatal(err)
		}
		end, want := tx.Rollback, src
		if commit {
			end, want = tx.Commit, tgt
		}
		if err := end(e.Ctx); err != nil {
			t.Fatal(err)
		}
		if got := definitionOfTask(); got != want {
			t.Errorf("commit %v: task in %s, want %s", commit, got, want)
		}
	}
}

// A modification inside the caller's transaction commits or rolls back
// with it.
func TestModifyProcessInstanceTxJoinsTheCallersTransaction(t *testing.T) {
	b := testdb.Postgres(t)
	e := openEnv(t, b, bpmnlite.Config{})
	e.Deploy("p", harness.UserTaskProcess)
	pool := harness.CallerPool(t, b)
	pi := e.Start("p", nil)
	req := bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
		{Type: bpmnlite.CancelAllForActivity, ActivityID: "work"},
		{Type: bpmnlite.StartBeforeActivity, ActivityID: "work", LocalVariables: map[string]any{"again": true}}}}
	for _, commit := range []bool{false, true} {
		tx, err := pool.Begin(e.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		before := e.Tasks(pi)[0].ID
		if err := e.Eng.ModifyProcessInstanceTx(e.Ctx, tx, pi, req); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit(e.Ctx)
		} else {
			err = tx.Rollback(e.Ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		if after := e.Tasks(pi)[0].ID; (after != before) != commit {
			t.Errorf("commit %v: task %s before, %s after", commit, before, after)
		}
	}
}
