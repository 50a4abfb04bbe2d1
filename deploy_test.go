package bpmnlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// DeployFiles at every restart makes no new version of unchanged files
// and keeps their timer start jobs; a changed file makes a new version.
func TestDeployFilesSkipsUnchanged(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		path := filepath.Join(t.TempDir(), "nightly.bpmn")
		write := func(cycle string) {
			xml := enginetest.Defs(enginetest.Executable("nightly", `<startEvent id="start"><timerEventDefinition><timeCycle>`+cycle+`</timeCycle></timerEventDefinition></startEvent>
				<endEvent id="end"/>`, enginetest.Chain("start", "end")))
			if err := os.WriteFile(path, []byte(xml), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write("R/PT1H")
		first, err := e.Eng.DeployFiles(e.Ctx, "svc", path)
		if err != nil || first.Unchanged {
			t.Fatalf("first deployment: %+v, %v", first, err)
		}
		jobs := func() []*bpmnlite.Job {
			js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{})
			if err != nil {
				t.Fatal(err)
			}
			return js
		}
		before := jobs()
		again, err := e.Eng.DeployFiles(e.Ctx, "svc", path)
		if err != nil || !again.Unchanged || again.Definitions[0].Version != 1 {
			t.Fatalf("redeploying the same file: %+v, %v; want unchanged, version 1", again, err)
		}
		if after := jobs(); len(after) != 1 || after[0].ID != before[0].ID {
			t.Errorf("timer start jobs %v after an unchanged deployment, want the same one", after)
		}
		write("R/PT2H")
		changed, err := e.Eng.DeployFiles(e.Ctx, "svc", path)
		if err != nil || changed.Unchanged || changed.Definitions[0].Version != 2 {
			t.Fatalf("a changed file: %+v, %v; want version 2", changed, err)
		}
	})
}

// An ended instance's variables stay readable: the values it had at its end,
// whether or not its last command loaded them; also after a deletion.
func TestVariablesAfterTheEnd(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("noop", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("task", enginetest.Defs(enginetest.Executable("task", `<startEvent id="s"/><userTask id="work"/><endEvent id="end"/>`, enginetest.Chain("s", "work", "end"))))
		e.Deploy("job", enginetest.Defs(enginetest.Executable("job", `<startEvent id="s"/><serviceTask id="work" camunda:asyncBefore="true" camunda:class="noop"/><endEvent id="end"/>`,
			enginetest.Chain("s", "work", "end"))))

		pi := e.Start("task", map[string]any{"a": 1, "doc": map[string]any{"k": "v"}})
		e.Complete(pi, "work", map[string]any{"b": 2}) // loads the variables
		wantEq(t, "variables after the end", e.VarsOf(pi), map[string]any{"a": int64(1), "b": int64(2), "doc": map[string]any{"k": "v"}})

		pi = e.Start("job", map[string]any{"x": "y"})
		e.Drain(5) // the job ends the instance without reading variables
		if !e.Ended(pi) {
			t.Fatal("the instance should have ended")
		}
		wantEq(t, "variables after an end by a job", e.VarsOf(pi), map[string]any{"x": "y"})

		pi = e.Start("task", map[string]any{"kept": true})
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "test"); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "variables after a deletion", e.VarsOf(pi), map[string]any{"kept": true})
		if _, err := e.Eng.Variables(e.Ctx, "no-such-instance"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("variables of an unknown instance: %v, want ErrNotFound", err)
		}
	})
}
