package runtime_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// Restart from history, modelled on Camunda's RestartProcessInstanceSyncTest.

var restartModel = enginetest.Defs(enginetest.Executable("restart",
	`<startEvent id="start"/>
	<userTask id="userTask1"><extensionElements><camunda:executionListener event="start" class="count"/></extensionElements></userTask>
	<userTask id="userTask2"/><endEvent id="end"/>`,
	enginetest.Chain("start", "userTask1", "userTask2", "end")))

func TestRestartProcessInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull}}, func(t *testing.T, e *env) {
		calls := 0
		e.Eng.RegisterDelegate("count", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			calls++
			return nil
		}))
		e.Deploy("restart", restartModel)
		completed := e.Start("restart", map[string]any{"var": "initial"})
		if err := e.Eng.SetVariables(e.Ctx, completed, map[string]any{"var": "last"}); err != nil {
			t.Fatal(err)
		}
		e.Complete(completed, "userTask1", nil)
		e.Complete(completed, "userTask2", nil)
		cancelled := e.Start("restart", map[string]any{"var": "initial"})
		if err := e.Eng.DeleteProcessInstance(e.Ctx, cancelled, "test"); err != nil {
			t.Fatal(err)
		}
		def := e.Instances("restart")[0].ProcessDefinitionID
		restart := func(req bpmnlite.RestartRequest) ([]string, error) {
			return e.Eng.RestartProcessInstances(e.Ctx, def, req)
		}

		// restartProcessInstanceWithTwoInstructions: a completed and a
		// cancelled instance, each with its business key and last
		// variables.
		calls = 0
		ids, err := restart(bpmnlite.RestartRequest{ProcessInstanceIDs: []string{completed, cancelled},
			Instructions: []bpmnlite.ModificationInstruction{startBefore("userTask1"),
				{Type: bpmnlite.StartAfterActivity, ActivityID: "userTask1"}}})
		if err != nil || len(ids) != 2 {
			t.Fatalf("restart: %v %v", ids, err)
		}
		for i, old := range []string{completed, cancelled} {
			hs, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: ids[i]})
			if err != nil || len(hs) != 1 || hs[0].RestartedProcessInstanceID != old {
				t.Errorf("restarted %d: history %+v %v, want restarted from %s", i, hs, err, old)
			}
		}
		for i, want := range []string{"last", "initial"} {
			if got := e.TaskKeys(ids[i]); got != "userTask1,userTask2" {
				t.Errorf("restarted %d: tasks %s", i, got)
			}
			if v := e.Var(ids[i], "var"); v != want {
				t.Errorf("restarted %d: var %v, want %s", i, v, want)
			}
		}
		if calls != 2 {
			t.Errorf("listener calls %d, want 2", calls)
		}

		// shouldRestartProcessInstanceWithInitialVariables, skipping
		// custom listeners, without the business key.
		calls = 0
		ids, err = restart(bpmnlite.RestartRequest{ProcessInstanceIDs: []string{completed}, InitialVariables: true, SkipCustomListeners: true,
			WithoutBusinessKey: true, Instructions: []bpmnlite.ModificationInstruction{startBefore("userTask1")}})
		if err != nil {
			t.Fatal(err)
		}
		if v := e.Var(ids[0], "var"); v != "initial" {
			t.Errorf("initial variables: var %v", v)
		}
		if calls != 0 {
			t.Errorf("listener ran %d times despite SkipCustomListeners", calls)
		}

		// Refusals: a running instance, an unknown one, a cancellation;
		// nothing starts.
		running := ids[0]
		before := len(e.Instances("restart"))
		if _, err := restart(bpmnlite.RestartRequest{ProcessInstanceIDs: []string{completed, running},
			Instructions: []bpmnlite.ModificationInstruction{startBefore("userTask1")}}); !errors.Is(err, bpmnlite.ErrCannotRestart) {
			t.Errorf("restart of a running instance: %v", err)
		}
		if _, err := restart(bpmnlite.RestartRequest{ProcessInstanceIDs: []string{"nope"},
			Instructions: []bpmnlite.ModificationInstruction{startBefore("userTask1")}}); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("restart of an unknown instance: %v", err)
		}
		if _, err := restart(bpmnlite.RestartRequest{ProcessInstanceIDs: []string{completed},
			Instructions: []bpmnlite.ModificationInstruction{{Type: bpmnlite.CancelAllForActivity, ActivityID: "userTask1"}}}); !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Errorf("restart with a cancellation: %v", err)
		}
		if after := len(e.Instances("restart")); after != before {
			t.Errorf("instances %d after refused restarts, want %d", after, before)
		}
	})
}
