package tx_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

const approvalProcess = `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="approve" />
    <userTask id="approve" />
    <sequenceFlow id="f2" sourceRef="approve" targetRef="end" />
    <endEvent id="end" />`

// Commands run through InTx commit together, on both backends: a failing
// fn stores none of them; a command that fails inside is rolled back alone
// and the others commit; a Tx used after InTx returned fails.
func TestInTx(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("approval", enginetest.Process("approval", approvalProcess))
		waiting := e.Start("approval", nil)
		task := e.Tasks(waiting)[0].ID

		var started string
		var kept *bpmnlite.Tx
		boom := errors.New("changed my mind")
		err := e.Eng.InTx(e.Ctx, func(tx *bpmnlite.Tx) error {
			kept = tx
			var err error
			if started, err = tx.Start(e.Ctx, bpmnlite.StartRequest{Key: "approval", BusinessKey: "rolled-back"}); err != nil {
				return err
			}
			if err := tx.CompleteTask(e.Ctx, task, map[string]any{"approved": true}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx returned %v, want fn's error", err)
		}
		if is, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: started}); len(is) != 0 {
			t.Errorf("the instance started in a rolled-back transaction exists")
		}
		if e.State(waiting) != bpmnlite.StateActive || len(e.Tasks(waiting)) != 1 {
			t.Errorf("the task completed in a rolled-back transaction is gone: state %s", e.State(waiting))
		}
		if _, err := kept.Start(e.Ctx, bpmnlite.StartRequest{Key: "approval"}); !errors.Is(err, bpmnlite.ErrTxEnded) {
			t.Errorf("a Tx used after InTx: %v, want ErrTxEnded", err)
		}

		err = e.Eng.InTx(e.Ctx, func(tx *bpmnlite.Tx) error {
			var err error
			if started, err = tx.Start(e.Ctx, bpmnlite.StartRequest{Key: "approval", BusinessKey: "kept"}); err != nil {
				return err
			}
			if err := tx.CompleteTask(e.Ctx, "no-such-task", nil); !errors.Is(err, bpmnlite.ErrNotFound) {
				t.Errorf("completing an unknown task: %v, want ErrNotFound", err)
			}
			if err := tx.SetVariables(e.Ctx, started, map[string]any{"n": 1}); err != nil {
				return err
			}
			return tx.CompleteTask(e.Ctx, task, map[string]any{"approved": true})
		})
		if err != nil {
			t.Fatalf("InTx: %v", err)
		}
		if e.State(waiting) != bpmnlite.StateCompleted || e.State(started) != bpmnlite.StateActive {
			t.Errorf("after commit: waiting %s, started %s; want COMPLETED and ACTIVE", e.State(waiting), e.State(started))
		}
		if v, ok, err := e.Eng.Variable(e.Ctx, started, "n"); err != nil || !ok || v != int64(1) {
			t.Errorf("variable n = %v, %v, %v; want 1", v, ok, err)
		}
	})
}

// A panic in fn rolls the transaction back and goes on up.
func TestInTxPanic(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("approval", enginetest.Process("approval", approvalProcess))
		var started string
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v, want the panic of fn", r)
				}
			}()
			_ = e.Eng.InTx(e.Ctx, func(tx *bpmnlite.Tx) error {
				started, _ = tx.Start(e.Ctx, bpmnlite.StartRequest{Key: "approval"})
				panic("boom")
			})
		}()
		if is, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: started}); started == "" || len(is) != 0 {
			t.Errorf("the instance of a panicking transaction (%q) exists", started)
		}
		// The database is usable afterwards (SQLite's writer was released).
		e.Start("approval", nil)
	})
}

// A job created in InTx is picked up as soon as the transaction commits:
// the executor is woken after the commit, not before it (when it would
// find nothing and back off).
func TestInTxWakesExecutorAfterCommit(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("async", enginetest.AsyncService("async", "work", ""))
		e.StartExecutor(bpmnlite.JobExecutorConfig{WaitTime: 10 * time.Second, MaxWait: time.Minute})
		time.Sleep(100 * time.Millisecond) // the executor idles in its 10 s wait
		var pi string
		err := e.Eng.InTx(e.Ctx, func(tx *bpmnlite.Tx) error {
			var err error
			pi, err = tx.Start(e.Ctx, bpmnlite.StartRequest{Key: "async"})
			time.Sleep(50 * time.Millisecond) // a woken executor would look now
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		committed := time.Now()
		harness.WaitFor(t, "the job to run", 15*time.Second, func() bool { return e.State(pi) == bpmnlite.StateCompleted })
		if d := time.Since(committed); d > 2*time.Second {
			t.Errorf("the job ran %v after the commit, want at once", d)
		}
	})
}
