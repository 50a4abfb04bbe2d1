package acceptance_test

// Acceptance tests on Camunda's own test BPMN files (the shared corpus in
// ../shared/acceptance beside the module root, read in place). Scenario tests are named after
// SCENARIOS.md (TestS01_..., TestS02_...) and check its numbers.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// corpusBPMN lists the BPMN files of the Camunda corpus, relative to
// camunda/, core and _needs-extra alike.
func corpusBPMN(t *testing.T) []string {
	t.Helper()
	root := harness.Corpus(t, "camunda")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".bpmn") || strings.HasSuffix(path, ".bpmn20.xml")) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no BPMN files under %s", root)
	}
	slices.Sort(files)
	return files
}

// mustNotDeploy are the corpus files whose deployment fails: the element
// and the text the error names.
var mustNotDeploy = map[string]struct{ element, text string }{
	"async/AsyncAfterTest.testTransitionIdRequired.bpmn20.xml": {"service",
		"Sequence flow with sourceRef='service' must have an id, activity with id 'service' uses 'asyncAfter'."},
	"job-priority/_needs-extra/invalidPrioProcess.bpmn20.xml": {"task2",
		"value 'thisIsNotANumber' for attribute 'jobPriority' is not a valid number"},
	"external-tasks/externalTaskInvalidPriority.bpmn20.xml": {"externalTaskWithPrio",
		"value 'NOTaNumber' for attribute 'taskPriority' is not a valid number"},
}

// Every file of the corpus deploys on both backends, except the three that
// must fail with a parse error naming the element; a failed deployment
// stores nothing.
func TestAcceptanceDeployCorpus(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		files := corpusBPMN(t)
		failed := 0
		for _, rel := range files {
			want, mustFail := mustNotDeploy[rel]
			if !mustFail {
				continue
			}
			failed++
			_, err := e.Eng.DeployFiles(e.Ctx, rel, harness.Corpus(t, "camunda/"+rel))
			var pe *bpmnlite.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%s: deploy gave %v, want a ParseError", rel, err)
				continue
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want.text)) {
				t.Errorf("%s: error %q does not contain %q", rel, err, want.text)
			}
			if !slices.ContainsFunc(pe.Problems, func(p bpmnlite.Problem) bool { return p.ElementID == want.element }) {
				t.Errorf("%s: no problem names element %q: %v", rel, want.element, pe.Problems)
			}
		}
		if failed != len(mustNotDeploy) {
			t.Fatalf("found %d of the %d files that must not deploy", failed, len(mustNotDeploy))
		}
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{})
		if err != nil {
			t.Fatal(err)
		}
		jobDefs, err := e.Eng.JobDefinitions(e.Ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(defs)+len(jobs)+len(jobDefs) != 0 {
			t.Fatalf("failed deployments stored %d definitions, %d jobs, %d job definitions", len(defs), len(jobs), len(jobDefs))
		}

		deployed := 0
		for _, rel := range files {
			if _, mustFail := mustNotDeploy[rel]; mustFail {
				continue
			}
			d, err := e.Eng.DeployFiles(e.Ctx, rel, harness.Corpus(t, "camunda/"+rel))
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			if len(d.Definitions) == 0 {
				t.Errorf("%s: deployed no process definition (skipped %v)", rel, d.Skipped)
			}
			deployed++
		}
		if deployed+failed != len(files) {
			t.Errorf("deployed %d + failed %d of %d files", deployed, failed, len(files))
		}
	})
}

