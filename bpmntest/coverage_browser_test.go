package bpmntest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bpmnlite/bpmnlite/bpmntest"
)

// choiceWithDiagram is an exclusive choice between a and b, drawn
// (diagram interchange), so that the report's page has a diagram to mark.
const choiceWithDiagram = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"
  xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" targetNamespace="cov">
  <process id="drawn" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f0" sourceRef="start" targetRef="gw"/>
    <exclusiveGateway id="gw" default="fb"/>
    <sequenceFlow id="fa" sourceRef="gw" targetRef="a"><conditionExpression>${path == 'a'}</conditionExpression></sequenceFlow>
    <sequenceFlow id="fb" sourceRef="gw" targetRef="b"/>
    <userTask id="a"/>
    <userTask id="b"/>
    <sequenceFlow id="fa2" sourceRef="a" targetRef="endA"/>
    <sequenceFlow id="fb2" sourceRef="b" targetRef="endB"/>
    <endEvent id="endA"/>
    <endEvent id="endB"/>
  </process>
  <bpmndi:BPMNDiagram id="d"><bpmndi:BPMNPlane id="p" bpmnElement="drawn">
    <bpmndi:BPMNShape id="s_start" bpmnElement="start"><dc:Bounds x="100" y="100" width="36" height="36"/></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="s_gw" bpmnElement="gw" isMarkerVisible="true"><dc:Bounds x="190" y="93" width="50" height="50"/></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="s_a" bpmnElement="a"><dc:Bounds x="300" y="30" width="100" height="80"/></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="s_b" bpmnElement="b"><dc:Bounds x="300" y="150" width="100" height="80"/></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="s_endA" bpmnElement="endA"><dc:Bounds x="460" y="52" width="36" height="36"/></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="s_endB" bpmnElement="endB"><dc:Bounds x="460" y="172" width="36" height="36"/></bpmndi:BPMNShape>
    <bpmndi:BPMNEdge id="e_f0" bpmnElement="f0"><di:waypoint x="136" y="118"/><di:waypoint x="190" y="118"/></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="e_fa" bpmnElement="fa"><di:waypoint x="215" y="93"/><di:waypoint x="215" y="70"/><di:waypoint x="300" y="70"/></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="e_fb" bpmnElement="fb"><di:waypoint x="215" y="143"/><di:waypoint x="215" y="190"/><di:waypoint x="300" y="190"/></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="e_fa2" bpmnElement="fa2"><di:waypoint x="400" y="70"/><di:waypoint x="460" y="70"/></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="e_fb2" bpmnElement="fb2"><di:waypoint x="400" y="190"/><di:waypoint x="460" y="190"/></bpmndi:BPMNEdge>
  </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</definitions>`

// TestCoverageReportInBrowser opens a report's process page in headless
// Chromium: the diagram marks exactly the elements the test passed, for
// all tests and for the test chosen.
func TestCoverageReportInBrowser(t *testing.T) {
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the coverage report's browser test needs Chromium (apt-get install chromium); CI=true does not skip it")
		}
		t.Skip("coverage report browser test skipped: no chromium on this machine (apt-get install chromium)")
	}
	dir := t.TempDir()
	model := filepath.Join(t.TempDir(), "drawn.bpmn")
	if err := os.WriteFile(model, []byte(choiceWithDiagram), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("viaA", func(t *testing.T) {
		e := bpmntest.New(t, bpmntest.Options{Coverage: dir})
		e.Deploy(model)
		e.Start("drawn", map[string]any{"path": "a"}).CompleteTask("a", nil).AssertEnded("endA")
	})
	t.Run("viaB", func(t *testing.T) {
		e := bpmntest.New(t, bpmntest.Options{Coverage: dir})
		e.Deploy(model)
		e.Start("drawn", map[string]any{"path": "b"}).AssertWaitingAt("b")
	})
	pages, _ := filepath.Glob(filepath.Join(dir, "process-drawn-*.html"))
	if len(pages) != 1 {
		t.Fatalf("want one page for the process, got %v", pages)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	marked := func(what string, actions ...chromedp.Action[chromedp.Void]) []string {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.djs-element.covered')].map((e) => e.dataset.elementId).sort()`))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return ids
	}
	got := marked("open the page", chromedp.Navigate("file://"+pages[0]), chromedp.WaitVisible(chromedp.CSS(`body[data-covered] .djs-element.covered`)))
	all := []string{"a", "b", "endA", "f0", "fa", "fa2", "fb", "gw", "start"} // every element but fb2 and endB
	if !slices.Equal(got, all) {
		t.Errorf("all tests: the diagram marks %v, want %v", got, all)
	}
	choose := func(test string) chromedp.Action[chromedp.Void] {
		pick := chromedp.Evaluate[bool](`(() => { const s = document.getElementById('test'); s.value = ` + strconv.Quote(test) + `; s.dispatchEvent(new Event('change')); return true })()`)
		return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			_, err := pick(ctx, t)
			return chromedp.Void{}, err
		}
	}
	got = marked("choose viaB", choose("TestCoverageReportInBrowser/viaB"))
	if want := []string{"b", "f0", "fb", "gw", "start"}; !slices.Equal(got, want) {
		t.Errorf("test viaB: the diagram marks %v, want %v", got, want)
	}
}
