package bpmntest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmntest"
)

// branchModel has an exclusive choice, so that a test passes only part of
// it, and a subprocess, so that elements at depth count.
const branchModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="cov">
  <process id="branch" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="toChoice" sourceRef="start" targetRef="choice"/>
    <exclusiveGateway id="choice" default="toB"/>
    <sequenceFlow id="toA" sourceRef="choice" targetRef="sub">
      <conditionExpression>${path == 'a'}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="toB" sourceRef="choice" targetRef="b"/>
    <subProcess id="sub">
      <startEvent id="subStart"/>
      <sequenceFlow id="toWork" sourceRef="subStart" targetRef="work"/>
      <userTask id="work"/>
      <sequenceFlow id="toSubEnd" sourceRef="work" targetRef="subEnd"/>
      <endEvent id="subEnd"/>
    </subProcess>
    <sequenceFlow id="fromSub" sourceRef="sub" targetRef="end"/>
    <userTask id="b"/>
    <sequenceFlow id="fromB" sourceRef="b" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

type fragment struct {
	Test      string `json:"test"`
	Processes []struct {
		Key      string   `json:"key"`
		Elements []string `json:"elements"`
		Covered  []string `json:"covered"`
	} `json:"processes"`
}

func readFragments(t *testing.T, dir string) map[string]fragment {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "fragments", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fragment{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fr fragment
		if err := json.Unmarshal(data, &fr); err != nil {
			t.Fatal(err)
		}
		out[fr.Test[strings.LastIndex(fr.Test, "/")+1:]] = fr
	}
	return out
}

// TestCoverageReport runs two tests that pass different branches and
// checks that each records exactly the elements it passed, and that the
// report's pages cover both.
func TestCoverageReport(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			model := filepath.Join(t.TempDir(), "branch.bpmn")
			if err := os.WriteFile(model, []byte(branchModel), 0o644); err != nil {
				t.Fatal(err)
			}
			opt := bpmntest.Options{Coverage: dir, Postgres: backend == "postgres"}
			t.Run("viaA", func(t *testing.T) {
				e := bpmntest.New(t, opt)
				e.Deploy(model)
				e.Start("branch", map[string]any{"path": "a"}).CompleteTask("work", nil).AssertEnded("end")
			})
			t.Run("viaB", func(t *testing.T) {
				e := bpmntest.New(t, opt)
				e.Deploy(model)
				e.Start("branch", map[string]any{"path": "b"}).AssertWaitingAt("b")
			})
			frags := readFragments(t, dir)
			if len(frags) != 2 {
				t.Fatalf("want 2 fragments, got %d", len(frags))
			}
			want := map[string][]string{
				"viaA": {"choice", "end", "fromSub", "start", "sub", "subEnd", "subStart", "toA", "toChoice", "toSubEnd", "toWork", "work"},
				"viaB": {"b", "choice", "start", "toB", "toChoice"},
			}
			for name, w := range want {
				p := frags[name].Processes
				if len(p) != 1 || p[0].Key != "branch" {
					t.Fatalf("%s: want one process 'branch', got %+v", name, p)
				}
				if !slices.Equal(p[0].Covered, w) {
					t.Errorf("%s covered %v, want %v", name, p[0].Covered, w)
				}
				if len(p[0].Elements) != 15 {
					t.Errorf("%s: the model has 15 elements (8 flow nodes, 7 flows), the fragment lists %d: %v", name, len(p[0].Elements), p[0].Elements)
				}
			}
			index, err := os.ReadFile(filepath.Join(dir, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			// 14 of 15 elements: every one but fromB (test B stops at b).
			if !strings.Contains(string(index), "93.3 %") {
				t.Errorf("index.html lacks the union's 93.3 %%:\n%s", index)
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "process-branch-*.html"))
			if len(pages) != 1 {
				t.Fatalf("want one page for the process, got %v", pages)
			}
			page, _ := os.ReadFile(pages[0])
			for _, s := range []string{`/viaB":["b","choice","start","toB","toChoice"]`, "bpmn-navigated-viewer.production.min.js", "coverage.js"} {
				if !strings.Contains(string(page), s) {
					t.Errorf("the process page lacks %s", s)
				}
			}
			for _, f := range []string{"bpmn-navigated-viewer.production.min.js", "diagram-js.css", "bpmn-js.css", "coverage.js", "coverage.css"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("the report lacks %s: %v", f, err)
				}
			}
		})
	}
}

// TestSequenceFlowTakenOnlyCommitted: flows taken by a command that fails
// are rolled back with it and never reported; a user's own observer is
// told as well as the kit's.
func TestSequenceFlowTakenOnlyCommitted(t *testing.T) {
	const failing = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="cov">
  <process id="fails" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="toBoom" sourceRef="start" targetRef="boom"/>
    <serviceTask id="boom" camunda:class="boom" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"/>
    <sequenceFlow id="toEnd" sourceRef="boom" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
	var mu sync.Mutex
	var seen []string
	model := filepath.Join(t.TempDir(), "fails.bpmn")
	if err := os.WriteFile(model, []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	e := bpmntest.New(t, bpmntest.Options{Coverage: t.TempDir(), Config: func(c *bpmnlite.Config) {
		c.SequenceFlowTaken = func(f bpmnlite.FlowTaken) {
			mu.Lock()
			seen = append(seen, f.FlowID)
			mu.Unlock()
		}
	}})
	e.Deploy(model)
	e.FailTimes("boom", 1, nil, nil)
	if _, err := e.Engine.Start(t.Context(), bpmnlite.StartRequest{Key: "fails"}); err == nil {
		t.Fatal("the first start should fail in its delegate")
	}
	mu.Lock()
	if len(seen) != 0 {
		t.Errorf("a rolled-back start reported flows %v", seen)
	}
	mu.Unlock()
	e.Start("fails", nil).AssertEnded("end")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"toBoom", "toEnd"}) {
		t.Errorf("the committed start reported %v, want [toBoom toEnd]", seen)
	}
}
