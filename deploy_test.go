package bpmnlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// DeployFiles at every restart makes no new version of unchanged files
// and keeps their timer start jobs; a changed file makes a new version.
func TestDeployFilesSkipsUnchanged(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		path := filepath.Join(t.TempDir(), "nightly.bpmn")
		write := func(cycle string) {
			xml := xmlDefs(xmlProcess("nightly", `<startEvent id="start"><timerEventDefinition><timeCycle>`+cycle+`</timeCycle></timerEventDefinition></startEvent>
				<endEvent id="end"/>`, xmlChain("start", "end")))
			if err := os.WriteFile(path, []byte(xml), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write("R/PT1H")
		first, err := e.eng.DeployFiles(e.ctx, "svc", path)
		if err != nil || first.Unchanged {
			t.Fatalf("first deployment: %+v, %v", first, err)
		}
		jobs := func() []*bpmnlite.Job {
			js, err := e.eng.Jobs(e.ctx, bpmnlite.JobQuery{})
			if err != nil {
				t.Fatal(err)
			}
			return js
		}
		before := jobs()
		again, err := e.eng.DeployFiles(e.ctx, "svc", path)
		if err != nil || !again.Unchanged || again.Definitions[0].Version != 1 {
			t.Fatalf("redeploying the same file: %+v, %v; want unchanged, version 1", again, err)
		}
		if after := jobs(); len(after) != 1 || after[0].ID != before[0].ID {
			t.Errorf("timer start jobs %v after an unchanged deployment, want the same one", after)
		}
		write("R/PT2H")
		changed, err := e.eng.DeployFiles(e.ctx, "svc", path)
		if err != nil || changed.Unchanged || changed.Definitions[0].Version != 2 {
			t.Fatalf("a changed file: %+v, %v; want version 2", changed, err)
		}
	})
}

// An ended instance's variables stay readable: the values it had at its end,
// whether or not its last command loaded them; also after a deletion.
func TestVariablesAfterTheEnd(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.eng.RegisterDelegate("noop", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.deploy("task", xmlDefs(xmlProcess("task", `<startEvent id="s"/><userTask id="work"/><endEvent id="end"/>`, xmlChain("s", "work", "end"))))
		e.deploy("job", xmlDefs(xmlProcess("job", `<startEvent id="s"/><serviceTask id="work" camunda:asyncBefore="true" camunda:class="noop"/><endEvent id="end"/>`,
			xmlChain("s", "work", "end"))))

		pi := e.start("task", map[string]any{"a": 1, "doc": map[string]any{"k": "v"}})
		e.complete(pi, "work", map[string]any{"b": 2}) // loads the variables
		wantEq(t, "variables after the end", e.varsOf(pi), map[string]any{"a": int64(1), "b": int64(2), "doc": map[string]any{"k": "v"}})

		pi = e.start("job", map[string]any{"x": "y"})
		e.drain(5) // the job ends the instance without reading variables
		if !e.accEnded(pi) {
			t.Fatal("the instance should have ended")
		}
		wantEq(t, "variables after an end by a job", e.varsOf(pi), map[string]any{"x": "y"})

		pi = e.start("task", map[string]any{"kept": true})
		if err := e.eng.DeleteProcessInstance(e.ctx, pi, "test"); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "variables after a deletion", e.varsOf(pi), map[string]any{"kept": true})
		if _, err := e.eng.Variables(e.ctx, "no-such-instance"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("variables of an unknown instance: %v, want ErrNotFound", err)
		}
	})
}
