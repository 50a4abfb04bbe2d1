package bpmntest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmn"
)

// Coverage: with Options.Coverage (or BPMNTEST_COVERAGE) naming a
// directory, each test records which flow nodes (from its engine's
// activity history) and sequence flows (told by the engine after each
// commit) its processes passed, and writes them there as a fragment of its
// own when it ends. After each fragment the report (index.html and a page
// per process, drawn with bpmn-js) is made again from all fragments in the
// directory, so it covers every test of the run, across packages.

// CoverageEnv names the environment variable that turns coverage on for
// every test: the directory the report is written to.
const CoverageEnv = "BPMNTEST_COVERAGE"

// coverageRecorder collects the sequence flows a test's engine took, by
// process definition id.
type coverageRecorder struct {
	mu    sync.Mutex
	flows map[string]map[string]bool
}

func (r *coverageRecorder) taken(f bpmnlite.FlowTaken) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flows == nil {
		r.flows = map[string]map[string]bool{}
	}
	if r.flows[f.ProcessDefinitionID] == nil {
		r.flows[f.ProcessDefinitionID] = map[string]bool{}
	}
	r.flows[f.ProcessDefinitionID][f.FlowID] = true
}

func (r *coverageRecorder) takenIn(definitionID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id := range r.flows[definitionID] {
		ids = append(ids, id)
	}
	return ids
}

// coverageFragment is what one test passed: its file in fragments/.
type coverageFragment struct {
	Test      string            `json:"test"`
	Processes []processCoverage `json:"processes"`
}

// processCoverage is a process model (by key and the hash of its XML,
// kept in models/) with its elements and those a test passed.
type processCoverage struct {
	Key      string   `json:"key"`
	Name     string   `json:"name,omitempty"`
	Model    string   `json:"model"` // sha256 of the XML, models/<Model>.bpmn
	Elements []string `json:"elements"`
	Covered  []string `json:"covered"`
}

// writeCoverage records what the harness's engine passed as test's
// fragment in dir and makes the report again.
func writeCoverage(ctx context.Context, eng *bpmnlite.Engine, rec *coverageRecorder, dir, test string) error {
	frag, models, err := collectCoverage(ctx, eng, rec, test)
	if err != nil {
		return err
	}
	for _, d := range []string{"fragments", "models"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	for hash, xml := range models {
		path := filepath.Join(dir, "models", hash+".bpmn")
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if err := writeFileAtomic(path, xml); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(frag, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "fragments", fragmentName(test)), data); err != nil {
		return err
	}
	return writeCoverageReport(dir)
}

// fragmentSeq tells apart the fragments of tests of one name in one
// process (a test run twice with -count).
var fragmentSeq atomic.Int64

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func fragmentName(test string) string {
	return fmt.Sprintf("%s-%d-%d.json", unsafeName.ReplaceAllString(test, "_"), os.Getpid(), fragmentSeq.Add(1))
}

// collectCoverage reads every process definition of the engine (a
// harness's engine holds its test's only) with what the test passed.
func collectCoverage(ctx context.Context, eng *bpmnlite.Engine, rec *coverageRecorder, test string) (coverageFragment, map[string][]byte, error) {
	frag := coverageFragment{Test: test}
	models := map[string][]byte{}
	defs, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{})
	if err != nil {
		return frag, nil, err
	}
	for _, def := range defs {
		xml, err := eng.ProcessModel(ctx, def.ID)
		if err != nil {
			return frag, nil, err
		}
		elements, err := modelElements(xml, def.Key)
		if err != nil {
			return frag, nil, fmt.Errorf("coverage of %s: %w", def.ID, err)
		}
		passed, err := eng.HistoricActivityInstances(ctx, bpmnlite.HistoricActivityQuery{ProcessDefinitionID: def.ID})
		if err != nil {
			return frag, nil, err
		}
		covered := rec.takenIn(def.ID)
		for _, a := range passed {
			covered = append(covered, strings.TrimSuffix(a.ActivityID, "#multiInstanceBody"))
		}
		slices.Sort(covered)
		sum := sha256.Sum256(xml)
		hash := hex.EncodeToString(sum[:])
		models[hash] = xml
		frag.Processes = append(frag.Processes, processCoverage{
			Key: def.Key, Name: def.Name, Model: hash, Elements: elements,
			Covered: slices.Compact(covered),
		})
	}
	return frag, models, nil
}

// modelElements lists the flow nodes and sequence flows of process key in
// a model, at any depth, sorted.
func modelElements(xml []byte, key string) ([]string, error) {
	defs, err := bpmn.Parse(xml, bpmn.ParseOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range defs.Processes {
		if p.ID != key {
			continue
		}
		var ids []string
		for _, f := range p.Flows {
			ids = append(ids, f.ID)
		}
		for _, a := range p.AllActivities() {
			ids = append(ids, a.ID)
			for _, f := range a.Flows {
				ids = append(ids, f.ID)
			}
		}
		slices.Sort(ids)
		return slices.Compact(ids), nil
	}
	return nil, fmt.Errorf("the model has no process %q", key)
}

// readFragments reads every fragment in dir, oldest first.
func readFragments(dir string) ([]coverageFragment, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "fragments"))
	if err != nil {
		return nil, err
	}
	var out []coverageFragment
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "fragments", e.Name()))
		if err != nil {
			return nil, err
		}
		var f coverageFragment
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("coverage fragment %s: %w", e.Name(), err)
		}
		out = append(out, f)
	}
	return out, nil
}

// writeFileAtomic writes a file whole or not at all: tests of several
// packages write into one report at once.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// copyFS copies the named files of fsys into dir.
func copyFS(fsys fs.FS, dir string, names ...string) error {
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}