// companions are the files a corpus file's call activities need.
var companions = map[string][]string{
	"async/AsyncTaskTest.testAsyncCallActivity.bpmn20.xml":                          {"async/AsyncTaskTest.testAsyncServiceNoListeners.bpmn20.xml"},
	"async/AsyncCallActivityTest.testCallSubProcess.bpmn20.xml":                     {"async/AsyncCallActivityTest.asyncStartEvent.bpmn20.xml"},
	"async/AsyncEndEventTest.testCallActivity-super.bpmn20.xml":                     {"async/AsyncEndEventTest.testCallActivity-sub.bpmn20.xml"},
	"async/AsyncStartEventTest.testCallActivity-super.bpmn20.xml":                   {"async/AsyncStartEventTest.testCallActivity-sub.bpmn20.xml"},
	"multi-instance/MultiInstanceTest.testParallelCallActivityWithTimer.bpmn20.xml": {"multi-instance/MultiInstanceTest.externalSubProcess.bpmn20.xml"},
	"incidents/IncidentTest.testShouldCreateRecursiveIncidents.bpmn":                {"incidents/IncidentTest.testShouldCreateOneIncident.bpmn"},
	"incidents/IncidentTest.testShouldCreateRecursiveIncidentsForNestedCallActivity.bpmn": {
		"incidents/IncidentTest.testShouldCreateRecursiveIncidents.bpmn", "incidents/IncidentTest.testShouldCreateOneIncident.bpmn"},
}

// startFails documents the processes ("file#process id") of core files whose
// plain start fails in Camunda too, and why.
var startFails = map[string]string{
	// The file's second process, asyncService, is only the called process of
	// failedCallActivity: started directly, its synchronous service task runs
	// the class cmd.FailingDelegate, which does not exist (in Camunda either).
	"retries/FoxJobRetryCmdTest.testFailedCallActivity.bpmn20.xml#asyncService": "calls the nonexistent class cmd.FailingDelegate synchronously",
}

// plainStartVars are the variables every plain start gets: what the
// corpus's expressions and delegates read.
func plainStartVars(e *env) map[string]any {
	return map[string]any{
		"duration":  "PT1H",
		"duedate":   "PT1H",
		"dueDate":   e.Clock.Now().Add(time.Hour),
		"cycle":     "R/PT15M",
		"timeCycle": "R/PT1H",
		"priority":  int64(7),
		"nrOfLoops": int64(3),
		"result":    int64(5),
		"fail":      false,
	}
}

// "A plain start must not fail unless the file says it should" (MANIFEST):
// every process of a core file with a none start event starts, with the
// corpus delegates registered and the variables its expressions need.
func TestAcceptancePlainStart(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		started := 0
		for _, rel := range corpusBPMN(t) {
			if strings.Contains(rel, "_needs-extra/") {
				continue
			}
			if _, mustFail := mustNotDeploy[rel]; mustFail {
				continue
			}
			data, err := os.ReadFile(harness.Corpus(t, "camunda/"+rel))
			if err != nil {
				t.Fatal(err)
			}
			model, err := bpmn.Parse(data, bpmn.ParseOptions{File: rel})
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			var paths []string
			for _, p := range append([]string{rel}, companions[rel]...) {
				paths = append(paths, harness.Corpus(t, "camunda/"+p))
			}
			d, err := e.Eng.DeployFiles(e.Ctx, rel, paths...)
			if err != nil {
				t.Errorf("%s: deploy: %v", rel, err)
				continue
			}
			for _, proc := range model.Processes {
				if proc.NoneStartEvent() == nil {
					continue
				}
				i := slices.IndexFunc(d.Definitions, func(pd *bpmnlite.ProcessDefinition) bool {
					return pd.Key == proc.ID && pd.ResourceName == filepath.Base(rel)
				})
				if i < 0 {
					t.Errorf("%s: process %s not deployed", rel, proc.ID)
					continue
				}
				_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{DefinitionID: d.Definitions[i].ID, Variables: plainStartVars(e)})
				why, expected := startFails[rel+"#"+proc.ID]
				switch {
				case err != nil && !expected:
					t.Errorf("%s: start %s: %v", rel, proc.ID, err)
				case err == nil && expected:
					t.Errorf("%s: start %s succeeded, want a failure (%s)", rel, proc.ID, why)
				}
				started++
			}
		}
		if started == 0 {
			t.Fatal("no process with a none start event found")
		}
		t.Logf("started %d processes", started)
	})
}
