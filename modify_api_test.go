package bpmnlite_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

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
