package bpmnlite_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

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
