package bpmnlite_test

import (
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
