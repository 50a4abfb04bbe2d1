package bpmn

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shared acceptance corpus is read in place, never copied into the repository.
const corpusDir = "/work/shared/acceptance"

func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	root := filepath.Join(corpusDir, dir)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("acceptance corpus not available (%v)", err)
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".bpmn") || strings.HasSuffix(path, ".bpmn20.xml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no BPMN files under %s", root)
	}
	return files
}

// TestCamundaCorpus parses every Camunda test file: all deploy, except the
// three whose scenarios expect a deployment error.
func TestCamundaCorpus(t *testing.T) {
	failing := map[string]struct{ id, msg string }{
		"async/AsyncAfterTest.testTransitionIdRequired.bpmn20.xml": {"service",
			"Sequence flow with sourceRef='service' must have an id, activity with id 'service' uses 'asyncAfter'."},
		"job-priority/_needs-extra/invalidPrioProcess.bpmn20.xml": {"task2",
			"Value 'thisIsNotANumber' for attribute 'jobPriority' is not a valid number"},
		"external-tasks/externalTaskInvalidPriority.bpmn20.xml": {"externalTaskWithPrio",
			"Value 'NOTaNumber' for attribute 'taskPriority' is not a valid number"},
	}
	files := corpusFiles(t, "camunda")
	seen := 0
	for _, path := range files {
		rel, _ := filepath.Rel(filepath.Join(corpusDir, "camunda"), path)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(data, ParseOptions{File: rel, CheckExpression: checkBalanced})
			want, mustFail := failing[rel]
			if !mustFail {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if len(d.Processes) == 0 {
					t.Errorf("no executable process (skipped: %v)", d.Skipped)
				}
				for _, w := range d.Warnings {
					t.Logf("warning: %s", w)
				}
				return
			}
			seen++
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a ParseError, got %v", err)
			}
			if len(pe.Problems) != 1 {
				t.Errorf("want one problem, got:\n%s", listProblems(pe.Problems))
			}
			p := findProblem(t, pe.Problems, want.id, want.msg)
			if !strings.Contains(err.Error(), want.msg) || !strings.HasPrefix(p.String(), rel+":") {
				t.Errorf("error text %q", err)
			}
		})
	}
	if seen != len(failing) {
		t.Errorf("found %d of the %d files that must fail", seen, len(failing))
	}
}

// supportedHere are the constructs of the MIWG manifest's "outside our list"
// column that bpmnlite's list does include.
var supportedHere = map[string]bool{
	"task": true, "sendTask": true, "eventBasedGateway": true, "inclusiveGateway": true,
	"intermediateThrowEvent": true, "intermediateThrowEvent/signalEventDefinition": true,
	"intermediateThrowEvent/messageEventDefinition": true, "endEvent/messageEventDefinition": true,
	"intermediateCatchEvent/messageEventDefinition": true, "intermediateCatchEvent/signalEventDefinition": true,
	"intermediateCatchEvent/timerEventDefinition": true, "intermediateCatchEvent/linkEventDefinition": true,
	"intermediateThrowEvent/linkEventDefinition": true, "startEvent/signalEventDefinition": true,
	"boundaryEvent/escalationEventDefinition": true, "endEvent/escalationEventDefinition": true,
	"intermediateThrowEvent/escalationEventDefinition": true, "boundaryEvent/signalEventDefinition": true,
	"startEvent/messageEventDefinition": true, "startEvent/timerEventDefinition": true,
	"boundaryEvent/messageEventDefinition": true, "boundaryEvent/errorEventDefinition": true, "boundaryEvent/timerEventDefinition": true,
	"endEvent/terminateEventDefinition": true, "endEvent/errorEventDefinition": true, "endEvent/signalEventDefinition": true,
	"boundaryEvent/conditionalEventDefinition": true, "intermediateCatchEvent/conditionalEventDefinition": true,
	"startEvent/conditionalEventDefinition": true,
}

// miwgCase is a manifest row: the constructs outside bpmnlite's list, and
// whether the file must deploy once plain tasks are supported (verdict accept*).
type miwgCase struct {
	unsupported []string
	accept      bool
}

// miwgManifest reads the table of the MIWG manifest.
func miwgManifest(t *testing.T) map[string]miwgCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "miwg", "MANIFEST.md"))
	if err != nil {
		t.Skipf("MIWG manifest not available (%v)", err)
	}
	out := map[string]miwgCase{}
	outside, verdict := -1, -1
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if outside < 0 {
			for i, c := range cells {
				switch {
				case strings.HasPrefix(c, "outside our list"):
					outside = i
				case c == "verdict":
					verdict = i
				}
			}
			continue
		}
		if !strings.HasPrefix(cells[1], "`") || outside >= len(cells) || verdict >= len(cells) {
			continue
		}
		c := miwgCase{accept: cells[verdict] == "accept*"}
		for item := range strings.SplitSeq(cells[outside], ", ") {
			name, _, _ := strings.Cut(item, "×")
			if name != "–" && name != "" && !supportedHere[name] {
				c.unsupported = append(c.unsupported, name)
			}
		}
		out[strings.Trim(cells[1], "`")] = c
	}
	if outside < 0 || verdict < 0 || len(out) == 0 {
		t.Fatal("could not read the MIWG manifest table")
	}
	return out
}

// TestMIWGCorpus parses the exports of real modelling tools with every
// process forced executable: each either parses or fails naming every
// unsupported construct it holds, and the files whose only construct outside
// the manifest's list was the plain task parse. The outcome of each is logged.
func TestMIWGCorpus(t *testing.T) {
	files := corpusFiles(t, "miwg")
	manifest := miwgManifest(t)
	for _, path := range files {
		rel, _ := filepath.Rel(filepath.Join(corpusDir, "miwg"), path)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, listed := manifest[rel]
			unsupported := want.unsupported
			if !listed {
				t.Fatalf("%s is not in the manifest", rel)
			}
			d, err := Parse(data, ParseOptions{File: rel, ForceExecutable: true, CheckExpression: checkBalanced})
			if err == nil {
				if len(unsupported) > 0 {
					t.Fatalf("parsed, but holds %v", unsupported)
				}
				t.Logf("accepted: %d processes, %d warnings", len(d.Processes), len(d.Warnings))
				// A plain deployment skips the non-executable processes.
				plain, err := Parse(data, ParseOptions{File: rel, CheckExpression: checkBalanced})
				if err != nil {
					t.Fatalf("plain parse: %v", err)
				}
				t.Logf("without ForceExecutable: %d processes, %d skipped", len(plain.Processes), len(plain.Skipped))
				return
			}
			if want.accept {
				t.Fatalf("a file the manifest accepts fails: %v", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a ParseError, got %v", err)
			}
			named := map[string]bool{}
			for _, p := range pe.Problems {
				named[p.ElementType] = true
				if p.Pos.Line == 0 {
					t.Errorf("problem without position: %s", p)
				}
			}
			for _, u := range unsupported {
				if !named[u] {
					t.Errorf("the error does not name %s:\n%s", u, listProblems(pe.Problems))
				}
			}
			var types []string
			for n := range named {
				types = append(types, n)
			}
			sort.Strings(types)
			t.Logf("rejected (%d problems; element types %s)\n%s", len(pe.Problems), strings.Join(types, ", "), listProblems(pe.Problems))
		})
	}
}
