package runtime_test

import (
	"context"
	"errors"

	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// A delegate error rolls the command back to the last wait state: the task
// is still there, the variables set in the failed call are gone.
func TestRollbackToLastWaitState(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		fail := true
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			if err := ex.SetVariable("touched", true); err != nil {
				return err
			}
			if fail {
				return errors.New("service down")
			}
			return nil
		}))
		e.Deploy("p", harness.UserTaskProcess)
		pi := e.Start("p", map[string]any{"n": 1})
		task := e.Tasks(pi)[0]
		err := e.Eng.CompleteTask(e.Ctx, task.ID, map[string]any{"approved": true})
		var de *bpmnlite.DelegateError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "service down") || !strings.Contains(err.Error(), "serviceTask 'after'") {
			t.Fatalf("complete: got %v, want a DelegateError naming serviceTask 'after'", err)
		}
		if got := e.TaskKeys(pi); got != "work" {
			t.Fatalf("after rollback open tasks = %q, want work", got)
		}
		vars, err := e.Eng.Variables(e.Ctx, pi)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := vars["approved"]; ok {
			t.Errorf("variable approved survived the rollback: %v", vars)
		}
		if _, ok := vars["touched"]; ok {
			t.Errorf("variable touched survived the rollback: %v", vars)
		}
		if got := e.Path(pi); got != "start,work" {
			t.Errorf("history after rollback = %q, want start,work", got)
		}
		fail = false
		e.Complete(pi, "work", nil)
		if got := e.State(pi); got != "COMPLETED" {
			t.Errorf("state = %s, want COMPLETED", got)
		}
	})
}

// A start that fails stores nothing: no instance, no history, no variables.
func TestFailedStartSavesNothing(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			panic("delegate exploded")
		}))
		e.Deploy("p", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="boom" />
    <serviceTask id="boom" camunda:class="boom" />
    <sequenceFlow id="f2" sourceRef="boom" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`)
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", BusinessKey: "bk", Variables: map[string]any{"x": 1}})
		if err == nil || !strings.Contains(err.Error(), "delegate exploded") || !strings.Contains(err.Error(), "goroutine") {
			t.Fatalf("start: got %v, want the panic with its stack", err)
		}
		ps, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		if err != nil {
			t.Fatal(err)
		}
		xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 0 || len(xs) != 0 {
			t.Fatalf("failed start left %d instances in history and %d executions", len(ps), len(xs))
		}
	})
}

// Two goroutines complete the same task at once: exactly one succeeds, the
// other fails with an optimistic-lock conflict (or finds the task gone).
func TestCompleteSameTaskConcurrently(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var afterCalls atomic.Int32
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			afterCalls.Add(1)
			return nil
		}))
		e.Deploy("p", harness.UserTaskProcess)
		for round := 0; round < 5; round++ {
			pi := e.Start("p", nil)
			task := e.Tasks(pi)[0]
			var wg sync.WaitGroup
			errs := make([]error, 2)
			startGate := make(chan struct{})
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-startGate
					errs[i] = e.Eng.CompleteTask(e.Ctx, task.ID, map[string]any{"by": i})
				}()
			}
			close(startGate)
			wg.Wait()
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, bpmnlite.ErrOptimisticLock), errors.Is(err, bpmnlite.ErrNotFound):
				default:
					t.Fatalf("unexpected error: %v", err)
				}
			}
			if ok != 1 {
				t.Fatalf("round %d: %d completions succeeded (%v), want exactly 1", round, ok, errs)
			}
			if got := e.State(pi); got != "COMPLETED" {
				t.Fatalf("state = %s", got)
			}
		}
		if got := afterCalls.Load(); got < 5 {
			t.Errorf("after ran %d times, want at least 5 (once per committed completion)", got)
		}
	})
}

// Two branches reach a parallel join in separate, concurrent transactions:
// exactly one continues past the join; the other conflicts.
func TestParallelJoinConcurrently(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("join", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="join" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="a" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="b" />
    <userTask id="a" />
    <userTask id="b" />
    <sequenceFlow id="f4" sourceRef="a" targetRef="j" />
    <sequenceFlow id="f5" sourceRef="b" targetRef="j" />
    <parallelGateway id="j" />
    <sequenceFlow id="f6" sourceRef="j" targetRef="after" />
    <userTask id="after" />
    <sequenceFlow id="f7" sourceRef="after" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`)
		conflicts := 0
		for round := 0; round < 8; round++ {
			pi := e.Start("join", nil)
			ts := e.Tasks(pi)
			if len(ts) != 2 {
				t.Fatalf("want 2 tasks after the fork, got %d", len(ts))
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			gate := make(chan struct{})
			for i, task := range ts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-gate
					errs[i] = e.Eng.CompleteTask(e.Ctx, task.ID, nil)
				}()
			}
			close(gate)
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					if !errors.Is(err, bpmnlite.ErrOptimisticLock) {
						t.Fatalf("unexpected error: %v", err)
					}
					conflicts++
				}
			}
			// Whatever the interleaving, the join never fires twice and
			// never loses an arrival: retry the loser, then exactly one
			// "after" task exists.
			for _, task := range e.Tasks(pi) {
				if task.TaskDefinitionKey != "after" {
					if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := e.TaskKeys(pi); got != "after" {
				t.Fatalf("round %d: open tasks %q, want exactly one after", round, got)
			}
		}
		t.Logf("%d of 8 rounds had a conflicting arrival", conflicts)
	})
}

// A 10,000-step synchronous loop runs in one command without growing the
// Go stack: operations run from a queue, not by recursion.
func TestLongSynchronousLoop(t *testing.T) {
	eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: bpmnlite.HistoryNone}}, func(t *testing.T, e *env) {
		var maxDepth atomic.Int64
		e.Eng.RegisterDelegate("count", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			v, _, err := ex.Variable("i")
			if err != nil {
				return err
			}
			pcs := make([]uintptr, 4096)
			if d := int64(runtime.Callers(0, pcs)); d > maxDepth.Load() {
				maxDepth.Store(d)
			}
			return ex.SetVariable("i", v.(int64)+1)
		}))
		e.Deploy("loop", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="loop" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="count" />
    <serviceTask id="count" camunda:class="count" />
    <sequenceFlow id="f2" sourceRef="count" targetRef="more" />
    <exclusiveGateway id="more" default="done" />
    <sequenceFlow id="again" sourceRef="more" targetRef="count"><conditionExpression>${i lt 10000}</conditionExpression></sequenceFlow>
    <sequenceFlow id="done" sourceRef="more" targetRef="wait" />
    <userTask id="wait" />
  </process>
</definitions>`)
		pi := e.Start("loop", map[string]any{"i": int64(0)})
		v, ok, err := e.Eng.Variable(e.Ctx, pi, "i")
		if err != nil || !ok || v != int64(10000) {
			t.Fatalf("i = %v (%v, %v), want 10000", v, ok, err)
		}
		if d := maxDepth.Load(); d > 200 {
			t.Errorf("stack depth in the delegate reached %d frames: the loop recurses", d)
		}

	})
}
