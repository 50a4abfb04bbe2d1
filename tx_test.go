package bpmnlite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
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
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("approval", enginetest.Process("approval", approvalProcess))
		waiting := e.start("approval", nil)
		task := e.tasks(waiting)[0].ID

		var started string
		var kept *bpmnlite.Tx
		boom := errors.New("changed my mind")
		err := e.eng.InTx(e.ctx, func(tx *bpmnlite.Tx) error {
			kept = tx
			var err error
			if started, err = tx.Start(e.ctx, bpmnlite.StartRequest{Key: "approval", BusinessKey: "rolled-back"}); err != nil {
				return err
			}
			if err := tx.CompleteTask(e.ctx, task, map[string]any{"approved": true}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx returned %v, want fn's error", err)
		}
		if is, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ID: started}); len(is) != 0 {
			t.Errorf("the instance started in a rolled-back transaction exists")
		}
		if e.state(waiting) != bpmnlite.StateActive || len(e.tasks(waiting)) != 1 {
			t.Errorf("the task completed in a rolled-back transaction is gone: state %s", e.state(waiting))
		}
		if _, err := kept.Start(e.ctx, bpmnlite.StartRequest{Key: "approval"}); !errors.Is(err, bpmnlite.ErrTxEnded) {
			t.Errorf("a Tx used after InTx: %v, want ErrTxEnded", err)
		}

		err = e.eng.InTx(e.ctx, func(tx *bpmnlite.Tx) error {
			var err error
			if started, err = tx.Start(e.ctx, bpmnlite.StartRequest{Key: "approval", BusinessKey: "kept"}); err != nil {
				return err
			}
			if err := tx.CompleteTask(e.ctx, "no-such-task", nil); !errors.Is(err, bpmnlite.ErrNotFound) {
				t.Errorf("completing an unknown task: %v, want ErrNotFound", err)
			}
			if err := tx.SetVariables(e.ctx, started, map[string]any{"n": 1}); err != nil {
				return err
			}
			return tx.CompleteTask(e.ctx, task, map[string]any{"approved": true})
		})
		if err != nil {
			t.Fatalf("InTx: %v", err)
		}
		if e.state(waiting) != bpmnlite.StateCompleted || e.state(started) != bpmnlite.StateActive {
			t.Errorf("after commit: waiting %s, started %s; want COMPLETED and ACTIVE", e.state(waiting), e.state(started))
		}
		if v, ok, err := e.eng.Variable(e.ctx, started, "n"); err != nil || !ok || v != int64(1) {
			t.Errorf("variable n = %v, %v, %v; want 1", v, ok, err)
		}
	})
}

// A panic in fn rolls the transaction back and goes on up.
func TestInTxPanic(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("approval", enginetest.Process("approval", approvalProcess))
		var started string
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v, want the panic of fn", r)
				}
			}()
			_ = e.eng.InTx(e.ctx, func(tx *bpmnlite.Tx) error {
				started, _ = tx.Start(e.ctx, bpmnlite.StartRequest{Key: "approval"})
				panic("boom")
			})
		}()
		if is, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ID: started}); started == "" || len(is) != 0 {
			t.Errorf("the instance of a panicking transaction (%q) exists", started)
		}
		// The database is usable afterwards (SQLite's writer was released).
		e.start("approval", nil)
	})
}

// A job created in InTx is picked up as soon as the transaction commits:
// the executor is woken after the commit, not before it (when it would
// find nothing and back off).
func TestInTxWakesExecutorAfterCommit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.eng.RegisterDelegate("work", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.deploy("async", enginetest.AsyncService("async", "work", ""))
		e.jeStart(bpmnlite.JobExecutorConfig{WaitTime: 10 * time.Second, MaxWait: time.Minute})
		time.Sleep(100 * time.Millisecond) // the executor idles in its 10 s wait
		var pi string
		err := e.eng.InTx(e.ctx, func(tx *bpmnlite.Tx) error {
			var err error
			pi, err = tx.Start(e.ctx, bpmnlite.StartRequest{Key: "async"})
			time.Sleep(50 * time.Millisecond) // a woken executor would look now
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		committed := time.Now()
		waitFor(t, "the job to run", 15*time.Second, func() bool { return e.state(pi) == bpmnlite.StateCompleted })
		if d := time.Since(committed); d > 2*time.Second {
			t.Errorf("the job ran %v after the commit, want at once", d)
		}
	})
}
